#!/usr/bin/env bash
# modules/wave/tests/run_tests.sh - CPU test suite of the wave module (after 'make
# wave'; runs from any folder: it changes to the repository root itself).
# Last line: "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.." || exit 2
B=build/wave
. modules/common/tests/harness.sh
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
# quiet the OpenMPI warnings about missing fabrics on small machines
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1

# 1. numerical unit tests (double precision): convergence, energy, slabs, bad inputs
export WAVE_TEST_DIR=$T   # test_wave writes its files there
unit_tests $B/test_wave

CASE="modules/wave/cases/small.case"

# 2. float runs: threads, in-process slabs and MPI ranks are bit-identical
run $T/ref.log env OMP_NUM_THREADS=1 $B/wave2d $CASE --out $T/ref --write_final 1
ref=$(checksum $T/ref.log)
[ -n "$ref" ] && ok cli_reference_run "checksum $ref" || bad cli_reference_run "$(tail -2 $T/ref.log)"
run $T/thr.log env OMP_NUM_THREADS=2 $B/wave2d $CASE --out $T/thr --write_final 1
c=$(checksum $T/thr.log)
[ "$c" = "$ref" ] && cmp -s $T/ref/final.bin $T/thr/final.bin && ok threads_bit_identical "2 threads = 1 thread ($c)" || bad threads_bit_identical "$c vs $ref"
run $T/parts.log $B/wave2d $CASE --parts 5 --out $T/parts --write_final 1
c=$(checksum $T/parts.log)
[ "$c" = "$ref" ] && cmp -s $T/ref/final.bin $T/parts/final.bin && cmp -s $T/ref/traces.bin $T/parts/traces.bin \
    && ok slabs_bit_identical "5 in-process slabs = 1 slab, field and traces" || bad slabs_bit_identical "$c vs $ref"
for np in 2 3; do
    run $T/mpi$np.log env OMP_NUM_THREADS=1 $MPIRUN -np $np $B/wave2d-mpi $CASE --out $T/mpi$np --write_final 1
    c=$(checksum $T/mpi$np.log)
    if [ "$c" = "$ref" ] && cmp -s $T/ref/final.bin $T/mpi$np/final.bin && cmp -s $T/ref/traces.bin $T/mpi$np/traces.bin; then
        ok mpi_np${np}_bit_identical "mpirun -np $np field and traces = serial ($c)"
    else bad mpi_np${np}_bit_identical "got '$c' vs '$ref': $(grep -i error $T/mpi$np.log | head -2)"; fi
done

# 3. outputs: snapshots (PNG + raw), traces, info
run $T/snap.log $B/wave2d $CASE --nt 40 --snap_every 20 --out $T/snap
sz=$(stat -c %s $T/snap/snap_000040.bin 2>/dev/null || echo 0)
if [ "$sz" = $((200*180*4)) ] && [ "$(head -c 4 $T/snap/snap_000020.png | tail -c 3)" = "PNG" ] && [ -s $T/snap/traces.dat ] && [ -s $T/snap/seismogram.png ]; then
    ok outputs "raw snapshot $sz bytes, PNG snapshots, traces.dat, seismogram.png"
else bad outputs "missing or wrong-sized output files in $T/snap"; fi
if command -v python3 >/dev/null; then
    if png_decodes "$T/snap/snap_000040.png" 200 180
    then ok png_decodes "zlib/CRC check of the snapshot PNG"; else bad png_decodes "snapshot PNG does not decode"; fi
fi
grep -q "^outputs in '$T/snap'.*snap_000020.bin" $T/snap.log && ok outputs_listed "$(grep '^outputs' $T/snap.log | cut -c1-100)..." \
    || bad outputs_listed "no 'outputs in' line: $(tail -1 $T/snap.log)"
pts=$(grep -vc '^#' $T/snap/traces.dat)
[ "$pts" = 40 ] && ok traces "40 samples x 16 receivers" || bad traces "got $pts samples"

# 4. model from a binary file, and the double-precision build via precision = double
$B/test_wave --make-velfile $T/vel.bin 200 180
run $T/vf.log $B/wave2d $CASE --model file --velfile $T/vel.bin --nt 50
grep -q 'model file: v = 1500 .. 2694' $T/vf.log && ok velocity_file "$(grep -o 'model file.*m/s' $T/vf.log)" || bad velocity_file "$(tail -2 $T/vf.log)"
run $T/dp.log $B/wave2d $CASE --precision double --nt 50
grep -q 'double precision' $T/dp.log && grep -q checksum $T/dp.log && ok precision_double "re-ran as wave2d-dp" || bad precision_double "$(tail -2 $T/dp.log)"
run $T/dpm.log $MPIRUN -np 2 $B/wave2d-mpi-dp $CASE --nt 50
c1=$(checksum $T/dp.log); c2=$(checksum $T/dpm.log)
[ -n "$c1" ] && [ "$c1" = "$c2" ] && ok mpi_double_bit_identical "$c1" || bad mpi_double_bit_identical "$c1 vs $c2"

# 5. bad inputs: non-zero exit and a message that names the problem
expect_fail reject_missing_case "cannot open case file" $B/wave2d $T/nope.case
expect_fail reject_cfl_cli "unstable time step" $B/wave2d $CASE --dt 0.01
expect_fail reject_unknown_flag "unknown parameter 'nxy'" $B/wave2d $CASE --nxy 5
expect_fail reject_bad_value "expected a finite number" $B/wave2d $CASE --h abc
printf 'nx = 100\nthis line is wrong\n' > $T/broken.case
expect_fail reject_case_syntax "broken.case:2: expected 'key = value'" $B/wave2d $T/broken.case
head -c 1000 $T/vel.bin > $T/short.bin
expect_fail reject_short_velfile "has 1000 bytes, expected" $B/wave2d $CASE --model file --velfile $T/short.bin
expect_fail reject_gpu_without_cuda "built without CUDA" $B/wave2d $CASE --mode gpu
expect_fail reject_mpi_too_many_ranks "too many for ny" env OMP_NUM_THREADS=1 $MPIRUN -np 3 $B/wave2d-mpi $CASE --ny 18 --src_y 60 --rec_n 0 --sponge 0
for f in modules/wave/cases/*.case; do
    run $T/case.log $B/wave2d $f --nt 3 --out "" --nx 256 --ny 256 --sponge 20 --rec_n 0 --src_x 600 --src_y 600
    grep -q checksum $T/case.log && ok "case_$(basename $f .case)" "parses and runs" || bad "case_$(basename $f .case)" "$(tail -2 $T/case.log)"
done

finish

#!/usr/bin/env bash
# modules/ooc/tests/run_tests.sh - CPU test suite of the out-of-core module (after
# 'make ooc'; runs from any folder: it changes to the repository root).
# Last line: "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.." || exit 2
B=build/ooc
. modules/common/tests/harness.sh
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

# 1. driver tests on the CPU stand-in device: bit-identity sweep, race detection,
#    model counts, the paper's table, bad inputs
unit_tests $B/test_ooc

# 2. the command line: in-core, trivial and pyramid in one run, all bit-identical
for eq in heat wave; do
    for ov in 1 0; do
        run $T/cli_${eq}_$ov.log $B/ooc2d --eq $eq --nx 203 --ny 187 --nt 37 --device-mem 96K --overlap $ov --init noise --sched-seed 11 --poison 1 --n 2
        rc=$?
        nyes=$(grep -cE '^(in-core|trivial|pyramid) .* yes$' $T/cli_${eq}_$ov.log)
        [ $rc = 0 ] && [ "$nyes" = 3 ] && ok "cli_${eq}_overlap$ov" "in-core, trivial and pyramid (n = 2) bit-identical, random stream order, NaN poison" \
            || bad "cli_${eq}_overlap$ov" "rc=$rc, $(grep -E '^(trivial|pyramid|done)|error' $T/cli_${eq}_$ov.log | head -3)"
    done
done
run $T/auto.log $B/ooc2d --eq heat --nx 300 --ny 400 --nt 20 --device-mem 120K
grep -q '^pyramid height: n = [0-9]* (overlapped model' $T/auto.log && grep -q 'all results bit-identical' $T/auto.log \
    && ok cli_model_choice "$(grep '^pyramid height' $T/auto.log)" || bad cli_model_choice "$(tail -3 $T/auto.log)"
grep -q 'calibration: tau_c' $T/auto.log && grep -q 'paper eq. (4) closed form' $T/auto.log \
    && ok cli_calibration_report "tau_c, tau_a, predicted vs measured, paper eq. (4)" || bad cli_calibration_report "$(head -5 $T/auto.log)"

# the sanitizer command lines of bench/device.sh must be ones ooc2d accepts
# (a rejected budget exits 1 under memcheck with "0 errors"): same arguments,
# CPU stand-in
for eq in heat wave; do
    a=$(sed -n "s/^CS_ARGS_$eq=\"\(.*\)\"\$/\1/p" modules/ooc/bench/device.sh)
    if [ -z "$a" ]; then bad "device_sh_memcheck_args_$eq" "no CS_ARGS_$eq line in modules/ooc/bench/device.sh"; continue; fi
    run $T/cs_$eq.log $B/ooc2d --mode cpu $a
    rc=$?
    [ $rc = 0 ] && [ "$(grep -cE '^(in-core|trivial|pyramid) .* yes$' $T/cs_$eq.log)" = 3 ] \
        && ok "device_sh_memcheck_args_$eq" "$a: runs, bit-identical" || bad "device_sh_memcheck_args_$eq" "rc=$rc, $(tail -1 $T/cs_$eq.log)"
done

# 3. outputs
run $T/out.log $B/ooc2d --eq wave --nx 120 --ny 90 --nt 10 --device-mem 64K --out $T/out --write_final 1 --method pyramid
sz=$(stat -c %s $T/out/final.bin 2>/dev/null || echo 0)
[ "$sz" = $((120*90*4)) ] && [ "$(head -c 4 $T/out/final.png | tail -c 3)" = PNG ] && grep -q checksum $T/out/info.txt \
    && ok outputs "final.bin $sz bytes, final.png, info.txt" || bad outputs "$(tail -2 $T/out.log)"
grep -q "^outputs in '$T/out'.*final.bin, final.png, info.txt (3 files)" $T/out.log && ok outputs_listed "$(grep '^outputs' $T/out.log)" \
    || bad outputs_listed "no 'outputs in' line: $(tail -1 $T/out.log)"

# 4. a broken driver is caught from the command line too (exit 1, MISMATCH)
run $T/brk.log $B/ooc2d --eq heat --nx 60 --ny 80 --nt 8 --device-mem 12K --n 2 --debug-break 2 --method pyramid
rc=$?
[ $rc = 1 ] && grep -q 'MISMATCH' $T/brk.log && ok detects_broken_driver "debug_break = 2 (seam too early): exit 1, MISMATCH" \
    || bad detects_broken_driver "rc=$rc $(tail -2 $T/brk.log)"

# 5. bad inputs: non-zero exit and a message naming the value and what is allowed
expect_fail reject_bad_size "expected a size such as 512M or 2G" $B/ooc2d --device-mem 2X
expect_fail reject_tiny_budget "is too small for nx = 1024" $B/ooc2d --device-mem 1K
expect_fail reject_n_too_large "n = 40 does not fit" $B/ooc2d --nx 200 --ny 200 --device-mem 64K --n 40
expect_fail reject_rows_over_budget "rows = 500 does not fit device_mem" $B/ooc2d --nx 200 --ny 600 --device-mem 64K --rows 500
expect_fail reject_unstable "allowed 0 < r <= 0.25" $B/ooc2d --r 0.26
expect_fail reject_gpu_without_cuda "built without CUDA" $B/ooc2d --mode gpu
expect_fail reject_check_gpu_on_cpu "check = gpu needs mode = gpu" $B/ooc2d --nx 64 --ny 64 --nt 2 --check gpu
expect_fail reject_unknown_key "unknown parameter 'device_memory'" $B/ooc2d --device-memory 2G
printf 'eq = heat\nnx 100\n' > $T/broken.case
expect_fail reject_case_syntax "broken.case:2: expected 'key = value'" $B/ooc2d $T/broken.case
for f in modules/ooc/cases/*.case; do
    run $T/case.log $B/ooc2d $f --nx 128 --ny 128 --nt 4 --device-mem 40K
    grep -q 'bit-identical to the in-core' $T/case.log && ok "case_$(basename $f .case)" "parses and runs (at 128^2)" || bad "case_$(basename $f .case)" "$(tail -2 $T/case.log)"
done

finish

#!/usr/bin/env bash
# modules/stencil3d/tests/run_tests.sh - CPU test suite of the stencil3d module (after
# 'make stencil3d'; runs from any folder: it changes to the repository root).
# Last line: "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.." || exit 2
B=build/stencil3d
. modules/common/tests/harness.sh

# 1. numerical unit tests (double precision): convergence orders, stability
#    bounds, emulated GPU kernels bit-identical to the reference, bad inputs
unit_tests $B/test_stencil3d

# 2. FP32 command line: the emulated kernels of every equation/stencil match the reference
for es in wave:star wave:box heat:star heat:box; do
    e=${es%:*}; s=${es#*:}
    run $T/v_$e$s.log $B/stencil3d --mode verify --eq $e --stencil $s --nx 37 --ny 21 --nz 13 --nt 4 --init noise --zchunk 6
    last=$(tail -1 $T/v_$e$s.log)
    if [[ "$last" =~ ^verify:\ ([0-9]+)\ of\ ([0-9]+)\ kernels ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
        ok "fp32_verify_${e}_$s" "$last"
    else bad "fp32_verify_${e}_$s" "$(grep -E 'DIFF|error' $T/v_$e$s.log | head -3)"; fi
done
run $T/vf.log $B/stencil3d --mode verify --emu fiber --emu_seed 7 --nx 40 --ny 17 --nz 9 --nt 2 --init noise
last=$(tail -1 $T/vf.log)
[[ "$last" =~ ^verify:\ ([0-9]+)\ of\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] \
    && ok fp32_verify_fiber_shuffled "$last" || bad fp32_verify_fiber_shuffled "$(grep -E 'DIFF|error' $T/vf.log | head -3)"

# 3. the same checksum from the reference (1 and 2 threads) and emulated kernels, with outputs
CASE=modules/stencil3d/cases/small.case
run $T/ref.log env OMP_NUM_THREADS=1 $B/stencil3d $CASE --mode cpu --out $T/ref --write_final 1
ref=$(checksum $T/ref.log)
[ -n "$ref" ] && ok cli_reference_run "checksum $ref" || bad cli_reference_run "$(tail -2 $T/ref.log)"
run $T/thr.log env OMP_NUM_THREADS=2 $B/stencil3d $CASE --mode cpu --out $T/thr --write_final 1
c=$(checksum $T/thr.log)
[ -n "$c" ] && [ "$c" = "$ref" ] && cmp -s $T/ref/final.bin $T/thr/final.bin && ok threads_bit_identical "2 threads = 1 thread ($c)" || bad threads_bit_identical "$c vs $ref"
for kt in cq:32x16 cq:64x8 cqa:32x16 cqa:32x32 cqas:64x8 cqas:64x16 cqa:128x16 cqt:64x16 cqt:64x32 cqt:128x16 cqts:64x16 regq:32x8 naive:32x8; do
    k=${kt%:*}; t=${kt#*:}
    run $T/emu_$k$t.log $B/stencil3d $CASE --mode emu --kernel $k --tile $t --zchunk 10
    c=$(checksum $T/emu_$k$t.log)
    [ -n "$c" ] && [ "$c" = "$ref" ] && ok "emu_${k}_${t}_checksum" "= reference ($c)" || bad "emu_${k}_${t}_checksum" "$c vs $ref: $(tail -1 $T/emu_$k$t.log)"
done
sz=$(stat -c %s $T/ref/final.bin 2>/dev/null || echo 0)
if [ "$sz" = $((48*40*36*4)) ] && [ "$(head -c 4 $T/ref/slice_z.png | tail -c 3)" = "PNG" ] && grep -q "checksum $ref" $T/ref/info.txt; then
    ok outputs "final.bin $sz bytes, slice_z.png, info.txt"
else bad outputs "missing or wrong-sized output files in $T/ref"; fi
grep -q "^outputs in '$T/ref'.*final.bin, slice_z.png, info.txt (3 files)" $T/ref.log && ok outputs_listed "$(grep '^outputs' $T/ref.log)" \
    || bad outputs_listed "no 'outputs in' line: $(tail -1 $T/ref.log)"
if command -v python3 >/dev/null; then
    if png_decodes "$T/ref/slice_z.png" 48 40
    then ok png_decodes "zlib/CRC check of slice_z.png"; else bad png_decodes "slice_z.png does not decode"; fi
fi
run $T/heat.log $B/stencil3d modules/stencil3d/cases/heat_box.case --mode cpu
grep -q checksum $T/heat.log && ok case_heat_box "parses and runs" || bad case_heat_box "$(tail -2 $T/heat.log)"
hb=$(checksum $T/heat.log)
for kt in cqa:64x16 cqa:32x32 cqas:64x16 cq:32x16; do
    k=${kt%:*}; t=${kt#*:}
    run $T/hb_$k$t.log $B/stencil3d modules/stencil3d/cases/heat_box.case --mode emu --kernel $k --tile $t --zchunk 7
    c=$(checksum $T/hb_$k$t.log)
    [ -n "$c" ] && [ "$c" = "$hb" ] && ok "emu_box_${k}_${t}_checksum" "= reference ($c)" || bad "emu_box_${k}_${t}_checksum" "$c vs $hb: $(tail -1 $T/hb_$k$t.log)"
done
run $T/bench.log $B/stencil3d modules/stencil3d/cases/bench.case --n 24 --nt 2 --mode cpu
grep -q checksum $T/bench.log && ok case_bench "parses and runs (at 24^3)" || bad case_bench "$(tail -2 $T/bench.log)"

# 4. bad inputs: non-zero exit and a message that names the value and what is allowed
expect_fail reject_missing_case "cannot open case file" $B/stencil3d $T/nope.case
expect_fail reject_unstable "allowed 0 < courant <= 0.452856" $B/stencil3d --courant 0.46
expect_fail reject_unstable_box "allowed 0 < fo <= 0.326087" $B/stencil3d --eq heat --stencil box --fo 0.4
expect_fail reject_unknown_key "unknown parameter 'nxy'" $B/stencil3d --nxy 5
expect_fail reject_bad_number "expected an integer" $B/stencil3d --nx 12.5
expect_fail reject_regq_box "works only with stencil = star" $B/stencil3d --kernel regq --stencil box
expect_fail reject_cqts_box "kernel = cqts works only with stencil = star" $B/stencil3d --kernel cqts --stencil box
expect_fail reject_cqt_box "kernel = cqt works only with stencil = star" $B/stencil3d --kernel cqt --stencil box
expect_fail reject_unknown_kernel "kernel = 'turbo': allowed naive, regq, cq, cqa, cqas, cqt or cqts" $B/stencil3d --kernel turbo
expect_fail reject_unknown_tile "allowed tiles: 32x16 32x8 64x8 32x32 64x16" $B/stencil3d --mode emu --tile 16x16 --n 8 --nt 1
expect_fail reject_gpu_without_cuda "built without CUDA" $B/stencil3d --mode gpu
expect_fail reject_bad_mode "allowed auto, cpu, emu, gpu, verify or bench" $B/stencil3d --mode fast
printf 'n = 16\nthis line is wrong\n' > $T/broken.case
expect_fail reject_case_syntax "broken.case:2: expected 'key = value'" $B/stencil3d $T/broken.case

finish

#!/usr/bin/env bash
# modules/ooc/bench/device.sh - run on the GPU machine from the repository root, with
# the binaries already built into build/ooc/ ('make ooc ooc-cuda'); builds
# nothing. About 1-2 minutes on one H100/H200 (needs ~10 GB of host memory).
#   1. GPU out-of-core (trivial, pyramid) and GPU in-core bit-identical to the CPU in-core solver
#   2. compute-sanitizer memcheck on small out-of-core runs (if installed)
#   3. heat 32768 x 16384 and wave 16384^2 x 2 levels (2 GiB each), budget 1/8 of the
#      field: in-core, trivial and pyramid in one run (overlapped streams), then the
#      paper's serial setting (one stream) with fewer steps; predicted vs measured
# Prints a short table last. QUICK=1 halves the grids.
set -u
cd "$(dirname "$0")/../../.." || exit 2   # the repository root, from any folder
B=build/ooc
[ -x $B/ooc2d-cuda ] || { echo "device.sh: $B/ooc2d-cuda is missing - run 'make ooc ooc-cuda' first" >&2; exit 2; }
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "device.sh: no GPU visible (nvidia-smi -L)" >&2; exit 2; }
nvidia-smi --query-gpu=index,name,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
O=$B/device; rm -rf $O; mkdir -p $O
TABLE=$O/table.txt; : > $TABLE
fails=0
row() { printf "%-60s %s\n" "$1" "$2" | tee -a $TABLE; }
identical() { [ "$(grep -cE '^(in-core|trivial|pyramid) .* yes$' $1)" = "$2" ] && grep -q 'all results bit-identical' $1; }

echo "== 1. bit-identity: GPU (out-of-core and in-core) vs the CPU in-core solver"
for eq in heat wave; do
    for ov in 1 0; do
        for n in 0 3; do
            log=$O/id_${eq}_ov${ov}_n$n.log
            $B/ooc2d-cuda --mode gpu --check cpu --eq $eq --nx 1201 --ny 997 --nt 37 --device-mem 1M --init noise --overlap $ov --n $n > $log 2>&1
            if [ $? = 0 ] && identical $log 3; then
                row "identity: $eq, overlap $ov, n $([ $n = 0 ] && grep -o 'n = [0-9]*' $log | head -1 | cut -d' ' -f3 || echo $n), 1201x997, 1 MiB budget" "MATCH (in-core, trivial, pyramid)"
            else row "identity: $eq overlap $ov n $n" "FAILED: $(grep -E '^(in-core|trivial|pyramid)|error' $log | head -3)"; fails=$((fails+1)); fi
        done
    done
done

echo "== 2. compute-sanitizer"
# The arguments, one line per equation (modules/ooc/tests/run_tests.sh runs these same
# lines on the CPU stand-in, so a budget or n that ooc2d rejects fails in CI,
# not here). The budget must fit n = 2: a slab buffer needs 2 n R rows of halo
# plus at least n R result rows; the wave (R = 4) needs 24 rows of 300 points,
# 4 buffers: >= 112.5 KiB. 200K gives 42 rows, so ~9 slabs with seams per pass.
CS_ARGS_heat="--check cpu --eq heat --nx 300 --ny 211 --nt 7 --device-mem 100K --n 2 --init noise"
CS_ARGS_wave="--check cpu --eq wave --nx 300 --ny 211 --nt 7 --device-mem 200K --n 2 --init noise"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$CS" ]; then
    for eq in heat wave; do
        log=$O/cs_memcheck_$eq.log; args=CS_ARGS_$eq
        $CS --tool memcheck --error-exitcode 9 $B/ooc2d-cuda --mode gpu ${!args} > $log 2>&1
        rc=$?; sm=$(grep -E 'ERROR SUMMARY' $log | tail -1)
        if [ $rc = 0 ]; then row "compute-sanitizer memcheck, $eq (streams, 2 slots)" "OK ${sm}"
        else
            # rc 9: memcheck found errors; any other rc is ooc2d's own exit status
            # (an argument it rejects, a MISMATCH): its last lines say why
            own=$(grep -v '^========= ' $log | grep -v '^[[:space:]]*$' | tail -3)
            why=$([ $rc = 9 ] && echo "memcheck errors" || echo "ooc2d exited $rc")
            row "compute-sanitizer memcheck, $eq" "FAILED rc=$rc ($why) ${sm}; last line: $(echo "$own" | tail -1)"
            fails=$((fails+1))
            echo "-- last lines of ooc2d under memcheck ($log):"; echo "$own"
            [ $rc = 9 ] && grep -E '^========= (Invalid|Program hit|  at |    at )' $log | head -8
        fi
    done
else row "compute-sanitizer" "not installed, skipped"; fi

echo "== 3. benchmark, budget 1/8 of the field"
Q=""; [ -n "${QUICK:-}" ] && Q="--ny 8192 --device-mem 128M"   # still 1/8 of the field
report() {  # label log: table rows from an ooc2d log
    local label=$1 log=$2 ov tr py
    ov=$(grep -q 'overlap on' $log && echo 1 || echo 0)
    tr=$(awk '$1=="trivial" && $2 ~ /^[0-9]+$/{print $9}' $log | tr -d s); py=$(awk '$1=="pyramid" && $2 ~ /^[0-9]+$/{print $9}' $log | tr -d s)
    row "$label: pyramid n = $(awk '$1=="pyramid" && $2 ~ /^[0-9]+$/{print $2}' $log)" "$(awk -v ov=$ov '$1=="pyramid" && $2 ~ /^[0-9]+$/{printf "%s measured, predicted %s (%s model), err %s", $9, (ov ? $8 : $7), (ov ? "overlapped" : "paper serial"), $10}' $log)"
    row "$label: trivial (n = 1)" "$(awk -v ov=$ov '$1=="trivial" && $2 ~ /^[0-9]+$/{printf "%s measured, predicted %s, err %s", $9, (ov ? $8 : $7), $10}' $log)"
    row "$label: speed-up pyramid vs trivial" "$(awk -v a=$tr -v b=$py 'BEGIN{if (b > 0) printf "%.2fx (target >= 8x; the paper: 8.03x)", a/b; else print "n/a"}')"
    if grep -q '^reference: in-core' $log; then
        identical $log 3 && row "$label: in-core, trivial, pyramid bit-identical" "yes" \
            || { row "$label: bit-identical" "NO"; fails=$((fails+1)); }
    fi
}
bench() {  # label log args...
    local label=$1 log=$2; shift 2
    $B/ooc2d-cuda --mode gpu "$@" $Q > $log 2>&1; local rc=$?
    cat $log
    [ $rc = 0 ] || { row "$label" "FAILED rc=$rc: $(grep -E 'error|MISMATCH' $log | head -2)"; fails=$((fails+1)); return; }
    report "$label" $log
}
bench "heat 32768x16384, overlapped" $O/heat.log modules/ooc/cases/heat_bench.case --check gpu
bench "wave 16384^2 x 2, overlapped" $O/wave.log modules/ooc/cases/wave_bench.case --check gpu
bench "heat, paper's serial setting (1 stream, nt 40)" $O/heat_serial.log modules/ooc/cases/heat_bench.case --overlap 0 --nt 40 --check none --method all
bench "wave, paper's serial setting (1 stream, nt 40)" $O/wave_serial.log modules/ooc/cases/wave_bench.case --overlap 0 --nt 40 --check none --method all
for f in heat wave; do
    row "calibration ($f)" "$(grep -o 'tau_c [^;]*; tau_a [^;]*' $O/$f.log | head -1)"
done

echo
echo "================ ooc device summary ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)) ================"
cat $TABLE
echo "failures: $fails"
[ $fails -eq 0 ]

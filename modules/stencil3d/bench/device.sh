#!/usr/bin/env bash
# modules/stencil3d/bench/device.sh - run on the GPU machine from the repository root,
# with the binaries already built into build/stencil3d/ ('make stencil3d
# stencil3d-cuda'); builds nothing. About 1-2 minutes on one H100/H200.
#   1. every GPU kernel bit-identical to the CPU reference (small odd grids, FP32)
#   2. compute-sanitizer memcheck + racecheck on a small case (if installed)
#   3. 512^3 FP32 benchmark of all kernels, wave and heat, with the device copy
#      bandwidth measured in the same run; Gcells/s and % of the byte floor; the
#      wave kernels also from stencil3d-cuda-fma (FMA contraction on, not bit-identical)
# Prints a short table last. N=256 bash modules/stencil3d/bench/device.sh for a quicker run.
# STAR_ONLY=1: the identity checks, then only the star wave/heat benchmark lines
# (no compute-sanitizer, no FMA build, box rows left out), about 1 minute.
# The cqa family x z chunk sweep is modules/stencil3d/bench/cqa_sweep.sh (this script
# times every kernel at its automatic z chunk only).
set -u
cd "$(dirname "$0")/../../.." || exit 2   # the repository root, from any folder
B=build/stencil3d
N=${N:-512}
STAR_ONLY=${STAR_ONLY:-0}
for b in stencil3d-cuda; do
    [ -x $B/$b ] || { echo "device.sh: $B/$b is missing - run 'make stencil3d stencil3d-cuda' first" >&2; exit 2; }
done
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "device.sh: no GPU visible (nvidia-smi -L)" >&2; exit 2; }
nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm --format=csv,noheader
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
O=$B/device; rm -rf $O; mkdir -p $O
TABLE=$O/table.txt; : > $TABLE
fails=0
row() { printf "%-62s %s\n" "$1" "$2" | tee -a $TABLE; }

echo "== 1. bit-identity: all GPU kernels vs the CPU reference (FP32, FMA off, noise in field and halo)"
for es in wave:star wave:box heat:star heat:box; do
    e=${es%:*}; s=${es#*:}
    for zc in 0 9; do
        log=$O/verify_${e}_${s}_z$zc.log
        $B/stencil3d-cuda --mode verify --eq $e --stencil $s --nx 77 --ny 53 --nz 41 --nt 6 --init noise --zchunk $zc > $log 2>&1
        rc=$?; grep -E '^verify: (gpu|DIFF)' $log | grep -v MATCH
        last=$(tail -1 $log)
        if [ $rc = 0 ] && [[ "$last" =~ ^verify:\ ([0-9]+)\ of\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
            row "identity: $e $s, 77x53x41, zchunk $([ $zc = 0 ] && echo auto || echo $zc)" "MATCH (${BASH_REMATCH[1]} kernels)"
        else row "identity: $e $s, zchunk $zc" "FAILED: $(grep -E 'DIFF|error' $log | head -2)"; fails=$((fails+1)); fi
    done
done

echo "== 2. compute-sanitizer"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ "$STAR_ONLY" = 1 ]; then row "compute-sanitizer" "skipped (STAR_ONLY=1)"
elif [ -n "$CS" ]; then
    for tool in memcheck racecheck; do
        for s in star box; do
            log=$O/cs_${tool}_$s.log
            $CS --tool $tool --error-exitcode 9 $B/stencil3d-cuda --mode verify --stencil $s --nx 41 --ny 20 --nz 12 --nt 2 --init noise --zchunk 5 > $log 2>&1
            rc=$?; sm=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $log | tail -1)
            [ $rc = 0 ] && row "compute-sanitizer $tool, all $s wave kernels" "OK ${sm}" \
                || { row "compute-sanitizer $tool, $s" "FAILED rc=$rc ${sm}"; fails=$((fails+1)); tail -5 $log; }
        done
    done
else row "compute-sanitizer" "not installed, skipped"; fi

echo "== 3. benchmark ${N}^3 FP32"
for e in wave heat; do
    $B/stencil3d-cuda --mode bench --eq $e --n $N --reps 20 > $O/bench_$e.log 2>&1 \
        || { row "bench $e" "FAILED: $(tail -2 $O/bench_$e.log)"; fails=$((fails+1)); }
    if [ "$STAR_ONLY" = 1 ]; then grep '^bench:' $O/bench_$e.log | grep -v 'stencil=box'; else grep '^bench:' $O/bench_$e.log; fi
done
FMA=""
if [ "$STAR_ONLY" != 1 ] && [ -x $B/stencil3d-cuda-fma ]; then
    FMA=1
    $B/stencil3d-cuda-fma --mode bench --eq wave --n $N --reps 20 > $O/bench_fma.log 2>&1 || FMA=""
    grep '^bench:' $O/bench_fma.log
fi
best() {  # eq kind stencil [log] -> "gcells pct tile ms"
    grep -h "kernel=$2 .*stencil=$3 eq=$1 " ${4:-$O/bench_$1.log} | sed -E 's/.*tile=([0-9x]+) .*ms_per_step=([0-9.]+) gcells=([0-9.]+) .*pct_floor=([0-9.]+).*/\3 \4 \1 \2/' | sort -g -r | head -1
}
bw=$(grep -o 'floor at [0-9.]* GB/s' $O/bench_wave.log | head -1)
row "device copy bandwidth (same run)" "$(grep -o 'memcpy [0-9.]* GB/s, copy kernel [0-9.]* GB/s' $O/bench_wave.log | head -1)"
for e in wave heat; do
    fl=$([ $e = wave ] && echo 12 || echo 8)
    for ks in naive:star regq:star cq:star cqa:star cqas:star cqt:star cqts:star naive:box cq:box cqa:box cqas:box; do
        k=${ks%:*}; s=${ks#*:}
        [ "$STAR_ONLY" = 1 ] && [ $s = box ] && continue
        r=$(best $e $k $s)
        [ -n "$r" ] && row "$e $s $k (best tile $(echo $r | cut -d' ' -f3))" "$(echo $r | awk -v f=$fl '{printf "%7.1f Gcells/s  %5.1f %% of the %d B/cell floor", $1, $2, f}')" \
            || row "$e $s $k" "no result"
    done
    st=$(best $e cq star | cut -d' ' -f4); bx=$(best $e cq box | cut -d' ' -f4)
    [ "$STAR_ONLY" = 1 ] && bx=""
    [ -n "$st" ] && [ -n "$bx" ] && row "$e: box / star time per step (cq, best tiles)" "$(awk -v a=$bx -v b=$st 'BEGIN{printf "%.2fx (target <= 1.3x)", a/b}')"
    # the same method on both sides: the best star kernel of the cqa family vs the best box cqa / cqas
    stf=$(for k in cqa cqas cqt cqts; do best $e $k star | sed "s/\$/ $k/"; done | sort -g -r | head -1)
    bxf=$(for k in cqa cqas; do best $e $k box | sed "s/\$/ $k/"; done | sort -g -r | head -1)
    [ "$STAR_ONLY" = 1 ] && bxf=""
    [ -n "$stf" ] && [ -n "$bxf" ] && row "$e: box / star time per step (cqa family, best tiles)" "$(echo $bxf $stf | awk '{r = $4 / $9; printf "%.2fx (box %s %s %.4f ms, star %s %s %.4f ms; target <= 1.3x: %s)", r, $5, $3, $4, $10, $8, $9, (r <= 1.3 ? "MET" : "NOT MET")}')"
done
if [ -n "$FMA" ]; then
    for s in star box; do
        r=$(best wave cq $s $O/bench_fma.log)
        [ -n "$r" ] && row "wave $s cq, FMA build (not bit-identical; tile $(echo $r | cut -d' ' -f3))" "$(echo $r | awk '{printf "%7.1f Gcells/s  %5.1f %% of the 12 B/cell floor", $1, $2}')"
    done
fi
row "target: wave star cq >= 80 % of the 12 B/cell floor" "$(best wave cq star | awk '{print ($2 >= 80 ? "MET" : "NOT MET"), "(" $2 " %)"}')"
row "target, circular queue with asynchronous tile copies (cqa)" "$(best wave cqa star | awk '{print ($2 >= 80 ? "MET" : "NOT MET"), "(" $2 " %, tile " $3 ")"}')"
row "target, seed queue + async copies, all from shared (cqas)" "$(best wave cqas star | awk '{print ($2 >= 80 ? "MET" : "NOT MET"), "(" $2 " %, tile " $3 ")"}')"
row "target, cqa with bulk tensor copies (TMA) by one thread (cqt)" "$(best wave cqt star | awk '{print ($2 >= 80 ? "MET" : "NOT MET"), "(" $2 " %, tile " $3 ")"}')"
row "target, the seed's all-shared queue filled by TMA (cqts)" "$(best wave cqts star | awk '{print ($2 >= 80 ? "MET" : "NOT MET"), "(" $2 " %, tile " $3 ")"}')"
row "best wave star kernel (strict build)" "$(grep -h 'stencil=star eq=wave ' $O/bench_wave.log | sed -E 's/.*kernel=([a-z]+) tile=([0-9x]+) .*gcells=([0-9.]+) .*pct_floor=([0-9.]+).*/\3 \4 \1 \2/' | sort -g -r | head -1 | awk '{print $3, $4 ":", $1, "Gcells/s,", $2, "% of the floor", ($2 >= 80 ? "(80 % MET)" : "(80 % NOT MET)")}')"

echo
echo "================ stencil3d device summary ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), ${N}^3) ================"
cat $TABLE
echo "failures: $fails"
[ $fails -eq 0 ]

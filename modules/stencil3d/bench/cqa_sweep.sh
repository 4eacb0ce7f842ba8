#!/usr/bin/env bash
# modules/stencil3d/bench/cqa_sweep.sh - the cqa family (asynchronous-copy circular
# queue) x z chunk sweep, 512^3 FP32, star stencil. Run on the GPU machine from
# the repository root with the binaries already built ('make stencil3d
# stencil3d-cuda'); builds nothing. At most about 3 minutes on one H100/H200 (QUICK=1: about 1 minute).
#   1. every star kernel bit-identical to the CPU reference on the GPU (wave and
#      heat, 77x53x41, noise in field and halo, z chunk auto / 9 / 5); a kernel
#      that differs is reported and left out of the ranking
#   2. wave: every cqa-family kernel (kinds $WAVE_K, all their tiles) at each z
#      chunk of $ZCS (0 = the automatic choice), $REPS timed steps each
#   3. heat: kinds $HEAT_K at the z chunks $HEAT_ZCS
#   4. the best 3 wave configurations again with $CONFIRM_REPS steps (less noise)
# Prints each kernel at its best z chunk (sorted by Gcells/s), the top $TOP wave
# configurations (all of them in sorted_wave.txt), then "best" lines with
# the % of the byte floor (12 B/cell wave, 8 B/cell heat; floor = the device
# copy bandwidth measured in the same process). Full logs: build/stencil3d/cqa_sweep/.
# Kinds: cqa (3 planes of copies in flight, the z neighbours in registers), cqt
# (cqa with the copies issued by one thread as bulk tensor copies (TMA)
# completing on transaction barriers), cqts (the seed's all-shared queue filled
# the same way). Columns: regs = registers per thread, blk/SM = resident
# blocks per SM (registers and shared memory), waves = grid blocks / (blk/SM x SMs).
# Box (27 points): cqa (partial sums in registers, 1 resident
# tile + 3 in flight) and cqas (3 resident tiles + 3 in flight), kinds $BOX_K at
# the z chunks $BOX_ZCS; the last lines give the best star, the best box and the
# box / star time per step (target <= 1.3x).
#
# QUICK=1: a short focused pass (about 1 minute): the GPU identity check of wave
# star and box (77x53x41, z chunk auto and 5) and heat star (z chunk 5), then wave 512^3 with $QUICK_REPS
# steps each: the best known star configurations (cqa 64x16 at z 128 / 171 /
# 512), every cqt tile (z 128 / 171 / 512 / 86 / auto) and every
# box cqa / cqas tile (z 128 / 171 / 512 / auto); sorted, then the star best
# line, the box best line and the box / star ratio line with MET / NOT MET.
set -u
cd "$(dirname "$0")/../../.." || exit 2   # the repository root, from any folder
B=build/stencil3d
N=${N:-512}
REPS=${REPS:-50}
CONFIRM_REPS=${CONFIRM_REPS:-200}
TOP=${TOP:-20}
ZCS=${ZCS:-"0 512 256 171 128 103 86 64"}
HEAT_ZCS=${HEAT_ZCS:-"0 512 256 171 128"}
WAVE_K=${WAVE_K:-cqa@star,cqt,cqts}
HEAT_K=${HEAT_K:-cqa@star,cqt}
BOX_K=${BOX_K:-cqa@box,cqas@box}
BOX_ZCS=${BOX_ZCS:-"0 512 171 128"}
QUICK=${QUICK:-0}
QUICK_REPS=${QUICK_REPS:-200}
[ -x $B/stencil3d-cuda ] || { echo "cqa_sweep.sh: $B/stencil3d-cuda is missing - run 'make stencil3d stencil3d-cuda' first" >&2; exit 2; }
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "cqa_sweep.sh: no GPU visible (nvidia-smi -L)" >&2; exit 2; }
nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm --format=csv,noheader
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
O=$B/cqa_sweep; rm -rf $O; mkdir -p $O
T0=$(date +%s)
fails=0

# identity EQ STENCIL ZC: every kernel of that equation and stencil vs the CPU reference
identity() {
    local e=$1 st=$2 zc=$3 log=$O/verify_$1_$2_z$3.log
    $B/stencil3d-cuda --mode verify --eq $e --stencil $st --nx 77 --ny 53 --nz 41 --nt 6 --init noise --zchunk $zc > $log 2>&1
    local rc=$?
    # kind:stencil:tile of each kernel that differs
    grep -E '^verify: gpu .* DIFF' $log | awk '{print $3 ":" $4 ":" $6}' >> $O/diff.txt
    local last=$(tail -1 $log)
    if [ $rc = 0 ] && [[ "$last" =~ ^verify:\ ([0-9]+)\ of\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
        echo "identity $e $st zchunk $([ $zc = 0 ] && echo auto || echo $zc): MATCH (${BASH_REMATCH[1]} kernels)"
    else
        echo "identity $e $st zchunk $zc: FAILED: $(grep -E 'DIFF|error' $log | head -3)"; fails=$((fails+1))
    fi
}
: > $O/diff.txt
if [ "$QUICK" = 1 ]; then
    echo "== 1. bit-identity on the GPU: wave star and box kernels vs the CPU reference (77x53x41, 6 steps, noise)"
    for st in star box; do for zc in 0 5; do identity wave $st $zc; done; done
    identity heat star 5
else
    echo "== 1. bit-identity on the GPU: star and box kernels vs the CPU reference (77x53x41, 6 steps, noise)"
    for e in wave heat; do for zc in 0 9 5; do identity $e star $zc; done; done
    for e in wave heat; do for zc in 0 5; do identity $e box $zc; done; done
fi
sort -u -o $O/diff.txt $O/diff.txt
[ -s $O/diff.txt ] && echo "left out of the ranking (not bit-identical): $(tr '\n' ' ' < $O/diff.txt)"

# bench EQ KINDS ZC REPS TAG -> appends "bench:" lines with zreq=... to $O/all.txt
bench() {
    local log=$O/bench_$1_$5_z$3.log
    $B/stencil3d-cuda --mode bench --eq $1 --n $N --reps $4 --zchunk $3 --bench_only "$2" > $log 2>&1 \
        || { echo "bench $1 $2 zchunk $3 FAILED: $(tail -2 $log)"; fails=$((fails+1)); }
    grep '^bench: kernel=' $log | grep -v skipped | sed "s/\$/ zreq=$([ $3 = 0 ] && echo auto || echo $3) run=$5/" >> $O/all.txt
    grep -o 'floor at [0-9.]* GB/s' $log | head -1 > $O/floor_$1.txt
}
: > $O/all.txt
if [ "$QUICK" = 1 ]; then
    REPS=$QUICK_REPS
    echo "== 2. quick: wave ${N}^3, best known star configurations, cqt (all tiles), box cqa / cqas; $REPS steps each"
    bench wave "cqa:64x16@star,cqt,cqts,$BOX_K" 128 $REPS sweep
    bench wave "cqa:64x16@star,cqt,cqts,$BOX_K" 171 $REPS sweep
    bench wave "cqa:64x16@star,cqt,cqts,$BOX_K" 512 $REPS sweep
    bench wave "cqt,$BOX_K" 86 $REPS sweep
    bench wave "cqt,$BOX_K" 0 $REPS sweep
else
    echo "== 2. wave ${N}^3, kinds $WAVE_K, z chunks $ZCS, $REPS steps"
    for zc in $ZCS; do bench wave "$WAVE_K" $zc $REPS sweep; done
    echo "== 2b. wave box ${N}^3, kinds $BOX_K, z chunks $BOX_ZCS, $REPS steps"
    for zc in $BOX_ZCS; do bench wave "$BOX_K" $zc $REPS sweep; done
    echo "== 3. heat ${N}^3, kinds $HEAT_K and $BOX_K, z chunks $HEAT_ZCS, $REPS steps"
    for zc in $HEAT_ZCS; do bench heat "$HEAT_K,$BOX_K" $zc $REPS sweep; done
fi

# table lines: gcells pct kind tile eq zchunk zreq regs blk/SM waves ms run
table() {
    awk '{ delete v; for (i = 1; i <= NF; i++) if (split($i, a, "=") == 2) v[a[1]] = a[2];
           print v["gcells"], v["pct_floor"], v["kernel"], v["tile"], v["eq"], v["zchunk"], v["zreq"], v["regs"],
                 v["blk_per_sm"], v["waves"], v["ms_per_step"], v["run"], v["smem_kb"], v["threads"], v["stencil"] }' \
        | while read -r l; do set -- $l; grep -qx "$3:${15}:$4" $O/diff.txt && continue; echo "$l"; done | sort -g -r -k1,1
}
fmt() { awk '{printf "%-4s %-4s %-5s %-6s z %3s %-6s %7.2f Gc/s %5.1f %%  %.4f ms  regs %3d  smem %5.1fK  thr %3d  blk/SM %d  waves %5.2f\n", $5, $15, $3, $4, $6, "(" $7 ")", $1, $2, $11, $8, $13, $14, $9, $10}'; }
# the best z chunk of each kernel (kind:stencil:tile), sorted
perkernel() { awk '!seen[$3 ":" $15 ":" $4]++'; }

if [ "$QUICK" != 1 ]; then
    echo "== 4. confirm: the best 3 wave star configurations with $CONFIRM_REPS steps"
    grep 'eq=wave' $O/all.txt | grep 'stencil=star' | table | head -3 | while read -r l; do
        set -- $l
        bench wave "$3:$4@star" $6 $CONFIRM_REPS confirm
    done
fi

echo
echo "================ cqa sweep$([ "$QUICK" = 1 ] && echo " (QUICK)"), ${N}^3 FP32 ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)), $(cat $O/floor_wave.txt 2>/dev/null) ================"
if [ "$QUICK" = 1 ]; then
    grep 'run=sweep' $O/all.txt | table | fmt > $O/sorted_wave.txt
    echo "---- wave, all $(wc -l < $O/sorted_wave.txt) configurations, sorted ($REPS steps each; % of the 12 B/cell floor)"
    cat $O/sorted_wave.txt
else
    for e in wave heat; do
        grep "eq=$e " $O/all.txt | grep 'run=sweep' | table | fmt > $O/sorted_$e.txt
        echo "---- $e: each kernel at its best z chunk, sorted (% of the $([ $e = wave ] && echo 12 || echo 8) B/cell floor; $REPS steps)"
        grep "eq=$e " $O/all.txt | grep 'run=sweep' | table | perkernel | fmt
    done
    echo "---- wave: the top $TOP of all $(wc -l < $O/sorted_wave.txt) configurations (all: $O/sorted_wave.txt)"
    head -$TOP $O/sorted_wave.txt
    echo "---- wave star, the best 3 again with $CONFIRM_REPS steps"
    grep 'run=confirm' $O/all.txt | table | fmt
fi
echo
for e in wave $([ "$QUICK" = 1 ] || echo heat); do
    fl=$([ $e = wave ] && echo 12 || echo 8)
    for st in star box; do
        b=$(grep "eq=$e " $O/all.txt | grep "stencil=$st " | table | head -1)
        if [ -n "$b" ]; then
            echo "$b" | awk -v e=$e -v f=$fl -v st=$st '{printf "best %s %s: kernel=%s tile=%s zchunk=%s (%s) %.2f Gcells/s = %.1f %% of the %d B/cell floor, %.4f ms/step (%s run) %s\n", e, st, $3, $4, $6, $7, $1, $2, f, $11, $12, (e == "wave" && st == "star" ? ($2 >= 80 ? "-> 80 % MET" : "-> 80 % NOT MET") : "")}'
        else echo "best $e $st: no result"; fi
    done
    s_=$(grep "eq=$e " $O/all.txt | grep "stencil=star " | table | head -1)
    b_=$(grep "eq=$e " $O/all.txt | grep "stencil=box " | table | head -1)
    [ -n "$s_" ] && [ -n "$b_" ] && echo "$b_ $s_" | awk -v e=$e '{r = $16 / $1; printf "%s: box / star time per step (cqa family, best tiles): %.2fx (box %s %s z %s %.2f Gc/s, star %s %s z %s %.2f Gc/s) -> target <= 1.3x %s\n", e, r, $3, $4, $6, $1, $18, $19, $21, $16, (r <= 1.3 ? "MET" : "NOT MET")}'
done
c=$(grep 'run=confirm' $O/all.txt | table | head -1)
[ -n "$c" ] && echo "$c" | awk '{printf "best wave star, confirm run (%s steps): kernel=%s tile=%s zchunk=%s %.2f Gcells/s = %.1f %% of the 12 B/cell floor %s\n", "'$CONFIRM_REPS'", $3, $4, $6, $1, $2, ($2 >= 80 ? "-> 80 % MET" : "-> 80 % NOT MET")}'
# on the device machine of the agents' run tool, the logs come back through $OUT
[ -n "${OUT:-}" ] && [ -d "${OUT:-}" ] && cp -r $O "$OUT/" 2>/dev/null
echo "failures: $fails   (sweep took $(( $(date +%s) - T0 )) s)"
[ $fails -eq 0 ]

#!/usr/bin/env bash
# On the GPU machine, builds nothing (carry build/ with the fast build in
# build/ and the strict one in build/strict/, both bench builds made with
# nvcc here: make BENCH_VARIANTS=1; make BUILD=build/strict STRICT=1
# BENCH_VARIANTS=1, bench/README.md - steps 1 and 3 switch techniques off):
#   0. device copy bandwidth (build/copy_bw: cudaMemcpy D2D, 2 GiB, read+write)
#   1. validation of the merged family on 32^3 x 200 (validation/gpu_test.sh
#      --kernels merged): strict build bit-identical to the CPU (compare_fields
#      tol 0 + residual history), fast build <= 1e-12, compute-sanitizer
#      (memcheck, racecheck, initcheck, synccheck) on the fast build; strict
#      128^3 x 2000 merged dump checksum vs the split one (3b534f3cacaf5697)
#   2. tune mode on 128^3: the block-shape table -> $OUT/tune_sm_XY.txt (used
#      by every later merged run through ADIFLOW_TUNE_TABLE)
#   3. each technique as a step (ADIFLOW_MERGED_STEPS, cumulative in the
#      paper's order), then the ablation (all, and all with one technique
#      off), 128^3, 50 timed iterations each: per-kernel times
#   4. for 128^3 and 256x256x128: split vs merged per-kernel table (time,
#      bytes by count, GB/s, % of copy bandwidth), s/iteration, 2000-iteration
#      totals (graph on, no per-kernel events), CPU reference s/iteration
#      (1 thread, all threads, 128^3)
# Prints a short table last. Files in $OUT: table_merged.txt, steps128.txt,
# kernels_<case>.txt, groups_<case>.dat (for bench/plot_kernels.gp),
# tune_sm_XY.txt, logs. Usage: bash bench/device_merged.sh [quick|fast]
# fast: no sanitizers (validation with --no-sanitizer), no 256x256x128
# 2000-iteration runs (its per-kernel table is still made), about 3 minutes
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/merged; rm -rf $W; mkdir -p $W $O
T=$W/table.txt; : > $T
QUICK=0; [ "${1:-}" = quick ] && QUICK=1
FAST=0; [ "${1:-}" = fast ] && FAST=1
SAN=""; [ $FAST = 1 ] && SAN=--no-sanitizer
row() { printf "%-64s %s\n" "$1" "$2" | tee -a $T; }
csum() { od -An -t x8 -j $(( $(stat -c %s "$1") - 8 )) -N 8 "$1" | tr -d ' '; }
spi() { grep -E '^ +[0-9]+ ' "$1" | tail -n 1 | awk '{print $9}'; }
now() { date +%s.%N; }
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader | tee -a $T
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
for f in build/adiflow build/strict/adiflow build/compare_fields build/copy_bw; do
  [ -x $f ] || { echo "device_merged.sh: $f missing (build here: make BENCH_VARIANTS=1; make BUILD=build/strict STRICT=1 BENCH_VARIANTS=1)"; exit 2; }
done
for b in build build/strict; do
  [ -f $b/BENCH_VARIANTS ] || { echo "device_merged.sh: $b is no bench build (it switches techniques off: make$([ $b = build ] || echo " BUILD=build/strict STRICT=1") BENCH_VARIANTS=1, bench/README.md)"; exit 2; }
done

echo "== 0. copy bandwidth"
build/copy_bw 2048 20 | tee $W/bw.txt
BW=$(awk '{for (i = 1; i <= NF; i++) if ($i == "best") print $(i+1)}' $W/bw.txt)
row "device copy bandwidth (cudaMemcpy D2D 2 GiB, read+write, best)" "$BW GB/s"

echo "== 1. validation 32^3 x 200, merged"
bash validation/gpu_test.sh --kernels merged $SAN --out $W/gt > $W/gt_fast.log 2>&1
row "merged fast build vs CPU (tol 1e-12)$([ $FAST = 1 ] || echo ' + sanitizers'), 32^3 x 200" "$(tail -n 1 $W/gt_fast.log)"
BUILD=build/strict bash validation/gpu_test.sh --kernels merged --no-sanitizer --out $W/gt > $W/gt_strict.log 2>&1
row "merged strict build vs CPU (bit-identical), 32^3 x 200" "$(tail -n 1 $W/gt_strict.log)"
ADIFLOW_MERGED_STEPS=none BUILD=build/strict bash validation/gpu_test.sh --kernels merged --no-sanitizer --gpu-only --out $W/gt > $W/gt_strict_none.log 2>&1
row "merged strict, steps none (bit-identical), 32^3 x 200" "$(tail -n 1 $W/gt_strict_none.log)"
grep -E "^(PASS|FAIL)" $W/gt_fast.log $W/gt_strict.log $W/gt_strict_none.log | sed 's|^.*/||'
cp $W/gt/summary-*.txt $O/ 2>/dev/null

echo "== 2. tune mode, 128^3"
TUNE=$O/tune_sm_$CC.txt
ADIFLOW_TUNE=$TUNE build/adiflow cases/seed128.nml --backend cuda --kernels merged --max-iter 1 --run-dir $W/tune > $W/tune.log 2>&1
if [ -s "$TUNE" ]; then export ADIFLOW_TUNE_TABLE=$TUNE; row "tune mode: table written" "$TUNE ($(grep -vc '^#' $TUNE) entries)"
else row "tune mode" "FAILED: $(tail -n 2 $W/tune.log)"; fi

# per-kernel times of a run's log -> "name d ms bytes" lines
split_rows() { # LOG NI NJ NK -> name d ms bytes (bytes by count, as cuda/merged/schedule.cu counts)
  awk -v ni=$2 -v nj=$3 -v nk=$4 '
    BEGIN { n = ni*nj*nk; all = (ni+4)*(nj+4)*(nk+4); ldi = int((ni+4+15)/16)*16;
      pp["flux_kernel1"]=10; pp["flux_kernel2"]=20; pp["flux_kernel3"]=18; pp["viscous_kernel"]=19;
      pp["flux_kernel4"]=20; pp["ADI_kernel1"]=19; pp["ADI_kernel2"]=19; pp["ADI_kernel4"]=19 }
    /GPU kernel times/ { on = 1; next } /families:/ { on = 0 }
    on && NF == 5 && $1 ~ /_kernel|memset/ {
      for (d = 1; d <= 3; d++) {
        nb = d == 1 ? nj : ni; nc = d == 3 ? nj : nk
        if ($1 == "bc_kernel") b = 8*20*(nb+4)*(nc+4)
        else if ($1 == "ADI_kernel3") b = 8*(d == 1 ? 19 : 18)*n
        else if ($1 == "ADI_kernel5") b = 8*(d < 3 ? 18 : 23)*n
        else b = 8*pp[$1]*n
        printf "%s %d %s %.0f\n", $1, d, $(d+1), b }
    }
    on && NF == 2 && $1 ~ /_kernel|memset/ {
      if ($1 == "primitives_kernel") b = 8*11*all; else if ($1 == "time_step_kernel") b = 8*17*n
      else b = 8*5*ldi*(nj+4)*(nk+4)
      printf "%s 0 %s %.0f\n", $1, $2, b }' "$1"
}
merged_rows() { grep '^MERGEDK ' "$1" | awk '{print $2, $3, $4, $5}'; }
# kernel group of a kernel name, for the chart
group() { awk '{ g = $1
  if (g ~ /^flux|viscous/) g = "flux+viscous"; else if (g ~ /^ADI_kernel(1|2|3|12|123)$/) g = "ADI_kernel1-3"
  else if (g ~ /primitives|time_step|prim_tstep|memset/) g = "prim+tstep+reset"
  print g, $3 }' | awk '{ s[$1] += $2 } END { for (g in s) print g, s[g] }'; }

echo "== 3. each technique as a step, 128^3 (cumulative, paper order, then beyond it)"
ITS=50; [ $QUICK = 1 ] && ITS=10
: > $O/steps128.txt
# steps_run TAG STEPS TITLE: the 128^3 case with these merged steps, per-kernel
# times into steps128.txt and the total as a table row
steps_run() {
  ADIFLOW_MERGED_STEPS=$2 ADIFLOW_GPU_TIMING=1 build/adiflow cases/seed128.nml --backend cuda --kernels merged \
    --max-iter $ITS --run-dir $W/$1 > $W/$1.log 2>&1
  local tot; tot=$(merged_rows $W/$1.log | awk '{s += $3} END {printf "%.4f", s}')
  echo "## $3: all kernels $tot ms/iteration" >> $O/steps128.txt
  merged_rows $W/$1.log | awk '{printf "  %-18s %d %9.4f ms\n", $1, $2, $3}' >> $O/steps128.txt
  row "128^3 merged, $3: kernels ms/iteration" "$tot"
}
STEPS=""
for st in none align sweep tune fuse comp adi123 pt fmarch tsweep adi5f adiline; do
  [ $st = none ] && STEPS=none || STEPS="$STEPS,$st"
  steps_run st_$st "$STEPS" "steps up to +$st ($STEPS)"
done
# the ablation: the default with one technique off at a time (graph: below)
for st in all align sweep tune fuse comp adi123 pt fmarch tsweep adi5f adiline; do
  STEPS=$([ $st = all ] && echo all || echo all,-$st)
  steps_run ab_$st "$STEPS" "steps $STEPS"
done
for mode in 0 1; do   # graph off vs on: whole-iteration time (no per-kernel events)
  s=$([ $mode = 1 ] && echo all || echo all,-graph)
  ADIFLOW_MERGED_STEPS=$s build/adiflow cases/seed128.nml --backend cuda --kernels merged --max-iter 300 \
    --run-dir $W/gr$mode > $W/gr$mode.log 2>&1
  row "128^3 merged steps $s: s/iteration (300 iterations)" "$(spi $W/gr$mode.log)"
done

echo "== 4. split vs merged"
CASES="seed128:128:128:128 seed256x256x128:256:256:128"
for cs in $CASES; do
  IFS=: read name ni nj nk <<< "$cs"
  NT=100; [ $QUICK = 1 ] && NT=20
  for fam in split merged; do
    ADIFLOW_GPU_TIMING=1 build/adiflow cases/$name.nml --backend cuda --kernels $fam --max-iter $NT \
      --run-dir $W/${name}_${fam}_t > $W/${name}_${fam}_t.log 2>&1
  done
  split_rows $W/${name}_split_t.log $ni $nj $nk > $W/${name}_split.rows
  merged_rows $W/${name}_merged_t.log > $W/${name}_merged.rows
  K=$O/kernels_$name.txt
  { echo "# $name: per kernel, ms per iteration (mean of $NT), bytes by count, GB/s, % of copy bandwidth $BW GB/s"
    for fam in split merged; do
      echo "## $fam"
      printf "%-18s %2s %10s %10s %9s %7s\n" kernel d ms MB GB/s %copy
      awk -v bw=$BW '{ gbs = $3 > 0 ? $4/($3*1e-3)/1e9 : 0
        printf "%-18s %2d %10.4f %10.1f %9.1f %7.1f\n", $1, $2, $3, $4/1e6, gbs, 100*gbs/bw }' $W/${name}_$fam.rows
    done; } > $K
  cat $K
  { echo "# group split_ms merged_ms ($name, per iteration)"
    join -a1 -a2 -e 0 -o 0,1.2,2.2 <(group < $W/${name}_split.rows | sort) <(group < $W/${name}_merged.rows | sort)
  } > $O/groups_$name.dat
  ITER=2000; [ $QUICK = 1 ] && ITER=200
  [ $FAST = 1 ] && [ $name != seed128 ] && continue
  for fam in split merged; do
    t0=$(now)
    build/adiflow cases/$name.nml --backend cuda --kernels $fam --max-iter $ITER --run-dir $W/${name}_$fam > $W/${name}_$fam.log 2>&1
    t1=$(now)
    row "$name $fam: s/iteration ($ITER iterations, monitor)" "$(spi $W/${name}_$fam.log)"
    row "$name $fam: $ITER iterations, wall s (init + output included)" "$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}')"
  done
  row "$name merged speed-up per iteration over split" \
      "$(awk -v a=$(spi $W/${name}_split.log) -v b=$(spi $W/${name}_merged.log) 'BEGIN{if (b > 0) printf "%.2f", a/b}')x"
  build/compare_fields $W/${name}_split/field.dump $W/${name}_merged/field.dump --tol 1e-12 > $W/cmp_$name.txt 2>&1
  row "$name fast split vs fast merged dumps, max rel <= 1e-12" "$([ $? = 0 ] && echo PASS || echo FAIL)"
done
ITER=2000; [ $QUICK = 1 ] && ITER=200
build/strict/adiflow cases/seed128.nml --backend cuda --kernels merged --max-iter $ITER --run-dir $W/s128ms > $W/s128ms.log 2>&1
row "128^3 strict merged dump checksum ($ITER it.; split strict, 2000 it.: 3b534f3cacaf5697)" "$(csum $W/s128ms/field.dump)"
OMP_NUM_THREADS=1 build/adiflow cases/seed128.nml --backend cpu --max-iter 3 --run-dir $W/c1 > $W/c1.log 2>&1
row "128^3 CPU reference, 1 thread: s/iteration" "$(spi $W/c1.log)"
OMP_NUM_THREADS=$(nproc) build/adiflow cases/seed128.nml --backend cpu --max-iter 5 --run-dir $W/cN > $W/cN.log 2>&1
row "128^3 CPU reference, $(nproc) threads: s/iteration" "$(spi $W/cN.log)"
cp $W/*_t.log $W/st_*.log $W/ab_*.log $W/tune.log $O/ 2>/dev/null
echo; echo "================ merged kernels device summary ================"; cat $T
cp $T $O/table_merged.txt

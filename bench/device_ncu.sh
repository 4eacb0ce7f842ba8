#!/usr/bin/env bash
# On the GPU machine (builds nothing: bash, awk, ncu and the carried fast
# bench build in BUILD, default build: make BENCH_VARIANTS=1, which can
# switch the graph off, bench/README.md): an Nsight Compute profile of one merged
# iteration of the 128^3 seed case (cases/seed128.nml), double and single
# implicit_precision, graph off, one row per kernel launch:
#   us      duration (ncu locks the clocks: longer than the bench's times)
#   dram%   DRAM throughput, % of peak;  sm%: SM throughput, % of peak
#   warps%  active warps, % of the SM's maximum;  regs: registers per thread
#   issue%  issue slots busy;  fp64%: FP64 pipe, % of peak
#   lsb wait ssb bar math lg: warps stalled per issued instruction on the
#           long scoreboard (global memory), a fixed-latency dependency, the
#           short scoreboard (shared memory, MUFU), a barrier, a math pipe
#           throttle, the LSU throttle
#   Minst   warp instructions executed (millions);  inst/cell: thread
#           instructions per interior cell (32 * Minst / cells)
#   bash bench/device_ncu.sh            -> $OUT/ncu_128x128x128_{double,single}.txt
# Without ncu it says so and exits 0 (nothing is measured then).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}; O=${OUT:-/tmp/out}; W=/tmp/adiflow-ncu; mkdir -p $O $W
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
[ -n "$NCU" ] || { echo "note: ncu not found: no profile taken"; exit 0; }
[ -x "$B/adiflow" ] || { echo "device_ncu.sh: $B/adiflow missing (build on the development machine and carry it)" >&2; exit 2; }
[ -f "$B/BENCH_VARIANTS" ] || { echo "device_ncu.sh: $B is no bench build (graph off needs one: make BENCH_VARIANTS=1, bench/README.md)" >&2; exit 2; }
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__inst_issued.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
for s in long_scoreboard wait short_scoreboard barrier math_pipe_throttle lg_throttle; do
  M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
M=$M,smsp__inst_executed.sum,launch__block_size
cells=$((128*128*128))
sed -e "s/max_iter = 2000/max_iter = 6/" -e "s/title = .*/title = 'ncu 128'/" \
    -e "s/write_tecplot = .false., write_plot = .false./write_tecplot = .false., write_plot = .false., write_vtk = .false., write_profiles = .false., write_dump = .false./" \
    cases/seed128.nml > $W/case.nml
for prec in double single; do
  ADIFLOW_MERGED_STEPS=all,-graph "$NCU" --launch-skip 60 --launch-count 20 --csv --metrics $M \
    "$B/adiflow" $W/case.nml --backend gpu --kernels merged --implicit-precision $prec --run-dir $W/r_$prec \
    > $W/ncu_$prec.csv 2> $W/ncu_$prec.err || { echo "ncu $prec failed:"; tail -n 5 $W/ncu_$prec.err; continue; }
  T=$O/ncu_128x128x128_$prec.txt
  { echo "# ncu $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), 128^3 seed, merged, fast build, implicit_precision $prec, graph off; launches 61-80"
    echo "# command: bash bench/device_ncu.sh (columns: see the script's header)"
    printf "%-3s %-34s %9s %7s %7s %7s %5s %7s %7s %6s %6s %6s %6s %6s %6s %8s %9s\n" id kernel us dram% sm% warps% regs \
      issue% fp64% lsb wait ssb bar math lg Minst inst/cell
    awk -F'","' -v cells=$cells '
      # the header names the columns; a row per (launch, metric)
      /^"ID","/ { for (c = 1; c <= NF; ++c) { h = $c; gsub(/"/, "", h); col[h] = c }; next }
      ("ID" in col) && $1 ~ /^"[0-9]/ {
        id = $1; gsub(/"/, "", id); name = $(col["Kernel Name"]); sub(/\(.*/, "", name); sub(/^void /, "", name); sub(/ *$/, "", name)
        met = $(col["Metric Name"]); unit = $(col["Metric Unit"]); val = $(col["Metric Value"])
        gsub(/"/, "", val); gsub(/,/, "", val)
        if (met == "gpu__time_duration.sum") val = unit ~ /^n/ ? val/1000 : (unit ~ /^m/ ? val*1000 : val)   # -> us
        if (!(id in seen)) { seen[id] = 1; order[++n] = id; nm[id] = name }
        v[id, met] = val }
      END {
        split("gpu__time_duration.sum dram__throughput.avg.pct_of_peak_sustained_elapsed sm__throughput.avg.pct_of_peak_sustained_elapsed sm__warps_active.avg.pct_of_peak_sustained_active launch__registers_per_thread sm__inst_issued.avg.pct_of_peak_sustained_active sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio smsp__average_warps_issue_stalled_wait_per_issue_active.ratio smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio smsp__inst_executed.sum", k, " ")
        for (a = 1; a <= n; ++a) {
          id = order[a]
          printf "%-3s %-34s %9.2f", id, substr(nm[id], 1, 34), v[id, k[1]]
          for (b = 2; b <= 13; ++b) printf (b == 5 ? " %5d" : " %7.2f"), v[id, k[b]]
          printf " %8.2f %9.0f\n", v[id, k[14]]/1e6, 32*v[id, k[14]]/cells } }' $W/ncu_$prec.csv; } > $T
  cat $T
done

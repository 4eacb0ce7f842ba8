#!/usr/bin/env bash
# On the GPU machine (builds nothing: bash, awk and the carried fast build in
# BUILD, default build, with adiflow, copy_bw and tune/): where the time of a
# merged-family iteration goes, per kernel, against the device's copy
# bandwidth measured in the same run.
#
#   bash bench/device_kernels.sh [SIZES]
#       SIZES: a list of NIxNJxNK (default 64x64x64,128x128x128,256x256x128)
#
# For each size and each implicit_precision (double, single), the seed's
# scheme (cases/seed128.nml: Re 1000, plain Roe, van Albada; the grid size
# changed):
#   - a timed run (ADIFLOW_GPU_TIMING=1, CUDA events around every launch,
#     graph off): per kernel and direction ms per iteration, bytes by count
#     (cuda/merged/schedule.cu, kernel_bytes: the compulsory traffic of the
#     fields each kernel reads and writes), GB/s and % of the copy bandwidth;
#   - an untimed run (graph on, the production path): ms per iteration from
#     the monitor, and ns per cell-iteration.
# One more untimed run at 128^3 with the solver's defaults (rieper, venkat).
# Files in $OUT/kernels/: <size>_<precision>.txt (the per-kernel table),
# roofline.dat (size precision kernel d ms bytes GB/s %copy, for
# bench/plot_roofline.sh on the development machine), summary.txt (the
# table printed last).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
O=${OUT:-/tmp/out}/kernels; W=/tmp/devkernels; rm -rf $W; mkdir -p $W "$O"
SIZES=${1:-64x64x64,128x128x128,256x256x128}
for f in "$B/adiflow" "$B/copy_bw"; do
  [ -x "$f" ] || { echo "device_kernels.sh: $f missing (build it with make on the development machine)" >&2; exit 2; }
done
[ -f "$B/tune/sm_90.txt" ] || echo "device_kernels.sh: note: no $B/tune/sm_90.txt, built-in block shapes"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# seconds per iteration of the last monitor line (column 9)
spi() { awk '$1 ~ /^[0-9]+$/ && NF >= 9 { v = $9 } END { print v }' "$1"; }

"$B/copy_bw" 2048 20 | tee $W/bw.txt
BW=$(awk '{for (i = 1; i <= NF; i++) if ($i == "best") print $(i+1)}' $W/bw.txt)
[ -n "$BW" ] || { echo "device_kernels.sh: copy bandwidth not measured" >&2; exit 1; }
S=$O/summary.txt
printf "%-12s %-9s %10s %12s %12s %8s   (copy bandwidth %s GB/s)\n" size precision "ms/it" "ns/cell-it" \
  "kernels ms" "%copy" "$BW" > $S
echo "# size precision kernel d ms_per_iteration bytes GB/s pct_of_copy_bandwidth (copy $BW GB/s)" > $O/roofline.dat

# deck SIZE SCHEME ITERS -> path of a seed-like case file of that size
deck() {
  local ni nj nk f=$W/case_$1_$2.nml
  IFS=x read ni nj nk <<< "$1"
  sed -e "s/ni = 128, nj = 128, nk = 128/ni = $ni, nj = $nj, nk = $nk/" -e "s/max_iter = 2000/max_iter = $3/" \
      -e "s/monitor_interval = 100/monitor_interval = 50/" \
      -e "s/title = .*/title = 'kernel bench $1'/" \
      -e "s/write_tecplot = .false., write_plot = .false./write_tecplot = .false., write_plot = .false., write_vtk = .false., write_profiles = .false., write_dump = .false./" \
      cases/seed128.nml > $f
  [ "$2" = defaults ] && sed -i "s/order = 2, limiter = 'vanalbada', roe_low_mach = 'none'/order = 2/" $f
  echo $f
}

for sz in ${SIZES//,/ }; do
  [[ $sz =~ ^[0-9]+x[0-9]+x[0-9]+$ ]] || { echo "device_kernels.sh: size $sz: want NIxNJxNK" >&2; exit 2; }
  IFS=x read ni nj nk <<< "$sz"; cells=$((ni*nj*nk))
  its=300; [ $cells -gt 4000000 ] && its=100
  for prec in double single; do
    ADIFLOW_GPU_TIMING=1 "$B/adiflow" "$(deck $sz seed 60)" --backend gpu --kernels merged --implicit-precision $prec \
      --run-dir $W/t_${sz}_$prec > $W/t_${sz}_$prec.log 2>&1 || { echo "timed run $sz $prec failed:"; tail -n 5 $W/t_${sz}_$prec.log; continue; }
    "$B/adiflow" "$(deck $sz seed $its)" --backend gpu --kernels merged --implicit-precision $prec \
      --run-dir $W/g_${sz}_$prec > $W/g_${sz}_$prec.log 2>&1 || { echo "run $sz $prec failed:"; tail -n 5 $W/g_${sz}_$prec.log; continue; }
    K=$O/${sz}_$prec.txt
    { echo "# $sz, implicit_precision $prec, merged: per kernel, ms per iteration (CUDA events, graph off), bytes by count, GB/s, % of copy bandwidth $BW GB/s"
      printf "%-18s %2s %10s %10s %9s %7s\n" kernel d ms MB GB/s %copy
      grep '^MERGEDK ' $W/t_${sz}_$prec.log | awk -v bw=$BW '{ gbs = $4 > 0 ? $5/($4*1e-3)/1e9 : 0
        printf "%-18s %2d %10.4f %10.1f %9.1f %7.1f\n", $2, $3, $4, $5/1e6, gbs, 100*gbs/bw }'
      grep -E "all kernels|iteration .*gaps" $W/t_${sz}_$prec.log | sed 's/^ *//'; } > $K
    cat $K
    grep '^MERGEDK ' $W/t_${sz}_$prec.log | awk -v s=$sz -v p=$prec -v bw=$BW '{ gbs = $4 > 0 ? $5/($4*1e-3)/1e9 : 0
      printf "%s %s %s %d %.6f %.0f %.1f %.1f\n", s, p, $2, $3, $4, $5, gbs, 100*gbs/bw }' >> $O/roofline.dat
    ms=$(awk -v s=$(spi $W/g_${sz}_$prec.log) 'BEGIN { printf "%.4f", 1e3*s }')
    kt=$(grep '^MERGEDK ' $W/t_${sz}_$prec.log | awk '{ t += $4; b += $5 } END { printf "%.4f %.1f", t, b/(t*1e-3)/1e9 }')
    printf "%-12s %-9s %10s %12.3f %12s %8.1f\n" $sz $prec $ms "$(awk -v m=$ms -v c=$cells 'BEGIN { print 1e6*m/c }')" \
      "${kt% *}" "$(awk -v g=${kt#* } -v bw=$BW 'BEGIN { print 100*g/bw }')" >> $S
  done
done
# the solver's defaults (rieper + venkat) at 128^3, double: the production path's figure
"$B/adiflow" "$(deck 128x128x128 defaults 300)" --backend gpu --kernels merged --run-dir $W/g_def > $W/g_def.log 2>&1 \
  && printf "%-12s %-9s %10s %12.3f   (defaults: rieper, venkat)\n" 128x128x128 double \
       "$(awk -v s=$(spi $W/g_def.log) 'BEGIN { printf "%.4f", 1e3*s }')" \
       "$(awk -v s=$(spi $W/g_def.log) 'BEGIN { print 1e9*s/2097152 }')" >> $S
cp $W/*.log "$O/" 2> /dev/null
echo; echo "================ merged kernels: time per iteration and bandwidth ================"
cat $S

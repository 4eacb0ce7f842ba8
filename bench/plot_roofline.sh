#!/usr/bin/env bash
# Roofline-style chart of bench/device_kernels.sh's roofline.dat: for each
# grid size a panel with every merged kernel (and direction) at its achieved
# bandwidth (bytes by count over its time) against the copy bandwidth of the
# same run, the ceiling of a kernel that only streams its fields; x is the
# kernel's share of the iteration, so the kernels that matter sit right.
#   bash bench/plot_roofline.sh ROOFLINE.DAT OUT.PNG
# Needs gnuplot (development machine); without it, says so and exits 0.
set -u
dat=${1:?usage: plot_roofline.sh ROOFLINE.DAT OUT.PNG}; png=${2:?usage: plot_roofline.sh ROOFLINE.DAT OUT.PNG}
[ -s "$dat" ] || { echo "plot_roofline.sh: $dat: no such file or empty" >&2; exit 2; }
command -v gnuplot > /dev/null || { echo "note: plot skipped (gnuplot not found)"; exit 0; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
bw=$(sed -n 's/.*(copy \([0-9.]*\) GB\/s).*/\1/p' "$dat" | head -n 1)
[ -n "$bw" ] || { echo "plot_roofline.sh: $dat: no copy bandwidth in its header" >&2; exit 2; }
sizes=$(awk '!/^#/ { print $1 }' "$dat" | awk '!seen[$0]++')
n=0
for s in $sizes; do
  n=$((n + 1))
  for p in double single; do
    # x: % of the iteration's kernel time, y: GB/s, label kernel/d
    awk -v s=$s -v p=$p '!/^#/ && $1 == s && $2 == p { t[NR] = $5; l[NR] = $3 "/" $4; g[NR] = $7; tot += $5 }
      END { for (r in t) printf "%.2f %.1f %s\n", 100*t[r]/tot, g[r], l[r] }' "$dat" > "$W/${s}_$p.dat"
  done
done
{
  echo "set terminal pngcairo size $((560*n)),600 font ',10' noenhanced"
  echo "set output '$png'"
  echo "set multiplot layout 1,$n title 'adiflow merged kernels: achieved bandwidth (bytes by count) against the copy bandwidth, $bw GB/s'"
  echo "set xlabel '% of the iteration (sum of kernel times)'; set ylabel 'GB/s'"
  echo "set logscale x; set xrange [0.1:100]; set yrange [0:$bw*1.15]; set grid; set key top left"
  for s in $sizes; do
    echo "set title '$s'"
    echo "plot $bw with lines dt 2 lc rgb 'black' title 'copy bandwidth', \\"
    echo "  '$W/${s}_double.dat' using 1:2 with points pt 7 ps 1.3 lc rgb '#1f77b4' title 'double', \\"
    echo "  '' using 1:2:3 with labels offset 0,0.8 font ',7' tc rgb '#1f77b4' notitle, \\"
    echo "  '$W/${s}_single.dat' using 1:2 with points pt 9 ps 1.3 lc rgb '#d62728' title 'single (implicit_precision)', \\"
    echo "  '' using 1:2:3 with labels offset 0,-0.8 font ',7' tc rgb '#d62728' notitle"
  done
  echo "unset multiplot"
} > "$W/plot.gp"
gnuplot "$W/plot.gp" && echo "wrote $png"

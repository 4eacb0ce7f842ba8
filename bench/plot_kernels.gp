# Per-kernel-group times, split vs merged, from bench/device_merged.sh's
# groups_<case>.dat files (columns: group split_ms merged_ms). On the dev machine:
#   gnuplot -e "dir='runs/device'" bench/plot_kernels.gp   -> dir/kernels_split_vs_merged.png
if (!exists("dir")) dir = "."
set terminal pngcairo size 1400,560 font ",11" noenhanced
set output dir."/kernels_split_vs_merged.png"
set multiplot layout 1,2 title "adiflow: GPU time per iteration by kernel group, split vs merged"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "ms per iteration"
set xtics rotate by -30 scale 0
set grid ytics
set key top right
set title "128x128x128"
plot dir."/groups_seed128.dat" using 2:xtic(1) title "split", '' using 3 title "merged"
set title "256x256x128"
plot dir."/groups_seed256x256x128.dat" using 2:xtic(1) title "split", '' using 3 title "merged"
unset multiplot

# Parallel efficiency on 1-2-4 GPUs from bench/multigpu/scaling_4gpu_h200.dat
# (the CFD solver's multigrid cycle and the wave module). On the dev machine:
#   gnuplot bench/plot_multigpu_scaling.gp   -> bench/multigpu/scaling_4gpu_h200.png
dat = "bench/multigpu/scaling_4gpu_h200.dat"
set terminal pngcairo size 1400,560 font ",11" noenhanced
set output "bench/multigpu/scaling_4gpu_h200.png"
set multiplot layout 1,2 title "adiflow on 1, 2 and 4 NVIDIA H200 (2026-11-27): parallel efficiency"
set xlabel "GPUs"
set ylabel "efficiency (%)"
set xtics (1, 2, 4)
set xrange [0.8:4.2]
set yrange [0:110]
set grid
set key bottom left
set title "CFD: multigrid cycle, cube Re = 1000 (strong: the grid's cells; weak: 256^3 per GPU)"
plot dat u 1:3 w lp lw 2 pt 7 t "decoupled strong 512^3", \
     dat u 1:2 w lp lw 2 pt 5 t "decoupled strong 256^3", \
     dat u 1:5 w lp lw 2 pt 9 t "decoupled weak (1x4)", \
     dat u 1:4 w lp lw 2 pt 11 t "decoupled weak (2x2)", \
     dat u 1:7 w lp lw 2 dt 2 pt 7 t "exact strong 512^3", \
     dat u 1:6 w lp lw 2 dt 2 pt 5 t "exact strong 256^3", \
     dat u 1:9 w lp lw 2 dt 2 pt 9 t "exact weak (1x4)", \
     90 w l lc rgb "gray" dt 3 t "weak target, decoupled (90 %)", \
     80 w l lc rgb "black" dt 3 t "weak target, exact (80 %)"
set title "wave module: MPI + NCCL, one rank per GPU"
plot dat u 1:11 w lp lw 2 pt 7 t "strong 32768^2", \
     dat u 1:10 w lp lw 2 pt 5 t "strong 16384^2", \
     dat u 1:12 w lp lw 2 pt 9 t "weak 16384^2 per GPU", \
     90 w l lc rgb "gray" dt 3 t "strong target (90 %)", \
     95 w l lc rgb "black" dt 3 t "weak target (95 %)"
unset multiplot

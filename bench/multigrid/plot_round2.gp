# Residual histories of convergence round 2: the cube at Re = 1000, lid Mach 0.1, wall
# clustering beta 1.4, the default scheme (rieper + venkat), one H200, 2026-11-29, from the r2_*.txt
# files here (columns: cycle or iteration, drop in orders from the run's first residual, fine-grid work
# units), made by `BETA=1.4 bash bench/device_mg_sweep.sh 64|128 NAME...` (bench/log/2026-11-29-start-and-checks.md):
#   gnuplot bench/multigrid/plot_round2.gp   (writes residual_round2.png)
set terminal pngcairo size 1100,460 noenhanced
set output 'bench/multigrid/residual_round2.png'
set multiplot layout 1,2
set logscale y; set grid; set format y '1e%T'; set key top right opaque box font ',9'
set xlabel 'fine-grid work units'; set ylabel 'residual / first residual'
d = 'bench/multigrid/'
set yrange [1e-8:1e3]
set title 'cube 64^3, Re = 1000: 1.0 s whole (was 6.0 s)'
set xrange [0:6000]
plot d.'r2_64_re1000_single.txt' u 3:(10**(-$2)) w l lw 2 t 'single grid: 17600 it., 6.1 s (on to 17600 WU)', \
     d.'r2_64_re1000_base.txt' u 3:(10**(-$2)) w l lw 2 t 'before: W(1,1), 5 levels: 1380 cycles, 6.0 s', \
     d.'r2_64_re1000_o2_pp2_lev4.txt' u 3:(10**(-$2)) w l lw 2 t 'W(2,2), 4 levels: 600, 2.7 s', \
     d.'r2_64_re1000_pc_k1_pp1_lev4.txt' u 3:(10**(-$2)) w l lw 2 t 'preconditioned W(1,1), 4 levels: 210, 1.1 s', \
     d.'r2_64_re1000_pc_k1_v22_lev3_c8.txt' u 3:(10**(-$2)) w l lw 3 t 'preconditioned V(2,2), 3 levels (deck): 170, 0.9 s'
set title 'cube 128^3, Re = 1000: 3.7 s (was 9.1 s)'
set xrange [0:4000]
plot d.'r2_128_re1000_base.txt' u 3:(10**(-$2)) w l lw 2 t 'before: W(1,1), 5 levels: 880 cycles, 9.1 s', \
     d.'r2_128_re1000_o2_pp2.txt' u 3:(10**(-$2)) w l lw 2 t 'W(2,2), 5 levels: 290, 5.7 s', \
     d.'r2_128_re1000_pc_k1_v22_lev5_c8.txt' u 3:(10**(-$2)) w l lw 3 t 'preconditioned V(2,2), 5 levels (deck): 170, 3.7 s'
unset multiplot

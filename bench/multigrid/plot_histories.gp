# Residual histories, single grid vs FAS multigrid (H200, 2026-11-23), from
# the *_history.txt files here (columns: step, drop in orders, work units):
#   gnuplot bench/multigrid/plot_histories.gp   (writes residual_sg_vs_mg.png)
set terminal pngcairo size 1000,450 noenhanced
set output 'bench/multigrid/residual_sg_vs_mg.png'
set multiplot layout 1,2
set logscale y; set grid; set format y '1e%T'
set xlabel 'fine-grid work units'; set ylabel 'residual / largest residual'
d = 'bench/multigrid/'
set title 'cube 64^3, Re = 400, Mach 0.1'
plot d.'sg64_re400_history.txt' u 3:(10**(-$2)) w l lw 2 t 'single grid (LU-ADI)', \
     d.'mg64_re400_history.txt' u 3:(10**(-$2)) w l lw 2 t 'FAS multigrid, W(1,1), 5 levels'
set title 'cube 128^3, Re = 1000, Mach 0.1'
plot d.'sg128_re1000_history.txt' u 3:(10**(-$2)) w l lw 2 t 'single grid (LU-ADI)', \
     d.'mg128_re1000_history.txt' u 3:(10**(-$2)) w l lw 2 t 'FAS multigrid, W(1,1), 5 levels'
unset multiplot

# Sourced by the suites (run_tests.sh, run_mpi_tests.sh): c_grid_decks BUILD DIR writes into DIR a small
# NACA 0012 C-grid (32 cells round the airfoil, 8 along each wake, 16 outwards) twice, as one block
# (c1.x, its j = 1 face the wake cut at both ends and the wall between: c1.bc gives the wall over the
# airfoil's cells) and as the three blocks make_grid --split writes (c3.x, c3.bc in sections), with a
# deck for each (c1.nml, c3.nml: Mach 0.5, Re 5000, adiabatic wall, 5 cycles over 2 levels).
c_grid_decks() {
  local g
  "$1/make_grid" naca0012 --na 32 --nw 8 --nj 16 -o "$2/c1.x" > /dev/null
  "$1/make_grid" naca0012 --na 32 --nw 8 --nj 16 --split 9,41 -o "$2/c3.x" > /dev/null
  for g in c1 c3; do
    printf "&adiflow\n  grid_file = '%s.x', patch_file = '%s.bc', mach = 0.5, reynolds = 5000.0, %s\n  %s\n/\n&multigrid\n  levels = 2\n/\n" \
      $g $g "bc_kmin = 'periodic', bc_kmax = 'periodic'" "cfl = 5.0, max_iter = 5, wall_thermal = 'adiabatic', write_tecplot = .false." \
      > "$2/$g.nml"
  done
  printf 'imin farfield\nimax farfield\njmax farfield\njmin wall 9:40 1:1\n' > "$2/c1.bc"
  printf 'block 1\nimin farfield\njmax farfield\nblock 2\njmin wall\njmax farfield\nblock 3\nimax farfield\njmax farfield\n' \
    > "$2/c3.bc"
}

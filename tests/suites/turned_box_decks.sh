# Sourced by the suites (run_tests.sh, run_mpi_tests.sh) and bench/device_multigrid.sh: turned_box_decks
# BUILD DIR [MAX_ITER] writes into DIR a curvilinear cavity box of 8^3 cells twice, as one block (tb1.x)
# and cut in 2 x 2 x 2 blocks of 4^3 cells (tb8.x, make_grid --split 5 --split-j 5 --split-k 5 --turn):
# the blocks along i's second half are stored with their directions cycled (their i, j, k along the
# grid's j, k, i), so that the interfaces between the halves join i faces to k faces, and the blocks
# meet at corners beyond three interfaces. A lid (moving in y) on the grid's imin face, walls at rest
# elsewhere (tb1.bc; tb8.bc in sections, each block's faces by its own directions). The lid lies on
# blocks in the grid's directions: a block fills the edge between two of its own faces by the later
# direction's condition, so an edge between the lid and a wall depends on the block's directions,
# whereas the reflections of two walls at rest commute. Decks tb1.nml, tb8.nml: Re 100, Mach 0.2,
# W(1,1) over 2 levels, mass_fix, 10 orders (or MAX_ITER cycles). tb_at B prints block B's first cell
# in the one-block grid and --turned where its directions are cycled (compare_fields' arguments).
turned_box_decks() {
  local g b bi bj bk
  "$1/make_grid" box --ni 8 --nj 8 --nk 8 -o "$2/tb1.x" > /dev/null
  "$1/make_grid" box --ni 8 --nj 8 --nk 8 --split 5 --split-j 5 --split-k 5 --turn -o "$2/tb8.x" > /dev/null
  printf 'imin lid u=0 v=1\nimax wall\njmin wall\njmax wall\nkmin wall\nkmax wall\n' > "$2/tb1.bc"
  for b in 0 1 2 3 4 5 6 7; do
    bi=$((b % 2)); bj=$((b / 2 % 2)); bk=$((b / 4))
    echo "block $((b + 1))"
    if [ $bi = 1 ]; then   # turned: its i is the grid's j, its j the grid's k, its k the grid's i
      [ $bj = 0 ] && echo "imin wall" || echo "imax wall"
      [ $bk = 0 ] && echo "jmin wall" || echo "jmax wall"
      echo "kmax wall"
    else
      echo "imin lid u=0 v=1"
      [ $bj = 0 ] && echo "jmin wall" || echo "jmax wall"
      [ $bk = 0 ] && echo "kmin wall" || echo "kmax wall"
    fi
  done > "$2/tb8.bc"
  for g in tb1 tb8; do
    printf "&adiflow\n  grid_file = '%s.x', patch_file = '%s.bc', reynolds = 100.0, mach = 0.2, limiter = 'vanalbada'\n  %s\n  %s\n/\n&multigrid\n  levels = 2, cycle = 'w', pre_smooth = 1, post_smooth = 1\n/\n" \
      $g $g "roe_low_mach = 'none', cfl = 10.0, max_iter = ${3:-3000}, tol = 1.0e-10, mass_fix = .true." \
      "monitor_interval = 50, write_plot = .false., write_tecplot = .false." > "$2/$g.nml"
  done
}
tb_at() {
  local b=$(($1 - 1))
  printf -- '--at %d,%d,%d%s' $((b % 2 * 4 + 1)) $((b / 2 % 2 * 4 + 1)) $((b / 4 * 4 + 1)) "$([ $((b % 2)) = 1 ] && echo ' --turned')"
}

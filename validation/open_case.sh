#!/usr/bin/env bash
# The open-boundary validation cases: a laminar flat plate (Blasius), a plane
# channel (Poiseuille) and a circular cylinder at Re = 40 (Dennis & Chang
# 1970; Fornberg 1980). One place for each case's grid, patches and sizes.
#
#   bash validation/open_case.sh grid CASE LEVEL DIR     # DIR/CASE_SIZE.x and DIR/CASE_SIZE.bc
#   bash validation/open_case.sh deck CASE LEVEL DIR     # those in DIR/grids and the deck DIR/CASE_LEVEL.nml
#   bash validation/open_case.sh run  CASE LEVEL RUNDIR [adiflow options...]
#                                                        # grid, deck, run, comparison
#   bash validation/open_case.sh study CASE "1 2 3" RUNDIR [adiflow options...]
#                                                        # the levels in turn, a table last
#
# CASE: channel, plate or cylinder. LEVEL 1 is the size CI runs on two CPU
# cores, each level doubles the cells in both directions (the shipped decks
# in cases/ use level 2; make grids writes their grids into cases/grids/).
# The deck is cases/CASE_*.nml with its grid, patch file and multigrid levels
# replaced (deck); the run's output goes to RUNDIR/CASE_L, the comparison
# (build/open_flow_compare) to RUNDIR/CASE_L/compare.txt. Exit 1 when a
# comparison is outside its tolerance, 2 on bad usage or a failed run.
set -u
BUILD=${BUILD:-build}
die() { echo "open_case: $*" >&2; exit 2; }

# deck, make_grid arguments, patch lines, multigrid levels and comparison of CASE at level L
case_setup() {
  local c=$1 l=$2 s
  s=$((1 << (l - 1)))
  case $c in
    channel)
      DECK=cases/channel_re20.nml
      SIZE="$((64 * s))x$((16 * s))"
      GRID_ARGS="channel --ni $((64 * s)) --nj $((16 * s)) --length 6 --height 1 --beta-y 1.5"
      PATCHES="imin inflow p0=1.01505\nimax outflow\njmin wall\njmax wall"
      LEVELS=$((2 + l))
      COMPARE="channel --re 20 --tol 0.01" ;;
    plate)
      DECK=cases/plate_re1e5.nml
      SIZE="$((64 * s))x$((32 * s))"
      GRID_ARGS="plate --ni-run $((16 * s)) --ni-plate $((48 * s)) --nj $((32 * s)) --height 2 --beta-y 5"
      PATCHES="imin farfield\nimax outflow\njmin symmetry 1:$((16 * s)) 1:1\njmin wall $((16 * s + 1)):$((64 * s)) 1:1\njmax farfield"
      LEVELS=$((3 + l))
      COMPARE="plate --re 1e5 --tol 0.02" ;;
    cylinder)
      DECK=cases/cylinder_re40.nml
      SIZE="$((64 * s))x$((48 * s))"
      GRID_ARGS="cylinder --ni $((64 * s)) --nj $((48 * s)) --farfield 50"
      PATCHES="jmin wall\njmax farfield"
      LEVELS=$((3 + l))
      COMPARE="cylinder --re 40 --tol 0.03" ;;
    *) die "the case is channel, plate or cylinder, not '$c'" ;;
  esac
}

make_grid_files() {   # CASE LEVEL DIR
  case_setup "$1" "$2"
  mkdir -p "$3" || die "cannot make $3"
  "$BUILD/make_grid" $GRID_ARGS -o "$3/$1_$SIZE.x" > /dev/null || die "make_grid $GRID_ARGS failed"
  printf '# %s at level %s (validation/open_case.sh)\n%b\n' "$1" "$2" "$PATCHES" > "$3/$1_$SIZE.bc"
}

# the shipped deck with this level's grid, patches (in ROOT/grids, paths relative
# to the deck) and multigrid levels, as ROOT/CASE_LEVEL.nml
make_deck() {   # CASE LEVEL ROOT
  make_grid_files "$1" "$2" "$3/grids"
  sed -e "s|grid_file = '[^']*'|grid_file = 'grids/$1_$SIZE.x'|" \
      -e "s|patch_file = '[^']*'|patch_file = 'grids/$1_$SIZE.bc'|" \
      -e "s|levels = [0-9]*|levels = $LEVELS|" "$DECK" > "$3/$1_$2.nml" || die "cannot write $3/$1_$2.nml"
}

run_level() {   # CASE LEVEL RUNDIR [options]
  local c=$1 l=$2 root=$3 out rc
  shift 3
  out=$root/${c}_$l
  make_deck "$c" "$l" "$root"
  mkdir -p "$out"
  echo "open_case: $c level $l ($SIZE cells, $LEVELS multigrid levels)"
  local t0 t1
  t0=$(date +%s.%N)
  "$BUILD/adiflow" "$root/${c}_$l.nml" --run-dir "$out" "$@" > "$out.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  grep -E "converged at|multigrid:|backend:" "$out.log" | sed 's/^/  /'
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "  adiflow wall time %.2f s (the whole process: grid read, set-up, cycles, outputs)\n", b - a }' \
    | tee -a "$out.log"
  [ $rc -eq 0 ] || { tail -5 "$out.log" >&2; die "$c level $l: adiflow exit $rc (log: $out.log)"; }
  grep -q "converged at" "$out.log" || { echo "  $c level $l did not reach its tolerance"; return 1; }
  set -- $COMPARE
  local mode=$1
  shift
  case $mode in
    channel)  "$BUILD/open_flow_compare" channel "$root/grids/${c}_$SIZE.x" "$out/field.dump" "$@" ;;
    plate)    "$BUILD/open_flow_compare" plate "$root/grids/${c}_$SIZE.x" "$out/field.dump" "$out"/wall_*_jmin.csv "$@" ;;
    cylinder) "$BUILD/open_flow_compare" cylinder "$root/grids/${c}_$SIZE.x" "$out/field.dump" "$out"/wall_*_jmin.csv \
                "$out/forces.csv" "$@" ;;
  esac > "$out/compare.txt"
  rc=$?
  sed 's/^/  /' "$out/compare.txt"
  return $rc
}

[ $# -ge 4 ] || die "usage: open_case.sh grid|deck|run|study CASE LEVEL(S) DIR [adiflow options]"
verb=$1 c=$2 levels=$3 dir=$4
shift 4
for l in $levels; do
  case $l in 1|2|3|4) ;; *) die "a level is 1, 2, 3 or 4, not '$l'" ;; esac
done
case $verb in
  grid) for l in $levels; do make_grid_files "$c" "$l" "$dir"; done ;;
  deck) for l in $levels; do make_deck "$c" "$l" "$dir"; done ;;
  run)  run_level "$c" "$levels" "$dir" "$@" ;;
  study)
    worst=0
    for l in $levels; do run_level "$c" "$l" "$dir" "$@" || worst=1; done
    echo "open_case: $c grid study (the quantities on each level; work units and cycles from the logs)"
    for l in $levels; do
      case_setup "$c" "$l"
      printf '  level %s %-8s %s\n' "$l" "$SIZE" "$(grep -o 'converged at iteration [0-9]*.*work units' "$dir/${c}_$l.log" \
        | sed 's/: residual dropped below tol = *\([^ ]*\)/, tol \1/; s/$/)/')"
      grep ' reference ' "$dir/${c}_$l/compare.txt" 2>/dev/null | sed 's/^/    /'
    done
    exit $worst ;;
  *) die "the first argument is grid, deck, run or study, not '$verb'" ;;
esac

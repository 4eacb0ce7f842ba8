#!/usr/bin/env bash
# The laminar NACA 0012 airfoil on a C-grid of three blocks (the lower wake,
# the airfoil, the upper wake; the wakes joined across the cut), the
# multi-block grid of the case the high-order CFD workshop defines (problem
# C1.3, viscous: Mach 0.5, Re 5000 on the chord, angle of attack 1 degree,
# Prandtl 0.72, adiabatic wall, the closed trailing edge).
#
#   bash validation/naca_case.sh grid LEVEL DIR    # DIR/naca0012_c3_NAxNJ.x and .bc
#   bash validation/naca_case.sh run LEVEL RUNDIR [adiflow options...]
#                                                  # grid, deck, run; cl, cd, separation
#   FORM=one: the same grid stored as one block (naca0012_c1_NAxNJ.x, its
#   wall over jmin's airfoil cells), which adiflow runs cut at its wake cut
#   into the same three blocks (fortran/block_split.f90): the same figures
#
# LEVEL 1: 128 cells round the airfoil, 32 along each wake, 64 outwards (the
# shipped deck cases/naca0012_re5000.nml, which `make` gives its grid in
# cases/grids/); each level doubles them and halves the first spacing.
# The forces: forces.csv's airfoil row turned to the free stream (lift
# normal to it, drag along it), split into pressure and friction; the
# separation points: where cf changes sign along each surface.
set -u
BUILD=${BUILD:-build}
die() { echo "naca_case: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: naca_case.sh grid|run LEVEL DIR [adiflow options]"
verb=$1 l=$2 dir=$3
shift 3
case $l in 1|2|3) ;; *) die "LEVEL is 1, 2 or 3, not '$l'" ;; esac
s=$((1 << (l - 1)))
NA=$((128 * s)) NW=$((32 * s)) NJ=$((64 * s))
FIRST=$(awk -v s=$s 'BEGIN { printf "%g", 2e-3 / s }')
FORM=${FORM:-three}
case $FORM in one|three) ;; *) die "FORM is one or three, not '$FORM'" ;; esac
NAME=naca0012_c$([ $FORM = one ] && echo 1 || echo 3)_${NA}x${NJ}

grid() {
  mkdir -p "$1" || die "cannot make $1"
  if [ $FORM = one ]; then
    "$BUILD/make_grid" naca0012 --na $NA --nw $NW --nj $NJ --first $FIRST -o "$1/$NAME.x" > /dev/null \
      || die "make_grid failed"
    printf '%s\n' "# NACA 0012 C-grid as one block, level $l (validation/naca_case.sh): jmin's two ends are the wake cut" \
      'imin farfield' 'imax farfield' 'jmax farfield' "jmin wall $((NW + 1)):$((NW + NA)) 1:1" > "$1/$NAME.bc"
    return
  fi
  "$BUILD/make_grid" naca0012 --na $NA --nw $NW --nj $NJ --first $FIRST --split $((NW + 1)),$((NW + NA + 1)) \
    -o "$1/$NAME.x" > /dev/null || die "make_grid failed"
  printf '%s\n' "# NACA 0012 C-grid in 3 blocks, level $l (validation/naca_case.sh)" \
    'block 1   # the lower wake' 'imin farfield' 'jmax farfield' \
    'block 2   # round the airfoil' 'jmin wall' 'jmax farfield' \
    'block 3   # the upper wake' 'imax farfield' 'jmax farfield' > "$1/$NAME.bc"
}

case $verb in
  grid) grid "$dir" ;;
  run)
    grid "$dir/grids"
    sed -e "s|grid_file = '[^']*'|grid_file = 'grids/$NAME.x'|" -e "s|patch_file = '[^']*'|patch_file = 'grids/$NAME.bc'|" \
      -e "s|levels = [0-9]*|levels = $((3 + l))|" cases/naca0012_re5000.nml > "$dir/naca_$l.nml" || die "cannot write the deck"
    out=$dir/naca_$l
    "$BUILD/adiflow" "$dir/naca_$l.nml" --run-dir "$out" "$@" > "$out.log" 2>&1 || { tail -5 "$out.log" >&2; die "adiflow failed (log: $out.log)"; }
    grep -E "converged at|multigrid over" "$out.log"
    alpha=$(sed -n "s/.*freestream_alpha *= *\([-0-9.eE+]*\).*/\1/p" "$dir/naca_$l.nml" | head -n 1)
    awk -F, -v a="${alpha:-0}" '$3 == "wall" { r = a * atan2(0, -1) / 180
      printf "level '$l' ('$NA' x '$NJ' + wakes): cl %.5f  cd %.5f  (pressure %.5f, friction %.5f)\n", -$10 * sin(r) + $11 * cos(r),
        $10 * cos(r) + $11 * sin(r), $4 * cos(r) + $5 * sin(r), $7 * cos(r) + $8 * sin(r) }' "$out/forces.csv"
    # cf changes sign: the stagnation point near the leading edge, and the separations near the trailing edge
    awk -F, 'NR > 3 { if (n++ && (c > 0) != ($7 > 0)) printf "  cf changes sign between x = %.4f and %.4f (%s surface)\n", x, $3, ($4 > 0 ? "upper" : "lower"); c = $7; x = $3 }' \
      "$out"/wall_*_jmin.csv ;;
  *) die "the verb is grid or run, not '$verb'" ;;
esac

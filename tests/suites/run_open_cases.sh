#!/usr/bin/env bash
# The open-boundary cases on the CPU at the size CI affords (level 1 of
# validation/open_case.sh), each converged by FAS multigrid and compared with
# its published solution by build/open_flow_compare:
#  - plane channel, 64 x 16, Re = 20, Mach 0.05, inflow at total pressure and
#    outflow at static pressure: the developed profile and pressure gradient
#    within 1 % of Poiseuille's;
#  - flat plate, 64 x 32, Re_L = 1e5, Mach 0.2: cf within 2 % of Blasius'
#    0.664/sqrt(Re_x) over the middle half of the plate, the profile at
#    x = 0.75 within 2 % of f'(eta);
#  - cylinder, 64 x 48 O-grid, Re = 40, Mach 0.1, farfield 50 diameters away:
#    Cd and the separation angle within 3 % of Dennis & Chang (1970); the wake
#    length within 16 % at this size (it needs the finer grids of the study,
#    validation/RESULTS.md);
#  - free-stream preservation on each shipped grid (farfield all round, 30
#    degrees): the state after 10 iterations within 1e-12 of the start;
#  - the channel that stalled with the earlier inflow (the interior pressure
#    clamped at p0): 32 x 16, Re = 20, Mach 0.2, the default p0, single grid,
#    now 7 orders down.
# Ends with "N passed, N failed". About a minute on 2 cores.
set -u
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
T=$(mktemp -d /tmp/adiflow-open.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass+1)); echo "PASS $*"; }
bad()  { fail=$((fail+1)); echo "FAIL $*"; }
expect() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

# number after LABEL's "error" column in a compare.txt, in percent
err() { grep -F "$2" "$1" | sed -n 's/.*error *\([-0-9.]*\) %.*/\1/p' | head -n 1; }
within() { awk -v e="$1" -v t="$2" 'BEGIN { exit !(e != "" && e + 0 <= t && e + 0 >= -t) }'; }

BUILD=$B bash validation/open_case.sh run channel 1 "$T" --backend cpu > "$T/channel.out" 2>&1; rc=$?
sed 's/^/  /' "$T/channel.out"
C=$T/channel_1/compare.txt
expect '[ $rc = 0 ] && grep -q "converged at" "$T/channel_1.log"' "channel 64x16: converged by multigrid, and open_flow_compare within its 1 % (exit 0)"
expect 'within "$(err "$C" "profile:")" 1.0' "channel: the developed profile within 1 % of Poiseuille's 6 u_m eta(1-eta) (got $(err "$C" "profile:") %)"
expect 'within "$(err "$C" "dp/dx")" 1.0' "channel: the pressure gradient within 1 % of -12 mu u_m/H^2 (got $(err "$C" "dp/dx") %)"

BUILD=$B bash validation/open_case.sh run plate 1 "$T" --backend cpu > "$T/plate.out" 2>&1; rc=$?
sed 's/^/  /' "$T/plate.out"
C=$T/plate_1/compare.txt
expect '[ $rc = 0 ] && grep -q "converged at" "$T/plate_1.log"' "plate 64x32: converged by multigrid, and open_flow_compare within its 2 % (exit 0)"
expect 'within "$(err "$C" "cf against")" 2.0' "plate: cf within 2 % of Blasius over the middle of the plate (got $(err "$C" "cf against") %)"
expect 'within "$(err "$C" "profile:")" 2.0' "plate: the velocity profile within 2 % of Blasius' f'(eta) (got $(err "$C" "profile:") %)"
expect 'within "$(err "$C" "Blasius solution solved here")" 0.001' "plate: the Blasius equation solved by the tool gives f''(0) = 0.332057 (Schlichting's value)"

BUILD=$B bash validation/open_case.sh run cylinder 1 "$T" --backend cpu > "$T/cyl.out" 2>&1; rc=$?
sed 's/^/  /' "$T/cyl.out"
C=$T/cylinder_1/compare.txt
expect 'grep -q "converged at" "$T/cylinder_1.log"' "cylinder 64x48: converged by multigrid to its tolerance"
expect 'within "$(err "$C" "drag coefficient")" 3.0' "cylinder: Cd within 3 % of Dennis & Chang's 1.522 (got $(err "$C" "drag coefficient") %)"
expect 'within "$(err "$C" "separation angle")" 3.0' "cylinder: separation angle within 3 % of 53.8 degrees (got $(err "$C" "separation angle") %)"
expect 'within "$(err "$C" "wake length")" 16.0' "cylinder: wake length within 16 % of 2.345 at this size (got $(err "$C" "wake length") %)"

# free-stream preservation on the shipped grids (level 1 of each): farfield on every open face, the
# flow at 30 degrees; a uniform flow is a steady state of the discrete equations, so after 10
# iterations the state is the free stream it started from to round-off (compare_fields, relative
# 1e-12 per variable; the cylinder's cut joined without keys)
for c in channel plate cylinder; do
  BUILD=$B bash validation/open_case.sh grid $c 1 "$T/fs"
  g=$(ls "$T/fs" | sed -n "s/^${c}_\(.*\)\.x$/\1/p")
  if [ $c = cylinder ]; then printf 'jmin farfield\njmax farfield\n'; else printf 'imin farfield\nimax farfield\njmin farfield\njmax farfield\n'; fi > "$T/fs/$c.bc"
  printf "&adiflow\n  grid_file = '${c}_$g.x', patch_file = '$c.bc', freestream_alpha = 30.0, mach = 0.2\n  bc_kmin = 'periodic', bc_kmax = 'periodic'\n  max_iter = 10, monitor_interval = 10, write_plot = .false.\n/\n" > "$T/fs/$c.nml"
  "$B/adiflow" "$T/fs/$c.nml" --backend cpu --max-iter 0 --run-dir "$T/fs/start_$c" > "$T/fs/$c.log" 2>&1
  "$B/adiflow" "$T/fs/$c.nml" --backend cpu --run-dir "$T/fs/run_$c" >> "$T/fs/$c.log" 2>&1
  expect '"$B/compare_fields" "$T/fs/start_$c/field.dump" "$T/fs/run_$c/field.dump" --tol 1e-12 > "$T/fs/$c.cmp" 2>&1' \
    "free stream kept on the shipped $c grid ($g, farfield all round, 30 degrees): the state after 10 iterations within 1e-12 of the start"
done

# the formerly stalled channel: default p0 (the free stream's total pressure)
mkdir -p "$T/stall"
"$B/make_grid" channel --ni 32 --nj 16 --length 4 --height 1 --beta-y 1.5 -o "$T/stall/ch.x" > /dev/null
printf 'imin inflow\nimax outflow\njmin wall\njmax wall\n' > "$T/stall/ch.bc"
cat > "$T/stall/ch.nml" <<'EOF'
&adiflow
  grid_file = 'ch.x', patch_file = 'ch.bc'
  reynolds = 20.0, mach = 0.2
  bc_kmin = 'periodic', bc_kmax = 'periodic'
  cfl = 10.0, cfl_start = 2.0, cfl_ramp_iters = 200
  max_iter = 3000, tol = 1.0e-7, monitor_interval = 100
/
EOF
"$B/adiflow" "$T/stall/ch.nml" --backend cpu --run-dir "$T/stall/run" > "$T/stall.log" 2>&1
n=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/stall.log")
expect '[ -n "$n" ] && [ "$n" -le 1500 ]' "inflow/outflow channel at the default p0 converges 7 orders single-grid (the clamped inflow froze at 0.19; now iteration ${n:-none})"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# FAS multigrid (fortran/multigrid_*.f90) on the CPU reference: the level
# plan and its message, work-unit accounting, the key checks, convergence of
# the test decks and of the 2D Ghia decks to their own tolerance (make run's
# deck: tests/suites/run_tests.sh, which runs it anyway), the same steady
# state as the single-grid solver, and the same steady state with
# implicit_precision = 'single'. The GPU's bit-for-bit
# agreement is bench/device_multigrid.sh check (its transfer bodies are
# checked against the Fortran here too: build/test_multigrid_c_vs_fortran,
# in tests/suites/run_tests.sh). Ends with "N passed, N failed".
#
# The long runs start first, in the background, at most $JOBS (2) at a time,
# while the short checks run; each is made once: the multigrid run of the
# steady-state check is the double-precision run of the implicit_precision check.
set -u
cd "$(dirname "$0")/../.."
B=build
T=$(mktemp -d /tmp/adiflow-mg.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass+1)); echo "PASS $*"; }
bad()  { fail=$((fail+1)); echo "FAIL $*"; }
expect() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }
run() { # run DIR ARGS... -> output in $T/DIR.log, exit code echoed
  local d=$1; shift
  OMP_NUM_THREADS=${THREADS:-1} ./$B/adiflow "$@" --backend cpu --run-dir "$T/$d" > "$T/$d.log" 2>&1; echo $?
}
last() { grep -v '^#' "$T/$1/residual.dat" | tail -n 1; }
JOBS=${JOBS:-2}
start() { # start DIR ARGS...: run in the background, its exit code in $T/DIR.rc
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  ( run "$@" > "$T/$1.rc" ) &
}

# ---- the long runs, longest first (checked below, after the short ones) ----
long_runs() {
  for deck in cavity2d_re1000 cavity2d_re400 cavity2d_re100; do start "deck_$deck" cases/$deck.nml; done
  # 160 W-cycles of the 32^3 rieper cube tell the two coarse-level choices apart
  # (the deck's 220 were the study's; the gap opens from about 100 cycles on)
  sed "s/levels = 4, cycle = 'w'/levels = 4, cycle = 'w', coarse_roe_low_mach = 'fine'/" tests/cases/mg_cube32_rieper.nml > "$T/rie_fine.nml"
  start rie_plain tests/cases/mg_cube32_rieper.nml --max-iter 160
  start rie_fine "$T/rie_fine.nml" --max-iter 160
  # the 16x12x10 cube to a 10-order drop with mass_fix: multigrid in double and
  # single implicit precision (every cycle monitored: the cycle counts to 7 and
  # 10 orders are compared), single grid (every 50th iteration)
  sed -e 's/max_iter = 30, monitor_interval = 5/max_iter = 30000, tol = 1.0e-10, mass_fix = .true., monitor_interval = 1/' \
    tests/cases/mg_cube16.nml > "$T/prec.nml"
  sed -e 's/max_iter = 30, monitor_interval = 5/max_iter = 30000, tol = 1.0e-10, mass_fix = .true., monitor_interval = 50/' \
    tests/cases/mg_cube16.nml > "$T/steady.nml"
  start st_sg "$T/steady.nml" --mg-levels 1
  for p in double single; do start "pr_$p" "$T/prec.nml" --implicit-precision $p; done
  # low-Mach preconditioning: the preconditioned test cube and the same deck
  # without it, each to a 10-order drop with mass_fix
  sed -e 's/max_iter = 30, monitor_interval = 5/max_iter = 30000, tol = 1.0e-10, mass_fix = .true., monitor_interval = 10/' \
    tests/cases/mg_cube16_turkel.nml > "$T/pc_on.nml"
  sed -e "s/precondition = 'turkel', precondition_k = 1.0/precondition = 'none'/" "$T/pc_on.nml" > "$T/pc_off.nml"
  start pc_off "$T/pc_off.nml"
  start pc_on "$T/pc_on.nml"
  wait
}
long_runs &
long_pid=$!

# ---- the level plan: semi-coarsening where a count turns odd ----
rc=$(run cube tests/cases/mg_cube16.nml)
expect '[ $rc -eq 0 ] && grep -q "multigrid: 4 levels (16x12x10 > 8x6x5 > 4x3x5 > 2x3x5), W(1,1) cycle" "$T/cube.log"' \
  "16x12x10: 4 levels, i halves 3 times, j twice, k once, and the run says so"
expect 'grep -q "j stops coarsening at 3 cells (odd count); k stops coarsening at 5 cells (odd count)" "$T/cube.log"' \
  "the directions that stop coarsening are named"
# W(1,1), 2 coarsest iterations, weights 1, 1/8, 1/32, 1/64: 4.5 work units per cycle
expect '[ "$(last cube | awk "{print \$1, \$10}")" = "30 135.000" ]' \
  "work units: 30 W-cycles of 16x12x10 = 135.000 (4.5 per cycle: smoothing and residuals weighted by cells)"
rc=$(run many tests/cases/mg_cube16.nml --mg-levels 6 --max-iter 2)
expect '[ $rc -eq 0 ] && grep -q "asked for 6 levels, using 4: no direction of the 2x3x5 level" "$T/many.log"' \
  "more levels than the grid allows: stops at 4 and says why"
rc=$(run one tests/cases/mg_cube16.nml --mg-levels 1 --max-iter 10)
expect '[ $rc -eq 0 ] && ! grep -q "multigrid:" "$T/one.log" && [ "$(last one | awk "{print \$10}")" = "10.000" ]' \
  "--mg-levels 1: the single-grid solver, one work unit per iteration"

# ---- bad keys: exit 2 with the key, the value and what is allowed ----
badmg() { # NAME GROUP-TEXT EXPECTED-MESSAGE
  { sed -n '/^&adiflow/,/^\//p' tests/cases/mg_cube16.nml; echo "$2"; } > "$T/bad.nml"
  local rc; rc=$(run bad "$T/bad.nml")
  if [ "$rc" -eq 2 ] && grep -qF -- "$3" "$T/bad.log"; then ok "refused: $1"; else bad "refused: $1 (exit $rc: $(tail -n 1 "$T/bad.log"))"; fi
  rm -rf "$T/bad"
}
badmg "levels = 0" "&multigrid levels = 0 /" "levels (&multigrid) = 0 is out of range: allowed 1 to 6"
badmg "levels = 7" "&multigrid levels = 7 /" "levels (&multigrid) = 7 is out of range: allowed 1 to 6"
badmg "cycle = 'f'" "&multigrid cycle = 'f' /" 'cycle (&multigrid) = "f" is not allowed (use v or w)'
badmg "coarse_order = 3" "&multigrid coarse_order = 3 /" "coarse_order (&multigrid) = 3 is out of range: allowed 1 to 2"
badmg "coarse_roe_low_mach = 'half'" "&multigrid coarse_roe_low_mach = 'half' /" 'coarse_roe_low_mach (&multigrid) = "half" is not allowed (use one of: auto none fine)'
badmg "no smoothing at all" "&multigrid levels = 3, pre_smooth = 0, post_smooth = 0 /" "pre_smooth and post_smooth (&multigrid) are both 0"
badmg "levels = 'x'" "&multigrid levels = 'x' /" "levels"
badmg "unknown key" "&multigrid level = 3 /" "level"
rc=$(run badcl tests/cases/mg_cube16.nml --mg-levels two)
expect '[ $rc -eq 2 ] && grep -q -- "--mg-levels \"two\" is not an integer" "$T/badcl.log"' "refused: --mg-levels two"

# ---- low-Mach preconditioning: what it refuses ----
badpc() { # NAME SED-OF-THE-TURKEL-DECK EXPECTED-MESSAGE
  sed -e "$2" tests/cases/mg_cube16_turkel.nml > "$T/badpc.nml"
  local rc; rc=$(run badpc "$T/badpc.nml")
  if [ "$rc" -eq 2 ] && grep -qF -- "$3" "$T/badpc.log"; then ok "refused: $1"; else bad "refused: $1 (exit $rc: $(tail -n 1 "$T/badpc.log"))"; fi
  rm -rf "$T/badpc"
}
badpc "precondition with plain Roe" "s/roe_low_mach = 'rieper'/roe_low_mach = 'none'/" \
  "precondition = 'turkel' needs roe_low_mach = 'rieper'"
badpc "precondition with implicit_precision single" "s/precondition_k = 1.0/precondition_k = 1.0, implicit_precision = 'single'/" \
  "precondition = 'turkel' runs with implicit_precision = 'double' only"
badpc "precondition with plain Roe on the coarse levels" "s/coarse_order = 1/coarse_order = 1, coarse_roe_low_mach = 'none'/" \
  "coarse_roe_low_mach (&multigrid) = \"none\" does not go with precondition = 'turkel'"
badpc "precondition = 'weiss'" "s/precondition = 'turkel'/precondition = 'weiss'/" \
  'precondition = "weiss" is not allowed (use one of: none turkel)'
badpc "precondition_k = 0" "s/precondition_k = 1.0/precondition_k = 0.0/" "precondition_k = 0"

# ---- convergence: the test cavity and the 2D Ghia decks reach their tol ----
rc=$(run cav tests/cases/mg_cavity2d.nml)
expect '[ $rc -eq 0 ] && grep -q "converged at iteration" "$T/cav.log"' \
  "mg_cavity2d (24x24, V-cycles) converges to tol 1e-8 ($(last cav | awk '{print $1" cycles, "$10" work units"}'))"
wait $long_pid
for deck in cavity2d_re100 cavity2d_re400 cavity2d_re1000; do
  expect '[ "$(cat $T/deck_$deck.rc)" = 0 ] && grep -q "converged at iteration" "$T/deck_$deck.log"' \
    "shipped cases/$deck.nml reaches its own tol ($(grep -o 'converged at iteration.*' "$T/deck_$deck.log" | head -n 1))"
done

# ---- the low-Mach fix on the fine level only: 3D cycles that converge ----
# (the converged solution is the fine level's either way; on the coarse
# levels the fix leaves the correction too little dissipation)
drop() { last "$1" | awk '{print $8}'; }
expect '[ "$(cat $T/rie_plain.rc)" = 0 ] && grep -q "first-order coarse levels with plain Roe dissipation" "$T/rie_plain.log"' \
  "roe_low_mach = 'rieper' with multigrid: the run says the coarse levels keep plain Roe dissipation"
expect '[ "$(last rie_plain | awk "{print \$1}")" = 160 ] && awk -v d="$(drop rie_plain)" "BEGIN{exit !(d >= 1.5)}"' \
  "32^3 cube Re 400, rieper, W-cycles, plain Roe on the coarse levels: $(drop rie_plain) orders in 160 cycles (at least 1.5)"
expect '[ "$(cat $T/rie_fine.rc)" = 0 ] && [ "$(last rie_fine | awk "{print \$1}")" = 160 ] && awk -v d="$(drop rie_fine)" "BEGIN{exit !(d <= 1.25)}"' \
  "the same with the fix on the coarse levels too (coarse_roe_low_mach = 'fine'): stalls at $(drop rie_fine) orders in 160 cycles (at most 1.25; the reason for the default)"

# ---- the same steady state: multigrid and single grid to a 10-order drop ----
expect '[ "$(cat $T/pr_double.rc)$(cat $T/st_sg.rc)" = 00 ] && grep -q converged "$T/pr_double.log" && grep -q converged "$T/st_sg.log" \
  && $B/compare_fields "$T/pr_double/field.dump" "$T/st_sg/field.dump" --tol 1e-8 --quiet' \
  "16x12x10 cube, mass_fix, 10-order drop: multigrid and single-grid steady states agree to 1e-8 relative, every variable ($(last pr_double | awk '{print $10}') vs $(last st_sg | awk '{print $10}') work units)"
$B/compare_fields "$T/pr_double/field.dump" "$T/st_sg/field.dump" --tol 1 | sed -n '3,8p'

# ---- implicit_precision = 'single' (fortran/lu_adi.f90's header): the operator
# in single precision steers the same iterations to the same steady state ----
drop7() { awk '!/^#/ && $8 >= 7 { print $1; exit }' "$T/$1/residual.dat"; }
n7d=$(drop7 pr_double); n7s=$(drop7 pr_single)
n10d=$(last pr_double | awk '{print $1}'); n10s=$(last pr_single | awk '{print $1}')
relmax=$($B/compare_fields "$T/pr_double/field.dump" "$T/pr_single/field.dump" --tol 1 2>/dev/null \
  | awk 'NR >= 3 && NF >= 5 && $1 != "WITHIN" { if ($4 + 0 > m) m = $4 + 0 } END { printf "%.1e", m }')
expect '[ "$(cat $T/pr_double.rc)$(cat $T/pr_single.rc)" = 00 ] && grep -q "implicit operator (LU-ADI): single precision" "$T/pr_single.log" \
  && grep -q converged "$T/pr_double.log" && grep -q converged "$T/pr_single.log"' \
  "implicit_precision single: the 16x12x10 cube (W-cycles, mass_fix) converges to a 10-order drop, as double does"
expect '! cmp -s "$T/pr_double/field.dump" "$T/pr_single/field.dump" \
  && $B/compare_fields "$T/pr_double/field.dump" "$T/pr_single/field.dump" --tol 1e-10 --quiet' \
  "implicit_precision single: not bit-identical to double, and the same steady state to 1e-10 relative, every variable (measured: $relmax)"
expect '[ -n "$n7d" ] && [ -n "$n7s" ] && [ "$n7s" -le $((n7d + n7d/10 + 2)) ] && [ "$n10s" -le $((n10d + n10d/10 + 2)) ]' \
  "implicit_precision single: cycles to a 7-order drop: $n7d double, $n7s single; to 10 orders: $n10d double, $n10s single (single within 10 %)"

# ---- low-Mach preconditioning (fortran/low_mach_precond.f90): the same steady
# state in fewer cycles; the run says it is preconditioned and that the
# coarse levels keep the low-Mach fix ----
npc_on=$(last pc_on | awk '{print $1}'); npc_off=$(last pc_off | awk '{print $1}')
expect '[ "$(cat $T/pc_on.rc)$(cat $T/pc_off.rc)" = 00 ] && grep -q converged "$T/pc_on.log" && grep -q converged "$T/pc_off.log" \
  && grep -q "precondition turkel (K = 1, floor 0)" "$T/pc_on.log" && grep -q "coarse levels with the low-Mach fix too" "$T/pc_on.log"' \
  "precondition turkel: the 16x12x10 rieper cube (W(1,1), mass_fix) converges to a 10-order drop, and says it is preconditioned with the fix on the coarse levels"
expect '[ -n "$npc_on" ] && [ -n "$npc_off" ] && [ "$npc_on" -le $((npc_off / 2)) ]' \
  "precondition turkel: $npc_on W-cycles to a 10-order drop against $npc_off without (at most half)"
expect '$B/compare_fields "$T/pc_on/field.dump" "$T/pc_off/field.dump" --tol 1e-8 --quiet' \
  "precondition turkel: the same steady state as without, to 1e-8 relative, every variable"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

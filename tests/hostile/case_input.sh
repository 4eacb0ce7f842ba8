# Hostile case files and command lines (sourced by tests/suites/run_robustness.sh):
# a group hidden in a note, in a quoted value or after a BOM; numbers on the
# command line that a list-directed read would half-take; a flag given twice;
# physical values without meaning; messages that must say what they mean.

CI="$T/ci"   # run folder of the runs that must pass (--max-iter 0: the checks, no solve)
# a case file with the lines given (printf %b: \n between lines)
lines() { printf '%b\n' "$1" > "$2"; }

# ---- 1. a "&group" outside the groups: gfortran's namelist read would take it
lines "Notes: use &adiflow ni=10, nj=10, nk=10, max_iter=1 / on the cluster\n&adiflow\n$SMALL\n/" "$T/ci1.nml"
try "case input: a note holding &adiflow before the group is refused, naming the line" 2 \
  'line 1: "&adiflow" in a line of text outside the groups: the namelist reader would start a group there' \
  ./build/adiflow "$T/ci1.nml" --backend cpu --run-dir "$CI"
lines "&adiflow\n$SMALL\n/\nsee also &multigrid levels = 0 /" "$T/ci2.nml"
try "case input: a note holding &multigrid after the group is refused" 2 \
  'line 4: "&multigrid" in a line of text outside the groups' ./build/adiflow "$T/ci2.nml" --backend cpu --run-dir "$CI"
lines "&adiflow\n$SMALL\n/ then &gpu device = -3 /" "$T/ci3.nml"
try "case input: &gpu after the closing / on the same line is refused" 2 \
  'line 3: "&gpu" in a line of text outside the groups' ./build/adiflow "$T/ci3.nml" --backend cpu --run-dir "$CI"
lines "\$adiflow ni = 10, max_iter = 1 \$end\n&adiflow\n$SMALL\n/" "$T/ci4.nml"
try "case input: a \$adiflow group (gfortran's other group mark) is refused" 2 \
  'line 1: "\$adiflow" in a line of text outside the groups' ./build/adiflow "$T/ci4.nml" --backend cpu --run-dir "$CI"
lines "! notes: &adiflow ni = 10 / is fine after a !\nnotes & more, \$5 a run\n&adiflow\n$SMALL\n/" "$T/ci5.nml"
try "case input: & in a comment, or not before a name, is accepted" 0 "grid 8 x 6 x 4" \
  ./build/adiflow "$T/ci5.nml" --backend cpu --max-iter 0 --run-dir "$CI"
# the reader gets each group's own text: a group inside another group's quoted value is a value
lines "&adiflow\n$SMALL, title = 'see &gpu device = -3 / below'\n/" "$T/ci6.nml"
try "case input: &gpu inside a quoted title is not read as the &gpu group" 0 "adiflow: see &gpu device = -3 / below" \
  ./build/adiflow "$T/ci6.nml" --backend cpu --max-iter 0 --run-dir "$CI"
lines "&gpu\nmerged_steps = '&adiflow ni = 10, nj = 10 /'\n/\n&adiflow\n$SMALL\n/" "$T/ci7.nml"
try "case input: &adiflow inside a quoted &gpu value is not read as the &adiflow group" 0 "grid 8 x 6 x 4," \
  ./build/adiflow "$T/ci7.nml" --backend cpu --max-iter 0 --run-dir "$CI"
lines "&adiflow\n$SMALL, title = 'two\nlines'\n/" "$T/ci8.nml"
try "case input: a text value over two lines is refused" 2 "line 2: the text value of title in &adiflow has no closing ' on its line" \
  ./build/adiflow "$T/ci8.nml" --backend cpu --run-dir "$CI"
# a UTF-8 byte order mark (some editors write one) is skipped
printf '\xef\xbb\xbf&adiflow\n%s\n/\n' "$SMALL" > "$T/ci9.nml"
try "case input: a UTF-8 BOM before &adiflow is skipped" 0 "grid 8 x 6 x 4," \
  ./build/adiflow "$T/ci9.nml" --backend cpu --max-iter 0 --run-dir "$CI"

# ---- 2. command-line numbers, strictly; a flag once
for v in '5,abc' '5 abc' '5/' '' '0x10' '5.0'; do
  try "case input: --max-iter \"$v\" is refused" 2 "--max-iter \"$v\" is not an integer" \
    ./build/adiflow "$T/small.nml" --backend cpu --max-iter "$v" --run-dir "$CI"
done
try "case input: --max-iter beyond the integer range" 2 '--max-iter "99999999999" is out of range for an integer \(at most 2147483647\)' \
  ./build/adiflow "$T/small.nml" --backend cpu --max-iter 99999999999 --run-dir "$CI"
try "case input: --max-iter +3 (a sign is allowed)" 0 "done; outputs in" \
  ./build/adiflow "$T/small.nml" --backend cpu --max-iter +3 --run-dir "$CI"
try "case input: --mg-levels \"2,x\" is refused" 2 '--mg-levels "2,x" is not an integer' \
  ./build/adiflow "$T/small.nml" --backend cpu --mg-levels '2,x' --run-dir "$CI"
try "case input: --max-iter given twice is refused" 2 "option --max-iter is given twice; give each option once" \
  ./build/adiflow "$T/small.nml" --backend cpu --max-iter 5 --max-iter 6 --run-dir "$CI"
try "case input: --mg-levels given twice is refused" 2 "option --mg-levels is given twice" \
  ./build/adiflow "$T/small.nml" --mg-levels 1 --backend cpu --mg-levels 2 --run-dir "$CI"
try "case input: --backend given twice is refused" 2 "option --backend is given twice" \
  ./build/adiflow "$T/small.nml" --backend cpu --backend gpu --run-dir "$CI"

# ---- 3. physical values without meaning: the key, the value, the range and why
civ() { nml "$SMALL, $2" "$T/civ.nml"; try "case input: $1" 2 "$3" ./build/adiflow "$T/civ.nml" --backend cpu --run-dir "$CI"; }
civ "mach = 1e-8 (the flow never develops)" "mach = 1e-8" \
  "mach = 1E-8 is out of range: allowed 0.001 to 5 \(below lid Mach 0.001 the compressible solver's pseudo-time steps are dominated by the sound speed"
civ "freestream_alpha = 91 (beyond straight up)" "freestream_alpha = 91.0" \
  "freestream_alpha = 91 is out of range: allowed -90 to 90 \(degrees, in the x-y plane from x\)"
civ "freestream_beta = -1e300" "freestream_beta = -1e300" "freestream_beta = -1E\+300 is out of range: allowed -90 to 90"
civ "mach = 1e-300"      "mach = 1e-300"      "mach = 1E-300 is out of range: allowed 0.001 to 5"
civ "lx = 1e-300"        "lx = 1e-300"        "lx = 1E-300 is out of range: allowed 1E-6 to 1E\+6 \(lengths in units of the cavity size"
civ "ly = 1e7"           "ly = 1e7"           "ly = 1E\+7 is out of range: allowed 1E-6 to 1E\+6"
civ "lz = 1e-7"          "lz = 1e-7"          "lz = 1E-7 is out of range: allowed 1E-6 to 1E\+6"
civ "prandtl = 1e-300"   "prandtl = 1e-300"   "prandtl = 1E-300 is out of range: allowed 0.001 to 1000 \(real fluids lie between"
civ "prandtl = 1e4"      "prandtl = 1e4"      "prandtl = 10000 is out of range: allowed 0.001 to 1000"
civ "reynolds = 1e-300"  "reynolds = 1e-300"  "reynolds = 1E-300 is out of range: allowed 0.001 to 1E\+8 \(below Re 0.001 the flow is Stokes flow"
civ "reynolds = 2e8"     "reynolds = 2e8"     "reynolds = 2E\+8 is out of range: allowed 0.001 to 1E\+8"
civ "gamma = 1.000001"   "gamma = 1.000001"   "gamma = 1.000001 is out of range: allowed 1.01 to 3 \(gamma - 1 divides the internal energy"
civ "t_wall = 1e-300"    "t_wall = 1e-300"    "t_wall = 1E-300 is out of range: allowed 0.01 to 100 \(the wall temperature over"
civ "cfl = 1e-300"       "cfl = 1e-300"       "cfl = 1E-300 is out of range: allowed 0.001 to 10000 \(below 0.001 the pseudo-time steps"
civ "cfl_start = 1e-300" "cfl_start = 1e-300" "cfl_start = 1E-300 is out of range: allowed 0.001 to 10000"
# the bounds themselves are allowed: every decimal bound reads back as the one checked
nml "$SMALL, mach = 0.001, reynolds = 1e8, gamma = 1.01, prandtl = 1e3, lx = 1e-6, t_wall = 0.01, cfl = 1e4, cfl_start = 0.001" "$T/cib.nml"
try "case input: values at the inclusive bounds are accepted" 0 "done; outputs in" \
  ./build/adiflow "$T/cib.nml" --backend cpu --max-iter 0 --run-dir "$CI"
# every shipped deck still passes its checks (the 256-cell ones stop at the memory check, after them)
deck_bad=""
for d in cases/*.nml bench/cases/*.nml tests/cases/*.nml; do
  out=$(bash -c 'ulimit -v 1500000; exec timeout 120 ./build/adiflow "$1" --backend cpu --max-iter 0 --run-dir "$2"' _ "$d" "$T/deck" 2>&1); rc=$?
  [ $rc -eq 0 ] || { [ $rc -eq 2 ] && echo "$out" | grep -q "GiB of host memory"; } || deck_bad="$deck_bad $d($(echo "$out" | tail -1 | cut -c1-120))"
done
[ -z "$deck_bad" ] && ok "case input: every shipped deck passes the case checks" || bad "case input: decks refused:$deck_bad"

# ---- 4. messages that say what they mean
civ "a huge real is printed whole (no format overflow)" "limiter_k = 1e300" "limiter_k = 1E\+300 is out of range: must be > 0 and <= 1000$"
civ "an exclusive bound says > (limiter_k = 0)" "limiter_k = 0" "limiter_k = 0 is out of range: must be > 0 and <= 1000"
civ "an exclusive bound says > (sutherland_s = 0)" "sutherland_s = 0" "sutherland_s = 0 is out of range: must be > 0 and <= 10"
printf '&adiflow\n%s, nj = 2, nk = 2\n/\n&multigrid levels = 3 /\n' "ni = 8, max_iter = 0, write_plot = .false." > "$T/cimg.nml"
try "case input: a 2-cell direction stops coarsening at its smallest size, not for an odd count" 0 \
  "j stops coarsening at 2 cells \(the smallest size: halving would leave 1 cell, and a direction bounded by walls keeps at least 2\); k stops" \
  ./build/adiflow "$T/cimg.nml" --backend cpu --run-dir "$CI"
try "case input: ghia_compare --label without a value" 2 "ghia_compare: option --label needs a value" \
  ./build/ghia_compare u.csv gu.csv v.csv gv.csv 0.1 --label
try "case input: ghia_compare --exclude-v without a value" 2 "ghia_compare: option --exclude-v needs a value" \
  ./build/ghia_compare u.csv gu.csv v.csv gv.csv 0.1 --label L --exclude-v
try "case input: gridstudy --label without a value" 2 "gridstudy: option --label needs a value" ./build/gridstudy a b c --label
try "case input: gridstudy --out without a value" 2 "gridstudy: option --out needs a value" ./build/gridstudy a b c --out

# ---- the MPI driver: the same rules, its own flags and &parallel
if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
  MPI2="mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi"
  nml "ni = 8, nj = 8, nk = 4, max_iter = 2, write_plot = .false." "$T/cim.nml"
  lines "notes: &parallel npj = 3 /\n&adiflow\nni = 8, nj = 8, nk = 4, max_iter = 2, write_plot = .false.\n/" "$T/cimp.nml"
  try "case input, adiflow_mpi: a note holding &parallel is refused" 2 'line 1: "&parallel" in a line of text outside the groups' \
    $MPI2 "$T/cimp.nml" --backend cpu --run-dir "$CI"
  for f in "--npj 2,x" "--npk 1 x" "--chunks 4/" "--mg-levels 1,x" "--max-iter 2,abc"; do
    flag=${f%% *}; val=${f#* }
    try "case input, adiflow_mpi: $flag \"$val\" is refused" 2 "$flag \"$val\" is not an integer" \
      $MPI2 "$T/cim.nml" --backend cpu "$flag" "$val" --run-dir "$CI"
  done
  try "case input, adiflow_mpi: --npj given twice" 2 "option --npj is given twice" \
    $MPI2 "$T/cim.nml" --backend cpu --npj 1 --npj 2 --run-dir "$CI"
  try "case input, adiflow_mpi: npj < 0 names the value" 2 "npj = -1 is out of range: must be >= 0 \(0 = automatic\)" \
    $MPI2 "$T/cim.nml" --backend cpu --npj -1 --run-dir "$CI"
  try "case input, adiflow_mpi: pipeline_chunks beyond 100000 names the value" 2 \
    "pipeline_chunks = 100001 is out of range: allowed 0 to 100000 \(0 = automatic\)" \
    $MPI2 "$T/cim.nml" --backend cpu --chunks 100001 --run-dir "$CI"
  try "case input, adiflow_mpi: whole_cells below -1 names the value" 2 \
    "whole_cells = -2 is out of range: must be >= -1 \(-1 = automatic, 0 = none\)" \
    $MPI2 "$T/cim.nml" --backend cpu --whole-cells -2 --run-dir "$CI"
  nml "ni = 8, nj = 8, nk = 4, mach = 1e-8" "$T/cimm.nml"
  try "case input, adiflow_mpi: mach = 1e-8 is refused" 2 "mach = 1E-8 is out of range: allowed 0.001 to 5" \
    $MPI2 "$T/cimm.nml" --backend cpu --run-dir "$CI"
fi

# the threads key and --threads
nml "$SMALL, threads = -1" "$T/thr.nml"
try "case input: threads = -1 is out of range" 2 "threads = -1 is out of range" ./build/adiflow "$T/thr.nml" --run-dir "$T/v"
try "case input: --threads abc" 2 '--threads "abc" is not an integer' ./build/adiflow "$T/small.nml" --backend cpu --threads abc --run-dir "$T/v"
try "case input: --threads 2 sets the team's size" 0 "up to 2 OpenMP threads" \
  env OMP_NUM_THREADS=1 ./build/adiflow "$T/small.nml" --backend cpu --threads 2 --run-dir "$T/thr2"
nml "$SMALL, threads = 1" "$T/thr1.nml"
try "case input: threads = 1 in the case file beats OMP_NUM_THREADS" 0 "up to 1 OpenMP threads" \
  env OMP_NUM_THREADS=2 ./build/adiflow "$T/thr1.nml" --backend cpu --run-dir "$T/thr1"

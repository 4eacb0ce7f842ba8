#!/usr/bin/env bash
# The validation tools on recorded and synthetic inputs, no long solve (what
# CI runs; a few seconds):
#  1. the Albensoeder & Kuhlmann (2005) data in the repository: checksums, the
#     frame mapping of each row, no path outside the repository;
#  2. build/cube_compare: the A&K tables against themselves (zero profile
#     error; the tables' own parabola extrema within 1 % of the paper's), a
#     copy shifted by 0.01 (that error, and the bound deciding), synthetic
#     parabolas with the paper's extrema as vertices (0 % error) and scaled by
#     1.01 (1 % error), and bad inputs (exit 2, the message naming the file);
#  3. validation/run_cube.sh: bad arguments (exit 2 before any run), and
#     --reuse on a recorded "run" (the A&K tables as profiles): the page is
#     written, the recorded page only when a number changed;
#  4. validation/run_ghia.sh (REUSE=1 on recorded "runs": Ghia's tables as
#     profiles, into an empty folder): RESULTS.md is written, then left as it
#     is, date included, when the numbers are the same, and rewritten when one
#     changed;
#  5. the Makefile's GPU_BACKEND: a bad value is refused, and the one-line
#     note on how to skip the CUDA build when nvcc is there without a GPU.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
T=$(mktemp -d /tmp/adiflow-valtools.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass+1)); echo "PASS $*"; }
bad()  { fail=$((fail+1)); echo "FAIL $*"; }
expect() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }
A=validation/data/albensoeder_kuhlmann2005
RU=$A/cube_Re1000_u_vertical_centreline.csv; RV=$A/cube_Re1000_v_horizontal_centreline.csv; RX=$A/cube_Re1000_extrema.csv
CC=$B/cube_compare
for t in "$CC" "$B/ghia_compare"; do
  [ -x "$t" ] || { bad "$t is not built (make)"; echo "$pass passed, $fail failed"; exit 1; }
done

# ---- 1. the reference data ----
expect '(cd "$A" && sha256sum -c --quiet SHA256SUMS)' "A&K data: the checksums in $A/SHA256SUMS hold"
# Y = 0.5 - x_AK, U = v_AK (Table 5); X = y_AK + 0.5, V = -u_AK (Table 6), to the tables' 4 decimals
map_err() { awk -F, -v s="$2" -v o="$3" -v f="$4" 'NR > 1 && !/^#/ { n++
    if ((s * $3 + o - $1)^2 > 1.1e-8 || (f * $4 - $2)^2 > 1e-14) { print "row " NR ": " $0; bad = 1 } }
    END { if (n != 17) print "rows: " n; exit bad || n != 17 }' "$1"; }
expect 'map_err "$RU" -1 0.5 1' "A&K data: every row of the u table maps Y = 0.5 - x_AK, U = v_AK (17 rows)"
expect 'map_err "$RV" 1 0.5 -1' "A&K data: every row of the v table maps X = y_AK + 0.5, V = -u_AK (17 rows)"
expect 'grep -q "J. Comput. Phys. 206 (2005) 536-558" $A/README.md && grep -q "Tables 5 and 6" $A/README.md &&
        grep -q "PICT project" $A/README.md' "A&K data: the README cites the paper, its tables, and where the values were transcribed from"
shared="/work/""shared"
hits=$(grep -rlF "$shared" Makefile README.md validation cases tests scripts 2> /dev/null)
expect '[ -z "$hits" ]' "no file of the repository points at the shared data folder outside it${hits:+ ($hits)}"

# ---- 2. cube_compare ----
cut -d, -f1,2 "$RU" > "$T/u_ak.csv"; cut -d, -f1,2 "$RV" > "$T/v_ak.csv"
out=$("$CC" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 0.02 --label self 2>&1); rc=$?
expect '[ $rc -eq 0 ] && grep -q "^max |u - u_AK| = 0.00000, max |v - v_AK| = 0.00000" <<< "$out"' \
  "cube_compare: the A&K tables against themselves: zero profile error, exit 0 (got $rc)"
worst=$(sed -n 's/.*largest extremum error \([0-9.]*\) %.*/\1/p' <<< "$out")
expect 'awk -v w="$worst" "BEGIN { exit !(w > 0 && w < 1) }"' \
  "cube_compare: the tables' own parabola extrema lie within 1 % of the paper's (largest $worst %)"
expect '[ "$(grep -c "^MDE: | self |" <<< "$out")" -eq 3 ] && [ "$(grep -c "^MDP: | self |" <<< "$out")" -eq 2 ]' \
  "cube_compare: three extremum rows and two profile rows for the page"
# shifted: u + 0.01 at every interior row
awk -F, 'NR == 1 || $1 == 0 || $1 == 1 { print; next } { printf "%s,%.5f\n", $1, $2 + 0.01 }' "$T/u_ak.csv" > "$T/u_shift.csv"
out=$("$CC" "$T/u_shift.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 100 0.02 2>&1); rc=$?
expect '[ $rc -eq 0 ] && grep -q "^max |u - u_AK| = 0.01000, max |v - v_AK| = 0.00000" <<< "$out"' \
  "cube_compare: A&K's u shifted by 0.01: max |u - u_AK| = 0.01000, within 0.02 (exit $rc)"
out=$("$CC" "$T/u_shift.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 100 0.005 2>&1); rc=$?
expect '[ $rc -eq 1 ] && grep -q "FAIL$" <<< "$out" && grep -q "^MDP: .* u on .* 0.01000 | 0.005 | FAIL |" <<< "$out"' \
  "cube_compare: the same against a bound of 0.005: FAIL, exit 1 (got $rc)"
# synthetic profiles whose parabolas have the paper's extrema as vertices; SCALE multiplies the values
synth() { # SCALE OUT_U OUT_V
  awk -v s="$1" -v fu="$2" -v fv="$3" 'BEGIN {
    print "y,u" > fu; print "x,v" > fv
    for (i = 0; i <= 64; i++) { y = i / 64
      printf "%.17e,%.17e\n", y, s * (2 * (y - 0.12419)^2 - 0.2803833) > fu
      v = (y < 0.5) ? 0.2466511 - 3 * (y - 0.10913)^2 : -0.4350186 + 3 * (y - 0.90957)^2
      printf "%.17e,%.17e\n", y, s * v > fv } }'
}
synth 1 "$T/su.csv" "$T/sv.csv"
out=$("$CC" "$T/su.csv" "$RU" "$T/sv.csv" "$RV" "$RX" 0.001 10 2>&1); rc=$?
expect '[ $rc -eq 0 ] && [ "$(grep -Ec "^  (min u|max v|min v) .* 0\.000%$" <<< "$out")" -eq 3 ]' \
  "cube_compare: parabolas through the paper's extrema: the three found to 0.000 % (exit $rc)"
expect 'grep -Eq "^  min u +0\.12419 +-0\.28038 +0\.12419 +-0\.28038" <<< "$out" && grep -Eq "^  min v +0\.90957 +-0\.43502 +0\.90957 +-0\.43502" <<< "$out"' \
  "cube_compare: ... at the paper's positions"
synth 1.01 "$T/su.csv" "$T/sv.csv"
out=$("$CC" "$T/su.csv" "$RU" "$T/sv.csv" "$RV" "$RX" 2 10 2>&1); rc=$?
expect '[ $rc -eq 0 ] && [ "$(grep -Ec "^  (min u|max v|min v) .* 1\.000%$" <<< "$out")" -eq 3 ]' \
  "cube_compare: the same scaled by 1.01: each extremum 1.000 % off, within 2 % (exit $rc)"
out=$("$CC" "$T/su.csv" "$RU" "$T/sv.csv" "$RV" "$RX" 0.5 10 2>&1); rc=$?
expect '[ $rc -eq 1 ] && [ "$(grep -c "^MDE: .* 1.00 % | 0.5 % | FAIL |" <<< "$out")" -eq 3 ]' \
  "cube_compare: ... against a bound of 0.5 %: FAIL, exit 1 (got $rc)"
# a profile without an interior extremum (monotone u): FAIL, not bad input
awk 'BEGIN { print "y,u"; for (i = 0; i <= 8; i++) printf "%g,%g\n", i / 8, i / 8 }' > "$T/mono.csv"
out=$("$CC" "$T/mono.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 100 10 2>&1); rc=$?
expect '[ $rc -eq 1 ] && grep -q "no interior extremum" <<< "$out"' \
  "cube_compare: a monotone u profile: no interior extremum, FAIL with exit 1 (got $rc)"
# bad inputs: exit 2, the message naming the problem
bad_case() { # WHAT PATTERN ARGS...
  local what=$1 pat=$2; shift 2
  local o; o=$("$CC" "$@" 2>&1); local r=$?
  expect '[ $r -eq 2 ] && grep -q -- "$pat" <<< "$o"' "cube_compare, bad input: $what: exit 2 naming it (got $r: $(head -n 1 <<< "$o"))"
}
printf 'y,u\n0,0\n0.5,-0.2,7\n1,1\n' > "$T/three_cols.csv"
printf 'y,u\n0,0\n0.5,abc\n1,1\n' > "$T/nan.csv"
printf 'y,u\n0,0\n0.6,-0.2\n0.5,-0.1\n1,1\n' > "$T/order.csv"
: > "$T/empty.csv"
grep -v '^v_min' "$RX" > "$T/x_missing.csv"
{ cat "$RX"; echo "u_min,0.1,-0.3"; } > "$T/x_twice.csv"
sed 's/^v_max,.*/v_max,0.1,0/' "$RX" > "$T/x_zero.csv"
sed 's/^v_max,/w_max,/' "$RX" > "$T/x_name.csv"
bad_case "too few arguments" "usage:" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2
bad_case "a missing file" "cannot open $T/none.csv" "$T/none.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 0.02
bad_case "a folder" "$T is not a regular file" "$T" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 0.02
bad_case "three columns in our profile" "three_cols.csv: line 3 is not two finite numbers" \
  "$T/three_cols.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 0.02
bad_case "a value that is not a number" "nan.csv: line 3" "$T/u_ak.csv" "$RU" "$T/nan.csv" "$RV" "$RX" 2 0.02
bad_case "positions not increasing" "order.csv: line 4: position 0.5 does not increase" \
  "$T/order.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 0.02
bad_case "an empty file" "empty.csv holds fewer than 2 points" "$T/u_ak.csv" "$T/empty.csv" "$T/v_ak.csv" "$RV" "$RX" 2 0.02
bad_case "an extrema file without v_min" "x_missing.csv has no v_min row" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$T/x_missing.csv" 2 0.02
bad_case "an extremum given twice" "u_min is given twice" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$T/x_twice.csv" 2 0.02
bad_case "an extremum of value 0" "v_max = 0" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$T/x_zero.csv" 2 0.02
bad_case "an unknown extremum name" "x_name.csv: line .* is not" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$T/x_name.csv" 2 0.02
bad_case "a negative bound" "TOL_PCT must be a number >= 0" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" -1 0.02
bad_case "a bound that is not a number" "TOL_PROFILE must be" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 x
bad_case "an unknown option" "unknown argument --foo" "$T/u_ak.csv" "$RU" "$T/v_ak.csv" "$RV" "$RX" 2 0.02 --foo

# ---- 3. run_cube.sh ----
rc_of() { BUILD=$B REC_DIR="$T/rec" bash validation/run_cube.sh "$@" > "$T/cube.log" 2>&1; echo $?; }
expect '[ "$(rc_of --grid 12)" -eq 2 ] && grep -q "a multiple of 8" "$T/cube.log"' "run_cube.sh --grid 12: exit 2 before any run"
expect '[ "$(rc_of --grid 16 --backend cpu --run-root "$T/cube")" -eq 2 ] && grep -q "give --tol-extrema and --tol-profile" "$T/cube.log"' \
  "run_cube.sh --grid 16 without bounds: exit 2 (no recorded result to take them from)"
expect '[ "$(rc_of --backend foo)" -eq 2 ]' "run_cube.sh --backend foo: exit 2"
expect '[ "$(rc_of --frobnicate)" -eq 2 ]' "run_cube.sh with an unknown argument: exit 2"
# a recorded 64^3 "run": the case file the script would write, a log that
# says converged, A&K's tables as the profiles
d=$T/cube/n64; mkdir -p "$d" "$T/rec"
sed "s/title = '[^']*'/title = 'cube cavity Re=1000 validation 64^3'/" cases/cube_re1000_validate.nml > "$d/case.nml"
printf 'adiflow: recorded\n  backend: cpu (test)\nadiflow: converged at iteration 1600: recorded\n' > "$d/run.log"
echo 42 > "$d/wall_s"; cp "$T/u_ak.csv" "$d/centreline_u.csv"; cp "$T/v_ak.csv" "$d/centreline_v.csv"
r=$(rc_of --grid 64 --backend cpu --reuse --run-root "$T/cube")
expect '[ "$r" -eq 0 ] && grep -q "comparing the converged run" "$T/cube.log" && [ -f "$T/cube/CUBE_n64.md" ] && [ -f "$T/rec/CUBE.md" ]' \
  "run_cube.sh --reuse on a recorded 64^3 run: PASS, the page written, the recorded page made (exit $r)"
expect 'grep -q "^| 64^3 | min u | y = 0.12419 | -0.28038 |" "$T/rec/CUBE.md" && grep -q "^Convergence: 1600 W-cycles" "$T/rec/CUBE.md" &&
        grep -q "^Run: .*42 s of wall time" "$T/rec/CUBE.md"' "run_cube.sh: the page holds the extrema, the W-cycles and the time taken"
sed -i 's/^Run: .*/Run: 2000-01-01, 1 s of wall time on elsewhere, backend gpu./' "$T/rec/CUBE.md"; cp "$T/rec/CUBE.md" "$T/rec.before"
r=$(rc_of --grid 64 --backend cpu --reuse --run-root "$T/cube")
expect '[ "$r" -eq 0 ] && cmp -s "$T/rec/CUBE.md" "$T/rec.before" && grep -q "same results as recorded: left as it is" "$T/cube.log"' \
  "run_cube.sh: the same numbers again: the recorded page is left as it is, its Run: line included"
awk -F, 'NR == 6 { printf "%s,%.5f\n", $1, $2 + 0.001; next } { print }' "$T/u_ak.csv" > "$d/centreline_u.csv"
r=$(rc_of --grid 64 --backend cpu --reuse --run-root "$T/cube")
expect '! cmp -s "$T/rec/CUBE.md" "$T/rec.before" && grep -q "^max |u - u_AK| = 0.00100" "$T/rec/CUBE.md" && grep -q "updated $T/rec/CUBE.md" "$T/cube.log"' \
  "run_cube.sh: a number changed: the recorded page is rewritten"

# ---- 4. run_ghia.sh leaves RESULTS.md as it is when the numbers are the same ----
G=validation/data/ghia1982
mkdir -p "$T/gout"
for re in 100 400 1000; do
  d=$T/gruns/re$re; mkdir -p "$d"
  grep -v '^#' "$G/ghia1982_Re${re}_u_vertical_centerline.csv" > "$d/centreline_u.csv"
  grep -v '^#' "$G/ghia1982_Re${re}_v_horizontal_centerline.csv" > "$d/centreline_v.csv"
  mi=$(sed -e 's/!.*//' "cases/cavity2d_re$re.nml" | tr ',' '\n' | sed -n 's/^ *max_iter *= *\([0-9]*\).*/\1/p')
  printf '# recorded\n%8d 10.0 1e-9 1e-9 1e-9 1e-9 1e-9 7.20 0 0\n' "$mi" > "$d/residual.dat"
  printf '  backend: cpu (test)\nadiflow: converged at iteration %d\n' "$mi" > "$d/validate.log"
done
ghia() { REUSE=1 RUN_ROOT="$T/gruns" OUT="$T/gout" BUILD=$B bash validation/run_ghia.sh > "$T/ghia.log" 2>&1; echo $?; }
r=$(ghia)
expect '[ "$r" -eq 0 ] && grep -q "^Produced by .make validate. ([0-9-]*, " "$T/gout/RESULTS.md"' \
  "run_ghia.sh REUSE=1 on recorded runs: RESULTS.md written (exit $r)"
sed -i 's/^\(Produced by `make validate` (\)[0-9-]*, /\12000-01-01, /' "$T/gout/RESULTS.md"; cp "$T/gout/RESULTS.md" "$T/ghia.before"
r=$(ghia)
expect '[ "$r" -eq 0 ] && cmp -s "$T/gout/RESULTS.md" "$T/ghia.before" && grep -q "no file changed" "$T/ghia.log"' \
  "run_ghia.sh: the same numbers again: RESULTS.md keeps its content and date, no file changed"
awk -F, 'NR == 5 { printf "%s,%.5f\n", $1, $2 + 0.003; next } { print }' "$T/gruns/re100/centreline_u.csv" > "$T/u.csv" &&
  mv "$T/u.csv" "$T/gruns/re100/centreline_u.csv"
r=$(ghia)
expect '[ "$r" -eq 0 ] && ! grep -q "2000-01-01" "$T/gout/RESULTS.md" && grep -q "^| Re=100 | 0.00300 |" "$T/gout/RESULTS.md"' \
  "run_ghia.sh: a number changed: RESULTS.md rewritten with the new number and today's date"

# ---- 5. GPU_BACKEND ----
# as a user's top-level make: under `make test` the environment says MAKELEVEL=1,
# and the skip note is printed by a top-level make only
mk() { env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make "$@"; }
o=$(mk -n BUILD="$T/mk" GPU_BACKEND=foo 2>&1); r=$?
expect '[ $r -ne 0 ] && grep -q "GPU_BACKEND=foo: use cuda, hip or none" <<< "$o"' "make GPU_BACKEND=foo: refused, naming the values"
o=$(mk -n BUILD="$T/mk" GPU_BACKEND=none NVCC=/bin/true 2>&1)
expect '! grep -q "^/bin/true " <<< "$o" && grep -q "bridge_stub" <<< "$o" &&
        ! grep -q "GPU_BACKEND=none skips" <<< "$o"' "make GPU_BACKEND=none: no nvcc work, the CPU stub linked, no note"
o=$(mk -n BUILD="$T/mk" NVCC=/bin/true 2>&1)
if ls /dev/nvidia[0-9]* > /dev/null 2>&1; then
  expect '[ "$(grep -c "GPU_BACKEND=none skips" <<< "$o")" -eq 0 ]' "make with nvcc and a GPU: no note"
else
  expect '[ "$(grep -c "make GPU_BACKEND=none skips it" <<< "$o")" -eq 1 ]' \
    "make with nvcc and no GPU: one line says how to skip the CUDA build"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

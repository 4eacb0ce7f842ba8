#!/usr/bin/env bash
# make validate: quasi-2D cavity at Re = 100, 400, 1000 on 128x128 cells,
# centrelines against Ghia, Ghia & Shin (1982) (the tables in
# validation/data/ghia1982). Writes validation/RESULTS.md and
# validation/ghia_re*.png, and only when every case completed: the new files
# are written aside first and moved into place at the end, so a failed or
# interrupted validation leaves the tracked results as they were. A file
# whose content is the same as before (RESULTS.md but for its date, a plot
# byte for byte) is not rewritten: a validation that reproduces the recorded
# numbers leaves the checkout clean.
#
# About 9 minutes on 2 CPU cores; a few minutes with a GPU (--backend auto
# takes it when there is one).
#
# Environment:
#   RUN_ROOT=runs/validation  where the runs go (one folder per Reynolds number)
#   REUSE=1    compare the runs already in RUN_ROOT instead of running them
#              again; a run that stopped before its tolerance or its max_iter
#              (interrupted, diverged, another case) is not reused but run again
#   BUILD=build  the build folder (build/adiflow, build/ghia_compare)
#   CASE_DIR=cases  where cavity2d_re{100,400,1000}.nml are read
#   OUT=validation  where RESULTS.md and the plots go
#   OMP_NUM_THREADS as usual.
# Exit status: 0 all cases within their bounds, 1 a case failed or did not
# complete (the results are then left as they were), 2 bad inputs (checked
# before any run).
set -u
cd "$(dirname "$0")/.."
RUN_ROOT=${RUN_ROOT:-runs/validation}
B=${BUILD:-build}
CASE_DIR=${CASE_DIR:-cases}
OUT=${OUT:-validation}
G=validation/data/ghia1982
RES=(100 400 1000)

die() { echo "validate: error: $*" >&2; exit 2; }
tol_of() { case $1 in 1000) echo 0.03 ;; *) echo 0.02 ;; esac; }     # the issue's bounds
extra_of() { case $1 in 400) echo "--exclude-v 0.9063" ;; esac; }    # Ghia's Re=400 misprint
ref_u() { echo "$G/ghia1982_Re$1_u_vertical_centerline.csv"; }
ref_v() { echo "$G/ghia1982_Re$1_v_horizontal_centerline.csv"; }
# nml_value FILE KEY: the value of KEY = ... in a namelist file (empty if absent)
nml_value() {
  sed -e 's/!.*//' "$1" | tr ',' '\n' |
    sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*\([^[:space:]/]*\).*/\1/Ip" | tail -n 1 | tr 'dD' 'ee'
}

# ---- 1. inputs, before any long run ----
for tool in adiflow ghia_compare; do
  [ -x "$B/$tool" ] || die "$B/$tool not found: build it first (make, or make validate which builds it)"
done
[ -d "$G" ] || die "reference data folder $G is missing (it is part of the repository: git checkout $G)"
for re in "${RES[@]}"; do
  for f in "$(ref_u $re)" "$(ref_v $re)"; do
    [ -e "$f" ] || die "reference file $f is missing (git checkout $G)"
    [ -f "$f" ] || die "reference file $f is not a regular file"
    [ -r "$f" ] || die "reference file $f is not readable"
  done
done
if [ -f "$G/SHA256SUMS" ] && command -v sha256sum > /dev/null; then
  bad=$(cd "$G" && sha256sum -c --quiet SHA256SUMS 2>&1) ||
    die "reference data in $G is damaged or changed (checksums in $G/SHA256SUMS):"$'\n'"$bad"
fi
declare -A MAXIT TOLR NREF_U NREF_V
for re in "${RES[@]}"; do
  c=$CASE_DIR/cavity2d_re$re.nml
  [ -f "$c" ] && [ -r "$c" ] || die "case file $c is missing or not readable"
  MAXIT[$re]=$(nml_value "$c" max_iter); TOLR[$re]=$(nml_value "$c" tol)
  [[ ${MAXIT[$re]} =~ ^[0-9]+$ ]] || die "$c: cannot read max_iter (got '${MAXIT[$re]}')"
  [ -z "${TOLR[$re]}" ] && TOLR[$re]=0   # the solver's default: no tolerance, max_iter only
  awk -v t="${TOLR[$re]}" 'BEGIN { exit !(t + 0 == t && t >= 0 && t < 1) }' ||
    die "$c: cannot read tol (got '${TOLR[$re]}')"
  # the reference tables parse (ghia_compare of each table against itself)
  chk=$("$B/ghia_compare" "$(ref_u $re)" "$(ref_u $re)" "$(ref_v $re)" "$(ref_v $re)" 0 2>&1) ||
    die "reference data for Re=$re cannot be read:"$'\n'"$chk"
  NREF_U[$re]=$(grep -c '^  u(y) ' <<< "$chk"); NREF_V[$re]=$(grep -c '^  v(x) ' <<< "$chk")
done
plots=1
. validation/profile_plot.sh
if ! why=$(plot_tools_ok); then
  plots=0; echo "validate: note: $why: the plots are skipped (the table is still written)"
fi
mkdir -p "$RUN_ROOT" 2> /dev/null && [ -w "$RUN_ROOT" ] || die "cannot write in RUN_ROOT=$RUN_ROOT"
[ -d "$OUT" ] && [ -w "$OUT" ] || die "cannot write in $OUT"
STAGE=$(mktemp -d "$OUT/.validate-new.XXXXXX") || die "cannot write in $OUT"
trap 'rm -rf "$STAGE"' EXIT
trap 'exit 130' INT TERM

# run_state DIR RE: "ok: WHY" if the run in DIR completed (reached its
# tolerance, or ran to its case's max_iter), else "no: WHY"
run_state() {
  local d=$1 re=$2 c=$CASE_DIR/cavity2d_re$2.nml last it drop
  for f in residual.dat centreline_u.csv centreline_v.csv; do
    [ -s "$d/$f" ] || { echo "no: $d/$f is missing or empty"; return; }
  done
  [ "$c" -nt "$d/residual.dat" ] && { echo "no: $c changed after this run"; return; }
  last=$(grep -v '^#' "$d/residual.dat" | tail -n 1)
  it=$(awk '{print $1}' <<< "$last"); drop=$(awk '{print $8}' <<< "$last")
  [[ $it =~ ^[0-9]+$ ]] && awk -v x="$drop" 'BEGIN { exit !(x + 0 == x) }' ||
    { echo "no: the last line of $d/residual.dat is not a residual line: $last"; return; }
  if [ -f "$d/validate.log" ] && [ ! "$d/residual.dat" -nt "$d/validate.log" ] &&
     grep -q "converged at iteration" "$d/validate.log"; then
    echo "ok: converged at iteration $it (residual drop $drop orders, tol ${TOLR[$re]})"
  elif awk -v x="$drop" -v t="${TOLR[$re]}" 'BEGIN { exit !(t > 0 && x >= -log(t)/log(10) - 5e-4) }'; then
    echo "ok: converged at iteration $it (residual drop $drop orders, tol ${TOLR[$re]})"
  elif [ "$it" -eq "${MAXIT[$re]}" ]; then
    echo "ok: ran to max_iter = $it; residual drop $drop orders, tol ${TOLR[$re]} not reached"
  else
    echo "no: stopped at iteration $it of max_iter ${MAXIT[$re]} with a residual drop of $drop orders," \
      "short of tol ${TOLR[$re]} (interrupted, diverged or another case)"
  fi
}

declare -A TODO
for re in "${RES[@]}"; do
  TODO[$re]=1
  if [ "${REUSE:-0}" = 1 ]; then
    st=$(run_state "$RUN_ROOT/re$re" $re)
    if [ "${st%%:*}" = ok ]; then
      TODO[$re]=0; echo "validate: REUSE=1: reusing $RUN_ROOT/re$re (${st#ok: })"
    else
      echo "validate: REUSE=1: not reusing $RUN_ROOT/re$re: ${st#no: }; it runs again"
    fi
  fi
done

# ---- 2. runs, comparisons, plots (into $STAGE) ----
rows=(); details=(); iters=(); backends=(); incomplete=(); status=0
for re in "${RES[@]}"; do
  d=$RUN_ROOT/re$re
  if [ "${TODO[$re]}" = 1 ]; then
    echo "== running $CASE_DIR/cavity2d_re$re.nml --backend auto (see $d/residual.dat) =="
    mkdir -p "$d" && rm -f "$d/centreline_u.csv" "$d/centreline_v.csv" "$d/validate.log"
    "$B/adiflow" "$CASE_DIR/cavity2d_re$re.nml" --backend auto --run-dir "$d" 2>&1 | tee "$d/validate.log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then
      echo "validate: the run for Re=$re failed (exit $rc)"; incomplete+=("Re=$re: the run failed (exit $rc)")
      status=1; continue
    fi
  fi
  st=$(run_state "$d" $re)
  if [ "${st%%:*}" != ok ]; then
    echo "validate: Re=$re did not complete: ${st#no: }"; incomplete+=("Re=$re: ${st#no: }")
    status=1; continue
  fi
  be=$(grep -m 1 -o 'backend: [a-z]*' "$d/validate.log" 2> /dev/null | sed 's/backend: //')
  backends+=("${be:-unknown}")
  read -r -a extra <<< "$(extra_of $re)"
  res=$("$B/ghia_compare" "$d/centreline_u.csv" "$(ref_u $re)" "$d/centreline_v.csv" "$(ref_v $re)" \
        "$(tol_of $re)" "${extra[@]}" --label "Re=$re" 2>&1)
  grc=$?
  echo "$res" | grep -v '^MD:'
  if [ $grc -ge 2 ]; then
    echo "validate: Re=$re: the comparison could not be made"; incomplete+=("Re=$re: ghia_compare failed (exit $grc)")
    status=1; continue
  fi
  [ $grc -ne 0 ] && status=1
  rows+=("$(echo "$res" | sed -n 's/^MD: //p')")
  details+=("$res")
  iters+=("Re=$re: ${st#ok: }")
  if [ $plots = 1 ]; then
    why=$(profile_plot "$STAGE/ghia_re$re.png" \
      "Lid-driven cavity Re=$re, 128x128, Mach 0.1: adiflow vs Ghia et al. (1982)" 'Ghia 1982' \
      "$(ref_u $re)" "$(ref_v $re)" "$d" "${NREF_U[$re]}" "${NREF_V[$re]}")
    if [ -n "$why" ]; then
      echo "validate: Re=$re: the plot is not usable: $why"; incomplete+=("Re=$re plot: $why"); status=1
    fi
  fi
done

if [ ${#incomplete[@]} -gt 0 ]; then
  echo "validate: $OUT/RESULTS.md and the plots are left as they were; not every case completed:"
  printf '  - %s\n' "${incomplete[@]}"
  exit 1
fi

# ---- 3. RESULTS.md (staged, then moved into place with the plots) ----
out=$OUT/RESULTS.md
# the CPU-vs-GPU section (written by hand from device runs) is kept as it is
keep=""
[ -f "$out" ] && keep=$(sed -n '/^## CPU vs GPU/,$p' "$out")
be_list=$(printf '%s\n' "${backends[@]}" | sort -u | paste -sd/ -)
scheme_lim=$(nml_value $CASE_DIR/cavity2d_re100.nml limiter | tr -d "'\"")
[ "$scheme_lim" = venkat ] && scheme_lim="venkat, K = $(nml_value $CASE_DIR/cavity2d_re100.nml limiter_k)"
scheme_roe=$(nml_value $CASE_DIR/cavity2d_re100.nml roe_low_mach | tr -d "'\"")
{
  echo "# Validation: lid-driven cavity against Ghia, Ghia & Shin (1982)"
  echo
  echo "Produced by \`make validate\` ($(date -u +%Y-%m-%d), $(uname -m), ${be_list^^} backend)."
  echo "Quasi-2D cavity (one periodic cell in z), 128x128 cells clustered to the walls (tanh, beta 1.2),"
  echo "lid Mach 0.1, isothermal walls, MUSCL order 2 (limiter $scheme_lim, roe_low_mach $scheme_roe, as the decks say), CFL 10,"
  echo "FAS multigrid (W-cycles, 5 levels). Our profiles are interpolated"
  echo "linearly to Ghia's 17 stations; the bounds: 0.02 for Re = 100 and 400, 0.03 for Re = 1000."
  echo "Ghia's Re=400 v at x=0.9063 is a known misprint and is reported apart."
  echo "Reference data: validation/data/ghia1982 (Ghia, Ghia & Shin 1982, J. Comput. Phys. 48, Tables I and II)."
  echo
  echo "| case | max abs(u - u_Ghia) | max abs(v - v_Ghia) | bound | result | excluded station |"
  echo "|---|---|---|---|---|---|"
  for r in "${rows[@]}"; do echo "$r"; done
  echo
  echo "Convergence:"
  for i in "${iters[@]}"; do echo "- $i"; done
  echo
  if [ $plots = 1 ]; then
    echo "Profiles: validation/ghia_re100.png, ghia_re400.png, ghia_re1000.png."
  else
    echo "Profiles: not redrawn by this run (no gnuplot with pngcairo); validation/ghia_re*.png are from an earlier run."
  fi
  echo
  echo "## Station by station"
  for dtl in "${details[@]}"; do echo; echo '```'; echo "$dtl" | grep -v '^MD:'; echo '```'; done
  # (an if, not &&: the group's status is its last command's, and an empty
  # keep must not read as a failed write)
  if [ -n "$keep" ]; then echo; echo "$keep"; fi
} > "$STAGE/RESULTS.md" || { echo "validate: cannot write $STAGE/RESULTS.md"; exit 1; }
# A file whose content did not change is left as it is, so that a validation
# that reproduces the recorded numbers leaves a clean checkout: RESULTS.md is
# compared without its date (the only part that changes on every run), and a
# plot byte for byte (gnuplot's pngcairo output holds no time stamp).
undated() { sed 's/^\(Produced by `make validate` (\)[0-9]\{4\}-[0-9][0-9]-[0-9][0-9], /\1DATE, /' "$1"; }
changed=()
if [ $plots = 1 ]; then
  for re in "${RES[@]}"; do
    if cmp -s "$STAGE/ghia_re$re.png" "$OUT/ghia_re$re.png"; then continue; fi
    mv -f "$STAGE/ghia_re$re.png" "$OUT/ghia_re$re.png" || exit 1
    changed+=("$OUT/ghia_re$re.png")
  done
fi
if [ -f "$out" ] && [ "$(undated "$STAGE/RESULTS.md")" = "$(undated "$out")" ]; then
  echo "validate: $out: the same results as recorded ($(grep -m 1 -o '[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]' "$out")): left as it is"
else
  mv -f "$STAGE/RESULTS.md" "$out" || exit 1
  changed+=("$out")
fi
if [ ${#changed[@]} -gt 0 ]; then echo "wrote ${changed[*]}"; else echo "validate: no file changed"; fi
exit $status

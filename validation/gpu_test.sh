#!/usr/bin/env bash
# gpu_test.sh - CPU reference vs CUDA backend on the validation cases, on a
# GPU machine (`make gpu-test`; builds nothing: build first, here or there).
#
#   validation/gpu_test.sh [options] [CASE.nml ...]
#
# For each case (default: cases/cube32_gpu_check.nml, 32^3, 200 iterations)
# it runs build/adiflow with --backend cpu and --backend cuda and compares
# the two field.dump files with build/compare_fields:
#   strict build (build/STRICT exists, written by `make STRICT=1`, or STRICT=1
#   in the environment): tolerance 0, i.e. bit-identical, and the residual
#   histories (residual.dat, iteration/cfl/norm columns) must be identical;
#   otherwise: per-variable max|cpu-gpu|/max|cpu| <= 1e-12 (TOL=... overrides).
# Then, if compute-sanitizer is found (PATH or /usr/local/cuda/bin), memcheck,
# racecheck, initcheck and synccheck on the first case for 3 iterations.
#
# Options:
#   --seed128          add cases/seed128.nml (128^3, 2000 iterations; the CPU
#                      reference takes a long time: see --cpu-only / --ref)
#   --seed256          add cases/seed256x256x128.nml
#   --out DIR          where the runs go (default runs/gpu-test); a case's CPU
#                      reference in DIR/<case>/cpu is reused when complete
#                      (DIR/<case>/cpu.done), so a strict and a fast build
#                      compare against one CPU run
#   --cpu-only         only make the CPU references (no GPU needed; can run in
#                      the background while the GPU runs go on)
#   --gpu-only         only the GPU runs and comparisons; waits (up to
#                      --wait SECONDS, default 0) for the CPU references
#   --max-iter N       override the cases' max_iter (quick checks)
#   --no-sanitizer     skip compute-sanitizer
#   --sanitizer-only   only compute-sanitizer (no CPU references, no
#                      comparisons)
#   --no-timing        do not collect per-kernel CUDA-event times
#   --kernels K        GPU kernel family: split (default) or merged (the
#                      GPU runs' folders and logs get a -merged suffix)
# Environment: BUILD (default build), OMP_NUM_THREADS for the CPU runs
# (default: all cores), TOL, STRICT, KERNELS (as --kernels).
# Output: PASS/FAIL lines, "N passed, N failed", exit status 0 only if all
# passed; a summary (with the compare_fields tables and the GPU kernel
# timing) in DIR/summary-<mode>.txt.
set -u
cd "$(dirname "$0")/.."

B=${BUILD:-build}
OUTROOT=runs/gpu-test
CASES=()
EXTRA=()
CPU_ONLY=0; GPU_ONLY=0; SAN_ONLY=0; WAIT=0; MAXITER=""; SANITIZE=1; TIMING=1; KERNELS=${KERNELS:-split}
while [ $# -gt 0 ]; do
  case "$1" in
    --seed128) EXTRA+=(cases/seed128.nml) ;;
    --seed256) EXTRA+=(cases/seed256x256x128.nml) ;;
    --out) OUTROOT=$2; shift ;;
    --cpu-only) CPU_ONLY=1 ;;
    --gpu-only) GPU_ONLY=1 ;;
    --wait) WAIT=$2; shift ;;
    --max-iter) MAXITER=$2; shift ;;
    --no-sanitizer) SANITIZE=0 ;;
    --sanitizer-only) SANITIZE=1; CPU_ONLY=0; GPU_ONLY=1; SAN_ONLY=1 ;;
    --no-timing) TIMING=0 ;;
    --kernels) KERNELS=$2; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
    -*) echo "gpu_test.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) CASES+=("$1") ;;
  esac
  shift
done
[ ${#CASES[@]} -eq 0 ] && CASES=(cases/cube32_gpu_check.nml)
CASES+=(${EXTRA[@]+"${EXTRA[@]}"})

for f in "$B/adiflow" "$B/compare_fields"; do
  if [ ! -x "$f" ]; then
    echo "gpu_test.sh: $f is missing: build first (make, or make STRICT=1; BUILD=$B)" >&2
    exit 2
  fi
done
for c in "${CASES[@]}"; do
  [ -f "$c" ] || { echo "gpu_test.sh: case file $c not found" >&2; exit 2; }
done

if [ -f "$B/STRICT" ] || [ "${STRICT:-0}" = 1 ]; then
  MODE=strict
  TOL=${TOL:-0}
  if [ ! -f "$B/STRICT" ]; then
    echo "gpu_test.sh: warning: STRICT=1 asked, but $B/STRICT is missing: $B/adiflow was not built" \
         "with make STRICT=1, so bit-identity is not expected" >&2
  fi
else
  MODE=fast
  TOL=${TOL:-1e-12}
fi
THREADS=${OMP_NUM_THREADS:-$(nproc)}
mkdir -p "$OUTROOT"
SUMMARY=$OUTROOT/summary-$MODE$([ "$KERNELS" != split ] && echo "-$KERNELS").txt
: > "$SUMMARY"
pass=0; fail=0
say()  { echo "$*" | tee -a "$SUMMARY"; }
ok()   { pass=$((pass+1)); say "PASS $*"; }
bad()  { fail=$((fail+1)); say "FAIL $*"; }

ITER_ARGS=()
[ -n "$MAXITER" ] && ITER_ARGS=(--max-iter "$MAXITER")
KSUF=""; [ "$KERNELS" != split ] && KSUF="-$KERNELS"

say "gpu_test.sh: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
if [ "$MODE" = strict ]; then how=$(cat "$B/STRICT" 2>/dev/null || echo "no $B/STRICT marker!"); else how="nvcc with FMA contraction"; fi
say "  build $B ($MODE: $how)," \
    "tolerance $TOL, CPU runs with $THREADS OpenMP threads"
if command -v nvidia-smi > /dev/null 2>&1; then
  say "  $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
fi

# the time a run reports per iteration, from the last monitor line of its log
sec_per_iter() { awk '$1 ~ /^[0-9]+$/ && NF >= 9 { v = $9 } END { print v }' "$1"; }

cpu_ref() { # CASE -> DIR/<stem>/cpu, DIR/<stem>/cpu.done when complete
  local c=$1 stem d t0 t1 rc
  stem=$(basename "$c" .nml); d=$OUTROOT/$stem
  if [ -f "$d/cpu.done" ] && [ -f "$d/cpu/field.dump" ]; then
    say "  $stem: reusing the CPU reference in $d/cpu"
    return 0
  fi
  mkdir -p "$d"; rm -f "$d/cpu.done"
  t0=$(date +%s)
  OMP_NUM_THREADS=$THREADS "$B/adiflow" "$c" --backend cpu ${ITER_ARGS[@]+"${ITER_ARGS[@]}"} --run-dir "$d/cpu" > "$d/cpu.log" 2>&1
  rc=$?; t1=$(date +%s)
  if [ $rc -eq 0 ] && [ -f "$d/cpu/field.dump" ]; then
    echo "$MAXITER" > "$d/cpu.done"
    ok "$stem: CPU reference ($THREADS threads) in $((t1 - t0)) s, $(sec_per_iter "$d/cpu.log") s/iteration"
  else
    bad "$stem: CPU reference run failed (exit $rc): $(tail -3 "$d/cpu.log")"
    return 1
  fi
}

gpu_check() { # CASE
  local c=$1 stem d g t0 t1 rc out waited=0
  stem=$(basename "$c" .nml); d=$OUTROOT/$stem; g=$d/cuda-$MODE$KSUF
  mkdir -p "$d"
  t0=$(date +%s)
  if [ $TIMING -eq 1 ]; then
    ADIFLOW_GPU_TIMING=1 "$B/adiflow" "$c" --backend cuda --kernels "$KERNELS" ${ITER_ARGS[@]+"${ITER_ARGS[@]}"} --run-dir "$g" > "$g.log" 2>&1
  else
    "$B/adiflow" "$c" --backend cuda --kernels "$KERNELS" ${ITER_ARGS[@]+"${ITER_ARGS[@]}"} --run-dir "$g" > "$g.log" 2>&1
  fi
  rc=$?; t1=$(date +%s)
  if [ $rc -ne 0 ] || [ ! -f "$g/field.dump" ]; then
    bad "$stem: GPU run failed (exit $rc): $(tail -3 "$g.log")"
    return 1
  fi
  ok "$stem: GPU run in $((t1 - t0)) s, $(sec_per_iter "$g.log") s/iteration ($(grep -m1 'backend:' "$g.log" | sed 's/^ *backend: //'))"
  while [ ! -f "$d/cpu.done" ] && [ $waited -lt "$WAIT" ]; do sleep 5; waited=$((waited + 5)); done
  if [ ! -f "$d/cpu.done" ]; then
    bad "$stem: no complete CPU reference in $d/cpu (run without --gpu-only, or with --cpu-only first)"
    return 1
  fi
  if [ "$(cat "$d/cpu.done")" != "$MAXITER" ]; then
    bad "$stem: the CPU reference in $d/cpu was made with --max-iter '$(cat "$d/cpu.done")', not '$MAXITER'"
    return 1
  fi
  out=$("$B/compare_fields" "$d/cpu/field.dump" "$g/field.dump" --tol "$TOL" 2>&1); rc=$?
  echo "$out" | sed 's/^/    /' | tee -a "$SUMMARY"
  if [ $rc -eq 0 ]; then
    if [ "$TOL" = 0 ]; then ok "$stem: GPU field == CPU field, bit for bit"
    else ok "$stem: GPU field within $TOL of the CPU field (max|diff|/max|cpu| per variable)"; fi
  else
    bad "$stem: GPU field vs CPU field above tolerance $TOL (compare_fields exit $rc)"
  fi
  # residual histories: iteration, cfl, five norms, drop
  if [ -f "$d/cpu/residual.dat" ] && [ -f "$g/residual.dat" ]; then
    if [ "$MODE" = strict ]; then
      if cmp -s <(grep -v '^#' "$d/cpu/residual.dat" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}') \
                <(grep -v '^#' "$g/residual.dat" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'); then
        ok "$stem: residual history identical to the CPU's ($(grep -vc '^#' "$g/residual.dat") monitored iterations)"
      else
        bad "$stem: residual history differs from the CPU's"
      fi
    else
      say "    residual norms, max relative difference GPU vs CPU over the history: $(paste \
        <(grep -v '^#' "$d/cpu/residual.dat") <(grep -v '^#' "$g/residual.dat") | awk '
        { n = NF/2; for (c = 3; c <= 7; c++) { a = $c; b = $(c + n); d = a - b; if (d < 0) d = -d;
            m = (a < 0 ? -a : a); if (m > 0 && d/m > r) r = d/m } } END { printf "%.3e", r + 0 }')"
    fi
  fi
  if [ $TIMING -eq 1 ] && grep -q "GPU kernel times" "$g.log"; then
    awk '/GPU kernel times/ { p = 1 } /^adiflow: / { p = 0 } p' "$g.log" | sed 's/^/    /' >> "$SUMMARY"
  fi
}

sanitizers() {
  local cs stem tool log rc c=${CASES[0]}
  cs=$(command -v compute-sanitizer 2>/dev/null || true)
  [ -z "$cs" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && cs=/usr/local/cuda/bin/compute-sanitizer
  if [ -z "$cs" ]; then
    say "  compute-sanitizer not found (PATH, /usr/local/cuda/bin): sanitizer checks skipped"
    return 0
  fi
  stem=$(basename "$c" .nml)
  for tool in memcheck racecheck initcheck synccheck; do
    log=$OUTROOT/$stem/sanitizer-$tool-$MODE$KSUF.log
    mkdir -p "$OUTROOT/$stem"
    "$cs" --tool "$tool" --error-exitcode 99 "$B/adiflow" "$c"  --backend cuda --kernels "$KERNELS" --max-iter 3 \
      --run-dir "$OUTROOT/$stem/sanitizer-$tool$KSUF" > "$log" 2>&1
    rc=$?
    # racecheck reports "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
    # instead of an ERROR SUMMARY line
    if [ $rc -eq 0 ] && grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)" "$log"; then
      ok "$stem: compute-sanitizer $tool clean (3 iterations): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    else
      bad "$stem: compute-sanitizer $tool (exit $rc): $(grep -m3 -E 'ERROR SUMMARY|Error|error' "$log" | tr '\n' ' ')"
    fi
  done
}

if [ $GPU_ONLY -eq 0 ]; then
  for c in "${CASES[@]}"; do cpu_ref "$c"; done
fi
if [ $CPU_ONLY -eq 0 ]; then
  [ $SAN_ONLY -eq 1 ] || for c in "${CASES[@]}"; do gpu_check "$c"; done
  [ $SANITIZE -eq 1 ] && sanitizers
fi

say "$pass passed, $fail failed"
[ $fail -eq 0 ]

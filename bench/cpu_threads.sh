#!/usr/bin/env bash
# CPU runs under load: the whole `make run` case (cases/cavity_default.nml, to
# its tolerance) and a few W-cycles of the 64^3 cube (cases/cube64_re400.nml)
# with OMP_NUM_THREADS = 1 and 2, on the machine as it is and beside a CPU hog
# (one busy process per core but one: the machine at load "cores - 1 + the
# run"). Wall seconds of the whole process; the verdict per row is whether 2
# threads are at most 10 % slower than 1. Builds nothing (make first). Prints a
# table last; the full logs stay in $OUT or a temporary folder.
#   bash bench/cpu_threads.sh [--cycles N]
set -u
cd "$(dirname "$0")/.."
B=${ADIFLOW:-build/adiflow}   # ADIFLOW=path: another build, e.g. an older one to compare
[ -x "$B" ] || { echo "cpu_threads: $B is missing: run make first"; exit 2; }
CYCLES=3
while [ $# -gt 0 ]; do
  case $1 in
    --cycles) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "cpu_threads: --cycles needs a positive integer"; exit 2; }
              CYCLES=$2; shift 2 ;;
    *) echo "cpu_threads: unknown option \"$1\" (allowed: --cycles N)"; exit 2 ;;
  esac
done
W=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cpu_threads.XXXXXX")}
NCORE=$(nproc)
HOGS=$((NCORE > 1 ? NCORE - 1 : 1))
hog_pids=()
start_hogs() { for _ in $(seq $HOGS); do ( while :; do :; done ) & hog_pids+=($!); done; }
stop_hogs() { [ ${#hog_pids[@]} -gt 0 ] && kill "${hog_pids[@]}" 2>/dev/null; wait "${hog_pids[@]}" 2>/dev/null; hog_pids=(); }
trap stop_hogs EXIT

# wall seconds of one run (its exit status must be 0)
run() { # NAME THREADS ARGS...
  local name=$1 t=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=$t "$B" "$@" --backend cpu --run-dir "$W/$name" > "$W/$name.log" 2>&1 || { echo "FAILED"; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
rows=()
for load in idle hog; do
  [ $load = hog ] && start_hogs
  for c in cavity cube; do
    if [ $c = cavity ]; then args=(cases/cavity_default.nml); else args=(cases/cube64_re400.nml --max-iter "$CYCLES"); fi
    t1=$(run "${c}_${load}_1" 1 "${args[@]}")
    t2=$(run "${c}_${load}_2" 2 "${args[@]}")
    verdict=$(awk -v a="$t1" -v b="$t2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%s (2/1 = %.2f)", (b <= 1.1 * a ? "ok" : "SLOWER"), b / a; else print "run failed" }')
    rows+=("$(printf '%-28s %-5s %8s %8s   %s' "$c" "$load" "$t1" "$t2" "$verdict")")
  done
  [ $load = hog ] && stop_hogs
done
echo "cpu_threads: $(date -u +%F), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg), hog = $HOGS busy loop(s), cube: $CYCLES W-cycles of cases/cube64_re400.nml"
printf '%-28s %-5s %8s %8s   %s\n' "case" "load" "1 thr s" "2 thr s" "2 threads vs 1"
printf '%s\n' "${rows[@]}"

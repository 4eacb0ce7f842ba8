#!/usr/bin/env bash
# The host side under valgrind's memcheck: build/adiflow on the paths a run
# takes before, between and after its iterations (a multigrid start, a
# restart, a grid with open patches, a C-grid over blocks) and adiflow_mpi
# on 2 ranks with gathered coarse levels, each for an iteration or two. A
# read of an uninitialised value or an access outside an allocation fails
# the test; such a read once ended build/adiflow under compute-sanitizer on
# the GPU machine (the host-memory check read the multigrid plan before it
# was made). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=build
T=$(mktemp -d /tmp/adiflow-memcheck.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); echo "PASS $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
if ! command -v valgrind > /dev/null 2>&1; then
  echo "note: valgrind not found: the memcheck runs are skipped (apt-get install valgrind)"
  echo "0 passed, 0 failed"; exit 0
fi
make -s all mpi > /dev/null 2>&1 || { echo "FAIL cannot build (make all mpi)"; echo "0 passed, 1 failed"; exit 1; }
export OMP_NUM_THREADS=1
VG=(valgrind -q --error-exitcode=99 --suppressions=tests/suites/valgrind_mpi.supp)

# memcheck NAME COMMAND...: exit status 0 and no memcheck report
memcheck() {
  local name=$1; shift
  timeout 600 "$@" > "$T/$name.log" 2>&1; local rc=$?
  local n; n=$(grep -c '^==[0-9]*== ' "$T/$name.log")
  if [ "$rc" -eq 0 ] && [ "$n" -eq 0 ]; then
    ok "memcheck: $name"
  else
    bad "memcheck: $name (exit $rc, $n memcheck lines)"; grep '^==[0-9]*== ' "$T/$name.log" | head -20
  fi
}

cat > "$T/tiny.nml" <<EON
&adiflow
  title = 'memcheck cube', ni = 8, nj = 8, nk = 8, reynolds = 100.0, mach = 0.1
  max_iter = 2, monitor_interval = 1, write_tecplot = .false., write_plot = .false.
/
&multigrid
  levels = 2
/
EON
memcheck "cube 8^3, 2 levels, from rest" "${VG[@]}" ./$B/adiflow "$T/tiny.nml" --backend cpu --run-dir "$T/tiny"
memcheck "the same, restarted" "${VG[@]}" ./$B/adiflow "$T/tiny.nml" --backend cpu --run-dir "$T/tiny" \
  --restart --max-iter 3
memcheck "channel (grid file, open patches)" "${VG[@]}" ./$B/adiflow cases/channel_re20.nml --backend cpu \
  --max-iter 1 --run-dir "$T/channel"
memcheck "NACA 0012 C-grid (blocks)" "${VG[@]}" ./$B/adiflow cases/naca0012_re5000.nml --backend cpu \
  --max-iter 1 --run-dir "$T/naca"
if command -v mpirun > /dev/null 2>&1; then
  extra=""; [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ] && extra="--oversubscribe"
  memcheck "adiflow_mpi, 2 ranks, coarse levels gathered" mpirun --allow-run-as-root $extra -np 2 "${VG[@]}" \
    ./$B/adiflow_mpi tests/cases/mpi_mg_cube.nml --backend cpu --npj 2 --max-iter 2 --run-dir "$T/mpi"
else
  echo "note: mpirun not found: adiflow_mpi is not run under memcheck"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

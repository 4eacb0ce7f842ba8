#!/usr/bin/env bash
# Runs every test suite of the repository (the CFD solver's, then each
# module's that is present), shows their output, and closes with the sum of
# their "N passed, N failed" lines. Exit status non-zero if any suite failed.
set -u
cd "$(dirname "$0")/.."
total_pass=0; total_fail=0; status=0
suite() { # NAME COMMAND...
  local name=$1; shift
  echo "=== $name ==="
  local log; log=$(mktemp)
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local last; last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  rm -f "$log"
  if [ -z "$last" ]; then
    echo "suite $name printed no summary line (exit $rc)"; total_fail=$((total_fail+1)); status=1; return
  fi
  local p f; p=$(echo "$last" | awk '{print $1}'); f=$(echo "$last" | awk '{print $3}')
  total_pass=$((total_pass+p)); total_fail=$((total_fail+f))
  if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then status=1; fi
}
suite "adiflow CFD solver" bash tests/suites/run_tests.sh
[ -f tests/suites/run_accuracy.sh ] && suite "accuracy: grid-study analysis, low-Mach Roe (Mach independence)" bash tests/suites/run_accuracy.sh
[ -f tests/suites/run_validation_tools.sh ] && suite "validation tools: cube_compare and the A&K data, run_cube.sh, run_ghia.sh, GPU_BACKEND" bash tests/suites/run_validation_tools.sh
suite "FAS multigrid (CPU reference)" bash tests/suites/run_multigrid_tests.sh
suite "open boundaries: channel, flat plate, cylinder against published solutions" bash tests/suites/run_open_cases.sh
[ -f tests/suites/run_mpi_tests.sh ] && suite "adiflow MPI decomposition" bash tests/suites/run_mpi_tests.sh
suite "GPU blocks' MPI host-staged transport (2 ranks, host stand-in of the runtime)" bash tests/suites/run_block_transport.sh
suite "hostile input: adiflow, adiflow_mpi, compare_fields" bash tests/suites/run_robustness.sh
suite "host memory under valgrind: adiflow, adiflow_mpi" bash tests/suites/run_memcheck.sh
[ -f modules/wave/wave.mk ] && suite "wave2d module" make -s wave-test
[ -f modules/stencil3d/stencil3d.mk ] && suite "stencil3d module" make -s stencil3d-test
[ -f modules/ooc/ooc.mk ] && suite "out-of-core module" make -s ooc-test
[ -f modules/foam/foam.mk ] && suite "OpenFOAM plugin adiflowPCG" make -s foam-test
# after the module suites, which build the module programs it runs
[ -f tests/suites/hostile_modules.sh ] && suite "hostile input: wave2d, stencil3d, ooc" bash tests/suites/hostile_modules.sh
echo "=== all suites ==="
echo "$total_pass passed, $total_fail failed"
exit $status

#!/usr/bin/env bash
# On the GPU machine (builds nothing; no compiler, gnuplot or Python needed:
# bash, awk and the carried binaries). BUILD (default build) holds adiflow with
# the CUDA backend (and tune/ for the merged kernels); BUILD_STRICT (default
# build/strict) the strict build's adiflow and compare_fields, for "check".
#
#   bash bench/device_machstudy.sh check
#       roe_low_mach = 'rieper' on the GPU, strict build: the 32^3 check case
#       (bench/cases/cube32_rieper.nml, 200 iterations) bit-identical to the CPU,
#       split and merged kernels (validation/gpu_test.sh)
#   bash bench/device_machstudy.sh run [none|rieper]
#       the Mach-independence study at full size: the 64^3 cube, Re = 400, lid
#       Mach 0.3, 0.1, 0.03, each to a residual drop of 1e-7 (FAS multigrid, 5
#       levels, W-cycles), with the given roe_low_mach (default both);
#       validation/machstudy.sh --geometry cube.
#       Finished runs are kept (--reuse): one mode per call keeps each call
#       within the 10-minute limit, and a last call with both only compares.
#
# Results on stdout (the MACHSTUDY lines and the table); with OUT set, the
# table (machstudy.md), the logs and the centreline profiles of each run under
# $OUT/machstudy/ (the profiles are enough to redo the comparison elsewhere).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}; BS=${BUILD_STRICT:-build/strict}; K=${KERNELS:-merged}
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null
case "${1:-}" in
check)
  for k in split merged; do
    BUILD=$BS bash validation/gpu_test.sh --no-sanitizer --kernels $k --out /tmp/machcheck \
      bench/cases/cube32_rieper.nml 2>&1 | tee "$O/check_rieper_$k.log" | grep -E '^(PASS|FAIL)|passed'
  done
  ;;
run)
  modes=${2:-none,rieper}
  case $modes in none|rieper|none,rieper) ;; *) echo "usage: $0 run [none|rieper]" >&2; exit 2;; esac
  BUILD=$B bash validation/machstudy.sh --geometry cube --n 64 --re 400 --machs 0.3,0.1,0.03 --modes "$modes" \
    --tol 1e-7 --max-iter 20000 --mg-levels 5 --backend gpu --kernels "$K" --run-root /tmp/machstudy --reuse \
    --md "$O/machstudy.md"
  rc=$?
  for d in /tmp/machstudy/*/*_M*; do
    [ -d "$d" ] || continue
    t=$O/machstudy/$(basename "$(dirname "$d")")/$(basename "$d"); mkdir -p "$t"
    cp "$d"/case.nml "$d"/run.log "$d"/centreline_*.csv "$t"/ 2> /dev/null
  done
  exit $rc
  ;;
*) echo "usage: $0 check | run [none|rieper]" >&2; exit 2;;
esac

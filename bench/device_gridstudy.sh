#!/usr/bin/env bash
# On the GPU machine (builds nothing; bash, awk and the carried binaries:
# BUILD, default build, holds adiflow with the CUDA backend, tune/ and
# gridstudy): the grid-convergence study of the cube (issue targets: Re = 1000,
# 64^3 within 3 % and 128^3 within 1 % of the Richardson-extrapolated extrema,
# observed order 1.8..2.2 on 32/64/128).
#
#   bash bench/device_gridstudy.sh RE [GRIDS] [ROE_LOW_MACH] [LIMITER] [LIMITER_K]
#       RE: 100, 400 or 1000; GRIDS default 32,64,128 (add 256 where time
#       allows); ROE_LOW_MACH rieper (default, as the solver's) or none;
#       LIMITER venkat (default, as the solver's; LIMITER_K its threshold
#       constant, default 5 as the solver's), vanleer, vanalbada or minmod. Lid Mach 0.1, beta 1.2, each run to a
#       residual drop of 1e-7 with FAS multigrid (5 levels, W-cycles, as the
#       shipped cube decks; validation/gridstudy.sh --geometry cube).
#
# One call stays within the 10-minute limit (--time-limit TIME_LIMIT, default
# 540; lower it to run two studies in one call): a run that is
# stopped writes its restart, and the next call with the same arguments goes
# on from it (exit status 3 says "call again"; runs are kept in
# runs/gridstudy/ while the machine stays warm). With OUT set, the page, the
# logs and the centreline profiles go to $OUT/gridstudy/; fetched, they give
# the plots here: cp -r FETCHED/gridstudy/runs/* runs/gridstudy/ and
# bash validation/gridstudy.sh --analyse-only --geometry cube --re RE --grids GRIDS
# --roe-low-mach R --limiter L --mg-levels 5 --max-iter 20000 (the same case arguments).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}; K=${KERNELS:-merged}
O=${OUT:-/tmp/out}
re=${1:-}; grids=${2:-32,64,128}; roe=${3:-rieper}; lim=${4:-venkat}; limk=${5:-5}
case $re in 100|400|1000) ;; *) echo "usage: $0 RE [GRIDS] [none|rieper] [LIMITER] [LIMITER_K]  (RE: 100, 400, 1000)" >&2; exit 2;; esac
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null
mkdir -p "$O/gridstudy/runs"
# the study's tag (its runs' folder), named here once and handed to gridstudy.sh
tag=cube_M0.1_${roe}_${lim}
[ "$lim" = venkat ] && tag=${tag}_k$limk
BUILD=$B bash validation/gridstudy.sh --geometry cube --re "$re" --grids "$grids" --backend gpu --kernels "$K" \
  --roe-low-mach "$roe" --limiter "$lim" --limiter-k "$limk" --tol 1e-7 --max-iter 20000 --mg-levels 5 --reuse --time-limit "${TIME_LIMIT:-540}" \
  --tag "$tag" --out "$O/gridstudy"
rc=$?
for d in runs/gridstudy/$tag/re${re}_*; do
  [ -d "$d" ] || continue
  t=$O/gridstudy/runs/$tag/$(basename "$d"); mkdir -p "$t"
  cp "$d"/case.nml "$d"/run.log "$d"/centreline_*.csv "$t"/ 2> /dev/null
done
echo "device_gridstudy: exit $rc$([ $rc = 3 ] && echo ' (time limit: call again with the same arguments)')"
exit $rc

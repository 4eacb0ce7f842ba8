#!/usr/bin/env bash
# On a GPU machine, as a user would run it (builds nothing): the GPU backend's
# side of the robustness guarantees, then the strict build's bit-identity.
#   FAST=DIR STRICT_BUILD=DIR bash validation/device_robustness.sh
# FAST: a fast build (adiflow, compare_fields; default build), STRICT_BUILD: a
# STRICT=1 build (default build/strict). Prints PASS/FAIL lines and a table.
set -u
cd "$(dirname "$0")/.."
FAST=${FAST:-build}
SB=${STRICT_BUILD:-build/strict}
T=$(mktemp -d /tmp/adiflow-devrob.XXXXXX)
MNT=""
trap '[ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); echo "PASS $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
sum() { md5sum "$1" 2>/dev/null | cut -d' ' -f1; }

echo "gnuplot: $(command -v gnuplot || echo 'not installed')"
# 1. the default deck on the GPU ends with exit 0 whether or not gnuplot is there
t0=$(date +%s.%N)
timeout 300 "$FAST/adiflow" cases/cube64_re1000.nml --backend cuda --max-iter 600 --run-dir "$T/cube" > "$T/cube.log" 2>&1
rc=$?; t1=$(date +%s.%N)
tail -n 4 "$T/cube.log"
if command -v gnuplot > /dev/null; then want="done; outputs in"; else want="plot skipped \\(gnuplot not found\\)"; fi
[ $rc -eq 0 ] && grep -qE "$want" "$T/cube.log" && ok "cube64_re1000 --backend cuda: exit 0, plot handled ($want)" \
  || bad "cube64_re1000 --backend cuda: exit $rc"
# 2. hostile names on the GPU path
timeout 120 "$FAST/adiflow" cases/cube32_gpu_check.nml --backend cuda --max-iter 20 \
  --run-dir "$T/h/\$(touch $T/pwned)\"; touch $T/pwned; \"" > "$T/h.log" 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -e "$T/pwned" ] && ok "hostile run folder on the GPU path: exit 0, nothing ran" \
  || bad "hostile run folder on the GPU path (exit $rc)"
# 3. a full disk during the GPU run's final writes: exit 5, the previous restart kept
if mkdir -p "$T/mnt" && mount -t tmpfs -o size=6m tmpfs "$T/mnt" 2>/dev/null; then
  MNT=$T/mnt
  printf '&adiflow\nni = 32, nj = 32, nk = 16, max_iter = 20, monitor_interval = 10, write_tecplot = .false.\n/\n' > "$T/f.nml"
  "$FAST/adiflow" "$T/f.nml" --backend cuda --run-dir "$MNT/run" > "$T/f0.log" 2>&1
  s=$(sum "$MNT/run/restart.bin")
  head -c 100000000 /dev/zero > "$MNT/filler" 2>/dev/null
  timeout 120 "$FAST/adiflow" "$T/f.nml" --backend cuda --restart --max-iter 30 --run-dir "$MNT/run" > "$T/f1.log" 2>&1; rc=$?
  [ $rc -eq 5 ] && [ -n "$s" ] && [ "$(sum "$MNT/run/restart.bin")" = "$s" ] && grep -q "kept" "$T/f1.log" \
    && ok "full disk on the GPU path: exit 5, restart.bin kept" || bad "full disk on the GPU path (exit $rc): $(tail -1 "$T/f1.log")"
  rm -f "$MNT/filler"
  timeout 120 "$FAST/adiflow" "$T/f.nml" --backend cuda --restart --max-iter 30 --run-dir "$MNT/run" > "$T/f2.log" 2>&1 \
    && ok "full disk on the GPU path: the kept restart continues" || bad "the kept restart does not continue"
  umount "$MNT"; MNT=""
fi
# 3b. bad input found while the GPU's context is being made on its thread (adi_gpu_warm_start starts
# it once the grid is read): a patch file with an unknown kind, and --restart in a folder without a
# restart, end with exit 2 and their message, never a crash, five times each
printf 'imin wall\nimax bogus\n' > "$T/bad.bc"
sed "s|^&adiflow|\&adiflow\n  patch_file = '$T/bad.bc'|" cases/cube32_gpu_check.nml > "$T/bad.nml"
codes=""
for r in 1 2 3 4 5; do
  timeout 60 "$FAST/adiflow" "$T/bad.nml" --backend cuda --run-dir "$T/bad$r" > "$T/bad$r.log" 2>&1; codes="$codes$?"
  timeout 60 "$FAST/adiflow" cases/cube32_gpu_check.nml --backend cuda --restart --run-dir "$T/nore$r" > "$T/nore$r.log" 2>&1
  codes="$codes$?"
done
[ "$codes" = 2222222222 ] && grep -q '"bogus" is not a boundary kind' "$T/bad1.log" && grep -q "does not exist" "$T/nore1.log" \
  && ok "bad input during the GPU's warm-up: exit 2 with its message, 10 of 10" || bad "bad input during the GPU's warm-up: exit codes $codes"
# 4. the strict build still bit-identical to the CPU, split and merged (32^3 x 200)
for k in split merged; do
  out=$(BUILD=$SB KERNELS=$k timeout 500 bash validation/gpu_test.sh --no-sanitizer --out "$T/gt" 2>&1); rc=$?
  echo "$out" | grep -E "^(PASS|FAIL)" | sed "s/^/  [$k] /"
  [ $rc -eq 0 ] && ok "strict build, $k kernels: gpu_test.sh passed (bit-identical to the CPU)" \
    || bad "strict build, $k kernels: gpu_test.sh failed"
done
# 5. adiflow_mpi with more ranks on the node than it has GPUs (one rank per GPU): 'auto' says so and runs
# on the CPU, 'gpu' stops with exit 2 before a run folder, ADIFLOW_BLOCK_SHARE_GPU=1 lets them share
# (results only), and a multi-block grid's ranks, which cannot share, are refused with the reason
if [ -x "$FAST/adiflow_mpi" ] && command -v mpirun > /dev/null; then
  NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  NP=$((NGPU + 1))
  MPI="mpirun --allow-run-as-root --oversubscribe -np $NP"
  timeout 300 $MPI "$FAST/adiflow_mpi" cases/cube32_gpu_check.nml --max-iter 4 --run-dir "$T/ma" > "$T/ma.log" 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -q "ranks share a node with fewer GPUs" "$T/ma.log" && grep -q "backend: cpu" "$T/ma.log" \
    && ok "adiflow_mpi, $NP ranks on $NGPU GPU(s), backend auto: a note, then the CPU (exit 0)" \
    || bad "adiflow_mpi, $NP ranks on $NGPU GPU(s), backend auto (exit $rc): $(tail -n 2 "$T/ma.log" | tr '\n' ' ')"
  timeout 300 $MPI "$FAST/adiflow_mpi" cases/cube32_gpu_check.nml --backend gpu --max-iter 4 --run-dir "$T/mg" \
    > "$T/mg.log" 2>&1; rc=$?
  [ $rc -eq 2 ] && [ ! -e "$T/mg" ] && grep -q "one rank per GPU" "$T/mg.log" \
    && ok "adiflow_mpi, $NP ranks on $NGPU GPU(s), backend gpu: exit 2 before a run folder, the reason said" \
    || bad "adiflow_mpi, $NP ranks on $NGPU GPU(s), backend gpu (exit $rc): $(grep -m1 error "$T/mg.log")"
  timeout 300 $MPI -x ADIFLOW_BLOCK_SHARE_GPU=1 "$FAST/adiflow_mpi" cases/cube32_gpu_check.nml --backend gpu \
    --adi-mode exact --max-iter 4 --run-dir "$T/ms" > "$T/ms.log" 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -q "ranks taking turns on fewer GPUs" "$T/ms.log" \
    && ok "adiflow_mpi, $NP ranks sharing $NGPU GPU(s) (ADIFLOW_BLOCK_SHARE_GPU=1): runs on the GPUs (exit 0)" \
    || bad "adiflow_mpi, ranks sharing GPUs (exit $rc): $(tail -n 2 "$T/ms.log" | tr '\n' ' ')"
  # the NACA deck's C-grid in 3 blocks (made here: the device has no build's cases/grids)
  BUILD=$FAST bash validation/naca_case.sh grid 1 "$T/grids" > /dev/null 2>&1
  cp cases/naca0012_re5000.nml "$T/mb.nml"
  timeout 300 $MPI -x ADIFLOW_BLOCK_SHARE_GPU=1 "$FAST/adiflow_mpi" "$T/mb.nml" --backend gpu \
    --max-iter 2 --run-dir "$T/mb" > "$T/mb.log" 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q "multi-block grid cannot share" "$T/mb.log" \
    && ok "adiflow_mpi, a multi-block grid's $NP ranks on $NGPU GPU(s): refused (exit 2), they cannot share" \
    || bad "adiflow_mpi, multi-block ranks on fewer GPUs (exit $rc): $(grep -m1 error "$T/mb.log")"
fi
printf '\n| check | result |\n|---|---|\n'
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "| cube64_re1000, 600 GPU iterations incl. outputs | %.1f s |\n", b - a }'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

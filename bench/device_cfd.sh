#!/usr/bin/env bash
# On the GPU machine, builds nothing (carry build/ with the fast build in
# build/ and the strict one in build/strict/):
#   1. validation/gpu_test.sh, fast and strict builds, 32^3 x 200 iterations
#      (CPU vs GPU dumps, residual histories, compute-sanitizer)
#   2. seed 128^3, 2000 iterations on the GPU, strict and fast: the strict
#      dump's checksum is compared with the CPU reference's (run elsewhere:
#      pass REF_CHECKSUM=hex), fast vs strict compared to 1e-12
#   3. per-iteration times: GPU 128^3 and 256x256x128 (split kernels, with
#      per-kernel CUDA-event times), CPU 128^3 with 1 thread and all threads
# Prints a table last. Usage: bash bench/device_cfd.sh [quick]
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/cfd; rm -rf $W; mkdir -p $W $O
T=$W/table.txt; : > $T
row() { printf "%-62s %s\n" "$1" "$2" | tee -a $T; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a $T
csum() { od -An -t x8 -j $(( $(stat -c %s "$1") - 8 )) -N 8 "$1" | tr -d ' '; }
spi() { grep -E '^ +[0-9]+ ' "$1" | tail -n 1 | awk '{print $9}'; }

echo "== 1. gpu-test 32^3"
bash validation/gpu_test.sh --out $W/gt > $W/gt_fast.log 2>&1; row "gpu-test fast build (tol 1e-12), 32^3 x 200" "$(tail -n 1 $W/gt_fast.log)"
BUILD=build/strict bash validation/gpu_test.sh --out $W/gt > $W/gt_strict.log 2>&1; row "gpu-test strict build (bit-identical), 32^3 x 200" "$(tail -n 1 $W/gt_strict.log)"
grep -E "^(PASS|FAIL)" $W/gt_fast.log $W/gt_strict.log | sed 's|^.*/||'
cp $W/gt/summary-*.txt $O/ 2>/dev/null

ITER=2000; [ "${1:-}" = quick ] && ITER=200
echo "== 2. seed 128^3 x $ITER on the GPU"
build/strict/adiflow cases/seed128.nml --backend cuda --max-iter $ITER --run-dir $W/s128s > $W/s128s.log 2>&1
ADIFLOW_GPU_TIMING=1 build/adiflow cases/seed128.nml --backend cuda --max-iter $ITER --run-dir $W/s128f > $W/s128f.log 2>&1
row "128^3 strict GPU: s/iter" "$(spi $W/s128s.log)"
row "128^3 fast GPU: s/iter" "$(spi $W/s128f.log)"
row "128^3 strict GPU dump checksum (iteration $ITER)" "$(csum $W/s128s/field.dump)"
[ -n "${REF_CHECKSUM:-}" ] && row "128^3 CPU reference checksum" "$REF_CHECKSUM"
build/compare_fields $W/s128s/field.dump $W/s128f/field.dump --tol 1e-12 > $W/cmp128.txt 2>&1; rc=$?
cat $W/cmp128.txt
row "128^3 fast vs strict GPU, max rel <= 1e-12" "$([ $rc = 0 ] && echo PASS || echo FAIL) ($(grep -i 'max' $W/cmp128.txt | tail -n 1))"
sed -n '/kernel/,$p' $W/s128f.log | tail -n 40 > $O/kernels128.txt
cp $W/s128s/residual.dat $O/residual128_strict.dat; cp $W/s128f.log $O/s128_fast.log

echo "== 3. timings"
ADIFLOW_GPU_TIMING=1 build/adiflow cases/seed256x256x128.nml --backend cuda --max-iter 200 --run-dir $W/s256 > $W/s256.log 2>&1
row "256x256x128 fast GPU: s/iter (200 iterations)" "$(spi $W/s256.log)"
cp $W/s256.log $O/s256_fast.log
OMP_NUM_THREADS=1 build/adiflow cases/seed128.nml --backend cpu --max-iter 3 --run-dir $W/c1 > $W/c1.log 2>&1
row "128^3 CPU reference, 1 thread: s/iter" "$(spi $W/c1.log)"
OMP_NUM_THREADS=$(nproc) build/adiflow cases/seed128.nml --backend cpu --max-iter 5 --run-dir $W/cN > $W/cN.log 2>&1
row "128^3 CPU reference, $(nproc) threads: s/iter" "$(spi $W/cN.log)"
echo; echo "================ CFD device summary ================"; cat $T
cp $T $O/table_cfd.txt

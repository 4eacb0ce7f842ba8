#!/usr/bin/env bash
# The guard of a restructuring on the GPU machine (no behaviour
# change); builds nothing. Carry, in build/ on the device:
#   build/          the fast build (make all mpi): adiflow, adiflow_mpi, compare_fields, tune/
#   build/strict/   the strict build (make BUILD=build/strict STRICT=1 all mpi), with its STRICT marker
#   build/base/     adiflow (and tune/) of the fast build BEFORE the change, for the timing
#   build/mpilibs/  OpenMPI's Fortran bindings, where the machine lacks them
# Runs:
#   1. strict build bit-identical to the CPU reference, fast build within
#      1e-12: validation/gpu_test.sh on the 32^3 check deck with the split
#      and the merged family (compute-sanitizer on the first);
#      bench/device_multigrid.sh check (every level, both families);
#      bench/device_precision.sh check (implicit_precision = 'single')
#   2. seconds per iteration, single grid, 64^3 and 128^3, split and merged:
#      the build before the change and after it, alternating, two runs each;
#      and the whole 64^3 Re = 1000 deck to its tolerance (multigrid)
#   3. with two GPUs: bench/device_mpi.sh check (multi-GPU blocks)
# Prints a table last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/structure; rm -rf $W; mkdir -p $W $O
T=$O/table.txt; : > $T
row() { printf "%-72s %s\n" "$1" "$2" | tee -a $T; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee -a $T
ngpu=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)

# 1. identity
for fam in split merged; do
  BUILD=build/strict KERNELS=$fam bash validation/gpu_test.sh --out $W/gt-strict $([ $fam = merged ] && echo --no-sanitizer) \
    > $O/gpu_test_strict_$fam.log 2>&1
  row "strict gpu_test.sh cube32_gpu_check, $fam: bit-identical to the CPU" "$([ $? = 0 ] && echo PASS || echo FAIL)"
  BUILD=build KERNELS=$fam bash validation/gpu_test.sh --out $W/gt-fast --no-sanitizer > $O/gpu_test_fast_$fam.log 2>&1
  row "fast gpu_test.sh cube32_gpu_check, $fam: within 1e-12 of the CPU" "$([ $? = 0 ] && echo PASS || echo FAIL)"
done
OUT=$O bash bench/device_multigrid.sh check > $O/multigrid_check.log 2>&1
row "device_multigrid.sh check: $(grep -c PASS $O/multigrid_check.log) PASS, $(grep -c FAIL $O/multigrid_check.log) FAIL" \
  "$(grep -q FAIL $O/multigrid_check.log && echo FAIL || echo PASS)"
OUT=$O bash bench/device_precision.sh check > $O/precision_check.log 2>&1
row "device_precision.sh check: $(grep -c PASS $O/precision_check.log) PASS, $(grep -c FAIL $O/precision_check.log) FAIL" \
  "$(grep -q FAIL $O/precision_check.log && echo FAIL || echo PASS)"

# 2. timing: the last progress line's s/iter (counted after the first iteration)
s_iter() { awk '$1 ~ /^[0-9]+$/ && NF >= 9 {v = $9} END {print v}' "$1"; }
for n in 64 128; do
  # without the deck's preconditioning (a base build before it would refuse the key)
  sed -e "s/ni = 64, nj = 64, nk = 64/ni = $n, nj = $n, nk = $n/" -e '/^ *precondition *=/d' \
    -e 's/, pre_smooth = 1, post_smooth = 1//' cases/cube64_re1000.nml > $W/cube$n.nml
  for fam in split merged; do
    for rep in 1 2; do
      for b in base new; do
        exe=build/adiflow; [ $b = base ] && exe=build/base/adiflow
        $exe $W/cube$n.nml --backend cuda --kernels $fam --mg-levels 1 --max-iter 300 \
          --run-dir $W/t-$n-$fam-$b-$rep > $W/t-$n-$fam-$b-$rep.log 2>&1
        row "s/iter ${n}^3 single grid $fam, $b build (run $rep)" "$(s_iter $W/t-$n-$fam-$b-$rep.log)"
      done
    done
  done
done
for b in base new; do
  exe=build/adiflow; [ $b = base ] && exe=build/base/adiflow
  s=$(date +%s.%N)
  $exe cases/cube64_re1000.nml --backend cuda --kernels merged --run-dir $W/deck64-$b > $W/deck64-$b.log 2>&1
  e=$(date +%s.%N)
  row "cube64_re1000.nml as shipped (merged, multigrid), $b build: wall s, $(grep -o 'converged at iteration [0-9]*' $W/deck64-$b.log)" \
    "$(awk -v a=$s -v b=$e 'BEGIN {printf "%.2f", b - a}')"
done

# 3. multi-GPU blocks
if [ "$ngpu" -ge 2 ]; then
  OUT=$O bash bench/device_mpi.sh check > $O/mpi_check.log 2>&1
  row "device_mpi.sh check: $(grep -c PASS $O/mpi_check.log) PASS, $(grep -c FAIL $O/mpi_check.log) FAIL" \
    "$(grep -q FAIL $O/mpi_check.log && echo FAIL || echo PASS)"
fi
grep -h "FAIL" $O/*.log | head -20
echo "=== table"
cat $T

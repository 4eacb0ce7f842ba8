#!/usr/bin/env bash
# Grids from Plot3D files (grid_file) on the GPU machine; builds nothing.
# Carry build/ (fast: adiflow, compare_fields, make_grid, tune/) and
# build/strict/ (strict: adiflow, compare_fields, tune/, STRICT); the grids
# are made here by build/make_grid (a 128^3 grid is 51 MB: too big to carry).
#   1. strict build bit-identical to the CPU on a curvilinear 32^3 grid read
#      from a file (make_grid box: an interior distortion in every
#      direction), 200 iterations, split and merged (validation/gpu_test.sh)
#   2. seconds per iteration, single grid, 128^3: the curvilinear grid read
#      from a file against the generated box of the same size, split and
#      merged, two runs each (the target: within 10 %)
# Prints a table last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/gridfile; rm -rf $W; mkdir -p $W $O
T=$O/table_grid_file.txt; : > $T
row() { printf "%-72s %s\n" "$1" "$2" | tee -a $T; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -n 1 | tee -a $T
build/make_grid box --ni 32 --nj 32 --nk 32 -o $W/box32.x > /dev/null
printf "&adiflow\n  title = 'curvilinear 32^3 box from a Plot3D file'\n  grid_file = 'box32.x'\n  max_iter = 200\n/\n" > $W/box32.nml
for fam in split merged; do
  BUILD=build/strict KERNELS=$fam bash validation/gpu_test.sh --out $W/gt --no-sanitizer $W/box32.nml > $O/gf_strict_$fam.log 2>&1
  row "strict, grid from a file (32^3 box, 200 it.), $fam: bit-identical to the CPU" "$([ $? = 0 ] && echo PASS || echo FAIL)"
done
build/make_grid box --ni 128 --nj 128 --nk 128 -o $W/box128.x > /dev/null
printf "&adiflow\n  grid_file = 'box128.x'\n  reynolds = 1000.0\n/\n" > $W/file128.nml
printf "&adiflow\n  ni = 128, nj = 128, nk = 128\n  reynolds = 1000.0\n/\n" > $W/gen128.nml
s_iter() { awk '$1 ~ /^[0-9]+$/ && NF >= 9 {v = $9} END {print v}' "$1"; }
for fam in split merged; do
  for rep in 1 2; do
    for g in gen file; do
      build/adiflow $W/${g}128.nml --backend cuda --kernels $fam --mg-levels 1 --max-iter 300 \
        --run-dir $W/t-$fam-$g-$rep > $W/t-$fam-$g-$rep.log 2>&1
      row "s/iter 128^3 single grid $fam, $g (run $rep)" "$(s_iter $W/t-$fam-$g-$rep.log)"
    done
  done
done
head -n 3 $W/t-merged-file-1.log | tail -n 2
echo "=== table"
cat $T

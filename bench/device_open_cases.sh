#!/usr/bin/env bash
# The open-boundary cases on the GPU machine; builds nothing. Carry build/
# (fast: adiflow, compare_fields, make_grid, open_flow_compare) and
# build/strict/ (strict: adiflow, compare_fields, STRICT); the grids are made
# here by validation/open_case.sh (build/make_grid).
#   1. strict build, CPU against both GPU kernel families, bit for bit
#      (validation/gpu_test.sh: field.dump and the residual history) on the
#      three cases at level 1 with their multigrid levels, 60 cycles
#   2. compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on the
#      cylinder (the patch fill, the cut), 3 cycles
#   3. the grid study on the GPU (fast build, merged kernels): levels 1-3 of
#      each case with FAS multigrid, compared with the published solutions;
#      wall time of the whole process, cycles and work units
#   4. the same finest grids single-grid (--mg-levels 1), for the
#      multigrid's gain (each stopped after SINGLE_LIMIT seconds, default 150)
# Prints a table last. MODE=identity|study|single|all (default all; single:
# only the single-grid runs of 4).
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/opencases; rm -rf $W; mkdir -p $W $O
T=$O/table_open_cases.txt; : > $T
MODE=${MODE:-all}
row() { printf "%-78s %s\n" "$1" "$2" | tee -a $T; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -n 1 | tee -a $T
# a case's deck at level L in DIR (validation/open_case.sh deck), max_iter N
deck() {
  BUILD=build bash validation/open_case.sh deck $1 $2 $3 && sed -i "s|max_iter = [0-9]*|max_iter = $4|" $3/$1_$2.nml
}

if [ "$MODE" = identity ] || [ "$MODE" = all ]; then
  for c in channel plate cylinder; do
    mkdir -p $W/id-$c
    deck $c 1 $W/id-$c 60
    for fam in split merged; do
      BUILD=build/strict bash validation/gpu_test.sh --out $W/gt-$c --no-sanitizer --no-timing --kernels $fam \
        $W/id-$c/${c}_1.nml > $O/id_${c}_$fam.log 2>&1
      row "strict: $c level 1, multigrid, 60 cycles, $fam kernels vs CPU, bit for bit" \
        "$([ $? = 0 ] && echo PASS || echo FAIL)"
    done
  done
  BUILD=build bash validation/gpu_test.sh --out $W/san --sanitizer-only --max-iter 3 --kernels merged \
    $W/id-cylinder/cylinder_1.nml > $O/sanitizer_cylinder.log 2>&1
  row "compute-sanitizer (memcheck, racecheck, initcheck, synccheck): cylinder, merged" \
    "$([ $? = 0 ] && echo PASS || echo FAIL)"
  BUILD=build bash validation/gpu_test.sh --out $W/san2 --sanitizer-only --max-iter 3 --kernels split \
    $W/id-plate/plate_1.nml > $O/sanitizer_plate.log 2>&1
  row "compute-sanitizer: plate (every open kind but inflow), split" "$([ $? = 0 ] && echo PASS || echo FAIL)"
fi

if [ "$MODE" != identity ]; then   # study, single or all
  for c in channel plate cylinder; do
    for l in 1 2 3; do
      [ "$MODE" = single ] && break
      BUILD=build bash validation/open_case.sh run $c $l $O/open --backend gpu --kernels merged > $O/open_${c}_$l.out 2>&1
      rc=$?
      conv=$(grep -o 'converged at iteration [0-9]*.*work units' $O/open/${c}_$l.log | sed 's/: residual.*(/, /; s/ fine-grid work units/ WU/')
      wall=$(sed -n 's/.*adiflow wall time \([0-9.]* s\).*/\1/p' $O/open/${c}_$l.log)
      row "$c level $l, GPU merged, FAS: $wall, ${conv:-not converged}" \
        "$([ $rc = 0 ] && echo within || echo OUTSIDE)"
      grep ' reference ' $O/open/${c}_$l/compare.txt 2>/dev/null | sed 's/^/    /' | tee -a $T
    done
    # single grid on the finest level: as many iterations as it takes (up to 200000)
    mkdir -p $O/single
    deck $c 3 $O/single 200000
    # the channel's single grid diverges at its deck's CFL 10 on this grid (NaN by iteration 600):
    # single-grid figures take CFL 5 from 1 over 1000 iterations, the fastest tried that converges
    # a progress line fetches the state for the force history (7 ms each on these grids):
    # every 500 iterations instead of the deck's 20, so that the figure is the iterations'
    sed -i 's|monitor_interval = [0-9]*|monitor_interval = 500|' $O/single/${c}_3.nml
    [ $c = channel ] && sed -i 's|cfl = 10.0, cfl_start = 2.0, cfl_ramp_iters = 200|cfl = 5.0, cfl_start = 1.0, cfl_ramp_iters = 1000|' \
      $O/single/${c}_3.nml
    start=$(date +%s.%N)
    timeout ${SINGLE_LIMIT:-150} build/adiflow $O/single/${c}_3.nml --backend gpu --kernels merged --mg-levels 1 \
      --run-dir $O/single/${c}_3 > $O/single/${c}_3.log 2>&1
    end=$(date +%s.%N)
    conv=$(grep -o 'converged at iteration [0-9]*' $O/single/${c}_3.log)
    [ -n "$conv" ] || conv="not converged: $(awk '$1 ~ /^[0-9]+$/ && NF >= 9 {v = $1 " iterations, drop " $8} END {print v}' $O/single/${c}_3.log)"
    row "$c level 3, GPU merged, single grid$([ $c = channel ] && echo ' (CFL 5)'): $(awk -v a=$start -v b=$end 'BEGIN {printf "%.2f s", b - a}'), ${conv:-not converged}" \
      "-"
  done
fi
echo "=== table"
cat $T

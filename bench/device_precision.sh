#!/usr/bin/env bash
# implicit_precision = 'single' (fortran/lu_adi.f90's header) on the GPU
# machine; builds nothing (no compiler needed: bash, awk and the carried
# binaries). BUILD_STRICT (default build/strict) holds the strict build's
# adiflow and compare_fields (make BUILD=build/strict STRICT=1 all, tune/
# included); BUILD (default build) the fast build, for "speed".
#
#   bash bench/device_precision.sh check
#       strict build, split and merged kernels, single mode bit for bit
#       against the CPU (field.dump and residual history):
#       bench/cases/cube32_single.nml (the 32^3 check case, 200 iterations,
#       through validation/gpu_test.sh), then tests/cases/mg_cube16.nml with
#       implicit_precision = 'single' (W-cycles: the coarse levels' ADI with
#       the FAS forcing), and the double run of that deck differs from both
#   bash bench/device_precision.sh speed [N]
#       fast build, N^3 cube (default 128), 100 iterations: seconds per
#       iteration with implicit_precision double and single, both families
#   bash bench/device_precision.sh sanitize
#       fast build, single mode (float ADI storage), both families:
#       compute-sanitizer memcheck, racecheck, initcheck and synccheck on
#       bench/cases/cube32_single.nml, 3 iterations each
#   bash bench/device_precision.sh seed128 [CPU_DUMP]
#       strict build, cases/seed128.nml (128^3 x 2000) on the GPU, split and
#       merged, double and single: the data checksum of each field.dump
#       (compare_fields --info); with CPU_DUMP (the strict CPU run's
#       field.dump of the same precision, made where the cores are), the
#       single runs are compared with it bit for bit
#
# PASS/FAIL lines and a table on stdout; logs under $OUT (default /tmp/out).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}; BS=${BUILD_STRICT:-build/strict}
O=${OUT:-/tmp/out}; W=/tmp/precdev; mkdir -p "$O" $W
hist() { grep -v '^#' "$1" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null
pass=0; fail=0
ok()  { pass=$((pass+1)); echo "PASS $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }

# single_gpu_test BUILD MODE KERNELS TAG: validation/gpu_test.sh (MODE:
# --no-sanitizer or --sanitizer-only) on the single-mode check case; its
# PASS/FAIL lines shown and counted, no result at all a failure
single_gpu_test() {
  local log="$O/${4}_single_$3.log" p f
  BUILD=$1 bash validation/gpu_test.sh $2 --kernels $3 --out $W/gpu-test bench/cases/cube32_single.nml > "$log" 2>&1
  grep -E '^(PASS|FAIL)' "$log"
  p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log")
  pass=$((pass + p)); fail=$((fail + f))
  [ $((p + f)) -gt 0 ] || bad "single mode, $3, $4: no result ($(tail -n 1 "$log"))"
}

case "${1:-}" in
check)
  for k in split merged; do single_gpu_test "$BS" --no-sanitizer $k check; done
  # the multigrid deck in single mode: a case file with the key added
  sed "s/^&adiflow$/\&adiflow\n  implicit_precision = 'single'/" tests/cases/mg_cube16.nml > $W/mg_cube16_single.nml
  grep -q "implicit_precision = 'single'" $W/mg_cube16_single.nml || bad "could not write the single-mode deck"
  "$BS/adiflow" $W/mg_cube16_single.nml --backend cpu --run-dir $W/mg-cpu > $W/mg-cpu.log 2>&1
  "$BS/adiflow" tests/cases/mg_cube16.nml --backend cpu --run-dir $W/mg-cpu-double > $W/mg-cpu-double.log 2>&1
  for k in split merged; do
    "$BS/adiflow" $W/mg_cube16_single.nml --backend gpu --kernels $k --run-dir $W/mg-$k > "$O/mg_single_$k.log" 2>&1
    if grep -q "implicit operator (LU-ADI): single" "$O/mg_single_$k.log" \
       && "$BS/compare_fields" $W/mg-cpu/field.dump $W/mg-$k/field.dump --quiet > /dev/null 2>&1 \
       && cmp -s <(hist $W/mg-cpu/residual.dat) <(hist $W/mg-$k/residual.dat) \
       && ! cmp -s $W/mg-cpu-double/field.dump $W/mg-$k/field.dump; then
      ok "mg_cube16 (W-cycles), implicit_precision single, strict GPU $k == CPU (dump + residual history, bit for bit; differs from double)"
    else
      bad "mg_cube16 (W-cycles), implicit_precision single, strict GPU $k == CPU"
      "$BS/compare_fields" $W/mg-cpu/field.dump $W/mg-$k/field.dump --tol 1 2>&1 | tail -n 6
      tail -n 5 "$O/mg_single_$k.log"
    fi
  done
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]
  ;;
speed)
  n=${2:-128}
  cat > $W/speed.nml <<EON
&adiflow
  title = 'implicit precision speed ${n}^3'
  ni = $n, nj = $n, nk = $n
  beta_x = 1.2, beta_y = 1.2, beta_z = 1.2
  reynolds = 100.0, mach = 0.1
  cfl = 10.0, cfl_start = 1.0, cfl_ramp_iters = 50
  max_iter = 100, monitor_interval = 50
  write_vtk = .false., write_tecplot = .false., write_profiles = .false., write_plot = .false., write_dump = .false.
/
EON
  printf "%-8s %-8s %s\n" kernels precision "s/iteration (last monitor line)" | tee $O/speed.txt
  for k in split merged; do
    for p in double single; do
      "$B/adiflow" $W/speed.nml --backend gpu --kernels $k --implicit-precision $p --run-dir $W/speed-$k-$p \
        > "$O/speed_${k}_$p.log" 2>&1
      printf "%-8s %-8s %s\n" $k $p "$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { v = $9 } END { print v }' "$O/speed_${k}_$p.log")" \
        | tee -a $O/speed.txt
    done
  done
  ;;
sanitize)
  for k in split merged; do single_gpu_test "$B" --sanitizer-only $k sanitize; done
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]
  ;;
seed128)
  cpu=${2:-}
  for p in double single; do
    for k in split merged; do
      "$BS/adiflow" cases/seed128.nml --backend gpu --kernels $k --implicit-precision $p --run-dir $W/s128-$k-$p \
        > "$O/seed128_${k}_$p.log" 2>&1 || { bad "seed128 $k $p: the run failed"; continue; }
      echo "seed128 strict GPU $k $p, 2000 iterations: $("$BS/compare_fields" --info $W/s128-$k-$p/field.dump | grep -i checksum)"
    done
    if cmp -s $W/s128-split-$p/field.dump $W/s128-merged-$p/field.dump; then ok "seed128 $p: split == merged (field.dump)"
    else bad "seed128 $p: split and merged differ"; fi
  done
  if [ -n "$cpu" ]; then
    for k in split merged; do
      if cmp -s "$cpu" $W/s128-$k-single/field.dump; then ok "seed128 single: strict GPU $k == CPU ($cpu), bit for bit"
      else bad "seed128 single: strict GPU $k differs from $cpu"; fi
    done
  fi
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]
  ;;
*) echo "usage: $0 check | speed [N] | sanitize | seed128 [CPU_DUMP]" >&2; exit 2;;
esac

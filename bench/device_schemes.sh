#!/usr/bin/env bash
# On the GPU machine (builds nothing: BUILD, default build, holds adiflow with
# the CUDA backend and tune/): time per iteration of the convective schemes,
# cube Re = 100, lid Mach 0.1, merged kernels, double, CUDA graph, 1000
# iterations (the s/iteration column of the last monitor line), at 128^3 and
# 64^3: the seed's vanalbada + none, vanleer + rieper and the defaults venkat +
# rieper (limiter_k 5), each run twice.
#
#   bash bench/device_schemes.sh
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
W=$(mktemp -d /tmp/schemes.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -x "$B/adiflow" ] || { echo "device_schemes: $B/adiflow not found: build first" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for n in 128 64; do
  for combo in "vanalbada none" "vanleer rieper" "venkat rieper" "vanalbada none" "vanleer rieper" "venkat rieper"; do
    set -- $combo
    cat > $W/c.nml <<EON
&adiflow
  title = 'scheme speed'
  ni = $n, nj = $n, nk = $n
  beta_x = 1.2, beta_y = 1.2, beta_z = 1.2
  reynolds = 100.0, mach = 0.1, limiter = '$1', roe_low_mach = '$2'
  cfl = 10.0, cfl_start = 1.0, cfl_ramp_iters = 50
  max_iter = 1000, monitor_interval = 250
  write_vtk = .false., write_tecplot = .false., write_profiles = .false., write_plot = .false., write_dump = .false.
/
EON
    "$B/adiflow" $W/c.nml --backend gpu --kernels merged --run-dir $W/r > $W/log 2>&1 \
      || { echo "device_schemes: adiflow failed ($1 + $2, $n^3):" >&2; tail -n 5 $W/log >&2; exit 1; }
    printf "%4s %-10s %-7s %s\n" $n $1 $2 "$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { v = $9 } END { print v }' $W/log) s/iteration"
  done
done

#!/usr/bin/env bash
# What holds the multigrid cycle back, measured: the 64^3 cube at Re = 1000
# (the shipped deck's grid, scheme and tolerance: cases/cube64_re1000.nml,
# default scheme rieper + venkat) to a 7-order drop with one knob of the
# cycle or the pseudo-time step changed at a time against the shipped
# settings, and single grid beside it. Whole process wall seconds, cycles,
# work units, the mean factor per cycle. On the GPU machine; builds nothing
# (BIN: the folder holding adiflow, default build).
#   [RE=400] bash bench/device_mg_sweep.sh [N [NAME...]]   (N: grid, default 64; NAMEs: only those variants)
#   LIMITER, LIMK: the limiter and its K (default venkat, 5); PCFLOOR: precondition_floor (default 0);
#   BETA: the wall clustering (default 1.2)
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-build}
N=${1:-64}
RE=${RE:-1000}
[ $# -gt 0 ] && shift
ONLY=" $* "
O=${OUT:-/tmp/out}; W=/tmp/mgsweep; mkdir -p "$W" "$O"
T=$W/table.txt; : > "$T"
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$T"

# deck NAME CFL RAMP LEVELS CYCLE PRE POST COARSE ORDER_C CRLM PC K [MAXIT]
# (PC: precondition none or turkel, K: precondition_k)
deck() {
  cat > "$W/$1.nml" <<EON
&adiflow
  title = '$1'
  ni = $N, nj = $N, nk = $N
  beta_x = ${BETA:-1.2}, beta_y = ${BETA:-1.2}, beta_z = ${BETA:-1.2}
  reynolds = $RE, mach = 0.1
  order = 2, limiter = '${LIMITER:-venkat}', limiter_k = ${LIMK:-5.0}, roe_low_mach = 'rieper'
  precondition = '${11}', precondition_k = ${12}, precondition_floor = ${PCFLOOR:-0}
  cfl = $2, cfl_start = 1.0, cfl_ramp_iters = $3
  max_iter = ${13:-2500}, tol = 1.0e-7, monitor_interval = 10
  write_vtk = .false., write_tecplot = .false., write_plot = .false., kernels = 'merged'
/
&multigrid
  levels = $4, cycle = '$5', pre_smooth = $6, post_smooth = $7, coarse_smooth = $8, coarse_order = $9,
  coarse_roe_low_mach = '${10}'
/
EON
}
run() {
  local name=$1 t0 t1 last
  t0=$(date +%s.%N)
  "$BIN/adiflow" "$W/$name.nml" --backend gpu --run-dir "$W/$name" > "$W/$name.log" 2>&1
  t1=$(date +%s.%N)
  last=$(grep -v '^#' "$W/$name/residual.dat" | tail -n 1)
  printf '%-34s %s  wall %6.1f s  %s  %s\n' "$name" \
    "$(echo "$last" | awk '{printf "cycles %5d  drop %5.2f  work %8.0f", $1, $8, $10}')" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" \
    "$(grep -q 'converged at iteration' "$W/$name.log" && echo converged || echo NOT)" \
    "$(grep -E '^ +[0-9]+ ' "$W/$name.log" | tail -n 1 | awk '{print "factor", $NF}')" | tee -a "$T"
  mkdir -p "$W/keep/$name"; cp "$W/$name/residual.dat" "$W/$name/centreline_"*.csv "$W/keep/$name/" 2>/dev/null
}
#      name                    cfl  ramp lev cyc pre post crs ord crlm pc k
V=(
  "base                        10  200  5  w  1  1  2  1  none  none  1"
  "cfl20                       20  200  5  w  1  1  2  1  none  none  1"
  "cfl40                       40  200  5  w  1  1  2  1  none  none  1"
  "cfl5                        5  200  5  w  1  1  2  1  none  none  1"
  "ramp50                      10  50  5  w  1  1  2  1  none  none  1"
  "pre2                        10  200  5  w  2  1  2  1  none  none  1"
  "post2                       10  200  5  w  1  2  2  1  none  none  1"
  "pre2post2                   10  200  5  w  2  2  2  1  none  none  1"
  "coarse8                     10  200  5  w  1  1  8  1  none  none  1"
  "vcycle                      10  200  5  v  1  1  2  1  none  none  1"
  "lev4                        10  200  4  w  1  1  2  1  none  none  1"
  "lev6                        10  200  6  w  1  1  2  1  none  none  1"
  "corder2                     10  200  5  w  1  1  2  2  none  none  1"
  "crlm_fine                   10  200  5  w  1  1  2  1  fine  none  1"
  "cfl20_pre2post2             20  200  5  w  2  2  2  1  none  none  1"
  "o2_pp2                      10  200  5  w  2  2  2  2  none  none  1"
  "o2_pp2_lev4                 10  200  4  w  2  2  2  2  none  none  1"
  "o2_lev4                     10  200  4  w  1  1  2  2  none  none  1"
  "o2_pp2_ramp50               10  50  5  w  2  2  2  2  none  none  1"
  "o2_pre2                     10  200  5  w  2  1  2  2  none  none  1"
  "o2_pp2_lev3                 10  200  3  w  2  2  2  2  none  none  1"
  "o2_pp2_lev4_ramp50          10  50  4  w  2  2  2  2  none  none  1"
  "o2_pp2_lev4_v               10  200  4  v  2  2  2  2  none  none  1"
  "o2_pp3_lev4                 10  200  4  w  3  3  2  2  none  none  1"
  "o2_pp3                      10  200  5  w  3  3  2  2  none  none  1"
  "o2_pp2_lev6                 10  200  6  w  2  2  2  2  none  none  1"
  "single                      10  200  1  w  1  1  2  1  none  none  1  40000"
  "pc_k1                       10   200  5   w   2   2    2   2   auto turkel 1"
  "pc_k2                       10   200  5   w   2   2    2   2   auto turkel 2"
  "pc_k3                       10   200  5   w   2   2    2   2   auto turkel 3"
  "pc_k1_lev4                  10   200  4   w   2   2    2   2   auto turkel 1"
  "pc_k1_cfl5                  5    200  5   w   2   2    2   2   auto turkel 1"
  "pc_k1_cfl15                 15   200  5   w   2   2    2   2   auto turkel 1"
  "pc_k1_pp1                   10   200  5   w   1   1    2   2   auto turkel 1"
  "pc_k1_v                     10   200  5   v   2   2    2   2   auto turkel 1"
  "pc_k1_ramp50                10   50   5   w   2   2    2   2   auto turkel 1"
  "pc_k2_pp1                   10   200  5   w   1   1    2   2   auto turkel 2"
  "pc_k3_pp1                   10   200  5   w   1   1    2   2   auto turkel 3"
  "pc_k1_pp1_c1                10   200  5   w   1   1    2   1   auto turkel 1"
  "pc_k1_pp1_cfl7              7    200  5   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4              10   200  4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_r50          10   50   4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_r100         10   100  4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_r150         10   150  4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl15_r100   15   100  4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl7_r100    7    100  4   w   1   1    2   2   auto turkel 1"
  "pc_k2_pp1_lev4_r100         10   100  4   w   1   1    2   2   auto turkel 2"
  "pc_k1_pp1_lev4_crs1         10   200  4   w   1   1    1   2   auto turkel 1"
  "pc_k1_pp1_lev4_crs1_r100    10   100  4   w   1   1    1   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl5_r50     5    50   4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl5_r100    5    100  4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl4_r50     4    50   4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl6_r100    6    100  4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev4_cfl3_r30     3    30   4   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev3              10   200  3   w   1   1    2   2   auto turkel 1"
  "pc_k1_pp1_lev3_crs4         10   200  3   w   1   1    4   2   auto turkel 1"
  "pc_k1_pp1_lev3_crs8         10   200  3   w   1   1    8   2   auto turkel 1"
  "pc_k1_pp1_lev4_v_crs4       10   200  4   v   1   1    4   2   auto turkel 1"
  "pc_k1_v22_lev3_c8           10   200  3   v   2   2    8   2   auto turkel 1"
  "pc_k1_v22_lev4_c4           10   200  4   v   2   2    4   2   auto turkel 1"
  "pc_k1_v22_lev5_c4           10   200  5   v   2   2    4   2   auto turkel 1"
  "pc_k2_v22_lev5_c4           10   200  5   v   2   2    4   2   auto turkel 2"
  "pc_k1_v33_lev5_c4           10   200  5   v   3   3    4   2   auto turkel 1"
  "pc_k1_v22_lev4_c8           10   200  4   v   2   2    8   2   auto turkel 1"
  "pc_k1_v33_lev4_c8           10   200  4   v   3   3    8   2   auto turkel 1"
  "pc_k1_v22_lev4_c12          10   200  4   v   2   2   12   2   auto turkel 1"
  "pc_k1_v22_lev4_c6           10   200  4   v   2   2    6   2   auto turkel 1"
  "pc_k1_v22_lev5_c8           10   200  5   v   2   2    8   2   auto turkel 1"
  "pc_k1_v33_lev5_c8           10   200  5   v   3   3    8   2   auto turkel 1"
  "pc_k1_v11_lev5_c8           10   200  5   v   1   1    8   2   auto turkel 1"
  "pc_k1_v12_lev5_c8           10   200  5   v   1   2    8   2   auto turkel 1"
  "pc_k1_v21_lev5_c8           10   200  5   v   2   1    8   2   auto turkel 1"
  "pc_k1_v32_lev5_c16_cfl6_r100 6   100  5   v   3   2   16   2   auto turkel 1"
  "pc_k1_v32_lev5_c16_cfl5_r50  5   50   5   v   3   2   16   2   auto turkel 1"
  "pc_single                   10   200  1   w   1   1    2   1   auto turkel 1 40000"
)
for v in "${V[@]}"; do
  set -- $v
  [ "$ONLY" != "  " ] && [[ "$ONLY" != *" $1 "* ]] && continue
  deck "$@"; run "$1"
done
tar czf "$O/mg_sweep_runs.tgz" -C "$W/keep" .
echo; echo "================ multigrid sweep, ${N}^3 Re=$RE ================"; cat "$T"
cp "$T" "$O/mg_sweep_${N}_re$RE.txt"

#!/usr/bin/env bash
# Multigrid on the GPU blocks of build/adiflow_mpi, on a machine with 2 or 4
# GPUs (nvidia-h100-x4 / nvidia-h200-x4). Builds nothing: carry build/adiflow,
# build/adiflow_mpi, build/compare_fields, build/strict (make BUILD=build/strict
# STRICT=1 all mpi) and build/mpilibs (OpenMPI's Fortran bindings, where the
# machine lacks them).
#   bash bench/device_mpi_mg.sh check    (DECKS= : skip the sweep) strict bit-identity of multigrid on GPU blocks
#                                        (coarse levels whole on every rank, decomposed, gathered):
#                                        exact mode vs serial build/adiflow with the same
#                                        levels (fields and residual history, work units
#                                        included) on every decomposition of 2, 3 and 4 GPUs,
#                                        split and merged kernels; decoupled GPU vs decoupled
#                                        CPU; fast builds to 1e-12; compute-sanitizer
#   bash bench/device_mpi_mg.sh speed    one rank of adiflow_mpi vs build/adiflow per
#                                        iteration, 256^3 single grid (merged kernels)
#   bash bench/device_mpi_mg.sh scale    per multigrid cycle, 1-2-4 GPUs, both modes: weak
#                                        256^3 per GPU, strong 256^3 and 512^3
#   bash bench/device_mpi_mg.sh weak4    weak 256^3 per GPU on 4 GPUs: 2x2 against 1x4, exact mode's
#                                        pipeline with 1 and WCH chunks (default 8)
#   bash bench/device_mpi_mg.sh graph    a block's iteration as one graph with its NCCL exchanges
#                                        (ADIFLOW_BLOCK_GRAPH=1, the default) against launches one by
#                                        one (=0), alternating, weak 256^3/GPU on NG = 2 or 4 GPUs and
#                                        strong 256^3, both modes
#   bash bench/device_mpi_mg.sh chunks   exact mode's pipelined sweep in CH chunks (default 1 2 4 8),
#                                        weak 256^3/GPU and strong 256^3 on NG = 2 or 4 GPUs (split k)
#   bash bench/device_mpi_mg.sh whole    the coarse levels whole on every rank (--whole-cells 0, -1 =
#                                        the GPU default 131072, 524288), weak 256^3/GPU and strong
#                                        256^3 on NG = 2 or 4 GPUs (split k), both modes
#   bash bench/device_mpi_mg.sh staged   exact mode's staged k sweep (the default where k alone is split)
#                                        against the pipelined one (ADIFLOW_BLOCK_STAGED=0), alternated
#                                        twice: weak 256^3/GPU and strong 256^3 along k on NG = 2 or 4 GPUs
#   bash bench/device_mpi_mg.sh pipe     one GPU: exact mode's pipelined sweep kernels alone (build/pipe_sweep):
#                                        a 256^3 block swept along k whole and in 2..32 chunks, and
#                                        the coarse levels' blocks, microseconds per chunk
#   bash bench/device_mpi_mg.sh cube512  the 512^3 cube at Re = 1000 to 7 orders on 4 GPUs (LEV levels,
#                                        MODE512 decoupled|exact, DUMP512=.true. adds field.dump)
#   bash bench/device_mpi_mg.sh transport  the MPI host-staged transport against NCCL on 2 GPUs
#                                        (ADIFLOW_BLOCK_TRANSPORT=mpi vs nccl): strict build, 32^3
#                                        deck, exact 2x1 and 1x2 and decoupled, single grid and
#                                        --mg-levels 3, merged kernels (split too for exact 2x1):
#                                        fields and histories bit-identical; then s/iter of both
#                                        on bench/cases/strong256.nml (100 iterations, fast
#                                        build, merged, exact and decoupled). About 2 minutes.
# Prints a table last. NG: the GPUs to use (default: all visible); on a machine with fewer GPUs,
# ADIFLOW_BLOCK_SHARE_GPU=1 NG=4 bash bench/device_mpi_mg.sh check runs the identity checks with ranks
# sharing the GPUs (halos through host memory).

set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/mpimg; rm -rf $W; mkdir -p $W $O
T=$W/table.txt; : > $T
row() { printf "%-72s %s\n" "$1" "$2" | tee -a $T; }
MODE=${1:-check}
source bench/device_mpi_common.sh
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee -a $T
NG=${NG:-$(nvidia-smi -L | grep -c '^GPU')}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
RUN="mpirun --allow-run-as-root --bind-to none --oversubscribe"
# NG larger than the GPUs with ADIFLOW_BLOCK_SHARE_GPU=1: the ranks share them (results only, no timings)
[ -n "${ADIFLOW_BLOCK_SHARE_GPU:-}" ] && RUN="$RUN -x ADIFLOW_BLOCK_SHARE_GPU"
# a derived deck must carry every substitution asked of it (a pattern that no longer matches
# would measure another case silently)
has() { local f=$1; shift; for k in "$@"; do grep -q "$k" $f || { echo "$f: no '$k' (a deck changed?)" >&2; exit 3; }; done; }
decomps() { # the j x k decompositions of n ranks
  case $1 in 1) echo "1x1";; 2) echo "2x1 1x2";; 3) echo "3x1 1x3";; 4) echo "4x1 1x4 2x2";; esac
}

if [ "$MODE" = pipe ]; then
  build/pipe_sweep ${PIPE_N:-256} 20 | tee -a $T
fi

if [ "$MODE" = check ]; then
  S=build/strict
  # DECKS= (empty) skips the decomposition sweep: the gathered levels, ADI_line and sanitizer rows only
  for deck in ${DECKS-cases/cube32_gpu_check.nml:3:30 cases/cube64_re1000.nml:4:12}; do
    deck=${deck//:/ }
    set -- $deck; C=$1; L=$2; N=$3; b=$(basename $C .nml)
    $S/adiflow $C --backend cpu --mg-levels $L --max-iter $N --run-dir $W/ser_$b > $W/ser_$b.log 2>&1
    grep -m1 "multigrid:" $W/ser_$b.log
    for np in 2 3 4; do
      [ $np -le $NG ] || continue
      for dd in $(decomps $np); do
        pj=${dd%x*}; pk=${dd#*x}
        for k in merged split; do
          r=$W/ex_${b}_${dd}_$k
          $RUN -np $np $S/adiflow_mpi $C --backend cuda --kernels $k --adi-mode exact --npj $pj --npk $pk \
            --mg-levels $L --max-iter $N --run-dir $r > $r.log 2>&1
          rc=$?; [ $rc = 0 ] || tail -n 5 $r.log
          row "strict MG $b L=$L exact ${dd} GPUs $k: field / history" "rc=$rc $(same $W/ser_$b/field.dump $r/field.dump) / $(same <(hist $W/ser_$b/residual.dat) <(hist $r/residual.dat)) $(grep -m1 -o 'multigrid: [0-9]* levels' $r.log)"
        done
      done
    done
    # the coarse levels decomposed too (whole_cells 0; by default GPU ranks run the levels of
    # at most 131072 cells whole on every rank, fortran/multigrid_whole.f90)
    r=$W/ex0_${b}
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --kernels merged --adi-mode exact --npj 1 --npk 2 --whole-cells 0 \
      --mg-levels $L --max-iter $N --run-dir $r > $r.log 2>&1
    row "strict MG $b L=$L exact 1x2 GPUs merged, no whole levels: field / history" "rc=$? $(same $W/ser_$b/field.dump $r/field.dump) / $(same <(hist $W/ser_$b/residual.dat) <(hist $r/residual.dat))"
    # decoupled: the GPU blocks equal the CPU blocks of the same decomposition
    pj=$NG; [ $NG -ge 4 ] && pj=2
    pk=$((NG/pj))
    # (the CPU ranks' whole_cells default is none: the GPU's given to both)
    $RUN -np $NG $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npj $pj --npk $pk --mg-levels $L \
      --whole-cells 131072 --max-iter $N --run-dir $W/dc_$b > $W/dc_$b.log 2>&1
    for k in merged split; do
      r=$W/dg_${b}_$k
      $RUN -np $NG $S/adiflow_mpi $C --backend cuda --kernels $k --adi-mode decoupled --npj $pj --npk $pk \
        --mg-levels $L --max-iter $N --run-dir $r > $r.log 2>&1
      row "strict MG $b decoupled ${pj}x${pk} GPUs $k vs CPU decoupled: field / history" "rc=$? $(same $W/dc_$b/field.dump $r/field.dump) / $(same <(hist $W/dc_$b/residual.dat) <(hist $r/residual.dat))"
    done
    # fast build: exact within 1e-12 of the serial CPU
    r=$W/fx_$b
    $RUN -np $NG build/adiflow_mpi $C --backend cuda --adi-mode exact --npj $NG --mg-levels $L --max-iter $N \
      --run-dir $r > $r.log 2>&1
    build/compare_fields $W/ser_$b/field.dump $r/field.dump --tol 1e-12 > $r.cmp 2>&1
    row "fast MG $b exact ${NG}x1 GPUs vs serial strict CPU, <= 1e-12" "$([ $? = 0 ] && echo PASS || echo FAIL) $(tail -n 1 $r.cmp)"
  done
  # exact mode's pipeline cut into chunks (--chunks 4): the fine level's 256 x 64 lines across a
  # sweep take 4 (pipe_chunks: one per 4096 lines), the coarser levels 1; strict, vs the serial CPU
  sed -e "s/ni = 32, nj = 32, nk = 32/ni = 256, nj = 64, nk = 64/" cases/cube32_gpu_check.nml > $W/ch.nml
  has $W/ch.nml "ni = 256, nj = 64, nk = 64"
  $S/adiflow $W/ch.nml --backend cpu --mg-levels 3 --max-iter 10 --run-dir $W/ser_ch > $W/ser_ch.log 2>&1
  for dd in 2x1 1x2 $([ $NG -ge 4 ] && echo 1x4); do
    pj=${dd%x*}; pk=${dd#*x}; r=$W/ch_$dd
    $RUN -np $((pj*pk)) $S/adiflow_mpi $W/ch.nml --backend cuda --kernels merged --adi-mode exact --npj $pj --npk $pk \
      --chunks 4 --mg-levels 3 --max-iter 10 --run-dir $r > $r.log 2>&1
    row "strict MG 256x64x64 exact ${dd} GPUs, 4 pipeline chunks: field / history" "rc=$? $(same $W/ser_ch/field.dump $r/field.dump) / $(same <(hist $W/ser_ch/residual.dat) <(hist $r/residual.dat))"
  done
  # (along k alone the sweep is staged by default: the plain pipeline too)
  r=$W/ch_1x2_plain
  $RUN -np 2 -x ADIFLOW_BLOCK_STAGED=0 $S/adiflow_mpi $W/ch.nml --backend cuda --kernels merged --adi-mode exact --npj 1 --npk 2 \
    --chunks 4 --mg-levels 3 --max-iter 10 --run-dir $r > $r.log 2>&1
  row "strict MG 256x64x64 exact 1x2 GPUs, 4 chunks, not staged: field / history" "rc=$? $(same $W/ser_ch/field.dump $r/field.dump) / $(same <(hist $W/ser_ch/residual.dat) <(hist $r/residual.dat))"
  # levels the blocks cannot carry, gathered onto rank 0 (its CPU): 16x16x8 with 4 levels
  # (whole_cells 0: otherwise levels 2..4 run whole on every rank, above the gathered ones)
  C=tests/cases/mpi_mg_cube.nml
  $S/adiflow $C --backend cpu --run-dir $W/sg_g > $W/sg_g.log 2>&1
  for dd in 2x1 1x2; do
    pj=${dd%x*}; pk=${dd#*x}
    r=$W/g_$dd
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj $pj --npk $pk --whole-cells 0 --run-dir $r > $r.log 2>&1
    row "strict MG gathered levels, exact ${dd} GPUs vs serial CPU: field / history" "rc=$? $(same $W/sg_g/field.dump $r/field.dump) / $(same <(hist $W/sg_g/residual.dat) <(hist $r/residual.dat)) $(grep -m1 -o 'levels [0-9.]* gathered' $r.log)"
    $RUN -np 2 $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npj $pj --npk $pk --whole-cells 0 --run-dir $r.dc > $r.dc.log 2>&1
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode decoupled --npj $pj --npk $pk --whole-cells 0 --run-dir $r.dg > $r.dg.log 2>&1
    row "strict MG gathered levels, decoupled ${dd}: GPU vs CPU" "rc=$? $(same $r.dc/field.dump $r.dg/field.dump)"
  done
  # the coarse levels whole on every rank's GPU (whole_cells 256: levels 2..4, 40: 3..4), shared
  # from the blocks and taken back on the devices, over the build's transport and over MPI
  for wc in 256 40; do
    for dd in 2x1 1x2; do
      pj=${dd%x*}; pk=${dd#*x}; r=$W/w_${dd}_$wc
      $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj $pj --npk $pk --whole-cells $wc --run-dir $r > $r.log 2>&1
      row "strict MG whole levels (whole_cells $wc), exact ${dd} GPUs vs serial CPU: field / history" "rc=$? $(same $W/sg_g/field.dump $r/field.dump) / $(same <(hist $W/sg_g/residual.dat) <(hist $r/residual.dat)) $(grep -m1 -o 'levels [0-9.]* whole' $r.log)"
    done
  done
  r=$W/w_mpi
  $RUN -np 2 -x ADIFLOW_BLOCK_TRANSPORT=mpi $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 1 --npk 2 --whole-cells 256 \
    --run-dir $r > $r.log 2>&1
  row "strict MG whole levels, exact 1x2 GPUs, MPI host-staged transport vs serial CPU" "rc=$? $(same $W/sg_g/field.dump $r/field.dump)"
  $RUN -np 2 $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npj 1 --npk 2 --whole-cells 256 --run-dir $W/wdc > $W/wdc.log 2>&1
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode decoupled --npj 1 --npk 2 --whole-cells 256 --run-dir $W/wdg > $W/wdg.log 2>&1
  row "strict MG whole levels, decoupled 1x2: GPU vs CPU" "rc=$? $(same $W/wdc/field.dump $W/wdg/field.dump)"
  if [ $NG -ge 3 ]; then
    $RUN -np 3 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 3 --run-dir $W/g_3 > $W/g_3.log 2>&1
    row "strict MG gathered from level 2 (uneven blocks), exact 3x1 GPUs vs serial CPU" "rc=$? $(same $W/sg_g/field.dump $W/g_3/field.dump)"
  fi
  # decoupled single-grid blocks now run ADI_line: still the CPU's decoupled result
  C=cases/cube32_gpu_check.nml
  $RUN -np 2 $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npk 2 --run-dir $W/sgdc > $W/sgdc.log 2>&1
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --kernels merged --adi-mode decoupled --npk 2 --run-dir $W/sgdg > $W/sgdg.log 2>&1
  row "strict single-grid decoupled 1x2 merged (ADI_line) vs CPU decoupled" "$(same $W/sgdc/field.dump $W/sgdg/field.dump)"
  $S/adiflow $C --backend cpu --run-dir $W/sgs > $W/sgs.log 2>&1
  $RUN -np 1 $S/adiflow_mpi $C --backend cuda --kernels merged --run-dir $W/sg1 > $W/sg1.log 2>&1
  row "strict single-grid 1 rank merged (ADI_line, graph) vs serial CPU" "$(same $W/sgs/field.dump $W/sg1/field.dump)"
  # (levels 2..3 of the 32^3 cube whole on every rank; decoupled also with them decomposed)
  for m in exact decoupled decoupled0; do
    $RUN -np 2 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 build/adiflow_mpi \
      cases/cube32_gpu_check.nml --backend cuda --adi-mode ${m%0} --npj 2 --mg-levels 3 --max-iter 2 \
      $([ $m = decoupled0 ] && echo --whole-cells 0) --run-dir $W/san$m > $W/san$m.log 2>&1
    row "compute-sanitizer memcheck, 2 ranks, MG $m merged" "rc=$? $(grep -m1 'ERROR SUMMARY' $W/san$m.log)"
  done
  # preconditioned: the eps across the block faces (mlaunch_pce_faces) in exact mode
  $RUN -np 2 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 build/adiflow_mpi \
    cases/cube64_re1000.nml --backend cuda --adi-mode exact --npj 2 --mg-levels 3 --max-iter 2 \
    --run-dir $W/sanpc > $W/sanpc.log 2>&1
  row "compute-sanitizer memcheck, 2 ranks, MG exact merged, preconditioned 64^3" "rc=$? $(grep -m1 'ERROR SUMMARY' $W/sanpc.log)"
  $RUN -np 2 compute-sanitizer --tool racecheck --error-exitcode 9 build/adiflow_mpi cases/cube32_gpu_check.nml \
    --backend cuda --adi-mode decoupled --npj 2 --mg-levels 3 --max-iter 1 --run-dir $W/sanr > $W/sanr.log 2>&1
  row "compute-sanitizer racecheck, 2 ranks, MG decoupled merged" "rc=$? $(grep -m1 'SUMMARY' $W/sanr.log)"
fi

if [ "$MODE" = speed ]; then
  ITER=${ITER:-100}
  build/adiflow bench/cases/weak256.nml --backend cuda --kernels merged --max-iter $ITER --run-dir $W/s0 > $W/s0.log 2>&1
  for m in decoupled exact; do
    $RUN -np 1 build/adiflow_mpi bench/cases/weak256.nml --backend cuda --kernels merged --adi-mode $m \
      --max-iter $ITER --run-dir $W/s1$m > $W/s1$m.log 2>&1
  done
  row "256^3 single grid, merged: build/adiflow s/iter" "$(spi $W/s0.log)"
  for m in decoupled exact; do
    row "256^3 single grid, merged: adiflow_mpi 1 rank ($m) s/iter, ratio to build/adiflow" \
      "$(spi $W/s1$m.log) $(awk -v a=$(spi $W/s1$m.log) -v b=$(spi $W/s0.log) 'BEGIN{printf "%.3f", a/b}')"
  done
fi

# the recorded figures' cube and cycle (W(2,2) over 5 levels, unpreconditioned), a deck of its own:
# the shipped cases/cube64_re1000.nml has since changed its cycle (V(2,2) over 3 levels, preconditioned)
# (MGDECK=bench/cases/mg_cube_v42.nml: the shipped 256^3 deck's preconditioned V(4,2) cycle instead)
MGDECK=${MGDECK:-bench/cases/mg_cube_w22.nml}

if [ "$MODE" = scale ] || [ "$MODE" = weak4 ] || [ "$MODE" = graph ] || [ "$MODE" = chunks ] || [ "$MODE" = whole ] ||
   [ "$MODE" = staged ]; then
  CYC=${CYC:-20}
  mk() { # name n: the benchmark cube (MGDECK) at n^3 cells, its 5-level cycle
    sed -e "s/ni = 64, nj = 64, nk = 64/ni = $2, nj = $2, nk = $2/" \
      -e "s/max_iter = 2000, tol = 1.0e-7/max_iter = $CYC, tol = 0.0/" $MGDECK > $W/$1.nml
    has $W/$1.nml "ni = $2, nj = $2, nk = $2" "max_iter = $CYC, tol = 0.0" "levels = 5,"
  }
  mk c256 256; mk c512 512
  sed -e "s/ni = 256, nj = 256, nk = 256/ni = 256, nj = 512, nk = 256/" $W/c256.nml > $W/w2.nml
  sed -e "s/ni = 256, nj = 256, nk = 256/ni = 256, nj = 512, nk = 512/" $W/c256.nml > $W/w4.nml
  sed -e "s/ni = 256, nj = 256, nk = 256/ni = 256, nj = 256, nk = 1024/" $W/c256.nml > $W/w4k.nml
  sed -e "s/ni = 256, nj = 256, nk = 256/ni = 256, nj = 256, nk = 512/" $W/c256.nml > $W/w2k.nml
  declare -A t
  go() { # key np deck mode pj pk: s/cycle into t[key]; the whole process's wall time is printed
    local r=$W/$1 t0 t1
    t0=$(date +%s.%N)
    $RUN -np $2 ${BIN:-build/adiflow_mpi} $W/$3.nml --backend cuda --kernels merged --adi-mode $4 --npj $5 --npk $6 \
      ${EXTRA:-} --run-dir $r > $r.log 2>&1
    local rc=$?; [ $rc = 0 ] || tail -n 4 $r.log
    t1=$(date +%s.%N)
    t[$1]=$(spc $r.log $CYC)
    echo "$1 rc=$rc s/cycle=${t[$1]} wall=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f s", b-a}') $(grep -m1 -o 'multigrid: [0-9]* levels' $r.log)"
  }
fi

if [ "$MODE" = weak4 ]; then
  # weak scaling on 4 GPUs, the decomposition and exact mode's pipeline chunks:
  # 2x2 (256 x 512 x 512) against 1x4 (256 x 256 x 1024), exact with 1 and WCH chunks
  go s1_256 1 c256 exact 1 1
  go w4_dec_2x2 4 w4 decoupled 2 2
  go w4_dec_1x4 4 w4k decoupled 1 4
  EXTRA="--chunks 1" go w4_ex_2x2 4 w4 exact 2 2
  EXTRA="--chunks 1" go w4_ex_1x4 4 w4k exact 1 4
  wc=${WCH:-8}
  EXTRA="--chunks $wc" go w4_ex_2x2_c$wc 4 w4 exact 2 2
  EXTRA="--chunks $wc" go w4_ex_1x4_c$wc 4 w4k exact 1 4
  for k in w4_dec_2x2 w4_dec_1x4 w4_ex_2x2 w4_ex_1x4 w4_ex_2x2_c$wc w4_ex_1x4_c$wc; do
    row "weak 256^3/GPU on 4 GPUs, $k: s/cycle, efficiency" "${t[$k]} $(eff ${t[s1_256]} ${t[$k]} 1)"
  done
fi

if [ "$MODE" = graph ]; then
  go s1_256 1 c256 exact 1 1
  keys=""; RUN0=$RUN
  if [ $NG -ge 4 ]; then
    cfgs="dec_1x4:w4k:decoupled:1:4 dec_2x2:w4:decoupled:2:2 ex_1x4:w4k:exact:1:4 ex_2x2:w4:exact:2:2"
    cfgs="$cfgs sdec_1x4:c256:decoupled:1:4 sex_1x4:c256:exact:1:4"; np=4
  else
    cfgs="dec_1x2:w2k:decoupled:1:2 dec_2x1:w2:decoupled:2:1 ex_1x2:w2k:exact:1:2 ex_2x1:w2:exact:2:1"
    cfgs="$cfgs sdec_1x2:c256:decoupled:1:2 sex_1x2:c256:exact:1:2"; np=2
  fi
  for cfg in $cfgs; do
    set -- ${cfg//:/ }
    for g in 0 1; do
      export ADIFLOW_BLOCK_GRAPH=$g
      RUN="$RUN0 -x ADIFLOW_BLOCK_GRAPH" go ${1}_g$g $np $2 $3 $4 $5
      keys="$keys ${1}_g$g"
    done
  done
  row "1 GPU 256^3 MG cycle (5 levels W, merged, graph): s/cycle" "${t[s1_256]}"
  for k in $keys; do
    f=1; case $k in s*) f=$np;; esac     # strong runs: efficiency over np GPUs
    row "$np GPUs $k (s: strong 256^3, else weak 256^3/GPU; g0 one by one, g1 graph): s/cycle, eff." "${t[$k]} $(eff ${t[s1_256]} ${t[$k]} $f)"
  done
  unset ADIFLOW_BLOCK_GRAPH
fi

if [ "$MODE" = chunks ]; then
  go s1_256 1 c256 exact 1 1
  np=$([ $NG -ge 4 ] && echo 4 || echo 2); wk=$([ $np = 4 ] && echo w4k || echo w2k)
  for c in ${CH:-1 2 4 8}; do
    EXTRA="--chunks $c" go wex_c$c $np $wk exact 1 $np
    EXTRA="--chunks $c" go sex_c$c $np c256 exact 1 $np
  done
  row "1 GPU 256^3 MG cycle (5 levels W, merged): s/cycle" "${t[s1_256]}"
  for c in ${CH:-1 2 4 8}; do
    row "$np GPUs exact 1x$np, $c chunks: weak 256^3/GPU s/cycle, eff.; strong 256^3 s/cycle, eff." \
      "${t[wex_c$c]} $(eff ${t[s1_256]} ${t[wex_c$c]} 1); ${t[sex_c$c]} $(eff ${t[s1_256]} ${t[sex_c$c]} $np)"
  done
fi

if [ "$MODE" = staged ]; then
  go s1_256 1 c256 exact 1 1
  np=$([ $NG -ge 4 ] && echo 4 || echo 2); wk=$([ $np = 4 ] && echo w4k || echo w2k)
  RUN0=$RUN
  for rep in a b; do
    for g in 1 0; do
      RUN="$RUN0 -x ADIFLOW_BLOCK_STAGED=$g" go wst${g}_$rep $np $wk exact 1 $np
      RUN="$RUN0 -x ADIFLOW_BLOCK_STAGED=$g" go sst${g}_$rep $np c256 exact 1 $np
    done
  done
  RUN=$RUN0
  row "1 GPU 256^3 MG cycle (5 levels W, merged): s/cycle" "${t[s1_256]}"
  for rep in a b; do
    for g in 1 0; do
      row "$np GPUs exact 1x$np, staged $g ($rep): weak 256^3/GPU s/cycle, eff.; strong 256^3 s/cycle, eff." \
        "${t[wst${g}_$rep]} $(eff ${t[s1_256]} ${t[wst${g}_$rep]} 1); ${t[sst${g}_$rep]} $(eff ${t[s1_256]} ${t[sst${g}_$rep]} $np)"
    done
  done
fi

if [ "$MODE" = whole ]; then
  # the coarse levels whole on every rank: none (0), the GPU default (-1: 131072 cells) and a level more
  # (524288), weak 256^3/GPU and strong 256^3 along k on NG = 2 or 4 GPUs, both modes
  go s1_256 1 c256 exact 1 1
  np=$([ $NG -ge 4 ] && echo 4 || echo 2); wk=$([ $np = 4 ] && echo w4k || echo w2k)
  for m in exact decoupled; do
    for wc in 0 -1 524288; do
      EXTRA="--whole-cells $wc" go ww_${m}_$wc $np $wk $m 1 $np
      EXTRA="--whole-cells $wc" go sw_${m}_$wc $np c256 $m 1 $np
    done
  done
  row "1 GPU 256^3 MG cycle (5 levels W, merged): s/cycle" "${t[s1_256]}"
  for m in exact decoupled; do
    for wc in 0 -1 524288; do
      row "$np GPUs $m 1x$np, whole_cells $wc: weak 256^3/GPU s/cycle, eff.; strong 256^3 s/cycle, eff." \
        "${t[ww_${m}_$wc]} $(eff ${t[s1_256]} ${t[ww_${m}_$wc]} 1); ${t[sw_${m}_$wc]} $(eff ${t[s1_256]} ${t[sw_${m}_$wc]} $np)"
    done
  done
fi

if [ "$MODE" = scale ]; then
  go s1_256 1 c256 exact 1 1
  [ "${SKIP512_1:-0}" = 1 ] || go s1_512 1 c512 exact 1 1
  for m in decoupled exact; do
    for np in 2 4; do
      [ $np -le $NG ] || continue
      go s${np}_256_$m $np c256 $m 1 $np
      go s${np}_512_$m $np c512 $m 1 $np
      go w${np}_$m $np w$np $m $([ $np = 4 ] && echo "2 2" || echo "2 1")
    done
  done
  row "1 GPU 256^3 MG cycle (5 levels W, merged): s/cycle" "${t[s1_256]}"
  row "1 GPU 512^3 MG cycle: s/cycle" "${t[s1_512]:-n/a}"
  for m in decoupled exact; do
    for np in 2 4; do
      [ $np -le $NG ] || continue
      row "$np GPUs $m strong 256^3: s/cycle, efficiency" "${t[s${np}_256_$m]} $(eff ${t[s1_256]} ${t[s${np}_256_$m]} $np)"
      row "$np GPUs $m strong 512^3: s/cycle, efficiency" "${t[s${np}_512_$m]} $(eff ${t[s1_512]:-0} ${t[s${np}_512_$m]} $np)"
      row "$np GPUs $m weak 256^3/GPU: s/cycle, efficiency" "${t[w${np}_$m]} $(eff ${t[s1_256]} ${t[w${np}_$m]} 1)"
    done
  done
fi

if [ "$MODE" = cube512 ]; then
  MODE512=${MODE512:-decoupled}
  sed -e "s/ni = 64, nj = 64, nk = 64/ni = 512, nj = 512, nk = 512/" -e "s/levels = 5/levels = ${LEV:-6}/" \
    -e "s/max_iter = 2000/max_iter = ${MAXC:-600}/" -e "s/write_dump = .false./write_dump = ${DUMP512:-.false.}/" \
    -e "s/write_profiles = .false./write_profiles = .true./" $MGDECK > $W/c512.nml
  has $W/c512.nml "ni = 512, nj = 512, nk = 512" "levels = ${LEV:-6}," "max_iter = ${MAXC:-600}," "write_profiles = .true."
  # outputs: the restart set (the state, one file per rank) and the centreline profiles
  # (two k planes gathered); field.dump, the same state again as one 5.4 GB file that
  # rank 0 gathers, writes and reads back, is off unless DUMP512=.true.
  # decoupled mode holds the mass with mass_fix (the block faces' zero increments let it drift)
  /usr/bin/time -v $RUN -np $NG build/adiflow_mpi $W/c512.nml --backend cuda --kernels merged --adi-mode $MODE512 \
    $([ $MODE512 = decoupled ] && echo --mass-fix) --npj 1 --npk $NG --run-dir $W/c512 > $W/c512.log 2> $W/c512.time
  rc=$?
  grep -E "multigrid|decomposition|converged|stopped|time:" $W/c512.log | head -20; tail -n 8 $W/c512.log
  row "512^3 Re=1000 $NG GPUs $MODE512: rc, wall (whole process)" "rc=$rc $(grep -o 'Elapsed (wall clock) time.*' $W/c512.time)"
  mkdir -p $O/c512; cp $W/c512.log $W/c512.time $W/c512/residual.dat $W/c512/*.csv $O/c512/ 2>/dev/null
  cp $W/c512.nml $O/c512/
fi

if [ "$MODE" = transport ]; then
  # one pair of runs: the same command with each transport (rank 0's choice holds for every rank)
  pair() { # name build np args...
    local name=$1 b=$2 np=$3 t; shift 3
    for t in nccl mpi; do
      ADIFLOW_BLOCK_TRANSPORT=$t $RUN -np $np -x ADIFLOW_BLOCK_TRANSPORT $b/adiflow_mpi "$@" \
        --run-dir $W/${name}_$t > $W/${name}_$t.log 2>&1
      rc[$t]=$?; [ ${rc[$t]} = 0 ] || tail -n 4 $W/${name}_$t.log
    done
  }
  carrier() { grep -m1 -o 'one per rank, [^)]*halos' "$1" | sed 's/one per rank, //'; }
  declare -A rc
  S=build/strict; C=cases/cube32_gpu_check.nml
  for lv in 1 3; do
    mg=""; n=200; [ $lv = 1 ] || { mg="--mg-levels $lv"; n=30; }
    for cfg in "exact 2 1 merged" "exact 1 2 merged" "decoupled 2 1 merged" "exact 2 1 split"; do
      set -- $cfg; m=$1; pj=$2; pk=$3; k=$4; nm=tr_${m}_${pj}x${pk}_${k}_L$lv
      pair $nm $S 2 $C --backend cuda --kernels $k --adi-mode $m --npj $pj --npk $pk $mg --max-iter $n
      if [ "${rc[nccl]}${rc[mpi]}" = 00 ]; then
        res="$(same $W/${nm}_nccl/field.dump $W/${nm}_mpi/field.dump) / $(same <(hist $W/${nm}_nccl/residual.dat) <(hist $W/${nm}_mpi/residual.dat))"
      else res="RUN FAILED"; fi
      row "strict $m ${pj}x${pk} $k L=$lv: MPI host-staged vs NCCL, field / history" \
        "rc=${rc[nccl]},${rc[mpi]} $res [$(carrier $W/${nm}_nccl.log) | $(carrier $W/${nm}_mpi.log)]"
    done
  done
  for m in exact decoupled; do
    nm=sp_$m
    pair $nm build 2 bench/cases/strong256.nml --backend cuda --kernels merged --adi-mode $m --npj 2 --max-iter 100
    row "256x256x128 $m 2x1 merged, 100 it.: s/iter NCCL, MPI host-staged, ratio" \
      "$(spi $W/${nm}_nccl.log) $(spi $W/${nm}_mpi.log) $(awk -v a=$(spi $W/${nm}_mpi.log) -v b=$(spi $W/${nm}_nccl.log) 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a/b; else print "n/a" }') (rc=${rc[nccl]},${rc[mpi]})"
  done
fi

echo "==== table"; cat $T; cp $T $O/table_$MODE.txt

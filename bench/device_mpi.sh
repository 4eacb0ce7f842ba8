#!/usr/bin/env bash
# Multi-GPU CFD (build/adiflow_mpi, backend cuda, NCCL halos) on a GPU
# machine with 2 GPUs (nvidia-h200-x2). Builds nothing: carry build/adiflow,
# build/adiflow_mpi, build/compare_fields, build/strict (make BUILD=build/strict
# STRICT=1 all mpi) and build/mpilibs (OpenMPI's Fortran bindings, used only
# where the machine lacks them).
#   bash bench/device_mpi.sh check   strict bit-identity CPU vs GPU, 32^3 x 200
#                                    (exact 2x1 and 1x2, decoupled; mass_fix on
#                                    1 GPU split/merged, exact 2x1, decoupled
#                                    2x1 split/merged), fast builds to 1e-12,
#                                    compute-sanitizer memcheck
#   bash bench/device_mpi.sh overlap  the split schedule's halo/compute overlap: identity, on vs off, events
#   bash bench/device_mpi.sh mexact  exact mode with the merged kernels: strict identity, 1 vs 2 GPUs
#   bash bench/device_mpi.sh restart GPU restart continuation and a refused decomposition
#   bash bench/device_mpi.sh bench   strong 256x256x128 and weak 256^3/GPU, 1 and
#                                    2 GPUs, exact and decoupled, split and merged;
#                                    event timings of the exchanges
# Prints a table last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/mpigpu; rm -rf $W; mkdir -p $W $O
T=$W/table.txt; : > $T
row() { printf "%-66s %s\n" "$1" "$2" | tee -a $T; }
MODE=${1:-check}
source bench/device_mpi_common.sh
ldd build/adiflow_mpi | grep "not found"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee -a $T
export OMP_NUM_THREADS=4
RUN="mpirun --allow-run-as-root --bind-to none"

if [ "$MODE" = check ] || [ "$MODE" = all ]; then
  C=cases/cube32_gpu_check.nml
  S=build/strict
  $S/adiflow $C --backend cpu --run-dir $W/ser > $W/ser.log 2>&1
  for g in "2 1" "1 2"; do
    set -- $g
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj $1 --npk $2 --run-dir $W/ex$1$2 > $W/ex$1$2.log 2>&1
    echo "rc=$?"; tail -n 4 $W/ex$1$2.log
    row "strict exact ${1}x${2} GPUs vs serial CPU: field.dump" "$(same $W/ser/field.dump $W/ex$1$2/field.dump)"
    row "strict exact ${1}x${2} GPUs vs serial CPU: residual history" "$(same <(hist $W/ser/residual.dat) <(hist $W/ex$1$2/residual.dat))"
  done
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 2 --chunks 1 --run-dir $W/exc1 > $W/exc1.log 2>&1
  row "strict exact 2x1, 1 pipeline chunk vs serial CPU: field.dump" "$(same $W/ser/field.dump $W/exc1/field.dump)"
  $RUN -np 2 $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npj 2 --run-dir $W/dcpu > $W/dcpu.log 2>&1
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode decoupled --npj 2 --run-dir $W/dgpu > $W/dgpu.log 2>&1
  tail -n 3 $W/dgpu.log
  row "strict decoupled 2x1: GPU vs CPU (same decomposition)" "$(same $W/dcpu/field.dump $W/dgpu/field.dump)"
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --kernels merged --adi-mode decoupled --npj 2 --run-dir $W/dgm > $W/dgm.log 2>&1
  tail -n 3 $W/dgm.log
  row "strict decoupled 2x1, merged kernels: GPU vs CPU" "$(same $W/dcpu/field.dump $W/dgm/field.dump)"
  $RUN -np 2 build/adiflow_mpi $C --backend cuda --adi-mode exact --npj 2 --run-dir $W/exf > $W/exf.log 2>&1
  build/compare_fields $W/ser/field.dump $W/exf/field.dump --tol 1e-12 > $W/cmpf.txt 2>&1
  row "fast exact 2x1 GPUs vs serial CPU, <= 1e-12" "$([ $? = 0 ] && echo PASS || echo FAIL)"
  for g in "2 1" "1 2"; do
    set -- $g
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --kernels merged --adi-mode exact --npj $1 --npk $2 --run-dir $W/exm$1$2 > $W/exm$1$2.log 2>&1
    row "strict exact ${1}x${2} GPUs, merged kernels vs serial CPU: field.dump" "$(same $W/ser/field.dump $W/exm$1$2/field.dump)"
  done
  $RUN -np 2 build/adiflow_mpi $C --backend cuda --kernels merged --adi-mode decoupled --npk 2 --run-dir $W/dmf > $W/dmf.log 2>&1
  $RUN -np 2 build/adiflow_mpi $C --backend cpu --adi-mode decoupled --npk 2 --run-dir $W/dcf > $W/dcf.log 2>&1
  build/compare_fields $W/dcf/field.dump $W/dmf/field.dump --tol 1e-12 > $W/cmpm.txt 2>&1
  row "fast decoupled 1x2 merged GPUs vs CPU decoupled, <= 1e-12" "$([ $? = 0 ] && echo PASS || echo FAIL)"
  # mass_fix on the GPU (cuda/api/mass.cu): the mass sums in the CPU's
  # order, the rescale on the device; bit-identical in the strict build
  $S/adiflow $C --backend cpu --mass-fix --run-dir $W/sermf > $W/sermf.log 2>&1
  for k in split merged; do
    $S/adiflow $C --backend cuda --kernels $k --mass-fix --run-dir $W/sg$k > $W/sg$k.log 2>&1
    echo "rc=$?"; tail -n 3 $W/sg$k.log
    row "mass_fix strict serial GPU ($k) vs serial CPU: field.dump" "$(same $W/sermf/field.dump $W/sg$k/field.dump)"
    row "mass_fix strict serial GPU ($k) vs serial CPU: residual history" "$(same <(hist $W/sermf/residual.dat) <(hist $W/sg$k/residual.dat))"
  done
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 2 --mass-fix --run-dir $W/exmf > $W/exmf.log 2>&1
  tail -n 3 $W/exmf.log
  row "mass_fix strict exact 2x1 GPUs vs serial CPU: field.dump" "$(same $W/sermf/field.dump $W/exmf/field.dump)"
  $RUN -np 2 $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npj 2 --mass-fix --run-dir $W/dcpumf > $W/dcpumf.log 2>&1
  for k in split merged; do
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --kernels $k --adi-mode decoupled --npj 2 --mass-fix \
      --run-dir $W/dg${k}mf > $W/dg${k}mf.log 2>&1
    tail -n 3 $W/dg${k}mf.log
    row "mass_fix strict decoupled 2x1 GPUs ($k) vs CPU decoupled 2x1" "$(same $W/dcpumf/field.dump $W/dg${k}mf/field.dump)"
  done
  build/adiflow $C --backend cuda --kernels merged --mass-fix --run-dir $W/sfmmf > $W/sfmmf.log 2>&1
  build/compare_fields $W/sermf/field.dump $W/sfmmf/field.dump --tol 1e-12 > $W/cmpsmf.txt 2>&1
  row "mass_fix fast serial merged GPU vs serial CPU, <= 1e-12" "$([ $? = 0 ] && echo PASS || echo FAIL)"
  $RUN -np 2 build/adiflow_mpi $C --backend cuda --kernels merged --adi-mode decoupled --npj 2 --mass-fix \
    --run-dir $W/dfmmf > $W/dfmmf.log 2>&1
  build/compare_fields $W/dcpumf/field.dump $W/dfmmf/field.dump --tol 1e-12 > $W/cmpdmf.txt 2>&1
  row "mass_fix fast decoupled 2x1 merged GPUs vs CPU decoupled, <= 1e-12" "$([ $? = 0 ] && echo PASS || echo FAIL)"
  compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 build/adiflow $C --backend cuda \
    --mass-fix --max-iter 3 --run-dir $W/sanmf > $W/sanmf.log 2>&1
  rc=$?
  row "compute-sanitizer memcheck, serial split --mass-fix" "rc=$rc $(grep -m1 'ERROR SUMMARY' $W/sanmf.log)"
  for m in "exact split" "decoupled merged"; do
    set -- $m
    $RUN -np 2 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 build/adiflow_mpi $C --backend cuda --adi-mode $1 \
      --kernels $2 --npj 2 --max-iter 3 --run-dir $W/san$1 > $W/san$1.log 2>&1
    rc=$?
    row "compute-sanitizer memcheck, 2 ranks, $1 $2" "rc=$rc $(grep -m1 'ERROR SUMMARY' $W/san$1.log)"
  done
  # a fault on one rank: a case that diverges stops every rank
  $RUN -np 2 build/adiflow_mpi tests/cases/diverge.nml --backend cuda --npj 2 --run-dir $W/div > $W/div.log 2>&1
  row "diverging case on 2 GPUs: exit code (3 expected)" "$? $(grep -m1 -o 'diverged at iteration [0-9]*' $W/div.log)"
fi

if [ "$MODE" = check ] || [ "$MODE" = all ] || [ "$MODE" = restart ]; then
  # restart on GPUs: 100 + restart + 100 == 200 serial CPU iterations, bit for bit
  # (strict, exact 2x1; the per-rank files are written from the downloaded state)
  C=cases/cube32_gpu_check.nml; S=build/strict
  [ -f $W/ser/field.dump ] || $S/adiflow $C --backend cpu --run-dir $W/ser > $W/ser.log 2>&1
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 2 --max-iter 100 --run-dir $W/rs > $W/rs1.log 2>&1
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 2 --restart --run-dir $W/rs > $W/rs2.log 2>&1
  grep -m1 "restarting from" $W/rs2.log
  row "restart on 2 GPUs: 100 + restart + 100 vs serial CPU 200" "$(same $W/ser/field.dump $W/rs/field.dump)"
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj 1 --npk 2 --restart --run-dir $W/rs > $W/rs3.log 2>&1
  rc=$?
  row "restart on another decomposition: exit code (2 expected)" "$rc $(grep -m1 -o 'the restart was written on [^;]*' $W/rs3.log)"
fi

if [ "$MODE" = overlap ]; then
  # the split schedule's overlap (q halo || interior primitives + time step,
  # lam halo || ADI3): strict identity, then on vs off (ADIFLOW_BLOCK_OVERLAP=0)
  C=cases/cube32_gpu_check.nml; S=build/strict
  $S/adiflow $C --backend cpu --run-dir $W/ser > $W/ser.log 2>&1
  for g in "2 1" "1 2"; do
    set -- $g
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode exact --npj $1 --npk $2 --run-dir $W/ov$1$2 > $W/ov$1$2.log 2>&1
    row "strict exact ${1}x${2} GPUs, overlapped schedule vs serial CPU: field.dump" "$(same $W/ser/field.dump $W/ov$1$2/field.dump)"
    row "strict exact ${1}x${2} GPUs, overlapped schedule: residual history" "$(same <(hist $W/ser/residual.dat) <(hist $W/ov$1$2/residual.dat))"
  done
  $RUN -np 2 $S/adiflow_mpi $C --backend cpu --adi-mode decoupled --npk 2 --run-dir $W/odc > $W/odc.log 2>&1
  $RUN -np 2 $S/adiflow_mpi $C --backend cuda --adi-mode decoupled --npk 2 --run-dir $W/odg > $W/odg.log 2>&1
  row "strict decoupled 1x2 GPUs, overlapped schedule vs CPU decoupled" "$(same $W/odc/field.dump $W/odg/field.dump)"
  ITER=${ITER:-200}
  for m in decoupled exact; do
    for o in 1 0; do
      ADIFLOW_BLOCK_OVERLAP=$o $RUN -np 2 build/adiflow_mpi bench/cases/strong256.nml --backend cuda --max-iter $ITER \
        --adi-mode $m --run-dir $W/o$m$o > $W/o$m$o.log 2>&1
      row "2 GPUs strong 256x256x128 $m split, overlap $o: s/iter" "$(spi $W/o$m$o.log)"
    done
  done
  ADIFLOW_BLOCK_TIMING=1 $RUN -np 2 build/adiflow_mpi bench/cases/strong256.nml --backend cuda --max-iter 100 \
    --adi-mode exact --run-dir $W/oev > $W/oev.log 2>&1
  echo "== event timings, exact split, overlapped (s/iter $(spi $W/oev.log))"; grep -E "rank [01] " $W/oev.log
fi

if [ "$MODE" = mexact ]; then
  # exact mode with the merged kernels: strict bit-identity, then 1 vs 2 GPUs
  C=cases/cube32_gpu_check.nml; S=build/strict
  $S/adiflow $C --backend cpu --run-dir $W/ser > $W/ser.log 2>&1
  for g in "2 1" "1 2"; do
    set -- $g
    $RUN -np 2 $S/adiflow_mpi $C --backend cuda --kernels merged --adi-mode exact --npj $1 --npk $2 --run-dir $W/exm$1$2 > $W/exm$1$2.log 2>&1
    row "strict exact ${1}x${2} GPUs, merged kernels vs serial CPU: field.dump" "$(same $W/ser/field.dump $W/exm$1$2/field.dump)"
    row "strict exact ${1}x${2} GPUs, merged kernels vs serial CPU: residual history" "$(same <(hist $W/ser/residual.dat) <(hist $W/exm$1$2/residual.dat))"
  done
  ITER=${ITER:-200}
  for r in "s1 1 strong256" "w1 1 weak256" "s2 2 strong256" "w2 2 weak256x2"; do
    set -- $r
    $RUN -np $2 build/adiflow_mpi bench/cases/$3.nml --backend cuda --max-iter $ITER --kernels merged --adi-mode exact \
      --run-dir $W/m$1 > $W/m$1.log 2>&1
    echo "m$1 rc=$? s/iter=$(spi $W/m$1.log)"
  done
  row "1 GPU 256x256x128 / 256^3 (merged): s/iter" "$(spi $W/ms1.log) / $(spi $W/mw1.log)"
  row "2 GPUs strong 256x256x128 exact merged: s/iter, efficiency" "$(spi $W/ms2.log)  $(eff $(spi $W/ms1.log) $(spi $W/ms2.log) 2)"
  row "2 GPUs weak 256^3/GPU exact merged: s/iter, efficiency" "$(spi $W/mw2.log)  $(eff $(spi $W/mw1.log) $(spi $W/mw2.log) 1)"
fi

if [ "$MODE" = bench ] || [ "$MODE" = all ]; then
  ITER=${ITER:-200}
  bench() { # name np case args...
    local name=$1 np=$2 c=$3; shift 3
    $RUN -np $np build/adiflow_mpi $c --backend cuda --max-iter $ITER "$@" --run-dir $W/$name > $W/$name.log 2>&1
    local rc=$?
    local s; s=$(spi $W/$name.log)
    echo "$name rc=$rc s/iter=$s" >&2; [ $rc = 0 ] || tail -n 5 $W/$name.log >&2
    echo "$s"
  }
  declare -A t
  for k in split merged; do
    t[s1$k]=$(bench s1$k 1 bench/cases/strong256.nml --kernels $k --adi-mode decoupled | tail -n 1)
    t[w1$k]=$(bench w1$k 1 bench/cases/weak256.nml --kernels $k --adi-mode decoupled | tail -n 1)
  done
  for m in decoupled exact; do
    for k in split merged; do
      t[s2$m$k]=$(bench s2$m$k 2 bench/cases/strong256.nml --kernels $k --adi-mode $m | tail -n 1)
      t[w2$m$k]=$(bench w2$m$k 2 bench/cases/weak256x2.nml --kernels $k --adi-mode $m | tail -n 1)
    done
  done
  t[s2exactsplitc4]=$(bench s2exactsplitc4 2 bench/cases/strong256.nml --kernels split --adi-mode exact --chunks 4 | tail -n 1)
  for k in split merged; do
    row "1 GPU 256x256x128 ($k): s/iter" "${t[s1$k]}"
    row "1 GPU 256^3 ($k): s/iter" "${t[w1$k]}"
  done
  for m in decoupled exact; do
    for k in split merged; do
      row "2 GPUs strong 256x256x128 $m $k: s/iter, efficiency" "${t[s2$m$k]}  $(eff ${t[s1$k]} ${t[s2$m$k]} 2)"
      row "2 GPUs weak 256^3/GPU $m $k: s/iter, efficiency" "${t[w2$m$k]}  $(eff ${t[w1$k]} ${t[w2$m$k]} 1)"
    done
  done
  row "2 GPUs strong 256x256x128 exact split, 4 pipeline chunks: s/iter, eff." "${t[s2exactsplitc4]}  $(eff ${t[s1split]} ${t[s2exactsplitc4]} 2)"
  # event timings of the exchanges and sweeps (ADIFLOW_BLOCK_TIMING: read one call later, the run keeps its pace)
  for m in exact decoupled; do
    ADIFLOW_BLOCK_TIMING=1 $RUN -np 2 build/adiflow_mpi bench/cases/strong256.nml --backend cuda --max-iter 100 \
      --adi-mode $m --run-dir $W/ev$m > $W/ev$m.log 2>&1
    echo "== event timings, $m, 2 GPUs strong 256x256x128 (s/iter $(spi $W/ev$m.log))"; grep -E "rank [01] " $W/ev$m.log
  done
  # one GPU, per-kernel times of the half block (what each rank computes in the strong case)
  ADIFLOW_GPU_TIMING=1 $RUN -np 2 build/adiflow_mpi bench/cases/strong256.nml --backend cuda --max-iter 30 \
    --adi-mode decoupled --run-dir $W/evk > $W/evk.log 2>&1
  echo "== per-kernel times on a rank, decoupled 2 GPUs (synchronised every iteration)"; sed -n '/GPU kernel times/,/iteration /p' $W/evk.log | head -n 30
fi
tar czf $O/logs.tgz -C $W $(cd $W && ls *.log) 2>/dev/null
echo; echo "================ multi-GPU CFD summary ($MODE) ================"; cat $T
cp $T $O/table_mpi_$MODE.txt

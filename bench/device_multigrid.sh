#!/usr/bin/env bash
# FAS multigrid on the GPU machine; builds nothing (carry build/ with the
# fast build and build/strict/ with the strict one; on the device copy
# devbin/ to build/ first if that is where they travelled).
#   check   CPU reference vs GPU, both kernel families: strict build bit for
#           bit (dump and residual history), fast build within 1e-12, on
#           tests/cases/mg_cube16.nml (W-cycle, semi-coarsening), its
#           preconditioned twin mg_cube16_turkel.nml and
#           tests/cases/mg_cavity2d.nml (quasi-2D V-cycle); compute-sanitizer
#           memcheck of a few cycles per family
#   bench   cube Re = 100, 400, 1000 at 64^3 (and 128^3 with "bench 128"),
#           beta 1.2, lid Mach 0.1, CFL 10, to a 7-order drop: single grid
#           vs multigrid; iterations or cycles, work units, wall seconds; the
#           centreline profiles and residual histories go to $OUT
#   single128  the single-grid 128^3 runs of the table (long: ~40k iterations)
#   blocks  multi-block sets on one GPU (fortran/backend_blocks_gpu.f90)
#           against the CPU over the same blocks, both kernel families: a
#           box in two blocks (W-cycles, mass_fix, 10 orders), the NACA
#           0012 deck's three blocks (40 cycles over 4 levels, patches) and
#           a box in 8 blocks, half of them turned (10 orders): the
#           strict build bit for bit (every block's restart file and the
#           residual history), the fast build within 1e-12; the C-grid stored
#           as one block (cut at its wake cut) bit for bit the CPU's 3-block
#           run; compute-sanitizer memcheck of 3 NACA and 3 turned-box
#           cycles per family
#   blocks_mpi  the sets over MPI ranks, one GPU a rank (build/adiflow_mpi;
#           NP ranks, default every GPU up to 4; the box in 4 blocks and the
#           turned box in 8, the NACA deck on up to 3, and on 4 cut into 4
#           blocks): strict build bit for bit against the CPU
#           over the same blocks, both families; memcheck on 2 ranks; the NACA deck's time on 2
#           and 3 GPUs
#   blocks_scale  the NACA C-grid at levels 1 and 2 and a 128^3 box in 2 blocks:
#           ms a W-cycle on 1 GPU and on 2, 3, 4 ranks x 1 GPU, halos between
#           the ranks over NCCL and through host memory (ADIFLOW_BLOCK_TRANSPORT=mpi)
#   whole   the 64^3 Re = 1000 deck's whole-process wall and its 128^3 form's
#           set-up (OLD=DIR: another build's adiflow alternately, an A/B)
#   cycles  the 64^3 Re = 1000 deck (DECK) with other settings (VARIANTS: NAME=KEY=VALUE/KEY=VALUE...,
#           each a key the deck sets), whole-process wall
#   accuracy  the 64^3 Re = 1000 deck (DECK) at several wall clusterings (BETAS), RUNS times: whole
#           wall and extrema against Albensoeder & Kuhlmann; its single-grid form
#   decks   every shipped deck with a tol (cases/*.nml) as shipped, on the GPU:
#           did it reach its own tolerance
#   steady  64^3 Re = 400 and 1000 with mass_fix to a 10-order drop, single
#           grid and multigrid: the converged fields agree to 1e-8 relative
# bench, single128 and steady use the plain scheme of the recorded table
# (ROE=none LIMITER=vanalbada); ROE=rieper LIMITER=venkat measures the
# solver's defaults. The cycle is the &multigrid default W(2,2) with
# second-order coarse levels; PRE=1 POST=1 CORDER=1 gives the W(1,1)
# first-order one of the tables recorded before 2026-11-27. PC=turkel (with
# ROE=rieper) runs bench and steady preconditioned.
# Prints a table last. Usage: bash bench/device_multigrid.sh check|blocks|blocks_mpi|blocks_scale|whole|cycles|accuracy|bench [128]|single128|decks|steady
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; W=/tmp/mgdev; mkdir -p $W $O
T=$W/table_${1:-check}.txt; : > $T
row() { printf "%-70s %s\n" "$1" "$2" | tee -a $T; }
hist() { grep -v '^#' "$1" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a $T

check() {
  local c fam
  # the test cube with the &multigrid defaults (W(2,2), second-order coarse levels)
  sed 's/pre_smooth = 1, post_smooth = 1, coarse_smooth = 2, coarse_order = 1/pre_smooth = 2, post_smooth = 2/' \
    tests/cases/mg_cube16.nml > $W/mg_cube16_defaults.nml
  for c in mg_cube16 mg_cube16_defaults mg_cube16_turkel mg_cavity2d; do
    local deck=tests/cases/$c.nml; [ -f $deck ] || deck=$W/$c.nml
    build/adiflow $deck --backend cpu --run-dir $W/$c-cpu > $W/$c-cpu.log 2>&1
    for fam in split merged; do
      build/strict/adiflow $deck --backend gpu --kernels $fam --run-dir $W/$c-s-$fam > $W/$c-s-$fam.log 2>&1
      if build/compare_fields $W/$c-cpu/field.dump $W/$c-s-$fam/field.dump --quiet \
         && cmp -s <(hist $W/$c-cpu/residual.dat) <(hist $W/$c-s-$fam/residual.dat); then
        row "$c strict GPU $fam == CPU (dump + residual history, bit for bit)" PASS
      else
        row "$c strict GPU $fam == CPU (dump + residual history, bit for bit)" FAIL
        build/compare_fields $W/$c-cpu/field.dump $W/$c-s-$fam/field.dump --tol 1 | tail -n 3
        tail -n 5 $W/$c-s-$fam.log
      fi
      build/adiflow $deck --backend gpu --kernels $fam --run-dir $W/$c-f-$fam > $W/$c-f-$fam.log 2>&1
      build/compare_fields $W/$c-cpu/field.dump $W/$c-f-$fam/field.dump --tol 1e-12 > $W/cmp.txt 2>&1 \
        && row "$c fast GPU $fam vs CPU <= 1e-12" PASS || { row "$c fast GPU $fam vs CPU <= 1e-12" FAIL; cat $W/cmp.txt; }
    done
  done
  for fam in split merged; do
    compute-sanitizer --tool memcheck --error-exitcode 9 build/adiflow tests/cases/mg_cube16.nml --backend gpu \
      --kernels $fam --max-iter 3 --run-dir $W/san-$fam > $W/san-$fam.log 2>&1
    row "compute-sanitizer memcheck, multigrid $fam, 3 W-cycles" "$([ $? = 0 ] && echo PASS || echo FAIL) ($(grep -c 'ERROR SUMMARY: 0' $W/san-$fam.log) clean summary)"
    compute-sanitizer --tool memcheck --error-exitcode 9 build/adiflow tests/cases/mg_cube16_turkel.nml --backend gpu \
      --kernels $fam --max-iter 3 --run-dir $W/sanpc-$fam > $W/sanpc-$fam.log 2>&1
    row "compute-sanitizer memcheck, preconditioned multigrid $fam, 3 W-cycles" "$([ $? = 0 ] && echo PASS || echo FAIL)"
  done
}

# the NACA deck's grids (make's grids target; no compiler here: build/make_grid is carried)
naca_grids() {
  [ -f cases/grids/naca0012_c3_128x64.x ] || BUILD=build bash validation/naca_case.sh grid 1 cases/grids > /dev/null \
    || row "grids for the NACA 0012 deck" FAIL
}

# the multi-block decks: mb_box, a curvilinear box cut at nodes SPLIT (make_grid --split), W-cycles,
# mass_fix, to 1e-10; naca, the shipped deck's three blocks, 40 cycles; tb8 (turned_box_decks), a box in
# 8 blocks with half of them turned (i faces joined to k faces, corners of three interfaces), to 1e-10
. tests/suites/turned_box_decks.sh
block_decks() {
  naca_grids
  build/make_grid box --ni 12 --nj 10 --nk 4 --split $1 -o $W/box.x > /dev/null
  cat > $W/mb_box.nml <<EON
&adiflow
  grid_file = '$W/box.x', reynolds = 100.0, mach = 0.2, limiter = 'vanalbada', roe_low_mach = 'none'
  cfl = 10.0, max_iter = 3000, tol = 1.0e-10, mass_fix = .true., monitor_interval = 10
  write_plot = .false., write_tecplot = .false.
/
&multigrid
  levels = 2, cycle = 'w', pre_smooth = 1, post_smooth = 1
/
EON
}
# naca1: the deck's C-grid stored as one block (run cut at its wake cut into the three blocks)
naca_one_block() {
  build/make_grid naca0012 --na 128 --nw 32 --nj 64 --first 0.002 -o $W/c1.x > /dev/null
  printf 'imin farfield\nimax farfield\njmax farfield\njmin wall 33:160 1:1\n' > $W/c1.bc
  sed "s|grid_file = '[^']*', patch_file = '[^']*'|grid_file = '$W/c1.x', patch_file = '$W/c1.bc'|" \
    cases/naca0012_re5000.nml > $W/naca1.nml
}
deck_of() { [ $1 = naca ] && echo cases/naca0012_re5000.nml || echo $W/$1.nml; }
args_of() { case $1 in naca|naca1|naca4) echo "--max-iter 40";; esac; }
# same_blocks REF DIR [TOL]: every block's restart file of run REF in run DIR, bit for bit (and the
# residual history), or within TOL
same_blocks() {
  local f
  for f in $W/$1/restart.b*.bin; do
    if [ -n "${3:-}" ]; then
      build/compare_fields $f $W/$2/$(basename $f) --tol $3 > $W/cmp.txt 2>&1 || { cat $W/cmp.txt; return 1; }
    else
      build/compare_fields $f $W/$2/$(basename $f) --quiet > /dev/null 2>&1 || return 1
    fi
  done
  [ -n "${3:-}" ] || cmp -s <(hist $W/$1/residual.dat) <(hist $W/$2/residual.dat)
}
verdict() { # ROW LOG: PASS when the last test held, else FAIL with the log's errors
  if [ $? = 0 ]; then row "$1" PASS; else row "$1" FAIL; grep -m 3 -i "error" $2; tail -n 3 $2; fi
}

blocks() {
  local c fam
  block_decks 6
  turned_box_decks build $W
  for c in mb_box naca tb8; do
    build/adiflow $(deck_of $c) --backend cpu $(args_of $c) --run-dir $W/$c-cpu > $W/$c-cpu.log 2>&1
    for fam in split merged; do
      build/strict/adiflow $(deck_of $c) --backend gpu --kernels $fam $(args_of $c) --run-dir $W/$c-s-$fam > $W/$c-s-$fam.log 2>&1
      same_blocks $c-cpu $c-s-$fam && grep -q "every block on it" $W/$c-s-$fam.log
      verdict "$c strict GPU $fam over blocks == CPU (each block's restart + residual history)" $W/$c-s-$fam.log
      build/adiflow $(deck_of $c) --backend gpu --kernels $fam $(args_of $c) --run-dir $W/$c-f-$fam > $W/$c-f-$fam.log 2>&1
      same_blocks $c-cpu $c-f-$fam 1e-12
      verdict "$c fast GPU $fam over blocks vs CPU <= 1e-12 (each block)" $W/$c-f-$fam.log
    done
  done
  naca_one_block
  for fam in split merged; do
    build/strict/adiflow $W/naca1.nml --backend gpu --kernels $fam --max-iter 40 --run-dir $W/naca1-s-$fam > $W/naca1-s-$fam.log 2>&1
    same_blocks naca-cpu naca1-s-$fam && grep -q "cut where an interface covers part of a face" $W/naca1-s-$fam.log
    verdict "naca C-grid as one block, strict GPU $fam == CPU on the 3-block file (each block's restart + history)" \
      $W/naca1-s-$fam.log
  done
  for fam in split merged; do
    compute-sanitizer --tool memcheck --error-exitcode 9 build/adiflow cases/naca0012_re5000.nml --backend gpu \
      --kernels $fam --max-iter 3 --run-dir $W/sanb-$fam > $W/sanb-$fam.log 2>&1
    verdict "compute-sanitizer memcheck, NACA 3 blocks $fam, 3 W-cycles" $W/sanb-$fam.log
    compute-sanitizer --tool memcheck --error-exitcode 9 build/adiflow $W/tb8.nml --backend gpu \
      --kernels $fam --max-iter 3 --run-dir $W/sant-$fam > $W/sant-$fam.log 2>&1
    verdict "compute-sanitizer memcheck, box in 8 blocks, half turned, $fam, 3 W-cycles" $W/sant-$fam.log
  done
}

# the blocks over NP ranks (default: every GPU, up to 4), one GPU a rank; the box in 4 blocks
blocks_mpi() {
  local c fam np ngpu
  ngpu=$(nvidia-smi -L | grep -c '^GPU')
  np=${NP:-$(( ngpu < 4 ? ngpu : 4 ))}
  # OpenMPI's Fortran bindings carried in build/mpilibs where the machine lacks them
  ldd build/adiflow_mpi | grep -q "not found" && export LD_LIBRARY_PATH=$PWD/build/mpilibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  block_decks 3,6,9
  turned_box_decks build $W
  # naca4: the NACA deck's 3 blocks cut into 4 (min_blocks, as 4 ranks cut them), on 4 ranks
  sed -e "s|grid_file = 'grids/|grid_file = '$PWD/cases/grids/|" -e "s|patch_file = 'grids/|patch_file = '$PWD/cases/grids/|" \
    -e '/^&adiflow/a\  min_blocks = 4' cases/naca0012_re5000.nml > $W/naca4.nml
  local cases="mb_box naca tb8"; [ $np -ge 4 ] && cases="$cases naca4"
  for c in $cases; do
    local n=$np; [ $c = naca ] && [ $n -gt 3 ] && n=3
    build/adiflow $(deck_of $c) --backend cpu $(args_of $c) --run-dir $W/$c-cpu > $W/$c-cpu.log 2>&1
    for fam in split merged; do
      mpirun --allow-run-as-root --bind-to none -np $n build/strict/adiflow_mpi $(deck_of $c) --backend gpu --kernels $fam \
        $(args_of $c) --run-dir $W/$c-m-$fam > $W/$c-m-$fam.log 2>&1
      same_blocks $c-cpu $c-m-$fam && grep -q "one GPU a rank" $W/$c-m-$fam.log && grep -q "ranks GPU to GPU" $W/$c-m-$fam.log
      verdict "$c strict GPU $fam over blocks, $n ranks x 1 GPU (halos GPU to GPU) == CPU (restarts + histories)" $W/$c-m-$fam.log
    done
  done
  # API errors not reported: NCCL probes its kernels' images (cudaErrorNoKernelImageForDevice, handled)
  mpirun --allow-run-as-root --bind-to none -np 2 compute-sanitizer --tool memcheck --report-api-errors no \
    --error-exitcode 9 build/adiflow_mpi $W/tb8.nml --backend gpu --max-iter 3 --run-dir $W/sanm > $W/sanm.log 2>&1
  verdict "compute-sanitizer memcheck, turned box in 8 blocks on 2 ranks x 1 GPU (halos GPU to GPU), 3 W-cycles" $W/sanm.log
  for n in 2 3 4; do
    [ $n -gt $ngpu ] && continue
    t0=$(date +%s.%N)
    mpirun --allow-run-as-root --bind-to none -np $n build/adiflow_mpi cases/naca0012_re5000.nml --backend gpu \
      --run-dir $W/naca-${n}gpu > $W/naca-${n}gpu.log 2>&1
    t1=$(date +%s.%N)
    row "cases/naca0012_re5000.nml on $n ranks x 1 GPU, whole run" \
      "$(grep -o 'converged at iteration [0-9]*' $W/naca-${n}gpu.log || echo NOT CONVERGED), $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b-a}') s"
  done
}

# Seconds a W-cycle of a block set on 1 GPU (build/adiflow) and on 2, 3, 4 ranks x 1 GPU (adiflow_mpi),
# the halos between the ranks GPU to GPU over NCCL and, with ADIFLOW_BLOCK_TRANSPORT=mpi, through host
# memory: the difference of a CYC-cycle run (default 60) and a 10-cycle one, so that set-up, the first
# cycle's warm-up and the outputs drop out. Cases: the NACA C-grid at levels 1 and 2
# (validation/naca_case.sh's grids, 3 + level multigrid levels; its level 3 folds at the trailing edge)
# and a 128^3 cavity box cut at i = 65 into two blocks of 64 x 128 x 128 (4 levels).
blocks_scale() {
  local l n tr c ngpu cyc=${CYC:-60}
  ngpu=$(nvidia-smi -L | grep -c '^GPU')
  ldd build/adiflow_mpi | grep -q "not found" && export LD_LIBRARY_PATH=$PWD/build/mpilibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  loop_s() { awk '/time: set-up/ { for (i = 1; i <= NF; ++i) if ($i == "iterations") print $(i + 1) }' "$1"; }
  # per_cycle NAME CMD...: CMD run for 10 and for cyc cycles
  per_cycle() {
    local name=$1 t10 tn; shift
    "$@" --max-iter 10 --run-dir $W/$name-10 > $W/$name-10.log 2>&1
    "$@" --max-iter $cyc --run-dir $W/$name-n > $W/$name-n.log 2>&1
    t10=$(loop_s $W/$name-10.log); tn=$(loop_s $W/$name-n.log)
    [ -n "$t10" ] && [ -n "$tn" ] && awk -v a=$t10 -v b=$tn -v c=$cyc 'BEGIN { printf "%.2f ms a cycle", 1000 * (b - a) / (c - 10) }' \
      || { echo FAIL; tail -n 3 $W/$name-n.log; }
  }
  for l in 1 2; do
    c=naca0012_c3_$((128 << (l - 1)))x$((64 << (l - 1)))
    BUILD=build bash validation/naca_case.sh grid $l $W/g$l > /dev/null || { row "NACA level $l grid" FAIL; continue; }
    sed -e "s|grid_file = '[^']*'|grid_file = '$W/g$l/$c.x'|" -e "s|patch_file = '[^']*'|patch_file = '$W/g$l/$c.bc'|" \
      -e "s|levels = [0-9]*|levels = $((3 + l))|" -e "s|tol = [^,]*|tol = 1.0e-14|" cases/naca0012_re5000.nml > $W/s$l.nml
  done
  build/make_grid box --ni 128 --nj 128 --nk 128 --split 65 -o $W/box128.x > /dev/null
  cat > $W/s3.nml <<EON
&adiflow
  grid_file = '$W/box128.x', reynolds = 100.0, mach = 0.2, cfl = 10.0, max_iter = 3000, tol = 1.0e-14
  monitor_interval = 10, write_plot = .false., write_tecplot = .false.
/
&multigrid
  levels = 4, cycle = 'w'
/
EON
  for l in 1 2 3; do
    [ $l = 3 ] && c="box 128^3 in 2 blocks" || c="NACA level $l"
    row "$c, 1 GPU" "$(per_cycle s$l-1 build/adiflow $W/s$l.nml --backend gpu)"
    for n in 2 3 4; do
      [ $n -gt $ngpu ] && continue
      for tr in nccl mpi; do
        row "$c, $n ranks x 1 GPU, halos $tr" "$(per_cycle s$l-$n$tr env ADIFLOW_BLOCK_TRANSPORT=$tr mpirun --allow-run-as-root \
          --bind-to none -x ADIFLOW_BLOCK_TRANSPORT -np $n build/adiflow_mpi $W/s$l.nml --backend gpu)"
      done
    done
  done
}

# Whole-process wall of cases/cube64_re1000.nml as shipped, and of cases/cube128_re1000.nml for 20
# cycles, with the time line's set-up / iterations / outputs split; RUNS times each (default 3), and
# where OLD names another build's folder, its adiflow alternately in the same call (an A/B of set-up).
whole() {
  local b r n t0 t1 deck bins="build${OLD:+ $OLD}"
  # an adiflow takes its block shapes from tune/ beside it (the built-in ones without): an A/B
  # whose binaries differ there measures the tables too
  for b in $bins; do
    cmp -s <(cat build/tune/*.txt 2>/dev/null) <(cat $b/tune/*.txt 2>/dev/null) \
      || row "$b/tune differs from build/tune (or is missing): copy build/tune there for a fair A/B" WARN
  done
  for r in $(seq ${RUNS:-3}); do
    for b in $bins; do
      for deck in cases/cube64_re1000.nml cases/cube128_re1000.nml; do
        n=$(basename $deck .nml); local extra=""; [ $n = cube128_re1000 ] && extra="--max-iter 20"
        rm -rf $W/wh; t0=$(date +%s.%N)
        $b/adiflow $deck --backend gpu $extra --run-dir $W/wh > $W/wh.log 2>&1
        t1=$(date +%s.%N)
        row "$n ${extra:+($extra) }$b run $r: $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" \
          "$(grep -o 'set-up.*' $W/wh.log | head -n 1)"
      done
    done
  done
}

# The 64^3 Re = 1000 deck with its &multigrid group's settings replaced: VARIANTS, words NAME=SETTINGS
# with SETTINGS the group's keys joined by '/' (default: the deck's V(2,2) against its earlier W(1,1)); RUNS rounds
# (default 3), the variants alternating; whole-process wall, cycles, the time line's split.
cycles() {
  local v name kv r t0 t1 deck=${DECK:-cases/cube64_re1000.nml} label
  label="$(sed -n 's/^ *ni = \([0-9]*\),.*/\1/p' $deck)^3 Re=1000"
  for r in $(seq ${RUNS:-3}); do
    for v in ${VARIANTS:-"deck=levels=3/cycle='v'/pre_smooth=2/post_smooth=2/coarse_smooth=8" "w11l4=levels=4/cycle='w'/pre_smooth=1/post_smooth=1"}; do
      name=${v%%=*}; cp $deck $W/cy_$name.nml
      # each KEY=VALUE replaces that key's value where the deck sets it
      for kv in $(echo "${v#*=}" | tr '/' ' '); do
        grep -qE "(^|[ ,])${kv%%=*} = " $W/cy_$name.nml || { row "$name: $deck sets no ${kv%%=*}" FAIL; continue 2; }
        sed -i -E "s/(^|[ ,])${kv%%=*} = [^,!]*[^,! ]/\1${kv%%=*} = ${kv#*=}/" $W/cy_$name.nml
      done
      rm -rf $W/cy; t0=$(date +%s.%N)
      build/adiflow $W/cy_$name.nml --backend gpu --run-dir $W/cy > $W/cy.log 2>&1
      t1=$(date +%s.%N)
      row "$label $name run $r: $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}') s" \
        "$(grep -o 'converged at iteration [0-9]*' $W/cy.log || echo 'NOT CONVERGED'); $(grep -o 'set-up.*' $W/cy.log | head -n 1)"
      [ $r = 1 ] && build/cube_compare $W/cy/centreline_u.csv validation/data/albensoeder_kuhlmann2005/cube_Re1000_u_vertical_centreline.csv \
        $W/cy/centreline_v.csv validation/data/albensoeder_kuhlmann2005/cube_Re1000_v_horizontal_centreline.csv \
        validation/data/albensoeder_kuhlmann2005/cube_Re1000_extrema.csv 100 1 --label "$name" 2>&1 | grep -E '^  (min|max) ' | tee -a $T
    done
  done
}

# Time to accuracy: cases/cube64_re1000.nml as shipped and with its wall clustering beta (BETAS,
# default "1.2 1.4 1.6") to its own tol, whole-process wall, and its extrema against Albensoeder &
# Kuhlmann (2005) (build/cube_compare, validation/run_cube.sh's reference files); then the same deck
# single grid (the multigrid's speed-up, whole process).
accuracy() {
  local beta t0 t1 A=validation/data/albensoeder_kuhlmann2005 n deck=${DECK:-cases/cube64_re1000.nml} r
  for beta in ${BETAS:-1.2 1.4 1.6}; do
   for r in $(seq ${RUNS:-1}); do
    n=acc_b$beta
    sed "s/beta_x = [0-9.]*, beta_y = [0-9.]*, beta_z = [0-9.]*/beta_x = $beta, beta_y = $beta, beta_z = $beta/" \
      $deck > $W/$n.nml
    rm -rf $W/$n; t0=$(date +%s.%N)
    build/adiflow $W/$n.nml --backend gpu --run-dir $W/$n > $W/$n.log 2>&1
    t1=$(date +%s.%N)
    row "$(basename $deck .nml), beta $beta: $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" \
      "$(grep -o 'converged at iteration [0-9]*' $W/$n.log || echo 'NOT CONVERGED'); $(grep -o 'set-up.*' $W/$n.log | head -n 1)"
    [ $r = 1 ] && build/cube_compare $W/$n/centreline_u.csv $A/cube_Re1000_u_vertical_centreline.csv $W/$n/centreline_v.csv \
      $A/cube_Re1000_v_horizontal_centreline.csv $A/cube_Re1000_extrema.csv 100 1 --label "beta $beta" 2>&1 \
      | grep -E '^  (min|max) |largest' | tee -a $T
   done
  done
  [ "${SINGLE:-1}" = 1 ] || return 0
  # single grid as the earlier tables ran it: unpreconditioned (the preconditioning is the cycle's)
  sed -e 's/levels = [0-9]*/levels = 1/' -e '/precondition = /d' cases/cube64_re1000.nml > $W/acc_sg.nml
  rm -rf $W/acc_sg; t0=$(date +%s.%N)
  build/adiflow $W/acc_sg.nml --backend gpu --max-iter 40000 --run-dir $W/acc_sg > $W/acc_sg.log 2>&1
  t1=$(date +%s.%N)
  row "64^3 Re=1000 deck single grid, unpreconditioned: $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s" \
    "$(grep -o 'converged at iteration [0-9]*' $W/acc_sg.log || echo 'NOT CONVERGED')"
}

# one run to a 7-order drop (TOL, MASSFIX override): name n re levels maxit
solve() {
  local name=$1 n=$2 re=$3 lev=$4 maxit=$5 t0 t1 tol=${TOL:-1.0e-7} mf=${MASSFIX:-.false.}
  cat > $W/$name.nml <<EON
&adiflow
  title = '$name'
  ni = $n, nj = $n, nk = $n
  beta_x = 1.2, beta_y = 1.2, beta_z = 1.2
  reynolds = $re, mach = 0.1
  limiter = '${LIMITER:-vanalbada}', roe_low_mach = '${ROE:-none}', precondition = '${PC:-none}'
  cfl = 10.0, cfl_start = 1.0, cfl_ramp_iters = 200
  max_iter = $maxit, tol = $tol, mass_fix = $mf, monitor_interval = 10
  write_vtk = .false., write_tecplot = .false., write_plot = .false., kernels = 'merged'
/
&multigrid
  levels = $lev, cycle = 'w', pre_smooth = ${PRE:-2}, post_smooth = ${POST:-2}, coarse_smooth = 2, coarse_order = ${CORDER:-2}
/
EON
  t0=$(date +%s.%N)
  build/adiflow $W/$name.nml --backend gpu --run-dir $W/$name > $W/$name.log 2>&1
  t1=$(date +%s.%N)
  local last; last=$(grep -v '^#' $W/$name/residual.dat | tail -n 1)
  row "$name" "$(echo "$last" | awk '{printf "steps %6d  drop %5.2f  work %9.1f", $1, $8, $10}')  wall $(awk -v a=$t0 -v b=$t1 "BEGIN{printf \"%.1f\", b-a}") s"
  mkdir -p $W/keep/$name
  cp $W/$name/residual.dat $W/$name/centreline_*.csv $W/$name.log $W/keep/$name/ 2>/dev/null
}

case "${1:-check}" in
  check) check ;;
  blocks) blocks ;;
  blocks_mpi) blocks_mpi ;;
  blocks_scale) blocks_scale ;;
  whole) whole ;;
  cycles) cycles ;;
  accuracy) accuracy ;;
  bench)
    sizes=64; [ "${2:-}" = 128 ] && sizes="64 128"
    for n in $sizes; do
      for re in 100 400 1000; do
        solve mg${n}_re$re $n $re 5 3000
        [ $n = 64 ] && solve sg${n}_re$re $n $re 1 40000
      done
    done ;;
  single128)
    for re in 100 400 1000; do solve sg128_re$re 128 $re 1 60000; done ;;
  decks)
    # the open-boundary decks' grids and patch files (make's grids target; no
    # compiler here: build/make_grid is carried)
    [ -f cases/grids/.made ] || for c in channel plate cylinder; do
      BUILD=build bash validation/open_case.sh grid $c 2 cases/grids > /dev/null || row "grids for the $c deck" FAIL
    done
    naca_grids
    for c in cases/*.nml; do
      grep -qE '^ *[^!]*\btol *=' $c || continue
      n=$(basename $c .nml); t0=$(date +%s.%N)
      build/adiflow $c --backend gpu --kernels merged --run-dir $W/deck_$n > $W/deck_$n.log 2>&1; rc=$?; t1=$(date +%s.%N)
      row "cases/$n.nml (exit $rc, $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b-a}') s)" \
        "$(grep -q 'converged at iteration' $W/deck_$n.log && grep -o 'converged at iteration [0-9]*.*' $W/deck_$n.log | head -n 1 || echo 'NOT CONVERGED')"
    done ;;
  steady)
    for re in 400 1000; do
      TOL=1.0e-10 MASSFIX=.true. solve st_mg64_re$re 64 $re 5 5000
      TOL=1.0e-10 MASSFIX=.true. solve st_sg64_re$re 64 $re 1 80000
      build/compare_fields $W/st_mg64_re$re/field.dump $W/st_sg64_re$re/field.dump --tol 1e-8 > $W/cmp.txt 2>&1
      row "64^3 Re=$re, 10 orders, mass_fix: multigrid vs single grid <= 1e-8 relative" "$([ $? = 0 ] && echo PASS || echo FAIL)"
      sed -n '3,8p' $W/cmp.txt | tee -a $T
    done ;;
esac
[ -d $W/keep ] && tar czf $O/multigrid_${1:-check}_runs.tgz -C $W/keep .
echo; echo "================ multigrid device summary ================"; cat $T
cp $T $O/

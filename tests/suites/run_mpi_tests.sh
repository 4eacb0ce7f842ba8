#!/usr/bin/env bash
# adiflow MPI test suite (CPU, OpenMPI): build/adiflow_mpi against the serial
# build/adiflow. Exact mode must be bit-identical (assembled field.dump,
# residual history, profiles, Tecplot) for 1, 2 and 4 ranks in 1x2, 2x1,
# 2x2 and automatic decompositions, with periodic directions across ranks;
# decoupled mode must reach the same state (with mass_fix: the converged
# single-domain state of a Re=400 cube to 1e-8, and with multigrid exact
# mode's converged state to 1e-8); restart, outputs and faults;
# exact mode with implicit_precision = 'single' too; a grid from a Plot3D file
# and boundary patches (every file the run ends with, wall loads included) on
# 2x1, 1x2, 2x2, 3x1 and 1x3, single grid and multigrid, the force history
# (forces.dat, monitor_forces, restarts) to the last bits; bad patch and grid files.
# Multigrid keeps every level the grid allows: those the blocks cannot halve
# run gathered on rank 0, and exact mode still equals build/adiflow bit for
# bit (2x1, 1x2, 2x2, 3x1, 1x3; the fine level itself gathered on the last
# two; mass_fix, a restart, grid files, patches), decoupled mode converges;
# with whole_cells the coarse levels run whole on every rank, bit for bit too.
# A multi-block grid file spreads its blocks over the ranks: every file of
# build/adiflow's run bit for bit (1, 2, 3 ranks, a restart across rank
# counts), refusals by name.
# Ends with "N passed, N failed". About four minutes on 2 cores.
set -u
cd "$(dirname "$0")/../.."
B=build
T=$(mktemp -d /tmp/adiflow-mpi-tests.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass+1)); echo "PASS $*"; }
bad()  { fail=$((fail+1)); echo "FAIL $*"; }
expect() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }

# always through make: a binary older than its sources would test stale code
make -s mpi >/dev/null 2>&1 || { echo "FAIL cannot build build/adiflow_mpi (make mpi)"; echo "0 passed, 1 failed"; exit 1; }
export OMP_NUM_THREADS=1
NCORE=$(nproc 2>/dev/null || echo 1)
# OpenMPI as root needs --allow-run-as-root; more ranks than cores need --oversubscribe
# (only then: oversubscribed ranks yield when idle, which slows every message down)
mpi() { # mpi NP DIR ARGS... -> exit code echoed, log in $T/DIR.log
  local np=$1 d=$2; shift 2
  local extra=""; [ "$np" -gt "$NCORE" ] && extra="--oversubscribe"
  timeout 300 mpirun --allow-run-as-root $extra -np "$np" ./$B/adiflow_mpi "$@" --run-dir "$T/$d" > "$T/$d.log" 2>&1
  echo $?
}
ser() { local d=$1; shift; ./$B/adiflow "$@" --backend cpu --run-dir "$T/$d" > "$T/$d.log" 2>&1; echo $?; }
# within A B RTOL MTOL: rho and E within RTOL relative (max|a-b|/max|a|), the
# momenta within MTOL absolute (their scale is the lid momentum, 1; relative
# to max|rho*w| a quasi-2D case would compare round-off with round-off)
within() {
  ./$B/compare_fields "$1" "$2" 2>&1 | awk -v r="$3" -v m="$4" '
    $1=="rho" || $1=="E" { n++; if ($4+0 > r) badv++ }
    $1 ~ /^rho\*[uvw]$/ { n++; if ($2+0 > m) badv++ }
    END { exit !(n == 5 && badv == 0) }'
}
hist() { grep -v '^#' "$1" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'; }   # residual.dat without s/iter

C=tests/cases/mpi_cube12.nml
P=tests/cases/mpi_periodic.nml
rc=$(ser s_cube $C); expect '[ $rc -eq 0 ]' "serial reference run (cube 12x12x8, 40 iterations)"

# ---- multigrid over the blocks: every level the grid allows, bit-identical to build/adiflow ----
# levels the blocks cannot halve run gathered on rank 0 (fortran/multigrid_gather.f90):
# on 16x16x8 (4 levels) 2x1 gathers level 4, 1x2 and 2x2 levels 3..4, and 3x1
# (j blocks 6, 5, 5) and 1x3 (k blocks 3, 3, 2) levels 2..4, the fine level's
# state gathered and scattered every cycle
MG=tests/cases/mpi_mg_cube.nml
mghist() { grep -v "^#" "$1" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8,$10}'; }   # residual.dat with the work units
rc=$(ser s_mg4 $MG)
expect '[ $rc -eq 0 ] && grep -q "multigrid: 4 levels" "$T/s_mg4.log"' "serial multigrid reference (16x16x8, 4 levels, 20 W-cycles)"
for g in "2 2 1 4 3" "2 1 2 3 2" "4 2 2 3 2" "3 3 1 2 1" "3 1 3 2 1"; do
  set -- $g; np=$1; pj=$2; pk=$3; gl=$4; above=$5; d=mg_${np}_${pj}x$pk
  lv="levels $gl..4"; [ "$gl" -eq 4 ] && lv="level 4"
  said="$lv gathered onto rank 0 (the blocks of level $above cannot be halved"
  rc=$(mpi $np $d $MG --npj $pj --npk $pk --adi-mode exact)
  expect '[ $rc -eq 0 ] && grep -q "multigrid: 4 levels" "$T/$d.log" && [ $(grep -cF "$said" "$T/$d.log") -eq 1 ] \
    && cmp -s "$T/s_mg4/field.dump" "$T/$d/field.dump" && cmp -s <(mghist "$T/s_mg4/residual.dat") <(mghist "$T/$d/residual.dat")' \
    "multigrid, exact, ${pj}x$pk: 4 levels, $lv gathered onto rank 0 (said once), field and residual history (work units too) == build/adiflow, bit for bit"
done
# coarse levels whole on every rank (whole_cells, fortran/multigrid_whole.f90): the
# blocks restrict onto level W and take its corrected state back, every rank runs
# levels W..nlev whole; exact mode still equals build/adiflow bit for bit. On
# 16x16x8: 256 cells makes levels 2..4 whole, 40 levels 3..4; 16x24x8 on 3x1
# (j blocks of 8) with 48 cells levels 3..4 (its level 4 could not be split)
for g in "2 2 1 256 2..4" "2 1 2 256 2..4" "4 2 2 256 2..4" "2 2 1 40 3..4"; do
  set -- $g; np=$1; pj=$2; pk=$3; wc=$4; wl=$5; d=mgw_${pj}x${pk}_$wc
  rc=$(mpi $np $d $MG --npj $pj --npk $pk --adi-mode exact --whole-cells $wc)
  expect '[ $rc -eq 0 ] && [ $(grep -cF "levels $wl whole on every rank (at most $wc cells" "$T/$d.log") -eq 1 ] && ! grep -q gathered "$T/$d.log" \
    && cmp -s "$T/s_mg4/field.dump" "$T/$d/field.dump" && cmp -s <(mghist "$T/s_mg4/residual.dat") <(mghist "$T/$d/residual.dat")' \
    "multigrid, exact, ${pj}x$pk, whole_cells $wc: levels $wl whole on every rank (said once), field and residual history == build/adiflow, bit for bit"
done
sed 's/nj = 16/nj = 24/' $MG > "$T/mg24.nml"
rc=$(ser s_mg24 "$T/mg24.nml"); rc2=$(mpi 3 mgw_3x1 "$T/mg24.nml" --npj 3 --npk 1 --adi-mode exact --whole-cells 48)
expect '[ "$rc$rc2" = 00 ] && grep -q "nj = 24" "$T/mg24.nml" && grep -qF "levels 3..4 whole on every rank" "$T/mgw_3x1.log" \
  && cmp -s "$T/s_mg24/field.dump" "$T/mgw_3x1/field.dump" && cmp -s <(mghist "$T/s_mg24/residual.dat") <(mghist "$T/mgw_3x1/residual.dat")' \
  "multigrid, exact, 3x1 (16x24x8), whole_cells 48: levels 3..4 whole on every rank, bit-identical to build/adiflow"
# where the blocks cannot halve a level above the whole ones, that level is gathered as before
rc=$(mpi 3 mgw_3g $MG --npj 3 --npk 1 --adi-mode exact --whole-cells 256)
expect '[ $rc -eq 0 ] && grep -q "levels 2..4 gathered onto rank 0" "$T/mgw_3g.log" && ! grep -q "whole on every rank" "$T/mgw_3g.log" \
  && cmp -s "$T/s_mg4/field.dump" "$T/mgw_3g/field.dump"' \
  "multigrid, exact, 3x1 with whole_cells 256: level 2 cannot be split, so levels 2..4 are gathered (no whole levels), bit-identical"
# one rank has nothing to share: whole_cells changes nothing there
rc=$(mpi 1 mgw_1 $MG --whole-cells 256)
expect '[ $rc -eq 0 ] && ! grep -q "whole on every rank" "$T/mgw_1.log" && cmp -s "$T/s_mg4/field.dump" "$T/mgw_1/field.dump"' \
  "multigrid on one rank with whole_cells 256: no whole levels (nothing to save), bit-identical"
# low-Mach preconditioning (fortran/low_mach_precond.f90) over the blocks: exact mode bit for bit
PCD=tests/cases/mg_cube16_turkel.nml
rc=$(ser s_pc $PCD)
for g in "2 2 1" "2 1 2"; do
  set -- $g; np=$1; pj=$2; pk=$3; d=pc_${pj}x$pk
  rc2=$(mpi $np $d $PCD --npj $pj --npk $pk --adi-mode exact)
  expect '[ "$rc$rc2" = 00 ] && grep -q "precondition turkel" "$T/$d.log" && cmp -s "$T/s_pc/field.dump" "$T/$d/field.dump" \
    && cmp -s <(mghist "$T/s_pc/residual.dat") <(mghist "$T/$d/residual.dat")' \
    "precondition turkel, multigrid, exact, ${pj}x$pk: field and residual history == build/adiflow, bit for bit"
done
# the cycle of the Re = 1000 decks (preconditioned V(2,2), 8 coarsest-level iterations) over blocks
sed "s/^  levels = .*/  levels = 3, cycle = 'v', pre_smooth = 2, post_smooth = 2, coarse_smooth = 8/" $PCD > "$T/pcv.nml"
rc=$(ser s_pcv "$T/pcv.nml"); rc2=$(mpi 2 pcv_2x1 "$T/pcv.nml" --npj 2 --npk 1 --adi-mode exact)
expect '[ "$rc$rc2" = 00 ] && grep -q "V(2,2) cycle" "$T/pcv_2x1.log" && cmp -s "$T/s_pcv/field.dump" "$T/pcv_2x1/field.dump" \
  && cmp -s <(mghist "$T/s_pcv/residual.dat") <(mghist "$T/pcv_2x1/residual.dat") && ! cmp -s "$T/s_pcv/field.dump" "$T/s_pc/field.dump"' \
  "precondition turkel, V(2,2)-cycles (the Re = 1000 decks' cycle), exact, 2x1: field and residual history == build/adiflow, bit for bit"
rc=$(ser s_mgf $MG --mass-fix); rc2=$(mpi 3 mg_mf $MG --npj 3 --npk 1 --mass-fix)
expect '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$T/s_mgf/field.dump" "$T/mg_mf/field.dump" && ! cmp -s "$T/s_mgf/field.dump" "$T/s_mg4/field.dump"' \
  "multigrid + mass_fix, exact, 3x1 (levels 2..4 gathered): bit-identical to build/adiflow --mass-fix"
rc1=$(mpi 3 mg_half $MG --npj 1 --npk 3 --max-iter 10); rc2=$(mpi 3 mg_half $MG --npj 1 --npk 3 --restart)
expect '[ "$rc1$rc2" = 00 ] && grep -q "restarting from .* at iteration 10" "$T/mg_half.log" && cmp -s "$T/s_mg4/field.dump" "$T/mg_half/field.dump"' \
  "multigrid, restart on 1x3 (levels 2..4 gathered): 10 + restart + 10 cycles bit-identical to 20 serial cycles"
# decoupled mode with gathered levels: its own path, and it converges (the
# exact run drops 1.91 orders in these 60 W-cycles, decoupled 3x1 1.88)
rc=$(mpi 3 mg_dec $MG --npj 3 --npk 1 --adi-mode decoupled --max-iter 60)
drop=$(grep -v '^#' "$T/mg_dec/residual.dat" 2>/dev/null | tail -1 | awk '{print $8}')
expect '[ $rc -eq 0 ] && grep -q "levels 2..4 gathered onto rank 0" "$T/mg_dec.log" && awk -v d="${drop:-0}" "BEGIN { exit !(d >= 1.7) }"' \
  "multigrid, decoupled, 3x1 (levels 2..4 gathered): the residual drops ${drop:-?} >= 1.7 orders in 60 W-cycles"
# converged: decoupled multigrid with mass_fix reaches exact mode's steady
# state (a 10-order drop, Re = 100 so that it takes some 330 W-cycles)
sed -e 's/reynolds = 400.0/reynolds = 100.0/' \
    -e 's/max_iter = 20, monitor_interval = 5/max_iter = 1000, monitor_interval = 20, tol = 1.0e-10, mass_fix = .true./' \
    $MG > "$T/mg_steady.nml"
rc=$(mpi 2 mg_st_ex "$T/mg_steady.nml" --npj 2 --adi-mode exact); rc2=$(mpi 2 mg_st_dc "$T/mg_steady.nml" --npj 2 --adi-mode decoupled)
expect '[ "$rc$rc2" = 00 ] && grep -q "converged at iteration" "$T/mg_st_ex.log" && grep -q "converged at iteration" "$T/mg_st_dc.log" && ./$B/compare_fields "$T/mg_st_ex/field.dump" "$T/mg_st_dc/field.dump" --tol 1e-8 > /dev/null 2>&1' \
  "multigrid + mass_fix, 2x1 (level 4 gathered): decoupled converges 10 orders to exact mode's steady state within 1e-8 (max|a-b|/max|a| per variable)"

# decoupled mode with whole coarse levels (they run as one domain) converges to the same state
rc=$(mpi 2 mg_st_dw "$T/mg_steady.nml" --npj 2 --adi-mode decoupled --whole-cells 256)
expect '[ $rc -eq 0 ] && grep -q "converged at iteration" "$T/mg_st_dw.log" && grep -qF "levels 2..4 whole on every rank" "$T/mg_st_dw.log" && ./$B/compare_fields "$T/mg_st_ex/field.dump" "$T/mg_st_dw/field.dump" --tol 1e-8 > /dev/null 2>&1' \
  "multigrid + mass_fix, 2x1, whole_cells 256 (levels 2..4 whole): decoupled converges 10 orders to exact mode's steady state within 1e-8"

# ---- a curvilinear grid read from a Plot3D file: exact mode == build/adiflow ----
# every rank takes its window of the whole grid's nodes: across a block
# boundary its ghost nodes are the neighbour's, across the periodic k pair the
# reader's periodic images (wrapping through the exchange on 1x2 and 2x2)
mkdir -p "$T/gfile"
./$B/make_grid box --ni 8 --nj 12 --nk 8 -o "$T/gfile/box.x" > /dev/null
printf '&adiflow\n  grid_file = %s\n  %s\n/\n' "'box.x'" \
  "bc_kmin = 'periodic', bc_kmax = 'periodic', max_iter = 20, monitor_interval = 5, write_plot = .false." > "$T/gfile/box.nml"
rc=$(ser s_gfile "$T/gfile/box.nml"); rc2=$(ser s_gfile_mg "$T/gfile/box.nml" --mg-levels 3)
expect '[ "$rc$rc2" = 00 ] && grep -q "multigrid: 3 levels" "$T/s_gfile_mg.log"' \
  "grid file references: build/adiflow on the curvilinear 8x12x8 box, periodic k, single grid and 3 levels"
for g in "2 2 1" "2 1 2" "4 2 2" "3 3 1" "3 1 3"; do
  set -- $g; np=$1; pj=$2; pk=$3; d=gfile_${pj}x$pk
  rc=$(mpi $np $d "$T/gfile/box.nml" --npj $pj --npk $pk --adi-mode exact)
  expect '[ $rc -eq 0 ] && grep -q "from .*gfile/box.x" "$T/$d.log" && cmp -s "$T/s_gfile/field.dump" "$T/$d/field.dump" \
    && cmp -s <(hist "$T/s_gfile/residual.dat") <(hist "$T/$d/residual.dat") && cmp -s "$T/s_gfile/flow.dat" "$T/$d/flow.dat"' \
    "grid from a Plot3D file, periodic k, exact, ${pj}x$pk: field.dump, residual history and flow.dat bit-identical to build/adiflow"
  # level 3 gathered on every split (1x3, k blocks of 3, 3 and 2 cells: levels 2..3)
  rc=$(mpi $np ${d}_mg "$T/gfile/box.nml" --npj $pj --npk $pk --adi-mode exact --mg-levels 3)
  expect '[ $rc -eq 0 ] && grep -q "multigrid: 3 levels" "$T/${d}_mg.log" && grep -qE "levels? [23].*gathered onto rank 0" "$T/${d}_mg.log" \
    && cmp -s "$T/s_gfile_mg/field.dump" "$T/${d}_mg/field.dump"' \
    "grid from a Plot3D file, multigrid, exact, ${pj}x$pk: 3 levels (the lowest gathered), field.dump bit-identical to build/adiflow --mg-levels 3"
done

# ---- boundary patches (patch_file): exact mode == build/adiflow, wall loads included ----
# tests/cases/mpi_patch_mix.bc: wall, lid, slip, symmetry, farfield, inflow and
# outflow patches on the curvilinear box from a file, a periodic pair in i,
# isothermal walls at 1.2 T; patch edges on and beside every block boundary.
# (The deck is written here, beside the grid it reads: a deck in tests/cases
# must run as it is.)
mkdir -p "$T/pm"
cp tests/cases/mpi_patch_mix.bc "$T/pm/"
./$B/make_grid box --ni 8 --nj 12 --nk 8 -o "$T/pm/box.x" > /dev/null
PM=$T/pm/mix.nml
cat > "$PM" <<'DECK'
&adiflow
  title = 'patch mix on a curvilinear box from a file'
  grid_file = 'box.x', patch_file = 'mpi_patch_mix.bc'
  bc_imin = 'periodic', bc_imax = 'periodic'
  mach = 0.3, reynolds = 100.0, t_wall = 1.2
  cfl = 2.0, cfl_start = 1.0, cfl_ramp_iters = 10
  max_iter = 20, monitor_interval = 5, write_plot = .false.
/
&multigrid
  levels = 1, cycle = 'w'
/
DECK
# what must match: the state, the history and every file the run ends with
same_run() { # SERIAL_DIR MPI_DIR
  cmp -s "$1/field.dump" "$2/field.dump" && cmp -s <(hist "$1/residual.dat") <(hist "$2/residual.dat") \
    && cmp -s "$1/flow.dat" "$2/flow.dat" && cmp -s "$1/centreline_u.csv" "$2/centreline_u.csv" \
    && [ "$(cd "$1" && ls wall_*.csv forces.csv)" = "$(cd "$2" && ls wall_*.csv forces.csv 2>/dev/null)" ] \
    && for f in "$1"/wall_*.csv "$1"/forces.csv; do cmp -s "$f" "$2/${f##*/}" || return 1; done
}
# forces.dat: each block sums its own faces of a patch and the ranks add the
# shares, so a value may differ from build/adiflow's in the last bits (the
# order of the sum): the same header, rows, iterations and work units, every
# coefficient within 1e-12 of its column's largest magnitude (a column of
# exact zeros stays zero); and the last row is the run's own forces.csv (from
# the gathered state) within 1e-12 of the row's largest magnitude. A third
# argument: a restarted run, whose work units count from the restart (as
# build/adiflow's), so the work column is not compared.
same_forces() { # SERIAL_DIR MPI_DIR [restarted]
  local s=$1/forces.dat m=$2/forces.dat w=${3:+skip}
  [ -f "$m" ] && cmp -s <(grep '^#' "$s") <(grep '^#' "$m") && [ "$(grep -vc '^#' "$m")" -gt 1 ] \
    && [ "$(grep -vc '^#' "$s")" = "$(grep -vc '^#' "$m")" ] \
    && paste -d'\n' <(grep -v '^#' "$s") <(grep -v '^#' "$m") | awk -v w="$w" '
      function abs(x) { return x < 0 ? -x : x }
      NR % 2 == 1 { n = split($0, a); next }
      { if (split($0, b) != n || a[1] != b[1] || (w == "" && a[2] != b[2])) bad++
        for (i = 3; i <= n; i++) { if (abs(a[i] - b[i]) > d[i]) d[i] = abs(a[i] - b[i]); if (abs(a[i]) > sc[i]) sc[i] = abs(a[i]) } }
      END { for (i in d) if (d[i] > 1e-12 * sc[i]) bad++; exit bad > 0 }' \
    && paste -d' ' <(grep -v '^#' "$m" | tail -1 | awk '{for (i = 3; i <= NF; i++) printf "%s ", $i}') \
         <(tail -n +3 "$2/forces.csv" | awk -F, '{for (i = 4; i <= NF; i++) printf "%s ", $i}') | awk '
      function abs(x) { return x < 0 ? -x : x }
      { h = NF / 2; if (h != int(h) || h == 0) exit 1
        for (i = 1; i <= NF; i++) if (abs($i) > sc) sc = abs($i)
        for (i = 1; i <= h; i++) if (abs($i - $(i + h)) > 1e-12 * sc) exit 1 }'
}
rc=$(ser s_pm "$PM"); rc2=$(ser s_pm_mg "$PM" --mg-levels 3)
expect '[ "$rc$rc2" = 00 ] && [ $(ls "$T/s_pm"/wall_*.csv | wc -l) -eq 3 ] && grep -q "multigrid: 2 levels" "$T/s_pm_mg.log"' \
  "patch references: build/adiflow on the patch mix, single grid and multigrid (the patches allow 2 levels), 3 wall files"
for g in "2 2 1" "2 1 2" "4 2 2" "3 3 1" "3 1 3"; do
  set -- $g; np=$1; pj=$2; pk=$3; d=pm_${pj}x$pk
  rc=$(mpi $np $d "$PM" --npj $pj --npk $pk --adi-mode exact)
  expect '[ $rc -eq 0 ] && same_run "$T/s_pm" "$T/$d"' \
    "patches, exact, ${pj}x$pk: field.dump, residual history, flow.dat, profiles, wall_*.csv and forces.csv bit-identical to build/adiflow"
  expect 'same_forces "$T/s_pm" "$T/$d"' \
    "patches, exact, ${pj}x$pk: forces.dat as build/adiflow's (header, rows; values within 1e-12), last row = forces.csv"
  # 1x3: k blocks of 3, 3 and 2 cells, so level 2 is gathered (with its patches)
  gat=0; [ "$pk" -eq 3 ] && gat=1
  rc=$(mpi $np ${d}_mg "$PM" --npj $pj --npk $pk --adi-mode exact --mg-levels 3)
  expect '[ $rc -eq 0 ] && grep -q "multigrid: 2 levels" "$T/${d}_mg.log" && grep -q "the patches stop coarsening at level 2: patch 2 on face jmin" "$T/${d}_mg.log" \
    && [ $(grep -c "level 2 gathered onto rank 0" "$T/${d}_mg.log") -eq $gat ] && same_run "$T/s_pm_mg" "$T/${d}_mg"' \
    "patches + multigrid, exact, ${pj}x$pk: the patches' 2 levels (said$([ $gat = 1 ] && echo ', level 2 gathered')), every file bit-identical to build/adiflow"
  expect 'same_forces "$T/s_pm_mg" "$T/${d}_mg"' \
    "patches + multigrid, exact, ${pj}x$pk: forces.dat as build/adiflow's (values within 1e-12), last row = forces.csv"
done
# the same with level 2 whole on every rank (its patches the whole grid's, as build/adiflow's)
rc=$(mpi 2 pm_whole "$PM" --npj 1 --npk 2 --adi-mode exact --mg-levels 3 --whole-cells 100)
expect '[ $rc -eq 0 ] && grep -q "level 2 whole on every rank" "$T/pm_whole.log" && same_run "$T/s_pm_mg" "$T/pm_whole"' \
  "patches + multigrid, exact, 1x2, whole_cells 100: level 2 whole on every rank, every file bit-identical to build/adiflow"
rc1=$(mpi 4 pm_half "$PM" --npj 2 --npk 2 --max-iter 10); rc2=$(mpi 4 pm_half "$PM" --npj 2 --npk 2 --restart)
expect '[ "$rc1$rc2" = 00 ] && grep -q "restarting from .* at iteration 10" "$T/pm_half.log" && same_run "$T/s_pm" "$T/pm_half"' \
  "patches, restart on 2x2: 10 + restart + 10 bit-identical to 20 serial iterations (the restart keeps its state, not the free stream)"
expect 'same_forces "$T/s_pm" "$T/pm_half" restarted' \
  "patches, restart on 2x2: forces.dat continued from iteration 10, the rows of 20 serial iterations"
# a restart from an earlier set than the history's last row (a killed run's):
# the rows after it are dropped, as in residual.dat, and written again
rc1=$(mpi 2 pm_back "$PM" --npj 1 --npk 2 --max-iter 10)
cp "$T/s_pm/forces.dat" "$T/pm_back/forces.dat"   # rows up to 20
rc2=$(mpi 2 pm_back "$PM" --npj 1 --npk 2 --restart)
expect '[ "$rc1$rc2" = 00 ] && grep -q "restarting from .* at iteration 10" "$T/pm_back.log" && same_forces "$T/s_pm" "$T/pm_back" restarted' \
  "patches, restart on 1x2 at 10 under a history to 20: forces.dat keeps the rows up to 10, then the run's (no row twice)"
# monitor_forces: the per-patch lines under each progress line, once (rank 0), as build/adiflow's
sed 's/max_iter = 20,/max_iter = 20, monitor_forces = .true.,/' "$PM" > "$T/pm/mixf.nml"
rc=$(ser s_pmf "$T/pm/mixf.nml"); rc2=$(mpi 4 pmf "$T/pm/mixf.nml" --npj 2 --npk 2)
expect '[ "$rc$rc2" = 00 ] && [ $(grep -c "^ *forces " "$T/pmf.log") -eq 15 ] \
  && cmp -s <(grep "^ *forces " "$T/s_pmf.log") <(grep "^ *forces " "$T/pmf.log") && ! grep -q "no force history" "$T/pmf.log"' \
  "monitor_forces on 2x2: each patch's line under each progress line, once, as build/adiflow prints them"
# a quasi-2D O-grid (one cell in k, periodic) whose i cut the reader finds and
# joins (no bc_i keys), a wall and a farfield patch: the cut said once, and the
# blocks in j bit-identical to build/adiflow, single grid and multigrid
./$B/make_grid cylinder --ni 16 --nj 12 --farfield 10 --dims 3 -o "$T/pm/cyl.x" > /dev/null
printf 'jmin wall\njmax farfield\n' > "$T/pm/cyl.bc"
printf "&adiflow\n  grid_file = 'cyl.x', patch_file = 'cyl.bc', bc_kmin = 'periodic', bc_kmax = 'periodic'\n  %s\n/\n" \
  "mach = 0.2, reynolds = 40.0, max_iter = 20, monitor_interval = 5, write_plot = .false." > "$T/pm/cyl.nml"
rc=$(ser s_cyl "$T/pm/cyl.nml"); rc2=$(ser s_cyl_mg "$T/pm/cyl.nml" --mg-levels 3)
expect '[ "$rc$rc2" = 00 ] && grep -q "periodic cut: joined" "$T/s_cyl.log" && grep -q "multigrid: 3 levels" "$T/s_cyl_mg.log"' \
  "O-grid references: build/adiflow joins the cut, single grid and 3 levels"
for g in "2 2 1" "3 3 1"; do
  set -- $g; d=cyl_${2}x$3
  rc=$(mpi $1 $d "$T/pm/cyl.nml" --npj $2 --npk $3); rc2=$(mpi $1 ${d}_mg "$T/pm/cyl.nml" --npj $2 --npk $3 --mg-levels 3)
  expect '[ "$rc$rc2" = 00 ] && [ $(grep -c "periodic cut: joined" "$T/$d.log") -eq 1 ] && same_run "$T/s_cyl" "$T/$d" \
    && grep -q "multigrid: 3 levels" "$T/${d}_mg.log" && grep -q "level 3 gathered onto rank 0" "$T/${d}_mg.log" && same_run "$T/s_cyl_mg" "$T/${d}_mg"' \
    "quasi-2D O-grid from a file (16x12x1, its cut joined), patches, ${2}x$3: every file bit-identical to build/adiflow, single grid and multigrid (level 3 gathered)"
done
# the same O-grid as a CGNS file (plot3d_to_cgns), its wall and farfield as BC_t and its cut as
# a 1-to-1 interface with itself (tests/unit/cgns_fixture.c): the blocks as build/adiflow's run
if command -v plot3d_to_cgns > /dev/null 2>&1 && [ -x ./$B/cgns_fixture ] && plot3d_to_cgns -u -d "$T/pm/cyl.x" "$T/pm/cyl.cgns" > /dev/null 2>&1 \
   && ./$B/cgns_fixture addcut "$T/pm/cyl.cgns" wake 1 && ./$B/cgns_fixture addbc "$T/pm/cyl.cgns" body BCWallViscous 1:17 1:1 1:2 \
   && ./$B/cgns_fixture addbc "$T/pm/cyl.cgns" far BCFarfield 1:17 13:13 1:2; then
  sed "s|grid_file = 'cyl.x', patch_file = 'cyl.bc'|grid_file = 'cyl.cgns'|" "$T/pm/cyl.nml" > "$T/pm/cylcg.nml"
  rc=$(mpi 2 cylcg_2x1 "$T/pm/cylcg.nml" --npj 2 --npk 1)
  expect '[ "$rc" = 0 ] && grep -q "2 boundary conditions taken as patches" "$T/cylcg_2x1.log" && cmp -s "$T/s_cyl/field.dump" "$T/cylcg_2x1/field.dump"' \
    "CGNS grid file with its BCs and its cut as an interface, 2x1 blocks: the fields bit-identical to build/adiflow's run of the Plot3D file"
  # flow.cgns from the gathered state: the same nodes' data as build/adiflow's (cgnsdiff -d: every
  # node and its data, no tolerance), with the file's BCs and with the box's bc_* faces
  sed "s|grid_file = 'cyl.cgns'|grid_file = 'cyl.cgns', write_cgns = .true.|" "$T/pm/cylcg.nml" > "$T/pm/cylwr.nml"
  sed "s/write_plot = .false./write_plot = .false., write_cgns = .true./" $C > "$T/boxwr.nml"
  rc1=$(ser s_cylwr "$T/pm/cylwr.nml"); rc2=$(mpi 2 cylwr_2x1 "$T/pm/cylwr.nml" --npj 2 --npk 1)
  rc3=$(ser s_boxwr "$T/boxwr.nml"); rc4=$(mpi 3 boxwr_1x3 "$T/boxwr.nml" --npj 1 --npk 3 --adi-mode exact)
  expect '[ "$rc1$rc2$rc3$rc4" = 0000 ] && [ -f "$T/cylwr_2x1/flow.cgns" ] && [ -f "$T/boxwr_1x3/flow.cgns" ] \
    && [ -z "$(cgnsdiff -d "$T/s_cylwr/flow.cgns" "$T/cylwr_2x1/flow.cgns" 2>&1)" ] \
    && [ -z "$(cgnsdiff -d "$T/s_boxwr/flow.cgns" "$T/boxwr_1x3/flow.cgns" 2>&1)" ] \
    && [ -n "$(cgnsdiff -d "$T/s_boxwr/flow.cgns" "$T/s_cylwr/flow.cgns" 2>&1)" ]' \
    "write_cgns on blocks (O-grid 2x1 with the file's BCs, box 1x3 exact with its bc_* faces): flow.cgns equals build/adiflow's, node data included (exit codes $rc1 $rc2 $rc3 $rc4)"
else
  echo "note: plot3d_to_cgns or a build with CGNS support missing: the CGNS grid run of adiflow_mpi is skipped"
fi
# a coarse level that folds (the O-grid's fourth, 2 cells around): refused as build/adiflow refuses it
rc=$(mpi 2 cyl_fold "$T/pm/cyl.nml" --npj 2 --npk 1 --mg-levels 4)
expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/cyl_fold.log") -eq 1 ] \
  && grep -q "multigrid level 4: the grid has cells with zero or negative volume" "$T/cyl_fold.log"' \
  "a folded coarse level (the O-grid's level 4, gathered): exit 2, one message naming the level"
rc=$(mpi 2 pm_auto "$PM" --npj 2 --npk 1 --backend auto --max-iter 2)
expect '[ $rc -eq 0 ] && grep -q "boundary patches run on the CPU backend of adiflow_mpi so far, so this run takes it" "$T/pm_auto.log" \
  && grep -q "backend: cpu" "$T/pm_auto.log"' "patches, --backend auto: the run says it takes the CPU backend"

# ---- exact mode: bit-identical to the single-domain solver ----
for g in "1 1 1" "2 1 2" "2 2 1" "4 2 2" "4 0 0"; do
  set -- $g; np=$1; pj=$2; pk=$3; d=cube_${np}_${pj}x$pk
  rc=$(mpi $np $d $C --npj $pj --npk $pk --adi-mode exact)
  expect '[ $rc -eq 0 ] && cmp -s "$T/s_cube/field.dump" "$T/$d/field.dump"' \
    "exact, $np ranks, npj x npk = ${pj}x$pk (0 = auto): field.dump bit-identical to build/adiflow"
  expect 'cmp -s <(hist "$T/s_cube/residual.dat") <(hist "$T/$d/residual.dat")' \
    "exact, $np ranks, ${pj}x$pk: residual history identical"
  if [ "$np" -eq 4 ] && [ "$pj" -eq 2 ]; then
    expect 'cmp -s "$T/s_cube/centreline_u.csv" "$T/$d/centreline_u.csv" && cmp -s "$T/s_cube/centreline_v.csv" "$T/$d/centreline_v.csv" && cmp -s "$T/s_cube/flow.dat" "$T/$d/flow.dat"' \
      "exact, 2x2: gathered centreline profiles and Tecplot file identical"
  fi
done
# the box's profiles alone (no field.dump, no Tecplot file): rank 0 gathers
# the two k planes about the centre, not the whole grid; 1x2 puts the planes
# (k = 4 and 5 of 8) on different ranks
sed "s/write_plot = .false./write_plot = .false., write_dump = .false., write_tecplot = .false./" $C > "$T/prof.nml"
for g in "2 1 2" "3 3 1"; do
  set -- $g; d=prof_${2}x$3
  rc=$(mpi $1 $d "$T/prof.nml" --npj $2 --npk $3 --adi-mode exact)
  expect '[ $rc -eq 0 ] && cmp -s "$T/s_cube/centreline_u.csv" "$T/$d/centreline_u.csv" \
    && cmp -s "$T/s_cube/centreline_v.csv" "$T/$d/centreline_v.csv" && [ ! -e "$T/$d/field.dump" ] && [ ! -e "$T/$d/flow.dat" ]' \
    "profiles alone, exact, ${2}x$3: centreline files from the two gathered k planes == build/adiflow's"
done

# Plot3D output from the gathered state: flow.xyz and flow.q equal build/adiflow's byte for byte
sed "s/write_plot = .false./write_plot = .false., write_vtk = .false., write_plot3d = .true./" $C > "$T/p3q.nml"
rc=$(ser s_p3q "$T/p3q.nml")
rc2=$(mpi 3 p3q_1x3 "$T/p3q.nml" --npj 1 --npk 3 --adi-mode exact)
expect '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$T/s_p3q/flow.xyz" "$T/p3q_1x3/flow.xyz" && cmp -s "$T/s_p3q/flow.q" "$T/p3q_1x3/flow.q"' \
  "write_plot3d, exact, 1x3: flow.xyz and flow.q == build/adiflow's, byte for byte"

# rieper + van Leer and the solver's defaults (rieper + venkat, K = 5; the
# threshold comes from the whole grid's size, not the block's), multigrid with
# plain Roe on the coarse levels: exact mode bit-identical to build/adiflow too
for lim in vanleer venkat; do
  sed "s/limiter = 'vanalbada', roe_low_mach = 'none'.*/limiter = '$lim', limiter_k = 5.0, roe_low_mach = 'rieper'/" $MG > "$T/mg_$lim.nml"
  rc=$(ser s_mg_$lim "$T/mg_$lim.nml")
  rc2=$(mpi 2 mg_${lim}_2x1 "$T/mg_$lim.nml" --npj 2 --npk 1 --adi-mode exact)
  expect '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "with plain Roe dissipation" "$T/mg_${lim}_2x1.log" \
    && grep -q "limiter $lim" "$T/mg_${lim}_2x1.log" \
    && cmp -s "$T/s_mg_$lim/field.dump" "$T/mg_${lim}_2x1/field.dump" && cmp -s <(hist "$T/s_mg_$lim/residual.dat") <(hist "$T/mg_${lim}_2x1/residual.dat") \
    && ! cmp -s "$T/s_mg_$lim/field.dump" "$T/s_mg4/field.dump"' \
    "rieper + $lim with multigrid (plain Roe coarse levels), exact, 2x1: field and residual history == build/adiflow, bit for bit (and differ from the plain scheme)"
done
expect '! cmp -s "$T/s_mg_vanleer/field.dump" "$T/s_mg_venkat/field.dump"' "rieper + venkat and rieper + vanleer give different fields (the limiter acts)"
# implicit_precision = 'single': the pipelined sweeps in single precision,
# exact mode still bit-identical to build/adiflow in that mode
rc=$(ser s_sp $C --implicit-precision single)
for g in "2 2 1" "4 2 2"; do
  set -- $g; d=sp_${2}x$3
  rc=$(mpi $1 $d $C --npj $2 --npk $3 --adi-mode exact --implicit-precision single)
  expect '[ $rc -eq 0 ] && cmp -s "$T/s_sp/field.dump" "$T/$d/field.dump" && cmp -s <(hist "$T/s_sp/residual.dat") <(hist "$T/$d/residual.dat") \
    && ! cmp -s "$T/s_sp/field.dump" "$T/s_cube/field.dump"' \
    "implicit_precision single, exact, $1 ranks, ${2}x$3: field.dump and residual history bit-identical to build/adiflow in single mode (which differs from double)"
done
grep -q "npj x npk = 2 x 2" "$T/cube_4_0x0.log" 2>/dev/null; r1=$?
expect '[ $r1 -eq 0 ]' "automatic decomposition of 4 ranks on 12x12x8 is 2 x 2"

# periodic k across ranks (wrap through the exchange), curvilinear grid, uneven
# blocks (nj = 13, nk = 9), minmod, pipeline chunks from the &parallel group
rc=$(ser s_per $P)
for g in "2 1 2" "2 2 1"; do
  set -- $g; d=per_${2}x$3
  rc=$(mpi $1 $d $P --npj $2 --npk $3)
  expect '[ $rc -eq 0 ] && cmp -s "$T/s_per/field.dump" "$T/$d/field.dump"' \
    "exact, periodic k + wavy grid + uneven blocks, ${2}x$3: bit-identical"
done
sed "s/bc_kmin = 'periodic', bc_kmax = 'periodic'/bc_kmin = 'wall', bc_kmax = 'wall'/; s/bc_jmin = 'wall', bc_jmax = 'lid'/bc_jmin = 'periodic', bc_jmax = 'periodic', bc_imax = 'lid'/; s/order = 2/order = 1/" $P > "$T/perj.nml"
rc=$(ser s_perj "$T/perj.nml")
rc=$(mpi 2 perj "$T/perj.nml" --npj 2 --npk 1 --chunks 1)
expect '[ $rc -eq 0 ] && cmp -s "$T/s_perj/field.dump" "$T/perj/field.dump"' \
  "exact, periodic j across ranks, order 1, 1 pipeline chunk: bit-identical"

# ---- decoupled mode ----
rc=$(mpi 4 dec $C --npj 2 --npk 2 --adi-mode decoupled)
expect '[ $rc -eq 0 ] && ! cmp -s "$T/s_cube/field.dump" "$T/dec/field.dump" && within "$T/s_cube/field.dump" "$T/dec/field.dump" 1e-2 0.05' \
  "decoupled 2x2: runs, takes its own path, within 1e-2 (rho, E) / 0.05 (momenta) of the exact state after 40 iterations"
Q=tests/cases/mpi_cavity2d.nml
rc1=$(ser s_q2d $Q)
rc2=$(mpi 2 q2d $Q --npj 2 --npk 1 --adi-mode decoupled)
./$B/compare_fields "$T/s_q2d/field.dump" "$T/q2d/field.dump" > "$T/q2d.cmp" 2>&1
expect '[ "$rc1$rc2" = 00 ] && within "$T/s_q2d/field.dump" "$T/q2d/field.dump" 1e-4 1e-4' \
  "decoupled 2x1 reaches the single-domain state (1500 iterations, quasi-2D 24x24x2) within 1e-4"
grep -E '^  (rho\*[uvw]|rho|E) ' "$T/q2d.cmp" | sed 's/ABOVE TOLERANCE//; s/^/    measured:/'

# ---- mass_fix (fortran/mass_constraint.f90, mpi_total_mass): the mass sums chain along j ranks ----
rc=$(ser s_mf $C --mass-fix)
for g in "2 2 1" "4 2 2"; do
  set -- $g; d=mf_${2}x$3
  rc=$(mpi $1 $d $C --npj $2 --npk $3 --adi-mode exact --mass-fix)
  expect '[ $rc -eq 0 ] && cmp -s "$T/s_mf/field.dump" "$T/$d/field.dump" && cmp -s <(hist "$T/s_mf/residual.dat") <(hist "$T/$d/residual.dat") && ! cmp -s "$T/s_mf/field.dump" "$T/s_cube/field.dump"' \
    "mass_fix, exact, $1 ranks, ${2}x$3: field.dump and residual history bit-identical to build/adiflow --mass-fix"
done
# without mass_fix the two converged states differ by ~1e-4 (their
# mass levels); with it, decoupled 2x1 reaches the single-domain steady state
M=tests/cases/mpi_cube12_re400.nml
rc1=$(ser s_m400 $M)
rc2=$(mpi 2 m400 $M --npj 2 --npk 1 --adi-mode decoupled)
./$B/compare_fields "$T/s_m400/field.dump" "$T/m400/field.dump" --tol 1e-8 > "$T/m400.cmp" 2>&1; rc3=$?
it1=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/s_m400.log")
it2=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/m400.log")
expect '[ "$rc1$rc2$rc3" = 000 ] && [ -n "$it1" ] && [ -n "$it2" ]' \
  "mass_fix, Re=400 cube 12^3: single domain ($it1 iterations) and decoupled 2x1 ($it2) both converge (tol 1e-9), states within 1e-8"
grep -E '^  (rho\*[uvw]|rho|E) ' "$T/m400.cmp" | awk '{printf "    measured: %-6s max|a-b|/max|a| = %s\n", $1, $4}'

# ---- restart per rank ----
rc1=$(mpi 4 half $C --npj 2 --npk 2 --max-iter 20)
rc2=$(mpi 4 half $C --npj 2 --npk 2 --restart)
expect '[ "$rc1$rc2" = 00 ] && cmp -s "$T/s_cube/field.dump" "$T/half/field.dump"' \
  "restart on 2x2: 20 + restart + 20 bit-identical to 40 serial iterations"
expect 'grep -q "restarting from .* at iteration 20" "$T/half.log" && [ -f "$T/half/restart.r00003.it40.bin" ] && [ ! -e "$T/half/restart.r00003.it20.bin" ] && grep -q "ranks_npj_npk 4 2 2" "$T/half/restart.decomp"' \
  "per-rank restart files of the last set only, and the decomposition index"
mkdir -p "$T/other"; cp "$T/half/"restart.* "$T/other/"
rc=$(mpi 2 other $C --npj 2 --npk 1 --restart)
expect '[ $rc -eq 2 ] && grep -q "the restart was written on 4 ranks as npj x npk = 2 x 2" "$T/other.log"' \
  "restart on a different decomposition: exit 2 with a clear message"

# ---- outputs ----
f=$T/cube_4_2x2
expect '[ $(grep -c "<Piece Extent" "$f/flow.pvts") -eq 4 ] && grep -q "Source=\"flow_r00003.vts\"" "$f/flow.pvts" && grep -q "WholeExtent=\"0 12 0 12 0 8\"" "$f/flow.pvts"' \
  ".pvts index names the 4 block files with their extents"
okv=1; for r in 0 1 2 3; do tail -c 30 "$f/flow_r0000$r.vts" | grep -q "</VTKFile>" || okv=0; done
expect '[ $okv -eq 1 ] && grep -aq "Extent=\"0 12 6 12 4 8\"" "$f/flow_r00003.vts"' "block .vts files complete, with global extents"
# the .pvts as VTK's reader assembles it (tests/suites/check_outputs_vtk.py, python3-vtk9): names, sizes, wall
# and lid nodes, node means across block faces, the Tecplot file; the .pvd of a restarted 2x2 series
VTKPY=""
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import vtkmodules.vtkIOXML, vtkmodules.vtkIOGeometry, numpy' 2>/dev/null; then VTKPY=$py; break; fi
done
if [ -z "$VTKPY" ]; then
  echo "note: python3-vtk9 (and numpy) cannot be imported: the VTK reader checks of the .pvts outputs are skipped"
else
  printf '&adiflow\nni = 10, nj = 8, nk = 6, reynolds = 50., max_iter = 10, output_interval = 4, monitor_interval = 5, write_plot = .false.\n/\n' > "$T/vtk_series.nml"
  rc1=$(mpi 4 vtk_series "$T/vtk_series.nml" --npj 2 --npk 2)
  rc2=$(mpi 4 vtk_series "$T/vtk_series.nml" --npj 2 --npk 2 --restart --max-iter 14)
  expect '[ "$rc1$rc2" = 00 ]' "VTK reader runs on 2x2 finish (exit codes $rc1 $rc2)"
  out=$("$VTKPY" tests/suites/check_outputs_vtk.py --readme README.md --parallel --case "$T/vtk_series" 10 8 6 \
    --uniform "$T/vtk_series" --pvd "$T/vtk_series" 4,8,12,14 2>&1); vrc=$?
  echo "$out" | grep -E '^(PASS|FAIL) ' | sed 's|^|  [check_outputs_vtk] |'
  np=$(echo "$out" | grep -c '^PASS '); nf=$(echo "$out" | grep -c '^FAIL ')
  pass=$((pass+np)); fail=$((fail+nf))
  if [ $vrc -ne 0 ] && [ "$nf" -eq 0 ]; then bad "check_outputs_vtk.py exited with $vrc"; echo "$out" | tail -5; fi
fi

# ---- faults: every rank stops with one message, no hang ----
printf '&adiflow\nni = 0\n/\n' > "$T/bad.nml"
rc=$(mpi 2 bad "$T/bad.nml")
expect '[ $rc -eq 2 ] && [ $(grep -c "ni = 0 is out of range" "$T/bad.log") -eq 1 ]' "bad input: exit 2, one message"
rc=$(mpi 2 baddec $C --npj 3 --npk 1)
expect '[ $rc -eq 2 ] && [ $(grep -c "no process grid npj x npk fits 2 ranks" "$T/baddec.log") -eq 1 ]' \
  "impossible process grid: exit 2, one message"
printf '&adiflow\nni = 8, nj = 8, nk = 4\n/\n&parallel adi_mode = "sideways" /\n' > "$T/badmode.nml"
rc=$(mpi 2 badmode "$T/badmode.nml")
expect '[ $rc -eq 2 ] && grep -q "adi_mode = \"sideways\" is not allowed" "$T/badmode.log"' "bad adi_mode rejected"
# bad patch files and grid files: rank 0 reads first, so one message, exit 2
# on every rank, no run folder (the serial reader's sentences)
badpm() { # NAME REGEX "patch lines" [ARGS...]
  local name=$1 re=$2 lines=$3; shift 3
  printf '%b\n' "$lines" > "$T/pm/bad.bc"
  sed "s/mpi_patch_mix.bc/bad.bc/" "$PM" > "$T/pm/bad.nml"
  rm -rf "$T/badpm"
  rc=$(mpi 3 badpm "$T/pm/bad.nml" --npj 3 --npk 1 "$@")
  expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/badpm.log") -eq 1 ] && grep -qE -- "$re" "$T/badpm.log" && [ ! -e "$T/badpm" ]' \
    "bad patch file, 3 ranks: $name: exit 2, one message, no run folder"
}
PMOK=$(grep -v '^#' tests/cases/mpi_patch_mix.bc | sed 's/$/\\n/' | tr -d '\n')
badpm "an unknown kind" 'patch file "[^"]*/bad.bc", line 1: "wal" is not a boundary kind' "jmin wal"
badpm "a gap" 'face kmax: 48 boundary cells are covered by no patch, the first at \(1,7\)' "${PMOK%kmax slip*}"
badpm "an overlap" 'face jmin: patches 1 and 11 overlap at cell \(1,4\)' "${PMOK}jmin slip 1:8 4:5"
badpm "a patch on the periodic face" "face imin is periodic \\(bc_imin = 'periodic' in the case file\\) and takes no patch" "imin wall\n$PMOK"
badpm "a range outside the face" 'patch 11 on face kmin: cells 1..8 x 12..13 are not a range inside the face \(1..8 x 1..12\)' \
  "${PMOK}kmin wall 1:8 12:13"
sed "s/mpi_patch_mix.bc/none.bc/" "$PM" > "$T/pm/none.nml"
rc=$(mpi 2 nonepm "$T/pm/none.nml" --npj 2 --npk 1)
expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/nonepm.log") -eq 1 ] && grep -q "patch file \"[^\"]*/none.bc\" is missing or not a regular file" "$T/nonepm.log"' \
  "missing patch file: exit 2, one message"
rc=$(mpi 2 gpupm "$PM" --npj 2 --npk 1 --backend gpu)
expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/gpupm.log") -eq 1 ] && grep -q "boundary patches run on the CPU backend of adiflow_mpi so far (its GPU blocks have no patch fill): use --backend cpu" "$T/gpupm.log"' \
  "patches with --backend gpu: refused (exit 2, one message: the GPU blocks have no patch fill)"
./$B/make_grid box --ni 8 --nj 12 --nk 8 --flip i -o "$T/gfile/left.x" > /dev/null
sed "s/box.x/left.x/" "$T/gfile/box.nml" > "$T/gfile/left.nml"
rc=$(mpi 2 leftgrid "$T/gfile/left.nml" --npj 2 --npk 1)
expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/leftgrid.log") -eq 1 ] && grep -q "grid file \"[^\"]*left.x\", block 1: every cell volume is negative" "$T/leftgrid.log" && [ ! -e "$T/leftgrid" ]' \
  "a left-handed grid file: exit 2, one message (the reader's), no run folder"
# the GPU backend on a machine without GPUs (CI): one clear message, no hang
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  rc=$(mpi 2 nogpu tests/cases/cube12.nml --backend cuda)
  expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/nogpu.log") -eq 1 ] && grep -q "not every rank sees a usable GPU" "$T/nogpu.log"' \
    "backend = 'cuda' without GPUs: exit 2, one message"
  rc=$(mpi 2 nogpumf tests/cases/cube12.nml --backend cuda --mass-fix)
  expect '[ $rc -eq 2 ] && [ $(grep -c "error:" "$T/nogpumf.log") -eq 1 ] && grep -q "not every rank sees a usable GPU" "$T/nogpumf.log" && ! grep -q "mass_fix runs on the CPU" "$T/nogpumf.log"' \
    "backend = 'cuda' --mass-fix without GPUs: the same no-GPU error (mass_fix is no longer refused)"
fi
rc=$(mpi 2 div tests/cases/diverge.nml --npj 2 --npk 1)
it_nan=$(sed -n 's/.*diverged at iteration \([0-9]*\).*/\1/p' "$T/div.log")
it_rst=$(sed -n 's/^iteration \([0-9]*\)/\1/p' "$T/div/restart.decomp" 2>/dev/null)
expect '[ "$rc" -eq 3 ] && [ $(grep -c "diverged at iteration" "$T/div.log") -eq 1 ] && [ -n "$it_nan" ] && [ -n "$it_rst" ] && [ "$it_rst" -lt "$it_nan" ]' \
  "divergence: every rank stops (exit 3, one message), restart header before the NaN (restart $it_rst < NaN $it_nan)"
mkdir -p "$T/divr"; cp "$T/div/"restart.* "$T/divr/" 2>/dev/null
rc=$(mpi 2 divr tests/cases/diverge.nml --npj 2 --npk 1 --max-iter "${it_rst:-0}" --restart)
expect 'grep -q "restarting from .* at iteration $it_rst" "$T/divr.log"' "the last good restart after a divergence still reads (checksums intact)"

# ---- multi-block grids over the ranks (fortran/backend_blocks_mpi.f90): == build/adiflow bit for bit ----
# a box in two blocks (W(1,1) over 2 levels, mass_fix, to 1e-10) on 1 and 2 ranks, and the NACA deck's
# C-grid in three blocks (patches, 4 levels, 10 W-cycles) on 2 and 3 ranks: every block's restart file,
# the residual history and the outputs of build/adiflow's run over the same blocks, bit for bit
mkdir -p "$T/mb"
./$B/make_grid box --ni 12 --nj 10 --nk 4 --split 6 -o "$T/mb/box2.x" > /dev/null
printf "&adiflow\n  grid_file = 'box2.x', reynolds = 100.0, mach = 0.2, limiter = 'vanalbada', roe_low_mach = 'none'\n  %s\n/\n&multigrid\n  levels = 2, cycle = 'w', pre_smooth = 1, post_smooth = 1\n/\n" \
  "cfl = 10.0, max_iter = 3000, tol = 1.0e-10, mass_fix = .true., monitor_interval = 50, write_plot = .false." > "$T/mb/box2.nml"
same_set() { # same_set DIR_A DIR_B: every restart file, the history, flow.vtm and its pieces identical
  local f n=0
  for f in "$T/$1"/restart.b*.bin "$T/$1"/flow.b*.vts "$T/$1/flow.vtm" "$T/$1/restart.blocks"; do
    cmp -s "$f" "$T/$2/$(basename "$f")" || return 1; n=$((n+1))
  done
  cmp -s <(hist "$T/$1/residual.dat") <(hist "$T/$2/residual.dat") && [ $n -ge 4 ]
}
rc0=$(ser mb_s "$T/mb/box2.nml"); rc1=$(mpi 1 mb_1 "$T/mb/box2.nml"); rc2=$(mpi 2 mb_2 "$T/mb/box2.nml")
mb_it=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/mb_s.log")
expect '[ "$rc0$rc1$rc2" = 000 ] && [ -n "$mb_it" ] && same_set mb_s mb_1 && same_set mb_s mb_2 \
  && grep -q "blocks over 2 MPI ranks .*rank 0: block 2; rank 1: block 1" "$T/mb_2.log"' \
  "multi-block: a box in two blocks on 1 and 2 ranks == build/adiflow bit for bit, converged at $mb_it (restart set, history, flow.vtm; exit codes $rc0 $rc1 $rc2)"
# stopped at 100 on 2 ranks, continued on 1: the same set at the end (a set does not depend on the ranks)
rc1=$(mpi 2 mb_h "$T/mb/box2.nml" --max-iter 100); rc2=$(mpi 1 mb_h "$T/mb/box2.nml" --restart)
expect '[ "$rc1$rc2" = 00 ] && same_set mb_s mb_h && grep -q "restarting from .* at iteration 100" "$T/mb_h.log"' \
  "multi-block: stopped at 100 on 2 ranks, restarted on 1: the same converged set bit for bit (exit codes $rc1 $rc2)"
if [ -f cases/grids/naca0012_c3_128x64.x ]; then
  sed -e "s|grid_file = 'grids/|grid_file = '$PWD/cases/grids/|" -e "s|patch_file = 'grids/|patch_file = '$PWD/cases/grids/|" \
    cases/naca0012_re5000.nml > "$T/mb/naca.nml"
  rc0=$(ser mb_ns "$T/mb/naca.nml" --max-iter 10); rc2=$(mpi 2 mb_n2 "$T/mb/naca.nml" --max-iter 10)
  rc3=$(mpi 3 mb_n3 "$T/mb/naca.nml" --max-iter 10)
  expect '[ "$rc0$rc2$rc3" = 000 ] && same_set mb_ns mb_n2 && same_set mb_ns mb_n3 && cmp -s "$T/mb_ns/forces.csv" "$T/mb_n2/forces.csv" \
    && cmp -s "$T/mb_ns/forces.csv" "$T/mb_n3/forces.csv"' \
    "multi-block: the NACA C-grid's three blocks (patches, 4 levels, 10 W-cycles) on 2 and 3 ranks == build/adiflow bit for bit, forces.csv included (exit codes $rc0 $rc2 $rc3)"
else
  bad "multi-block: cases/grids/naca0012_c3_128x64.x missing (make grids writes it)"
fi
# a C-grid stored as one block: cut at its wake cut into 3 blocks (fortran/block_split.f90), on 3 ranks the
# states of build/adiflow's run of the 3-block file bit for bit
. tests/suites/c_grid_decks.sh
c_grid_decks $B "$T/mb"
rc0=$(ser mb_c3 "$T/mb/c3.nml"); rc3=$(mpi 3 mb_c1 "$T/mb/c1.nml")
same=yes
for f in "$T"/mb_c3/restart.b*.bin "$T"/mb_c3/flow.b*.vts; do cmp -s "$f" "$T/mb_c1/$(basename "$f")" || same=no; done
expect '[ "$rc0$rc3" = 00 ] && [ $same = yes ] && cmp -s <(hist "$T/mb_c3/residual.dat") <(hist "$T/mb_c1/residual.dat") \
  && grep -q "blocks over 3 MPI ranks" "$T/mb_c1.log"' \
  "multi-block: a C-grid stored as one block on 3 ranks (cut at its wake cut) == build/adiflow on the 3-block file, bit for bit (exit codes $rc0 $rc3)"
# a box in 8 blocks, half of them with their directions cycled (i faces joined to k faces, corners of
# three interfaces: tests/suites/turned_box_decks.sh), 40 W-cycles on 3 ranks == build/adiflow bit for bit
. tests/suites/turned_box_decks.sh
turned_box_decks $B "$T/mb" 40
rc0=$(ser mb_t "$T/mb/tb8.nml"); rc3=$(mpi 3 mb_t3 "$T/mb/tb8.nml")
expect '[ "$rc0$rc3" = 00 ] && same_set mb_t mb_t3 && grep -q "blocks over 3 MPI ranks" "$T/mb_t3.log"' \
  "multi-block: a box in 8 blocks, half of them turned, on 3 ranks == build/adiflow bit for bit, 40 W-cycles (exit codes $rc0 $rc3)"
# more ranks than blocks: the largest blocks halved until each rank has one (block_split's cut_to_count):
# the small C-grid's 3 blocks on 4 ranks == build/adiflow with min_blocks = 4, bit for bit
sed 's/max_iter = 5/max_iter = 5, min_blocks = 4/' "$T/mb/c3.nml" > "$T/mb/c3m4.nml"
rc0=$(ser mb_c3m4 "$T/mb/c3m4.nml"); rc4=$(mpi 4 mb_c3r4 "$T/mb/c3.nml")
expect '[ "$rc0$rc4" = 00 ] && same_set mb_c3m4 mb_c3r4 && grep -q "the largest blocks halved until there are 4 (a rank each)" "$T/mb_c3r4.log" \
  && grep -q "blocks over 4 MPI ranks" "$T/mb_c3r4.log"' \
  "multi-block: the C-grid's 3 blocks on 4 ranks, cut into 4 == build/adiflow with min_blocks = 4 bit for bit (exit codes $rc0 $rc4)"
# its restart set continues in build/adiflow with min_blocks = 4 (the same cut): the same states at the end
# (the history holds the stop's own line at 3, so the states and outputs are compared)
rc4=$(mpi 4 mb_c3h "$T/mb/c3.nml" --max-iter 3); rc1=$(ser mb_c3h "$T/mb/c3m4.nml" --restart)
same=yes
for f in "$T"/mb_c3m4/restart.b*.bin "$T"/mb_c3m4/flow.b*.vts "$T/mb_c3m4/flow.vtm"; do cmp -s "$f" "$T/mb_c3h/$(basename "$f")" || same=no; done
expect '[ "$rc4$rc1" = 00 ] && [ $same = yes ] && [ "$(ls "$T"/mb_c3h/restart.b*.bin | wc -l)" = 4 ] && grep -q "restarting from .* at iteration 3" "$T/mb_c3h.log"' \
  "multi-block: a set written on 4 ranks (blocks cut for them) continues in build/adiflow with min_blocks = 4, the same states bit for bit (exit codes $rc4 $rc1)"
# refused by name before a run folder: more ranks than halving gives blocks, a j/k decomposition; without
# a GPU, backend 'gpu' as for one grid (the GPU over the ranks: bench/device_multigrid.sh blocks)
rc1=$(mpi 5 mb_r1 "$T/mb/box2.nml"); rc2=$(mpi 2 mb_r2 "$T/mb/box2.nml" --npj 2)
expect '[ "$rc1$rc2" = 22 ] && grep -q "5 ranks need 5 blocks, but halving the largest gives at most 4" "$T/mb_r1.log" \
  && grep -q "the ranks take whole blocks, npj and npk do not apply" "$T/mb_r2.log" \
  && [ ! -e "$T/mb_r1" ] && [ ! -e "$T/mb_r2" ] && [ "$(grep -c "adiflow_mpi: error" "$T/mb_r1.log")" = 1 ]' \
  "multi-block: more ranks than halving gives blocks and --npj refused by name before a run folder, one message (exit codes $rc1 $rc2)"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  rc3=$(mpi 2 mb_r3 "$T/mb/box2.nml" --backend gpu)
  expect '[ "$rc3" = 2 ] && grep -q "backend = .gpu. but not every rank sees a usable GPU" "$T/mb_r3.log" && [ ! -e "$T/mb_r3" ]' \
    "multi-block without a GPU: backend gpu refused as for one grid, before a run folder (exit $rc3)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

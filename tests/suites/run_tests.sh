#!/usr/bin/env bash
# adiflow test suite (CPU): unit tests of the numerics, then driver-level
# tests of restart, threads, bad input, divergence, interrupt, outputs and
# the Ghia et al. Re=100 check. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=build
T=$(mktemp -d /tmp/adiflow-tests.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass+1)); echo "PASS $*"; }
bad()  { fail=$((fail+1)); echo "FAIL $*"; }
expect() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }

# ---- unit tests (each prints its own PASS/FAIL lines and a summary) ----
for t in $B/test_*; do
  [ -x "$t" ] || continue
  out=$("$t" 2>&1); rc=$?
  echo "$out" | grep -E '^(PASS|FAIL) ' | sed "s|^|  [$(basename "$t")] |"
  np=$(echo "$out" | grep -c '^PASS '); nf=$(echo "$out" | grep -c '^FAIL ')
  pass=$((pass+np)); fail=$((fail+nf))
  if [ $rc -ne 0 ] && [ "$nf" -eq 0 ]; then bad "$(basename "$t") exited with $rc"; echo "$out" | tail -5; fi
done

run() { # run DIR ARGS... -> output in $T/DIR.log, exit code echoed
  local d=$1; shift
  ./$B/adiflow "$@" --run-dir "$T/$d" > "$T/$d.log" 2>&1; echo $?
}

# ---- restart continuation: 40 iterations == 20 + restart + 20 ----
rc1=$(run full tests/cases/cube12.nml --backend cpu)
rc2=$(run half tests/cases/cube12.nml --backend cpu --max-iter 20)
rc3=$(run half tests/cases/cube12.nml --backend cpu --restart)
expect '[ "$rc1$rc2$rc3" = 000 ]' "restart runs finish (exit codes $rc1 $rc2 $rc3)"
expect 'cmp -s "$T/full/field.dump" "$T/half/field.dump"' \
  "restart continuation is bit-identical (40 == 20 + restart + 20)"
expect 'grep -q "restarting from .* at iteration 20" "$T/half.log"' "restart run says where it continues"

# ---- OpenMP: 1 thread vs 2 threads bit-identical ----
# (ADIFLOW_OMP_CELLS_PER_THREAD=1: this small grid's regions would run on one
# thread by default, fortran/omp_policy.f90)
export ADIFLOW_OMP_CELLS_PER_THREAD=1
OMP_NUM_THREADS=1 ./$B/adiflow tests/cases/cube12.nml --backend cpu --run-dir "$T/t1" > /dev/null 2>&1
OMP_NUM_THREADS=2 ./$B/adiflow tests/cases/cube12.nml --backend cpu --run-dir "$T/t2" > /dev/null 2>&1
expect 'cmp -s "$T/t1/field.dump" "$T/t2/field.dump"' "OpenMP 1 thread and 2 threads give bit-identical fields"
# the outputs' values are made by threads too (fortran/output_fields.f90, output_vtk.f90)
expect '[ -s "$T/t1/flow.vts" ] && cmp -s "$T/t1/flow.vts" "$T/t2/flow.vts" && cmp -s "$T/t1/flow.dat" "$T/t2/flow.dat"' \
  "OpenMP 1 thread and 2 threads write the same flow.vts and flow.dat byte for byte"

# ---- mass_fix (fortran/mass_constraint.f90): fixed-order mass sums, M0 from the grid ----
OMP_NUM_THREADS=1 ./$B/adiflow tests/cases/cube12.nml --backend cpu --mass-fix --run-dir "$T/m1" > "$T/m1.log" 2>&1
OMP_NUM_THREADS=2 ./$B/adiflow tests/cases/cube12.nml --backend cpu --mass-fix --run-dir "$T/m2" > /dev/null 2>&1
expect 'grep -q "mass_fix: total mass held at" "$T/m1.log" && cmp -s "$T/m1/field.dump" "$T/m2/field.dump" && ! cmp -s "$T/m1/field.dump" "$T/t1/field.dump"' \
  "mass_fix: changes the state, and OpenMP 1 and 2 threads stay bit-identical"
unset ADIFLOW_OMP_CELLS_PER_THREAD
rc1=$(run mhalf tests/cases/cube12.nml --backend cpu --mass-fix --max-iter 20)
rc2=$(run mhalf tests/cases/cube12.nml --backend cpu --mass-fix --restart)
expect '[ "$rc1$rc2" = 00 ] && cmp -s "$T/m1/field.dump" "$T/mhalf/field.dump"' \
  "mass_fix: restart continuation bit-identical (M0 recomputed from the grid)"

# ---- outputs of a run ----
f=$T/full
expect 'head -c 200 "$f/flow.vts" | grep -q "<VTKFile type=\"StructuredGrid\""' "VTK structured grid written"
expect 'tail -c 30 "$f/flow.vts" | grep -q "</VTKFile>"' "VTK file complete"
expect 'grep -q "^VARIABLES = \"x\" \"y\" \"z\" \"density\"" "$f/flow.dat" && grep -q "I=13, J=11, K=9" "$f/flow.dat"' \
  "Tecplot ASCII zone written with node dimensions"
expect '[ $(wc -l < "$f/centreline_u.csv") -eq 13 ] && [ $(wc -l < "$f/centreline_v.csv") -eq 15 ]' \
  "centreline profiles written (cells + 2 wall points + header)"
expect '[ $(grep -vc "^#" "$f/residual.dat") -eq 5 ]' "residual.dat has one line per monitored iteration"
expect '[ $(stat -c %s "$f/field.dump") -eq $((128 + 12*10*8*5*8 + 8)) ]' "field dump has the documented size"
expect 'cmp -s "$f/field.dump" "$f/restart.bin" && [ "$(stat -c %i "$f/field.dump")" = "$(stat -c %i "$f/restart.bin")" ] && [ ! -e "$f/field.dump.tmp" ]' \
  "the final field.dump is the final restart under a second name (no bytes written twice), no temporary left"

# ---- the outputs as VTK's own readers see them (tests/suites/check_outputs_vtk.py, python3-vtk9) ----
# names (README's "Output variables" table, the same in flow.vts and flow.dat), sizes, wall and lid
# nodes, node means, cp at rest, vorticity against central differences, the .pvd collection (a
# restarted series included)
VTKPY=""
for py in python3 /usr/bin/python3; do  # Debian's module is for its own python3, which a PATH python may hide
  if "$py" -c 'import vtkmodules.vtkIOXML, vtkmodules.vtkIOGeometry, numpy' 2>/dev/null; then VTKPY=$py; break; fi
done
if [ -z "$VTKPY" ]; then
  echo "note: python3-vtk9 (and numpy) cannot be imported: the VTK reader checks of the outputs are skipped" \
    "(scripts/install_deps.sh test installs them)"
else
  printf '&adiflow\nni = 8, nj = 6, nk = 4, max_iter = 0, write_plot = .false.\n/\n' > "$T/vtk_rest.nml"
  printf '&adiflow\nni = 10, nj = 8, nk = 6, reynolds = 50., max_iter = 10, output_interval = 4, monitor_interval = 5, write_plot = .false.\n/\n' > "$T/vtk_series.nml"
  rc1=$(OMP_NUM_THREADS=1 run vtk_rest "$T/vtk_rest.nml" --backend cpu)
  rc2=$(OMP_NUM_THREADS=1 run vtk_series "$T/vtk_series.nml" --backend cpu)
  rc3=$(OMP_NUM_THREADS=1 run vtk_restart "$T/vtk_series.nml" --backend cpu --max-iter 10)
  rc4=$(OMP_NUM_THREADS=1 run vtk_restart "$T/vtk_series.nml" --backend cpu --restart --max-iter 14)
  expect '[ "$rc1$rc2$rc3$rc4" = 0000 ]' "VTK reader runs finish (exit codes $rc1 $rc2 $rc3 $rc4)"
  out=$("$VTKPY" tests/suites/check_outputs_vtk.py --readme README.md --case "$T/vtk_rest" 8 6 4 \
    --case "$T/vtk_series" 10 8 6 --case "$f" 12 10 8 --initial "$T/vtk_rest" --uniform "$T/vtk_series" \
    --stretched "$f" --pvd "$T/vtk_series" 4,8,10 --pvd "$T/vtk_restart" 4,8,12,14 2>&1); vrc=$?
  echo "$out" | grep -E '^(PASS|FAIL) ' | sed 's|^|  [check_outputs_vtk] |'
  np=$(echo "$out" | grep -c '^PASS '); nf=$(echo "$out" | grep -c '^FAIL ')
  pass=$((pass+np)); fail=$((fail+nf))
  if [ $vrc -ne 0 ] && [ "$nf" -eq 0 ]; then bad "check_outputs_vtk.py exited with $vrc"; echo "$out" | tail -5; fi
fi

# ---- Plot3D solution output (write_plot3d): flow.xyz and flow.q read record by record ----
# (tests/suites/check_plot3d_q.py, standard library): sizes, header, the nodes' values
# against field.dump's cells; flow.xyz read back as a run's grid gives the same run
printf '&adiflow\nni = 10, nj = 8, nk = 6, beta_y = 1.1, reynolds = 100., mach = 0.2, max_iter = 12, write_plot = .false., write_vtk = .false., write_plot3d = .true.\n/\n' > "$T/p3q.nml"
rc=$(OMP_NUM_THREADS=1 run p3q "$T/p3q.nml" --backend cpu)
expect '[ $rc -eq 0 ] && [ -f "$T/p3q/flow.xyz" ] && [ -f "$T/p3q/flow.q" ] && ! ls "$T/p3q"/*.tmp > /dev/null 2>&1' \
  "write_plot3d: the run writes flow.xyz and flow.q and leaves no temporary (exit code $rc)"
out=$(python3 tests/suites/check_plot3d_q.py "$T/p3q" 10 8 6 0.2 0 100 1.4 1 2>&1); prc=$?
echo "$out" | grep -E '^(PASS|FAIL) ' | sed 's|^|  [check_plot3d_q] |'
np=$(echo "$out" | grep -c '^PASS '); nf=$(echo "$out" | grep -c '^FAIL ')
pass=$((pass+np)); fail=$((fail+nf))
if [ $prc -ne 0 ] && [ "$nf" -eq 0 ]; then bad "check_plot3d_q.py exited with $prc"; echo "$out" | tail -5; fi
mkdir -p "$T/p3g" && cp "$T/p3q/flow.xyz" "$T/p3g/grid.xyz"
printf '&adiflow\ngrid_file = "grid.xyz", reynolds = 100., mach = 0.2, max_iter = 12, write_plot = .false., write_vtk = .false.\n/\n' > "$T/p3g/p3g.nml"
rc=$(OMP_NUM_THREADS=1 run p3g_run "$T/p3g/p3g.nml" --backend cpu)
expect '[ $rc -eq 0 ] && cmp -s "$T/p3q/field.dump" "$T/p3g_run/field.dump"' \
  "write_plot3d: flow.xyz as the grid_file of the same case gives the generated grid's run, field.dump bit for bit"
ln -s "$T/p3q/victim" "$T/p3g_run/flow.q" 2>/dev/null
sed -i 's/write_vtk = .false./write_vtk = .false., write_plot3d = .true./' "$T/p3g/p3g.nml"
rc=$(OMP_NUM_THREADS=1 run p3g_run "$T/p3g/p3g.nml" --backend cpu)
expect '[ $rc -eq 0 ] && [ ! -L "$T/p3g_run/flow.q" ] && [ ! -e "$T/p3q/victim" ] && cmp -s "$T/p3q/flow.q" "$T/p3g_run/flow.q"' \
  "write_plot3d: a link at flow.q is replaced, never followed; the file equals the generated grid's run's"

# ---- golden residual history: the CPU reference's digits, kept across every restructuring ----
expect 'diff <(grep -v "^#" tests/golden/cube12_residual.txt) <(grep -v "^#" "$f/residual.dat" | awk "{print \$1, \$2, \$3, \$4, \$5, \$6, \$7, \$8}") > "$T/golden.diff"' \
  "residual history of cube12 == the stored golden history (tests/golden/cube12_residual.txt), every digit"
[ -s "$T/golden.diff" ] && head -n 6 "$T/golden.diff"
expect '[ "$(md5sum < "$f/field.dump" | cut -d" " -f1)" = "$(cat tests/golden/cube12_field.md5)" ]' \
  "field.dump of cube12 == the stored golden one (md5 in tests/golden/cube12_field.md5), bit for bit"

# ---- compare_fields' tolerance: the momenta against the momentum's scale ----
mkdir -p "$T/fx" && ./$B/dump_fixtures "$T/fx"
expect './$B/compare_fields "$T/fx/base.dump" "$T/fx/wnoise.dump" --tol 1e-12 > "$T/fx/w.txt" && grep -q "^  rho\*w .* 8.000e-17 " "$T/fx/w.txt"' \
  "compare_fields --tol 1e-12: rho*w round-off (3e-17) in a quasi-2D state is measured against the momentum's scale (8e-17), within"
expect '! ./$B/compare_fields "$T/fx/base.dump" "$T/fx/upert.dump" --tol 1e-12 > "$T/fx/u.txt" && grep -q "^  rho\*u .* 1.000e-10 .*ABOVE TOLERANCE" "$T/fx/u.txt"' \
  "compare_fields --tol 1e-12: a rho*u change of 1e-10 of the momentum's scale is above"

# ---- bad input: clear message naming the key/value, exit code 2 ----
badcase() { # NAME "namelist body" "expected message part"
  printf '&adiflow\n%s\n/\n' "$2" > "$T/bad.nml"
  out=$(./$B/adiflow "$T/bad.nml" --run-dir "$T/bad" 2>&1); rc=$?
  if [ $rc -eq 2 ] && echo "$out" | grep -qF -- "$3"; then ok "bad input rejected: $1"
  else bad "bad input rejected: $1 (exit $rc, got: $out)"; fi
}
badcase "grid size"        "ni = 0"                         "ni = 0 is out of range: allowed 1 to 4096"
badcase "negative Mach"    "mach = -0.1"                    "mach = "
badcase "unknown key"      "reynold = 100."                 "reynold"
badcase "wrong type"       "ni = 'abc'"                     "case file"
badcase "bad limiter"      "limiter = 'superbee'"           'limiter = "superbee" is not allowed (use one of: vanalbada minmod vanleer venkat)'
badcase "limiter_k"        "limiter = 'venkat', limiter_k = 0." "limiter_k = 0 is out of range: must be > 0 and <= 1000"
badcase "bad roe_low_mach" "roe_low_mach = 'weiss'"         'roe_low_mach = "weiss" is not allowed (use one of: none rieper)'
badcase "bad implicit_precision" "implicit_precision = 'half'" 'implicit_precision = "half" is not allowed (use one of: double single)'
badcase "bad boundary"     "bc_imin = 'inflow'"             'bc_imin = "inflow" is not allowed'
badcase "unpaired periodic" "bc_kmin = 'periodic'"          "periodic boundaries come in pairs"
badcase "bad backend"      "backend = 'opencl'"             'backend = "opencl" is not allowed'
badcase "order"            "order = 3"                      "order = 3 is out of range"
badcase "cfl"              "cfl = 0."                       "cfl = "
badcase "too few wall cells" "nk = 1"                       "nk = 1 is too small"
badcase "grid too big for memory" "ni = 4096, nj = 4096, nk = 4096" "GiB of host memory"
# mass_fix runs on the GPU backend too (cuda/api/mass.cu): no refusal of
# its own. Without a GPU, backend 'cuda' with it fails as backend 'cuda'
# alone does (exit 4, the no-device message), and 'auto' falls back to the CPU
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  out0=$(./$B/adiflow tests/cases/cube12.nml --backend cuda --run-dir "$T/ng0" 2>&1); rc0=$?
  out1=$(./$B/adiflow tests/cases/cube12.nml --backend cuda --mass-fix --run-dir "$T/ng1" 2>&1); rc1=$?
  expect '[ $rc0 -ne 0 ] && [ $rc1 -eq $rc0 ] && [ "$out1" = "$out0" ] && ! echo "$out1" | grep -q "mass_fix"' \
    "backend cuda --mass-fix without a GPU: the usual no-GPU error (exit $rc1), no mass_fix refusal"
  rc=$(run ngauto tests/cases/cube12.nml --backend auto --mass-fix --max-iter 2)
  expect '[ "$rc" -eq 0 ] && grep -q "no usable GPU found, running on the CPU backend" "$T/ngauto.log" && grep -q "mass_fix: total mass held at" "$T/ngauto.log"' \
    "backend auto --mass-fix without a GPU: runs on the CPU with the usual fallback message"
fi
out=$(./$B/adiflow "$T/nonexistent.nml" 2>&1); rc=$?
expect '[ $rc -eq 2 ] && echo "$out" | grep -q "does not exist"' "missing case file rejected"
out=$(./$B/adiflow tests/cases/cube12.nml --frobnicate 2>&1); rc=$?
expect '[ $rc -eq 2 ] && echo "$out" | grep -q "unknown option \"--frobnicate\""' "unknown command-line option rejected"
printf '&adiflow\nni = 8, nj = 8, nk = 6\n/\n' > "$T/other.nml"
out=$(./$B/adiflow "$T/other.nml" --restart --run-dir "$T/half" 2>&1); rc=$?
expect '[ $rc -eq 2 ] && echo "$out" | grep -q "does not match the case grid"' "restart on a different grid rejected"
cp "$T/half/restart.bin" "$T/corrupt.bin"
printf '\x55' | dd of="$T/corrupt.bin" bs=1 seek=500 conv=notrunc 2>/dev/null
mkdir -p "$T/corrupt"; cp "$T/corrupt.bin" "$T/corrupt/restart.bin"
out=$(./$B/adiflow tests/cases/cube12.nml --restart --run-dir "$T/corrupt" 2>&1); rc=$?
expect '[ $rc -eq 2 ] && echo "$out" | grep -q "fails its checksum"' "damaged restart file detected by its checksum"

# ---- divergence: stops with a message, keeps the last good restart ----
rc=$(run div tests/cases/diverge.nml --backend cpu)
expect '[ "$rc" -eq 3 ] && grep -q "diverged at iteration" "$T/div.log"' "diverging run stops with exit 3 and a message"
it_nan=$(sed -n 's/.*diverged at iteration \([0-9]*\).*/\1/p' "$T/div.log")
it_rst=$(od -An -t d8 -j 32 -N 8 "$T/div/restart.bin" | tr -d ' ')
expect '[ -n "$it_nan" ] && [ "$it_rst" -lt "$it_nan" ] && [ "$it_rst" -gt 0 ]' \
  "restart kept from before the divergence (restart at $it_rst, NaN at $it_nan)"
rc=$(run div tests/cases/diverge.nml --backend cpu --restart --max-iter "$it_rst")
expect '[ "$rc" -eq 0 ]' "the kept restart is readable and finite"

# ---- SIGINT: writes a restart and stops cleanly ----
sed 's/max_iter = 40/max_iter = 100000/' tests/cases/cube12.nml > "$T/long.nml"
./$B/adiflow "$T/long.nml" --backend cpu --run-dir "$T/int" > "$T/int.log" 2>&1 &
pid=$!; sleep 3; kill -INT $pid; wait $pid; rc=$?
expect '[ $rc -eq 130 ] && grep -q "interrupted by SIGINT (Ctrl-C) at iteration" "$T/int.log" && [ -s "$T/int/restart.bin" ]' \
  "SIGINT writes a restart and exits with 130"
expect 'grep -q "to continue: .*adiflow .*long.nml --backend cpu --run-dir .*/int --restart" "$T/int.log"' \
  "the interrupted run's last line is the command that continues it"
it_int=$(od -An -t d8 -j 32 -N 8 "$T/int/restart.bin" | tr -d ' ')
rc=$(run int "$T/long.nml" --backend cpu --restart --max-iter $((it_int + 2)))
expect '[ "$rc" -eq 0 ]' "run continues from the interrupt restart (iteration $it_int)"

# ---- a grid from a Plot3D file (grid_file) == the same grid generated ----
# make_grid's channel (x uniform on [0, 1], y clustered at both walls by
# grid_generation's tanh formula) is the generated quasi-2D cavity with
# beta_y = 1.5: the run from the file must give the very same bits
mkdir -p "$T/gf"
./$B/make_grid channel --ni 16 --nj 16 --length 1 --height 1 --beta-y 1.5 -o "$T/gf/ch16.x" > /dev/null
printf '&adiflow\n  ni = 16, nj = 16, nk = 1, lx = 1.0, ly = 1.0, lz = 0.0625, beta_y = 1.5\n  %s\n/\n' \
  "bc_kmin = 'periodic', bc_kmax = 'periodic', max_iter = 40, write_plot = .false." > "$T/gf/gen.nml"
printf '&adiflow\n  grid_file = %s, grid_span = 0.0625\n  %s\n/\n' "'ch16.x'" \
  "bc_kmin = 'periodic', bc_kmax = 'periodic', max_iter = 40, write_plot = .false." > "$T/gf/file.nml"
rc1=$(run gf_gen "$T/gf/gen.nml" --backend cpu)
rc2=$(run gf_file "$T/gf/file.nml" --backend cpu)
expect '[ "$rc1$rc2" = 00 ] && grep -q "grid 16 x 16 x 1 from .*/gf/ch16.x" "$T/gf_file.log"' \
  "grid_file: a 2D Plot3D grid runs quasi-2D, its path from the case file's folder (exit codes $rc1 $rc2)"
expect 'cmp -s "$T/gf_gen/field.dump" "$T/gf_file/field.dump" && cmp -s <(grep -v "^#" "$T/gf_gen/residual.dat" | awk "{print \$1,\$2,\$3,\$4,\$5,\$6,\$7,\$8}") <(grep -v "^#" "$T/gf_file/residual.dat" | awk "{print \$1,\$2,\$3,\$4,\$5,\$6,\$7,\$8}")' \
  "grid_file: the grid read from a file gives the same bits as the same grid generated (40 iterations)"
rc3=$(run gf_mg "$T/gf/file.nml" --backend cpu --mg-levels 3)
expect '[ "$rc3" = 0 ] && grep -q "levels" "$T/gf_mg.log"' "grid_file: multigrid (3 levels) on a grid from a file runs"

# ---- boundary patches (patch_file): the box's own boundaries as patches == the box ----
mkdir -p "$T/pf"
printf '%s\n' '# cube12 (12 x 10 x 8): its walls and lid, faces split' 'imin wall 1:5 1:8' 'imin wall 6:10 1:8' \
  'imax wall' 'jmin wall 1:6 1:8' 'jmin wall 7:12 1:8' 'jmax lid 1:12 1:4' 'jmax lid 1:12 5:8' 'kmin wall' 'kmax wall' \
  > "$T/pf/cube12.bc"
sed "s|^&adiflow|\&adiflow\n  patch_file = 'cube12.bc'|" tests/cases/cube12.nml > "$T/pf/cube12.nml"
rc1=$(run pf_box tests/cases/cube12.nml --backend cpu); rc2=$(run pf_patch "$T/pf/cube12.nml" --backend cpu)
expect '[ "$rc1$rc2" = 00 ] && cmp -s "$T/pf_box/field.dump" "$T/pf_patch/field.dump"' \
  "patch_file: the cube's walls and lid as 9 patches give the same bits as the box's bc keys (40 iterations)"
# either backend takes patches: without a GPU, auto falls back to the CPU
# as it does without them, and backend cuda stops as it does without them
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  rc=$(run pf_auto "$T/pf/cube12.nml" --max-iter 2)
  out0=$(./$B/adiflow tests/cases/cube12.nml --backend cuda --run-dir "$T/pf_ng0" 2>&1); rc0=$?
  out1=$(./$B/adiflow "$T/pf/cube12.nml" --backend cuda --run-dir "$T/pf_ng1" 2>&1); rc1=$?
  expect '[ "$rc" = 0 ] && grep -q "no usable GPU found, running on the CPU backend" "$T/pf_auto.log" && [ $rc0 -ne 0 ] && [ $rc1 -eq $rc0 ] && [ "$out1" = "$out0" ]' \
    "patch_file without a GPU: backend auto runs on the CPU with the usual fallback message, backend cuda gives the usual no-GPU error (exit $rc1)"
fi
expect '[ $(grep -c "^[0-9]" "$T/pf_patch/forces.csv") -eq 9 ] && [ $(grep -c "^[0-9]" "$T/pf_patch/wall_06_jmax.csv") -eq 48 ] && grep -q "^# cp = (p - p_ref)/(rho_ref U_ref^2/2)" "$T/pf_patch/wall_06_jmax.csv"' \
  "patch_file: a wall file per wall patch (48 faces of the 12 x 4 lid patch, units stated) and forces.csv with a row per patch"
expect 'awk -F, "\$1 == 6 || \$1 == 7 { n++; if (\$7 + 0 < -0.1) neg++ } END { exit !(n == 2 && neg == 2) }" "$T/pf_patch/forces.csv"' \
  "patch_file: the lid patches' viscous force points against the lid's motion (the fluid below is slower)"
# the force history (fortran/forces_monitor.f90): forces.dat gets a row at every monitor line
# (iterations 1, 10, 20, 30, 40: residual.dat's), 2 + 9 patches x 9 columns, its units in the
# header, and its last row holds forces.csv's numbers, digit for digit
fd=$T/pf_patch/forces.dat
expect '[ "$(grep -v "^#" "$fd" | awk "{print \$1}" | tr "\n" " ")" = "1 10 20 30 40 " ] && [ "$(grep -v "^#" "$T/pf_patch/residual.dat" | awk "{print \$1}" | tr "\n" " ")" = "1 10 20 30 40 " ] && grep -v "^#" "$fd" | awk "NF != 83 { exit 1 }"' \
  "forces.dat: a row per monitor line (iterations 1 10 20 30 40, as residual.dat), 9 patches x 9 coefficients"
expect 'grep -q "^# force coefficients of the wall patches: F/(rho_ref U_ref^2/2 A), A = 1" "$fd" && grep -q "^# patches .* 6 lid jmax cells 1..12 x 1..4;" "$fd" && grep -q "^# iter  work  p1_cx_pressure .* p9_cz$" "$fd"' \
  "forces.dat: its header states the coefficients' reference and names the patches and columns"
expect 'awk -F, "FNR == NR { if (\$1 ~ /^[0-9]/) for (i = 4; i <= 12; i++) { v = \$i; gsub(/ /, \"\", v); want[++n] = v }; next } !/^#/ { last = \$0 } END { m = split(last, f, \" \"); if (m != 2 + n || n != 81) exit 1; for (i = 1; i <= n; i++) if (f[i + 2] != want[i]) exit 1 }" "$T/pf_patch/forces.csv" "$fd"' \
  "forces.dat: the last row equals forces.csv's values, digit for digit"
sed "s|^&adiflow|\&adiflow\n  monitor_forces = .true.|" "$T/pf/cube12.nml" > "$T/pf/cube12_mf.nml"
rc1=$(run pf_hist "$T/pf/cube12_mf.nml" --backend cpu --max-iter 20)
ln -s "$T/pf/victim" "$T/pf_hist/forces.dat.tmp"
rc2=$(run pf_hist "$T/pf/cube12_mf.nml" --backend cpu --restart)
expect '[ "$(grep -c "^ *forces  6  lid jmax  C " "$T/pf_hist.log")" -eq 2 ] && [ "$(grep -c "^ *forces  [1-9] " "$T/pf_hist.log")" -eq 18 ]' \
  "monitor_forces: 9 patches' coefficients under each of the restarted run's 2 progress lines"
expect '[ "$rc1$rc2" = 00 ] && cmp -s <(grep -v "^#" "$fd" | cut -c 24-) <(grep -v "^#" "$T/pf_hist/forces.dat" | cut -c 24-) && [ "$(grep -v "^#" "$T/pf_hist/forces.dat" | awk "{print \$1}" | tr "\n" " ")" = "1 10 20 30 40 " ]' \
  "forces.dat: a restart keeps the rows up to its iteration and continues them as one run (20 + restart + 20 == 40)"
rm "$T/pf_hist/forces.dat"; ln -s "$T/pf/victim" "$T/pf_hist/forces.dat"
rc=$(run pf_hist "$T/pf/cube12_mf.nml" --backend cpu --restart --max-iter 50)
expect '[ "$rc" = 0 ] && [ ! -e "$T/pf/victim" ] && [ ! -L "$T/pf_hist/forces.dat" ] && [ ! -L "$T/pf_hist/forces.dat.tmp" ] && [ "$(grep -vc "^#" "$T/pf_hist/forces.dat")" -eq 1 ]' \
  "forces.dat: links planted at forces.dat and its .tmp are replaced, never followed"
sed "s|^&adiflow|\&adiflow\n  monitor_forces = .true.|" tests/cases/cube12.nml > "$T/pf/box_mf.nml"
rc=$(run mf_box "$T/pf/box_mf.nml" --backend cpu --max-iter 1)
expect '[ "$rc" = 0 ] && grep -q "note: monitor_forces: this run has no wall or lid patch" "$T/mf_box.log" && [ ! -e "$T/mf_box/forces.dat" ]' \
  "monitor_forces without patches: said, and no forces.dat"
printf '%s\n' 'imin wall 1:4 1:10' 'imin wall 5:12 1:4' 'imin wall 5:12 5:10' 'imax wall' 'jmin wall 1:8 1:10' \
  'jmin wall 9:16 1:10' 'jmax lid 1:16 1:4' 'jmax lid 1:16 5:10' 'kmin wall' 'kmax wall' > "$T/pf/mg16.bc"
sed "s|^&adiflow|\&adiflow\n  patch_file = 'mg16.bc'|" tests/cases/mg_cube16.nml > "$T/pf/mg16.nml"
rc1=$(run pf_mgbox tests/cases/mg_cube16.nml --backend cpu); rc2=$(run pf_mgpatch "$T/pf/mg16.nml" --backend cpu)
expect '[ "$rc1$rc2" = 00 ] && grep -q "multigrid: 4 levels" "$T/pf_mgpatch.log" && cmp -s "$T/pf_mgbox/field.dump" "$T/pf_mgpatch/field.dump"' \
  "patch_file: patches coarsened over 4 multigrid levels give the same bits as the box (W-cycles)"
sed 's/imin wall 1:4 1:10/imin wall 1:3 1:10/; s/imin wall 5:12 1:4/imin wall 4:12 1:4/; s/imin wall 5:12 5:10/imin wall 4:12 5:10/' \
  "$T/pf/mg16.bc" > "$T/pf/mg16odd.bc"
sed "s|mg16.bc|mg16odd.bc|" "$T/pf/mg16.nml" > "$T/pf/mg16odd.nml"
rc=$(run pf_mgodd "$T/pf/mg16odd.nml" --backend cpu)
expect '[ "$rc" = 0 ] && grep -q "asked for 4 levels, using 1: .*the patches stop coarsening at level 1: patch 1 on face imin (cells 1..3 x 1..10) has an edge inside a coarse cell" "$T/pf_mgodd.log"' \
  "patch_file: a patch edge inside a coarse cell stops the hierarchy there, and the run says which patch"
./$B/make_grid box --ni 8 --nj 8 --nk 6 -o "$T/pf/fbox.x" > /dev/null
printf '%s\n' 'imin farfield' 'imax farfield' 'jmin farfield' 'jmax farfield' 'kmin farfield' 'kmax farfield' > "$T/pf/ff.bc"
printf "&adiflow\n  grid_file = 'fbox.x', patch_file = 'ff.bc'\n  %s\n/\n" \
  "freestream_alpha = 30.0, freestream_beta = 10.0, mach = 0.3, max_iter = 10, monitor_interval = 5, write_plot = .false." \
  > "$T/pf/ff.nml"
rc=$(run pf_ff "$T/pf/ff.nml" --backend cpu)
expect '[ "$rc" = 0 ] && awk "\$1 == 10 { ok = (\$3 < 1e-12 && \$4 < 1e-12 && \$5 < 1e-12 && \$6 < 1e-12 && \$7 < 1e-11) } END { exit !ok }" "$T/pf_ff.log"' \
  "patch_file: farfield on every face of a curvilinear grid from a file keeps the free stream (alpha 30, beta 10: residual at round-off after 10 iterations)"

# ---- multi-block grids: the blocks solved together (fortran/blocks_driver.f90) ----
# a curvilinear box as one block and as two joined at node i = 6 (make_grid --split), W(1,1) over 2
# levels, mass_fix, 10 orders: each block's state = the one-block run's cells within 1e-8 of each
# variable's largest (compare_fields --at); the restart set continues a run bit for bit; refusals
mkdir -p "$T/mb"
# the CGNS checks below need the library and Debian's cgns-convert tools (as tests/suites/cgns_tests.sh)
mb_cg=""
command -v plot3d_to_cgns > /dev/null 2>&1 && command -v cgnscheck > /dev/null 2>&1 && [ -x "$B/cgns_fixture" ] \
  && ./$B/cgns_fixture twozones "$T/mb/probe.cgns" > /dev/null 2>&1 && mb_cg=yes
[ -z "$mb_cg" ] && echo "note: no CGNS library or cgns-convert tools: the multi-block CGNS checks are skipped"
./$B/make_grid box --ni 12 --nj 10 --nk 4 -o "$T/mb/box1.x" > /dev/null
./$B/make_grid box --ni 12 --nj 10 --nk 4 --split 6 -o "$T/mb/box2.x" > /dev/null
mb_deck() { # NAME GRID [MORE KEYS]
  printf "&adiflow\n  grid_file = '%s', reynolds = 100.0, mach = 0.2, limiter = 'vanalbada', roe_low_mach = 'none'\n  %s\n  %s\n/\n&multigrid\n  levels = 2, cycle = 'w', pre_smooth = 1, post_smooth = 1\n/\n" \
    "$2" "cfl = 10.0, max_iter = 3000, tol = 1.0e-10, mass_fix = .true., monitor_interval = 50, write_plot = .false." \
    "${3:-write_tecplot = .false.}" > "$T/mb/$1.nml"
}
mb_deck one box1.x; mb_deck two box2.x
rc1=$(run mb_one "$T/mb/one.nml" --backend cpu); rc2=$(run mb_two "$T/mb/two.nml" --backend cpu)
mb_it=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/mb_two.log")
expect '[ "$rc1$rc2" = 00 ] && [ -n "$mb_it" ] && grep -q "grid: 2 blocks from .*box2.x .*1 1-to-1 interface(s), 480 cells" "$T/mb_two.log" \
  && grep -q "multigrid over the blocks: 2 levels" "$T/mb_two.log"' \
  "multi-block: a box in two blocks converges 10 orders with W-cycles over the blocks (exit codes $rc1 $rc2, iteration $mb_it)"
mb_r=$T/mb_two/restart.b00001.it$mb_it.bin; mb_s=$T/mb_two/restart.b00002.it$mb_it.bin
./$B/compare_fields "$T/mb_one/field.dump" "$mb_r" --at 1,1,1 --tol 1e-8 > "$T/mb_cmp1.log" 2>&1; c1=$?
./$B/compare_fields "$T/mb_one/field.dump" "$mb_s" --at 6,1,1 --tol 1e-8 > "$T/mb_cmp2.log" 2>&1; c2=$?
expect '[ "$c1$c2" = 00 ]' "multi-block: each block's steady state = the one-block run's cells within 1e-8 (compare_fields --at; exit codes $c1 $c2)"
expect '[ "$(grep -c "<DataSet index=" "$T/mb_two/flow.vtm")" = 2 ] && grep -q "file=\"flow.b00002.vts\"" "$T/mb_two/flow.vtm" \
  && [ -s "$T/mb_two/flow.b00001.vts" ] && [ -s "$T/mb_two/flow.b00002.vts" ] && grep -q "^blocks 2$" "$T/mb_two/restart.blocks" \
  && [ "$(ls "$T/mb_two" | grep -c "^restart\.b.*\.bin$")" = 2 ]' \
  "multi-block: flow.vtm lists the two blocks' .vts files; the restart index names the one complete set left"
if [ -n "$VTKPY" ]; then
  # flow.vtm through VTK's multi-block reader, as ParaView opens it: two structured blocks of 200 and
  # 280 cells, the density present and finite
  "$VTKPY" - "$T/mb_two/flow.vtm" > "$T/mb_vtm.log" 2>&1 <<'PYEOF'
import sys, math
from vtkmodules.vtkIOXML import vtkXMLMultiBlockDataReader
r = vtkXMLMultiBlockDataReader(); r.SetFileName(sys.argv[1]); r.Update()
m = r.GetOutput()
cells = [m.GetBlock(b).GetNumberOfCells() for b in range(m.GetNumberOfBlocks())]
rho = [m.GetBlock(b).GetCellData().GetArray("density") for b in range(m.GetNumberOfBlocks())]
ok = cells == [200, 280] and all(a is not None and all(math.isfinite(a.GetValue(i)) and a.GetValue(i) > 0
                                                      for i in range(a.GetNumberOfTuples())) for a in rho)
print("blocks", cells, "ok" if ok else "BAD")
sys.exit(0 if ok else 1)
PYEOF
  rc=$?
  expect '[ "$rc" = 0 ]' "multi-block: flow.vtm read by VTK's multi-block reader: two blocks of 200 and 280 cells, density finite and positive ($(cat "$T/mb_vtm.log" | tail -n 1))"
fi
# flow.dat with a zone per block (write_tecplot, the default), named as the blocks, read by VTK's
# Tecplot reader as ParaView reads it
mb_deck tec box2.x "write_tecplot = .true."
rc=$(run mb_tec "$T/mb/tec.nml" --backend cpu --max-iter 20)
expect '[ "$rc" = 0 ] && [ "$(grep -c "^ZONE T=" "$T/mb_tec/flow.dat")" = 2 ] && grep -q "^ZONE T=\"block 1\", I=6, J=11, K=5" "$T/mb_tec/flow.dat" \
  && grep -q "^ZONE T=\"block 2\", I=8, J=11, K=5" "$T/mb_tec/flow.dat"' \
  "multi-block: flow.dat holds a zone per block with its node counts (exit $rc)"
if [ -n "$VTKPY" ]; then
  "$VTKPY" - "$T/mb_tec/flow.dat" > "$T/mb_tec.py.log" 2>&1 <<'PYEOF'
import sys, math
from vtkmodules.vtkIOGeometry import vtkTecplotReader
r = vtkTecplotReader(); r.SetFileName(sys.argv[1]); r.Update()
m = r.GetOutput()
cells = [m.GetBlock(b).GetNumberOfCells() for b in range(m.GetNumberOfBlocks())]
lo = min(m.GetBlock(b).GetCellData().GetArray('density').GetRange()[0] for b in range(m.GetNumberOfBlocks()))
print('zones', cells, 'density >=', lo)
sys.exit(0 if cells == [200, 280] and lo > 0 and math.isfinite(lo) else 1)
PYEOF
  rc=$?
  expect '[ "$rc" = 0 ]' "multi-block: flow.dat read by VTK's Tecplot reader: $(tail -n 1 "$T/mb_tec.py.log")"
fi
# write_plot3d over the blocks: flow.xyz and flow.q hold both blocks in the file's order; the nodes the
# two blocks share on their interface carry the same values in both (each node's value is the mean of the
# eight cells around it, the other block's through the interface's ghosts); plot3d_to_cgns and cgnscheck
# take the pair
mb_deck p3 box2.x "write_tecplot = .false., write_plot3d = .true."
rc=$(run mb_p3 "$T/mb/p3.nml" --backend cpu --max-iter 40)
python3 - "$T/mb_p3/flow.q" > "$T/mb_p3q.log" 2>&1 <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos = 0
def record():
    global pos
    n = struct.unpack_from("<i", data, pos)[0]; body = data[pos + 4:pos + 4 + n]
    assert struct.unpack_from("<i", data, pos + 4 + n)[0] == n; pos += n + 8
    return body
nb = struct.unpack("<i", record())[0]
dims = struct.unpack("<%di" % (3 * nb), record())
blocks = []
for b in range(nb):
    record()
    ni, nj, nk = dims[3 * b:3 * b + 3]
    blocks.append((ni, nj, nk, struct.unpack("<%dd" % (5 * ni * nj * nk), record())))
assert pos == len(data) and nb == 2
(a_i, a_j, a_k, a), (b_i, b_j, b_k, b) = blocks
worst = max(abs(a[v * a_i * a_j * a_k + (a_i - 1) + a_i * (j + a_j * k)] - b[v * b_i * b_j * b_k + b_i * (j + b_j * k)])
            for v in range(5) for j in range(a_j) for k in range(a_k))
print("blocks", dims, "largest difference on the shared nodes", worst)
sys.exit(0 if worst == 0.0 else 1)
PYEOF
qrc=$?
r1=-; r2=-
if [ -n "$mb_cg" ]; then
  plot3d_to_cgns -u -d "$T/mb_p3/flow.xyz" "$T/mb_p3/flow.q" "$T/mb/p3.cgns" > "$T/mb_p3cg.log" 2>&1; r1=$?
  cgnscheck "$T/mb/p3.cgns" > "$T/mb_p3ck.log" 2>&1; r2=$?
fi
# (without the tools only the reader's check of the shared nodes)
expect '[ "$rc$qrc" = 00 ] && { [ -z "$mb_cg" ] || { [ "$r1$r2" = 00 ] && grep -q "reading block 2 solution ... done" "$T/mb_p3cg.log" && ! grep -qi "error" "$T/mb_p3ck.log"; }; }' \
  "multi-block: write_plot3d writes both blocks, the shared interface nodes bit-identical ($(tail -n 1 "$T/mb_p3q.log")); plot3d_to_cgns and cgnscheck take them (exit codes $rc $qrc $r1 $r2)"
# the restart set: 60 iterations, then --restart to the tolerance: the same final set, bit for bit
rc1=$(run mb_half "$T/mb/two.nml" --backend cpu --max-iter 60)
rc2=$(run mb_half "$T/mb/two.nml" --backend cpu --restart)
expect '[ "$rc1$rc2" = 00 ] && grep -q "restarting from .*restart.blocks + restart.bNNNNN.itN.bin at iteration 60" "$T/mb_half.log" \
  && cmp -s "$mb_r" "$T/mb_half/restart.b00001.it$mb_it.bin" && cmp -s "$mb_s" "$T/mb_half/restart.b00002.it$mb_it.bin"' \
  "multi-block: a run stopped at 60 and restarted from its set ends on the same states bit for bit (exit codes $rc1 $rc2)"
# a set with a block's file in another's place, and a damaged index: refused, nothing run
mkdir -p "$T/mb_swap" && cp "$T/mb_half/restart.blocks" "$T/mb_swap/" && cp "$T/mb_half/restart.b00001.it$mb_it.bin" "$T/mb_swap/restart.b00002.it$mb_it.bin" \
  && cp "$T/mb_half/restart.b00002.it$mb_it.bin" "$T/mb_swap/restart.b00001.it$mb_it.bin"
rc=$(run mb_swap "$T/mb/two.nml" --backend cpu --restart)
expect '[ "$rc" = 2 ] && grep -q "restart.b00001.it$mb_it.bin" "$T/mb_swap.log"' "multi-block: block restart files swapped: refused, the file named (exit $rc)"
printf 'ADIFLOW-BLOCKS-RESTART 1\nblocks 3\niteration %s\n' "$mb_it" > "$T/mb_swap/restart.blocks"
rc=$(run mb_swap "$T/mb/two.nml" --backend cpu --restart)
expect '[ "$rc" = 2 ] && grep -q "the restart set holds 3 blocks but this run has 2" "$T/mb_swap.log"' \
  "multi-block: a restart index of another block count: refused (exit $rc)"
# snapshots (output_interval): flow_NNNNNNN.vtm with its pieces, listed in flow.pvd before the final
# flow.vtm; a snapshot's pieces are the final ones' at that iteration (a run stopped there)
mb_deck oi box2.x "write_tecplot = .false., output_interval = 10"
rc3=$(run mb_oi "$T/mb/oi.nml" --backend cpu --max-iter 30); rc4=$(run mb_oi20 "$T/mb/oi.nml" --backend cpu --max-iter 20)
expect '[ "$rc3$rc4" = 00 ] && [ "$(grep -c "<DataSet timestep=" "$T/mb_oi/flow.pvd")" = 3 ] \
  && grep -q "timestep=\"10\" .*file=\"flow_0000010.vtm\"" "$T/mb_oi/flow.pvd" && grep -q "timestep=\"30\" .*file=\"flow.vtm\"" "$T/mb_oi/flow.pvd" \
  && grep -q "file=\"flow_0000020.b00002.vts\"" "$T/mb_oi/flow_0000020.vtm" \
  && cmp -s "$T/mb_oi/flow_0000020.b00001.vts" "$T/mb_oi20/flow.b00001.vts" && cmp -s "$T/mb_oi/flow_0000020.b00002.vts" "$T/mb_oi20/flow.b00002.vts"' \
  "multi-block: snapshots every 10 iterations: flow_NNNNNNN.vtm and pieces in flow.pvd, the 20th = a run stopped at 20 (exit codes $rc3 $rc4)"
# a box in 2 x 2 x 2 blocks, the second half along i stored with its directions cycled (interfaces
# between i faces and k faces, corners beyond three interfaces: tests/suites/turned_box_decks.sh), W(1,1)
# over 2 levels to 10 orders: each block = the one-block run's cells within 1e-8 (compare_fields --at,
# --turned)
. tests/suites/turned_box_decks.sh
mkdir -p "$T/tb" && turned_box_decks $B "$T/tb"
rc1=$(run tb1 "$T/tb/tb1.nml" --backend cpu); rc2=$(run tb8 "$T/tb/tb8.nml" --backend cpu)
tb_it=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/tb8.log"); tb_bad=""
for b in 1 2 3 4 5 6 7 8; do
  ./$B/compare_fields "$T/tb1/field.dump" "$T/tb8/restart.b0000$b.it$tb_it.bin" $(tb_at $b) --tol 1e-8 > "$T/tb_cmp$b.log" 2>&1 \
    || tb_bad="$tb_bad $b"
done
expect '[ "$rc1$rc2" = 00 ] && [ -n "$tb_it" ] && [ -z "$tb_bad" ] && grep -q "grid: 8 blocks from .*12 1-to-1 interface(s), 512 cells" "$T/tb8.log"' \
  "multi-block: a box in 8 blocks, half of them turned (i faces joined to k faces, corners of three interfaces): 10 orders with W-cycles, each block = the one-block run within 1e-8 (exit codes $rc1 $rc2, iteration $tb_it; blocks off:${tb_bad:- none})"
# min_blocks: the one-block box's file halved into two blocks (block_split's cut_to_count) converges to the
# uncut run's state within 1e-8; asking for more blocks than halving can give, or min_blocks on the
# generated box: refused by name before a run folder
sed "s/mass_fix = .true./mass_fix = .true., min_blocks = 2/" "$T/tb/tb1.nml" > "$T/tb/tb1m2.nml"
sed "s/mass_fix = .true./mass_fix = .true., min_blocks = 9/" "$T/tb/tb1.nml" > "$T/tb/tb1m9.nml"
printf "&adiflow\n  min_blocks = 2\n/\n" > "$T/tb/gen_m2.nml"
rc1=$(run tbm2 "$T/tb/tb1m2.nml" --backend cpu); tm_it=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/tbm2.log")
./$B/compare_fields "$T/tb1/field.dump" "$T/tbm2/restart.b00001.it$tm_it.bin" --at 1,1,1 --tol 1e-8 > "$T/tbm2_c1.log" 2>&1; c1=$?
./$B/compare_fields "$T/tb1/field.dump" "$T/tbm2/restart.b00002.it$tm_it.bin" --at 5,1,1 --tol 1e-8 > "$T/tbm2_c2.log" 2>&1; c2=$?
rc2=$(run tbm9 "$T/tb/tb1m9.nml" --backend cpu); rc3=$(run genm2 "$T/tb/gen_m2.nml")
expect '[ "$rc1$c1$c2" = 000 ] && grep -q "the largest blocks halved until there are 2 (min_blocks)" "$T/tbm2.log" \
  && grep -q "block 2 (the file.s block 1, i 5..9): 4 x 8 x 8 cells" "$T/tbm2.log" \
  && [ "$rc2$rc3" = 22 ] && grep -q "min_blocks = 9 asks for 9 blocks, but halving the largest gives at most 8" "$T/tbm9.log" \
  && grep -q "min_blocks = 2 cuts a grid file.s blocks; the generated box has none" "$T/genm2.log" && [ ! -e "$T/tbm9" ] && [ ! -e "$T/genm2" ]' \
  "multi-block: min_blocks = 2 halves a one-block file, = the uncut run within 1e-8 at 10 orders; too many blocks and the generated box refused by name (exit codes $rc1 $c1 $c2 $rc2 $rc3)"
# the GPU over blocks (fortran/backend_blocks_gpu.f90; bench/device_multigrid.sh check compares it with
# this CPU bit for bit): without a GPU, backend 'gpu' stops as on one block (exit 4, the no-GPU reason)
# before any run folder, and 'auto' runs the blocks on the CPU, saying so
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  mb_deck gpu box2.x "write_tecplot = .false., backend = 'gpu'"; mb_deck auto box2.x "write_tecplot = .false., backend = 'auto'"
  rc1=$(run mb_gpu "$T/mb/gpu.nml"); rc2=$(run mb_auto "$T/mb/auto.nml" --max-iter 3)
  expect '[ "$rc1$rc2" = 40 ] && grep -q "backend = .gpu." "$T/mb_gpu.log" && [ ! -e "$T/mb_gpu" ] \
    && grep -q "no usable GPU found, running on the CPU backend" "$T/mb_auto.log" && grep -q "backend: cpu" "$T/mb_auto.log"' \
    "multi-block without a GPU: backend gpu stops with the no-GPU reason before a run folder, auto runs on the CPU (exit codes $rc1 $rc2)"
fi
# a channel with inflow, outflow and walls, one block and two (a patch file in sections "block N"): the
# same steady state (V(2,2), 3 levels), and the blocks' wall forces add up to the one block's
./$B/make_grid channel --ni 32 --nj 16 -o "$T/mb/ch1.x" > /dev/null
./$B/make_grid channel --ni 32 --nj 16 --split 17 -o "$T/mb/ch2.x" > /dev/null
printf 'imin inflow p0=1.01505\nimax outflow\njmin wall\njmax wall\n' > "$T/mb/ch1.bc"
printf 'block 1\nimin inflow p0=1.01505\njmin wall\njmax wall\nblock 2   # the outlet half\nimax outflow\njmin wall\njmax wall\n' > "$T/mb/ch2.bc"
ch_deck() { # NAME GRID PATCHES
  printf "&adiflow\n  grid_file = '%s', patch_file = '%s'\n  reynolds = 20.0, mach = 0.05, bc_kmin = 'periodic', bc_kmax = 'periodic'\n  %s\n/\n&multigrid\n  levels = 3, cycle = 'v'\n/\n" \
    "$2" "$3" "limiter = 'vanalbada', cfl = 10.0, cfl_start = 2.0, cfl_ramp_iters = 100, max_iter = 4000, tol = 1.0e-10, monitor_interval = 50, write_tecplot = .false., write_plot = .false." > "$T/mb/$1.nml"
}
ch_deck ch1 ch1.x ch1.bc; ch_deck ch2 ch2.x ch2.bc
rc1=$(run mb_ch1 "$T/mb/ch1.nml" --backend cpu); rc2=$(run mb_ch2 "$T/mb/ch2.nml" --backend cpu)
ch_it=$(sed -n 's/.*converged at iteration \([0-9]*\).*/\1/p' "$T/mb_ch2.log")
./$B/compare_fields "$T/mb_ch1/field.dump" "$T/mb_ch2/restart.b00001.it$ch_it.bin" --at 1,1,1 --tol 1e-8 > "$T/mb_ch_c1.log" 2>&1; c1=$?
./$B/compare_fields "$T/mb_ch1/field.dump" "$T/mb_ch2/restart.b00002.it$ch_it.bin" --at 17,1,1 --tol 1e-8 > "$T/mb_ch_c2.log" 2>&1; c2=$?
expect '[ "$rc1$rc2$c1$c2" = 0000 ] && grep -q "boundaries: 10 patches over the blocks. faces that no interface joins, from the patch file" "$T/mb_ch2.log"' \
  "multi-block: a channel (inflow, outflow, walls) in two blocks with a sectioned patch file = the one-block run within 1e-8 at 10 orders (exit codes $rc1 $rc2 $c1 $c2)"
ch_cx() { awk -F, '$3 == "wall" { s += $10 } END { printf "%.15e", s }' "$1"; }
cx1=$(ch_cx "$T/mb_ch1/forces.csv"); cx2=$(ch_cx "$T/mb_ch2/forces.csv")
expect 'awk -v a="$cx1" -v b="$cx2" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-8 * a) }" && [ -s "$T/mb_ch2/wall_07_jmin.csv" ] \
  && grep -q "^7,block 2 jmin,wall," "$T/mb_ch2/forces.csv" && grep -q "^# patches .* 8 wall jmax" "$T/mb_ch2/forces.dat"' \
  "multi-block: the walls' drag summed over the blocks = the one block's ($cx2 vs $cx1); wall files and forces.dat numbered over the blocks"
# write_cgns over the blocks: a zone per block, its patches as BCs, the interface as 1-to-1 records of
# both zones; cgnscheck takes it, and read back as the grid file (zones, interfaces checked against the
# coordinates, BCs as the blocks' patches) it runs bit for bit as the Plot3D file with its patch file
if [ -n "$mb_cg" ]; then
printf 'block 1\nimin inflow\njmin wall\njmax wall\nblock 2\nimax outflow\njmin wall\njmax wall\n' > "$T/mb/chd.bc"
ch_deck chc ch2.x chd.bc
sed -i 's/max_iter = 4000/max_iter = 50/; s/write_tecplot = .false./write_tecplot = .false., write_cgns = .true./' "$T/mb/chc.nml"
rc1=$(run mb_chc "$T/mb/chc.nml" --backend cpu)
cgnscheck "$T/mb_chc/flow.cgns" > "$T/mb_chc_ck.log" 2>&1; ck=$?
sed "s|grid_file = 'ch2.x', patch_file = 'chd.bc'|grid_file = '$T/mb_chc/flow.cgns'|; s/write_cgns = .true./write_cgns = .false./" "$T/mb/chc.nml" > "$T/mb/chb.nml"
rc2=$(run mb_chb "$T/mb/chb.nml" --backend cpu)
expect '[ "$rc1$ck$rc2" = 000 ] && ! grep -qi "error" "$T/mb_chc_ck.log" && [ "$(cgnslist "$T/mb_chc/flow.cgns" 2>&1 | grep -c "+-ZoneGridConnectivity")" = 2 ] \
  && grep -q "from the grid file.s boundary conditions" "$T/mb_chb.log" && cmp -s "$T/mb_chc/restart.b00001.it50.bin" "$T/mb_chb/restart.b00001.it50.bin" \
  && cmp -s "$T/mb_chc/restart.b00002.it50.bin" "$T/mb_chb/restart.b00002.it50.bin"' \
  "multi-block: write_cgns writes a zone per block with BCs and 1-to-1 records (cgnscheck: no error), and read back as the grid file it runs bit for bit as the Plot3D run (exit codes $rc1 $ck $rc2)"
fi
# bad sectioned patch files: exit 2 naming the file, line and block
mb_pfbad() { # NAME CONTENT PATTERN WHAT
  printf "$2" > "$T/mb/$1.bc"; ch_deck "$1" ch2.x "$1.bc"; pf_rc=$(run "mb_$1" "$T/mb/$1.nml" --backend cpu); pf_pat=$3; pf_n=mb_$1
  expect '[ "$pf_rc" = 2 ] && grep -q -- "$pf_pat" "$T/$pf_n.log" && [ ! -e "$T/$pf_n" ]' "multi-block patch file refused (exit $pf_rc): $4"
}
mb_pfbad nohead 'imin wall\n' 'line 1: the grid has 2 blocks, so its patch file gives each block.s lines under a heading "block N"' "a patch line before any block heading"
mb_pfbad bigblk 'block 3\nimin wall\n' 'line 1: "block 3" is not a block.s heading "block N" with N from 1 to 2' "a block number beyond the grid's"
mb_pfbad joined 'block 1\nimin inflow\nimax outflow\njmin wall\njmax wall\nblock 2\nimax outflow\njmin wall\njmax wall\n' \
  'block 1: patch 2: face imax is joined to another block by a 1-to-1 interface and takes no patch' "a patch on a face an interface joins"
mb_pfbad gap 'block 1\nimin inflow\njmin wall\njmax wall\nblock 2\njmin wall\njmax wall\n' \
  'block 2: face imax: 16 boundary cells are covered by no patch' "a block face left uncovered"

# the NACA 0012 C-grid in three blocks (the shipped deck, make's grid): the wakes join across the cut, and
# the corner beyond the join to the airfoil block and the cut is the airfoil block's wall ghost. The
# airfoil is symmetric, so at -1 degree the lift must be the negative and the drag the same of +1 degree's
mkdir -p "$T/naca"
for a in 1.0 -1.0; do
  sed -e "s|grid_file = 'grids/|grid_file = '$PWD/cases/grids/|" -e "s|patch_file = 'grids/|patch_file = '$PWD/cases/grids/|" \
    -e "s|freestream_alpha = 1.0|freestream_alpha = $a|" cases/naca0012_re5000.nml > "$T/naca/a$a.nml"
done
rc1=$(run naca_p "$T/naca/a1.0.nml"); rc2=$(run naca_m "$T/naca/a-1.0.nml")
naca_c() { awk -F, -v a="$2" '$3 == "wall" { r = a * atan2(0, -1) / 180; printf "%.12e %.12e", -$10 * sin(r) + $11 * cos(r), $10 * cos(r) + $11 * sin(r) }' "$1"; }
read -r clp cdp <<< "$(naca_c "$T/naca_p/forces.csv" 1.0)"; read -r clm cdm <<< "$(naca_c "$T/naca_m/forces.csv" -1.0)"
expect '[ "$rc1$rc2" = 00 ] && grep -q "converged at" "$T/naca_p.log" && grep -q "converged at" "$T/naca_m.log" \
  && awk -v p="$clp" -v m="$clm" -v d="$cdp" -v e="$cdm" "BEGIN { s = p + m; if (s < 0) s = -s; t = d - e; if (t < 0) t = -t; exit !(p > 0.01 && s <= 1e-4 * p && t <= 1e-6 * d) }"' \
  "multi-block: NACA 0012 C-grid in 3 blocks, Mach 0.5, Re 5000: both angles converge; cl(+1) = $clp = -cl(-1) = $clm within 1e-4, cd $cdp = $cdm within 1e-6 (exit codes $rc1 $rc2)"

# the C-grid's finest study level (512 cells round the airfoil, first spacing 5e-4), which folded at the
# trailing edge before its lines there turned sooner: unfolded now; level 2 keeps its nodes (no fold, no change)
./$B/make_grid naca0012 --na 512 --nw 128 --nj 256 --first 5e-4 -o "$T/naca/l3.x" > "$T/naca/l3.log" 2>&1; rc1=$?
./$B/grid_check "$T/naca/l3.x" > "$T/naca/l3c.log" 2>&1; rc2=$?
./$B/make_grid naca0012 --na 256 --nw 64 --nj 128 --first 1e-3 -o "$T/naca/l2.x" > "$T/naca/l2.log" 2>&1; rc3=$?
expect '[ "$rc1$rc2$rc3" = 000 ] && grep -q "turn within 2.5 first spacings" "$T/naca/l3.log" && grep -q "^  OK" "$T/naca/l3c.log" \
  && ! grep -q "turn within" "$T/naca/l2.log"' \
  "make_grid naca0012, level 3: the trailing edge's lines turn within 2.5 first spacings and grid_check finds no folded cell; level 2 unchanged (exit codes $rc1 $rc2 $rc3)"

# a C-grid as one block (its wake cut joins part of its j = 1 face to itself) runs cut at the cut's ends
# (fortran/block_split.f90) into the three blocks make_grid --split writes: the same states bit for bit;
# a patch over the joined part of the face is refused by name before a run folder
. tests/suites/c_grid_decks.sh
c_grid_decks $B "$T/naca"
rc1=$(run naca_c1 "$T/naca/c1.nml" --backend cpu); rc3=$(run naca_c3 "$T/naca/c3.nml" --backend cpu)
same=yes
for f in "$T"/naca_c3/restart.b*.bin; do cmp -s "$f" "$T/naca_c1/$(basename "$f")" || same=no; done
expect '[ "$rc1$rc3" = 00 ] && [ $same = yes ] && [ "$(ls "$T/naca_c1" | grep -c "^restart\.b.*\.bin$")" = 3 ] \
  && grep -q "cut where an interface covers part of a face" "$T/naca_c1.log" && grep -q "block 2 (the file.s block 1, i 9..41)" "$T/naca_c1.log"' \
  "a C-grid stored as one block runs cut at its wake cut into 3 blocks: the states of the 3-block file's run bit for bit (exit codes $rc1 $rc3)"
printf 'imin farfield\nimax farfield\njmax farfield\njmin wall\n' > "$T/naca/c1w.bc"
sed "s/c1.bc/c1w.bc/" "$T/naca/c1.nml" > "$T/naca/c1w.nml"
rc=$(run naca_c1w "$T/naca/c1w.nml" --backend cpu)
expect '[ "$rc" = 2 ] && grep -q "covers cells of its face that an interface joins" "$T/naca_c1w.log" && [ ! -e "$T/naca_c1w" ]' \
  "a C-grid stored as one block with a wall patch over its wake cut: refused by name before a run folder (exit $rc)"

# SIGINT in a multi-block run: the restart set of the iteration it stopped at, exit 130, and the run
# continues from it
./$B/adiflow "$T/naca/a1.0.nml" --run-dir "$T/naca_int" > "$T/naca_int0.log" 2>&1 &
pid=$!; sleep 4; kill -INT $pid; wait $pid; rc=$?
int_it=$(sed -n 's/^iteration \([0-9]*\)$/\1/p' "$T/naca_int/restart.blocks" 2>/dev/null)
int_set=$([ -n "$int_it" ] && [ -s "$T/naca_int/restart.b00003.it$int_it.bin" ] && echo yes)
rc2=$(run naca_int "$T/naca/a1.0.nml" --restart --max-iter $(( ${int_it:-0} + 3 )))
expect '[ $rc -eq 130 ] && [ "$int_set" = yes ] && grep -q "interrupted by SIGINT (Ctrl-C) at iteration $int_it" "$T/naca_int0.log" \
  && [ "$rc2" = 0 ] && grep -q "^iteration $(( int_it + 3 ))$" "$T/naca_int/restart.blocks" && [ ! -e "$T/naca_int/restart.b00003.it$int_it.bin" ]' \
  "multi-block: SIGINT writes the restart set of its iteration ($int_it) and exits 130; --restart continues from it, and its next set replaces the old one (exit codes $rc $rc2)"

# ---- CGNS grid files: one structured zone, its BCs as patches (tests/suites/cgns_tests.sh) ----
. tests/suites/cgns_tests.sh

# ---- Ghia et al. (1982), Re = 100 on the default 64x64 case ----
rc=$(run ghia cases/cavity_default.nml --backend cpu)
G=validation/data/ghia1982   # the tables of Ghia, Ghia & Shin (1982), in the repository
out=$(./$B/ghia_compare "$T/ghia/centreline_u.csv" "$G/ghia1982_Re100_u_vertical_centerline.csv" \
      "$T/ghia/centreline_v.csv" "$G/ghia1982_Re100_v_horizontal_centerline.csv" 0.02 --label "Re=100 64x64" 2>&1)
grc=$?
echo "$out" | grep -E "max \|u"
expect '[ "$rc" -eq 0 ] && [ $grc -eq 0 ]' "Ghia Re=100 centrelines within 0.02 on the default 64x64 case"
expect '[ "$rc" -eq 0 ] && grep -q "converged at iteration" "$T/ghia.log"' \
  "shipped cases/cavity_default.nml (make run's) reaches its own tol ($(grep -o 'converged at iteration.*' "$T/ghia.log" | head -n 1))"
if [ "$rc" -ne 0 ] || [ $grc -ne 0 ]; then # say why: the run's end, ghia_compare's message
  [ "$rc" -ne 0 ] && { echo "  adiflow exited with $rc; the end of its log:"; tail -n 5 "$T/ghia.log" | sed 's/^/    /'; }
  [ $grc -ne 0 ] && { echo "  ghia_compare exited with $grc:"; echo "$out" | grep -v '^MD:' | tail -n 12 | sed 's/^/    /'; }
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

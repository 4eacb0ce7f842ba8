#!/usr/bin/env bash
# Boundary patches on the GPU against the CPU reference, on a GPU machine.
# Builds nothing: carry a fast build and a strict one (make; make
# BUILD=build/strict STRICT=1 all), e.g. as devbin/ (fast) and devbin/strict/.
#
#   bash tests/gpu/patch_fill.sh [--max-iter N] [--no-sanitizer]
#
# Environment: FAST, a fast build's folder (adiflow, compare_fields,
# make_grid, tune/; default devbin when devbin/adiflow exists, else build);
# STRICT_BUILD, a STRICT=1 build's (adiflow, compare_fields, its STRICT
# marker, tune/; default devbin/strict, else build/strict); OUT, where the
# logs and the table go (default runs/gpu-patch); OMP_NUM_THREADS for the
# CPU runs.
#
# The cases, made here (grids by make_grid, patch files, decks):
#   box      a 24 x 16 x 16 curvilinear box read from a Plot3D file, a patch
#            of every kind but periodic on its six faces (inflow, farfield,
#            slip, outflow, supersonic outflow, symmetry, wall, lid,
#            supersonic inflow), isothermal walls, 3 multigrid levels, W-cycles
#   box_per  the same box, its k faces a periodic pair
#   channel  a quasi-2D channel (32 x 16 x 1 cells, k periodic, one cell)
#            with inflow, outflow, slip, wall, symmetry and farfield, 3 levels
#            of i-j semi-coarsening, V-cycles
# each with its multigrid and on the single grid (--mg-levels 1), 20
# iterations (cycles). Every run: the CPU reference of each build
# (--backend cpu), then the GPU (--backend gpu) with the split and with the
# merged kernels:
#   strict build  field.dump bit for bit (compare_fields --tol 0) and the
#                 residual history (iteration, cfl, the five norms, drop)
#                 identical
#   fast build    field.dump within 1e-12 (max|cpu - gpu|/max|cpu| per
#                 variable)
# then compute-sanitizer memcheck (where it is found) of 3 cycles of box,
# both families, and gpu_two_grids where the fast build holds it (the
# bridge's refusal of patch lists that do not fit the grid).
# Prints PASS/FAIL lines, then the table, then "N passed, N failed"; exits
# 1 on any failure, 2 when a build is missing.
set -u
cd "$(dirname "$0")/../.."

MAXITER=20; SANITIZE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --max-iter) MAXITER=$2; shift ;;
    --no-sanitizer) SANITIZE=0 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
    *) echo "patch_fill.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -x devbin/adiflow ]; then FAST=${FAST:-devbin}; else FAST=${FAST:-build}; fi
if [ -x devbin/strict/adiflow ]; then SB=${STRICT_BUILD:-devbin/strict}; else SB=${STRICT_BUILD:-build/strict}; fi
MG=""
for g in "$FAST/make_grid" "$SB/make_grid" build/make_grid; do [ -x "$g" ] && { MG=$g; break; }; done
for f in "$FAST/adiflow" "$FAST/compare_fields" "$SB/adiflow" "$SB/compare_fields" "$MG"; do
  if [ -z "$f" ] || [ ! -x "$f" ]; then
    echo "patch_fill.sh: ${f:-make_grid} is missing: build first (make; make BUILD=build/strict STRICT=1 all)," \
         "FAST=$FAST STRICT_BUILD=$SB" >&2
    exit 2
  fi
done
if [ ! -f "$SB/STRICT" ]; then
  echo "patch_fill.sh: $SB/STRICT is missing: $SB/adiflow was not built with make STRICT=1, so bit-identity" \
       "is not expected" >&2
  exit 2
fi

O=${OUT:-runs/gpu-patch}
W=$(mktemp -d /tmp/adiflow-gpupatch.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$O"
TABLE=$O/table.txt; : > "$TABLE"
pass=0; fail=0
row() { # RESULT TEXT: a PASS/FAIL line, and the table's row
  if [ "$1" = PASS ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
  echo "$1 $2"
  printf "%-96s %s\n" "$2" "$1" >> "$TABLE"
}
hist() { grep -v '^#' "$1" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'; }
echo "patch_fill.sh: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)" | tee -a "$TABLE"
command -v nvidia-smi > /dev/null 2>&1 && \
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n 1 | tee -a "$TABLE"
echo "fast build $FAST, strict build $SB ($(cat "$SB/STRICT")), $MAXITER iterations" | tee -a "$TABLE"

# ---- the cases ----
"$MG" box --ni 24 --nj 16 --nk 16 -o "$W/box.x" > /dev/null
"$MG" channel --ni 32 --nj 16 --length 4 --height 1 --dims 3 -o "$W/ch.x" > /dev/null
# every patch edge on a multiple of 4 cells: the patches coarsen over 3 levels
cat > "$W/box.bc" <<'EOF'
imin inflow   1:8  1:16
imin farfield 9:16 1:8
imin slip     9:16 9:16
imax outflow  1:8  1:16 p=0.99
imax supersonic_outflow 9:16 1:8
imax symmetry 9:16 9:16
jmin wall     1:12 1:16
jmin lid      13:24 1:16 u=0.2 v=0.0 w=0.05
jmax slip     1:8  1:16
jmax farfield 9:16 1:16
jmax supersonic_inflow 17:24 1:16
kmin symmetry 1:12 1:16
kmin wall     13:24 1:16
kmax farfield 1:12 1:16
kmax outflow  13:24 1:16
EOF
grep -v '^k' "$W/box.bc" > "$W/box_per.bc"
cat > "$W/channel.bc" <<'EOF'
imin inflow
imax outflow  p=0.995
jmin slip     1:8  1:1
jmin wall     9:32 1:1
jmax symmetry 1:16 1:1
jmax farfield 17:32 1:1
EOF
deck() { # NAME GRID EXTRA_KEYS CYCLE: $W/NAME.nml
  cat > "$W/$1.nml" <<EOF
&adiflow
  title = 'GPU patch fill check: $1'
  grid_file = '$2', patch_file = '$1.bc'
  $3
  cfl = 2.0, cfl_start = 1.0, cfl_ramp_iters = 10
  max_iter = $MAXITER, monitor_interval = 5
  write_vtk = .false., write_tecplot = .false., write_plot = .false.
/
&multigrid
  levels = 3, cycle = '$4'
/
EOF
}
deck box box.x "reynolds = 200.0, mach = 0.3, freestream_alpha = 10.0, freestream_beta = 5.0" w
deck box_per box.x "reynolds = 200.0, mach = 0.3, freestream_alpha = 10.0, freestream_beta = 5.0, bc_kmin = 'periodic', bc_kmax = 'periodic'" w
deck channel ch.x "reynolds = 500.0, mach = 0.2, bc_kmin = 'periodic', bc_kmax = 'periodic'" v

# ---- CPU vs GPU ----
run() { # EXE DECK DIR ARGS...: the run in $W/DIR, its log beside it; the exit code
  local exe=$1 deck=$2 dir=$3; shift 3
  "$exe" "$W/$deck.nml" --run-dir "$W/$dir" "$@" > "$W/$dir.log" 2>&1
  echo $?
}
for c in box box_per channel; do
  for grid in mg sg; do
    lv=(); [ $grid = sg ] && lv=(--mg-levels 1)
    what="$c, $([ $grid = mg ] && echo '3 multigrid levels' || echo 'single grid')"
    for mode in strict fast; do
      b=$SB; [ $mode = fast ] && b=$FAST
      ref=$c-$grid-$mode-cpu
      rc=$(run "$b/adiflow" $c $ref --backend cpu ${lv[@]+"${lv[@]}"})
      if [ "$rc" != 0 ] || [ ! -f "$W/$ref/field.dump" ]; then
        row FAIL "$what, $mode build: CPU reference failed (exit $rc): $(tail -n 2 "$W/$ref.log" | tr '\n' ' ')"
        continue
      fi
      for fam in split merged; do
        g=$c-$grid-$mode-$fam
        rc=$(run "$b/adiflow" $c $g --backend gpu --kernels $fam ${lv[@]+"${lv[@]}"})
        label="$what, $mode build, $fam kernels"
        if [ "$rc" != 0 ] || [ ! -f "$W/$g/field.dump" ] || ! grep -q "backend: gpu" "$W/$g.log"; then
          row FAIL "$label: GPU run failed (exit $rc): $(tail -n 2 "$W/$g.log" | tr '\n' ' ')"
          continue
        fi
        if [ $mode = strict ]; then
          "$b/compare_fields" "$W/$ref/field.dump" "$W/$g/field.dump" --tol 0 > "$W/$g.cmp" 2>&1; crc=$?
          if [ $crc = 0 ] && cmp -s <(hist "$W/$ref/residual.dat") <(hist "$W/$g/residual.dat"); then
            row PASS "$label: GPU == CPU bit for bit (field.dump, residual history)"
          else
            row FAIL "$label: GPU == CPU bit for bit (compare_fields exit $crc$(cmp -s <(hist "$W/$ref/residual.dat") \
              <(hist "$W/$g/residual.dat") || echo ', the residual histories differ'))"
            sed 's/^/    /' "$W/$g.cmp" | tail -n 8
          fi
        else
          "$b/compare_fields" "$W/$ref/field.dump" "$W/$g/field.dump" --tol 1e-12 > "$W/$g.cmp" 2>&1; crc=$?
          if [ $crc = 0 ]; then row PASS "$label: GPU within 1e-12 of the CPU"
          else row FAIL "$label: GPU within 1e-12 of the CPU (compare_fields exit $crc)"; sed 's/^/    /' "$W/$g.cmp" | tail -n 8
          fi
        fi
      done
    done
  done
done

# ---- compute-sanitizer memcheck: the patch lists read within bounds ----
CS=$(command -v compute-sanitizer 2>/dev/null || true)
[ -z "$CS" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && CS=/usr/local/cuda/bin/compute-sanitizer
if [ $SANITIZE = 1 ] && [ -n "$CS" ]; then
  for fam in split merged; do
    "$CS" --tool memcheck --error-exitcode 9 "$FAST/adiflow" "$W/box.nml" --backend gpu --kernels $fam --max-iter 3 \
      --run-dir "$W/san-$fam" > "$W/san-$fam.log" 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$W/san-$fam.log"; then
      row PASS "box, 3 multigrid levels, $fam kernels: compute-sanitizer memcheck clean (3 cycles)"
    else
      row FAIL "box, 3 multigrid levels, $fam kernels: compute-sanitizer memcheck (exit $rc): $(grep -m 3 -E 'ERROR SUMMARY|Invalid|error' "$W/san-$fam.log" | tr '\n' ' ')"
    fi
  done
else
  echo "  compute-sanitizer: $([ $SANITIZE = 1 ] && echo 'not found (PATH, /usr/local/cuda/bin)' || echo 'skipped (--no-sanitizer)')" | tee -a "$TABLE"
fi

# ---- the bridge's checks of a patch list ----
if [ -x "$FAST/gpu_two_grids" ]; then
  "$FAST/gpu_two_grids" > "$W/two_grids.log" 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q "^PASS adi_gpu_init with a face map naming another face's patch" "$W/two_grids.log"; then
    row PASS "gpu_two_grids: $(tail -n 1 "$W/two_grids.log") (patch lists that do not fit are refused)"
  else
    row FAIL "gpu_two_grids (exit $rc): $(grep -m 3 '^FAIL' "$W/two_grids.log" | tr '\n' ' ')"
  fi
fi

cp "$W"/*.log "$W"/*.nml "$W"/*.bc "$O"/ 2>/dev/null
echo "=== table ($TABLE)"
cat "$TABLE"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

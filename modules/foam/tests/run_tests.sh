#!/usr/bin/env bash
# modules/foam/tests/run_tests.sh - CPU test suite of the OpenFOAM plugin
# (after 'make foam', which 'make foam-test' runs first; runs from any folder).
# OpenFOAM's icoFoam cavity tutorial (openfoam-examples):
#   1. serial: adiflowPCG (backend cpu, preconditioner diagonal) against
#      OpenFOAM's PCG + diagonal: the same p iteration count in every solve
#      (200: 100 steps x 2 correctors), the residuals and final fields equal;
#   2. decomposed on 2 ranks (decomposePar, mpirun -np 2, reconstructPar):
#      the same comparison, and the reconstructed field against the serial one;
#   3. the Chebyshev preconditioner: converges, fewer iterations, same field;
#      reduction tree (the GPU path's order of the global sums, on the CPU):
#      converges, the same counts as OpenFOAM until round-off parts them;
#   4. bad input: unknown option, bad values, an asymmetric matrix, backend
#      gpu without a GPU: each a FOAM FATAL error naming the problem;
#   5. the device scripts of bench/: bash -n, and device_foam_cube.sh's
#      refusal of bad settings (before it runs anything: well under a second).
# Last line: "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.." || exit 2
ROOT=$PWD
B=build/foam
. modules/common/tests/harness.sh
LIB=$ROOT/$B/lib/libadiflowFoam.so
[ -f "$LIB" ] || { bad build "$LIB missing: run 'make foam'"; finish; exit 1; }
etcdict=$(dpkg -L openfoam 2>/dev/null | grep -m1 '/etc/controlDict$')
export WM_PROJECT_DIR=${etcdict%/etc/controlDict}
export LD_LIBRARY_PATH=$ROOT/$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
TUT=$(dpkg -L openfoam-examples 2>/dev/null | grep -m1 'icoFoam/cavity/cavity/system/controlDict$')
TUT=${TUT%/system/controlDict}
[ -d "$TUT" ] || { bad tutorial "icoFoam/cavity/cavity not found in openfoam-examples"; finish; exit 1; }
T=$ROOT/$T

# CASE DIR from the tutorial; p solved by SOLVER (a dictionary body)
mkcase() {  # dir "p-solver-body" ["U-solver-body"]
    local d=$1 body=$2 ubody=${3:-}
    rm -rf "$d"; cp -r "$TUT" "$d"; chmod -R u+w "$d"
    awk -v body="$body" -v ubody="$ubody" '
        /^solvers/ { insol=1 }
        insol && /^    p$/ { print; getline; print; print body; skip=1; next }
        skip && /^    }/ { skip=0 }
        skip { next }
        insol && ubody != "" && /^    U$/ { print; getline; print; print ubody; uskip=1; next }
        uskip && /^    }/ { uskip=0 }
        uskip { next }
        { print }' "$TUT/system/fvSolution" > "$d/system/fvSolution"
    sed -i 's/^writePrecision .*/writePrecision  17;/' "$d/system/controlDict"
    echo 'libs ("libadiflowFoam.so");' >> "$d/system/controlDict"
    cat > "$d/system/decomposeParDict" <<'DICT'
FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }
numberOfSubdomains 2;
method          simple;
simpleCoeffs { n (2 1 1); delta 0.001; }
DICT
    (cd "$d" && blockMesh > log.blockMesh 2>&1)
}
# "initial final iterations" of every p solve in a log
presid() { sed -n 's/.*Solving for p, Initial residual = \([^,]*\), Final residual = \([^,]*\), No Iterations \([0-9]*\).*/\1 \2 \3/p' "$1"; }
# compare two residual lists: same count of solves, same iterations, residuals within REL
cmp_resid() {  # a b rel -> prints a summary, status 0 when they agree
    paste -d' ' <(presid "$1") <(presid "$2") | awk -v rel="$3" '
        function d(x, y) { m = (x < 0 ? -x : x); if ((y < 0 ? -y : y) > m) m = (y < 0 ? -y : y); return m > 0 ? ((x - y < 0 ? y - x : x - y) / m) : 0 }
        NF == 6 { n++; if ($3 != $6) it++; e = d($1, $4); if (e > mi) mi = e; e = d($2, $5); if (e > mf) mf = e; s1 += $3; s2 += $6 }
        NF != 6 { bad++ }
        END { printf "%d solves, %d with different iteration counts, iterations %d vs %d, max rel diff initial %.2g final %.2g", n, it, s1, s2, mi, mf;
              exit !(n == 200 && it == 0 && bad == 0 && mi <= rel && mf <= rel) }'
}
# max |a-b| / max|a| over the internalField of two ascii scalar fields
cmp_field() {  # a b
    paste <(sed -n '/^internalField/,/^)/p' "$1" | grep -E '^-?[0-9]') <(sed -n '/^internalField/,/^)/p' "$2" | grep -E '^-?[0-9]') |
    awk '{ n++; d = $1 - $2; if (d < 0) d = -d; if (d > md) md = d; a = $1 < 0 ? -$1 : $1; if (a > ma) ma = a }
         END { if (n == 0) { print "no values"; exit 1 } printf "%g", (ma > 0 ? md / ma : md) }'
}

REF_BODY='        solver          PCG;
        preconditioner  diagonal;
        tolerance       1e-06;
        relTol          0.05;'
PLUG_BODY='        solver          adiflowPCG;
        preconditioner  diagonal;
        backend         cpu;
        tolerance       1e-06;
        relTol          0.05;'
CHEB_BODY='        solver          adiflowPCG;
        preconditioner  Chebyshev;
        chebyshevDegree 4;
        backend         cpu;
        tolerance       1e-06;
        relTol          0.05;'

# ---- 1. serial -----------------------------------------------------------
mkcase $T/ref "$REF_BODY"
mkcase $T/plug "$PLUG_BODY"
(cd $T/ref && icoFoam > log.icoFoam 2>&1); rr=$?
(cd $T/plug && icoFoam > log.icoFoam 2>&1); rp=$?
if [ $rr -eq 0 ] && [ $rp -eq 0 ] && grep -q 'diagonaladiflowPCG_cpu:  Solving for p' $T/plug/log.icoFoam; then
    ok serial_runs "icoFoam cavity with PCG+diagonal and with adiflowPCG (cpu)"
else bad serial_runs "rc $rr/$rp: $(grep -A3 'FATAL' $T/plug/log.icoFoam $T/ref/log.icoFoam | head -5)"; fi
if s=$(cmp_resid $T/ref/log.icoFoam $T/plug/log.icoFoam 0); then ok serial_same_iterations "$s"
else bad serial_same_iterations "$s"; fi
echo "    per-solve p iterations (OpenFOAM PCG+diagonal): $(presid $T/ref/log.icoFoam | awk '{printf "%s ", $3}' | cut -c1-120)..."
echo "    per-solve p iterations (adiflowPCG cpu):        $(presid $T/plug/log.icoFoam | awk '{printf "%s ", $3}' | cut -c1-120)..."
e=$(cmp_field $T/ref/0.5/p $T/plug/0.5/p)
if [ "$e" = 0 ]; then ok serial_same_field "p at t=0.5 written with 17 digits: identical"
else bad serial_same_field "max rel diff $e"; fi

# ---- 2. decomposed on 2 ranks ---------------------------------------------
for c in ref plug; do
    (cd $T/$c && rm -rf processor* && decomposePar > log.decompose 2>&1 \
      && timeout 300 $MPIRUN -np 2 icoFoam -parallel > log.par 2>&1 \
      && reconstructPar -latestTime > log.reconstruct 2>&1); eval "r_$c=$?"
done
if [ $r_ref -eq 0 ] && [ $r_plug -eq 0 ] && [ -f $T/plug/0.5/p ] && grep -q 'nProcs : 2' $T/plug/log.par; then
    ok parallel_runs "decomposePar, mpirun -np 2 icoFoam -parallel, reconstructPar"
else bad parallel_runs "rc $r_ref/$r_plug: $(grep -h -A3 'FATAL' $T/plug/log.* | head -5)"; fi
if s=$(cmp_resid $T/ref/log.par $T/plug/log.par 1e-5); then ok parallel_same_iterations "$s"
else bad parallel_same_iterations "$s"; fi
e=$(cmp_field $T/ref/0.5/p $T/plug/0.5/p)
if awk -v e="$e" 'BEGIN { exit !(e <= 1e-9) }'; then ok parallel_same_field "reconstructed p, plugin vs OpenFOAM on 2 ranks: max rel diff $e"
else bad parallel_same_field "max rel diff $e"; fi

# ---- 3. Chebyshev --------------------------------------------------------
mkcase $T/cheb "$CHEB_BODY"
(cd $T/cheb && icoFoam > log.icoFoam 2>&1); rc=$?
itd=$(presid $T/plug/log.icoFoam | awk '{s += $3} END {print s+0}')
itc=$(presid $T/cheb/log.icoFoam | awk '{s += $3} END {print s+0}')
nconv=$(presid $T/cheb/log.icoFoam | awk '$2 >= 1e-6 && $2 > 0.05 * $1 { n++ } END { print n+0 }')
e=$(cmp_field $T/ref/0.5/p $T/cheb/0.5/p 2>/dev/null || echo 1)
if [ $rc -eq 0 ] && [ "$nconv" = 0 ] && [ "$itc" -gt 0 ] && [ "$itc" -lt "$itd" ] && awk -v e="$e" 'BEGIN { exit !(e <= 1e-3) }'; then
    ok chebyshev "every solve converged; $itc iterations (degree 4) vs $itd (diagonal); p differs by $e (solver tolerance)"
else bad chebyshev "rc $rc, unconverged $nconv, iterations $itc vs $itd, field diff $e: $(grep -A3 FATAL $T/cheb/log.icoFoam | head -4)"; fi
(cd $T/cheb && rm -rf processor* && decomposePar > log.decompose 2>&1 && timeout 300 $MPIRUN -np 2 icoFoam -parallel > log.par 2>&1); rc=$?
nconv=$(presid $T/cheb/log.par | awk '$2 >= 1e-6 && $2 > 0.05 * $1 { n++ } END { print n+0 }')
[ $rc -eq 0 ] && [ "$nconv" = 0 ] && [ "$(presid $T/cheb/log.par | wc -l)" = 200 ] \
    && ok chebyshev_parallel "2 ranks: $(presid $T/cheb/log.par | awk '{s += $3} END {print s}') iterations, all converged" \
    || bad chebyshev_parallel "rc $rc, unconverged $nconv"

# reduction tree: the GPU's summation order reproduced on the CPU (the device
# script checks the GPU against it bit for bit); rounds differently from
# OpenFOAM's sequential sums, which the near-steady cavity amplifies late on
mkcase $T/tree "${PLUG_BODY/backend         cpu;/backend cpu; reduction tree;}"
(cd $T/tree && icoFoam > log.icoFoam 2>&1); rc=$?
nconv=$(presid $T/tree/log.icoFoam | awk '$2 >= 1e-6 && $2 > 0.05 * $1 { n++ } END { print n+0 }')
same50=$(paste -d' ' <(presid $T/ref/log.icoFoam | head -n 50) <(presid $T/tree/log.icoFoam | head -n 50) | awk '$3 == $6 { n++ } END { print n+0 }')
if [ $rc -eq 0 ] && [ "$nconv" = 0 ] && [ "$(presid $T/tree/log.icoFoam | wc -l)" = 200 ] && [ "$same50" = 50 ]; then
    ok reduction_tree "200 solves converged, $(presid $T/tree/log.icoFoam | awk '{s += $3} END {print s}') iterations; first 50 counts equal OpenFOAM's"
else bad reduction_tree "rc $rc, unconverged $nconv, equal counts in the first 50: $same50: $(grep -A3 FATAL $T/tree/log.icoFoam | head -4)"; fi

# ---- 4. bad input ----------------------------------------------------------
badcase() {  # name needle "p body" ["U body"]
    local name=$1 needle=$2
    mkcase $T/bad_$name "$3" "${4:-}"
    (cd $T/bad_$name && timeout 60 icoFoam > log.icoFoam 2>&1); local rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'FOAM FATAL' $T/bad_$name/log.icoFoam && grep -q -- "$needle" $T/bad_$name/log.icoFoam; then
        ok "refused_$name" "$(grep -m1 -- "$needle" $T/bad_$name/log.icoFoam | sed 's/^ *//' | cut -c1-150)"
    else bad "refused_$name" "rc $rc: $(grep -A2 FATAL $T/bad_$name/log.icoFoam | head -3)"; fi
}
badcase unknown_option "unknown option 'nSweeps'" "$PLUG_BODY
        nSweeps 2;"
badcase bad_backend "backend 'fpga'" "${PLUG_BODY/backend         cpu;/backend fpga;}"
badcase bad_preconditioner "preconditioner 'DIC'" "${PLUG_BODY/preconditioner  diagonal;/preconditioner DIC;}"
badcase bad_reduction "reduction 'random'" "$PLUG_BODY
        reduction random;"
badcase bad_degree "chebyshevDegree 0" "$CHEB_BODY
        chebyshevDegree 0;"
badcase asymmetric "matrix of field Ux is asymmetric" "$REF_BODY" '        solver          adiflowPCG;
        tolerance       1e-05;
        relTol          0;'
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "SKIP refused_no_gpu: this machine has a GPU"
else
    badcase no_gpu "backend gpu requested for field p but no usable GPU" "${PLUG_BODY/backend         cpu;/backend gpu;}"
    mkcase $T/auto "${PLUG_BODY/backend         cpu;/backend auto;}"
    (cd $T/auto && icoFoam > log.icoFoam 2>&1); rc=$?
    [ $rc -eq 0 ] && grep -q 'backend auto -> cpu' $T/auto/log.icoFoam && s=$(cmp_resid $T/ref/log.icoFoam $T/auto/log.icoFoam 0) \
        && ok auto_without_gpu "backend auto fell back to cpu and said so; $s" || bad auto_without_gpu "rc $rc: $(grep -m1 adiflowPCG $T/auto/log.icoFoam)"
fi
# the bench scripts run on a machine without compilers: at least they parse
for f in modules/foam/bench/*.sh; do
    bash -n "$f" 2> $T/syntax.log && ok "syntax_$(basename "$f" .sh)" || bad "syntax_$(basename "$f" .sh)" "$(head -2 $T/syntax.log)"
done
cuberefuses() {  # NAME NEEDLE ENV...: device_foam_cube.sh exits 2 naming the problem
    local name=$1 needle=$2; shift 2
    env "$@" OUT=$T/cube_bad bash modules/foam/bench/device_foam_cube.sh > $T/cube_$name.log 2>&1; local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$needle" $T/cube_$name.log; then ok "cube_refuses_$name" "$(head -1 $T/cube_$name.log)"
    else bad "cube_refuses_$name" "rc $rc: $(head -2 $T/cube_$name.log)"; fi
}
cuberefuses odd_n "N=15: want an even number" N=15
cuberefuses bad_np "NP=two: want a number of MPI ranks" NP=two
cuberefuses bad_grid "unknown grid 'stretched'" GRIDS=stretched
cuberefuses bad_runtime "RUNTIME=docker: want auto, tar or local" RUNTIME=docker
finish

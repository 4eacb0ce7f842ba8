#!/usr/bin/env bash
# modules/foam/bench/device_foam.sh - the adiflowPCG checks and benchmark on a
# GPU machine that has no OpenFOAM, no compilers and no network. Builds
# nothing: it needs, carried from the build machine,
#   build/foam/runtime.tar.xz   (make foam-runtime: the trimmed OpenFOAM v1912)
#   build/foam/lib/             (make foam: libadiflowFoam.so with the GPU path)
# and uses the machine's own mpirun (OpenMPI 4.x) and NCCL (found at run time).
#
#  A. OpenFOAM's icoFoam cavity, 200 p solves, on 1 GPU and on 2 GPUs
#     (decomposed; exchange auto, and host staging): iteration counts per
#     solve and residuals of
#     - adiflowPCG gpu with reduction sequential (OpenFOAM's order of the
#       global sums) against OpenFOAM's PCG + diagonal: must be identical;
#     - adiflowPCG gpu with its default reduction tree against the CPU path
#       with reduction tree (the GPU's order reproduced on the CPU): must be
#       identical, diagonal and Chebyshev;
#     - for information, the default gpu against OpenFOAM: the two orders of
#       summation round differently and the near-steady cavity amplifies it
#       (the counts part from about the 55th solve on).
#  B. a 3D lid-driven cube made with blockMesh at N^3 cells for N in $SIZES
#     (default "100 200": 1M and 8M; add 300 for 27M when time allows), one
#     icoFoam step = 2 pressure solves to tolerance 1e-6, relTol 0 (maxIter
#     $MAXIT, so that every solver converges); the 2nd
#     (warm) solve is reported: OpenFOAM PCG + diagonal on 1 core (capped at
#     $CAP1 iterations; its per-solve time projected to the 1-GPU iteration
#     count, or to PROJ1) and on $NC cores, OpenFOAM GAMG on $NC cores, adiflowPCG diagonal
#     and Chebyshev on 1 and 2 GPUs; time per iteration and per solve, the
#     modelled bytes/iteration over time against the copy bandwidth measured
#     in the same process.
# Writes logs and foam_bench.txt under $OUT (or /tmp/foam_device); prints the
# table last. DRYRUN=1 runs the same flow on a machine without a GPU (backend
# cpu, tiny sizes) to check the script itself. SKIPA=1 skips A. In B,
# ROWS picks the rows (default all): gpu1 (adiflowPCG, 1 GPU), pcg1 (OpenFOAM
# PCG on 1 core), pcg16 (OpenFOAM PCG on $NC cores), gamg16 (GAMG on $NC
# cores), gpu2 (adiflowPCG, 2 GPUs); a size whose rows do not fit one call
# (27M: blockMesh and the decomposition alone take minutes) is measured over
# several calls, each with some of the rows. PROJ1=N: the iteration count
# that the 1-core row is projected to when gpu1 is not among the rows (the
# 1-GPU count of the same size from another call). Shorthands: GPUONLY=1 is
# ROWS="gpu1 gpu2"; ONEGPU=1 drops gpu2 (a machine with one GPU).
set -u
cd "$(dirname "$0")/../../.." || exit 2
ROOT=$PWD
O=${OUT:-/tmp/foam_device}; mkdir -p "$O"
SIZES=${SIZES-"100 200"}; [ "${SKIPB:-0}" = 1 ] && SIZES=""
CAP1=${CAP1:-50}
MAXIT=${MAXIT:-20000}
DRY=${DRYRUN:-0}
NC=${NC:-$(nproc)}; [ "$NC" -gt 16 ] && NC=16
RES=$O/foam_bench.txt; : > "$RES"
say() { echo "$*" | tee -a "$RES"; }
t_start=$(date +%s)
ROWS=${ROWS:-"gpu1 pcg1 pcg16 gamg16 gpu2"}
[ "${GPUONLY:-0}" = 1 ] && ROWS="gpu1 gpu2"
[ "${ONEGPU:-0}" = 1 ] && ROWS=$(echo " $ROWS " | sed 's/ gpu2 / /')
for r in $ROWS; do
    case $r in gpu1|pcg1|pcg16|gamg16|gpu2) ;; *) echo "ROWS: unknown row '$r' (allowed: gpu1 pcg1 pcg16 gamg16 gpu2)"; exit 2;; esac
done
if [ -n "${PROJ1:-}" ] && ! [[ $PROJ1 =~ ^[1-9][0-9]*$ ]]; then
    echo "PROJ1=$PROJ1: want an iteration count (a positive integer)"; exit 2
fi
want() { case " $ROWS " in *" $1 "*) return 0;; esac; return 1; }
elapsed() { echo "$(( $(date +%s) - t_start )) s"; }

# ---- runtime ----------------------------------------------------------------
RT=${RT:-/tmp/afrt}
if [ -f build/foam/runtime.tar.xz ]; then
    rm -rf "$RT"; mkdir -p "$RT"; tar -C "$RT" -xJf build/foam/runtime.tar.xz || { echo "cannot unpack the runtime"; exit 2; }
    R=$RT/openfoam
elif [ "$DRY" = 1 ]; then R=""; else echo "build/foam/runtime.tar.xz missing (make foam-runtime)"; exit 2; fi
[ -f build/foam/lib/libadiflowFoam.so ] || { echo "build/foam/lib/libadiflowFoam.so missing (make foam)"; exit 2; }
if [ -n "$R" ]; then
    export PATH=$R/bin:$PATH WM_PROJECT_DIR=$R/share/openfoam
    export LD_LIBRARY_PATH=$ROOT/build/foam/lib:$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    TUT=$R/tutorials/cavity
    for l in libstdc++.so.6 libgcc_s.so.1 libz.so.1; do
        ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$l " || { export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$R/lib-fallback; echo "note: using the carried $l"; }
    done
    ldconfig -p 2>/dev/null | grep -q 'libmpi.so.40 ' || echo "warning: no libmpi.so.40 (OpenMPI 4.x) in the linker cache: OpenFOAM will not start"
else
    etcdict=$(dpkg -L openfoam | grep '/etc/controlDict$' | sed -n 1p); export WM_PROJECT_DIR=${etcdict%/etc/controlDict}
    export LD_LIBRARY_PATH=$ROOT/build/foam/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    TUT=$(dpkg -L openfoam-examples | grep 'icoFoam/cavity/cavity/system/controlDict$' | sed -n 1p); TUT=${TUT%/system/controlDict}
fi
nccl=$(ls /usr/lib/x86_64-linux-gnu/libnccl.so.2 /usr/local/cuda*/lib64/libnccl.so.2 /usr/local/lib/libnccl.so.2 2>/dev/null | head -n1)
[ -z "$nccl" ] && nccl=$(find /usr /opt -name 'libnccl.so.2' 2>/dev/null | head -n1)
[ -n "$nccl" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$nccl")
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
GPU=gpu; [ "$DRY" = 1 ] && GPU=cpu
DTREE=""; [ "$DRY" = 1 ] && DTREE=" reduction tree;"   # a dry run: the cpu path in the GPU's order
say "== adiflowPCG on $(hostname): $(nvidia-smi -L 2>/dev/null | head -n 2 | tr '\n' ' ')"
say "   $(mpirun --version 2>/dev/null | head -n1); NCCL ${nccl:-not found}; $NC cores for OpenFOAM; sizes $SIZES; rows $ROWS"

# ---- helpers ------------------------------------------------------------------
# mkcase DIR "p body" [cube N]: the cavity tutorial, or a cube of N^3 cells
mkcase() {
    local d=$1 body=$2 n=${3:-0}
    rm -rf "$d"; mkdir -p "$(dirname "$d")"; cp -r "$TUT" "$d"; chmod -R u+w "$d"
    cat > "$d/system/fvSolution" <<DICT
FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }
solvers
{
    p
    {
$body
    }
    pFinal { \$p; relTol 0; }
    U { solver smoothSolver; smoother symGaussSeidel; tolerance 1e-05; relTol 0; ${UMAX:-} }
}
PISO { nCorrectors 2; nNonOrthogonalCorrectors 0; pRefCell 0; pRefValue 0; }
DICT
    echo 'libs ("libadiflowFoam.so");' >> "$d/system/controlDict"
    if [ "$n" -gt 0 ]; then
        local dt; dt=$(awk -v n="$n" 'BEGIN { printf "%g", 0.05 / n }')
        sed -i "s/^endTime .*/endTime         $dt;/; s/^deltaT .*/deltaT          $dt;/; s/^writeInterval .*/writeInterval   1000;/; s/^writeFormat .*/writeFormat     binary;/" "$d/system/controlDict"
        cat > "$d/system/blockMeshDict" <<DICT
FoamFile { version 2.0; format ascii; class dictionary; object blockMeshDict; }
scale 0.1;
vertices ( (0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 1) (1 0 1) (1 1 1) (0 1 1) );
blocks ( hex (0 1 2 3 4 5 6 7) ($n $n $n) simpleGrading (1 1 1) );
boundary ( movingWall { type wall; faces ( (3 7 6 2) ); }
           fixedWalls { type wall; faces ( (0 4 7 3) (2 6 5 1) (1 5 4 0) (0 3 2 1) (4 5 6 7) ); } );
DICT
        cat > "$d/0/U" <<DICT
FoamFile { version 2.0; format ascii; class volVectorField; object U; }
dimensions [0 1 -1 0 0 0 0];
internalField uniform (0 0 0);
boundaryField { movingWall { type fixedValue; value uniform (1 0 0); } fixedWalls { type noSlip; } }
DICT
        cat > "$d/0/p" <<DICT
FoamFile { version 2.0; format ascii; class volScalarField; object p; }
dimensions [0 2 -2 0 0 0 0];
internalField uniform 0;
boundaryField { movingWall { type zeroGradient; } fixedWalls { type zeroGradient; } }
DICT
    fi
}
decomp() {  # DIR NP "n1 n2 n3"
    cat > "$1/system/decomposeParDict" <<DICT
FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }
numberOfSubdomains $2;
method simple;
simpleCoeffs { n ($3); delta 0.001; }
DICT
    (cd "$1" && rm -rf processor* && decomposePar -force > log.decompose 2>&1)
}
solo() { (cd "$1" && icoFoam > "$2" 2>&1); }
par() { (cd "$1" && timeout 600 $MPIRUN -np "$3" icoFoam -parallel > "$2" 2>&1); }
presid() { sed -n 's/.*Solving for p, Initial residual = \([^,]*\), Final residual = \([^,]*\), No Iterations \([0-9]*\).*/\1 \2 \3/p' "$1"; }
cmp_resid() {  # a b -> "N solves, K differ ..."; status 0: same counts, residuals within 1e-4
    paste -d' ' <(presid "$1") <(presid "$2") | awk '
        function d(x, y) { m = (x < 0 ? -x : x); if ((y < 0 ? -y : y) > m) m = (y < 0 ? -y : y); return m > 0 ? ((x - y < 0 ? y - x : x - y) / m) : 0 }
        NF == 6 { n++; if ($3 != $6) { it++; dd = $3 - $6; if (dd < 0) dd = -dd; if (dd > md) md = dd } e = d($1, $4); if (e > mi) mi = e; e = d($2, $5); if (e > mf) mf = e; s1 += $3; s2 += $6 }
        END { printf "%d solves, %d with other iteration counts (max diff %d), total %d vs %d, max rel diff initial %.2g final %.2g", n, it, md, s1, s2, mi, mf;
              exit !(n == 200 && it == 0 && mi <= 1e-4 && mf <= 1e-4) }'
}
check() {  # NAME REF LOG
    local s
    if s=$(cmp_resid "$2" "$3"); then say "PASS $1: $s"; else say "FAIL $1: $s $(grep -h -B2 -A6 'FATAL\|NCCL WARN\|rror' "$3" 2>/dev/null | head -12 | tr '\n' ' ')"; fi
}
info() {  # NAME REF LOG: the comparison, no verdict; the first solve whose count differs
    local s f
    s=$(cmp_resid "$2" "$3"); f=$(paste -d' ' <(presid "$2") <(presid "$3") | awk '$3 != $6 { print NR; exit }')
    say "INFO $1: $s; first other count in solve ${f:-none}"
}

# ---- A. the cavity equality (SKIPA=1 skips it) --------------------------------------
A=$O/cavity; mkdir -p "$A"
if [ "${SKIPA:-0}" != 1 ]; then
B_REF='        solver PCG; preconditioner diagonal; tolerance 1e-06; relTol 0.05;'
B_SEQ="        solver adiflowPCG; preconditioner diagonal; backend $GPU; reduction sequential; tolerance 1e-06; relTol 0.05;"
B_GPU="        solver adiflowPCG; preconditioner diagonal; backend $GPU;$DTREE tolerance 1e-06; relTol 0.05;"
B_CPT='        solver adiflowPCG; preconditioner diagonal; backend cpu; reduction tree; tolerance 1e-06; relTol 0.05;'
B_CHC='        solver adiflowPCG; preconditioner Chebyshev; backend cpu; reduction tree; tolerance 1e-06; relTol 0.05;'
B_CHG="        solver adiflowPCG; preconditioner Chebyshev; backend $GPU;$DTREE tolerance 1e-06; relTol 0.05;"
CASES="ref seq gpu cpt chc chg"
for c in $CASES; do
    case $c in ref) b=$B_REF;; seq) b=$B_SEQ;; gpu) b=$B_GPU;; cpt) b=$B_CPT;; chc) b=$B_CHC;; chg) b=$B_CHG;; esac
    mkcase "$A/$c" "$b"; (cd "$A/$c" && blockMesh > log.blockMesh 2>&1)
    solo "$A/$c" log.serial
done
check cavity_1gpu_sequential_vs_openfoam_pcg_diagonal "$A/ref/log.serial" "$A/seq/log.serial"
check cavity_1gpu_tree_vs_cpu_tree "$A/cpt/log.serial" "$A/gpu/log.serial"
check cavity_chebyshev_1gpu_vs_cpu_tree "$A/chc/log.serial" "$A/chg/log.serial"
info cavity_1gpu_tree_vs_openfoam "$A/ref/log.serial" "$A/gpu/log.serial"
for c in $CASES; do decomp "$A/$c" 2 "2 1 1"; par "$A/$c" log.par2 2; done
check cavity_2gpu_sequential_vs_openfoam_2ranks "$A/ref/log.par2" "$A/seq/log.par2"
check cavity_2gpu_tree_vs_cpu_tree_2ranks "$A/cpt/log.par2" "$A/gpu/log.par2"
check cavity_chebyshev_2gpu_vs_cpu_tree_2ranks "$A/chc/log.par2" "$A/chg/log.par2"
info cavity_2gpu_tree_vs_openfoam_2ranks "$A/ref/log.par2" "$A/gpu/log.par2"
for c in seq gpu; do sed -i 's/backend '$GPU';/backend '$GPU'; exchange host;/' "$A/$c/system/fvSolution"; par "$A/$c" log.par2host 2; done
check cavity_2gpu_host_staging_sequential_vs_openfoam "$A/ref/log.par2" "$A/seq/log.par2host"
check cavity_2gpu_host_staging_tree_vs_cpu_tree "$A/cpt/log.par2" "$A/gpu/log.par2host"
(cd "$A/seq" && reconstructPar -latestTime > log.reconstruct 2>&1) && say "PASS cavity_reconstruct: reconstructPar of the 2-GPU run" || say "FAIL cavity_reconstruct: $(tail -3 "$A/seq/log.reconstruct")"
say "   2 GPUs: $(grep -h "^adiflowPCG: gpu path" "$A"/seq/log.par2 "$A"/seq/log.par2host 2>/dev/null | sort -u | tr '\n' ';')"
tot() { presid "$1" | awk '{s += $3} END {print s + 0}'; }
say "   cavity p iterations, 1 rank: OpenFOAM PCG+diagonal $(tot "$A/ref/log.serial"), gpu sequential $(tot "$A/seq/log.serial"), gpu tree $(tot "$A/gpu/log.serial"), cpu tree $(tot "$A/cpt/log.serial"), Chebyshev gpu $(tot "$A/chg/log.serial") / cpu tree $(tot "$A/chc/log.serial")"
say "   cavity p iterations, 2 ranks: OpenFOAM PCG+diagonal $(tot "$A/ref/log.par2"), gpu sequential $(tot "$A/seq/log.par2") (host staging $(tot "$A/seq/log.par2host")), gpu tree $(tot "$A/gpu/log.par2"), cpu tree $(tot "$A/cpt/log.par2"), Chebyshev gpu $(tot "$A/chg/log.par2") / cpu tree $(tot "$A/chc/log.par2")"
fi

# ---- B. benchmark --------------------------------------------------------------
T=$O/bench.tsv; : > "$T"
# the 2nd (warm) solve of a log: "iterations solve_s" from adiflowTimed, model/copy GB/s from adiflowPCG
row() {  # SIZE NAME RANKS LOG [projected iterations]
    local l t g
    l=$(grep '^adiflowTimed:' "$4" | sed -n 2p)
    g=$(grep '^adiflowPCG timing:' "$4" | sed -n 2p)
    if [ -z "$l" ]; then echo -e "$1\t$2\t$3\tFAILED\t-\t-\t-\t-" >> "$T"; say "   $2 failed: $(grep -h -B2 -A6 'FATAL\|NCCL WARN' "$4" | head -10 | tr '\n' ' ')"; return; fi
    it=$(echo "$l" | sed 's/.* iterations \([0-9]*\).*/\1/'); s=$(echo "$l" | sed 's/.* solve_s \([^ ]*\).*/\1/')
    per=$(awk -v s="$s" -v i="$it" 'BEGIN { printf "%.3g", (i > 0 ? s / i : 0) }')
    solve=$s
    if [ "${5:-}" = none ]; then solve="-(capped)"
    elif [ -n "${5:-}" ]; then solve=$(awk -v p="$per" -v i="$5" 'BEGIN { printf "%.3g(proj)", p * i }'); fi
    local gbs="-" pct="-"
    if [ -n "$g" ]; then
        local gi m c
        gi=$(echo "$g" | sed 's/.* iter_s \([^ ]*\).*/\1/'); m=$(echo "$g" | sed 's/.* model_GBs \([^ ]*\).*/\1/'); c=$(echo "$g" | sed 's/.* copy_GBs \([^ ]*\).*/\1/')
        per=$(awk -v x="$gi" 'BEGIN { printf "%.3g", x }')
        gbs=$(awk -v x="$m" 'BEGIN { printf "%.0f", x }'); pct=$(awk -v m="$m" -v c="$c" 'BEGIN { printf "%.0f%% of %.0f", (c > 0 ? 100 * m / c : 0), c }')
    fi
    echo -e "$1\t$2\t$3\t$it\t$per\t$solve\t$gbs\t$pct" >> "$T"
}
P_PCG="        solver adiflowTimed; innerSolver PCG; preconditioner diagonal; tolerance 1e-06; relTol 0; maxIter $MAXIT;"
P_PCG1="        solver adiflowTimed; innerSolver PCG; preconditioner diagonal; tolerance 1e-06; relTol 0; maxIter $CAP1;"
P_GAMG="        solver adiflowTimed; innerSolver GAMG; smoother GaussSeidel; tolerance 1e-06; relTol 0; maxIter $MAXIT;"
P_DIAG="        solver adiflowTimed; innerSolver adiflowPCG; preconditioner diagonal; backend $GPU; timing yes; tolerance 1e-06; relTol 0; maxIter $MAXIT;"
P_CHEB="        solver adiflowTimed; innerSolver adiflowPCG; preconditioner Chebyshev; chebyshevDegree 4; backend $GPU; timing yes; tolerance 1e-06; relTol 0; maxIter $MAXIT;"
export UMAX="maxIter 3;"
for N in $SIZES; do
    C=$O/cube$N; cells=$((N*N*N))
    mkcase "$C/base" "$P_PCG" "$N"
    tb=$(date +%s); (cd "$C/base" && blockMesh > log.blockMesh 2>&1) || { say "blockMesh $N failed"; continue; }
    say "   cube $N^3: blockMesh $(( $(date +%s) - tb )) s"
    for v in c16 c2; do rm -rf "$C/$v"; cp -al "$C/base" "$C/$v"; rm -f "$C/$v/system/fvSolution" "$C/$v/system/decomposeParDict"; cp "$C/base/system/fvSolution" "$C/$v/system/"; done
    d16=""
    { want pcg16 || want gamg16; } && { ( decomp "$C/c16" "$NC" "$( [ "$NC" = 16 ] && echo '4 2 2' || echo "1 1 $NC")" ) & d16=$!; }
    d2=""
    want gpu2 && { ( decomp "$C/c2" 2 "1 1 2" ) & d2=$!; }
    setp() { mkcase_body=$2; awk -v body="$mkcase_body" '/^    p$/ { print; getline; print; print body; skip=1; next } skip && /^    }/ { skip=0 } skip { next } { print }' "$1/system/fvSolution" > "$1/system/fvSolution.new" && mv "$1/system/fvSolution.new" "$1/system/fvSolution"; }
    # 1 GPU while the decompositions run on other cores
    git1=${PROJ1:-}
    if want gpu1; then
    setp "$C/base" "$P_DIAG"; solo "$C/base" log.gpu1_diag; row "$cells" "adiflowPCG diagonal, 1 GPU" 1 "$C/base/log.gpu1_diag"
    git1=$(grep '^adiflowTimed:' "$C/base/log.gpu1_diag" | sed -n 2p | sed 's/.* iterations \([0-9]*\).*/\1/')
    setp "$C/base" "$P_CHEB"; solo "$C/base" log.gpu1_cheb; row "$cells" "adiflowPCG Chebyshev(4), 1 GPU" 1 "$C/base/log.gpu1_cheb"
    say "   cube $N^3: 1-GPU rows at $(elapsed)"
    fi
    [ -n "$d16$d2" ] && { wait $d16 $d2; say "   cube $N^3: decomposition(s) done at $(elapsed)"; }
    # OpenFOAM on 1 core: capped, projected to the 1-GPU iteration count of the same serial matrix
    if want pcg1; then
    setp "$C/base" "$P_PCG1"; solo "$C/base" log.pcg1
    row "$cells" "OpenFOAM PCG+diagonal, 1 core" 1 "$C/base/log.pcg1" "${git1:-none}"
    say "   cube $N^3: 1-core row at $(elapsed) (solve time projected to ${git1:-no} iterations)"
    fi
    if want pcg16; then
    setp "$C/c16" "$P_PCG"; par "$C/c16" log.pcg16 "$NC"; row "$cells" "OpenFOAM PCG+diagonal, $NC cores" "$NC" "$C/c16/log.pcg16"
    say "   cube $N^3: $NC-core PCG row at $(elapsed)"
    fi
    if want gamg16; then
    setp "$C/c16" "$P_GAMG"; par "$C/c16" log.gamg16 "$NC"; row "$cells" "OpenFOAM GAMG, $NC cores" "$NC" "$C/c16/log.gamg16"
    say "   cube $N^3: $NC-core GAMG row at $(elapsed)"
    fi
    if want gpu2; then
    setp "$C/c2" "$P_DIAG"; par "$C/c2" log.gpu2_diag 2; row "$cells" "adiflowPCG diagonal, 2 GPUs" 2 "$C/c2/log.gpu2_diag"
    setp "$C/c2" "$P_CHEB"; par "$C/c2" log.gpu2_cheb 2; row "$cells" "adiflowPCG Chebyshev(4), 2 GPUs" 2 "$C/c2/log.gpu2_cheb"
    say "   cube $N^3 done at $(elapsed); exchange on 2 GPUs: $(grep -h -o "exchange '[^']*'" "$C/c2/log.gpu2_diag" | head -n1)"
    else
    say "   cube $N^3 done at $(elapsed) (rows: $ROWS)"
    fi
    rm -rf "$C/base/constant/polyMesh" "$C"/c*/processor* "$C"/c*/constant/polyMesh   # disk: keep the logs only
done
say ""
say "== pressure solve, 2nd (warm) solve of one icoFoam step, tolerance 1e-6, maxIter $MAXIT (s/iter of adiflowPCG: its PCG loop; GB/s: modelled bytes / time, vs the copy kernel)"
{ printf "%-9s %-34s %5s %6s %10s %14s %6s %s\n" cells solver ranks iters s/iter s/solve GB/s "of copy"
  awk -F'\t' '{ printf "%-9s %-34s %5s %6s %10s %14s %6s %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$T"; } | tee -a "$RES"
say "total $(( $(date +%s) - t_start )) s"

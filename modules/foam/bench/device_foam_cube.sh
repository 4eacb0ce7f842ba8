#!/usr/bin/env bash
# modules/foam/bench/device_foam_cube.sh - what a CFD user would run instead of
# adiflow on the 3D lid-driven cube at Re = 1000: OpenFOAM v1912 simpleFoam,
# laminar, SIMPLEC (consistent yes), linearUpwind for U and Gauss linear for
# the rest, GAMG for p, run until the initial residuals are below p 1e-6 and
# U 1e-7, on NP MPI ranks (simple decomposition), on an N^3 grid, uniform
# and/or graded (cells 4 times narrower at each wall than at the centre).
# The case dictionaries are the templates in bench/cube/. Then u on the
# vertical centreline x = z = 0.5 and its minimum against Albensoeder &
# Kuhlmann (2005) (validation/data/albensoeder_kuhlmann2005: U_min of the
# vertical centreline, the value validation/cube_compare.c checks adiflow
# against), with cube_compare's definition: the vertex of the parabola
# through the discrete minimum and its two neighbours (profile_io.h).
#
# Runs on the GPU machine (no OpenFOAM, no network) with the trimmed runtime
# build/foam/runtime.tar.xz (make foam-runtime) and the machine's own mpirun,
# as device_foam.sh does; or, where OpenFOAM is installed, with it.
#
# Environment:
#   N=64          cells per direction (even: the graded mesh is two halves)
#   NP=16         MPI ranks (1: serial)
#   GRIDS="uniform graded"
#   RUNTIME=auto  tar: unpack build/foam/runtime.tar.xz (error if missing);
#                 local: the installed OpenFOAM; auto: tar if present, else local
#   MAXITER=20000 SIMPLE iterations at most (a run stopped there is marked)
#   OUT=/tmp/foam_cube   logs, profiles and foam_cube.txt (the table)
# Small local check: N=16 NP=2 bash modules/foam/bench/device_foam_cube.sh
set -u
cd "$(dirname "$0")/../../.." || exit 2
ROOT=$PWD
t_start=$(date +%s.%N)
die() { echo "device_foam_cube: $*" >&2; exit 2; }

N=${N:-64}; NP=${NP:-16}; MAXITER=${MAXITER:-20000}
GRIDS=${GRIDS-"uniform graded"}; RUNTIME=${RUNTIME:-auto}
O=${OUT:-/tmp/foam_cube}
[[ $N =~ ^[1-9][0-9]*$ ]] && [ $((N % 2)) = 0 ] && [ "$N" -ge 4 ] || die "N=$N: want an even number of cells per direction, at least 4"
[[ $NP =~ ^[1-9][0-9]*$ ]] || die "NP=$NP: want a number of MPI ranks (a positive integer)"
[[ $MAXITER =~ ^[1-9][0-9]*$ ]] || die "MAXITER=$MAXITER: want a positive integer"
[ -n "$GRIDS" ] || die "GRIDS is empty (allowed: uniform graded)"
for g in $GRIDS; do case $g in uniform|graded) ;; *) die "GRIDS: unknown grid '$g' (allowed: uniform graded)";; esac; done
case $RUNTIME in auto|tar|local) ;; *) die "RUNTIME=$RUNTIME: want auto, tar or local";; esac
TPL=$ROOT/modules/foam/bench/cube
REFX=$ROOT/validation/data/albensoeder_kuhlmann2005/cube_Re1000_extrema.csv
[ -f "$TPL/system/controlDict" ] || die "case templates missing: $TPL"
[ -f "$REFX" ] || die "reference extrema missing: $REFX"
mkdir -p "$O" || die "cannot create $O"
RES=$O/foam_cube.txt; : > "$RES"
say() { echo "$*" | tee -a "$RES"; }

# ---- runtime (as device_foam.sh) --------------------------------------------
TARBALL=$ROOT/build/foam/runtime.tar.xz
if [ "$RUNTIME" = auto ]; then if [ -f "$TARBALL" ]; then RUNTIME=tar; else RUNTIME=local; fi; fi
if [ "$RUNTIME" = tar ]; then
    [ -f "$TARBALL" ] || die "$TARBALL missing (make foam-runtime)"
    RT=${RT:-/tmp/afrt_cube}
    # RT is emptied first: refuse anything but a dedicated absolute folder
    [[ $RT == /?*/* || $RT == /tmp?* ]] && [[ $RT != *..* ]] || die "RT=$RT: want an absolute folder for the runtime, not / or a top-level one"
    rm -rf "$RT"; mkdir -p "$RT" && tar -C "$RT" -xJf "$TARBALL" || die "cannot unpack $TARBALL into $RT"
    R=$RT/openfoam
    [ -x "$R/bin/simpleFoam" ] || die "the runtime has no simpleFoam: rebuild it (make foam-runtime)"
    # the runtime first; the rest of PATH is kept for the machine's own mpirun
    # (check_runtime_cube.sh proves the runtime complete with OpenFOAM hidden)
    export PATH=$R/bin:$PATH WM_PROJECT_DIR=$R/share/openfoam
    export LD_LIBRARY_PATH=$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # ldconfig lives in /sbin, which a non-root PATH may lack
    LDC=$(command -v ldconfig || echo /sbin/ldconfig)
    for l in libstdc++.so.6 libgcc_s.so.1 libz.so.1; do
        "$LDC" -p 2>/dev/null | grep -q "^[[:space:]]*$l " || { export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$R/lib-fallback; echo "note: using the carried $l"; }
    done
    "$LDC" -p 2>/dev/null | grep -q 'libmpi.so.40 ' || echo "warning: no libmpi.so.40 (OpenMPI 4.x) in the linker cache: OpenFOAM will not start"
else
    command -v simpleFoam > /dev/null || die "no simpleFoam on PATH and RUNTIME=local (bash scripts/install_deps.sh foam, or carry build/foam/runtime.tar.xz)"
    if [ -z "${WM_PROJECT_DIR:-}" ]; then
        etcdict=$(dpkg -L openfoam 2>/dev/null | grep '/etc/controlDict$' | sed -n 1p)
        [ -n "$etcdict" ] || die "WM_PROJECT_DIR unset and no Debian openfoam package to find etc/ in"
        export WM_PROJECT_DIR=${etcdict%/etc/controlDict}
    fi
fi
for b in blockMesh decomposePar simpleFoam mpirun; do command -v "$b" > /dev/null || die "$b not found on PATH"; done
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one rank per core, pinned, as a user timing OpenFOAM would; unpinned when oversubscribed
BIND=core; [ "$NP" -gt "$(nproc)" ] && BIND=none
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to "$BIND" -np "$NP")

# the decomposition: NP = a*b*c with the smallest a+b+c (the fewest cut planes)
split3() {
    awk -v n="$1" 'BEGIN { best = 3 * n + 1
        for (a = 1; a <= n; a++) if (n % a == 0) for (b = 1; b <= n / a; b++) if ((n / a) % b == 0) {
            c = n / a / b; if (a + b + c < best || (a + b + c == best && a >= b && b >= c)) { best = a + b + c; r = a " " b " " c } }
        print r }'
}

say "== simpleFoam, lid-driven cube Re = 1000, on $(hostname): $N^3 cells, $NP ranks (simple $(split3 "$NP"), bind $BIND), grids: $GRIDS"
say "   runtime: $RUNTIME ($(command -v simpleFoam)); $(mpirun --version 2>/dev/null | head -n1)"
REF=$(awk -F, '$1 == "u_min" { print $3 }' "$REFX")
REFY=$(awk -F, '$1 == "u_min" { print $2 }' "$REFX")
[[ $REF =~ ^-?[0-9.]+$ ]] || die "$REFX: no u_min row"
say "   reference: Albensoeder & Kuhlmann (2005), U_min on x = z = 0.5: $REF at y = $REFY"

T=$O/cube.tsv; : > "$T"
for g in $GRIDS; do
    C=$O/$g$N
    case $g in uniform) grading=1;; graded) grading='((0.5 0.5 4) (0.5 0.5 0.25))';; esac
    # sampling lines a tenth of a mean cell width off the centre edge: inside
    # the four centre cells on both grids (the graded ones are wider than 1/N)
    xm=$(awk -v n="$N" 'BEGIN { printf "%.10g", 0.5 - 0.1 / n }'); xp=$(awk -v n="$N" 'BEGIN { printf "%.10g", 0.5 + 0.1 / n }')
    rm -rf "$C"; mkdir -p "$C" && cp -r "$TPL/." "$C/" && chmod -R u+w "$C" || die "cannot create the case $C"
    # every value put in is a validated number or the fixed grading text
    sed -i -e "s/@N@/$N/g" -e "s/@GRADING@/$grading/g" -e "s/@MAXITER@/$MAXITER/g" -e "s/@XM@/$xm/g" \
           -e "s/@XP@/$xp/g" -e "s/@NP@/$NP/g" -e "s/@SPLIT@/$(split3 "$NP")/g" "$C"/system/*
    (cd "$C" && blockMesh > log.blockMesh 2>&1) || { say "   $g: blockMesh failed: $(grep -h -A4 'FATAL' "$C/log.blockMesh" | tr '\n' ' ')"; echo -e "$g\t$N\tFAILED" >> "$T"; continue; }
    if [ "$NP" -gt 1 ]; then
        (cd "$C" && decomposePar -force > log.decomposePar 2>&1) || { say "   $g: decomposePar failed: $(grep -h -A4 'FATAL' "$C/log.decomposePar" | tr '\n' ' ')"; echo -e "$g\t$N\tFAILED" >> "$T"; continue; }
    fi
    ts=$(date +%s.%N)
    if [ "$NP" -gt 1 ]; then (cd "$C" && "${MPIRUN[@]}" simpleFoam -parallel > log.simpleFoam 2>&1)
    else (cd "$C" && simpleFoam > log.simpleFoam 2>&1); fi
    rc=$?
    tsolve=$(awk -v a="$ts" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    L=$C/log.simpleFoam
    if [ "$rc" != 0 ] || grep -q 'FOAM FATAL' "$L"; then
        say "   $g: simpleFoam failed (status $rc): $(grep -h -A6 'FATAL' "$L" | head -8 | tr '\n' ' ')"
        echo -e "$g\t$N\tFAILED" >> "$T"; continue
    fi
    it=$(sed -n 's/^SIMPLE solution converged in \([0-9]*\) iterations.*/\1/p' "$L" | tail -n1)
    conv=yes
    [ -z "$it" ] && { conv="no (stopped at MAXITER)"; it=$(sed -n 's/^Time = \([0-9]*\)$/\1/p' "$L" | tail -n1); }
    # the last initial residuals: p, and the largest of Ux Uy Uz
    res=$(awk '/Solving for U[xyz],/ { sub(/,.*/, "", $8); u[$5] = $8 } /Solving for p,/ { sub(/,.*/, "", $8); p = $8 }
               END { m = 0; for (k in u) if (u[k] + 0 > m) m = u[k] + 0; printf "p %.2g U %.2g", p, m }' "$L")
    # the profile: the four offset lines averaged, one row per cell centre height
    last=$(ls -d "$C"/postProcessing/centreline/*/ 2>/dev/null | sort -V | tail -n1)
    prof=$O/${g}${N}_centreline_u.csv
    if [ -z "$last" ] || ! paste -d, "$last"lmm_U.csv "$last"lmp_U.csv "$last"lpm_U.csv "$last"lpp_U.csv > "$C/lines.csv" 2>/dev/null; then
        say "   $g: no centreline sample in $C/postProcessing/centreline"; echo -e "$g\t$N\tFAILED" >> "$T"; continue
    fi
    awk -F, 'NR == 1 { print "y,u"; next }
             NF != 16 || $1 != $5 || $1 != $9 || $1 != $13 { bad = 1; exit }
             { printf "%.10g,%.10g\n", $1, ($2 + $6 + $10 + $14) / 4 }
             END { if (bad) exit 1 }' "$C/lines.csv" > "$prof" || { say "   $g: the four sampled lines do not match ($C/lines.csv)"; echo -e "$g\t$N\tFAILED" >> "$T"; continue; }
    # the vertex of the parabola through the discrete minimum and its neighbours (profile_io.h's profile_extremum)
    ext=$(awk -F, -v ref="$REF" 'NR > 1 { n++; x[n] = $1; y[n] = $2; if (n == 1 || $2 < y[k]) k = n }
        END { if (k <= 1 || k >= n) { print "none"; exit }
              x0 = x[k-1]; x1 = x[k]; x2 = x[k+1]
              d1 = (y[k] - y[k-1]) / (x1 - x0); d12 = (y[k+1] - y[k]) / (x2 - x1); d2 = (d12 - d1) / (x2 - x0)
              if (d2 <= 0) { xs = x1; v = y[k] } else { xs = 0.5 * (x0 + x1) - d1 / (2 * d2); v = y[k-1] + d1 * (xs - x0) + d2 * (xs - x0) * (xs - x1) }
              e = 100 * (v - ref) / (ref < 0 ? -ref : ref); printf "%.6f %.5f %+.3f", v, xs, e }' "$prof")
    [ "$ext" = none ] && ext="- - -"
    read -r umin ymin err <<< "$ext"
    exec_s=$(sed -n 's/^ExecutionTime = \([^ ]*\) s.*ClockTime = \([^ ]*\) s.*/\2/p' "$L" | tail -n1)
    say "   $g $N^3: $it iterations, converged $conv, last initial residuals $res, simpleFoam $tsolve s (its ClockTime ${exec_s:-?} s), u_min $umin at y = $ymin"
    echo -e "$g\t$N\t$NP\t$it\t$conv\t$tsolve\t$umin\t$ymin\t$err" >> "$T"
    # keep logs and samples only: OUT may be a folder that is copied back
    rm -rf "$C"/processor* "$C/constant/polyMesh"
    find "$C" -mindepth 1 -maxdepth 1 -type d -regex '.*/[1-9][0-9]*' -exec rm -rf {} +
done
ttot=$(awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
say ""
say "== simpleFoam (SIMPLEC, linearUpwind, GAMG) to initial residuals p 1e-6 U 1e-7; u_min on x = z = 0.5 vs Albensoeder & Kuhlmann (2005) $REF"
{ printf "%-8s %6s %5s %6s %9s %10s %8s %10s  %s\n" grid cells ranks iters solver_s u_min at_y "err_%" converged
  awk -F'\t' '$3 == "FAILED" { printf "%-8s %6s FAILED\n", $1, $2 "^3"; next }
      { printf "%-8s %6s %5s %6s %9s %10s %8s %10s  %s\n", $1, $2 "^3", $3, $4, $6, $7, $8, $9, $5 }' "$T"; } | tee -a "$RES"
say "whole script $ttot s"
grep -q FAILED "$T" && exit 1
exit 0

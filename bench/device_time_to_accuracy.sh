#!/usr/bin/env bash
# Time to a 1 % answer on one GPU machine, in one call: build/adiflow on the
# Re = 1000 cube deck that comes within 1 % of Albensoeder & Kuhlmann (2005)
# (DECK, default cases/cube72_re1000.nml; whole process, RUNS times, its
# largest extremum error from build/cube_compare), then what a CFD user would
# run instead on the machine's CPU cores: OpenFOAM's simpleFoam on the same
# cube (modules/foam/bench/device_foam_cube.sh: 64^3, graded and uniform,
# NP ranks), and the ratio of the times. Builds nothing: carry build/ with
# adiflow and cube_compare, and build/foam/runtime.tar.xz (make foam-runtime).
#   bash bench/device_time_to_accuracy.sh
#   DECK=...  RUNS=3  NP=16  GRIDS="graded uniform"  OUT=/tmp/out
#   a small check without a GPU: BACKEND=cpu DECK=cases/cube32_re100.nml RUNS=1 FOAM_N=8 NP=1 GRIDS=graded
set -u
cd "$(dirname "$0")/.."
DECK=${DECK:-cases/cube72_re1000.nml}; RUNS=${RUNS:-3}; NP=${NP:-16}; GRIDS=${GRIDS-"graded uniform"}
BACKEND=${BACKEND:-gpu}; FOAM_N=${FOAM_N:-64}
O=${OUT:-/tmp/out}; W=$(mktemp -d /tmp/tta.XXXXXX); mkdir -p "$O"
A=validation/data/albensoeder_kuhlmann2005
[ -x build/adiflow ] && [ -x build/cube_compare ] || { echo "device_time_to_accuracy: build/adiflow and build/cube_compare are needed (carry them)" >&2; exit 2; }
[ -f "$DECK" ] || { echo "device_time_to_accuracy: DECK=$DECK: no such case file" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "device_time_to_accuracy: RUNS=$RUNS: want a positive integer" >&2; exit 2; }
T=$O/time_to_accuracy.txt; : > "$T"
nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tee -a "$T"
walls=""
for r in $(seq "$RUNS"); do
  rm -rf "$W/run"; t0=$(date +%s.%N)
  build/adiflow "$DECK" --backend "$BACKEND" --run-dir "$W/run" > "$W/run.log" 2>&1; rc=$?
  t1=$(date +%s.%N); s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  grep -q 'converged at iteration' "$W/run.log" && [ $rc = 0 ] || { echo "adiflow run $r: not converged (exit $rc)" | tee -a "$T"; exit 1; }
  walls="$walls $s"
  echo "adiflow $(basename "$DECK") run $r: $s s, $(grep -o 'converged at iteration [0-9]*' "$W/run.log"); $(grep -o 'set-up.*' "$W/run.log")" | tee -a "$T"
done
err=$(build/cube_compare "$W/run/centreline_u.csv" $A/cube_Re1000_u_vertical_centreline.csv "$W/run/centreline_v.csv" \
  $A/cube_Re1000_v_horizontal_centreline.csv $A/cube_Re1000_extrema.csv 100 1 --label adiflow 2>&1 | tee -a "$T" \
  | sed -n 's/.*largest extremum error \([0-9.]*\) %.*/\1/p')
umin_err=$(awk '$1 == "min" && $2 == "u" { print $NF }' "$T" | tail -n 1)
med=$(echo $walls | tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
if [ -n "$GRIDS" ]; then
  N=$FOAM_N NP=$NP GRIDS="$GRIDS" OUT=$O/foam bash modules/foam/bench/device_foam_cube.sh > "$W/foam.log" 2>&1
  tail -n 5 "$W/foam.log" | tee -a "$T"
fi
echo; echo "================ time to 1 % of the published extrema, cube Re = 1000 ================" | tee -a "$T"
printf '%-44s %10s %12s\n' "solver" "seconds" "error" | tee -a "$T"
printf '%-44s %10s %12s\n' "adiflow $(basename "$DECK") (median of$walls)" "$med" "${err}% largest (u_min ${umin_err})" | tee -a "$T"
[ -f "$O/foam/foam_cube.txt" ] && awk -v med="$med" -v np="$NP" '
  $1 ~ /^(graded|uniform)$/ && $2 ~ /\^3$/ && $3 ~ /^[0-9]+$/ { printf "%-44s %10s %12s   ratio %.1fx\n", "simpleFoam " $1 " " $2 ", " $3 " ranks (solver time)", $5, $8 "% u_min", $5 / med }' \
  "$O/foam/foam_cube.txt" | tee -a "$T"
rm -rf "$W"

# Hostile boundary-patch files (case key patch_file; sourced by
# tests/suites/run_robustness.sh): every bad line, gap, overlap or range
# exits 2 with the file, the line or face and the cells named, before the
# run folder is made; adiflow_mpi reads them with the same reader, and its GPU
# blocks, which have no patch fill, refuse them.
P=$T/patch
mkdir -p "$P"
pf() { # DESC REGEX "patch lines" ["extra case keys"]: adiflow on the small case exits 2 matching REGEX
  local desc=$1 re=$2 lines=$3 extra=${4:-}
  printf '%b\n' "$lines" > "$P/p.bc"
  nml "$SMALL, patch_file = 'p.bc'${extra:+, $extra}" "$P/p.nml"
  rm -rf "$P/run"
  try "patch file: $desc" 2 "$re" ./build/adiflow "$P/p.nml" --backend cpu --run-dir "$P/run"
}
ALL='imin wall\nimax wall\njmin wall\njmax lid\nkmin wall\nkmax wall'   # the small case: 8 x 6 x 4 cells
printf '%b\n' "$ALL" > "$P/p.bc"; nml "$SMALL, patch_file = 'p.bc'" "$P/p.nml"
try "patch file: the small case's own boundaries run (control)" 0 "done" ./build/adiflow "$P/p.nml" --backend cpu --run-dir "$P/ok"
pf "an unknown face" 'patch file "[^"]*/p.bc", line 1: "imid" is not a face \(use imin, imax, jmin, jmax, kmin or kmax\)' "imid wall\n$ALL"
pf "an unknown kind" 'line 2: "wal" is not a boundary kind \(use wall, lid, slip' "imin wall\nimax wal"
pf "a gap" 'patch file "[^"]*/p.bc": face jmin: 24 boundary cells are covered by no patch, the first at \(1,2\)' \
  'imin wall\nimax wall\njmin wall 1:8 1:1\njmax lid\nkmin wall\nkmax wall'
pf "an overlap" 'face jmin: patches 3 and 4 overlap at cell \(4,1\)' \
  'imin wall\nimax wall\njmin wall 1:4 1:4\njmin slip 4:8 1:4\njmax lid\nkmin wall\nkmax wall'
pf "a range outside the face" 'patch 3 on face jmin: cells 1..9 x 1..4 are not a range inside the face \(1..8 x 1..4\)' \
  'imin wall\nimax wall\njmin wall 1:9 1:4\njmax lid\nkmin wall\nkmax wall'
pf "a range that is not A:B" 'line 3: "1:8:2 1:4" are not two cell ranges A:B' \
  'imin wall\nimax wall\njmin wall 1:8:2 1:4\njmax lid\nkmin wall\nkmax wall'
pf "a value the kind does not take" 'line 1: "p=2" is not a value a wall patch takes \(it takes none\)' "imin wall p=2\n${ALL#imin wall\\n}"
pf "a negative outflow pressure" 'is not a value an outflow patch takes \(p=: over the free stream.s static pressure, p > 0\)' \
  "imin outflow p=-1\n${ALL#imin wall\\n}"
pf "an inflow temperature below zero" 'line 1: "t0=-1" is not a value an inflow patch takes \(p0=, t0=: .*t0 > 0\)' \
  "imin inflow t0=-1\n${ALL#imin wall\\n}"
pf "a total pressure that is not a number" 'line 1: "p0=nan" is not a value an inflow patch takes' "imin inflow p0=nan\n${ALL#imin wall\\n}"
pf "a lid speed out of range" 'line 1: "u=1e30" is not a value a lid patch takes' "imin lid u=1e30\n${ALL#imin wall\\n}"
pf "a periodic kind in the file" 'periodic pairs are declared in the case file' "imin periodic\n${ALL#imin wall\\n}"
pf "a patch on a periodic face" "line 1: face imin is periodic \\(bc_imin = 'periodic' in the case file\\) and takes no patch" \
  "imin wall\nimax wall\njmin wall\njmax lid" "bc_imin = 'periodic', bc_imax = 'periodic', bc_kmin = 'periodic', bc_kmax = 'periodic'"
pf "an empty file" 'names no patch' '# nothing'
nml "$SMALL, patch_file = 'none.bc'" "$P/n.nml"
try "patch file: a missing file" 2 'patch file "[^"]*/none.bc" is missing or not a regular file' \
  ./build/adiflow "$P/n.nml" --backend cpu --run-dir "$P/n"
if [ -e "$P/n" ] || [ -e "$P/run" ]; then bad "patch file: a refused patch file made a run folder"; else ok "patch file: no refusal makes a run folder"; fi
rm -f "$P/f.bc"; mkfifo "$P/f.bc"; nml "$SMALL, patch_file = 'f.bc'" "$P/f.nml"
try "patch file: a FIFO (no hang)" 2 'patch file "[^"]*/f.bc" is missing or not a regular file' \
  ./build/adiflow "$P/f.nml" --backend cpu --run-dir "$P/f"
printf '%b\n' "$ALL" > "$P/p.bc"
# the GPU takes patches: --backend gpu with a patch file stops only where
# it stops without one (no GPU: exit 4, the no-device message)
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  out0=$(timeout -k 5 $LIMIT ./build/adiflow "$T/small.nml" --backend gpu --run-dir "$P/g0" 2>&1 < /dev/null); rc0=$?
  out1=$(timeout -k 5 $LIMIT ./build/adiflow "$P/p.nml" --backend gpu --run-dir "$P/g" 2>&1 < /dev/null); rc1=$?
  if [ $rc0 -ne 0 ] && [ $rc1 -eq $rc0 ] && [ "$out1" = "$out0" ]; then
    ok "patch file: --backend gpu without a GPU stops as it does without patches (exit $rc1, the no-GPU message)"
  else
    bad "patch file: --backend gpu without a GPU (exit $rc1, without patches $rc0): $(echo "$out1" | tail -n 2 | tr '\n' ' ' | cut -c1-300)"
  fi
else
  try "patch file: --backend gpu runs the patches on the GPU" 0 "backend: gpu" ./build/adiflow "$P/p.nml" --backend gpu --run-dir "$P/g"
fi
if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null; then
  # adiflow_mpi reads the patches with the same reader (tests/suites/run_mpi_tests.sh runs them)
  try "patch file: adiflow_mpi runs the small case's own boundaries as patches (control)" 0 "done" \
    mpirun --allow-run-as-root -np 1 ./build/adiflow_mpi "$P/p.nml" --run-dir "$P/m"
  try "patch file: adiflow_mpi --backend gpu is refused (its GPU blocks have no patch fill)" 2 \
    'boundary patches run on the CPU backend of adiflow_mpi so far .*use --backend cpu' \
    mpirun --allow-run-as-root -np 1 ./build/adiflow_mpi "$P/p.nml" --backend gpu --run-dir "$P/m3"
  printf '%b\n' "imin wall\nimax wal" > "$P/p.bc"
  try "patch file: adiflow_mpi refuses a bad one with the reader's message" 2 'line 2: "wal" is not a boundary kind' \
    mpirun --allow-run-as-root -np 1 ./build/adiflow_mpi "$P/p.nml" --run-dir "$P/m2"
  [ -e "$P/m2" ] && bad "patch file: adiflow_mpi made a run folder for a refused patch file"
fi

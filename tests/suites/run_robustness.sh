#!/usr/bin/env bash
# Hostile-input suite of the CFD executables: build/adiflow, build/adiflow_mpi
# and build/compare_fields against bad values and types, damaged and
# truncated files of every kind they read, special files, long and hostile
# paths, a second run in the same folder, signals and kill -9 during writes,
# a full disk and a file-size limit. Every check asserts the documented exit
# code, a message naming the problem, no hang (each command runs under a
# timeout), and that no file of an earlier good run is lost or damaged.
# The module executables (wave2d, stencil3d, ooc) have their own part,
# tests/suites/hostile_modules.sh, run after this one. Builds nothing.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=$PWD/build
T=$(mktemp -d /tmp/adiflow-hostile.XXXXXX)
MNT=""
cleanup() { [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); echo "PASS $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
export OMP_NUM_THREADS=1
LIMIT=60

# try DESC RC REGEX CMD...: CMD exits with RC (under a timeout: 124 = hang)
# and prints a line matching REGEX (extended, case-insensitive).
try() {
  local desc=$1 want=$2 re=$3; shift 3
  local out rc
  out=$(timeout -k 5 $LIMIT "$@" 2>&1 < /dev/null); rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then bad "$desc (hang: killed after ${LIMIT}s)"; return 1; fi
  if [ "$rc" -eq "$want" ] && echo "$out" | grep -qiE -- "$re"; then ok "$desc"; return 0; fi
  bad "$desc (exit $rc, wanted $want; output: $(echo "$out" | tail -n 3 | tr '\n' ' ' | cut -c1-300))"
  return 1
}
sum() { md5sum "$1" 2>/dev/null | cut -d' ' -f1; }
# a case file from a namelist body
nml() { printf '&adiflow\n%s\n/\n' "$1" > "$2"; }

SMALL="ni = 8, nj = 6, nk = 4, max_iter = 6, monitor_interval = 2, write_plot = .false."
nml "$SMALL" "$T/small.nml"

# ---------------------------------------------------------------- adiflow
# a good run whose files every damage test below must leave as they were
./build/adiflow "$T/small.nml" --backend cpu --run-dir "$T/good" > "$T/good.log" 2>&1 \
  || { echo "FAIL the reference run failed: $(tail -3 "$T/good.log")"; echo "0 passed, 1 failed"; exit 1; }
GOOD_SUM=$(sum "$T/good/restart.bin")
grep -q "^ *2 " "$T/good.log" && ! grep -qE -- " -0\.0+ " "$T/good.log" && ! grep -qE -- " -0\.0+ " "$T/good/residual.dat" \
  && ok "adiflow: the progress line and residual.dat never show a drop of -0.00" || bad "adiflow: a drop of -0.00 is shown"

# bad values: exit 2, the key and what is allowed
badval() { nml "$2" "$T/v.nml"; try "adiflow bad value: $1" 2 "$3" ./build/adiflow "$T/v.nml" --run-dir "$T/v"; }
badval "ni = 0"            "ni = 0"                  "ni = 0 is out of range: allowed 1 to 4096"
badval "ni negative"       "ni = -5"                 "ni = -5 is out of range"
badval "ni too large"      "ni = 5000"               "ni = 5000 is out of range"
badval "walled nj = 1"     "nj = 1"                  "nj = 1 is too small"
badval "mach = 0"          "mach = 0.0"              "mach = .* is out of range"
badval "mach huge"         "mach = 1.0e9"            "mach = .* is out of range"
badval "reynolds < 0"      "reynolds = -1.0"         "reynolds = .* is out of range"
badval "gamma = 1"         "gamma = 1.0"             "gamma = .* is out of range"
badval "cfl = 0"           "cfl = 0.0"               "cfl = .* is out of range"
badval "tol = 2"           "tol = 2.0"               "tol = .* is out of range"
badval "order = 3"         "order = 3"               "order = 3 is out of range"
badval "limiter"           "limiter = 'superbee'"    'limiter = "superbee" is not allowed'
badval "two choices in one" "limiter = 'minmod vanleer'" 'limiter = "minmod vanleer" is not allowed \(use one of: '
badval "boundary"          "bc_imin = 'inflow'"      'bc_imin = "inflow" is not allowed'
badval "unpaired periodic" "bc_kmin = 'periodic'"    "periodic boundaries come in pairs"
badval "backend"           "backend = 'opencl'"      'backend = "opencl" is not allowed'
badval "kernels"           "kernels = 'fast'"        'kernels = "fast" is not allowed'
badval "implicit_precision" "implicit_precision = 'half'" 'implicit_precision = "half" is not allowed \(use one of: double single\)'
badval "max_iter < 0"      "max_iter = -1"           "max_iter = -1 is out of range"
badval "monitor_interval"  "monitor_interval = 0"    "monitor_interval = 0 is out of range"
badval "lid_u"             "lid_u = 1000.0"          "lid_u = .* is out of range"
badval "wavy_amplitude"    "wavy_amplitude = 0.5"    "wavy_amplitude = .* is out of range"
badval "beta_x < 0"        "beta_x = -1.0"           "beta_x = .* is out of range"
badval "grid_type"         "grid_type = 'sphere'"    'grid_type = "sphere" is not allowed'
badval "viscosity_law"     "viscosity_law = 'power'" 'viscosity_law = "power" is not allowed'
badval "wall_thermal"      "wall_thermal = 'hot'"    'wall_thermal = "hot" is not allowed'
badval "grid beyond memory" "ni = 4096, nj = 4096, nk = 4096" "GiB of host memory"

# bad types and bad text: exit 2, the key and the line
badval "text for an integer"    "ni = 'abc'"           "ni = 'abc' in &adiflow: ni needs an integer"
badval "real for an integer"    "ni = 8.5"             "ni = 8.5 .* is not an integer"
badval "logical for a real"     "reynolds = .true."    "reynolds = .true. .* is not a number"
badval "integer for a logical"  "restart = 5"          "restart = 5 .* is not a logical"
badval "unquoted text"          "title = hello"        "text values need quotes"
badval "overflowing real"       "mach = 1e999"         "mach = 1e999 .* is not a finite number"
badval "nan"                    "mach = nan"           "mach = nan .* is not a number"
badval "overflowing integer"    "ni = 99999999999"     "out of range for an integer"
badval "empty value"            "ni = , nj = 8"        "key ni .* has no value"
badval "no equals sign"         "ni 8"                 "ni .* is not followed by ="
badval "unknown key"            "reynold = 100."       'unknown key "reynold"'
badval "duplicate key"          $'ni = 8\nni = 9'      "key ni is given twice .*lines 2 and 3"
badval "title too long"         "title = '$(printf 'x%.0s' $(seq 100))'" "title .* is 100 characters long; at most 80"
badval "run_dir too long"       "run_dir = '$(printf 'd%.0s' $(seq 4500))'" "run_dir .* is 4500 characters long; at most 4000"
printf '&adiflow\nni = 8\n/\n&adiflow\nnj = 6\n/\n' > "$T/two.nml"
try "adiflow: a second &adiflow group" 2 "a second &adiflow group" ./build/adiflow "$T/two.nml" --run-dir "$T/v"
# the &gpu group: checked whenever the GPU may run (here: a CUDA build without a GPU, or a CPU-only build)
if ! ./build/adiflow "$T/small.nml" --backend gpu --run-dir "$T/v" 2>&1 | grep -q "built without"; then
  printf '&adiflow\n%s\n/\n&gpu\nmerged_steps = "all,-warp9"\n/\n' "$SMALL" > "$T/gs.nml"
  try "adiflow: an unknown merged step in &gpu" 2 'merged_steps = "all,-warp9": unknown step "-warp9"' ./build/adiflow "$T/gs.nml" --run-dir "$T/v"
  printf '&adiflow\n%s\n/\n&gpu\ntuning_table = "%s/none.txt"\n/\n' "$SMALL" "$T" > "$T/gt.nml"
  try "adiflow: a missing tuning table in &gpu" 2 "tuning_table = .*none.txt.* is not a readable file" ./build/adiflow "$T/gt.nml" --run-dir "$T/v"
fi
printf '&adiflow\n%s\n/\n&gpu\ndevice = -3\n/\n' "$SMALL" > "$T/gd.nml"
try "adiflow: &gpu device out of range" 2 "device \(&gpu\) = -3 is out of range: allowed -1 to 1023" ./build/adiflow "$T/gd.nml" --run-dir "$T/v"
printf '&adiflow\n%s\n/\n&gpu\ntiming = 1\n/\n' "$SMALL" > "$T/gb.nml"
try "adiflow: &gpu timing of the wrong type" 2 "timing = 1 in &gpu is not a logical" ./build/adiflow "$T/gb.nml" --run-dir "$T/v"
printf '&adiflw\nni = 8\n/\n' > "$T/grp.nml"
try "adiflow: unknown group" 2 "unknown namelist group &adiflw" ./build/adiflow "$T/grp.nml" --run-dir "$T/v"
printf '&adiflow\nni = 8\n' > "$T/open.nml"
try "adiflow: group not closed" 2 "group is not closed" ./build/adiflow "$T/open.nml" --run-dir "$T/v"
printf "&adiflow\ntitle = 'abc\n/\n" > "$T/quote.nml"
try "adiflow: text without its closing quote" 2 "has no closing" ./build/adiflow "$T/quote.nml" --run-dir "$T/v"
printf 'ni = 8\n' > "$T/nogroup.nml"
try "adiflow: no &adiflow group" 2 "has no &adiflow namelist group" ./build/adiflow "$T/nogroup.nml" --run-dir "$T/v"
: > "$T/empty.nml"
try "adiflow: empty case file" 2 "has no &adiflow namelist group" ./build/adiflow "$T/empty.nml" --run-dir "$T/v"
head -c 3000 /dev/urandom > "$T/binary.nml"; printf '\0' >> "$T/binary.nml"
try "adiflow: binary case file" 2 "not a text file" ./build/adiflow "$T/binary.nml" --run-dir "$T/v"

# special files and missing files as the case
mkdir -p "$T/adir"; mkfifo "$T/fifo.nml"
try "adiflow: a folder as the case file" 2 "is a directory, not a regular file" ./build/adiflow "$T/adir"
try "adiflow: a FIFO as the case file (no hang)" 2 "is a FIFO" ./build/adiflow "$T/fifo.nml"
try "adiflow: /dev/null as the case file" 2 "is a character device" ./build/adiflow /dev/null
try "adiflow: a missing case file" 2 "does not exist" ./build/adiflow "$T/none.nml"

# command line
try "adiflow: no arguments" 2 "usage: adiflow" ./build/adiflow
try "adiflow: --max-iter abc" 2 '--max-iter "abc" is not an integer' ./build/adiflow "$T/small.nml" --max-iter abc --run-dir "$T/v"
try "adiflow: --max-iter -1" 2 "max_iter = -1 is out of range" ./build/adiflow "$T/small.nml" --max-iter -1 --run-dir "$T/v"
try "adiflow: --backend bogus" 2 'backend = "bogus" is not allowed' ./build/adiflow "$T/small.nml" --backend bogus --run-dir "$T/v"
try "adiflow: --implicit-precision half" 2 'implicit_precision = "half" is not allowed \(use one of: double single\)' \
  ./build/adiflow "$T/small.nml" --implicit-precision half --run-dir "$T/v"
try "adiflow: --implicit-precision without a value" 2 "option --implicit-precision needs a value" \
  ./build/adiflow "$T/small.nml" --run-dir "$T/v" --implicit-precision
try "adiflow: --run-dir without a value" 2 "option --run-dir needs a value" ./build/adiflow "$T/small.nml" --run-dir
try "adiflow: unknown option" 2 'unknown option "--frobnicate"' ./build/adiflow "$T/small.nml" --frobnicate

# damaged restart files: exit 2 with the reason, the file left as it was
rst() { # DESC REGEX: runs --restart on $T/r/restart.bin, checks it is unchanged
  local before; before=$(sum "$T/r/restart.bin")
  try "adiflow restart: $1" 2 "$2" ./build/adiflow "$T/small.nml" --backend cpu --restart --max-iter 12 --run-dir "$T/r" \
    && { [ "$(sum "$T/r/restart.bin")" = "$before" ] || bad "adiflow restart: $1 (the file was changed)"; }
}
fresh() { rm -rf "$T/r"; mkdir -p "$T/r"; cp "$T/good/restart.bin" "$T/r/restart.bin"; }
flip() { # flip FILE OFFSET XORBYTE
  local b; b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $(( b ^ $3 )))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
SIZE=$(stat -c %s "$T/good/restart.bin")
fresh; truncate -s $((SIZE / 2)) "$T/r/restart.bin";  rst "truncated to half" "is truncated"
fresh; truncate -s 128 "$T/r/restart.bin";             rst "header only" "is truncated"
fresh; truncate -s 100 "$T/r/restart.bin";             rst "cut inside the 128-byte header" "shorter than the 128-byte header of version 3: the file is truncated"
fresh; : > "$T/r/restart.bin";                         rst "empty file" "shorter than the 80-byte header"
fresh; truncate -s $((SIZE + 16)) "$T/r/restart.bin";  rst "longer than its header says" "is damaged"
fresh; flip "$T/r/restart.bin" 39 128;                 rst "sign bit of the iteration flipped" "fails its checksum|iteration = .* is negative"
fresh; flip "$T/r/restart.bin" 47 64;                  rst "a bit of the reference residual flipped" "its header fails its checksum"
fresh; flip "$T/r/restart.bin" 100 1;                  rst "a bit of the global grid flipped" "its header fails its checksum"
fresh; flip "$T/r/restart.bin" 500 85;                 rst "a data byte changed" "fails its checksum"
fresh; flip "$T/r/restart.bin" 0 1;                    rst "bad magic" "bad magic"
fresh; flip "$T/r/restart.bin" 8 96;                   rst "unknown version" "version .* is not supported"
fresh; flip "$T/r/restart.bin" 15 64;                  rst "grid size field damaged" "header field ni = .* out of range"
fresh; flip "$T/r/restart.bin" 24 2;                   rst "nvar damaged" "nvar = 7"
fresh; printf '\x00\x00\x00\x00\x00\x00\xf0\x7f' | dd of="$T/r/restart.bin" bs=1 seek=40 conv=notrunc 2>/dev/null
                                                      rst "reference residual NaN/Inf" "res0\\(1\\) = .* is not a finite"
fresh; nml "ni = 10, nj = 6, nk = 4" "$T/o.nml"
before=$(sum "$T/r/restart.bin")
try "adiflow restart: a grid that does not match the case" 2 "does not match the case grid" \
  ./build/adiflow "$T/o.nml" --backend cpu --restart --run-dir "$T/r"
rm -rf "$T/r"; mkdir -p "$T/r"; mkfifo "$T/r/restart.bin"
try "adiflow restart: a FIFO as restart.bin (no hang)" 2 "is a FIFO" \
  ./build/adiflow "$T/small.nml" --backend cpu --restart --max-iter 12 --run-dir "$T/r"
rm -rf "$T/r"; mkdir -p "$T/r/restart.bin"
try "adiflow restart: a folder as restart.bin" 2 "is a directory" \
  ./build/adiflow "$T/small.nml" --backend cpu --restart --max-iter 12 --run-dir "$T/r"
rm -rf "$T/r"; mkdir -p "$T/r"
try "adiflow restart: no restart.bin" 2 "restart .*does not exist" \
  ./build/adiflow "$T/small.nml" --backend cpu --restart --max-iter 12 --run-dir "$T/r"
fresh; before=$(sum "$T/r/restart.bin")
try "adiflow restart: max_iter already reached says so" 0 "nothing left to do: the restart is at iteration 6" \
  ./build/adiflow "$T/small.nml" --backend cpu --restart --run-dir "$T/r"
[ "$(sum "$T/r/restart.bin")" = "$before" ] && ok "adiflow restart: nothing left to do leaves restart.bin as it was" \
  || bad "adiflow restart: nothing left to do changed restart.bin"
[ "$(sum "$T/good/restart.bin")" = "$GOOD_SUM" ] && ok "the reference run's restart survived every damage test" \
  || bad "the reference run's restart was changed"

# long and hostile paths: nothing reaches a shell, long names work or are refused at the start
L300=$T/$(printf 'p%.0s' $(seq 240))/$(printf 'q%.0s' $(seq 50))
try "adiflow: a 300-character run folder works" 0 "done; outputs in" \
  ./build/adiflow "$T/small.nml" --backend cpu --run-dir "$L300"
[ -s "$L300/restart.bin" ] && [ -s "$L300/centreline_u.csv" ] && ok "adiflow: the long run folder holds restart.bin and the profiles" \
  || bad "adiflow: files missing in the long run folder"
L5000=$T/$(printf 'l%.0s' $(seq 5000))
start=$(date +%s)
try "adiflow: a 5000-character run folder is refused at the start" 2 "run folder name is .* characters long; at most 4000" \
  ./build/adiflow "$T/small.nml" --backend cpu --run-dir "$L5000"
L255=$T/$(printf 'n%.0s' $(seq 256))
try "adiflow: a path component over 255 characters is refused before the solve" 2 "cannot create folder .*name too long" \
  ./build/adiflow "$T/small.nml" --backend cpu --run-dir "$L255/x"
for h in '"; touch '"$T"'/pwned; "' '$(touch '"$T"'/pwned)' '`touch '"$T"'/pwned`' "'; touch $T/pwned; '"; do
  try "adiflow: hostile run folder name [$h]" 0 "done; outputs in" \
    ./build/adiflow "$T/small.nml" --backend cpu --run-dir "$T/h/$h"
done
[ ! -e "$T/pwned" ] && ok "adiflow: no hostile run folder name ran a command" || bad "adiflow: a run folder name ran a command"
HC='c$(touch pwned2).nml'; cp "$T/small.nml" "$T/$HC"
(cd "$T" && timeout $LIMIT "$B/adiflow" "$HC" --backend cpu > "$T/hc.log" 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -e "$T/pwned2" ] && [ -s "$T/runs/c\$(touch pwned2)/restart.bin" ] \
  && ok "adiflow: a case file name with \$(...) makes its run folder literally, runs nothing" \
  || bad "adiflow: hostile case file name (exit $rc)"
if command -v gnuplot > /dev/null 2>&1; then
  nml "$SMALL, write_plot = .true., title = \"x'; system('touch $T/pwned3'); set title '\"" "$T/gp.nml"
  sed -i 's/write_plot = .false., //' "$T/gp.nml"
  try "adiflow: a gnuplot-injecting title is drawn as text" 0 "done; outputs in" \
    ./build/adiflow "$T/gp.nml" --backend cpu --run-dir "$T/gp"
  [ ! -e "$T/pwned3" ] && [ -s "$T/gp/residual.png" ] && ok "adiflow: the title ran nothing in gnuplot, residual.png drawn" \
    || bad "adiflow: title injection into gnuplot"
fi
# no gnuplot on the PATH: a note, exit 0 (the GPU machine has none)
mkdir -p "$T/nognuplot"
for t in dirname rm; do ln -sf "$(command -v $t)" "$T/nognuplot/$t"; done
nml "ni = 8, nj = 6, nk = 4, max_iter = 4, monitor_interval = 2" "$T/plot.nml"
try "adiflow: no gnuplot installed: plot skipped, exit 0" 0 "plot skipped \\(gnuplot not found\\)" \
  env PATH="$T/nognuplot" ./build/adiflow "$T/plot.nml" --backend cpu --run-dir "$T/np"
try "adiflow: an existing file as the run folder" 2 "exists and is not a folder" \
  ./build/adiflow "$T/small.nml" --backend cpu --run-dir "$T/small.nml"

# one run per folder: a second one is refused while the first runs, the first unharmed
nml "ni = 12, nj = 10, nk = 8, max_iter = 100000, monitor_interval = 10, write_plot = .false." "$T/long.nml"
./build/adiflow "$T/long.nml" --backend cpu --run-dir "$T/lock" > "$T/lock1.log" 2>&1 &
p1=$!
for _ in $(seq 50); do grep -q "^ *10 " "$T/lock1.log" 2>/dev/null && break; sleep 0.2; done
try "adiflow: a second run in the same folder is refused" 2 "another run \\(pid $p1\\) is using the run folder" \
  ./build/adiflow "$T/long.nml" --backend cpu --run-dir "$T/lock"
kill -TERM $p1; wait $p1; rc=$?
[ $rc -eq 130 ] && ! grep -q "^# iter" <(tail -n +2 "$T/lock/residual.dat") \
  && ok "adiflow: SIGTERM ends the first run with 130, its residual.dat holds one history" \
  || bad "adiflow: first run after the refused second (exit $rc)"
it=$(od -An -t d8 -j 32 -N 8 "$T/lock/restart.bin" | tr -d ' ')
try "adiflow: the SIGTERM restart continues" 0 "restarting from .* at iteration $it" \
  ./build/adiflow "$T/long.nml" --backend cpu --restart --max-iter $((it + 2)) --run-dir "$T/lock"

# kill -9 during restart writes (one every iteration): the restart always reads
nml "ni = 12, nj = 10, nk = 8, max_iter = 100000, monitor_interval = 50, restart_interval = 1, write_plot = .false." "$T/k9.nml"
good=0
for trial in 1 2 3 4 5 6 7 8; do
  ./build/adiflow "$T/k9.nml" --backend cpu --run-dir "$T/k9" > /dev/null 2>&1 &
  p=$!; sleep "0.$((3 + trial))"; kill -9 $p; wait $p 2>/dev/null
  it=$(od -An -t d8 -j 32 -N 8 "$T/k9/restart.bin" 2>/dev/null | tr -d ' ')
  timeout $LIMIT ./build/adiflow "$T/k9.nml" --backend cpu --restart --max-iter $((${it:-0} + 1)) --run-dir "$T/k9" \
    > "$T/k9r.log" 2>&1 && good=$((good + 1))
done
[ $good -eq 8 ] && ok "adiflow: kill -9 during restart writes, 8 trials: the restart always continues" \
  || bad "adiflow: kill -9 during restart writes: $good of 8 trials could continue ($(tail -1 "$T/k9r.log"))"

# a full disk: the write fails, the previous restart and outputs are kept, exit 5
disk_full_check() { # DESC DIR CMD...: the good files of DIR unchanged, no .tmp left, exit 5
  local desc=$1 d=$2; shift 2
  local s1 s2 s3; s1=$(sum "$d/restart.bin"); s2=$(sum "$d/centreline_u.csv"); s3=$(sum "$d/flow.vts")
  try "$desc: exit 5 naming the file" 5 "writing .*(restart.bin|flow.vts|centreline_u.csv|field.dump|flow.dat|residual.dat).*(No space left|File too large|failed).*kept" "$@"
  if [ -n "$s1" ] && [ -n "$s2" ] && [ -n "$s3" ] && [ "$(sum "$d/restart.bin")" = "$s1" ] && [ "$(sum "$d/centreline_u.csv")" = "$s2" ] && [ "$(sum "$d/flow.vts")" = "$s3" ] \
     && ! ls "$d"/*.tmp > /dev/null 2>&1; then ok "$desc: restart.bin, centreline_u.csv and flow.vts as before, no .tmp left"
  else bad "$desc: a previous file was changed or a .tmp was left"; fi
}
nml "ni = 24, nj = 20, nk = 16, max_iter = 2, monitor_interval = 1, write_plot = .false., write_tecplot = .false." "$T/full.nml"
if mkdir -p "$T/mnt" && mount -t tmpfs -o size=3m tmpfs "$T/mnt" 2>/dev/null; then
  MNT=$T/mnt
  ./build/adiflow "$T/full.nml" --backend cpu --run-dir "$MNT/run" > "$T/full0.log" 2>&1 \
    && ok "adiflow: a first run on a small tmpfs" || bad "adiflow: the first run on a small tmpfs failed"
  head -c 10000000 /dev/zero > "$MNT/filler" 2>/dev/null   # fill the rest of the file system
  disk_full_check "adiflow on a full tmpfs, --restart --max-iter 4" "$MNT/run" \
    ./build/adiflow "$T/full.nml" --backend cpu --restart --max-iter 4 --run-dir "$MNT/run"
  # room for the restart and the dump but not for flow.vts: the failure is in
  # a Fortran writer. Its blocks go out as one run each, and gfortran reports
  # the full disk of such a write; the size check after the close catches
  # what a library leaves unreported (element-wise runs did not report it).
  # 450000 bytes: restart.bin.tmp and field.dump.tmp (307336 bytes each, one at
  # a time: each rename frees its predecessor) fit, flow.vts (0.95 MB with its
  # point data, Float32 values and Float64 coordinates) does not
  rm -f "$MNT/filler"
  avail=$(df --output=avail -B1 "$MNT" | tail -n 1)
  head -c $((avail - 450000)) /dev/zero > "$MNT/filler" 2>/dev/null
  s3=$(sum "$MNT/run/flow.vts")
  try "adiflow on a nearly full tmpfs: flow.vts fails, exit 5" 5 \
    "writing .*flow.vts.tmp.* failed: .*(bytes reached the disk|No space left on device)" \
    ./build/adiflow "$T/full.nml" --backend cpu --restart --max-iter 4 --run-dir "$MNT/run"
  [ -n "$s3" ] && [ "$(sum "$MNT/run/flow.vts")" = "$s3" ] && ! ls "$MNT/run"/*.tmp > /dev/null 2>&1 \
    && ok "adiflow on a nearly full tmpfs: the previous flow.vts kept, no .tmp left" \
    || bad "adiflow on a nearly full tmpfs: flow.vts changed or a .tmp left"
  umount "$MNT"; MNT=""
else
  echo "note: cannot mount a tmpfs here (not root?); the full disk is tested through /dev/full below"
fi
./build/adiflow "$T/full.nml" --backend cpu --run-dir "$T/df" > /dev/null 2>&1
cp -r "$T/df" "$T/dl"
for f in restart.bin flow.vts centreline_u.csv; do ln -s /dev/full "$T/dl/$f.tmp"; done
try "adiflow: stale .tmp links (to /dev/full) are replaced, never followed" 0 "done; outputs in" \
  ./build/adiflow "$T/full.nml" --backend cpu --restart --max-iter 3 --run-dir "$T/dl"
[ -f "$T/dl/restart.bin" ] && [ ! -L "$T/dl/restart.bin" ] && [ ! -L "$T/dl/flow.vts" ] && ! ls "$T/dl"/*.tmp > /dev/null 2>&1 \
  && ok "adiflow: after stale links, restart.bin and flow.vts are regular files" || bad "adiflow: a stale link was followed or kept"
disk_full_check "adiflow under ulimit -f 40 (kB)" "$T/df" \
  bash -c "ulimit -f 40; exec ./build/adiflow '$T/full.nml' --backend cpu --restart --max-iter 4 --run-dir '$T/df'"
try "adiflow: the restart kept through the failed writes still continues" 0 "restarting from .* at iteration 2" \
  ./build/adiflow "$T/full.nml" --backend cpu --restart --max-iter 3 --run-dir "$T/df"

# a memory limit: the memory check's message, not a failed allocate
nml "ni = 300, nj = 300, nk = 300" "$T/v400.nml"
try "adiflow under ulimit -v 1.5 GB, 300^3: the memory check's message" 2 "needs .* GiB of host memory but only" \
  bash -c "ulimit -v 1500000; exec ./build/adiflow '$T/v400.nml' --backend cpu --run-dir '$T/v'"

# ----------------------------------------------------------- compare_fields
cp "$T/good/field.dump" "$T/a.dump"; cp "$T/good/field.dump" "$T/b.dump"
try "compare_fields: identical dumps" 0 "IDENTICAL" ./build/compare_fields "$T/a.dump" "$T/b.dump"
cp "$T/good/restart.bin" "$T/c.dump"
ln -sf "$T/good/field.dump" "$T/link.dump"
try "compare_fields: a symbolic link to a dump reads" 0 "IDENTICAL" ./build/compare_fields "$T/a.dump" "$T/link.dump"
cmpbad() { try "compare_fields: $1" 2 "$2" ./build/compare_fields "$T/a.dump" "$T/x.dump"; }
cp "$T/a.dump" "$T/x.dump"; truncate -s 1000 "$T/x.dump";   cmpbad "truncated" "is truncated"
: > "$T/x.dump";                                            cmpbad "empty" "shorter than the 80-byte header"
cp "$T/a.dump" "$T/x.dump"; flip "$T/x.dump" 600 1;         cmpbad "damaged data" "fails its checksum"
cp "$T/a.dump" "$T/x.dump"; flip "$T/x.dump" 33 1;          cmpbad "damaged header (iteration)" "fails its checksum"
cp "$T/a.dump" "$T/x.dump"; printf '\xff\xff\x00\x00' | dd of="$T/x.dump" bs=1 seek=12 conv=notrunc 2>/dev/null
                                                           cmpbad "header ni = 65535 x ... claims more than the file" "holds .* bytes, but its header"
cp "$T/a.dump" "$T/x.dump"; printf '\xff\xff\xff\x7f' | dd of="$T/x.dump" bs=1 seek=12 conv=notrunc 2>/dev/null
                                                           cmpbad "header ni = 2^31-1 (overflow)" "ni = 2147483647 is out of range"
cp "$T/a.dump" "$T/x.dump"; printf '\x00\x00\x00\x80' | dd of="$T/x.dump" bs=1 seek=16 conv=notrunc 2>/dev/null
                                                           cmpbad "header nj negative" "nj = -2147483648 is out of range"
rm -f "$T/x.dump"; mkfifo "$T/x.dump";                      cmpbad "a FIFO (no hang)" "is a FIFO"
rm -f "$T/x.dump"; mkdir "$T/x.dump";                       cmpbad "a folder" "is a directory"
rmdir "$T/x.dump";                                          cmpbad "a missing file" "does not exist"
try "compare_fields: /dev/zero" 2 "is a character device" ./build/compare_fields "$T/a.dump" /dev/zero
head -c 5000 /dev/urandom > "$T/x.dump";                    cmpbad "random bytes" "bad magic|shorter than"
cp "$T/df/field.dump" "$T/g.dump"
try "compare_fields: dumps of different grids" 2 "the grids differ" ./build/compare_fields "$T/a.dump" "$T/g.dump"
try "compare_fields: --tol abc" 2 '--tol needs a number >= 0, got "abc"' ./build/compare_fields "$T/a.dump" "$T/b.dump" --tol abc
try "compare_fields: --tol -1" 2 "--tol needs a number >= 0" ./build/compare_fields "$T/a.dump" "$T/b.dump" --tol -1
try "compare_fields: --tol nan" 2 "--tol needs a number >= 0" ./build/compare_fields "$T/a.dump" "$T/b.dump" --tol nan
try "compare_fields: unknown option" 2 'unknown option "--fast"' ./build/compare_fields "$T/a.dump" "$T/b.dump" --fast
try "compare_fields: one file only" 2 "usage: compare_fields" ./build/compare_fields "$T/a.dump"
./build/adiflow "$T/small.nml" --backend cpu --max-iter 3 --run-dir "$T/it3" > /dev/null 2>&1
try "compare_fields: different states give exit 1" 1 "DIFFERENT" ./build/compare_fields "$T/a.dump" "$T/it3/field.dump"

# ------------------------------------------------------------- hardening
# No executable may ask for an executable stack (a trampoline of a pointer to
# an internal Fortran procedure, or an object without .note.GNU-stack, does):
# an overflow could then run code it wrote there. The Makefile refuses
# trampolines (-Werror=trampolines); this checks what was linked. And each is
# linked with its relocations read-only after start (RELRO with BIND_NOW),
# so that an overflow cannot redirect a library call through them.
if command -v readelf > /dev/null 2>&1; then
  for x in build/adiflow build/adiflow_mpi build/compare_fields build/make_grid build/cube_compare build/ghia_compare \
           build/grid_check build/open_flow_compare; do
    [ -x "$x" ] || continue
    st=$(readelf -lW "$x" 2>/dev/null | awk '$1 == "GNU_STACK" {print $(NF-1)}')
    if [ "$st" = RW ]; then ok "$x: the stack is not executable (GNU_STACK $st)"
    else bad "$x: GNU_STACK flags '${st:-none}', wanted RW (an executable stack)"; fi
    if readelf -lW "$x" 2>/dev/null | grep -q GNU_RELRO && readelf -dW "$x" 2>/dev/null | grep -Eq 'BIND_NOW|Flags:.* NOW'
    then ok "$x: relocations read-only after start (RELRO, BIND_NOW)"
    else bad "$x: not linked with -z relro -z now"; fi
  done
fi

# ------------------------------------------------------------- adiflow_mpi
if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
  MPI="mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi"
  nml "ni = 8, nj = 8, nk = 4, max_iter = 6, monitor_interval = 2, write_plot = .false." "$T/m.nml"
  try "adiflow_mpi: a good 2-rank run" 0 "done; outputs in" $MPI "$T/m.nml" --run-dir "$T/mg"
  nml "ni = 'abc'" "$T/mb.nml"
  try "adiflow_mpi: a type error names the key" 2 "ni = .*abc.* needs an integer" $MPI "$T/mb.nml" --run-dir "$T/v"
  try "adiflow_mpi: a FIFO as the case file (no hang)" 2 "is a FIFO" $MPI "$T/fifo.nml"
  printf '&adiflow\nni = 8, nj = 8, nk = 4\n/\n&parallel\nnpj = 2.5\n/\n' > "$T/mp.nml"
  try "adiflow_mpi: a bad &parallel value" 2 "npj = 2.5 in &parallel is not an integer" $MPI "$T/mp.nml" --run-dir "$T/v"
  try "adiflow_mpi: --implicit-precision half" 2 'implicit_precision = "half" is not allowed \(use one of: double single\)' \
    $MPI "$T/m.nml" --implicit-precision half --run-dir "$T/v"
  try "adiflow_mpi: a hostile run folder runs nothing" 0 "done; outputs in" $MPI "$T/m.nml" --run-dir "$T/h/\$(touch $T/pwned4)"
  [ ! -e "$T/pwned4" ] && ok "adiflow_mpi: no command ran" || bad "adiflow_mpi: the run folder name ran a command"
  try "adiflow_mpi: a 5000-character run folder is refused at the start" 2 "at most 4000" $MPI "$T/m.nml" --run-dir "$L5000"
  cp -r "$T/mg" "$T/mr"; sed -i 's/^iteration .*/iteration -3/' "$T/mr/restart.decomp"
  try "adiflow_mpi: a negative iteration in the index" 2 "iteration -3 is negative" $MPI "$T/m.nml" --restart --max-iter 9 --run-dir "$T/mr"
  cp -r "$T/mg" "$T/ms"; echo garbage > "$T/ms/restart.decomp"
  try "adiflow_mpi: a garbage index" 2 "is damaged" $MPI "$T/m.nml" --restart --max-iter 9 --run-dir "$T/ms"
  cp -r "$T/mg" "$T/mf"; rm "$T/mf/restart.decomp"; mkfifo "$T/mf/restart.decomp"
  try "adiflow_mpi: a FIFO as the restart index (no hang)" 2 "restart.decomp.* is not a regular file" $MPI "$T/m.nml" --restart --max-iter 9 --run-dir "$T/mf"
  cp -r "$T/mg" "$T/mt"; rm -f "$T/mt"/restart.r00001.*
  try "adiflow_mpi: a missing rank file" 2 "restart .*restart.r00001.it6.bin.* does not exist" $MPI "$T/m.nml" --restart --max-iter 9 --run-dir "$T/mt"
  cp -r "$T/mg" "$T/mu"; flip "$T/mu/restart.r00000.it6.bin" 200 4
  try "adiflow_mpi: a damaged rank file" 2 "fails its checksum" $MPI "$T/m.nml" --restart --max-iter 9 --run-dir "$T/mu"
  # kill -9 during restart-set writes: the index always names a complete set
  nml "ni = 12, nj = 12, nk = 8, max_iter = 100000, monitor_interval = 50, restart_interval = 1, write_plot = .false." "$T/mk.nml"
  good=0
  for trial in 1 2 3 4 5 6; do
    setsid mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/mk.nml" --run-dir "$T/mk" > /dev/null 2>&1 &
    p=$!; sleep "1.$((trial * 15))"; kill -9 -- -$p 2>/dev/null; wait $p 2>/dev/null
    # the killed run's rank processes may outlive mpirun for a moment, and
    # while one lives it holds the run folder's lock: wait until none is left
    for _ in $(seq 100); do pgrep -f "adiflow_mpi $T/mk.nml" > /dev/null || break; sleep 0.1; done
    it=$(sed -n 's/^iteration //p' "$T/mk/restart.decomp" 2>/dev/null)
    timeout $LIMIT mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/mk.nml" --restart --max-iter $((${it:-0} + 1)) \
      --run-dir "$T/mk" > "$T/mkr.log" 2>&1 && good=$((good + 1))
  done
  [ $good -eq 6 ] && ok "adiflow_mpi: kill -9 during restart-set writes, 6 trials: always continues" \
    || bad "adiflow_mpi: kill -9 during restart-set writes: $good of 6 could continue ($(grep -i error "$T/mkr.log" | head -1))"
  mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/long.nml" --run-dir "$T/mlock" > "$T/ml1.log" 2>&1 &
  p1=$!
  for _ in $(seq 50); do grep -q "^ *10 " "$T/ml1.log" 2>/dev/null && break; sleep 0.2; done
  try "adiflow_mpi: a second run in the same folder is refused" 2 "another run .* is using the run folder" \
    $MPI "$T/long.nml" --run-dir "$T/mlock"
  # the first run stops on SIGTERM (its ranks write the restart set and exit); mpirun itself has been
  # seen to hang afterwards with its ranks already gone (OpenMPI 4.1 on a loaded 2-core machine), so
  # the wait is bounded and a hung mpirun is killed: this test is about the lock, not about mpirun
  kill -TERM $p1
  for _ in $(seq 600); do kill -0 $p1 2> /dev/null || break; sleep 0.1; done
  kill -KILL $p1 2> /dev/null; wait $p1 2> /dev/null
  # the index cannot be written (its temporary name taken by a folder): the set of iteration 6 stays
  mkdir "$T/mg/restart.decomp.tmp"
  s1=$(sum "$T/mg/restart.decomp")
  try "adiflow_mpi: the index cannot be written: exit 5, the previous set kept" 5 "restart.decomp.*kept" \
    $MPI "$T/m.nml" --restart --max-iter 8 --run-dir "$T/mg"
  rmdir "$T/mg/restart.decomp.tmp"
  [ "$(sum "$T/mg/restart.decomp")" = "$s1" ] && [ -f "$T/mg/restart.r00000.it6.bin" ] \
    && ok "adiflow_mpi: the index and the set of iteration 6 survive the failed write" \
    || bad "adiflow_mpi: the previous restart set was damaged by the failed write"
  # 6 MB: a restart leg writes the block .vts files (1.0 MB together with their
  # point data; Float32 values) beside the previous ones, which stay until the rename
  if mkdir -p "$T/mnt2" && mount -t tmpfs -o size=6m tmpfs "$T/mnt2" 2>/dev/null; then
    MNT=$T/mnt2
    mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/full.nml" --run-dir "$MNT/run" > /dev/null 2>&1 \
      && ok "adiflow_mpi: a first run on a small tmpfs" || bad "adiflow_mpi: the first run on a small tmpfs failed"
    head -c 10000000 /dev/zero > "$MNT/filler" 2>/dev/null
    s1=$(sum "$MNT/run/restart.decomp")
    try "adiflow_mpi on a full tmpfs: exit 5 naming the file" 5 "writing .*(No space left|failed).*kept" \
      mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/full.nml" --restart --max-iter 4 --run-dir "$MNT/run"
    rm -f "$MNT/filler"
    [ "$(sum "$MNT/run/restart.decomp")" = "$s1" ] && ok "adiflow_mpi on a full tmpfs: the index kept" \
      || bad "adiflow_mpi on a full tmpfs: the index changed"
    try "adiflow_mpi on a full tmpfs: the kept set continues" 0 "restarting from .* at iteration 2" \
      mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/full.nml" --restart --max-iter 3 --run-dir "$MNT/run"
    umount "$MNT"; MNT=""
  fi
  try "adiflow_mpi: and the kept set continues" 0 "restarting from .* at iteration 6" \
    $MPI "$T/m.nml" --restart --max-iter 7 --run-dir "$T/mg"
else
  echo "note: build/adiflow_mpi or mpirun missing: the MPI checks are skipped (make mpi)"
fi

# ------------------------------------------------------- parts by topic
# Each file of tests/hostile/ is a part of this suite, sourced here so that it
# shares try, nml, flip, sum, $T, $SMALL, $MPI and the counters.
for part in tests/hostile/*.sh; do
  [ -f "$part" ] || continue
  echo "--- ${part#tests/}"
  # shellcheck disable=SC1090
  . "$part"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

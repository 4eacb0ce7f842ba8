# Part of tests/suites/run_robustness.sh (sourced; see tests/hostile/README.md):
# restart and dump files that pass a weak check. Each check here failed on the
# format-2 reader (Fletcher-64, 80-byte header without a rank):
# - a 32-bit word turned from 0x00000000 into 0xFFFFFFFF (invisible to a sum
#   modulo 2^32-1) is caught by the CRC-64 of format 3;
# - a NaN under a valid checksum is refused, naming the variable and the cell;
# - a version-1 file (nothing protects its header) is refused unless
#   --accept-old-restart asks for it, and then its reference residual is not
#   used: a flipped bit there no longer declares the run converged;
# - swapped MPI rank files are refused, naming the rank each belongs to;
# - a huge (sparse) file of another grid is refused from its header at once.
# build/dump_fixtures makes the files no writer of the solver makes (a NaN
# resealed with valid CRCs, format-1/2 copies, a bare header): `make test`
# builds it; run alone, this part builds that one small tool if it is missing.
[ -x build/dump_fixtures ] || make -s build/dump_fixtures > /dev/null 2>&1
FX=./build/dump_fixtures
if [ ! -x "$FX" ]; then
  bad "restart files: build/dump_fixtures is missing and could not be built (make build/dump_fixtures)"
else

# hf_run DESC RC REGEX [ARGS...]: build/adiflow --restart on $T/hf/restart.bin (small case)
hf_run() {
  local desc=$1 want=$2 re=$3; shift 3
  try "restart files: $desc" "$want" "$re" ./build/adiflow "$T/small.nml" --backend cpu --restart --run-dir "$T/hf" "$@"
}
hf_fresh() { rm -rf "$T/hf"; mkdir -p "$T/hf"; cp "${1:-$T/good/restart.bin}" "$T/hf/restart.bin"; }

try "restart files: the CRC-64 is CRC-64/XZ (check value of \"123456789\")" 0 "^995dc9bbdf1939fa$" $FX --crc 123456789

# 1. the Fletcher blind spot: the state of iteration 0 holds rho = 1.0, whose
# low word is 0x00000000; ff ff ff ff there gives rho = 1.00000095 and left
# the Fletcher-64 unchanged. Offset 128 is the first data value of format 3
# (and a rho = 1.0 of format 2 too).
rm -rf "$T/z0"
./build/adiflow "$T/small.nml" --backend cpu --max-iter 0 --run-dir "$T/z0" > /dev/null 2>&1
if [ "$(od -An -tx1 -j 128 -N 8 "$T/z0/restart.bin" 2>/dev/null | tr -d ' ')" = 000000000000f03f ]; then
  hf_fresh "$T/z0/restart.bin"
  printf '\xff\xff\xff\xff' | dd of="$T/hf/restart.bin" bs=1 seek=128 conv=notrunc 2>/dev/null
  hf_run "a data word changed from 00000000 to ffffffff (rho 1.0 -> 1.00000095) is caught" 2 \
    "restart.bin.* fails its checksum" --max-iter 2
  cp "$T/hf/restart.bin" "$T/w.dump"
  try "restart files: compare_fields catches the same word change" 2 "w.dump.* fails its checksum" \
    ./build/compare_fields "$T/z0/restart.bin" "$T/w.dump"
  # the NaN variant: ff ff ff ff over the high word of a rho*u = 0.0
  hf_fresh "$T/z0/restart.bin"
  printf '\xff\xff\xff\xff' | dd of="$T/hf/restart.bin" bs=1 seek=$((128 + 8*192 + 4)) conv=notrunc 2>/dev/null
  hf_run "a word changed to ffffffff making a NaN is caught" 2 "fails its checksum" --max-iter 2
else
  bad "restart files: the iteration-0 restart does not hold rho = 1.0 at offset 128 (format changed?)"
fi

# 2. a NaN with both CRCs recomputed: only the value check sees it. Variable
# rho*v (the third block) of cell (3,2,1): value 2*192 + (2 + 8*1) of 8x6x4
hf_fresh
printf '\x00\x00\x00\x00\x00\x00\xf8\x7f' | dd of="$T/hf/restart.bin" bs=1 seek=$((128 + 8*(2*192 + 10))) conv=notrunc 2>/dev/null
$FX --reseal "$T/hf/restart.bin"
before=$(sum "$T/hf/restart.bin")
hf_run "a NaN under valid checksums is refused, naming the file, the variable and the cell" 2 \
  "restart.bin.*: variable rho\\*v of cell \\(3,2,1\\) is NaN" --max-iter 12
[ "$(sum "$T/hf/restart.bin")" = "$before" ] && ok "restart files: the refused NaN restart is left as it was" \
  || bad "restart files: the refused NaN restart was changed"
cp "$T/hf/restart.bin" "$T/n.dump"
try "restart files: compare_fields refuses the NaN dump the same way" 2 "n.dump.*variable rho\\*v of cell \\(3,2,1\\) is NaN" \
  ./build/compare_fields "$T/good/restart.bin" "$T/n.dump"
hf_fresh
printf '\x00\x00\x00\x00\x00\x00\xf0\xff' | dd of="$T/hf/restart.bin" bs=1 seek=$((128 + 8*(4*192 + 191))) conv=notrunc 2>/dev/null
$FX --reseal "$T/hf/restart.bin"
hf_run "a -Inf in the last value (E of cell (8,6,4)) under valid checksums is refused" 2 \
  "variable E of cell \\(8,6,4\\) is -Inf" --max-iter 12

# 3. older formats: version 2 reads (its header is under its checksum) and the
# next restart is version 3; version 1 only with --accept-old-restart
hf_fresh; $FX --old 2 "$T/good/restart.bin" "$T/hf/restart.bin"
hf_run "a version-2 restart still reads, and says so" 0 "restart.bin is of format version 2" --max-iter 8
[ "$(od -An -td4 -j 8 -N 4 "$T/hf/restart.bin" | tr -d ' ')" = 3 ] \
  && ok "restart files: the restart written after a version-2 one is version 3" \
  || bad "restart files: the restart written after a version-2 one is not version 3"
cp "$T/good/restart.bin" "$T/v3.dump"; $FX --old 2 "$T/good/restart.bin" "$T/v2.dump"
try "restart files: compare_fields reads version 2 against version 3 (the same state)" 0 "IDENTICAL" \
  ./build/compare_fields "$T/v3.dump" "$T/v2.dump"
hf_fresh; $FX --old 1 "$T/good/restart.bin" "$T/hf/restart.bin"
before=$(sum "$T/hf/restart.bin")
hf_run "a version-1 restart is refused without --accept-old-restart" 2 \
  "restart.bin.* is a version-1 file: nothing protects its header.*--accept-old-restart" --max-iter 8
[ "$(sum "$T/hf/restart.bin")" = "$before" ] && ok "restart files: the refused version-1 restart is left as it was" \
  || bad "restart files: the refused version-1 restart was changed"
$FX --old 1 "$T/good/restart.bin" "$T/v1.dump"
try "restart files: compare_fields refuses version 1 without the option" 2 "v1.dump.* is a version-1 file" \
  ./build/compare_fields "$T/v3.dump" "$T/v1.dump"
try "restart files: compare_fields --accept-old-restart reads version 1" 0 "IDENTICAL" \
  ./build/compare_fields "$T/v3.dump" "$T/v1.dump" --accept-old-restart
# a flipped bit in a version-1 header's reference residual (res0(1) ~ 1e-2 ->
# ~1e+300) used to stop the run at once as "converged" (exit 0); with the
# option the reference residual is not taken from that header at all
nml "$SMALL, tol = 0.1" "$T/tol.nml"
hf_fresh; $FX --old 1 "$T/good/restart.bin" "$T/hf/restart.bin"; flip "$T/hf/restart.bin" 47 64
out=$(timeout -k 5 $LIMIT ./build/adiflow "$T/tol.nml" --backend cpu --restart --accept-old-restart --max-iter 10 \
  --run-dir "$T/hf" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "reference residual is not used; the convergence reference starts again from the residual of iteration 7" \
  && ! echo "$out" | grep -q "converged at iteration" && echo "$out" | grep -qE "^ +7 " && echo "$out" | grep -qE "^ +10 " \
  && [ "$(od -An -td4 -j 8 -N 4 "$T/hf/restart.bin" | tr -d ' ')" = 3 ] \
  && ok "restart files: --accept-old-restart, version-1 reference residual flipped: not 'converged', says the reference restarts at iteration 7, runs to 10, writes version 3" \
  || bad "restart files: --accept-old-restart with a flipped version-1 reference residual (exit $rc: $(echo "$out" | grep -E "converged|note|error" | head -n 2 | tr '\n' ' '))"

# 4. a huge sparse file whose (valid) header names another grid: refused from
# the header, before 40 GiB of data are read
hf_fresh; rm -f "$T/hf/restart.bin"
if $FX --header "$T/hf/restart.bin" 1024 1024 1024 && truncate -s $((128 + 5*8*1024*1024*1024 + 8)) "$T/hf/restart.bin"; then
  t0=$(date +%s%N)
  hf_run "a 40 GiB sparse restart of a 1024^3 grid is refused from its header" 2 \
    "grid 1024 x 1024 x 1024 does not match the case grid 8 x 6 x 4" --max-iter 12
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ $ms -lt 2000 ] && ok "restart files: ... within 2 s (took $ms ms)" || bad "restart files: the 40 GiB refusal took $ms ms"
  t0=$(date +%s%N)
  try "restart files: compare_fields refuses the 40 GiB file of another grid from the headers" 2 "the grids differ" \
    ./build/compare_fields "$T/good/field.dump" "$T/hf/restart.bin"
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ $ms -lt 2000 ] && ok "restart files: compare_fields' refusal within 2 s (took $ms ms)" \
    || bad "restart files: compare_fields took $ms ms to refuse the 40 GiB file"
  rm -f "$T/hf/restart.bin"
else
  bad "restart files: cannot make the 40 GiB sparse file"
fi

# 5. MPI rank files: each records its rank, the decomposition and its block
if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
  MPI2="mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi"
  nml "ni = 8, nj = 8, nk = 4, max_iter = 6, monitor_interval = 2, write_plot = .false." "$T/hm.nml"
  rm -rf "$T/hm"
  if $MPI2 "$T/hm.nml" --npj 2 --npk 1 --run-dir "$T/hm" > "$T/hm.log" 2>&1; then
    try "restart files: a rank file records its place (compare_fields --info)" 0 \
      "block of rank 1 of npj x npk = 2 x 1, global grid 8 x 8 x 4, first cell \\(1,5,1\\)" \
      ./build/compare_fields --info "$T/hm/restart.r00001.it6.bin"
    # swapped: same-shaped blocks (8 x 4 x 4), so only the recorded rank tells
    rm -rf "$T/hs"; cp -r "$T/hm" "$T/hs"
    mv "$T/hs/restart.r00000.it6.bin" "$T/hs/x.bin"; mv "$T/hs/restart.r00001.it6.bin" "$T/hs/restart.r00000.it6.bin"
    mv "$T/hs/x.bin" "$T/hs/restart.r00001.it6.bin"
    try "restart files: swapped MPI rank files are refused, naming the file, its rank and the rank it was read for" 2 \
      "restart.r00000.it6.bin.* holds the block of rank 1, but was read for rank 0" \
      $MPI2 "$T/hm.nml" --npj 2 --npk 1 --restart --max-iter 8 --run-dir "$T/hs"
    # a rank file in place of the serial restart
    rm -rf "$T/hr"; mkdir -p "$T/hr"; cp "$T/hm/restart.r00001.it6.bin" "$T/hr/restart.bin"
    try "restart files: build/adiflow refuses an MPI rank file as restart.bin" 2 \
      "holds the block of rank 1 of an MPI run \\(npj x npk = 2 x 1\\), not a serial state" \
      ./build/adiflow "$T/hm.nml" --backend cpu --restart --max-iter 8 --run-dir "$T/hr"
    # version-2 rank files record no rank: only with the option
    rm -rf "$T/h2"; cp -r "$T/hm" "$T/h2"
    for r in 0 1; do $FX --old 2 "$T/hm/restart.r0000$r.it6.bin" "$T/h2/restart.r0000$r.it6.bin"; done
    try "restart files: version-2 rank files are refused without --accept-old-restart" 2 \
      "restart.r0000[01].it6.bin.* is a version-2 file, which records no rank" \
      $MPI2 "$T/hm.nml" --npj 2 --npk 1 --restart --max-iter 8 --run-dir "$T/h2"
    try "restart files: ... and read with it" 0 "the rank restart set is of format version 2" \
      $MPI2 "$T/hm.nml" --npj 2 --npk 1 --restart --accept-old-restart --max-iter 8 --run-dir "$T/h2"
    # a huge sparse rank file of another grid: refused from the header
    rm -rf "$T/hb"; cp -r "$T/hm" "$T/hb"; rm "$T/hb/restart.r00001.it6.bin"
    $FX --header "$T/hb/restart.r00001.it6.bin" 1024 1024 1024 \
      && truncate -s $((128 + 5*8*1024*1024*1024 + 8)) "$T/hb/restart.r00001.it6.bin"
    t0=$(date +%s%N)
    try "restart files: adiflow_mpi refuses a 40 GiB sparse rank file of another grid" 2 \
      "restart.r00001.it6.bin.*grid 1024 x 1024 x 1024 does not match the case grid 8 x 8 x 4" \
      $MPI2 "$T/hm.nml" --npj 2 --npk 1 --restart --max-iter 8 --run-dir "$T/hb"
    ms=$((($(date +%s%N) - t0) / 1000000))
    # mpirun's own start and stop take about a second here
    [ $ms -lt 5000 ] && ok "restart files: ... at once (took $ms ms with mpirun's start)" \
      || bad "restart files: adiflow_mpi took $ms ms to refuse the 40 GiB rank file"
    rm -rf "$T/hb"
  else
    bad "restart files: the 2-rank reference run failed ($(tail -n 2 "$T/hm.log" | tr '\n' ' '))"
  fi
fi
fi

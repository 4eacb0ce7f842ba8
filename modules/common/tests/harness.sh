# shellcheck shell=bash
# modules/common/tests/harness.sh - the harness of the run_tests.sh scripts of
# wave, stencil3d and ooc, sourced from the repository root (each script first
# changes there from dirname "$0") after setting B (the module's build folder):
#   cd "$(dirname "$0")/../../.."; B=build/wave; . modules/common/tests/harness.sh
# Clears $T = $B/tests, counts PASS/FAIL lines; finish prints the last line
# "N passed, M failed" and gives the exit status.
T=$B/tests
rm -rf "$T"; mkdir -p "$T"
pass=0; fail=0
ok()  { echo "PASS $1${2:+: $2}"; pass=$((pass+1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail+1)); }
checksum() { grep -o 'checksum [0-9a-f]*' "$1" | tail -1 | cut -d' ' -f2; }
run() { local log=$1; shift; "$@" > "$log" 2>&1; }
finish() { echo "$pass passed, $fail failed"; [ $fail -eq 0 ]; }

unit_tests() {  # BINARY: the C unit tests; their PASS/FAIL lines, their totals added to ours
    "$1" > "$T/unit.log" 2>&1
    grep -v ' passed, ' "$T/unit.log"
    local u; u=$(tail -1 "$T/unit.log")
    if [[ "$u" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        pass=$((pass+BASH_REMATCH[1])); fail=$((fail+BASH_REMATCH[2]))
    else bad unit_tests "$(basename "$1") did not finish: $(tail -3 "$T/unit.log")"; fi
}

expect_fail() {  # name needle cmd...: non-zero exit and a message containing needle
    local name=$1 needle=$2; shift 2
    "$@" > $T/bad.log 2>&1; local rc=$?
    if [ $rc -ne 0 ] && grep -q -- "$needle" $T/bad.log; then ok "$name" "$(grep -m1 error $T/bad.log)"
    else bad "$name" "rc=$rc, output: $(head -c 300 $T/bad.log)"; fi
}

png_decodes() {  # PATH W H: every chunk CRC holds, the image data inflates to W x H RGB rows
    python3 - "$1" "$2" "$3" <<'PY'
import sys, zlib, struct
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w, h = 8, b'', 0, 0
while pos < len(d):
    n, t = struct.unpack('>I4s', d[pos:pos+8]); body = d[pos+8:pos+8+n]
    assert zlib.crc32(t + body) & 0xffffffff == struct.unpack('>I', d[pos+8+n:pos+12+n])[0]
    if t == b'IHDR': w, h = struct.unpack('>II', body[:8])
    if t == b'IDAT': idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
assert len(raw) == h * (3 * w + 1) and (w, h) == (int(sys.argv[2]), int(sys.argv[3]))
PY
}

#!/usr/bin/env bash
# tests/suites/hostile_modules.sh - hostile inputs against the three module programs
# (build/wave/wave2d, build/stencil3d/stencil3d, build/ooc/ooc2d): bad values
# and types, unknown and duplicate keys, huge sizes, non-regular and damaged
# input files, long and shell-active paths, signals, a full disk (ulimit -f),
# an unwritable standard output. Every check runs under `timeout 20` (a
# timeout is a failure: "hang") and asserts the documented exit code (0 ok,
# 1 result check failed, 2 bad input, 3 not enough host memory, 4 device,
# 5 output not written, 130/143 SIGINT/SIGTERM) AND a message naming the
# problem. Builds nothing: run 'make wave stencil3d ooc' first. Runs from any
# folder. Last line: "N passed, M failed"; exit status non-zero if any failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
W=build/wave/wave2d S=build/stencil3d/stencil3d O=build/ooc/ooc2d
for b in $W $S $O; do
    [ -x "$b" ] || { echo "missing $b: run 'make wave stencil3d ooc' first"; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
export OMP_NUM_THREADS=1          # tiny grids: threads only add start-up time
LOG=$T/log
pass=0; fail=0
ok()  { echo "PASS $1"; pass=$((pass+1)); }
bad() { echo "FAIL $1 ($2)"; fail=$((fail+1)); }
shown() { head -c 400 "$LOG" | tr '\n' ' '; }

# expect DESC RC REGEX CMD...: CMD exits with RC within 20 s and its output matches REGEX
expect() {
    local desc=$1 want=$2 re=$3; shift 3
    timeout 20 "$@" > "$LOG" 2>&1; local rc=$?
    if [ $rc = 124 ] || [ $rc = 137 ]; then bad "$desc" "hang: no exit within 20 s"; return 1; fi
    if [ "$rc" = "$want" ] && grep -qE -- "$re" "$LOG"; then ok "$desc"; return 0; fi
    bad "$desc" "exit $rc, output: $(shown)"; return 1
}
# $LIMITED "-v KB" CMD...: CMD under a ulimit in a child shell (a file: timeout runs no functions)
LIMITED=$T/limited
printf '#!/usr/bin/env bash\nulimit $1 || exit 99\nshift\nexec "$@"\n' > "$LIMITED"; chmod +x "$LIMITED"
# no_tmp DIR: no temporary output file (NAME.tmp-PID) left in DIR
no_tmp() { local f; for f in "$1"/*.tmp-* "$1"/.*.tmp-*; do [ -e "$f" ] && return 1; done; return 0; }
# signal_run SIG DELAY CMD...: CMD in the background, SIG after DELAY s; its exit status in $T/rc
signal_run() {
    local sig=$1 delay=$2; shift 2
    # set -m: a background job of a script would otherwise start with SIGINT ignored
    # (its job-status line goes to /dev/null; the program's messages go to $LOG)
    ( set -m; timeout 20 "$@" > "$LOG" 2>&1 & p=$!; sleep "$delay"; kill -s "$sig" $p 2>/dev/null; wait $p; echo $? > "$T/rc" ) 2>/dev/null
    cat "$T/rc"
}

# ---- shared hostile files ----
mkdir -p "$T/adir"
mkfifo "$T/fifo"
LONG300=$(printf 'd%.0s' $(seq 300))                       # one component, > NAME_MAX
DEEP300=$T/$(printf 'abcdefghi/%.0s' $(seq 30))            # 300 characters in short components
LONG5000=$T/$(printf 'x%.0s' $(seq 5000))
EVIL1="$T/\"; touch $T/pwned; \""
EVIL2="$T/\$(touch $T/pwned)"
pwned_absent() { [ ! -e "$T/pwned" ]; }

# ================= wave2d =================
WC=$T/w.case
printf '# tiny wave case\nnx = 48\nny = 40\nh = 10\nnt = 5\nsponge = 4\nrec_n = 4\n' > "$WC"
E="^wave2d: error: "
expect "wave2d tiny case runs and lists its outputs" 0 "^outputs in '$T/wout'.*final.bin" $W "$WC" --out "$T/wout" --write_final 1
expect "wave2d negative src_x is not 'centre'" 2 "${E}src_x = -5: allowed src_x >= 0, or exactly -1 = centre" $W "$WC" --src_x -5
expect "wave2d src_x = -1 is the documented centre" 0 "Ricker source .* at \(235, " $W "$WC" --src_x -1
expect "wave2d grid too small" 2 "${E}nx = 8: allowed 17 \.\. 1000000" $W "$WC" --nx 8
expect "wave2d integer with trailing garbage" 2 "${E}'nx = 8\.5': expected an integer" $W "$WC" --nx 8.5
expect "wave2d integer overflow" 2 "${E}nx = 99999999999999999999: allowed 17" $W "$WC" --nx 99999999999999999999
expect "wave2d text for a number" 2 "${E}'h = abc': expected a finite number" $W "$WC" --h abc
expect "wave2d 1e999" 2 "${E}'h = 1e999': the number is out of the range of a double" $W "$WC" --h 1e999
expect "wave2d nan" 2 "${E}'amp = nan': expected a finite number" $W "$WC" --amp nan
expect "wave2d negative dt" 2 "${E}dt = -1: allowed dt >= 0" $W "$WC" --dt -1
expect "wave2d negative nt" 2 "${E}nt = -5: allowed 0 \.\. " $W "$WC" --nt -5
expect "wave2d 0/1 flag out of range" 2 "${E}write_final = 2: allowed 0 or 1" $W "$WC" --write_final 2
expect "wave2d unknown key" 2 "${E}unknown parameter 'nxy'" $W "$WC" --nxy 5
expect "wave2d duplicate flag" 2 "${E}option '--nx' is given more than once" $W "$WC" --nx 48 --nx 50
expect "wave2d unknown precision" 2 "${E}precision = 'quad': allowed float or double" $W "$WC" --precision quad
printf 'nx = 48\nny = 40\nnx = 50\n' > "$T/dup.case"
expect "wave2d duplicate key in the case file" 2 "${E}.*dup.case:3: duplicate key 'nx' \(first set on line 1\)" $W "$T/dup.case"
printf 'nx = 48\nnt =\n' > "$T/empty.case"
expect "wave2d empty value" 2 "${E}.*empty.case:2: 'nt' has an empty value" $W "$T/empty.case"
printf 'nx = 48\nout = "abc\n' > "$T/quote.case"
expect "wave2d unterminated quote" 2 "${E}.*quote.case:2: unterminated quote in the value of 'out'" $W "$T/quote.case"
{ printf 'nx = 48\nlayers = '; printf '0:1500, %.0s' $(seq 700); printf '\n'; } > "$T/longline.case"
expect "wave2d very long line" 2 "${E}.*longline.case:2: line longer than 4095 characters \(key 'layers'\)" $W "$T/longline.case"
printf 'nx = 48\nny = 40\nn' > "$T/trunc.case"
expect "wave2d truncated case file" 2 "${E}.*trunc.case:3: expected 'key = value', got 'n'" $W "$T/trunc.case"
printf 'nx = 48\n\0\0\x01binary' > "$T/binary.case"
expect "wave2d binary case file" 2 "${E}.*binary.case:2: NUL byte" $W "$T/binary.case"
expect "wave2d directory as case file" 2 "${E}case file '$T/adir' is not a regular file \(it is a directory\)" $W "$T/adir"
expect "wave2d FIFO as case file (no hang)" 2 "${E}case file '$T/fifo' is not a regular file \(it is a FIFO" $W "$T/fifo"
expect "wave2d /dev/null as case file" 2 "${E}case file '/dev/null' is not a regular file \(it is a character device\)" $W /dev/null
expect "wave2d missing case file" 2 "${E}cannot open case file '$T/nope.case': No such file" $W "$T/nope.case"
expect "wave2d 5000-character case path" 2 "${E}cannot open case file .*\(5[0-9]{3} characters\)': File name too long" $W "$LONG5000"
expect "wave2d 1e6 x 1e6 grid refused before allocating" 3 "${E}grid 1000000 x 1000000 needs .* TiB of host memory but only .* available" $W "$WC" --nx 1000000 --ny 1000000
expect "wave2d 65536^2 under ulimit -v 4 GB" 3 "${E}grid 65536 x 65536 needs 64\.[0-9] GiB of host memory but only .* \(address-space limit RLIMIT_AS" \
    "$LIMITED" "-v 4000000" $W "$WC" --nx 65536 --ny 65536
expect "wave2d too many receivers x samples" 3 "${E}grid 48 x 40 with 100000 receivers x 1000000 samples needs .* of host memory" "$LIMITED" "-v 600000" $W "$WC" --rec_n 100000 --rec_dx 0.0001 --nt 1000000
# velocity files (the one binary input): truncated, too long, damaged values, not a file
build/wave/test_wave --make-velfile "$T/vel.bin" 48 40
head -c 1000 "$T/vel.bin" > "$T/short.bin"
{ cat "$T/vel.bin"; printf 'xxxx'; } > "$T/long.bin"
{ head -c 4000 "$T/vel.bin"; printf '\xff\xff\xff\x7f'; tail -c +4005 "$T/vel.bin"; } > "$T/nan.bin"
VF=(--model file --velfile)
expect "wave2d velocity file: good one runs" 0 "model file: v = 1500" $W "$WC" "${VF[@]}" "$T/vel.bin"
expect "wave2d velocity file truncated" 2 "${E}velocity file '$T/short.bin' has 1000 bytes, expected nx\*ny\*4 = 48\*40\*4 = 7680" $W "$WC" "${VF[@]}" "$T/short.bin"
expect "wave2d velocity file too long" 2 "${E}velocity file '$T/long.bin' has 7684 bytes, expected" $W "$WC" "${VF[@]}" "$T/long.bin"
expect "wave2d velocity file with a NaN" 2 "${E}velocity must be positive and finite, found nan .* of velocity file" $W "$WC" "${VF[@]}" "$T/nan.bin"
expect "wave2d velocity file is a FIFO" 2 "${E}velocity file '$T/fifo' is not a regular file" $W "$WC" "${VF[@]}" "$T/fifo"
expect "wave2d damaged layers" 2 "${E}layers: velocity 'abc' at depth 300|${E}layers: missing velocity after '300:'" $W "$WC" --model layered --layers "0:1500, 300:abc"
# output paths
expect "wave2d out with \"; touch pwned; \"" 0 "^outputs in '$T/\"; touch" $W "$WC" --out "$EVIL1" && { pwned_absent && ok "wave2d shell metacharacters never reach a shell" || bad "wave2d shell metacharacters" "$T/pwned exists"; }
expect "wave2d out with \$(touch pwned)" 0 "^outputs in '$T/\\\$\(touch" $W "$WC" --out "$EVIL2" && { pwned_absent && ok "wave2d \$(...) never reaches a shell" || bad "wave2d \$(...)" "$T/pwned exists"; }
cp "$WC" "$EVIL2.case" 2>/dev/null || { mkdir -p "$(dirname "$EVIL2.case")"; cp "$WC" "$EVIL2.case"; }
expect "wave2d case path with \$(touch pwned)" 0 "^done:" $W "$EVIL2.case"
expect "wave2d out: 300 characters in short components" 0 "^outputs in '$T/abcdefghi/.*info.txt" $W "$WC" --out "$DEEP300"
expect "wave2d out: one 300-character name" 5 "${E}cannot create output directory .*File name too long" $W "$WC" --out "$T/$LONG300"
expect "wave2d out: 5000 characters" 2 "${E}value of 'out' is too long \(50[0-9]{2} characters; at most 511\)" $W "$WC" --out "$LONG5000"
touch "$T/afile"
expect "wave2d out is a regular file" 5 "${E}cannot create output directory '$T/afile/o': '$T/afile' exists and is not a directory" $W "$WC" --out "$T/afile/o"
expect "wave2d standard output on a full device" 5 "${E}cannot write the standard output: No space left" bash -c "$W \"$WC\" > /dev/full"
# full disk: the previous good final.bin survives, no temporary file is left
before=$(cksum < "$T/wout/final.bin")
expect "wave2d full disk (ulimit -f 4)" 5 "${E}cannot write '$T/wout/final.bin': File too large .*previous file .* unchanged" \
    "$LIMITED" "-f 4" $W "$WC" --out "$T/wout" --write_final 1 --nt 9
[ "$(cksum < "$T/wout/final.bin")" = "$before" ] && no_tmp "$T/wout" && ok "wave2d full disk: previous final.bin unchanged, no temporary left" \
    || bad "wave2d full disk: previous final.bin" "changed or a .tmp- file is left: $(ls "$T/wout")"
rc=$(signal_run INT 1 $W "$WC" --nx 200 --ny 180 --nt 100000000 --quiet 1)
[ "$rc" = 130 ] && grep -q "^wave2d: interrupted by SIGINT" "$LOG" && ok "wave2d SIGINT: exit 130 with a message" || bad "wave2d SIGINT" "exit $rc, output: $(shown)"
rc=$(signal_run TERM 1 $W "$WC" --nx 200 --ny 180 --nt 100000000 --snap_every 1 --out "$T/wsig")
[ "$rc" = 143 ] && grep -q "^wave2d: interrupted by SIGTERM" "$LOG" && compgen -G "$T/wsig/snap_*" > /dev/null && no_tmp "$T/wsig" \
    && ok "wave2d SIGTERM while writing snapshots: exit 143, no temporary file left" || bad "wave2d SIGTERM" "exit $rc, files: $(ls "$T/wsig" | tail -3 | tr '\n' ' ')$(shown)"

# ================= stencil3d =================
SC=$T/s.case
printf 'n = 12\nnt = 3\nmode = cpu\n' > "$SC"
E="^stencil3d: error: "
expect "stencil3d tiny case runs and lists its outputs" 0 "^outputs in '$T/sout'.*final.bin" $S "$SC" --out "$T/sout" --write_final 1
expect "stencil3d nx = 0" 2 "${E}nx = 0: allowed 1 \.\. 65535" $S "$SC" --n 0 --nx 0
expect "stencil3d negative cube size" 2 "${E}n = -3: allowed 0 \.\. 65535" $S "$SC" --n -3
expect "stencil3d integer with a fraction" 2 "${E}'nz = 12\.5': expected an integer" $S "$SC" --nz 12.5
expect "stencil3d inf" 2 "${E}'courant = inf': expected a finite number" $S "$SC" --courant inf
expect "stencil3d 1e-999" 2 "${E}'fo = 1e-999': the number is out of the range of a double" $S "$SC" --fo 1e-999
expect "stencil3d unstable courant" 2 "${E}courant = 0\.46 is outside the stable range .* allowed 0 < courant <= 0\.452856" $S "$SC" --courant 0.46
expect "stencil3d tile overflow" 2 "${E}tile = '99999999999x5': expected BXxBY" $S "$SC" --tile 99999999999x5
expect "stencil3d unknown key" 2 "${E}unknown parameter 'nn'" $S "$SC" --nn 3
printf 'n = 12\nmode = cpu\nmode = emu\n' > "$T/sdup.case"
expect "stencil3d duplicate key" 2 "${E}.*sdup.case:3: duplicate key 'mode'" $S "$T/sdup.case"
expect "stencil3d directory as case file" 2 "${E}case file '$T/adir' is not a regular file \(it is a directory\)" $S "$T/adir"
expect "stencil3d FIFO as case file (no hang)" 2 "${E}case file '$T/fifo' is not a regular file \(it is a FIFO" $S "$T/fifo"
expect "stencil3d /dev/null as case file" 2 "${E}case file '/dev/null' is not a regular file" $S /dev/null
expect "stencil3d grid beyond the static cap" 2 "${E}grid 8000 x 8000 x 8000 needs .* too large" $S "$SC" --n 8000
expect "stencil3d grid over ulimit -v" 3 "${E}grid 2000 x 2000 x 100 needs .* GiB of host memory but only .* RLIMIT_AS" "$LIMITED" "-v 1000000" $S "$SC" --n 0 --nx 2000 --ny 2000 --nz 100
expect "stencil3d out with \"; touch pwned; \"" 0 "^outputs in '$T/\"; touch" $S "$SC" --out "$EVIL1" && { pwned_absent && ok "stencil3d shell metacharacters never reach a shell" || bad "stencil3d shell metacharacters" "$T/pwned exists"; }
expect "stencil3d out: 5000 characters" 2 "${E}value of 'out' is too long" $S "$SC" --out "$LONG5000"
expect "stencil3d standard output on a full device" 5 "${E}cannot write the standard output" bash -c "$S \"$SC\" > /dev/full"
before=$(cksum < "$T/sout/final.bin")
expect "stencil3d full disk (ulimit -f 4)" 5 "${E}cannot write '$T/sout/final.bin': File too large" "$LIMITED" "-f 4" $S "$SC" --out "$T/sout" --write_final 1 --nt 5
[ "$(cksum < "$T/sout/final.bin")" = "$before" ] && no_tmp "$T/sout" && ok "stencil3d full disk: previous final.bin unchanged, no temporary left" \
    || bad "stencil3d full disk: previous final.bin" "changed or a .tmp- file is left: $(ls "$T/sout")"
rc=$(signal_run INT 1 $S "$SC" --n 48 --nt 100000000 --quiet 1)
[ "$rc" = 130 ] && grep -q "^stencil3d: interrupted by SIGINT" "$LOG" && ok "stencil3d SIGINT: exit 130 with a message" || bad "stencil3d SIGINT" "exit $rc, output: $(shown)"

# ================= ooc2d =================
OA=(--nx 64 --ny 64 --nt 2 --device-mem 40K --quiet 1)
E="^ooc2d: error: "
expect "ooc2d tiny run lists its outputs" 0 "^outputs in '$T/oout'.*final.bin" $O "${OA[@]}" --out "$T/oout" --write_final 1
expect "ooc2d grid too small" 2 "${E}nx = 2: allowed 3 \.\. 1000000" $O --nx 2 --ny 64
expect "ooc2d bad size suffix" 2 "${E}'device_mem = 2X': expected a size such as 512M" $O --device-mem 2X
expect "ooc2d negative size" 2 "${E}'device_mem = -5M': expected a size" $O --device-mem -5M
expect "ooc2d nan" 2 "${E}'r = nan': expected a finite number" $O --r nan
expect "ooc2d overlap = 2" 2 "${E}overlap = 2: allowed 0 or 1" $O --overlap 2
expect "ooc2d duplicate flag (- and _ spellings)" 2 "${E}option '--device_mem' is given more than once" $O --device-mem 1M --device_mem 2M
expect "ooc2d directory as case file" 2 "${E}case file '$T/adir' is not a regular file" $O "$T/adir"
expect "ooc2d FIFO as case file (no hang)" 2 "${E}case file '$T/fifo' is not a regular file \(it is a FIFO" $O "$T/fifo"
expect "ooc2d 1e6 x 1e6 grid refused before allocating" 3 "${E}grid 1000000 x 1000000 needs .* TiB of host memory but only" $O --nx 1000000 --ny 1000000
expect "ooc2d budget too small" 2 "${E}device_mem = 1\.00 KiB is too small for nx = 1024" $O --device-mem 1K
expect "ooc2d out with \$(touch pwned)" 0 "^outputs in '$T/\\\$\(touch" $O "${OA[@]}" --out "$EVIL2" && { pwned_absent && ok "ooc2d \$(...) never reaches a shell" || bad "ooc2d \$(...)" "$T/pwned exists"; }
before=$(cksum < "$T/oout/final.bin")
expect "ooc2d full disk (ulimit -f 4)" 5 "${E}cannot write '$T/oout/final.bin': File too large" "$LIMITED" "-f 4" $O "${OA[@]}" --init noise --out "$T/oout" --write_final 1
[ "$(cksum < "$T/oout/final.bin")" = "$before" ] && no_tmp "$T/oout" && ok "ooc2d full disk: previous final.bin unchanged, no temporary left" \
    || bad "ooc2d full disk: previous final.bin" "changed or a .tmp- file is left: $(ls "$T/oout")"
rc=$(signal_run TERM 1 $O --nx 256 --ny 256 --nt 100000000 --device-mem 64K --method trivial --check none --quiet 1)
[ "$rc" = 143 ] && grep -q "^ooc2d: interrupted by SIGTERM" "$LOG" && ok "ooc2d SIGTERM: exit 143 with a message" || bad "ooc2d SIGTERM" "exit $rc, output: $(shown)"

# ================= the module test programs =================
# an interrupted --make-velfile leaves neither the file nor its temporary
if [ -x build/wave/test_wave ]; then
    rc=$(signal_run TERM 0.5 build/wave/test_wave --make-velfile "$T/big_vel.bin" 12000 12000)
    [ "$rc" = 143 ] && [ ! -e "$T/big_vel.bin" ] && no_tmp "$T" && grep -q "interrupted by SIGTERM" "$LOG" \
        && ok "test_wave --make-velfile interrupted: exit 143, no partial file, no temporary" \
        || bad "test_wave --make-velfile interrupted" "exit $rc, left: $(ls -s "$T" | grep -i vel | tr '\n' ' ')"
    timeout 20 build/wave/test_wave --make-velfile "$T/v2.bin" 30 20 > "$LOG" 2>&1; rc=$?
    [ $rc = 0 ] && [ "$(stat -c %s "$T/v2.bin" 2>/dev/null)" = 2400 ] && no_tmp "$T" \
        && ok "test_wave --make-velfile writes a complete file (30 x 20 x 4 bytes), no temporary left" \
        || bad "test_wave --make-velfile" "exit $rc, size $(stat -c %s "$T/v2.bin" 2>/dev/null)"
    expect "test_wave refuses an unknown option" 2 'test_wave: unknown option "--frobnicate"' build/wave/test_wave --frobnicate
fi
[ -x build/stencil3d/test_stencil3d ] && expect "test_stencil3d refuses an unknown option" 2 'test_stencil3d: unknown option "--quick"' build/stencil3d/test_stencil3d --quick
[ -x build/ooc/test_ooc ] && expect "test_ooc refuses an unknown option" 2 'test_ooc: unknown option "-v"' build/ooc/test_ooc -v

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

# Hostile Plot3D grid files (sourced by tests/suites/run_robustness.sh; see
# tests/hostile/README.md): every malformed file the grid reader
# (fortran/plot3d_file.c, fortran/grid_file.f90) can meet exits 2 with a
# sentence naming the file and, where it applies, the block and the node,
# cell or face; nothing hangs on a special file. Driven through
# build/grid_check (the reader and the checks a run does before it
# allocates anything); the files come from build/make_grid, then damaged
# here. Run alone, this part builds those two tools if they are missing.
[ -x build/make_grid ] || make -s build/make_grid > /dev/null 2>&1
[ -x build/grid_check ] || make -s GPU_BACKEND=none build/grid_check > /dev/null 2>&1
if [ ! -x build/make_grid ] || [ ! -x build/grid_check ]; then
  bad "grid files: build/make_grid or build/grid_check is missing and could not be built"
else

G=$T/grid
mkdir -p "$G"
MG=./build/make_grid
gc() { # DESC REGEX FILE [OPTIONS...]: grid_check exits 2 with a line matching REGEX
  local desc=$1 re=$2; shift 2
  try "grid file: $desc" 2 "$re" ./build/grid_check "$@"
}
# little-endian bytes of an int32, for printf
gf_le32() { printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
# gf_patch FILE OFFSET BYTES(printf escapes): overwrite in place
gf_patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null; }
# text files of make_grid: the block count on line 1, the sizes on line 2,
# then one value a line; node i,j,k (from 1) coordinate c (0 x, 1 y, 2 z) of
# a grid of N0 x N1 nodes and N nodes in all is on line
# 3 + c*N + (i-1) + N0*((j-1) + N1*(k-1))
gf_line() { echo $((3 + $1 * $2 + ($3 - 1) + $4 * (($5 - 1) + $6 * (${7:-1} - 1)))); }  # c N i N0 j N1 [k]
gf_setline() { sed -i "$2s/.*/$3/" "$1"; }

$MG box -o "$G/box.x" > /dev/null                            # 7 x 6 x 5 nodes, unformatted, double, count
$MG box --format raw -o "$G/box.raw" > /dev/null             # raw: 16 header bytes, then 3 x 210 doubles
$MG box --format raw --precision single -o "$G/box4.raw" > /dev/null
$MG channel --ni 4 --nj 3 --format text -o "$G/ch.txt" > /dev/null   # 5 x 4 nodes (x 0, 2.5, .., 10)
$MG box --ni 2 --nj 2 --nk 2 --format text -o "$G/b2.txt" > /dev/null # 3 x 3 x 3 nodes
try "grid file: a good file reads (control)" 0 "OK" ./build/grid_check "$G/box.x"
ln -s "$G/box.x" "$G/link.x"
try "grid file: a symbolic link to a grid file reads" 0 "OK" ./build/grid_check "$G/link.x"

# ---- 1. truncated, extra bytes, wrong counts
cp "$G/box.raw" "$G/a"; truncate -s -5 "$G/a"
gc "raw, 5 bytes cut off" '"[^"]*/a" \(raw binary.*7 x 6 x 5 nodes.*need 2536 bytes in single precision or 5056 in double, but the file has 5051: 5 bytes short of double precision \(truncated\?\)' "$G/a"
cp "$G/box.raw" "$G/a"; truncate -s 3000 "$G/a"
gc "raw, cut to 3000 bytes" 'need 2536 bytes in single precision or 5056 in double, but the file has 3000' "$G/a"
cp "$G/box.raw" "$G/a"; printf 'extra!!!' >> "$G/a"
gc "raw, 8 extra bytes" 'the file has 5064: 8 bytes more than double precision needs \(extra bytes\?\)' "$G/a"
cp "$G/box4.raw" "$G/a"; printf 'abcd' >> "$G/a"
gc "raw single, 4 extra bytes (neither precision)" 'the file has 2540: 4 bytes more than single precision needs' "$G/a"
cp "$G/box.x" "$G/a"; truncate -s -5 "$G/a"
gc "unformatted, 5 bytes cut off" '"[^"]*/a" \(Fortran unformatted, 4-byte little-endian record markers\) is truncated: record 3 \(at byte 32\) says it holds 5040 bytes' "$G/a"
cp "$G/box.x" "$G/a"; printf '\001\002\003' >> "$G/a"
gc "unformatted, 3 extra bytes" 'has 3 extra bytes after the grid.s records end \(at byte 5080\)' "$G/a"
cp "$G/box.x" "$G/a"; gf_patch "$G/a" 5076 "$(gf_le32 5000)"
gc "unformatted, a damaged end marker" 'is damaged: record 3 \(at byte 32\) starts with the length 5040 but ends with 5000' "$G/a"
cp "$G/box.x" "$G/a"; gf_patch "$G/a" 16 "$(gf_le32 8)"
gc "unformatted, the sizes changed (8 x 6 x 5 against 7 x 6 x 5 of data)" \
  'block 1: its sizes, 8 x 6 x 5 nodes, need 2880 bytes for the 3 coordinates in single precision or 5760 in double, but its coordinate record holds 5040 bytes' "$G/a"
cp "$G/box.x" "$G/a"; gf_patch "$G/a" 4 "$(gf_le32 3)"
gc "unformatted, a block count of 3 over one block's records" 'its block count is 3, so its second record should hold the sizes, 36 bytes \(3D\) or 24 \(2D\), but it holds 12' "$G/a"
cp "$G/box.raw" "$G/a"; gf_patch "$G/a" 8 "$(gf_le32 8)"
gc "raw, the sizes changed" '7 x 8 x 5 nodes \(3D, little-endian, with the block count\), need 3376 bytes in single precision or 6736 in double, but the file has 5056' "$G/a"
# 7 x 9 x 5 singles with IBLANK take as many bytes as 7 x 6 x 5 doubles: its "flags" are no flags
cp "$G/box.raw" "$G/a"; gf_patch "$G/a" 8 "$(gf_le32 9)"
gc "raw, the sizes changed to a length that IBLANK would fit" '7 x 9 x 5 nodes .*need 3796 bytes in single precision or 7576 in double, but the file has 5056' "$G/a"
$MG box --format unformatted --markers 8 -o "$G/a" > /dev/null; truncate -s -1 "$G/a"
gc "unformatted with 8-byte markers, truncated" '8-byte little-endian record markers\) is truncated' "$G/a"
$MG box --subrecord 100 -o "$G/a" > /dev/null; truncate -s -200 "$G/a"
gc "unformatted in subrecords, truncated" 'is truncated: record 3' "$G/a"
cp "$G/ch.txt" "$G/a.txt"; sed -i '$d' "$G/a.txt"
gc "text, the last value missing" '\(text\): its sizes, 5 x 4 nodes \(2D, with the block count\), need 43 numbers with the header, but the file holds 42: it is truncated' "$G/a.txt"
cp "$G/ch.txt" "$G/a.txt"; echo 3.5 >> "$G/a.txt"
gc "text, an extra value" 'need 43 numbers with the header, but the file holds 44: it has extra numbers' "$G/a.txt"
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" 2 "5 5"
gc "text, wrong sizes" 'its sizes, 5 x 5 nodes .*need 53 numbers with the header, but the file holds 43' "$G/a.txt"
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" 7 "1.0abc"
gc "text, a word that is no number" '\(text\): line 7: "1.0abc" is not a number' "$G/a.txt"
printf '1\n4294967295 2147483647 2147483647\n0.0\n' > "$G/a.txt"
gc "text, sizes of 2^31 (nothing allocated)" '"[^"]*/a.txt" \(text\)' "$G/a.txt"
printf "$(gf_le32 2147483647)$(gf_le32 2147483647)$(gf_le32 2147483647)" > "$G/a"; head -c 4000 /dev/zero >> "$G/a"
gc "raw, sizes of 2^31-1 (nothing allocated)" 'not a Plot3D grid file that adiflow can read|need .* bytes' "$G/a"

# ---- 2. the wrong precision: single-precision data under sizes that fit double
cp "$G/box4.raw" "$G/a"; gf_patch "$G/a" 8 "$(gf_le32 3)"   # 7 x 3 x 5 nodes of doubles: the bytes of 7 x 6 x 5 singles
gc "raw single read as double through its sizes (7 x 3 x 5 doubles = 7 x 6 x 5 singles)" 'grid file "[^"]*/a", block 1: (node|cell|the face)' "$G/a"

# ---- 3. values that are not coordinates
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" "$(gf_line 0 20 3 5 2 4)" nan
gc "text, a NaN" 'grid file "[^"]*/a.txt", block 1: node i,j,k = 3,2,1: x = NaN is not a finite number' "$G/a.txt"
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" "$(gf_line 1 20 5 5 4 4)" -inf
gc "text, -Inf" 'node i,j,k = 5,4,1: y = -Inf is not a finite number' "$G/a.txt"
cp "$G/box.raw" "$G/a"; gf_patch "$G/a" $((16 + 8 * (210 + 1 + 7 * (2 + 6 * 3)))) '\000\000\000\000\000\000\370\177'
gc "raw double, a NaN (node 2,3,4, y)" 'block 1: node i,j,k = 2,3,4: y = NaN is not a finite number' "$G/a"
cp "$G/box.raw" "$G/a"; gf_patch "$G/a" $((16 + 8 * (420 + 6))) '\000\000\000\000\000\000\360\177'
gc "raw double, +Inf (node 7,1,1, z)" 'node i,j,k = 7,1,1: z = \+Inf is not a finite number' "$G/a"
cp "$G/box.raw" "$G/a"; gf_patch "$G/a" 16 '\000\000\000\000\000\000\360\137'
gc "raw double, 1e154 (beyond any coordinate)" 'node i,j,k = 1,1,1: x = .*e\+154 is beyond 1e100 in magnitude' "$G/a"

# ---- 4. cells: collapsed, zero, negative, left-handed
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" "$(gf_line 1 20 3 5 2 4)" "$(sed -n "$(gf_line 1 20 3 5 1 4)p" "$G/ch.txt")"
gc "2D, two nodes coincide" 'block 1: the grid line at i = 3 between j = 1..2 has zero length \(two nodes coincide\)' "$G/a.txt"
cp "$G/b2.txt" "$G/a.txt"          # 3D: the i-face at node plane 2, j 2..3, k 1..2, collapsed onto its k = 1 edge
for c in 0 1 2; do
  for j in 2 3; do gf_setline "$G/a.txt" "$(gf_line $c 27 2 3 $j 3 2)" "$(sed -n "$(gf_line $c 27 2 3 $j 3 1)p" "$G/b2.txt")"; done
done
gc "3D, a collapsed face" 'block 1: the face at node plane i = 2, between j = 2..3, k = 1..2, has zero area \(collapsed' "$G/a.txt"
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" "$(gf_line 0 20 3 5 2 4)" 0
gc "2D, a cell of zero volume" 'block 1: cell i,j = 2,1 has zero volume' "$G/a.txt"
cp "$G/ch.txt" "$G/a.txt"; gf_setline "$G/a.txt" "$(gf_line 0 20 3 5 2 4)" 12
gc "2D, a folded cell" 'block 1: cell i,j = 3,1 has a negative volume \(.*; [0-9]+ of 12 cells are negative\): the grid folds over itself' "$G/a.txt"
$MG box --flip j -o "$G/a" > /dev/null
gc "3D left-handed: the fix named" 'block 1: every cell volume is negative: the grid is left-handed .* reverse one index direction .*flip' "$G/a"
try "grid file: the left-handed grid read with flip j" 0 "the same node coordinates" ./build/grid_check "$G/a" --flip j --same-as "$G/box.x"
$MG cylinder --ni 12 --nj 6 --flip i -o "$G/a" > /dev/null
gc "2D clockwise" 'every cell volume is negative: the 2D grid runs clockwise' "$G/a"

# ---- 5. what is not read: overlapping blocks, IBLANK, a 2D grid for a 3D case
for f in unformatted raw text; do
  # make_grid --blocks writes the same block 3 times: every face is met by two others
  $MG box --blocks 3 --format $f -o "$G/a" > /dev/null
  gc "3 blocks, all the same ($f)" '"[^"]*/a" \(3 blocks\): block 1, face i=1, nodes j 1..6, k 1..5 is claimed twice: its cells coincide with cells of block 2, face i=1 and of block 3, face i=1' "$G/a"
  $MG box --iblank --format $f -o "$G/a" > /dev/null
  gc "IBLANK ($f)" 'block 1: holds IBLANK values' "$G/a"
done
gc "a 2D grid where a 3D one is needed" 'block 1 is a 2D grid \(x, y only\), but this case needs a 3D grid' "$G/ch.txt" --need-3d

# ---- 5b. multi-block files (fortran/grid_blocks.f90, fortran/block_interfaces.c): the
# interfaces found from the coordinates, and the bad ones; the samples come
# from build/test_block_interfaces --write
[ -x build/test_block_interfaces ] || make -s GPU_BACKEND=none build/test_block_interfaces > /dev/null 2>&1
if ! ./build/test_block_interfaces --write "$G" 2> /dev/null; then
  bad "grid files: build/test_block_interfaces --write failed (the multi-block samples)"
else
  try "multi-block: a box in 2 blocks, the second turned round: its interface and orientation" 0 \
    'block 1, face i=3, nodes j 1..6, k 1..5 = block 2, face j=1, nodes i 5..1, k 6..1 \(transform 2,-3,-1\)' ./build/grid_check "$G/box2.x"
  try "multi-block: a C-grid in 3 blocks, the third reversed in i and j (single precision, big-endian, 8-byte markers): the wake cut" 0 \
    'block 1, face j=1, nodes i 1..7, k 1..2 = block 3, face j=6, nodes i 1..7, k 1..2 \(transform 1,2,3\)' ./build/grid_check "$G/cgrid3.x"
  try "multi-block: the C-grid's section is left for patches" 0 '^    block 2, face j=1, nodes i 1..17, k 1..2$' ./build/grid_check "$G/cgrid3.x"
  try "multi-block: a one-block C-grid with --blocks: its wake cut is an interface with itself, reversed" 0 \
    'block 1, face j=1, nodes i 1..7, k 1..2 = block 1, face j=1, nodes i 29..23, k 1..2 \(transform -1,-2,3\)' ./build/grid_check "$G/cgrid1.x" --blocks
  gc "multi-block: nodes that almost coincide" '"[^"]*/almost.x" \(2 blocks\): block 1, face i=3, node i,j,k = 3,3,2 and block 2, face j=1, node i,j,k = 4,1,4 almost coincide' "$G/almost.x"
  gc "multi-block: hanging nodes (a partial overlap)" '\(2 blocks\): block 1, face i=3, node i,j,k = 3,2,2 coincides with block 2, face i=1, node i,j,k = 1,3,3, but no whole cell around them does' "$G/partial.x"
  gc "multi-block: an overlap that is no rectangle of whole cells" '\(2 blocks\): block 1, face i=3, nodes j 1..6, k 1..5: the cells that coincide .* are not a rectangle of whole cells' "$G/notrect.x"
  gc "multi-block: a left-handed block (its cells checked as a one-block grid's)" '\(2 blocks\), block 2: every cell volume is negative: the grid is left-handed' "$G/left.x"
  gc "multi-block: a face range claimed twice" '\(3 blocks\): block 1, face i=3, nodes j 1..6, k 1..5 is claimed twice' "$G/twice.x"
  # a run reads and checks it as grid_check does; an interface between an i face and a j face runs
  cp "$G/box2.x" "$T/gf_mb.x"
  nml "grid_file = 'gf_mb.x', max_iter = 2, write_plot = .false." "$T/gf_mb.nml"
  try "multi-block: a run takes an interface between an i face and a j face" 0 \
    'grid: 2 blocks from .*gf_mb.x.*1 1-to-1 interface' \
    ./build/adiflow "$T/gf_mb.nml" --backend cpu --run-dir "$G/run_mb"
  cp "$G/twice.x" "$T/gf_mb2.x"
  nml "grid_file = 'gf_mb2.x', max_iter = 2, write_plot = .false." "$T/gf_mb2.nml"
  try "multi-block: a run gives grid_check's message for a bad file" 2 '\(3 blocks\): block 1, face i=3, nodes j 1..6, k 1..5 is claimed twice' \
    ./build/adiflow "$T/gf_mb2.nml" --backend cpu --run-dir "$G/run_mb2"
  if [ ! -e "$G/run_mb2" ]; then ok "multi-block: no run folder made for the refused file"; else bad "multi-block: a run folder was made for the refused file"; fi
fi

# ---- 6. not a grid file at all
rm -f "$G/f"; mkfifo "$G/f"
gc "a FIFO (no hang)" 'grid file "[^"]*/f" is a FIFO \(named pipe\), not a regular file' "$G/f"
gc "a folder" 'is a directory, not a regular file' "$G"
gc "a missing file" 'grid file "[^"]*/none.x" does not exist' "$G/none.x"
gc "/dev/zero" 'is a character device' /dev/zero
: > "$G/a"
gc "an empty file" '"[^"]*/a" is empty' "$G/a"
head -c 5000 /dev/urandom > "$G/a"
gc "random bytes" '"[^"]*/a" .*(is not a Plot3D grid file|need .* bytes|record)' "$G/a"
printf 'hello world\n' > "$G/a"
gc "a text file of words" '\(text\): line 1: "hello" is not a number' "$G/a"

# ---- 7. through adiflow (grid_file): refused with exit 2 before the run folder is made
cp "$G/box.x" "$T/gf_box.x"
nml "grid_file = 'gf_box.x', max_iter = 2, write_plot = .false." "$T/gf_ok.nml"
try "grid_file: a good grid runs, its path taken from the case file's folder" 0 "grid 6 x 5 x 4 from .*/gf_box.x" \
  ./build/adiflow "$T/gf_ok.nml" --backend cpu --run-dir "$G/run_ok"
nml "grid_file = 'none.x'" "$T/gf_none.nml"
try "grid_file: a missing file names the file" 2 'grid file "[^"]*/none.x" does not exist' \
  ./build/adiflow "$T/gf_none.nml" --backend cpu --run-dir "$G/run_none"
if [ ! -e "$G/run_none" ]; then ok "grid_file: a missing grid file makes no run folder"; else bad "grid_file: a missing grid file made its run folder"; fi
nml "grid_file = 'gf_box.x', grid_type = 'wavy'" "$T/gf_wavy.nml"
try "grid_file with grid_type = 'wavy' is refused" 2 "grid_type = \"wavy\" and grid_file = .* both name a grid" \
  ./build/adiflow "$T/gf_wavy.nml" --backend cpu --run-dir "$G/run_wavy"
cp "$G/b2.txt" "$T/gf_nan.txt"; gf_setline "$T/gf_nan.txt" "$(gf_line 1 27 2 3 2 3 2)" nan
nml "grid_file = 'gf_nan.txt'" "$T/gf_nan.nml"
try "grid_file: a NaN coordinate names the node, before the run folder" 2 'block 1: node i,j,k = 2,2,2: y = NaN is not a finite number' \
  ./build/adiflow "$T/gf_nan.nml" --backend cpu --run-dir "$G/run_nan"
if [ ! -e "$G/run_nan" ]; then ok "grid_file: a grid with a NaN makes no run folder"; else bad "grid_file: a grid with a NaN made its run folder"; fi
$MG box --flip j -o "$T/gf_left.x" > /dev/null
nml "grid_file = 'gf_left.x', max_iter = 2, write_plot = .false." "$T/gf_left.nml"
try "grid_file: a left-handed grid names the key that turns it" 2 "left-handed .*grid_flip = 'i'" \
  ./build/adiflow "$T/gf_left.nml" --backend cpu --run-dir "$G/run_left"
nml "grid_file = 'gf_left.x', grid_flip = 'j', max_iter = 2, write_plot = .false." "$T/gf_flip.nml"
try "grid_file: the same grid runs with grid_flip = 'j'" 0 "from .*gf_left.x" \
  ./build/adiflow "$T/gf_flip.nml" --backend cpu --run-dir "$G/run_flip"
nml "grid_file = 'gf_box.x', grid_flip = 'x'" "$T/gf_badflip.nml"
try "grid_flip = 'x' is refused, naming the choices" 2 'grid_flip = "x" is not allowed .*none i j k' \
  ./build/adiflow "$T/gf_badflip.nml" --backend cpu --run-dir "$G/run_badflip"
# a declared periodic pair whose faces neither coincide nor repeat by one translation
$MG cylinder --ni 8 --nj 6 --farfield 5 -o "$T/gf_cyl.x" > /dev/null
nml "grid_file = 'gf_cyl.x', bc_jmin = 'periodic', bc_jmax = 'periodic', bc_kmin = 'periodic', bc_kmax = 'periodic'" "$T/gf_badper.nml"
try "grid_file: a periodic pair on faces that do not match names the nodes and what is wrong" 2 \
  "bc_jmin = bc_jmax = 'periodic', but its j = 1 and j = 7 node planes are neither the same nodes \\(a cut\\) nor one translation apart: node \\([0-9]*,1\\) and node \\([0-9]*,7\\)" \
  ./build/adiflow "$T/gf_badper.nml" --backend cpu --run-dir "$G/run_badper"
if [ ! -e "$G/run_badper" ]; then ok "grid_file: a mismatched periodic pair makes no run folder"; else bad "grid_file: a mismatched periodic pair made its run folder"; fi
printf 'jmin wall\njmax farfield\n' > "$T/gf_cyl.bc"
nml "grid_file = 'gf_cyl.x', patch_file = 'gf_cyl.bc', bc_kmin = 'periodic', bc_kmax = 'periodic', max_iter = 2, write_plot = .false." "$T/gf_cut.nml"
try "grid_file: an O-grid whose i faces coincide is joined across its cut without being declared, and says so" 0 \
  "its i = 1 and i = 9 node planes coincide node for node, a periodic cut: joined" \
  ./build/adiflow "$T/gf_cut.nml" --backend cpu --run-dir "$G/run_cut"
fi

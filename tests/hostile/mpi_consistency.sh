# adiflow_mpi: every rank must run the same case. Ranks started with another
# case file or other options (mpirun's MPMD form, "-np 1 ... : -np 1 ...")
# stop at once with exit code 2, rank 0 naming the key and both values,
# before the run folder is made; none hangs (try's timeout). A rank whose own
# input is bad stops every rank with exit code 2 too. And once a new restart
# set is committed, the rank files of older sets and the stale .tmp files of
# the restart are gone, and nothing else is touched.
if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
  MR="mpirun --allow-run-as-root"
  X=./build/adiflow_mpi
  CA="ni = 8, nj = 8, nk = 4, max_iter = 4, monitor_interval = 2, write_plot = .false."
  nml "$CA" "$T/ca.nml"
  nml "$CA, reynolds = 400.0" "$T/cb.nml"
  nml "${CA/ni = 8/ni = 12}" "$T/cg.nml"
  nml "${CA/ni = 8/ni = 0}" "$T/cz.nml"
  cp "$T/ca.nml" "$T/ca_copy.nml"
  # differ DESC REGEX CASE1 [ARGS...]: rank 0 runs ca.nml, rank 1 CASE1 with ARGS
  n=0
  differ() {
    local desc=$1 re=$2 c1=$3; shift 3
    n=$((n + 1))
    try "adiflow_mpi, ranks differ: $desc: exit 2 naming it" 2 "$re" \
      $MR -np 1 $X "$T/ca.nml" --run-dir "$T/cdiff$n" : -np 1 $X "$c1" --run-dir "$T/cdiff$n" "$@"
    [ ! -e "$T/cdiff$n" ] && ok "adiflow_mpi, ranks differ: $desc: stopped before the run folder was made" \
      || bad "adiflow_mpi, ranks differ: $desc: the run folder was made"
  }
  differ "another reynolds" \
    "rank 1's settings differ from rank 0's: reynolds = 400 on rank 1, 100 on rank 0 \(every rank must read the same case file" \
    "$T/cb.nml"
  differ "--max-iter on rank 1 only" "max_iter = 6 on rank 1, 4 on rank 0" "$T/ca.nml" --max-iter 6
  differ "--restart on rank 1 only" "restart = \.true\. on rank 1, \.false\. on rank 0" "$T/ca.nml" --restart
  differ "--mass-fix on rank 1 only" "mass_fix = \.true\. on rank 1, \.false\. on rank 0" "$T/ca.nml" --mass-fix
  differ "--adi-mode on rank 1 only" 'adi_mode \(&parallel\) = "decoupled" on rank 1, "exact" on rank 0' \
    "$T/ca.nml" --adi-mode decoupled
  differ "another grid (ni)" "ni = 12 on rank 1, 8 on rank 0" "$T/cg.nml"
  differ "a bad value on rank 1 only" "rank 1: ni = 0 is out of range: allowed 1 to 4096" "$T/cz.nml"
  try "adiflow_mpi: two copies of one case file agree" 0 "done; outputs in" \
    $MR -np 1 $X "$T/ca.nml" --run-dir "$T/ccopy" : -np 1 $X "$T/ca_copy.nml" --run-dir "$T/ccopy"

  # older restart sets: a 2-rank run leaves its set of iteration 4; the rank
  # files of ranks 2 and 3 stand for those of an earlier 4-rank run, and the
  # temporaries for a crash's; names that are not the restart's are added.
  # A fresh 2-rank run with a set every 2 iterations must end with its set of
  # iteration 6 alone, the rest untouched
  D=$T/cclean
  nml "ni = 8, nj = 8, nk = 4, max_iter = 6, restart_interval = 2, monitor_interval = 2, write_plot = .false." "$T/cr.nml"
  try "adiflow_mpi: a 2-rank run leaves its set of iteration 4" 0 "done; outputs in" \
    $MR -np 2 $X "$T/cr.nml" --max-iter 4 --run-dir "$D"
  cp "$D/restart.r00000.it4.bin" "$D/restart.r00002.it4.bin"
  cp "$D/restart.r00001.it4.bin" "$D/restart.r00003.it4.bin"
  touch "$D/restart.r00000.it1.bin.tmp" "$D/restart.r00001.it5.bin.tmp" "$D/restart.decomp.tmp" \
    "$D/restart.r00000.it3.bin.bak" "$D/restart.r0.it3.bin" "$D/notes.txt"
  echo keep > "$T/cclean_target"
  ln -s "$T/cclean_target" "$D/restart.r00001.it99.bin"
  ln -s "$T/cclean_target" "$D/my_link"
  mkdir "$D/restart.r00000.it8.bin"
  try "adiflow_mpi: a fresh 2-rank run, a restart set every 2 iterations" 0 "done; outputs in" \
    $MR -np 2 $X "$T/cr.nml" --run-dir "$D"
  left=$(cd "$D" && LC_ALL=C ls -d restart.r* | tr '\n' ' ')
  [ "$left" = "restart.r0.it3.bin restart.r00000.it3.bin.bak restart.r00000.it6.bin restart.r00000.it8.bin restart.r00001.it6.bin " ] \
    && ok "adiflow_mpi: only the set of iteration 6 is left of the restart sets (other names and a folder untouched)" \
    || bad "adiflow_mpi: restart files left after the run: $left"
  [ -z "$(find "$D" -name '*.tmp')" ] && ok "adiflow_mpi: no .tmp file is left in the run folder" \
    || bad "adiflow_mpi: .tmp files left: $(find "$D" -name '*.tmp' | tr '\n' ' ')"
  [ "$(cat "$T/cclean_target")" = keep ] && [ -L "$D/my_link" ] && [ -f "$D/notes.txt" ] \
    && ok "adiflow_mpi: a link of the restart's pattern is removed, not followed; other files stay" \
    || bad "adiflow_mpi: the cleanup followed a link or removed another file"
  try "adiflow_mpi: the set left continues" 0 "restarting from .* at iteration 6" \
    $MR -np 2 $X "$T/cr.nml" --restart --max-iter 7 --run-dir "$D"
fi

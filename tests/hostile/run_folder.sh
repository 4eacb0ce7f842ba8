# Part of tests/suites/run_robustness.sh (sourced; see tests/hostile/README.md): the
# run folder as an attacker or an accident leaves it. Paths that gnuplot would
# read as pipes, links planted where outputs go, folders other users may write
# in, the lock file deleted under a running run, a file changed under it,
# signals that used to end a run without a word, and outputs that cannot be
# replaced at the end.

# --- gnuplot must never get a path it reads as a command ('|' writes to one, '<' reads from one)
if command -v gnuplot > /dev/null 2>&1; then
  mkdir -p "$T/gpipe"
  nml "ni = 8, nj = 6, nk = 4, max_iter = 4, monitor_interval = 2" "$T/gpipe/p.nml"
  for lead in '|' '<'; do
    rm -f "$T/pwned_pipe"
    (cd "$T/gpipe" && timeout $LIMIT "$B/adiflow" p.nml --backend cpu --run-dir "${lead}touch $T/pwned_pipe;cat>/dev/null;echo " \
      > "$T/gpipe/log" 2>&1); rc=$?
    [ $rc -eq 0 ] && [ ! -e "$T/pwned_pipe" ] && [ -n "$(find "$T/gpipe" -name residual.png -size +1k)" ] \
      && ok "adiflow: a run folder starting with '$lead' is a folder to gnuplot, not a command (plot drawn)" \
      || bad "adiflow: run folder starting with '$lead' (exit $rc, pwned: $([ -e "$T/pwned_pipe" ] && echo yes || echo no))"
    rm -rf "$T/gpipe/${lead}touch "*
  done
  rm -f "$T/pwned_pipe"
  printf '&adiflow\nni = 8, nj = 6, nk = 4, max_iter = 4, monitor_interval = 2, run_dir = "|touch %s/pwned_pipe;echo "\n/\n' "$T" \
    > "$T/gpipe/k.nml"
  (cd "$T/gpipe" && timeout $LIMIT "$B/adiflow" k.nml --backend cpu > "$T/gpipe/log" 2>&1); rc=$?
  [ $rc -eq 0 ] && [ ! -e "$T/pwned_pipe" ] && ok "adiflow: the case key run_dir = '|...' runs no command" \
    || bad "adiflow: case key run_dir with a pipe (exit $rc)"
  if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
    for lead in '|' '<'; do
      rm -f "$T/pwned_pipe"
      (cd "$T/gpipe" && timeout $LIMIT mpirun --allow-run-as-root -np 2 "$B/adiflow_mpi" p.nml \
        --run-dir "${lead}touch $T/pwned_pipe;cat>/dev/null;echo " > "$T/gpipe/log" 2>&1); rc=$?
      [ $rc -eq 0 ] && [ ! -e "$T/pwned_pipe" ] && ok "adiflow_mpi: a run folder starting with '$lead' runs no command" \
        || bad "adiflow_mpi: run folder starting with '$lead' (exit $rc)"
    done
  fi
fi

# --- links planted where outputs go are replaced, never followed
echo "precious" > "$T/victim"; VSUM=$(sum "$T/victim")
mkdir -p "$T/lk"; chmod 700 "$T/lk"
for f in residual.dat .adiflow.lock residual.png residual.png.tmp .adiflow.lock.tmp residual.dat.tmp field.dump field.dump.tmp; do
  ln -sf "$T/victim" "$T/lk/$f"
done
nml "ni = 8, nj = 6, nk = 4, max_iter = 4, monitor_interval = 2" "$T/lk.nml"
try "adiflow: links planted at residual.dat, .adiflow.lock, residual.png, field.dump: the run completes" 0 "done; outputs in" \
  ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/lk"
[ "$(sum "$T/victim")" = "$VSUM" ] && [ -f "$T/lk/residual.dat" ] && [ ! -L "$T/lk/residual.dat" ] \
  && [ ! -L "$T/lk/.adiflow.lock" ] && { ! command -v gnuplot > /dev/null || [ ! -L "$T/lk/residual.png" ]; } \
  && [ -f "$T/lk/field.dump" ] && [ ! -L "$T/lk/field.dump" ] \
  && ok "adiflow: the link targets are untouched, the outputs are regular files" \
  || bad "adiflow: a planted link was followed (victim: $(head -c 40 "$T/victim"))"
# a restart reads the old history without following a link either
ln -sf "$T/victim" "$T/lk/residual.dat"
try "adiflow: --restart with a link at residual.dat" 0 "done; outputs in" \
  ./build/adiflow "$T/lk.nml" --backend cpu --restart --max-iter 6 --run-dir "$T/lk"
[ "$(sum "$T/victim")" = "$VSUM" ] && [ ! -L "$T/lk/residual.dat" ] \
  && ok "adiflow: restart: the link at residual.dat replaced, its target untouched" || bad "adiflow: restart followed residual.dat's link"

# --- folders other users may write in, or that another user owns
mkdir -p "$T/ww"; chmod 777 "$T/ww"
try "adiflow: a run folder writable by every user (no sticky bit) is refused" 2 "writable by every user .*chmod go-w" \
  ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/ww"
mkdir -p "$T/gw"; chmod 775 "$T/gw"
try "adiflow: a run folder writable by its group is refused" 2 "writable by its group" \
  ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/gw"
[ -z "$(find "$T/ww" "$T/gw" -mindepth 1)" ] && ok "adiflow: nothing was written in the refused folders" || bad "adiflow: files written in a refused folder"
mkdir -p "$T/sticky"; chmod 1777 "$T/sticky"; ln -s "$T/victim" "$T/sticky/residual.dat"
try "adiflow: our own sticky world-writable folder is accepted" 0 "done; outputs in" \
  ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/sticky"
[ "$(sum "$T/victim")" = "$VSUM" ] && ok "adiflow: in the sticky folder the planted link was not followed" || bad "adiflow: sticky folder: link followed"
if [ "$(id -u)" -eq 0 ] && id nobody > /dev/null 2>&1; then
  # the reproduction: an unprivileged user's shared folder with a link to a root file
  mkdir -p "$T/shared_run"; chown nobody "$T/shared_run"; chmod 777 "$T/shared_run"
  ln -s "$T/victim" "$T/shared_run/residual.dat"
  try "adiflow as root: a folder owned by another user is refused" 2 "belongs to another user" \
    ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/shared_run"
  [ "$(sum "$T/victim")" = "$VSUM" ] && ok "adiflow as root: the other user's link was not followed" || bad "adiflow as root: link followed"
  if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
    try "adiflow_mpi as root: a folder owned by another user is refused" 2 "belongs to another user" \
      mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/lk.nml" --run-dir "$T/shared_run"
  fi
fi
if [ -x build/adiflow_mpi ] && command -v mpirun > /dev/null 2>&1; then
  mkdir -p "$T/mlk"; chmod 700 "$T/mlk"; ln -sf "$T/victim" "$T/mlk/residual.dat"; ln -sf "$T/victim" "$T/mlk/.adiflow.lock"
  try "adiflow_mpi: links at residual.dat and .adiflow.lock: the run completes" 0 "done; outputs in" \
    mpirun --allow-run-as-root -np 2 ./build/adiflow_mpi "$T/lk.nml" --run-dir "$T/mlk"
  [ "$(sum "$T/victim")" = "$VSUM" ] && [ ! -L "$T/mlk/residual.dat" ] && ok "adiflow_mpi: the links were not followed" \
    || bad "adiflow_mpi: a planted link was followed"
fi

# --- outputs that cannot be replaced at the end are found at the start
mkdir -p "$T/slot/flow.vts"
try "adiflow: a folder where flow.vts goes is refused before the solve" 2 "flow.vts\" is a directory: this run could not replace it" \
  ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/slot"
mkdir -p "$T/slot2/.adiflow.lock"
try "adiflow: a folder named .adiflow.lock is named as such" 2 "\.adiflow\.lock\" is a folder, where adiflow keeps its lock file" \
  ./build/adiflow "$T/lk.nml" --backend cpu --run-dir "$T/slot2"
if [ "$(id -u)" -eq 0 ] && id nobody > /dev/null 2>&1 && command -v setpriv > /dev/null 2>&1; then
  # a folder the user cannot write in, holding writable files of an earlier run: refused at the start
  U=$T/as_nobody; mkdir -p "$U/ro"; cp "$T/lk.nml" "$U/"; chmod 755 "$T" "$U"
  setpriv --reuid=nobody --regid=nogroup --clear-groups ./build/adiflow "$U/lk.nml" --backend cpu --run-dir "$U/ro" > /dev/null 2>&1
  touch "$U/ro/restart.bin" "$U/ro/residual.dat"; chown -R nobody "$U/ro"; chmod 666 "$U/ro"/*; chmod 555 "$U/ro"
  start=$(date +%s)
  try "adiflow: a mode-555 run folder is refused at the start" 2 "cannot write in the run folder .*Permission denied" \
    setpriv --reuid=nobody --regid=nogroup --clear-groups ./build/adiflow "$U/lk.nml" --backend cpu --run-dir "$U/ro" --max-iter 3000
  [ $(( $(date +%s) - start )) -lt 10 ] && ok "adiflow: ... and before the solve" || bad "adiflow: the mode-555 folder was found only after the solve"
  chmod 700 "$T"
fi

# --- the lock is the folder itself: deleting .adiflow.lock lets no second run in
nml "ni = 12, nj = 10, nk = 8, max_iter = 100000, monitor_interval = 10, write_plot = .false." "$T/dl.nml"
./build/adiflow "$T/dl.nml" --backend cpu --run-dir "$T/dlk" > "$T/dlk1.log" 2>&1 &
p1=$!
for _ in $(seq 50); do grep -q "^ *10 " "$T/dlk1.log" 2>/dev/null && break; sleep 0.2; done
rm -f "$T/dlk/.adiflow.lock"
try "adiflow: with .adiflow.lock deleted a second run is still refused" 2 "another run .* is using the run folder" \
  ./build/adiflow "$T/dl.nml" --backend cpu --run-dir "$T/dlk"
# a file changed under the run is named as such (not blamed on a full disk)
: > "$T/dlk/residual.dat"
wait $p1; rc=$?
[ $rc -eq 5 ] && grep -q "residual.dat\" was changed by another program" "$T/dlk1.log" \
  && ok "adiflow: residual.dat changed under the run: exit 5 naming the cause" \
  || bad "adiflow: residual.dat changed under the run (exit $rc: $(tail -1 "$T/dlk1.log"))"

# --- SIGHUP and SIGPIPE: a closed terminal or pipe loses nothing
./build/adiflow "$T/dl.nml" --backend cpu --run-dir "$T/hup" > "$T/hup.log" 2>&1 &
p1=$!
for _ in $(seq 50); do grep -q "^ *10 " "$T/hup.log" 2>/dev/null && break; sleep 0.2; done
kill -HUP $p1; wait $p1; rc=$?
[ $rc -eq 130 ] && [ -s "$T/hup/restart.bin" ] && [ -s "$T/hup/flow.vts" ] && grep -q "interrupted by SIGHUP" "$T/hup.log" \
  && ok "adiflow: SIGHUP writes the restart and outputs, exit 130" || bad "adiflow: SIGHUP (exit $rc: $(tail -1 "$T/hup.log"))"
grep -q "to continue: .*adiflow .*dl.nml .*--restart" "$T/hup.log" && grep -q "written: .*restart.bin (iteration" "$T/hup.log" \
  && ok "adiflow: the interrupted run's closing lines name what was written and the command that continues it" \
  || bad "adiflow: no closing line after the interrupt ($(tail -2 "$T/hup.log" | tr '\n' ' '))"
nml "ni = 8, nj = 6, nk = 4, max_iter = 40, monitor_interval = 1, write_plot = .false." "$T/pipe.nml"
timeout $LIMIT ./build/adiflow "$T/pipe.nml" --backend cpu --run-dir "$T/pipe" 2>&1 | head -1 > /dev/null
rc=${PIPESTATUS[0]}
[ $rc -eq 0 ] && [ -s "$T/pipe/restart.bin" ] && [ -s "$T/pipe/flow.vts" ] && [ "$(grep -c '^ ' "$T/pipe/residual.dat")" -eq 40 ] \
  && ok "adiflow | head -1: the closed pipe stops the printing, not the run (exit 0, every output, 40 residual lines)" \
  || bad "adiflow | head -1: exit $rc"

# --- after kill -9 and a restart, residual.dat lists every iteration once
nml "ni = 12, nj = 10, nk = 8, max_iter = 100000, monitor_interval = 1, restart_interval = 7, write_plot = .false." "$T/dup.nml"
./build/adiflow "$T/dup.nml" --backend cpu --run-dir "$T/dup" > "$T/dup.log" 2>&1 &
p1=$!
for _ in $(seq 100); do grep -q "^ *30 " "$T/dup.log" 2>/dev/null && break; sleep 0.1; done
kill -9 $p1; wait $p1 2>/dev/null
it=$(od -An -t d8 -j 32 -N 8 "$T/dup/restart.bin" | tr -d ' ')
try "adiflow: restart after kill -9" 0 "done; outputs in" \
  ./build/adiflow "$T/dup.nml" --backend cpu --restart --max-iter $((it + 5)) --run-dir "$T/dup"
n_iter=$(grep -v '^#' "$T/dup/residual.dat" | awk '{print $1}' | sort -n | uniq -d | wc -l)
last=$(tail -1 "$T/dup/residual.dat" | awk '{print $1}')
[ "$n_iter" -eq 0 ] && [ "$last" -eq $((it + 5)) ] && [ "$(grep -c '^#' "$T/dup/residual.dat")" -eq 1 ] \
  && ok "adiflow: after kill -9 and a restart residual.dat lists each iteration once (1..$last)" \
  || bad "adiflow: residual.dat after kill -9 and restart has $n_iter repeated iterations"

# --- snapshot names past iteration 10^7 keep their digits (they were flow_*******.vts)
[ -x build/dump_fixtures ] || make -s build/dump_fixtures > /dev/null 2>&1
if [ -x build/dump_fixtures ]; then
  mkdir -p "$T/big_it"; cp "$T/good/restart.bin" "$T/big_it/restart.bin"
  printf '%016x' 9999998 | sed 's/../& /g' | awk '{for (i = NF; i >= 1; i--) printf "\\x%s", $i}' > "$T/it_le.txt"
  printf "$(cat "$T/it_le.txt")" | dd of="$T/big_it/restart.bin" bs=1 seek=32 conv=notrunc 2> /dev/null
  ./build/dump_fixtures --reseal "$T/big_it/restart.bin" > /dev/null 2>&1
  nml "ni = 8, nj = 6, nk = 4, max_iter = 10000003, monitor_interval = 1, output_interval = 1, write_plot = .false." \
    "$T/big_it.nml"
  try "adiflow: a restart at iteration 9999998 with a snapshot every iteration" 0 "done; outputs in" \
    ./build/adiflow "$T/big_it.nml" --backend cpu --restart --run-dir "$T/big_it"
  names=$(cd "$T/big_it" && ls flow_*.vts 2> /dev/null | tr '\n' ' ')
  [ "$names" = "flow_09999999.vts flow_10000000.vts flow_10000001.vts flow_10000002.vts " ] \
    && ok "adiflow: snapshots 9999999..10000002 have four names of 8 digits" || bad "adiflow: snapshot names past 10^7: $names"
fi

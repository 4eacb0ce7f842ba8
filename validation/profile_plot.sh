# Sourced (bash) by validation/run_ghia.sh, validation/run_cube.sh and
# validation/ghia_run.sh: the plot of a run's two centreline profiles against a
# reference table, and the checks that the plot is usable. One copy, so that
# every page's plot is drawn and checked the same way.
#
# plot_tools_ok: 0 when gnuplot with the pngcairo terminal is there; else 1,
#   and the reason on stdout.
# profile_plot PNG TITLE REF_NAME REF_U REF_V RUN_DIR NREF_U NREF_V
#   draws RUN_DIR/centreline_u.csv and centreline_v.csv (header line, then
#   position,value) with the reference tables REF_U (y,u) and REF_V (x,v)
#   ('#' lines and a header are skipped; columns past the second are not
#   used) into PNG. Prints nothing when the plot is usable; otherwise one
#   line saying why not: gnuplot failed or warned, the plot does not hold the
#   NREF_U + NREF_V reference points, lacks the run's profiles, or no PNG was
#   written, or a name holds a quote or a line break (the strings reach
#   gnuplot inside its script, quoted; those two could end the quote).

plot_tools_ok() {
  if ! command -v gnuplot > /dev/null; then
    echo "gnuplot not found"; return 1
  fi
  if ! gnuplot -e 'set terminal pngcairo' < /dev/null > /dev/null 2>&1; then
    echo "this gnuplot has no pngcairo terminal"; return 1
  fi
  return 0
}

profile_plot() {
  local png=$1 title=$2 refname=$3 ref_u=$4 ref_v=$5 d=$6 nref_u=$7 nref_v=$8 plog prc why="" a
  # the strings go into gnuplot's script inside '...', where only a quote or
  # a line break could end them: such a name is refused, never drawn
  for a in "$png" "$title" "$refname" "$ref_u" "$ref_v" "$d"; do
    case $a in *"'"*|*$'\n'*|*$'\r'*) echo "a name holds a quote or a line break, which gnuplot's script cannot take: $a"; return;; esac
  done
  # stats first: each file's point count, checked below (a plot without the
  # reference points is not kept)
  plog=$(gnuplot 2>&1 <<GP
set print '-'
set datafile separator ','
STATS_records = -1
stats '$ref_u' u 2:1 nooutput
print sprintf('COUNT ref_u %d', STATS_records)
STATS_records = -1
stats '$ref_v' u 1:2 nooutput
print sprintf('COUNT ref_v %d', STATS_records)
STATS_records = -1
stats '$d/centreline_u.csv' every ::1 u 2:1 nooutput
print sprintf('COUNT ours_u %d', STATS_records)
STATS_records = -1
stats '$d/centreline_v.csv' every ::1 u 1:2 nooutput
print sprintf('COUNT ours_v %d', STATS_records)
set terminal pngcairo size 1100,500 noenhanced
set output '$png'
set multiplot layout 1,2 title '$title'
set grid; set key left top
set xlabel 'u'; set ylabel 'y'; set title 'u on the vertical centreline'
plot '$d/centreline_u.csv' every ::1 u 2:1 w l lw 2 t 'adiflow', '$ref_u' u 2:1 w p pt 7 t '$refname'
set xlabel 'x'; set ylabel 'v'; set title 'v on the horizontal centreline'; set key right top
plot '$d/centreline_v.csv' every ::1 u 1:2 w l lw 2 t 'adiflow', '$ref_v' u 1:2 w p pt 7 t '$refname'
unset multiplot
unset output
GP
)
  prc=$?
  [ $prc -ne 0 ] && why="gnuplot exited with $prc"
  grep -q -i -E 'warning|error' <<< "$plog" && why="gnuplot: $(grep -i -m 1 -E 'warning|error' <<< "$plog" | sed 's/^ *//')"
  grep -q "^COUNT ref_u $nref_u\$" <<< "$plog" && grep -q "^COUNT ref_v $nref_v\$" <<< "$plog" ||
    why="${why:-the plot does not hold the reference's $nref_u + $nref_v points ($(grep '^COUNT ref' <<< "$plog" | tr '\n' ' '))}"
  [ "$(awk '$1 == "COUNT" && $2 ~ /^ours/ && $3 >= 2' <<< "$plog" | wc -l)" -eq 2 ] || why="${why:-the plot lacks adiflow's profiles}"
  [ "$(head -c 4 "$png" 2> /dev/null | tail -c 3)" = PNG ] || why="${why:-no PNG was written}"
  [ -z "$why" ] || echo "$why"
}

#!/usr/bin/env bash
# The Ghia, Ghia & Shin (1982) comparison of one finished run (make run calls
# it for runs/cavity_default): build/ghia_compare on the run's centrelines,
# whose largest differences are printed, and with gnuplot the plot
# RUN_DIR/ghia_re<RE>.png of the profiles against Ghia's points (drawn and
# checked by validation/profile_plot.sh, as make validate's plots are).
#
#   validation/ghia_run.sh RUN_DIR RE [BOUND]
#
# RE: 100, 400 or 1000 (Ghia's tables in validation/data/ghia1982). BOUND
# (default 0.02, make validate's for Re = 100 and 400 at 128x128) is only
# reported against: this is a look at a run, not a validation, so a run
# outside it still exits 0 (make validate is the check).
# Exit status: 0 compared (within the bound or not); 2 bad arguments, a run
# folder without its profiles, or reference data that cannot be read.
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
G=validation/data/ghia1982
die() { echo "ghia: error: $*" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: validation/ghia_run.sh RUN_DIR RE [BOUND]"
d=$1; re=$2; bound=${3:-0.02}
case $re in 100|400|1000) ;; *) die "RE $re: Ghia's tables are for 100, 400 and 1000";; esac
awk -v x="$bound" 'BEGIN { exit !(x + 0 == x && x >= 0) }' || die "BOUND $bound: a number >= 0"
[ -x "$B/ghia_compare" ] || die "$B/ghia_compare not found: build it first (make)"
for f in centreline_u.csv centreline_v.csv; do
  [ -s "$d/$f" ] || die "$d/$f is missing or empty (write_profiles off, or the run did not finish?)"
done
ref_u=$G/ghia1982_Re${re}_u_vertical_centerline.csv; ref_v=$G/ghia1982_Re${re}_v_horizontal_centerline.csv
extra=(); [ "$re" = 400 ] && extra=(--exclude-v 0.9063)    # Ghia's Re=400 misprint, as make validate
res=$("$B/ghia_compare" "$d/centreline_u.csv" "$ref_u" "$d/centreline_v.csv" "$ref_v" "$bound" "${extra[@]}" \
      --label "Re=$re" 2>&1)
rc=$?
[ $rc -le 1 ] || die "the comparison could not be made:"$'\n'"$res"
# the summary only: the station table is long for make run's screen
echo "ghia: $d against Ghia et al. (1982), Re=$re: $(grep '^max |u' <<< "$res" |
  sed "s/bound \([0-9.]*\): PASS/within $bound/; s/bound \([0-9.]*\): FAIL/OUTSIDE $bound (make validate's bound at 128x128)/")"
grep '^excluded station' <<< "$res" | sed 's/^/ghia: /'
. validation/profile_plot.sh
if ! why=$(plot_tools_ok); then
  echo "ghia: note: $why: the plot is skipped"
else
  png=$d/ghia_re$re.png
  nu=$(grep -c '^  u(y) ' <<< "$res"); nv=$(grep -c '^  v(x) ' <<< "$res")
  why=$(profile_plot "$png" "Lid-driven cavity Re=$re ($d), Mach 0.1: adiflow vs Ghia et al. (1982)" 'Ghia 1982' \
    "$ref_u" "$ref_v" "$d" "$nu" "$nv")
  if [ -n "$why" ]; then echo "ghia: the plot is not usable: $why"; rm -f "$png"; else echo "ghia: plot: $png"; fi
fi
exit 0

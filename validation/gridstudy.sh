#!/usr/bin/env bash
# Grid-convergence study of the lid-driven cavity (make gridstudy): runs one
# case per Reynolds number and grid, each to its tolerance, then
# build/gridstudy (validation/gridstudy.c) gives per Reynolds number the
# observed order of the centreline extrema and profiles, their
# Richardson-extrapolated values, Roache's GCI and the error of each grid
# against the extrapolated value; a Markdown page, and with gnuplot one PNG per
# Reynolds number (the profiles of every grid and the extrapolated one).
#
#   validation/gridstudy.sh [--geometry cube|quasi2d] [--re 100,400,1000] [--grids 32,64,128]
#       [--backend auto|cpu|gpu] [--kernels split|merged] [--mach 0.1] [--roe-low-mach rieper|none]
#       [--limiter venkat|vanleer|vanalbada|minmod] [--limiter-k 5] [--beta 1.2] [--tol 1e-7] [--max-iter N]
#       [--run-root DIR] [--out DIR] [--tag NAME] [--reuse] [--analyse-only] [--time-limit SECONDS]
#       [--mg-levels N] [--mg-cycle v|w] [--no-plots]
#
# Defaults: the issue's study, the cube at Re = 100, 400, 1000 on 32^3, 64^3,
# 128^3 (beta 1.2, lid Mach 0.1, the solver's defaults rieper + venkat, K = 5),
# each to a residual drop of 1e-7, backend auto. 128^3 is GPU work; with
# --mg-levels 5 two CPU cores do the cube at --grids 16,32,64 in about half an
# hour (64^3 at Re = 1000 takes most of it), and --geometry quasi2d (one
# periodic cell in z) up to 128.
#
#   --reuse         keep runs that converged with the same case file; a run that
#                   stopped before it (interrupted, time limit) continues from its
#                   restart.bin
#   --analyse-only  no runs: analyse the converged runs under --run-root (e.g. the
#                   profiles fetched from a GPU machine) and draw the plots
#   --mg-levels N   FAS multigrid with N levels (the &multigrid group; default 1, the
#                   single-grid solver): the same converged solution in far fewer
#                   iterations, with CFL 10 as the shipped multigrid decks; --mg-cycle
#                   v or w (default w)
#   --time-limit S  stop after S seconds of runs: the run in progress is interrupted
#                   (SIGINT: it writes its restart) and --reuse continues it; for the
#                   GPU machine's 10-minute commands
#
# Runs go to RUN_ROOT/TAG/re<Re>_n<N>/ (case.nml, run.log, the profiles);
# TAG defaults to <geometry>_M<mach>_<roe_low_mach>_<limiter>. The page is
# OUT/TAG.md, the plots OUT/TAG_re<Re>.png (OUT: validation/gridstudy).
# Exit status: 0 every run converged and was analysed; 1 a run failed or ran to
# max_iter without converging; 2 bad arguments or missing executables;
# 3 the time limit stopped the runs (run again with --reuse).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
geometry=cube; res=100,400,1000; grids=32,64,128; backend=auto; kernels=""; mach=0.1; roe=rieper
limiter=venkat; limk=5; beta=1.2; tol=1e-7; maxit=400000; root=runs/gridstudy; out=validation/gridstudy; tag=""
reuse=0; analyse_only=0; tlimit=0; plots=1; mglev=1; mgcyc=w
die() { echo "gridstudy: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --geometry|--re|--grids|--backend|--kernels|--mach|--roe-low-mach|--limiter|--limiter-k|--beta|--tol|--max-iter|\
    --run-root|--out|--tag|--time-limit|--mg-levels|--mg-cycle)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --geometry) geometry=$2;; --re) res=$2;; --grids) grids=$2;; --backend) backend=$2;;
        --kernels) kernels=$2;; --mach) mach=$2;; --roe-low-mach) roe=$2;; --limiter) limiter=$2;; --limiter-k) limk=$2;;
        --beta) beta=$2;; --tol) tol=$2;; --max-iter) maxit=$2;; --run-root) root=$2;; --out) out=$2;;
        --tag) tag=$2;; --time-limit) tlimit=$2;; --mg-levels) mglev=$2;; --mg-cycle) mgcyc=$2;;
      esac
      shift 2;;
    --reuse) reuse=1; shift;;
    --analyse-only) analyse_only=1; reuse=1; shift;;
    --no-plots) plots=0; shift;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
    *) die "unknown argument $1 (see --help)";;
  esac
done

# ---- arguments and tools, before any run ----
isnum() { awk -v x="$1" 'BEGIN { exit !(x + 0 == x && x > 0) }'; }
case $geometry in cube|quasi2d) ;; *) die "--geometry $geometry: use cube or quasi2d";; esac
case $backend in auto|cpu|gpu|cuda|hip) ;; *) die "--backend $backend: use auto, cpu or gpu";; esac
case $kernels in ""|split|merged) ;; *) die "--kernels $kernels: use split or merged";; esac
case $roe in none|rieper) ;; *) die "--roe-low-mach $roe: use none or rieper";; esac
case $limiter in vanalbada|minmod|vanleer|venkat) ;; *) die "--limiter $limiter: use vanalbada, minmod, vanleer or venkat";; esac
isnum "$limk" || die "--limiter-k $limk: a number > 0"
isnum "$mach" || die "--mach $mach: a number > 0"
awk -v x="$beta" 'BEGIN { exit !(x + 0 == x && x >= 0 && x <= 10) }' || die "--beta $beta: a number 0..10"
awk -v x="$tol" 'BEGIN { exit !(x + 0 == x && x > 0 && x < 1) }' || die "--tol $tol: a number in (0, 1)"
[[ $maxit =~ ^[0-9]+$ ]] && [ "$maxit" -gt 0 ] || die "--max-iter $maxit: a whole number > 0"
[[ $tlimit =~ ^[0-9]+$ ]] || die "--time-limit $tlimit: whole seconds"
[[ $mglev =~ ^[1-6]$ ]] || die "--mg-levels $mglev: 1 to 6"
case $mgcyc in v|w) ;; *) die "--mg-cycle $mgcyc: use v or w";; esac
IFS=, read -r -a RES <<< "$res"
IFS=, read -r -a NS <<< "$grids"
[ ${#RES[@]} -ge 1 ] || die "--re: give at least one Reynolds number"
for re in "${RES[@]}"; do isnum "$re" || die "--re: $re is not a number > 0"; done
[ ${#NS[@]} -ge 3 ] || die "--grids $grids: give at least three grid sizes"
for n in "${NS[@]}"; do [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 4 ] && [ "$n" -le 4096 ] || die "--grids: $n is not a size 4..4096"; done
[ "$(printf '%s\n' "${NS[@]}" | sort -n | uniq | wc -l)" -eq ${#NS[@]} ] || die "--grids $grids: the sizes must differ"
if [ -z "$tag" ]; then
  tag=${geometry}_M${mach}_${roe}_${limiter}
  [ $limiter = venkat ] && tag=${tag}_k$limk
fi
[[ $tag =~ ^[A-Za-z0-9._-]+$ ]] || die "--tag $tag: letters, digits, . _ - only"
[ -x "$B/gridstudy" ] || die "$B/gridstudy not found: build it first (make)"
[ $analyse_only = 1 ] || [ -x "$B/adiflow" ] || die "$B/adiflow not found: build it first (make)"
mkdir -p "$root/$tag" 2> /dev/null && [ -w "$root/$tag" ] || die "cannot write in $root/$tag"
mkdir -p "$out" 2> /dev/null && [ -w "$out" ] || die "cannot write in $out"
G=validation/data/ghia1982
if [ $plots = 0 ]; then
  :
elif ! command -v gnuplot > /dev/null; then
  plots=0; echo "gridstudy: note: gnuplot not found: the plots are skipped (the table is still written;" \
    "--analyse-only redraws them where gnuplot is)"
elif ! gnuplot -e 'set terminal pngcairo' < /dev/null > /dev/null 2>&1; then
  plots=0; echo "gridstudy: note: this gnuplot has no pngcairo terminal: the plots are skipped"
fi

# case_text RE N: the case file of one run
case_text() {
  local re=$1 n=$2 lz=1.0 nk=$2 bck="'wall'" bz=$beta cfl=10.0 cfl0=1.0
  if [ $geometry = quasi2d ]; then
    lz=$(awk -v n="$n" 'BEGIN { printf "%.17g", 1.0/n }'); nk=1; bck="'periodic'"; bz=0.0; cfl=30.0; cfl0=2.0
  fi
  [ "$mglev" -gt 1 ] && cfl=10.0
  cat <<NML
! gridstudy $tag: Re=$re, $n cells per direction (generated by validation/gridstudy.sh)
&adiflow
  title = 'gridstudy $geometry Re=$re n=$n M=$mach $roe $limiter'
  ni = $n, nj = $n, nk = $nk
  lx = 1.0, ly = 1.0, lz = $lz
  beta_x = $beta, beta_y = $beta, beta_z = $bz
  reynolds = $re, mach = $mach
  bc_kmin = $bck, bc_kmax = $bck
  order = 2, limiter = '$limiter', limiter_k = $limk, roe_low_mach = '$roe'
  cfl = $cfl, cfl_start = $cfl0, cfl_ramp_iters = 200
  tol = $tol, mass_fix = .true.
  max_iter = $maxit
  monitor_interval = 100, restart_interval = 2000
  write_vtk = .false., write_tecplot = .false., write_dump = .false., write_plot = .false.
/
NML
  if [ "$mglev" -gt 1 ]; then printf '&multigrid\n  levels = %s, cycle = %s\n/\n' "$mglev" "'$mgcyc'"; fi
}
converged() { grep -q "converged at iteration" "$1/run.log" 2> /dev/null && [ -s "$1/centreline_u.csv" ] && [ -s "$1/centreline_v.csv" ]; }

# ---- runs ----
t_start=$(date +%s); status=0; stopped=0
declare -A INFO
for re in "${RES[@]}"; do
  for n in "${NS[@]}"; do
    d=$root/$tag/re${re}_n$n
    new=$(case_text "$re" "$n")
    # the same case but for max_iter: a converged run stays valid, a stopped
    # one may go on to the new max_iter
    same=0
    [ -f "$d/case.nml" ] && [ "$(grep -v max_iter "$d/case.nml")" = "$(grep -v max_iter <<< "$new")" ] && same=1
    if [ $reuse = 1 ] && [ $same = 1 ] && converged "$d"; then
      INFO[$re,$n]="$(grep -o 'converged at iteration [0-9]*' "$d/run.log" | tail -n 1)"
      echo "Re=$re n=$n: reused ($d: ${INFO[$re,$n]})"; continue
    fi
    if [ $analyse_only = 1 ]; then
      echo "Re=$re n=$n: no converged run in $d$([ $same = 0 ] && echo " for this case")"; status=1; continue
    fi
    [ $stopped = 1 ] && continue
    mkdir -p "$d" || die "cannot create $d"
    args=(); [ -n "$kernels" ] && args+=(--kernels "$kernels")
    if [ $reuse = 1 ] && [ $same = 1 ] && [ -s "$d/restart.bin" ]; then
      args+=(--restart); echo "Re=$re n=$n: continuing from $d/restart.bin"
      printf '%s\n' "$new" > "$d/case.nml" || die "cannot write $d/case.nml"
    else
      rm -f "$d/run.log" "$d/centreline_u.csv" "$d/centreline_v.csv" "$d/restart.bin"
      printf '%s\n' "$new" > "$d/case.nml" || die "cannot write $d/case.nml"
    fi
    tmo=()
    if [ "$tlimit" -gt 0 ]; then
      left=$((tlimit - ($(date +%s) - t_start)))
      if [ $left -lt 20 ]; then stopped=1; continue; fi
      tmo=(timeout -s INT -k 60 $left)
    fi
    echo "== Re=$re n=$n: $B/adiflow $d/case.nml --backend $backend ${args[*]} (log: $d/run.log)"
    t0=$(date +%s)
    "${tmo[@]}" "$B/adiflow" "$d/case.nml" --backend "$backend" "${args[@]}" --run-dir "$d" >> "$d/run.log" 2>&1
    rc=$?
    tail -n 2 "$d/run.log" | sed 's/^/   /'
    if [ $rc -eq 130 ] || [ $rc -eq 124 ]; then
      echo "Re=$re n=$n: stopped by the time limit after $(( $(date +%s) - t0 )) s; run again with --reuse to continue"
      stopped=1; continue
    fi
    if [ $rc -ne 0 ] || ! converged "$d"; then
      echo "Re=$re n=$n: did not converge (exit $rc; max_iter $maxit, tol $tol): see $d/run.log"; status=1; continue
    fi
    INFO[$re,$n]="$(grep -o 'converged at iteration [0-9]*' "$d/run.log" | tail -n 1), $(( $(date +%s) - t0 )) s"
  done
done
if [ $stopped = 1 ]; then echo "gridstudy: the time limit stopped the runs; run again with --reuse"; exit 3; fi

# ---- analysis, plots, page ----
rows=(); ghia_rows=(); notes=(); pngs=()
for re in "${RES[@]}"; do
  dirs=(); ok=1
  for n in "${NS[@]}"; do
    d=$root/$tag/re${re}_n$n
    if converged "$d"; then
      dirs+=("$d"); notes+=("Re=$re, n=$n: ${INFO[$re,$n]:-$(grep -o 'converged at iteration [0-9]*' "$d/run.log" | tail -n 1)}")
      continue
    fi
    ok=0
    # say how far a run that did not converge got (iteration, residual drop in orders)
    last=$(grep -E '^ +[0-9]+ +[0-9.]+ ' "$d/run.log" 2> /dev/null | tail -n 1 | awk '{print $1, $8}')
    if [ -n "$last" ]; then
      notes+=("Re=$re, n=$n: NOT converged: stopped at iteration ${last% *} with a residual drop of ${last#* } orders")
    else
      notes+=("Re=$re, n=$n: no run")
    fi
  done
  if [ $ok = 0 ]; then notes+=("Re=$re: not every grid has a converged run; no analysis"); status=1; continue; fi
  ext=$root/$tag/re${re}_extrapolated
  mkdir -p "$ext"
  res_out=$("$B/gridstudy" --label "Re=$re" --out "$ext/profile" "${dirs[@]}" 2>&1); grc=$?
  echo "$res_out" | grep -v '^MD:'
  [ $grc -eq 0 ] || { notes+=("Re=$re: gridstudy failed (exit $grc)"); status=1; continue; }
  while IFS= read -r l; do rows+=("$l"); done < <(sed -n 's/^MD: //p' <<< "$res_out")
  # the extrapolated profiles as a run folder (ghia_compare and the plot read them)
  [ -f "$ext/profile_u.csv" ] && cp "$ext/profile_u.csv" "$ext/centreline_u.csv"
  [ -f "$ext/profile_v.csv" ] && cp "$ext/profile_v.csv" "$ext/centreline_v.csv"
  gu=$G/ghia1982_Re${re}_u_vertical_centerline.csv; gv=$G/ghia1982_Re${re}_v_horizontal_centerline.csv
  if [ $geometry = quasi2d ] && [ -f "$gu" ] && [ -f "$gv" ] && [ -x "$B/ghia_compare" ]; then
    line="| Re=$re |"
    for d in "${dirs[@]}" "$ext"; do
      [ -s "$d/centreline_u.csv" ] || { line+=" - |"; continue; }
      g=$("$B/ghia_compare" "$d/centreline_u.csv" "$gu" "$d/centreline_v.csv" "$gv" 1 \
          $([ "$re" = 400 ] && echo "--exclude-v 0.9063") 2>&1)
      line+=" $(sed -n 's/^max |u - u_Ghia| = \([0-9.]*\), max |v - v_Ghia| = \([0-9.]*\).*/\1 \/ \2/p' <<< "$g") |"
    done
    ghia_rows+=("$line")
  fi
  if [ $plots = 1 ]; then
    png=$out/${tag}_re$re.png
    plotu=""; plotv=""
    for d in "${dirs[@]}"; do
      n=${d##*_n}
      plotu+="'$d/centreline_u.csv' every ::1 u 2:1 w l lw 1.5 t '$n', "
      plotv+="'$d/centreline_v.csv' every ::1 u 1:2 w l lw 1.5 t '$n', "
    done
    if [ -s "$ext/centreline_u.csv" ]; then
      plotu+="'$ext/centreline_u.csv' every ::1 u 2:1 w l lw 2 dt 2 lc rgb 'black' t 'Richardson', "
      plotv+="'$ext/centreline_v.csv' every ::1 u 1:2 w l lw 2 dt 2 lc rgb 'black' t 'Richardson', "
    fi
    if [ $geometry = quasi2d ] && [ -f "$gu" ]; then
      plotu+="'$gu' u 2:1 w p pt 7 ps 0.8 lc rgb 'red' t 'Ghia 1982', "
      plotv+="'$gv' u 1:2 w p pt 7 ps 0.8 lc rgb 'red' t 'Ghia 1982', "
    fi
    plog=$(gnuplot 2>&1 <<GP
set datafile separator ','
set terminal pngcairo size 1100,500 noenhanced
set output '$png'
set multiplot layout 1,2 title 'Grid study $geometry Re=$re (lid Mach $mach, roe_low_mach $roe, $limiter): profiles per grid and Richardson'
set grid; set key left top
set xlabel 'u'; set ylabel 'y'; set title 'u on the vertical centreline'
plot ${plotu%, }
set xlabel 'x'; set ylabel 'v'; set title 'v on the horizontal centreline'; set key right top
plot ${plotv%, }
unset multiplot
unset output
GP
)
    if [ $? -ne 0 ] || grep -qiE 'error' <<< "$plog" || [ "$(head -c 4 "$png" 2> /dev/null | tail -c 3)" != PNG ]; then
      notes+=("Re=$re: the plot failed: $(grep -i -m 1 error <<< "$plog")"); rm -f "$png"
    else
      pngs+=("$png")
    fi
  fi
done

page=$out/$tag.md
tmp=$(mktemp "$out/.gridstudy.XXXXXX") || die "cannot write in $out"
{
  echo "# Grid study: $geometry, lid Mach $mach, roe_low_mach $roe, limiter $limiter"
  echo
  if [ $analyse_only = 1 ]; then
    echo "Produced by \`validation/gridstudy.sh --analyse-only\` ($(date -u +%Y-%m-%d)) from the converged runs under $root/$tag:"
  else
    echo "Produced by \`validation/gridstudy.sh\` ($(date -u +%Y-%m-%d), $(uname -m), backend $backend$([ -n "$kernels" ] && echo ", $kernels kernels")):"
  fi
  echo "grids $(printf '%s ' "${NS[@]}")cells per direction$([ $geometry = quasi2d ] && echo " (one periodic cell in z)"), tanh clustering"
  echo "beta $beta, MUSCL order 2, mass_fix, each run to a residual drop of $tol$([ "$mglev" -gt 1 ] && echo " (FAS multigrid, $mglev levels, $mgcyc-cycles)")."
  echo "Observed order p, Richardson extrapolation and GCI (safety factor 1.25) from the three finest grids"
  echo "(Celik et al. 2008); extrema located by a parabola through the discrete extremum. Values per grid, coarse to fine;"
  echo "'p coarser' is the order of the next coarser triple (a check of the asymptotic range)."
  echo
  echo "| case | quantity | value per grid | p | p coarser | Richardson | GCI fine | error per grid vs Richardson |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  if [ ${#ghia_rows[@]} -gt 0 ]; then
    echo
    echo "Against Ghia et al. (1982) (129x129, itself second order), max |u - u_Ghia| / max |v - v_Ghia|"
    echo "at Ghia's stations (Re=400: v(0.9063) excluded, a misprint):"
    echo
    h="| case |"; s="|---|"; for n in "${NS[@]}"; do h+=" n=$n |"; s+="---|"; done
    echo "$h Richardson |"; echo "$s---|"
    printf '%s\n' "${ghia_rows[@]}"
  fi
  echo
  echo "Runs:"
  for l in "${notes[@]}"; do echo "- $l"; done
  if [ ${#pngs[@]} -gt 0 ]; then echo; echo "Plots: $(printf '%s ' "${pngs[@]}")"; fi
  if [ $plots = 0 ]; then echo; echo "Plots: none drawn (--no-plots, or no gnuplot with pngcairo here)."; fi
} > "$tmp" && chmod 644 "$tmp" && mv -f "$tmp" "$page" || die "cannot write $page"
echo "wrote $page$([ ${#pngs[@]} -gt 0 ] && echo " and ${#pngs[@]} plot(s)")"
exit $status

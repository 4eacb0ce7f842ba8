# What the multi-GPU device scripts (bench/device_mpi.sh, bench/device_mpi_mg.sh)
# share; sourced from the repository root after `cd`. Sets LD_LIBRARY_PATH
# where build/adiflow_mpi lacks OpenMPI's Fortran bindings (carried in
# build/mpilibs), and the readers of a run's output.
if ldd build/adiflow_mpi | grep -q "not found"; then
  export LD_LIBRARY_PATH=$PWD/build/mpilibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "(OpenMPI Fortran bindings from build/mpilibs)"
fi
# s/iter (s/cycle) of a log's last progress line (three digits)
spi() { grep -E '^ +[0-9]+ ' "$1" | tail -n 1 | awk '{print $9}'; }
# s/cycle of a run of N iterations to five digits: (the time line's iterations - the first
# iteration, which carries the start-up) / (N - 1); the progress line's where the time line is missing
spc() {
  local v
  v=$(awk -v n="$2" '/first iteration:/ {f = $3} /time: set-up/ {for (i = 1; i < NF; i++) if ($i == "iterations") it = $(i + 1)}
        END {if (f != "" && it != "" && n > 1) printf "%.5f", (it - f)/(n - 1)}' "$1")
  [ -n "$v" ] && echo "$v" || spi "$1"
}
same() { cmp -s "$1" "$2" && echo "bit-identical" || echo "DIFFERENT"; }
# residual.dat without its s/iter column
hist() { grep -v '^#' "$1" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'; }
# efficiency: eff T1 TN F = T1 / (F * TN) (F = the GPUs for strong scaling, 1 for weak)
eff() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { if (a > 0 && b > 0) printf "%.1f %%", 100*a/(f*b); else print "n/a" }'; }

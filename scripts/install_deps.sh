#!/usr/bin/env bash
# Installs what adiflow's build, run and tests need, from Debian/Ubuntu
# packages, only when missing. Called by the Makefile, per target: base
# (gfortran, gcc, make, gnuplot-nox) for make, make run and make validate;
# mpi (OpenMPI) for make mpi and make test; hip for make hip. Safe to run
# again. Usage: scripts/install_deps.sh [base|mpi|hip|all]
set -euo pipefail
what="${1:-base}"

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
case "$what" in
  base|all)
    have_cmd gfortran || need+=(gfortran)
    have_cmd gcc || need+=(gcc)
    have_cmd make || need+=(make)
    have_cmd gnuplot || need+=(gnuplot-nox)
    ;;&
  mpi|all)
    have_cmd mpicc || need+=(libopenmpi-dev openmpi-bin)
    ;;&
  hip|all)
    have_cmd hipcc || need+=(hipcc libamdhip64-dev)
    ;;
esac

[ ${#need[@]} -eq 0 ] && exit 0
echo "install_deps: installing ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then SUDO="sudo"; else
    echo "install_deps: need root to install ${need[*]}; run: apt-get install ${need[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

#!/usr/bin/env bash
# Installs what adiflow's build, run and tests need, from Debian/Ubuntu
# packages, only when missing. The Makefile runs it when a target's own check
# finds one of the commands it needs missing, with that target's set: base
# (gfortran, gcc, make, gnuplot-nox, and libcgns-dev for CGNS grid files:
# without it the build works and says so when a CGNS file is asked for) for
# make, make run and make validate;
# mpi (OpenMPI) for make mpi; test (OpenMPI, and python3-vtk9 with numpy for
# tests/suites/check_outputs_vtk.py, which reads the outputs as ParaView does; and
# cgns-convert, whose plot3d_to_cgns / cgns_to_plot3d write the Plot3D files
# of other programs that tests/unit/test_plot3d.f90 reads) for make test; hip for
# make hip. Safe to run
# again. Usage: scripts/install_deps.sh [base|mpi|test|hip|foam|all]
# foam: OpenFOAM v1912 and its headers for make foam (modules/foam/scripts/install_foam.sh).
set -euo pipefail
what="${1:-base}"
[ "$what" = foam ] && exec bash "$(dirname "$0")/../modules/foam/scripts/install_foam.sh"

need=()      # without these the target cannot build or run
optional=()  # gnuplot: only the residual plot needs it; a run without it says "plot skipped";
             # libcgns-dev: only CGNS grid files need it; a build without it refuses them, saying why
test_only=() # python3-vtk9, numpy, cgns-convert: without them the VTK reader checks and the CGNS round trips of make test are skipped with a note
have_cmd() { command -v "$1" >/dev/null 2>&1; }
# Debian's vtk module is for its own /usr/bin/python3 (a python3 earlier in PATH may not see it)
have_py_vtk() { for py in python3 /usr/bin/python3; do "$py" -c 'import vtkmodules.vtkIOXML, numpy' 2>/dev/null && return 0; done; return 1; }
case "$what" in
  base|all)
    have_cmd gfortran || need+=(gfortran)
    have_cmd gcc || need+=(gcc)
    have_cmd make || need+=(make)
    have_cmd gnuplot || optional+=(gnuplot-nox)
    [ -f /usr/include/cgnslib.h ] || optional+=(libcgns-dev)
    ;;&
  mpi|test|all)
    have_cmd mpicc || need+=(libopenmpi-dev openmpi-bin)
    ;;&
  test|all)
    have_py_vtk || test_only+=(python3-vtk9 python3-numpy)
    have_cmd cgns_to_plot3d || test_only+=(cgns-convert)
    ;;&
  hip|all)
    have_cmd hipcc || need+=(hipcc libamdhip64-dev)
    ;;
esac

[ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && [ ${#test_only[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo && sudo -n true 2>/dev/null; then SUDO="sudo"; else
    [ ${#optional[@]} -gt 0 ] && echo "install_deps: note: ${optional[*]} not installed (optional: gnuplot-nox for the residual plot, libcgns-dev for CGNS grid files)" >&2
    [ ${#test_only[@]} -gt 0 ] && echo "install_deps: note: ${test_only[*]} not installed (the VTK reader checks or CGNS round trips of make test are skipped)" >&2
    [ ${#need[@]} -eq 0 ] && exit 0
    echo "install_deps: error: ${need[*]} missing, and installing needs root: run  sudo apt-get install ${need[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
echo "install_deps: installing ${need[*]} ${optional[*]} ${test_only[*]}"
$SUDO apt-get update -qq >/dev/null 2>&1 || true
if [ ${#optional[@]} -gt 0 ] && ! $SUDO apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null 2>&1; then
  echo "install_deps: note: could not install ${optional[*]} (no network or no such package): runs skip the residual plot (gnuplot-nox), the build has no CGNS support (libcgns-dev)" >&2
fi
if [ ${#test_only[@]} -gt 0 ] && ! $SUDO apt-get install -y -qq --no-install-recommends "${test_only[@]}" >/dev/null 2>&1; then
  echo "install_deps: note: could not install ${test_only[*]}: make test skips its VTK reader checks or CGNS round trips" >&2
fi
[ ${#need[@]} -eq 0 ] && exit 0
if ! $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" > /tmp/install_deps.$$.log 2>&1; then
  echo "install_deps: error: could not install ${need[*]} (apt-get says: $(grep -E '^E:' /tmp/install_deps.$$.log | head -n 2 | tr '\n' ' '))." >&2
  echo "  Without network access, build on a machine that has the compilers and copy the build/ folder over." >&2
  rm -f /tmp/install_deps.$$.log
  exit 1
fi
rm -f /tmp/install_deps.$$.log

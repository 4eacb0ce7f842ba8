#!/usr/bin/env bash
# Prints make rules of the Fortran compile order, read from the sources'
# `module`, `submodule` and `use` statements (and their `include` /
# `#include` lines): a module's .mod file exists only once its object is
# compiled, so every object that uses it must come after it, also in a
# parallel make. The Makefile includes the output ($(OBJ)/fortran.d), so a
# new module needs no hand-written dependency line.
#
# Usage: scripts/fortran_deps.sh OBJECT SOURCE [OBJECT SOURCE ...]
#   e.g. build/obj/lu_adi.o fortran/lu_adi.f90 build/obj/mpi/adiflow_mpi.o fortran/adiflow_mpi.f90
# Output, one line per object with dependencies:
#   build/obj/lu_adi.o: build/obj/flow_math_sp.o build/obj/kinds.o ...
# Modules that no listed source defines (iso_c_binding, omp_lib, mpi_f08)
# are the compiler's or a library's: no rule. An included file is a
# prerequisite as found beside the source, else in include/.
set -euo pipefail
if [ $# -eq 0 ] || [ $(( $# % 2 )) -ne 0 ]; then
  echo "usage: $0 OBJECT SOURCE [OBJECT SOURCE ...]" >&2
  exit 2
fi
objects=() sources=()
while [ $# -gt 0 ]; do
  [ -r "$2" ] || { echo "fortran_deps: cannot read $2" >&2; exit 1; }
  objects+=("$1"); sources+=("$2"); shift 2
done

awk -v objlist="${objects[*]}" '
BEGIN { nobj = split(objlist, obj, " ") }
FNR == 1 { f++; dir[f] = FILENAME; sub(/[^\/]*$/, "", dir[f]) }
{
  line = $0
  # an include line keeps its quoted name, so read it before comments go
  if (match(line, /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/) || match(line, /^[ \t]*include[ \t]*["\047][^"\047]+["\047]/)) {
    name = substr(line, RSTART, RLENGTH); sub(/^[^"\047]*["\047]/, "", name); sub(/["\047]$/, "", name)
    incs[f] = incs[f] " " name
    next
  }
  sub(/!.*/, "", line)
  line = tolower(line)
  if (match(line, /^[ \t]*module[ \t]+[a-z][a-z0-9_]*[ \t]*$/)) {
    split(line, w, /[ \t]+/); name = (w[1] == "" ? w[3] : w[2])
    defined[name] = f
  } else if (match(line, /^[ \t]*submodule[ \t]*\([ \t]*[a-z][a-z0-9_]*/)) {
    name = substr(line, RSTART, RLENGTH); sub(/.*\([ \t]*/, "", name)
    uses[f] = uses[f] " " name
  } else if (match(line, /^[ \t]*use([ \t]*,[ \t]*non_intrinsic[ \t]*::|[ \t]*::|[ \t]+)[ \t]*[a-z][a-z0-9_]*/)) {
    name = substr(line, RSTART, RLENGTH); sub(/.*[ \t:]/, "", name)
    uses[f] = uses[f] " " name
  }
}
END {
  for (i = 1; i <= f; i++) {
    delete seen; deps = ""
    n = split(uses[i], u, " ")
    for (k = 1; k <= n; k++) {
      if (!(u[k] in defined)) continue
      j = defined[u[k]]
      if (j == i || (obj[j] in seen)) continue
      seen[obj[j]] = 1; deps = deps " " obj[j]
    }
    n = split(incs[i], u, " ")
    for (k = 1; k <= n; k++) {
      path = dir[i] u[k]
      if ((getline junk < path) < 0) path = "include/" u[k]
      else close(path)
      if (path in seen) continue
      seen[path] = 1; deps = deps " " path
    }
    if (deps != "") print obj[i] ":" deps
  }
}' "${sources[@]}"

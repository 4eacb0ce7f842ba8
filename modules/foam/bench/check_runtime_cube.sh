#!/usr/bin/env bash
# modules/foam/bench/check_runtime_cube.sh - proves that build/foam/runtime.tar.xz
# alone runs device_foam_cube.sh, on a machine that has OpenFOAM installed
# (which would otherwise mask a missing piece): in a private mount namespace
# every file of the Debian OpenFOAM packages is hidden (bound over with
# /dev/null, their directories with an empty one), then a small case runs
# with RUNTIME=tar in a clean environment and LD_DEBUG=libs; every shared
# library loaded must come from the runtime or be one that device_foam.sh
# expects the GPU machine to have itself (C/C++ runtime, zlib, OpenMPI and
# what it loads). Needs root (unshare -m). Arguments: none; N, NP, OUT as for
# device_foam_cube.sh (defaults 16, 2, /tmp/foam_cube_rtcheck).
set -u
cd "$(dirname "$0")/../../.." || exit 2
[ -f build/foam/runtime.tar.xz ] || { echo "check_runtime_cube: build/foam/runtime.tar.xz missing (make foam-runtime)" >&2; exit 2; }
command -v unshare > /dev/null || { echo "check_runtime_cube: unshare not found" >&2; exit 2; }
O=${OUT:-/tmp/foam_cube_rtcheck}
rm -rf "$O"; mkdir -p "$O/empty" || exit 2
dpkg -L openfoam libopenfoam openfoam-examples 2>/dev/null | sort -u > "$O/hidden.txt"
[ -s "$O/hidden.txt" ] || { echo "check_runtime_cube: no OpenFOAM packages installed: nothing to hide, run device_foam_cube.sh with RUNTIME=tar directly" >&2; exit 2; }
export O
unshare -m --propagation private bash -c '
    set -u
    while IFS= read -r f; do
        if [ -d "$f" ] && [ ! -L "$f" ]; then :
        elif [ -f "$f" ] && [ ! -L "$f" ]; then mount --bind /dev/null "$f" || exit 3
        fi
    done < "$O/hidden.txt"
    mount --bind "$O/empty" /usr/share/openfoam || exit 3
    env -i HOME="$HOME" PATH=/usr/bin:/bin LANG=C N="${N:-16}" NP="${NP:-2}" RUNTIME=tar \
        OUT="$O/run" RT="$O/rt" LD_DEBUG=libs LD_DEBUG_OUTPUT="$O/ld" \
        bash modules/foam/bench/device_foam_cube.sh
'
rc=$?
# every library the dynamic loader initialised in an OpenFOAM process
# (LD_DEBUG also traces bash, awk, mpirun...: those are not the runtime's)
progs=$(grep -lE 'initialize program: (simpleFoam|blockMesh|decomposePar)$' "$O"/ld.* 2>/dev/null)
[ -n "$progs" ] || { echo "check_runtime_cube: no LD_DEBUG output of an OpenFOAM program: cannot audit"; exit 2; }
loaded=$(for f in $progs; do sed -n 's/.*calling init: \(\/[^ ]*\).*/\1/p' "$f"; done | sort -u)
ours=$(echo "$loaded" | grep "^$O/rt/openfoam/")
theirs=$(echo "$loaded" | grep -v "^$O/rt/openfoam/")
# allowed from the machine: what device_foam.sh leaves to it (C/C++ runtime,
# zlib) and the OpenMPI stack with its plugins and their dependencies
ok='^(libc|libm|libdl|libpthread|librt|libutil|libresolv|ld-linux.*|libstdc\+\+|libgcc_s|libz|libmpi.*|libopen-(rte|pal)|libhwloc|libevent.*|libpmix|libudev|libucp|libucs|libuct|libucm|libfabric|libpsm.*|libinfinipath|libnuma|libuuid|libibverbs|librdmacm|libnl-.*|libmunge|libcap|liblzma|libzstd|libsystemd|libcrypt|libselinux|libpcre.*|libmca_common_.*|mca_.*|pmix_mca_.*)\.so'
bad=$(echo "$theirs" | while IFS= read -r l; do
        [ -n "$l" ] || continue
        b=$(basename "$l")
        if grep -qxF "$l" "$O/hidden.txt" || [ -e "$O/rt/openfoam/lib/$b" ] || ! [[ "$b" =~ $ok ]]; then echo "$l"; fi
      done)
echo "check_runtime_cube: OpenFOAM processes loaded $(echo "$ours" | grep -c .) libraries from the runtime, $(echo "$theirs" | grep -c .) from the machine (C runtime, OpenMPI stack):"
echo "$theirs" | sed 's#.*/##' | tr '\n' ' '; echo
if [ -n "$bad" ]; then echo "check_runtime_cube: FAIL: loaded from outside the runtime and not expected on the GPU machine:"; echo "$bad"; exit 1; fi
[ "$rc" = 0 ] || { echo "check_runtime_cube: FAIL: device_foam_cube.sh exited $rc"; exit 1; }
echo "check_runtime_cube: PASS (OpenFOAM packages hidden, runtime $(du -h build/foam/runtime.tar.xz | cut -f1))"

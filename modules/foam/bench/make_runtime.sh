#!/usr/bin/env bash
# modules/foam/bench/make_runtime.sh - makes build/foam/runtime.tar.xz: the
# trimmed OpenFOAM v1912 runtime that device_foam.sh unpacks on a GPU machine
# that has no OpenFOAM (and no network). Taken from the installed Debian
# packages (scripts/install_deps.sh foam): the binaries the benchmark and the
# equality tests run (icoFoam, blockMesh, decomposePar, reconstructPar,
# foamDictionary), simpleFoam for device_foam_cube.sh (its centreline sampling
# is a `sets` function object inside the run: libsampling, no postProcess),
# OpenFOAM's etc/, the icoFoam cavity tutorial, and every
# shared library they load (the ldd closure plus the libraries OpenFOAM
# dlopens), less those a GPU machine has itself: the C and C++ runtimes, zlib
# and OpenMPI (the machine's own mpirun and libmpi.so.40 are used, OpenFOAM's
# libPstream is ABI-compatible with any OpenMPI 4.x). Prints the sizes.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${1:-build/foam/runtime.tar.xz}
stage=$(mktemp -d "${TMPDIR:-/tmp}/foamrt.XXXXXX")
trap 'rm -rf "$stage"' EXIT
R=$stage/openfoam
mkdir -p "$R/bin" "$R/lib" "$R/share"
bins="icoFoam simpleFoam blockMesh decomposePar reconstructPar foamDictionary"
for b in $bins; do install -m 0755 "$(command -v $b)" "$R/bin/$b"; done
etcdict=$(dpkg -L openfoam | grep '/etc/controlDict$' | sed -n 1p)
cp -r "${etcdict%/etc/controlDict}" "$R/share/openfoam"
tut=$(dpkg -L openfoam-examples | grep 'icoFoam/cavity/cavity/system/controlDict$' | sed -n 1p)
mkdir -p "$R/tutorials" && cp -r "${tut%/system/controlDict}" "$R/tutorials/cavity"
# libraries: the closure of the binaries, and of the libraries OpenFOAM opens by name
extra="/usr/lib/libPstream.so /usr/lib/libdecompose.so /usr/lib/libdecompositionMethods.so /usr/lib/libscotchDecomp.so
       /usr/lib/libreconstruct.so /usr/lib/libgenericPatchFields.so
       /usr/lib/libsampling.so /usr/lib/libfvOptions.so /usr/lib/libincompressibleTurbulenceModels.so"
skip='^(libc|libm|libdl|libpthread|librt|libutil|libresolv|ld-linux.*|libstdc\+\+|libgcc_s|libz|libmpi.*|libopen-(rte|pal)|libhwloc|libevent.*|libpmix|libudev|libucp|libucs|libuct|libucm|libfabric|libpsm.*|libibverbs|librdmacm|libnl-.*|libmunge|libcap|liblzma|libzstd|libsystemd|libcrypt|libselinux|libpcre.*)\.so'
todo=$(for b in $bins; do echo "$R/bin/$b"; done; echo $extra)
seen=" "
while [ -n "$todo" ]; do
    next=""
    for f in $todo; do
        for l in $(ldd "$f" 2>/dev/null | awk '$3 ~ /^\// {print $3}'); do
            base=$(basename "$l")
            case "$seen" in *" $base "*) continue;; esac
            seen="$seen$base "
            [[ "$base" =~ $skip ]] && continue
            cp -L "$l" "$R/lib/$base"
            next="$next $l"
        done
        base=$(basename "$f")
        if [[ "$f" == /usr/lib/* ]] && [ ! -f "$R/lib/$base" ]; then cp -L "$f" "$R/lib/$base"; seen="$seen$base "; fi
    done
    todo=$next
done
# the C++ runtime and zlib, used by device_foam.sh only where the machine lacks them
mkdir -p "$R/lib-fallback"
for l in libstdc++.so.6 libgcc_s.so.1 libz.so.1; do cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')" "$R/lib-fallback/"; done
strip --strip-unneeded "$R"/lib/*.so* "$R"/bin/* 2>/dev/null || true
echo "runtime: $(ls "$R/lib" | wc -l) libraries, $(du -sh "$R" | cut -f1) unpacked"
mkdir -p "$(dirname "$OUT")"
tar -C "$stage" -cf - openfoam | xz -T2 -6 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "runtime: $OUT $(du -h "$OUT" | cut -f1) ($(stat -c %s "$OUT") bytes)"

#!/usr/bin/env bash
# hip/probe_arch.sh HIPCC ARCH... - which of the requested offload targets
# this hipcc can build code for. Compiles a one-line kernel for each; prints
# the ones that work on stdout (one line, space-separated) and, on stderr, a
# warning for each one that does not, saying why and what to do. Exit status
# 1 when none works, or (HIP_ARCH_STRICT=1) when any does not.
# Used by `make hip` (hip/hip.mk); ARCH may carry target features, gfx90a:xnack-.
set -u
hipcc=${1:?usage: probe_arch.sh HIPCC ARCH...}
shift
if ! command -v "$hipcc" >/dev/null 2>&1; then
  echo "make hip: $hipcc not found: run scripts/install_deps.sh hip (Debian's hipcc), or point HIPCC at ROCm's (make hip HIPCC=/opt/rocm/bin/hipcc)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <hip/hip_runtime.h>\n__global__ void adi_probe(int *p) { *p = 1; }\n' > "$tmp/probe.hip"

ok=() missing=()
for a in "$@"; do
  if "$hipcc" --offload-arch="$a" -c "$tmp/probe.hip" -o "$tmp/probe.o" > "$tmp/log" 2>&1; then
    ok+=("$a")
    continue
  fi
  missing+=("$a")
  why=$(grep -m1 -E 'error' "$tmp/log" | sed 's/^[^:]*error: //')
  hint=""
  case "${a%%:*}" in
    gfx942|gfx941|gfx950|gfx1200|gfx1201|gfx115*)
      hint=" ${a%%:*} needs a newer ROCm (gfx942, MI300A/MI300X: ROCm 5.7 or later); Debian 12's hipcc 5.2.3 (clang 15) stops at gfx940, whose code does not load on gfx942. To run on this GPU, build on a machine with that ROCm: make hip HIPCC=/opt/rocm/bin/hipcc HIP_ARCH=${a%%:*}.";;
  esac
  echo "make hip: warning: $hipcc cannot build for $a (${why:-see: $hipcc --offload-arch=$a -c FILE}); the binary leaves it out and will not run on that GPU.$hint" >&2
done

if [ ${#ok[@]} -eq 0 ]; then
  echo "make hip: $hipcc can build for none of HIP_ARCH=\"$*\"; choose targets it knows (rocminfo shows a GPU's gfx name; clang --print-supported-cpus --target=amdgcn-amd-amdhsa lists them)" >&2
  exit 1
fi
if [ ${#missing[@]} -gt 0 ] && [ "${HIP_ARCH_STRICT:-0}" = 1 ]; then
  echo "make hip: HIP_ARCH_STRICT=1 and $hipcc cannot build for: ${missing[*]}" >&2
  exit 1
fi
echo "${ok[*]}"

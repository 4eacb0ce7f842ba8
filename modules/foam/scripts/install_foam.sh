#!/usr/bin/env bash
# modules/foam/scripts/install_foam.sh - what `make foam` needs (called by
# scripts/install_deps.sh foam): Debian's OpenFOAM v1912 packages (openfoam,
# libopenfoam, openfoam-examples), g++ and OpenMPI's headers, and the headers
# of exactly the installed version, taken from the distribution's own source
# package (OpenFOAM's Debian packages ship no development headers). Safe to
# run again: does nothing when everything is there.
#
# The deb-src entry is derived at run time from the machine's enabled apt
# sources (deb822 *.sources files and one-line *.list files): same URIs,
# suites, components and keys, type deb-src. No host is named here.
#
# The source tree goes to $FOAM_SRC_ROOT (default build/foam/src, relative to
# the repository root); build/foam/src/VERSION records the version unpacked.
# Finally checks that the installed build is double precision with 32-bit
# labels (what the plugin is compiled for) and fails with a clear message
# otherwise.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SRCROOT="${FOAM_SRC_ROOT:-build/foam/src}"
say() { echo "install_deps foam: $*"; }
die() { echo "install_deps foam: error: $*" >&2; exit 1; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }

SUDO=""
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif have_cmd sudo && sudo -n true 2>/dev/null; then sudo "$@"
  else die "needs root to run: $*"; fi
}
export DEBIAN_FRONTEND=noninteractive

# 1. binary packages
need=()
pkg_ok() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in openfoam libopenfoam openfoam-examples g++ dpkg-dev libopenmpi-dev openmpi-bin; do
  pkg_ok "$p" || need+=("$p")
done
updated=0
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  as_root apt-get update -qq >/dev/null 2>&1 || true; updated=1
  log=$(mktemp)
  if ! as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >"$log" 2>&1; then
    msg=$(grep -E '^E:' "$log" | head -n 2 | tr '\n' ' '); rm -f "$log"
    die "could not install ${need[*]} (apt-get says: $msg)"
  fi
  rm -f "$log"
fi
ver=$(dpkg-query -W -f='${Version}' libopenfoam)
srcver=${ver%%+b*}          # binNMU suffix: the source version has none

# 2. the installed build must be double precision, 32-bit labels: OpenFOAM
#    prints its build's "Arch" line (label=N;scalar=M) in every banner. Debian
#    keeps OpenFOAM's etc/ in the openfoam package; WM_PROJECT_DIR points there.
etcdict=$(dpkg -L openfoam | grep '/etc/controlDict$' | sed -n 1p || true)
[ -n "$etcdict" ] || die "the openfoam package has no etc/controlDict"
projdir=${etcdict%/etc/controlDict}
arch=$(cd /tmp && WM_PROJECT_DIR="$projdir" icoFoam -case /nonexistent/adiflow 2>&1 | tr -d '"' \
       | grep -o 'label=[0-9]*;scalar=[0-9]*' | head -n1 || true)
[ -n "$arch" ] || die "cannot read the installed OpenFOAM's build options (no 'label=..;scalar=..' in icoFoam's banner)"
[ "$arch" = "label=32;scalar=64" ] || die "the installed OpenFOAM is built with $arch; the plugin needs label=32;scalar=64 (double precision, 32-bit labels)"

# 3. headers of the same version from the source package
if [ -f "$SRCROOT/VERSION" ] && [ "$(cat "$SRCROOT/VERSION")" = "$srcver" ] && [ -d "$SRCROOT/tree/src/OpenFOAM" ]; then
  exit 0
fi
if ! apt-cache showsrc openfoam 2>/dev/null | grep -q '^Package: openfoam'; then
  list=/etc/apt/sources.list.d/adiflow-foam-src.sources
  say "adding deb-src entries derived from the enabled apt sources ($list)"
  tmp=$(mktemp)
  # deb822 files: copy each stanza whose Types has deb, with Types: deb-src
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$f" != "$list" ] || continue
    awk 'BEGIN{RS=""; FS="\n"} {
           deb=0; en=1; out="";
           for (i=1;i<=NF;i++) { l=$i;
             if (l ~ /^#/) continue;
             if (l ~ /^Types:/) { if (l ~ /[ \t]deb([ \t]|$)/) deb=1; l="Types: deb-src" }
             if (l ~ /^Enabled:[ \t]*no/) en=0;
             out=out l "\n" }
           if (deb && en) printf "%s\n", out }' "$f" >> "$tmp"
  done
  # one-line format: "deb [opts] URI suite comp..." -> deb822 stanza
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    grep -E '^[[:space:]]*deb[[:space:]]' "$f" | while read -r _ rest; do
      opts=""; if [[ "$rest" == \[* ]]; then opts=${rest%%]*}; opts=${opts#[}; rest=${rest#*] }; fi
      read -r uri suite comps <<<"$rest"
      printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n' "$uri" "$suite" "$comps"
      for o in $opts; do case "$o" in signed-by=*) printf 'Signed-By: %s\n' "${o#signed-by=}";; esac; done
      printf '\n'
    done >> "$tmp"
  done
  [ -s "$tmp" ] || { rm -f "$tmp"; die "no enabled 'deb' apt source to derive a deb-src entry from"; }
  as_root install -m 0644 "$tmp" "$list"; rm -f "$tmp"
  as_root apt-get update -qq >/dev/null 2>&1 || true
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/foamsrc.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "fetching the source package openfoam=$srcver (headers only are kept)"
( cd "$work" && apt-get source -qq --download-only "openfoam=$srcver" >/dev/null 2>"$work/err" ) \
  || die "apt-get source openfoam=$srcver failed: $(tail -n 2 "$work/err" | tr '\n' ' ')"
dsc=$(ls "$work"/openfoam_*.dsc | head -n1)
( cd "$work" && dpkg-source --no-check -x "$dsc" tree >/dev/null 2>"$work/err" ) \
  || die "dpkg-source -x failed: $(tail -n 2 "$work/err" | tr '\n' ' ')"
rm -rf "$SRCROOT"; mkdir -p "$SRCROOT/tree"
# keep what compiling against the library needs: src/ and the wmake rules
( cd "$work/tree" && tar cf - src wmake/rules etc/controlDict 2>/dev/null ) | ( cd "$SRCROOT/tree" && tar xf - )
echo "$srcver" > "$SRCROOT/VERSION"
say "OpenFOAM $srcver headers in $SRCROOT/tree ($(du -sh "$SRCROOT" | cut -f1))"

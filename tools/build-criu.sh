#!/bin/sh
# Build CRIU from Debian's source package into build/criu/criu, once.
#
# Transparent checkpoints (volery run --checkpoint=auto) need a CRIU that
# knows the running kernel.  Debian 12's CRIU (3.17) does not start on
# kernels from 6.13, which split the vvar mapping (criu#2532, fixed in
# CRIU 4.1); Debian 13 (trixie) ships 4.1.1.  So, as the build does for
# libraries, this takes Debian's source package of the newer release
# (a deb-src entry for trixie, then apt-get source: the tarball is
# checked against the signed Sources index) and builds only the criu
# binary, with its build dependencies from this release.
#
# usage: tools/build-criu.sh [OUTDIR]
# Never fails the build: where it cannot (no root, no network), it says
# why; the tests that need CRIU then skip and say so.
set -u
out=${1:-build/criu}
[ -x "$out/criu" ] && exit 0
say() { echo "build-criu: $*" >&2; }

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	say "not root on Debian: no CRIU built (--checkpoint=auto untested)"
	exit 0
fi
src=/etc/apt/sources.list.d/volery-trixie-src.sources
if [ ! -f "$src" ]; then
	cat > "$src" <<'EOF'
# Added by volery's tools/build-criu.sh: source packages only, so that
# CRIU 4.1 can be built from Debian's source (no binary comes from here).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	apt-get update -qq >/dev/null 2>&1 || { say "apt-get update failed"; exit 0; }
fi
tools/install-deps.sh pkgconf libbsd-dev libcap-dev libgnutls28-dev \
    libnet1-dev libnftables-dev libnl-3-dev libprotobuf-c-dev \
    libprotobuf-dev protobuf-c-compiler protobuf-compiler uuid-dev \
    xz-utils || { say "build dependencies missing"; exit 0; }

work=$out.src
rm -rf "$work"
mkdir -p "$work"
# The Debian packaging files may be missing from the mirror; the
# upstream tarball is all the build needs (apt checks its hash).
(cd "$work" && apt-get source -qq --download-only criu/trixie \
    >download.log 2>&1)
tarball=$(ls "$work"/criu_*.orig.tar.* 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	say "apt-get source criu/trixie fetched nothing:"
	tail -n 3 "$work/download.log" >&2
	exit 0
fi
tar -C "$work" -xf "$tarball" || { say "cannot unpack $tarball"; exit 0; }
dir=$(ls -d "$work"/criu-*/ | head -n 1)
say "building $(basename "$dir") (about 30 s)"
if ! make -C "$dir" -j2 criu >"$work/build.log" 2>&1; then
	say "CRIU did not build; see $work/build.log"
	exit 0
fi
mkdir -p "$out"
cp "$dir/criu/criu" "$out/criu"
rm -rf "$work"
say "$out/criu: $("$out/criu" --version | head -n 1)"

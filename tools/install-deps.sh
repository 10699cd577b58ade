#!/bin/sh
# Make sure the libraries volery builds against are present.  On a fresh
# Debian machine, as root, install what is missing with apt-get; otherwise
# name the packages and fail, so the build never half-works.
#
# usage: tools/install-deps.sh [command:package | package]...
# Each library is checked through pkg-config; an extra "command:package"
# (a test tool) is present when the command is on PATH, a plain package
# when dpkg has it.
set -u

# pkg-config module -> Debian package
libs="libevent:libevent-dev uuid:uuid-dev libxml-2.0:libxml2-dev
libpcre2-8:libpcre2-dev cmocka:libcmocka-dev zlib:zlib1g-dev
libsodium:libsodium-dev jansson:libjansson-dev"

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for pair in $libs; do
	mod=${pair%%:*}
	pkg=${pair#*:}
	if ! command -v pkg-config >/dev/null 2>&1 ||
	    ! pkg-config --exists "$mod" 2>/dev/null; then
		missing="$missing $pkg"
	fi
done
for extra in "$@"; do
	case "$extra" in
	*:*)	command -v "${extra%%:*}" >/dev/null 2>&1 ||
		    missing="$missing ${extra#*:}" ;;
	*)	dpkg -s "$extra" >/dev/null 2>&1 || missing="$missing $extra" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "volery: missing packages:$missing" >&2
	echo "volery: install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "volery: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null &&
    apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
    { echo "volery: apt-get install$missing failed" >&2; exit 1; }

#!/bin/sh
# What the compiler cannot check of the core's structure (issue 10):
#  1. each sub-protocol's state -- the member of struct node named after
#     its file (nodestate.h) -- is touched by that file only;
#  2. struct node is private to the core: nodestate.h is included from
#     src/core only (and by white-box unit tests);
#  3. no file in src/core is over 450 lines;
#  4. only src/run/job.c forks and executes;
#  5. the core library calls nothing impure (see below);
#  6. the shell (a folder per stage, README's layout): no file outside
#     src/cli includes a command-line header, and no include cycle among
#     the shell's modules (a module: x.c with x.h); the web includes
#     only service.h and notify.h of the server's, nothing of the
#     clients', runs' or peers';
#  7. no shell file is over 600 lines, and server.c is 500 at most.
# The include paths make an io or libevent header in the core a compile
# error, and the core library links without libevent (Makefile).
set -u
cd "$(dirname "$0")/.." || exit 1
fail=0
for pair in tick:node schedule:schedule dequeue:dequeue ahead:ahead election:election \
    replicate:replicate confirm:confirm antientropy:antientropy \
    peertab:peertab retire:retire runwatch:runwatch runs:run \
    heartbeat:heartbeat retry:retry ckpts:ckpt tail:tail avail:avail \
    estimate:estimate; do
	member=${pair%%:*}
	owner=src/core/${pair#*:}.c
	[ -f "$owner" ] || { echo "layering: $owner is missing"; fail=1; }
	hits=$(grep -nE -- "->$member\\b" src/core/*.c | grep -v "^$owner:")
	if [ -n "$hits" ]; then
		echo "layering: the $member state belongs to $owner, but:"
		echo "$hits"
		fail=1
	fi
done
hits=$(grep -rln '"nodestate.h"' src include | grep -v '^src/core/')
[ -z "$hits" ] || { echo "layering: struct node is private to src/core:"; echo "$hits"; fail=1; }
for f in src/core/*.c; do
	n=$(wc -l < "$f")
	[ "$n" -le 450 ] || { echo "layering: $f has $n lines (450 at most)"; fail=1; }
done
# One forker: src/run/job.c alone creates processes.
hits=$(grep -rnE '\b(fork|vfork|execv|execvp|execve|execl|execlp|posix_spawn|system|popen)[[:space:]]*\(' src |
    grep -v '^src/run/job.c:')
[ -z "$hits" ] || { echo "layering: only src/run/job.c forks:"; echo "$hits"; fail=1; }
# The core is pure: besides its own functions it calls only libc's pure
# ones (memory, strings, numbers), zlib's crc32 and libsodium's
# deterministic AEAD, hashes, signatures and key agreement (never its
# random bytes) -- no clock,
# socket, fork, file or libevent call, whatever header brought it in.
lib=${1:-build/libvolerycore.a}
if [ -f "$lib" ]; then
	pure='^(__ctype_b_loc|__ctype_tolower_loc|__errno_location|calloc|free|malloc|realloc|memchr|memcmp|memcpy|memmove|memset|qsort|snprintf|vsnprintf|vasprintf|strcasecmp|strncasecmp|strchr|strrchr|strcmp|strncmp|strcpy|strncpy|strcspn|strspn|strdup|strndup|strlen|strnlen|strsep|strstr|strtod|strtol|strtoll|strtoul|strtoull|crc32|crypto_aead_xchacha20poly1305_ietf_(en|de)crypt|crypto_generichash(_init|_update|_final)?|crypto_shorthash|crypto_auth_hmacsha256_(init|update|final)|crypto_sign_detached|crypto_sign_verify_detached|crypto_sign_ed25519_[ps]k_to_curve25519|crypto_scalarmult|sodium_bin2hex|sodium_bin2base64|sodium_base642bin|sodium_memcmp|sodium_memzero|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*)$'
	defined=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
	impure=$(nm -u "$lib" | awk 'NF == 2 {print $2}' | sort -u |
	    grep -vxF "$defined" | grep -vE "$pure")
	if [ -n "$impure" ]; then
		echo "layering: the core calls what is not pure:" $impure
		fail=1
	fi
fi
# The shell's folders: the command line is a client of the node, never
# a part of it.
SHELL_DIRS="server clients web run peers state sys submit cli"
cli_headers=$(cd src/cli && ls -- *.h | sed 's/\./\\./g' | paste -sd'|')
hits=$(grep -nE "^#include \"($cli_headers)\"" $(for d in $SHELL_DIRS; do
    [ "$d" = cli ] || echo "src/$d"/*.[ch]; done))
[ -z "$hits" ] || { echo "layering: only src/cli includes the command line's headers:"; echo "$hits"; fail=1; }
for f in $(for d in $SHELL_DIRS; do echo "src/$d"/*.[ch]; done); do
	n=$(wc -l < "$f")
	max=600; [ "$f" = src/server/server.c ] && max=500
	[ "$n" -le "$max" ] || { echo "layering: $f has $n lines ($max at most)"; fail=1; }
done
# The web reaches the node through the service layer (and hears of it
# through notify.h): no other header of the server's, the clients', the
# runs' or the peers'.
hits=$(for f in src/web/*.[ch]; do
	sed -n 's/^#include "\(.*\)\.h".*/\1/p' "$f" | while read -r h; do
		for d in server clients run peers; do
			[ -f "src/$d/$h.h" ] && [ "$h" != service ] &&
			    [ "$h" != notify ] && echo "$f: $d/$h.h"
		done
	done
done)
[ -z "$hits" ] || { echo "layering: the web reaches the node only through service.h:"; echo "$hits"; fail=1; }
# Modules and the shell headers they include, as edges for tsort(1),
# which names a cycle if there is one.
edges=$(for d in $SHELL_DIRS; do for f in "src/$d"/*.[ch]; do
	m=${f##*/}; m=${m%.*}
	sed -n 's/^#include "\(.*\)\.h".*/\1/p' "$f" | while read -r h; do
		[ "$h" != "$m" ] && ls src/*/"$h.h" 2>/dev/null |
		    grep -qv '^src/core/' && echo "$m $h"
	done
done; done | sort -u)
cycle=$(echo "$edges" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop')
[ -z "$cycle" ] || { echo "layering: an include cycle among shell modules:" $cycle; fail=1; }
[ "$fail" -eq 0 ] && echo "layering: each sub-protocol's state is its own file's; the core is pure; the command line stays in src/cli; the shell has no cycle"
exit "$fail"

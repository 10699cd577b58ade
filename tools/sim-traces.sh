#!/bin/sh
# Compare the simulator's full event traces (volery-sim -v) for fixed
# seeds with the ones kept in test/sim/traces/: a change that should
# not change behaviour (a refactor) must leave them byte-identical.
#
# usage: tools/sim-traces.sh [--record] [volery-sim]
#   --record  write the traces anew: only on purpose, in a commit that
#             says which behaviour changed and why.
# The runs are the lines of test/sim/regress.txt and test/sim/traces.txt
# ('@seeds FIRST COUNT options' stands for COUNT lines '-s SEED options').
set -u
record=0
[ "${1:-}" = "--record" ] && { record=1; shift; }
sim=${1:-build/volery-sim}
dir=test/sim/traces
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# One line of options per run.
{
	sed -e '/^#/d' -e '/^$/d' -e 's/#.*//' test/sim/regress.txt
	sed -e '/^#/d' -e '/^$/d' test/sim/traces.txt | while read -r w a b rest; do
		if [ "$w" = "@seeds" ]; then
			s=$a
			while [ "$s" -lt $((a + b)) ]; do
				echo "-s $s $rest"
				s=$((s + 1))
			done
		else
			echo "$w $a $b $rest"
		fi
	done
} > "$tmp/runs"

n=0 fail=0
[ "$record" -eq 1 ] && rm -f "$dir"/*.xz
mkdir -p "$dir"
while IFS= read -r opts; do
	n=$((n + 1))
	# The file name says the options: "-n 3 -s 1 -k 4" -> n3_s1_k4.
	name=$(printf '%s' "$opts" | sed -e 's/ *$//' -e 's/-//g' \
	    -e 's/[^A-Za-z0-9.]\{1,\}/_/g')
	# shellcheck disable=SC2086
	$sim -v $opts > "$tmp/trace" 2>&1
	if [ "$record" -eq 1 ]; then
		xz -9e -T1 -c "$tmp/trace" > "$dir/$name.xz"
	elif [ ! -f "$dir/$name.xz" ]; then
		echo "sim trace MISSING: $dir/$name.xz (volery-sim -v $opts)"
		fail=$((fail + 1))
	elif ! xz -dc "$dir/$name.xz" | cmp -s - "$tmp/trace"; then
		echo "sim trace CHANGED: volery-sim -v $opts"
		xz -dc "$dir/$name.xz" | diff - "$tmp/trace" | head -8
		fail=$((fail + 1))
	fi
done < "$tmp/runs"
if [ "$record" -eq 1 ]; then
	echo "sim traces: $n recorded in $dir"
	exit 0
fi
# A trace kept for a run no longer listed is a mistake too.
kept=$(ls "$dir" | wc -l)
[ "$kept" -eq "$n" ] || { echo "sim traces: $kept kept, $n runs listed"; fail=$((fail + 1)); }
echo "sim traces: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]

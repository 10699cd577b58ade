#!/bin/sh
# Checkpoints against the seed paper's wasted CPU (Anglano et al.,
# ../shared/reference/001: 2-18 % of the CPU redone on enterprise
# desktop grids, 21-30 % on public ones): a bag of long tasks (their
# mean as long as a node's mean time up) on nine nodes, under the
# office-day trace and Weibull availability, each placement policy,
# without checkpoints (-i 0) and with one every tenth of a task's mean
# (-i 800).  Prints, per cell, the mean over the seeds of the CPU the
# runs used that was work redone, and of the makespan.
#
# usage: tools/sim-checkpoint.sh [volery-sim] [seeds]
set -u
sim=${1:-build/volery-sim}
seeds=${2:-5}
printf '%-12s %-9s %-12s %9s %10s\n' availability placement checkpoints \
    wasted makespan
for av in office-day weibull; do
	case $av in
	office-day) law="-A test/sim/office-day.trace" ;;
	weibull) law="-a weibull" ;;
	esac
	for pl in informed blind; do
		for every in 0 800; do
			s=1 w=0 m=0
			while [ "$s" -le "$seeds" ]; do
				# shellcheck disable=SC2086
				out=$("$sim" -s "$s" -n 9 -w bag -t 60 -T 8000 \
				    $law -I "$pl" -i "$every") || {
					echo "sim-checkpoint: seed $s violates:"
					echo "$out"
					exit 1
				}
				w=$(printf '%s\n' "$out" | awk -v w="$w" \
				    '/^cpu:/ { sub("%", "", $8); print w + $8 }')
				m=$(printf '%s\n' "$out" | awk -v m="$m" \
				    '$NF == "ok" { print m + $4 }')
				s=$((s + 1))
			done
			awk -v av="$av" -v pl="$pl" -v e="$every" -v w="$w" \
			    -v m="$m" -v n="$seeds" 'BEGIN { printf \
			    "%-12s %-9s %-12s %8.1f%% %9.1fs\n", av, pl, e == 0 ? \
			    "none" : "every " e "ms", w / n, m / n }'
		done
	done
done

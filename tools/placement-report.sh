#!/bin/sh
# Fault-aware placement against blind placement, in the simulator: the
# average completion time of a bag of tasks (uneven, 0.5-1.5 x 2 s) on 9
# nodes after a warm-up of 90 tasks (the pool has learned), over SEEDS
# seeds, as in Anglano et al.'s Figures 5-6: informed / blind (below 1:
# informed is faster).  RR: tasks per node.
#
# usage: tools/placement-report.sh [volery-sim] [seeds]
set -u
sim=${1:-build/volery-sim}
seeds=${2:-10}

avg() {	# options -> average makespan over the seeds
	s=1 sum=0
	while [ "$s" -le "$seeds" ]; do
		# shellcheck disable=SC2086
		v=$($sim -q -n 9 -w bag -T 2000 -E 90 -s "$s" $1 | tail -1 |
		    awk '{ print $4 }')
		sum=$(echo "$sum + $v" | bc -l)
		s=$((s + 1))
	done
	echo "$sum / $seeds" | bc -l
}

printf '%-10s %-12s %3s %9s %9s %9s\n' speeds availability RR blind \
    informed ratio
for speeds in "-V 1-1" "-V 0.5-2" "-V 0.25-4"; do
	for avail in "" "-a weibull" "-A test/sim/office-day.trace"; do
		case "$avail" in
		"") label=always ;;
		-a*) label=weibull ;;
		*) label=office-day ;;
		esac
		for rr in 3 10; do
			o="-t $((9 * rr)) $speeds $avail"
			b=$(avg "$o -I blind")
			i=$(avg "$o -I informed")
			printf '%-10s %-12s %3d %9.2f %9.2f %9.3f\n' \
			    "${speeds#-V }" "$label" "$rr" \
			    "$b" "$i" "$(echo "$i / $b" | bc -l)"
		done
	done
done

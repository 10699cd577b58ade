#!/bin/sh
# Replay every line of test/sim/regress.txt, then a short sweep of
# seeds over small clusters with every kind of fault.  Exits non-zero on
# the first invariant violation, naming the seed to replay.
#
# usage: tools/sim-regress.sh [volery-sim] [divisor]
# The divisor shortens the sweep: under the sanitizers (make check) the
# simulator is five times slower, and its job there is memory errors,
# which the regressions and a tenth of the seeds find as well.
set -u
sim=${1:-build/volery-sim}
div=${2:-1}
n=0
fail=0
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	opts=${line%%#*}
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! $sim -q $opts >/dev/null; then
		echo "sim regression FAILED: volery-sim $opts(${line#*#} )"
		fail=$((fail + 1))
	fi
done < test/sim/regress.txt
echo "sim regressions: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
# The short sweep: hundreds of seeds, small clusters, all faults.
$sim -S $((100 / div)) -n 5 -k 8 -T 500 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
# Insecure (-U): duplicates reach the core.  Sealed, with an attacker
# replaying datagrams (-Z), and restarts for them to slip in after.
$sim -S $((30 / div)) -U -n 5 -k 8 -T 500 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
$sim -S $((30 / div)) -n 5 -k 8 -T 500 -l 10 -j 5 -c 10 -C 4 -P 2 -B 2 -Z 30 -q &&
$sim -S $((200 / div)) -n 3 -k 6 -T 500 -l 20 -d 10 -j 10 -c 20 -C 2 -P 2 -B 2 -q &&
$sim -S $((50 / div)) -n 9 -k 12 -T 500 -l 10 -d 5 -j 5 -c 10 -C 3 -P 3 -B 3 -q &&
$sim -S $((50 / div)) -o lret -n 7 -k 10 -T 500 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
# Tasks of three lengths ranked by the run time the pool learned.
$sim -S $((50 / div)) -o lret -n 7 -w mix -t 40 -T 100 -E 20 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
$sim -S $((50 / div)) -o sret -n 7 -w mix -t 40 -T 100 -E 20 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
# The reliability fit on stable and unstable desktops, under faults.
$sim -S $((30 / div)) -I fit -n 10 -w mix -t 60 -T 300 -E 20 -a exp -u 3000,300 -N 50 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -q &&
$sim -S $((20 / div)) -I fit -o lret -n 7 -w mix -t 40 -T 300 -E 20 -a weibull -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -X 2 -q &&
# Lengths told at submit, off by up to 2 (-b): the fit, lret, a mix of
# medium tasks; and tail replicas of a bag on machines of four speeds.
$sim -S $((30 / div)) -I fit -o lret -n 10 -w mix -t 60 -T 300 -E 20 -a exp -u 3000,300 -N 50 -b 2 -p M -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -q &&
$sim -S $((20 / div)) -o lret -n 9 -w bot -t 45 -T 2000 -E 18 -x 2 -i 500 -b 1.5 -V 0.5-2 -l 10 -d 5 -c 10 -C 2 -P 2 -q &&
# Tail replication (-x): copies on idle nodes, the first result wins;
# with checkpoints, faults, a DAG, and --verify's replicas beside.
$sim -S $((40 / div)) -x 2 -n 7 -w bag -t 40 -T 400 -V 0.25-4 -i 100 -l 10 -d 5 -C 2 -c 10 -P 1 -X 2 -q &&
$sim -S $((30 / div)) -x 3 -o lret -n 9 -k 8 -T 500 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
$sim -S $((30 / div)) -x 2 -r 2 -n 5 -w bag -t 30 -T 400 -V 0.5-2 -l 10 -C 1 -X 2 -q &&
# Two people's bursts under fair share: the second interleaves at once.
$sim -S $((30 / div)) -o fairshare -n 5 -w users -t 60 -T 300 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
$sim -S $((50 / div)) -n 9 -w bag -t 60 -T 500 -V 0.25-4 -E 40 -l 10 -d 5 -j 5 -c 10 -C 3 -P 3 -B 3 -q &&
$sim -S $((50 / div)) -n 6 -w bag -t 60 -T 500 -l 10 -d 5 -j 5 -c 10 -C 3 -P 3 -B 3 -q &&
# Sleeping desktops (-y): woken for the work that waits, under faults.
$sim -S $((40 / div)) -n 7 -w bag -t 60 -T 500 -y 4 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
# Tasks of a few ms: races claim batches of them (dequeue.c).
$sim -S $((30 / div)) -n 9 -w bag -t 200 -T 2 -E 30 -l 10 -d 5 -j 2 -c 10 -C 3 -P 3 -B 3 -q &&
$sim -S $((30 / div)) -U -n 7 -w bag -t 200 -T 3 -E 30 -l 20 -d 10 -j 5 -c 10 -C 2 -P 2 -B 2 -K 50 -q &&
$sim -S $((50 / div)) -n 8 -k 10 -T 500 -a weibull -l 5 -j 5 -c 5 -P 2 -q &&
$sim -S $((50 / div)) -n 9 -k 10 -A test/sim/office-day.trace -l 10 -j 5 -q &&
# Jobs with deadlines arriving at an office's evening: half the desks in
# use till their batch windows open (told), with faults; at twice the
# capacity most are forecast to miss and go without (deadline_late).
$sim -S $((20 / div)) -n 10 -w jobs -k 8 -T 500 -J 1 -D 4 -e 50 -l 10 -C 2 -P 2 -B 2 -q &&
$sim -S $((20 / div)) -n 10 -w jobs -k 8 -T 500 -J 2 -D 1.5 -e 50 -l 10 -C 2 -P 2 -B 2 -q &&
# Hostile: up to 40 % loss, duplication, long jitter, crashes, partitions
# both ways and one way, client cancels racing results, clocks skewed and
# stepped, overflowing receive queues, nodes lacking an executable,
# requests as large as allowed (and larger: refused).
$sim -S $((200 / div)) -n 5 -k 6 -T 500 -l 40 -d 10 -j 30 -C 2 -c 30 -P 2 -X 4 -q &&
$sim -S $((100 / div)) -n 7 -k 8 -T 300 -l 10 -d 20 -j 50 -Y 3 -K 2000 -C 2 -X 3 -q &&
$sim -S $((100 / div)) -n 9 -k 10 -T 300 -Q 32 -G -M 2 -P 2 -l 5 -X 2 -O 10 -q &&
$sim -S $((50 / div)) -n 6 -w bag -t 60 -T 300 -l 20 -C 3 -P 2 -X 3 -O 20 -q &&
# Retention: finished tasks leave the maps (and a node away past it
# comes back to forget its stale copies).
$sim -S $((50 / div)) -n 5 -k 16 -T 300 -W 5000 -A test/sim/away.trace -l 10 -X 2 -q &&
$sim -S $((30 / div)) -n 5 -k 30 -T 300 -l 20 -d 10 -j 30 -C 3 -c 30 -P 2 -X 4 -W 10000 -q &&
$sim -S $((300 / div)) -n 3 -k 4 -T 200 -l 30 -d 20 -j 80 -P 3 -C 2 -c 30 -B 3 -X 3 -K 1000 -q &&
# Arrays: at most -L of the bag running at once (checked at every start
# on a calm network), and under every fault the runs started last yield.
$sim -S $((100 / div)) -n 9 -w bag -t 60 -T 500 -L 4 -q &&
$sim -S $((50 / div)) -n 7 -w bag -t 60 -T 300 -L 3 -l 10 -d 5 -j 20 -c 10 -C 2 -P 2 -B 2 -X 2 -q &&
# Capabilities in heartbeats: a third of the tasks need a tag two nodes
# have, and never start anywhere else.
$sim -S $((50 / div)) -n 7 -w bag -t 60 -T 300 -g 2 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -X 2 -q &&
# Black holes (-H): every run of the last nodes fails.  No task fails
# for them, each stops volunteering after a few runs, under loss, with
# crashes and partitions too.
$sim -S $((50 / div)) -n 7 -w bag -t 100 -T 300 -H 1 -l 5 -j 5 -q &&
$sim -S $((30 / div)) -n 7 -w bag -t 200 -T 5 -H 1 -l 5 -j 2 -q &&
$sim -S $((50 / div)) -n 9 -k 10 -T 500 -H 2 -l 10 -d 5 -j 5 -P 2 -X 2 -q &&
$sim -S $((30 / div)) -n 7 -k 8 -T 500 -H 1 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -q &&
# Checkpoints kept by the pool (-i): copies made, lost with their nodes
# and restored under loss, crashes, partitions, availability laws and
# node identities; a run never starts from a checkpoint no run made.
$sim -S $((30 / div)) -n 7 -w bag -t 40 -T 2000 -i 200 -a weibull -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -q &&
$sim -S $((20 / div)) -n 9 -w bag -t 40 -T 2000 -i 200 -z 64 -A test/sim/office-day.trace -l 10 -X 2 -q &&
$sim -S $((30 / div)) -n 5 -w bag -t 12 -T 3000 -i 300 -F 30 -l 10 -d 5 -C 2 -P 1 -q &&
# Node identities and a certified liar (-F): its forged results and
# cancels of others' tasks are never held nor told, under every fault.
$sim -S $((300 / div)) -n 4 -w bag -t 12 -T 200 -F 10 -l 10 -d 5 -C 1 -P 1 -X 2 -q &&
$sim -S $((100 / div)) -n 5 -k 6 -T 300 -F 10 -l 10 -d 5 -j 5 -C 2 -P 2 -X 3 -c 10 -q &&
# ... and no partition: a run the liar claims is told final only once a
# majority of the fewest nodes up voted for it (check_liar_run).
$sim -S $((100 / div)) -n 5 -k 6 -T 300 -F 10 -l 10 -d 5 -j 5 -C 2 -X 3 -c 10 -q &&
# --verify (-r): every task checked by replicas, the liar's reporting
# results of its own: none is ever a verified task's result told final.
$sim -S $((100 / div)) -n 5 -k 3 -r 2 -F 6 -l 10 -d 5 -C 1 -P 1 -X 1 -q &&
$sim -S $((100 / div)) -n 4 -w bag -t 6 -T 200 -r 3 -F 6 -l 10 -d 5 -C 1 -P 1 -q

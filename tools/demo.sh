#!/usr/bin/env bash
# make demo: start a three-node volery cluster on loopback (acor, gaviao,
# pato), schedule three copies of the four-task PLMI2 workflow of thesis
# Table 4.1 on acor over the client protocol, show every state change and
# the node running it until all twelve tasks are Terminated, stop.  acor
# serves the dashboard (its URL is printed first): the workflows run live
# there.  On a terminal the nodes stay up at the end until Enter, for a
# look around the page.
#
# VOLERY_DEMO_PORT (acor's client port, default 7600; the others use the
# next two; the dashboard is on VOLERY_DEMO_PORT + 80), VOLERY_DEMO_MS
# (task duration, default 2000: the thesis' 2-minute tasks scaled by
# 1/60), VOLERY_DEMO_CHECKPOINT_MS (each task writes a checkpoint that
# often, which the pool keeps: default a quarter of a task; 0 none),
# VOLERY_DEMO_WORKFLOWS (default 3) and VOLERY (the binary).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
port=${VOLERY_DEMO_PORT:-7600}
ms=${VOLERY_DEMO_MS:-2000}
ckpt_ms=${VOLERY_DEMO_CHECKPOINT_MS:-$((ms / 4))}
workflows=${VOLERY_DEMO_WORKFLOWS:-3}
volery=${VOLERY:-$top/volery}
web=127.0.0.1:$((port + 80))
names=(acor gaviao pato)
dir=$(mktemp -d /tmp/volery-demo.XXXXXX)
pids=()

cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	exec 3>&- 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

# Started as root, the nodes run tasks as an unprivileged user: the
# tasks and their parameters are where that user can read them.
chmod 755 "$dir"
mkdir "$dir/tasks"
for t in import georeferencing segmentation anomaly_detection; do
	cp -p "$top/tasks/$t" "$top/tasks/$t.xml" "$dir/tasks/"
done
echo "<parameters><duration_ms>$ms</duration_ms><checkpoint_ms>$ckpt_ms</checkpoint_ms></parameters>" > "$dir/params.xml"
# One cluster key for the three (what an admin does once per pool).
"$volery" keygen "$dir/cluster.key" >/dev/null
for i in 0 1 2; do
	n=${names[$i]}
	mkdir -p "$dir/$n"
	http=""
	[ "$i" -eq 0 ] && http="<http>$web</http>"
	cat > "$dir/$n/volery.conf.xml" <<XML
<server>
  <name>$n</name>
  <cluster>demo-$port</cluster>
  <listen>127.0.0.1:$((port + i * 10))</listen>
  <peer_port>$((port + 1))</peer_port>
  <broadcast>127.255.255.255</broadcast>
  <tasks_dir>$dir/tasks</tasks_dir>
  <mode>dedicated</mode>
  <keyring><key>$dir/cluster.key</key></keyring>
  $http
</server>
XML
	"$volery" serve -c "$dir/$n/volery.conf.xml" 2> "$dir/$n/console.log" &
	pids+=($!)
done
echo "== three nodes on loopback: ${names[*]} (client ports $port, $((port + 10)), $((port + 20)); state and logs in $dir)"
for i in 0 1 2; do
	# Wait for each node to say it listens; tail ends if the node dies.
	if ! grep -q -m1 "listening on" < <(timeout 20 tail -n +1 -f \
	    --pid="${pids[$i]}" "$dir/${names[$i]}/console.log"); then
		cat "$dir/${names[$i]}/console.log" >&2
		echo "demo: ${names[$i]} did not start (ports in use? set VOLERY_DEMO_PORT)" >&2
		exit 1
	fi
done
# The master is elected within a few election windows.
grep -q -m1 "is the master" < <(timeout 20 tail -n +1 -f --pid="${pids[0]}" \
    "$dir/acor/console.log") || { echo "demo: no master elected" >&2; exit 1; }
echo "== dashboard: http://$web/ (open it: the workflows run there live)"

exec 3<>"/dev/tcp/127.0.0.1/$port"
ask() {	# send one request, print and return its reply
	echo "$1" >&3
	IFS= read -r reply <&3
	reply=${reply%$'\r'}
	printf '  > %s\n  < %s\n' "$1" "$reply"
	case "$reply" in ERROR*) exit 1 ;; esac
}

declare -A name=() state=()
all=()
P="-x $dir/params.xml"
echo "== scheduling $workflows workflows on acor (import -> georeferencing -> segmentation -> anomaly_detection)"
for w in $(seq 1 "$workflows"); do
	ask "SCHEDULE import low -p /data/inspection-$w $P";              I=${reply#SCHEDULED }
	ask "SCHEDULE georeferencing low -a $I 1 -a $I 2 -a $I 3 $P";     G=${reply#SCHEDULED }
	ask "SCHEDULE segmentation interactive -a $I 1 -a $G 1 -a $G 2 $P"; S=${reply#SCHEDULED }
	ask "SCHEDULE anomaly_detection interactive -a $S 1 $P";          A=${reply#SCHEDULED }
	name[$I]="$w/import"; name[$G]="$w/georeferencing"
	name[$S]="$w/segmentation"; name[$A]="$w/anomaly_detection"
	all+=("$I" "$G" "$S" "$A")
done
ask "SUBSCRIBE ${all[*]}"

echo "== state changes"
done_count=0
while [ "$done_count" -lt "${#all[@]}" ]; do
	IFS= read -r -t 60 line <&3 || { echo "demo: no progress for 60 s" >&2; exit 1; }
	read -r word uuid _ st rest <<< "$line"
	[ "$word" = PROGRESS ] || continue
	[ "${state[$uuid]:-}" = "$st" ] && continue
	state[$uuid]=$st
	printf '  %-22s %-10s %s\n' "${name[$uuid]}" "$st" "$rest"
	case "$st" in
	Terminated) done_count=$((done_count + 1)) ;;
	Cancelled|Failed) echo "demo: ${name[$uuid]} $st" >&2; exit 1 ;;
	esac
done

echo "== who ran what (TASKS on acor)"
echo TASKS >&3
while IFS= read -r line <&3 && [ "$line" != "." ]; do
	read -r _ uuid _ _ st _ by on _ <<< "$line"
	ck=""
	[[ $line =~ \ ckpt=([0-9]+):[0-9]+:([^ ]+) ]] &&
	    ck=", checkpoint ${BASH_REMATCH[1]} kept on ${BASH_REMATCH[2]}"
	printf '  %-22s %-10s scheduled by %-6s ran on %s%s\n' "${name[$uuid]}" "$st" "$by" "$on" "$ck"
done
echo "== NODES"
echo NODES >&3
while IFS= read -r line <&3 && [ "$line" != "." ]; do echo "  $line"; done
echo QUIT >&3
if [ -t 0 ]; then
	echo "== the nodes stay up for the dashboard, http://$web/: press Enter to stop them"
	read -r _ || true
fi
echo "== stopping the nodes"
cleanup
trap - EXIT
echo "== all $((workflows * 4)) tasks completed"

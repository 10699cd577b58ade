#!/usr/bin/env bash
# make demo: start one volery node on loopback, schedule the four-task
# PLMI2 workflow of thesis Table 4.1 over the client protocol, show its
# progress until every task is Terminated, stop the node.
#
# VOLERY_DEMO_PORT (default 7600) and VOLERY_DEMO_MS (task duration,
# default 2000: the thesis' 2-minute tasks scaled by 1/60) change it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
port=${VOLERY_DEMO_PORT:-7600}
ms=${VOLERY_DEMO_MS:-2000}
dir=$(mktemp -d /tmp/volery-demo.XXXXXX)
node_pid=

cleanup() {
	[ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null && wait "$node_pid" 2>/dev/null
	exec 3>&- 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

cat > "$dir/volery.conf.xml" <<XML
<server>
  <name>demo</name>
  <listen>127.0.0.1:$port</listen>
  <tasks_dir>$top/tasks</tasks_dir>
  <state_dir>state</state_dir>
  <log_file>volery.log</log_file>
  <mode>dedicated</mode>
</server>
XML
echo "<parameters><duration_ms>$ms</duration_ms></parameters>" > "$dir/params.xml"

echo "== starting a node on 127.0.0.1:$port (state and log in $dir)"
"$top/volery" serve -c "$dir/volery.conf.xml" 2> "$dir/console.log" &
node_pid=$!
# Wait for the node to say it listens; tail ends if the node dies.
if ! grep -q -m1 "listening on" < <(timeout 20 tail -n +1 -f \
    --pid="$node_pid" "$dir/console.log"); then
	cat "$dir/console.log" >&2
	echo "demo: the node did not start (is port $port in use? set VOLERY_DEMO_PORT)" >&2
	exit 1
fi

exec 3<>"/dev/tcp/127.0.0.1/$port"
ask() {	# send one request, print and return its reply
	echo "$1" >&3
	IFS= read -r reply <&3
	reply=${reply%$'\r'}
	printf '  > %s\n  < %s\n' "$1" "$reply"
	case "$reply" in ERROR*) exit 1 ;; esac
}

echo "== scheduling the workflow (import -> georeferencing -> segmentation -> anomaly_detection)"
P="-x $dir/params.xml"
ask "SCHEDULE import low -p /data/inspection-42 $P";             I=${reply#SCHEDULED }
ask "SCHEDULE georeferencing low -a $I 1 -a $I 2 -a $I 3 $P";    G=${reply#SCHEDULED }
ask "SCHEDULE segmentation interactive -a $I 1 -a $G 1 -a $G 2 $P"; S=${reply#SCHEDULED }
ask "SCHEDULE anomaly_detection interactive -a $S 1 $P";         A=${reply#SCHEDULED }
declare -A name=([$I]=import [$G]=georeferencing [$S]=segmentation [$A]=anomaly_detection)
declare -A state=()
ask "SUBSCRIBE $I $G $S $A"

echo "== progress"
done_count=0
while [ "$done_count" -lt 4 ]; do
	IFS= read -r -t 60 line <&3 || { echo "demo: no progress for 60 s" >&2; exit 1; }
	read -r word uuid pct st rest <<< "$line"
	[ "$word" = PROGRESS ] || continue
	[ "${state[$uuid]:-}" = "$st $pct" ] && continue
	state[$uuid]="$st $pct"
	printf '  %-18s %3s%% %-10s %s\n' "${name[$uuid]}" "$pct" "$st" "$rest"
	case "$st" in
	Terminated) done_count=$((done_count + 1)) ;;
	Cancelled|Failed) echo "demo: ${name[$uuid]} $st" >&2; exit 1 ;;
	esac
done

echo "== TASKS"
echo TASKS >&3
while IFS= read -r line <&3 && [ "$line" != "." ]; do
	case "$line" in TASK*) echo "  $line" ;; esac
done
echo "== from the node's log"
grep -E "state\{Terminated\}" "$dir/volery.log" | sed 's/^/  /'
echo QUIT >&3
echo "== stopping the node"
kill "$node_pid"; wait "$node_pid" || true; node_pid=
echo "== the workflow completed"

#!/usr/bin/env python3
"""Benchmark a loopback cluster (numbers, not assertions).

  python3 tools/bench_cluster.py [--nodes 9] [--tasks 500] [--workflows 10]
                                 [--task-ms 2000] [--skip-workflows]
                                 [--keys sealed|insecure|both] [--rounds 3]

1. latency: SCHEDULE on one node -> PROGRESS Running (the task is durable,
   replicated, dequeued and started), idle cluster, 30 samples;
2. throughput: --tasks trivial tasks (0 ms) scheduled over all nodes,
   first SCHEDULE to last Terminated;
3. the thesis experiment (chapter 5, time-scaled): --workflows workflows of
   four chained tasks of --task-ms each, makespan against the lower bound
   max(4 T, ceil(4 k / n) T).

--keys both (the default) measures 1 and 2 with sealed datagrams (a
cluster key) and insecure ones, --rounds times each, alternating, and
prints the medians side by side: what the crypto costs.  It also prints
the bytes a seal adds to a datagram, measured on the wire.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
import harness  # noqa: E402
import sealer  # noqa: E402
from harness import Cluster, params_file, schedule_workflow  # noqa: E402

DEFAULT_TIMING = """<log_level>normal</log_level>"""


def seal_overhead(cl):
    """Bytes a seal adds to a datagram, from what crosses the wire."""
    cap = sealer.Capture(cl.port)
    try:
        frames = cap.read(lambda f: len(f) >= 20)
    finally:
        cap.close()
    key = sealer.read_key(harness.cluster_key(cl.name))
    added = [len(d) - len(sealer.open_frame(key, d)) for d, _ in frames]
    return statistics.mean(added), statistics.mean(len(d) for d, _ in frames)


def latency(c, zero, samples):
    """SCHEDULE -> PROGRESS Running on client c, in ms, sorted: each task
    (of zero, a 0-ms parameters file) ends before the next is sent."""
    lat = []
    for k in range(samples):
        t0 = time.monotonic()
        c.send("SCHEDULE import low -p /l%d -x %s\n" % (k, zero))
        u = c.line().split()[1]
        c.send("SUBSCRIBE %s\n" % u)
        c.wait_states({u: "Running"})
        lat.append((time.monotonic() - t0) * 1000)
        c.wait_states({u: "Terminated"})
    return sorted(lat)


def throughput(clients, zero, per):
    """Trivial tasks per second: per tasks scheduled on each client at
    once, first SCHEDULE to last Terminated.  Each client watches its own
    tasks on the node that acknowledged them: another node may not have
    heard of a task yet, and answers "unknown task" to a SUBSCRIBE."""
    t0 = time.monotonic()
    for c in clients:
        c.send("".join("SCHEDULE import low -p /t%d -x %s\n" % (k, zero)
                       for k in range(per)))
    mine = {}   # a client may stand in the list more than once
    for c in clients:
        mine.setdefault(c, []).extend(c.line().split()[1] for _ in range(per))
    for c, uuids in mine.items():
        c.send("".join("SUBSCRIBE %s\n" % u for u in uuids))
    for c, uuids in mine.items():
        c.wait_states({u: "Terminated" for u in uuids}, timeout=600)
    return sum(map(len, mine.values())) / (time.monotonic() - t0)


def signatures(clients):
    """Signatures over tasks' origins and runs the nodes made and checked
    (GET /api/nodes, each node's own entry)."""
    made = checked = 0
    for c in clients:
        c.send("API /api/nodes\n")
        c.line()    # JSON <status> <bytes>
        me = [n for n in json.loads(c.line()) if n["self"]][0]
        made += me.get("signatures", {}).get("made", 0)
        checked += me.get("signatures", {}).get("checked", 0)
    return made, checked


def latency_and_throughput(args, extra, report_overhead=False):
    names = ["n%d" % k for k in range(args.nodes)]
    cl = Cluster(names, extra=DEFAULT_TIMING + extra).start()
    try:
        cl.master()
        clients = {n: cl.nodes[n].client() for n in names}
        zero = params_file(cl.nodes[names[0]].dir, 0)
        if report_overhead:
            added, size = seal_overhead(cl)
            print("a seal adds %.0f bytes to a datagram (mean datagram on the "
                  "wire %.0f bytes)" % (added, size))
        lat = latency(clients[names[-1]], zero, 30)
        per = args.tasks // args.nodes
        tput = throughput(list(clients.values()), zero, per)
        made, checked = signatures(clients.values())
        ran = len(lat) + per * len(names)
        print("signatures per task: %.2f made, %.2f checked (%d tasks)" % (
            made / ran, checked / ran, ran))
        for c in clients.values():
            c.close()
        return statistics.median(lat), lat[int(len(lat) * 0.9)], tput
    finally:
        cl.cleanup()


def compare_keys(args):
    modes = {"sealed": "", "insecure": "<insecure/>"}
    if args.keys != "both":
        modes = {args.keys: modes[args.keys]}
    got = {m: [] for m in modes}
    for r in range(args.rounds):
        for m, extra in modes.items():
            got[m].append(latency_and_throughput(args, extra,
                                                 report_overhead=(r == 0 and m == "sealed")))
    print("%-9s %22s %14s %16s" % ("datagrams", "SCHEDULE->Running med", "p90",
                                    "trivial tasks/s"))
    for m, runs in got.items():
        print("%-9s %19.1f ms %11.1f ms %16.0f   (%d runs: %s tasks/s)" % (
            m, statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs),
            statistics.median(r[2] for r in runs), len(runs),
            ", ".join("%.0f" % r[2] for r in runs)))
    if len(got) == 2:
        s, i = got["sealed"], got["insecure"]
        print("the crypto costs %+.1f%% tasks/s and %+.1f ms median latency"
              % ((statistics.median(r[2] for r in s) /
                  statistics.median(r[2] for r in i) - 1) * 100,
                 statistics.median(r[0] for r in s) -
                 statistics.median(r[0] for r in i)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=9)
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--workflows", type=int, default=10)
    ap.add_argument("--task-ms", type=int, default=2000)
    ap.add_argument("--skip-workflows", action="store_true")
    ap.add_argument("--keys", choices=("sealed", "insecure", "both"), default="both")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    compare_keys(args)
    if args.skip_workflows:
        return
    names = ["n%d" % k for k in range(args.nodes)]
    cl = Cluster(names, extra=DEFAULT_TIMING).start()
    try:
        cl.master()
        clients = {n: cl.nodes[n].client() for n in names}
        w = clients[names[0]]
        p = params_file(cl.nodes[names[0]].dir, args.task_ms)
        t0 = time.monotonic()
        wfs = [schedule_workflow(clients[names[k % args.nodes]], p)
               for k in range(args.workflows)]
        every = [u for wf in wfs for u in wf]
        w.send("".join("SUBSCRIBE %s\n" % u for u in every))
        w.wait_states({u: "Terminated" for u in every}, timeout=600)
        dt = time.monotonic() - t0
        T = args.task_ms / 1000
        bound = max(4 * T, math.ceil(4 * args.workflows / args.nodes) * T)
        print("thesis experiment: %d workflows x 4 tasks of %.1f s on %d nodes: "
              "makespan %.2f s, lower bound %.2f s (+%.1f%%)"
              % (args.workflows, T, args.nodes, dt, bound, (dt / bound - 1) * 100))
        for c in clients.values():
            c.close()
    finally:
        cl.cleanup()

if __name__ == "__main__":
    main()

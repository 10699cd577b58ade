#!/usr/bin/env python3
"""Benchmark a loopback cluster (numbers, not assertions).

  python3 tools/bench_cluster.py [--nodes 9] [--tasks 500] [--workflows 10]
                                 [--task-ms 2000] [--skip-workflows]

1. latency: SCHEDULE on one node -> PROGRESS Running (the task is durable,
   replicated, dequeued and started), idle cluster, 30 samples;
2. throughput: --tasks trivial tasks (0 ms) scheduled over all nodes,
   first SCHEDULE to last Terminated;
3. the thesis experiment (chapter 5, time-scaled): --workflows workflows of
   four chained tasks of --task-ms each, makespan against the lower bound
   max(4 T, ceil(4 k / n) T).
"""
import argparse
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
from harness import Cluster, params_file, schedule_workflow  # noqa: E402

DEFAULT_TIMING = """<log_level>normal</log_level>"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=9)
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--workflows", type=int, default=10)
    ap.add_argument("--task-ms", type=int, default=2000)
    ap.add_argument("--skip-workflows", action="store_true")
    args = ap.parse_args()
    names = ["n%d" % k for k in range(args.nodes)]
    cl = Cluster(names, extra=DEFAULT_TIMING).start()
    try:
        cl.master()
        clients = {n: cl.nodes[n].client() for n in names}
        zero = params_file(cl.nodes[names[0]].dir, 0)

        lat = []
        c = clients[names[-1]]
        for k in range(30):
            t0 = time.monotonic()
            c.send("SCHEDULE import low -p /l%d -x %s\n" % (k, zero))
            u = c.line().split()[1]
            c.send("SUBSCRIBE %s\n" % u)
            c.wait_states({u: "Running"})
            lat.append((time.monotonic() - t0) * 1000)
            c.wait_states({u: "Terminated"})
        print("latency SCHEDULE -> Running, %d idle nodes: median %.1f ms, "
              "p90 %.1f ms, max %.1f ms" % (args.nodes, statistics.median(lat),
                                            sorted(lat)[int(len(lat) * 0.9)], max(lat)))

        per = args.tasks // args.nodes
        t0 = time.monotonic()
        uuids = []
        for n in names:
            clients[n].send("".join("SCHEDULE import low -p /t%d -x %s\n" % (k, zero)
                                    for k in range(per)))
        for n in names:
            uuids += [clients[n].line().split()[1] for _ in range(per)]
        w = clients[names[0]]
        w.send("".join("SUBSCRIBE %s\n" % u for u in uuids))
        w.wait_states({u: "Terminated" for u in uuids}, timeout=600)
        dt = time.monotonic() - t0
        print("throughput: %d trivial tasks on %d nodes in %.2f s = %.0f tasks/s"
              % (len(uuids), args.nodes, dt, len(uuids) / dt))

        if not args.skip_workflows:
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

#!/usr/bin/env python3
"""Benchmark one node on loopback (not a test: numbers, no assertions).

  python3 tools/bench_node.py [--tasks N] [--slots S]

Reports: latency from SCHEDULE to the task's Running notification for an
idle node; throughput of N trivial tasks (duration 0) with S slots; RSS
and CPU time of the idle node after the run.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
from harness import Node, params_file  # noqa: E402


def proc_stat(pid):
    with open("/proc/%d/status" % pid) as f:
        rss = [l for l in f if l.startswith("VmRSS:")][0].split()[1]
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(rss), (int(fields[11]) + int(fields[12])) / ticks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--slots", type=int, default=2)
    args = ap.parse_args()
    node = Node(slots=args.slots).start()
    try:
        c = node.client()
        zero = params_file(node.dir, 0)
        lat = []
        for k in range(20):
            t0 = time.monotonic()
            u = c.schedule("import low -p /b%d -x %s" % (k, zero))
            c.ask("SUBSCRIBE " + u)
            c.wait_states({u: "Terminated"})
            lat.append((time.monotonic() - t0) * 1000)
        lat.sort()
        print("schedule -> Terminated of a 0 ms task, idle node: median %.1f ms, max %.1f ms"
              % (lat[len(lat) // 2], lat[-1]))
        t0 = time.monotonic()
        c.send("".join("SCHEDULE import low -p /t%d -x %s\n" % (k, zero)
                       for k in range(args.tasks)))
        uuids = [c.line().split()[1] for _ in range(args.tasks)]
        t1 = time.monotonic()
        c.send("".join("SUBSCRIBE %s\n" % u for u in uuids))
        c.wait_states({u: "Terminated" for u in uuids}, timeout=600)
        t2 = time.monotonic()
        print("%d tasks, %d slots: scheduled (durable) in %.2f s = %.0f/s; all Terminated "
              "after %.2f s = %.0f tasks/s"
              % (args.tasks, args.slots, t1 - t0, args.tasks / (t1 - t0), t2 - t0,
                 args.tasks / (t2 - t0)))
        rss0, cpu0 = proc_stat(node.proc.pid)
        time.sleep(10)
        rss1, cpu1 = proc_stat(node.proc.pid)
        print("idle node after the run: RSS %d KiB, CPU %.3f s over 10 s idle"
              % (rss1, cpu1 - cpu0))
        c.close()
        node.stop()
    finally:
        node.cleanup()


if __name__ == "__main__":
    main()

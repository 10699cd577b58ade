#!/usr/bin/env python3
"""make bench-waiting: what a queue nobody can run yet costs a pool
(issue 40 point 1).  Numbers, not assertions.

  python3 tools/bench_waiting.py [--nodes 2] [--batches 5] [--size 1000]

A pool of --nodes one-slot nodes on loopback (the tests' fast timers);
--batches times, --size tasks needing the tag gpu, which no node has,
pipelined as RUNs on one connection to the first node.  After each batch:
how long its submission took, the CPU each node spent in the 3 s from
its start, then each node's CPU over the next 10 s as a share of a core
(what the waiting queue costs while nothing happens).  The first line is
the same pool before any task: its idle cost with nothing waiting.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "integration"))
sys.path.insert(0, HERE)
from bench_side import start_quiet  # noqa: E402
from harness import Cluster  # noqa: E402

SETTLE_S, IDLE_S = 3, 10


def cpu_s(node):
    """User and system CPU of a node so far, s."""
    with open("/proc/%d/stat" % node.proc.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_shares(nodes):
    """Each node's CPU over IDLE_S seconds, in % of a core."""
    before = [cpu_s(n) for n in nodes]
    time.sleep(IDLE_S)
    return ["%.2f" % ((cpu_s(n) - b) * 100 / IDLE_S)
            for n, b in zip(nodes, before)]


def submit(node, size, first):
    c = node.client()
    try:
        c.send("".join("RUN w%d low -g gpu -- /bin/true\n" % k
                       for k in range(first, first + size)))
        for _ in range(size):
            reply = c.line(120)
            if not reply.startswith("SCHEDULED"):
                raise RuntimeError("not scheduled: " + reply)
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--size", type=int, default=1000)
    args = ap.parse_args()
    cl = Cluster(["n%d" % k for k in range(args.nodes)])
    try:
        for node in cl.nodes.values():
            start_quiet(node)
        cl.master()
        nodes = list(cl.nodes.values())
        print("%6d waiting: idle %s %% of a core" % (0, " ".join(
            idle_shares(nodes))), flush=True)
        for b in range(args.batches):
            before = [cpu_s(n) for n in nodes]
            t0 = time.monotonic()
            submit(nodes[0], args.size, b * args.size)
            took = time.monotonic() - t0
            time.sleep(max(0.0, SETTLE_S - took))
            spent = ["%.2f" % (cpu_s(n) - c) for n, c in zip(nodes, before)]
            print("%6d waiting: submitted in %.2f s; CPU in its first %d s "
                  "%s s; then idle %s %% of a core"
                  % ((b + 1) * args.size, took, SETTLE_S, " ".join(spent),
                     " ".join(idle_shares(nodes))), flush=True)
    finally:
        cl.cleanup()


if __name__ == "__main__":
    main()

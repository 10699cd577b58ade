#!/usr/bin/env python3
"""How long a run takes to start (issue 36, W3; numbers, no assertions).

  make bench-start            (or: python3 tools/bench_start.py --stamp build/stamp)
  python3 tools/bench_start.py --stamp build/stamp [--nodes 9] [--samples 50]

An idle pool of loopback nodes runs build/stamp (tools/stamp.c), whose
first instruction reads the wall clock, once at a time:

  protocol  RUN on a connection open already -> the task's first instruction
  cli       `volery run` started -> the task's first instruction (the
            command line talks to the node of its host by its socket)
  cli -H    the same over loopback TCP (-H 127.0.0.1:port)
  start     the node's decision to start it (its journal's stt=, ms) -> the
            task's first instruction

and prints the median, the 90th percentile and the worst of each.
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
from harness import VOLERY, Cluster, make_workdir  # noqa: E402


def stamp_of(path):
    """The task's first line, once it wrote it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read()
            if text.endswith("\n"):
                return int(text)
        except (OSError, ValueError):
            pass
        time.sleep(0.001)
    raise SystemExit("no stamp in %s" % path)


def started_ms(cl, uuid):
    """stt= of the task's Running record, from whichever journal has it."""
    for node in cl.nodes.values():
        path = os.path.join(node.dir, "state", "journal")
        with open(path, "rb") as f:
            for line in f.read().decode(errors="replace").splitlines():
                if (" id=%s " % uuid) in line and " st=Running " in line:
                    return int(line.split(" stt=")[1].split()[0])
    raise SystemExit("no start of %s in any journal" % uuid)


def summary(name, v):
    v = sorted(v)
    return "%-9s median %6.2f ms   p90 %6.2f ms   max %6.2f ms   (%d)" % (
        name, v[len(v) // 2], v[len(v) * 9 // 10], v[-1], len(v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stamp", required=True)
    ap.add_argument("--nodes", type=int, default=9)
    ap.add_argument("--samples", type=int, default=50)
    args = ap.parse_args()
    stamp = os.path.abspath(args.stamp)
    out = make_workdir("volery-bench-start-")
    os.chmod(out, 0o777)        # the run users write their stamps there
    cl = Cluster(["n%d" % i for i in range(args.nodes)]).start()
    try:
        cl.master()
        first = next(iter(cl.nodes.values()))
        host = "127.0.0.1:%d" % first.port
        c = first.client()
        env = dict(os.environ, VOLERY_SOCKET=os.path.join(first.dir, "state",
                                                           "volery.sock"))
        proto, cli, tcp, start = [], [], [], []
        for k in range(3 * args.samples):
            path = os.path.join(out, "s%d" % k)
            t0 = time.time_ns()
            if k % 3 == 0:
                reply = c.ask("RUN stamp interactive -o %s -- %s" % (path, stamp))
                uuid = reply.split()[1]
                proto.append((stamp_of(path) - t0) / 1e6)
            else:
                uuid = subprocess.run(
                    [VOLERY] + (["-H", host] if k % 3 == 2 else []) +
                    ["run", "-P", "interactive", "-o", path, "--", stamp],
                    env=env, check=True, capture_output=True,
                    text=True).stdout.strip()
                (cli if k % 3 == 1 else tcp).append((stamp_of(path) - t0) / 1e6)
            start.append(stamp_of(path) / 1e6 - started_ms(cl, uuid))
            c.ask("SUBSCRIBE " + uuid)
            c.wait_states({uuid: "Terminated"})
            time.sleep(0.05)    # idle again: heartbeats, confirmations
        print("idle pool of %d loopback nodes, one run at a time:" % args.nodes)
        print(summary("protocol", proto))
        print(summary("cli", cli))
        print(summary("cli -H", tcp))
        print(summary("start", start))
    finally:
        cl.cleanup()


if __name__ == "__main__":
    main()

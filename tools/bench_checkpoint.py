#!/usr/bin/env python3
"""Checkpoints kept by the pool (issue 37; numbers, no assertions).

  make bench-checkpoint   (or: python3 tools/bench_checkpoint.py [--run-s 20])

A task of --run-s seconds (the issue's 100 s, scaled) that checkpoints
every tenth of its run (simtask's <checkpoint_ms>), on loopback nodes:

  vacated   its node's user comes back at 80 % of its work and stays
            (vacate_after_s 1): the run is stopped, and another node
            runs the task from its newest checkpoint
  killed    its node is killed (kill -9) at 80 %: another node runs the
            task from the newest checkpoint a live node keeps

Each is run with checkpoints and without (the task starts again from
zero), and prints the task's makespan (submit to end, as its node
reports it) over its run time.  The issue asks at most 1.15 (vacated)
and 1.2 (killed) with checkpoints; 1.8 and more without.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
from harness import TIMEOUT, Cluster  # noqa: E402

SCREENSAVER = """<mode>screensaver</mode>
  <idle_check_s>1</idle_check_s>
  <input_idle_s>60</input_idle_s>
  <suspend_input_s>60</suspend_input_s>
  <resume_idle_s>60</resume_idle_s>
  <cpu_idle_percent>100</cpu_idle_percent>
  <vacate_after_s>1</vacate_after_s>
  <idle_command>cat %s</idle_command>"""


def params(where, run_ms, every_ms):
    path = os.path.join(where, "bench-%d-%d.xml" % (run_ms, every_ms))
    with open(path, "w") as f:
        f.write("<parameters><duration_ms>%d</duration_ms>%s</parameters>\n"
                % (run_ms, "<checkpoint_ms>%d</checkpoint_ms>" % every_ms
                   if every_ms else ""))
    return path


def until_progress(c, u, percent):
    """Read u's PROGRESS lines until it reports percent; its node."""
    while True:
        f = c.line(TIMEOUT * 10).split()
        if f[:2] == ["PROGRESS", u] and int(f[2]) >= percent:
            return [w[5:] for w in f if w.startswith("node=")][0]


def makespan(c, u):
    for line in c.wait_states({u: "Terminated"}, timeout=TIMEOUT * 20):
        pass
    return float([w for w in line.split()
                  if w.startswith("makespan=")][0][9:])


def vacated(run_ms, every_ms):
    cl = Cluster(("a", "b", "c"))
    try:
        a = cl.nodes["a"]
        idle_file = os.path.join(a.dir, "idle-seconds")

        def user(idle_s):
            with open(idle_file + ".new", "w") as f:
                f.write("%d\n" % idle_s)
            os.rename(idle_file + ".new", idle_file)

        user(100000)
        with open(a.conf) as f:
            conf = f.read()
        with open(a.conf, "w") as f:
            f.write(conf.replace("<mode>dedicated</mode>",
                                 SCREENSAVER % idle_file))
        cl.start()
        cl.master()
        b, c = cl.nodes["b"].client(), cl.nodes["c"].client()
        for x in (b, c):
            x.ask("IDLE off")
        time.sleep(1.5)     # the others hear b and c busy
        u = c.schedule("import low -p /x -x %s" % params(a.dir, run_ms,
                                                         every_ms))
        c.ask("SUBSCRIBE " + u)
        node = until_progress(c, u, 80)
        b.ask("IDLE auto")
        user(0)
        span = makespan(c, u)
        b.close()
        c.close()
        return node, span
    finally:
        cl.cleanup()


def killed(run_ms, every_ms):
    cl = Cluster(("a", "b", "c", "d", "e")).start()
    try:
        cl.master()
        e = cl.nodes["e"].client()
        e.ask("IDLE off")   # it watches, it does not run it
        time.sleep(1.5)
        u = e.schedule("import low -p /x -x %s" % params(
            cl.nodes["e"].dir, run_ms, every_ms))
        e.ask("SUBSCRIBE " + u)
        node = until_progress(e, u, 80)
        cl.nodes[node].kill9()
        span = makespan(e, u)
        e.close()
        return node, span
    finally:
        cl.cleanup()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run-s", type=float, default=20.0)
    o = ap.parse_args()
    run_ms = int(o.run_s * 1000)
    every_ms = run_ms // 10
    print("a task of %.1f s, a checkpoint every %.1f s" % (
        run_ms / 1e3, every_ms / 1e3))
    for what, fn in (("vacated", vacated), ("killed", killed)):
        for label, every in (("with checkpoints", every_ms),
                             ("without", 0)):
            node, span = fn(run_ms, every)
            print("%-8s at 80 %% on %s, %-16s: makespan %6.2f s = %.2f x "
                  "its run" % (what, node, label, span, span * 1000 /
                               run_ms))
            sys.stdout.flush()


if __name__ == "__main__":
    main()

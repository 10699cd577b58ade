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
  signalled vacated as above, a command (volery run --checkpoint ck
            --checkpoint-signal USR1) that writes one last checkpoint
            when asked: the next run redoes nothing; and that command
            undisturbed, for its own run time (its steps are sleeps)
  transparent  vacated as above, that command saving nothing itself,
            with --checkpoint=auto: CRIU dumps it at the vacate, and
            another node restores it (build/criu/criu, as root)

Each is run with checkpoints and without (the task starts again from
zero), and prints the task's makespan (submit to end, as its node
reports it) over its run time.  The issue asks at most 1.15 (vacated)
and 1.2 (killed) with checkpoints; 1.8 and more without.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
import harness  # noqa: E402
from harness import TIMEOUT, Cluster, VOLERY  # noqa: E402

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


def wait_busy(c, names):
    """Until c's node sees every node of names busy."""
    def busy():
        rows = [r.split() for r in c.ask_multi("NODES")]
        return all([r for r in rows if r[1] == n][0][4] == "busy"
                   for n in names)
    harness.wait_until(busy, "%s busy" % ", ".join(names))


# A command of run_ms in 0.1-s steps, its count its checkpoint (every
# every_ms, and when USR1 asks), PROGRESS every tenth.
COUNTER = """i=0; [ -n "$VOLERY_CHECKPOINT" ] && i=$(cat "$VOLERY_CHECKPOINT")
save() { echo $i > "$TMPDIR/ck.tmp"; mv "$TMPDIR/ck.tmp" "$TMPDIR/ck"; }
trap 'save; exit 0' USR1
while [ $i -lt %d ]; do sleep 0.1; i=$((i + 1))
  [ $((i %% %d)) -eq 0 ] && save; [ $((i %% %d)) -eq 0 ] &&
  echo "PROGRESS $((i * 100 / %d))"; done; echo done"""


CRIU = os.path.join(harness.ROOT, "build", "criu", "criu")


def vacated(run_ms, every_ms, signalled=False, user_back=True,
            transparent=False):
    cl = Cluster(("a", "b", "c"), extra="<criu>%s</criu>" % CRIU
                 if transparent else "")
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
        wait_busy(c, ("b", "c"))
        if signalled or transparent:
            steps, every = run_ms // 100, max(every_ms // 100, 1)
            how = (["--checkpoint=auto"] if transparent else
                   ["--checkpoint", "ck", "--checkpoint-signal", "USR1"])
            u = subprocess.run([
                VOLERY, "-H", "127.0.0.1:%d" % cl.nodes["c"].port, "run",
                "--cwd", "/"] + how + [
                "--", "sh", "-c", COUNTER % (
                    steps, steps + 1 if transparent else every,
                    max(steps // 10, 1), steps)],
                capture_output=True, text=True, check=True).stdout.strip()
        else:
            u = c.schedule("import low -p /x -x %s" % params(
                a.dir, run_ms, every_ms))
        c.ask("SUBSCRIBE " + u)
        node = until_progress(c, u, 80)
        if user_back:
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
        wait_busy(e, ("e",))
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
    for what, fn in (("vacated", vacated), ("killed", killed),
                     ("signalled", lambda r, e: vacated(r, e, True)),
                     ("undisturbed", lambda r, e: vacated(r, e, True,
                                                          False)),
                     ("transparent", lambda r, e: vacated(
                         r, e, transparent=True))):
        if what == "transparent" and (os.geteuid() != 0 or
                                      not os.access(CRIU, os.X_OK)):
            print("transparent: skipped, no %s (root: make test builds "
                  "it)" % CRIU)
            continue
        for label, every in (("with checkpoints", every_ms),
                             ("without", 0)):
            if what in ("signalled", "undisturbed",
                        "transparent") and every == 0:
                continue
            node, span = fn(run_ms, every)
            print("%-11s at 80 %% on %s, %-16s: makespan %6.2f s = %.2f x "
                  "its run" % (what, node, label, span, span * 1000 /
                               run_ms))
            sys.stdout.flush()


if __name__ == "__main__":
    main()

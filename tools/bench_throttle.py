#!/usr/bin/env python3
"""Throttle instead of stop (issue 37; numbers, no assertions).

  make bench-throttle        (or: python3 tools/bench_throttle.py [--percent 25])

One node, pinned to one CPU with everything it runs, runs a CPU-bound task
(a busy loop) while "the user" runs a busy loop of their own on the same
CPU.  Three phases of --seconds each:

  away      the user's screen idle: the task and the user's loop share
  back      the user back, <on_user_return>throttle PERCENT</...>: the
            user's own loop should keep >= 70 % of the core, the task
            still progress
  free      the user gone again: shares as in away

Prints each phase's CPU share of the user's loop and of the task, and how
the node throttled (cpu.max, the cgroup v1 cpu controller, or nice).
Needs root where runs are throttled through cgroups.
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
from harness import VOLERY, Node, TIMEOUT  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def shares(pids, seconds):
    before = [ticks(p) for p in pids]
    t0 = time.monotonic()
    time.sleep(seconds)
    took = time.monotonic() - t0
    return [(ticks(p) - b) / TICK / took for p, b in zip(pids, before)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--percent", type=int, default=25)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--cpu", type=int, default=0)
    o = ap.parse_args()

    node = Node(name="desk")
    idle_file = os.path.join(node.dir, "idle-seconds")

    def user(idle_s):
        with open(idle_file + ".new", "w") as f:
            f.write("%d\n" % idle_s)
        os.rename(idle_file + ".new", idle_file)

    user(100000)
    with open(node.conf) as f:
        conf = f.read()
    with open(node.conf, "w") as f:
        f.write(conf.replace("<mode>dedicated</mode>", """<mode>screensaver</mode>
  <idle_check_s>1</idle_check_s>
  <input_idle_s>60</input_idle_s>
  <suspend_input_s>60</suspend_input_s>
  <resume_idle_s>60</resume_idle_s>
  <cpu_idle_percent>100</cpu_idle_percent>
  <idle_command>cat %s</idle_command>
  <on_user_return>throttle %d</on_user_return>""" % (idle_file, o.percent)))
    node.wrap = ["taskset", "-c", str(o.cpu)]
    mine = None
    try:
        node.start()
        node.wait_log(r"volunteer state none -> idle")
        host = "127.0.0.1:%d" % node.port
        r = subprocess.run([VOLERY, "-H", host, "run", "--cwd", "/", "--",
                            "sh", "-c", "while :; do :; done"],
                           capture_output=True, text=True, timeout=TIMEOUT)
        u = r.stdout.strip()
        task = int(node.wait_log(r"Task UUID\{%s\} command sh started, pid "
                                 r"(\d+)" % u).group(1))
        mine = subprocess.Popen(["taskset", "-c", str(o.cpu), "sh", "-c",
                                 "while :; do :; done"])
        print("throttle %d %%: one CPU shared by the user's busy loop and "
              "a task's" % o.percent)
        print("%-6s %12s %12s" % ("phase", "user's loop", "the task"))
        a = shares([mine.pid, task], o.seconds)
        print("%-6s %11.0f%% %11.0f%%" % ("away", 100 * a[0], 100 * a[1]))
        user(0)
        node.wait_log(r"user is back: throttled")
        b = shares([mine.pid, task], o.seconds)
        print("%-6s %11.0f%% %11.0f%%" % ("back", 100 * b[0], 100 * b[1]))
        user(100000)
        node.wait_log(r"idle again: full speed")
        c = shares([mine.pid, task], o.seconds)
        print("%-6s %11.0f%% %11.0f%%" % ("free", 100 * c[0], 100 * c[1]))
        how = [l for l in node.log().splitlines() if "throttled to" in l]
        print("how: %s" % (how[0].split("] ", 1)[-1] if how else
                           "cpu.max or nice (see the node's log)"))
        # Its end removes what throttled it.
        subprocess.run([VOLERY, "-H", host, "cancel", u],
                       capture_output=True, timeout=TIMEOUT)
        subprocess.run([VOLERY, "-H", host, "watch", u],
                       capture_output=True, timeout=TIMEOUT)
    finally:
        if mine is not None:
            mine.kill()
            mine.wait()
        node.cleanup()


if __name__ == "__main__":
    main()

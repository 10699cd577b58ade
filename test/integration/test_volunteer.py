"""Volunteer modes on a loopback cluster (issue 5): a busy host takes no
task, a running task is stopped while the user is back and continues
when the host is idle again, and one suspended too long runs elsewhere.

The host "turns busy" through the real probe path: screensaver mode with
an idle_command that prints what a file says (the way xprintidle would
report the user's keyboard), checked every second.  CPU is not a vote
here (cpu_idle_percent 100): the test machine's load is not ours to
control.
"""
import json
import os
import subprocess
import time
import unittest
import urllib.request

import harness
from harness import TIMEOUT, Cluster, params_file, proc_state


def screensaver(idle_file, vacate_after_s=600):
    return """<mode>screensaver</mode>
  <idle_check_s>1</idle_check_s>
  <input_idle_s>60</input_idle_s>
  <suspend_input_s>60</suspend_input_s>
  <resume_idle_s>60</resume_idle_s>
  <cpu_idle_percent>100</cpu_idle_percent>
  <vacate_after_s>%d</vacate_after_s>
  <idle_command>cat %s</idle_command>""" % (vacate_after_s, idle_file)


class VolunteerTest(unittest.TestCase):
    def client(self, name):
        c = self.cl.nodes[name].client()
        self.addCleanup(c.close)
        return c

    def nodes_row(self, viewer, name):
        c = self.cl.nodes[viewer].client()
        try:
            rows = [r.split() for r in c.ask_multi("NODES")]
        finally:
            c.close()
        return [r for r in rows if r[1] == name][0]

    def wait_volunteer(self, viewer, name, state):
        return harness.wait_until(
            lambda: self.nodes_row(viewer, name)[4] == state,
            "%s sees %s %s" % (viewer, name, state))

    def user(self, idle_s):
        """What the keyboard says: idle for idle_s seconds."""
        tmp = self.idle_file + ".new"
        with open(tmp, "w") as f:
            f.write("%d\n" % idle_s)
        os.rename(tmp, self.idle_file)

    def pid_of(self, node, uuid):
        m = self.cl.nodes[node].wait_log(
            r"Task UUID\{%s\} executable \S+ started, pid (\d+)" % uuid)
        return int(m.group(1))


class BusyHostTakesNothing(VolunteerTest):
    def test_idle_off_sends_tasks_to_the_others(self):
        self.cl = Cluster(("a", "b", "c")).start()
        self.addCleanup(self.cl.cleanup)
        self.cl.master()
        a = self.client("a")
        # The screensaver hook, as a locker would call it.
        where = "127.0.0.1:%d" % self.cl.nodes["a"].port
        r = subprocess.run([harness.VOLERY, "idle", "-H", where, "off"],
                           capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(self.nodes_row("a", "a")[4], "busy")
        self.wait_volunteer("b", "a", "busy")
        p = params_file(self.cl.nodes["a"].dir, 100)
        us = [a.schedule("import low -p /x -x %s" % p) for _ in range(6)]
        a.ask("SUBSCRIBE " + " ".join(us))
        a.wait_states({u: "Terminated" for u in us})
        ran = [n for u in us for n in self.cl.starts(u)]
        self.assertEqual(len(ran), 6)
        self.assertNotIn("a", ran)
        # Back to auto: a dedicated host volunteers again.
        self.assertEqual(a.ask("IDLE auto"), "OK")
        self.assertEqual(self.nodes_row("a", "a")[4], "dedicated")


class UserComesBack(VolunteerTest):
    def setUp(self):
        self.cl = Cluster(("a", "b"))
        self.addCleanup(self.cl.cleanup)
        self.idle_file = os.path.join(self.cl.nodes["a"].dir, "idle-seconds")
        self.user(100000)
        self.vacate = 600

    def a_idle_b_busy(self, extra=""):
        """a a screensaver (and extra config), idle; b busy: what runs
        runs on a."""
        node = self.cl.nodes["a"]
        with open(node.conf) as f:
            conf = f.read()
        with open(node.conf, "w") as f:
            f.write(conf.replace("<mode>dedicated</mode>", screensaver(
                self.idle_file, self.vacate) + extra))
        self.cl.start()
        m = node.wait_log(r"volunteer state none -> (\S+) \(no input for (\S+)")
        if m.group(1) != "idle":
            self.skipTest("this host has had keyboard input %s ago"
                          % m.group(2))
        self.cl.master()
        self.assertEqual(self.client("b").ask("IDLE off"), "OK")
        self.wait_volunteer("a", "b", "busy")

    def start_on_a(self, ms):
        """b busy, a idle: a task of ms runs on a; (uuid, pid, client)."""
        node = self.cl.nodes["a"]
        self.a_idle_b_busy()
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s"
                       % params_file(node.dir, ms))
        a.ask("SUBSCRIBE " + u)
        seen = a.wait_states({u: "Running"})
        self.assertIn("node=a", seen[-1])
        return u, self.pid_of("a", u), a

    def test_task_stopped_while_user_is_back_then_continues(self):
        u, pid, a = self.start_on_a(5000)
        self.assertNotEqual(proc_state(pid), "T")
        self.user(0)
        a.wait_states({u: "Suspended"})
        # SIGSTOP is sent before Suspended is told, but a loaded machine
        # may take a moment to stop the process.
        harness.wait_until(lambda: proc_state(pid) == "T", "the run stopped")
        # Everywhere: TASKS and NODES on the other node too.
        b = self.client("b")
        harness.wait_until(lambda: b.tasks()[u][2] == "Suspended", "b shows Suspended")
        self.assertEqual([l.split()[1] for l in b.ask_multi("TASKS Suspended")],
                         [u])
        self.wait_volunteer("b", "a", "suspended")
        # Stopped, it neither moves nor ends (running, it reports every
        # percent): no PROGRESS line comes for 2 s -- once the node has
        # read what the run wrote before its stop (a loaded node may
        # read it late: its lines say Suspended, and come at once).
        def quiet(s):
            try:
                return a.line(s)
            except (AssertionError, TimeoutError):
                return None
        for _ in range(5):
            if quiet(0.5) is None:
                break
        self.assertIsNone(quiet(2.0), "a line while the run is stopped")
        self.assertEqual(a.tasks()[u][2], "Suspended")
        self.user(100000)
        seen = a.wait_states({u: "Terminated"})
        self.assertTrue(any(" Running " in l for l in seen), seen)
        self.assertIn("node=a", seen[-1])
        self.assertIn("attempt=1", seen[-1])
        self.assertEqual(self.cl.starts(u), ["a"])

    def test_suspended_too_long_task_completes_elsewhere(self):
        self.vacate = 1
        u, pid, a = self.start_on_a(3000)
        b = self.client("b")
        self.assertEqual(b.ask("IDLE auto"), "OK")  # b volunteers now
        self.user(0)
        a.wait_states({u: "Suspended"})
        seen = a.wait_states({u: "Terminated"})
        self.assertIn("node=b", seen[-1])
        self.assertIn("attempt=2", seen[-1])
        self.cl.nodes["a"].wait_log(r"Task UUID\{%s\} name\{import\} vacated "
                                    r"from a" % u)
        harness.wait_until(lambda: proc_state(pid) is None, "a's run is gone")
        self.assertEqual(sorted(self.cl.starts(u)), ["a", "b"])
        # Vacating is not the task's failure.
        self.assertNotIn("attempt 1 of", self.cl.nodes["a"].log())


def cpu_ticks(pid):
    """The process's user + system CPU so far, in clock ticks."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def nice_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


class Throttled(VolunteerTest):
    """<on_user_return>throttle 25</on_user_return> (issue 37): the user
    back, a CPU-bound run goes on with at most a quarter of a core and
    stays Running; the user gone, it runs at full speed again."""

    setUp = UserComesBack.setUp
    a_idle_b_busy = UserComesBack.a_idle_b_busy

    def start_busy_loop_on_a(self):
        node = self.cl.nodes["a"]
        self.a_idle_b_busy(
            "\n  <on_user_return>throttle 25</on_user_return>")
        r = subprocess.run([harness.VOLERY, "-H", "127.0.0.1:%d" % node.port,
                            "run", "--cwd", "/", "--", "sh", "-c",
                            "while :; do :; done"], capture_output=True,
                           text=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        u = r.stdout.strip()
        m = node.wait_log(r"Task UUID\{%s\} command sh started, pid (\d+)"
                          % u)
        return u, int(m.group(1)), self.client("a")

    def limit(self, pid, u):
        """How the run is held now: ("cpu.max", text), ("v1", quota) or
        ("nice", value)."""
        with open("/proc/%d/cgroup" % pid) as f:
            lines = f.read().splitlines()
        for l in lines:
            _, ctrl, path = l.split(":", 2)
            if "cpu" in ctrl.split(",") and path.endswith("-" + u):
                with open("/sys/fs/cgroup/cpu%s/cpu.cfs_quota_us"
                          % path) as q:
                    return ("v1", int(q.read()))
            if ctrl == "" and path.endswith("/run-" + u) and \
                    os.path.exists("/sys/fs/cgroup%s/cpu.max" % path):
                with open("/sys/fs/cgroup%s/cpu.max" % path) as q:
                    return ("cpu.max", q.read().strip())
        return ("nice", nice_of(pid))

    def test_task_throttled_while_user_is_back(self):
        u, pid, a = self.start_busy_loop_on_a()
        self.user(0)
        self.cl.nodes["a"].wait_log(r"Task\(UUID\{%s\}.*user is back: "
                                    r"throttled" % u)
        self.wait_volunteer("b", "a", "throttled")
        self.assertEqual(a.tasks()[u][2], "Running")
        how = self.limit(pid, u)
        self.assertIn(how, [("v1", 25000), ("cpu.max", "25000 100000"),
                            ("nice", 19)])
        self.assertEqual(proc_state(pid) != "T", True)
        if how[0] != "nice":
            # At most a quarter of a core (with slack), and still some.
            t0, c0 = time.monotonic(), cpu_ticks(pid)
            time.sleep(2.0)   # a measurement window, not a wait
            share = (cpu_ticks(pid) - c0) / os.sysconf("SC_CLK_TCK") / \
                (time.monotonic() - t0)
            self.assertLess(share, 0.4)
        # The user gone: full speed.
        self.user(100000)
        self.cl.nodes["a"].wait_log(r"Task\(UUID\{%s\}.*idle again: full "
                                    r"speed" % u)
        # Back as it was: out of the v1 group (gone), no cpu.max, or
        # the screensaver's nice 19 every run starts at.
        self.assertEqual(self.limit(pid, u), ("cpu.max", "max 100000")
                         if how[0] == "cpu.max" else ("nice", 19))
        self.assertEqual(a.ask("CANCEL " + u).split()[0], "CANCELLED")


class BatchWindow(VolunteerTest):
    def test_batch_window_runs_on_all_slots_while_user_is_there(self):
        self.cl = Cluster(("a",))
        self.addCleanup(self.cl.cleanup)
        node = self.cl.nodes["a"]
        self.idle_file = os.path.join(node.dir, "idle-seconds")
        self.user(0)  # the user types all along
        with open(node.conf) as f:
            conf = f.read()
        # A window every day, all day (from = to): always inside it.
        with open(node.conf, "w") as f:
            f.write(conf.replace("<slots>1</slots>", "<slots>2</slots>")
                    .replace("<mode>dedicated</mode>",
                             screensaver(self.idle_file) +
                             '<batch days="*" from="00:00" to="00:00"/>'))
        self.cl.start()
        node.wait_log(r"volunteer state none -> batch")
        a = self.client("a")
        self.assertEqual(self.nodes_row("a", "a")[4], "batch")
        p = params_file(node.dir, 1500)
        us = [a.schedule("import low -p /x -x %s" % p) for _ in range(2)]
        a.ask("SUBSCRIBE " + " ".join(us))
        a.wait_states({u: "Running" for u in us})
        # Both slots at once, and nothing is suspended.
        self.assertEqual(self.nodes_row("a", "a")[5], "0/2")
        seen = a.wait_states({u: "Terminated" for u in us})
        self.assertFalse(any("Suspended" in l for l in seen), seen)

    def test_a_deadline_is_forecast_from_the_window_ahead(self):
        """The user at the desk, the night window opening in three
        minutes: a task of a second is expected to end when the window
        opens, and one due in a minute cannot be met (issue 38).  The
        dashboard's card and `volery nodes` say when the window opens."""
        self.cl = Cluster(("a",), extra="<http>127.0.0.1:0</http>")
        self.addCleanup(self.cl.cleanup)
        node = self.cl.nodes["a"]
        self.idle_file = os.path.join(node.dir, "idle-seconds")
        self.user(100000)  # away: a run to learn from first
        opens = (int(time.time()) // 60 + 3) * 60
        hm = lambda t: time.strftime("%H:%M", time.localtime(t))
        with open(node.conf) as f:
            conf = f.read()
        with open(node.conf, "w") as f:
            f.write(conf.replace("<mode>dedicated</mode>", screensaver(
                self.idle_file) + '<batch days="*" from="%s" to="%s"/>' %
                (hm(opens), hm(opens + 3600))))
        self.cl.start()
        node.wait_log(r"volunteer state none -> idle")
        where = "127.0.0.1:%d" % node.port

        def run(*args):
            return subprocess.run([harness.VOLERY, "-H", where, "run"] +
                                  list(args) + ["--", "sh", "-c", "sleep 1"],
                                  capture_output=True, text=True,
                                  timeout=TIMEOUT)
        a = self.client("a")
        u = run().stdout.strip()
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Terminated"})
        self.user(0)
        node.wait_log(r"volunteer state idle -> busy")
        r = run("--deadline", "+2h")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"^volery: expected to end (\S+ )?%s "
                         r"\(deadline" % hm(opens))
        self.assertEqual(a.tasks()[r.stdout.strip()][2], "Ready")
        r = run("--deadline", "+1m", "--deadline-strict")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot meet its deadline: expected to end", r.stderr)
        with urllib.request.urlopen("http://127.0.0.1:%d/api/nodes" %
                                    node.http_port(), timeout=TIMEOUT) as h:
            w = json.load(h)[0]["window"]
        self.assertLess(abs(w["opens_ms"] - opens * 1000), 2000, w)
        self.assertLess(abs(w["closes_ms"] - (opens + 3600) * 1000), 2000, w)
        # And `volery nodes`, in local time.
        out = subprocess.run([harness.VOLERY, "-H", where, "nodes"],
                             capture_output=True, text=True,
                             timeout=TIMEOUT).stdout.splitlines()
        col = out[0].index("WINDOW")
        self.assertEqual(out[1][col:].split()[0], "%s-%s" % (
            hm(opens), hm(opens + 3600)), out)


if __name__ == "__main__":
    unittest.main()

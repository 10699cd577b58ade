"""The command line against a real node (issue 6): every subcommand's
success and error paths, the workflow checker on broken files, log
search, following a rotated log, and the manual pages."""
import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import harness
from harness import ROOT, TIMEOUT, Node, params_file


def volery(*args, env=None, timeout=TIMEOUT):
    # Under `make valgrind` the command line runs under valgrind too.
    return subprocess.run(harness.WRAP + [harness.VOLERY] + list(args),
                          capture_output=True, text=True, timeout=timeout,
                          env=env)


WORKFLOW = """<?xml version="1.0"?>
<workflow priority="%(prio)s">
  <task id="I" name="import"><path>/data/x</path><params>%(params)s</params></task>
  <task id="G" name="georeferencing"><params>%(params)s</params>
    <input task="I" output="1"/><input task="I" output="2"/><input task="I" output="3"/>
  </task>
  <task id="S" name="segmentation"><params>%(params)s</params>
    <input task="I" output="1"/><input task="G" output="1"/><input task="G" output="2"/>
  </task>
  <task id="A" name="anomaly_detection"><params>%(params)s</params>
    <input task="S" output="1"/>
  </task>
</workflow>
"""


class CliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.node = Node(name="cli", extra="<max_attempts>1</max_attempts>"
                        "<cancel_grace_ms>200</cancel_grace_ms>").start()
        cls.host = "127.0.0.1:%d" % cls.node.port
        cls.env = dict(os.environ, VOLERY_HOST=cls.host,
                       VOLERY_TASKS=cls.node.tasks)
        cls.params = params_file(cls.node.dir, 100)

    @classmethod
    def tearDownClass(cls):
        try:
            cls.node.stop()
        finally:
            cls.node.cleanup()

    def run_ok(self, *args):
        r = volery(*args, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def run_fails(self, code, *args):
        r = volery(*args, env=self.env)
        self.assertEqual(r.returncode, code, (r.stdout, r.stderr))
        self.assertEqual(len(r.stderr.strip().splitlines()) >= 1, True)
        return r.stderr

    def workflow_file(self, text, name="wf.xml"):
        d = harness.make_workdir(prefix="volery-wf-", dir=self.node.dir)
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def ntasks(self):
        return len(self.node.client().ask_multi("TASKS"))


class Subcommands(CliTest):
    def test_schedule_watch_tasks_nodes(self):
        u = self.run_ok("schedule", "import", "-p", "/data/x", "-x",
                        self.params).strip()
        self.assertRegex(u, r"^[0-9a-f-]{36}$")
        # -H beats VOLERY_HOST.
        g = volery("schedule", "georeferencing", "-H", self.host,
                   "-a", u, "1", "-a", u, "2", "-a", u, "3", "-x", self.params,
                   env=dict(self.env, VOLERY_HOST="127.0.0.1:1"))
        self.assertEqual(g.returncode, 0, g.stderr)
        g = g.stdout.strip()
        out = self.run_ok("watch", u, g)
        # Not a terminal: plain lines, then the summary.
        self.assertRegex(out, r"\d\d:\d\d:\d\d import %s Terminated 100%% cli" % u)
        self.assertIn("2 of 2 terminated", out)
        self.assertRegex(out, r"georeferencing +%s +Terminated +cli +[\d.]+s +[\d.]+s" % g)
        tasks = self.run_ok("tasks", "--state", "Terminated")
        self.assertIn(u, tasks)
        self.assertIn(g, tasks)
        self.assertTrue(tasks.startswith("UUID "))
        self.assertNotIn(u, self.run_ok("tasks", "--state", "Ready"))
        nodes = self.run_ok("nodes")
        self.assertRegex(nodes, r"\ncli +127\.0\.0\.1:%d +master +dedicated +1/1"
                         % self.node.port)

    def test_estimates_in_tasks_and_watch(self):
        """Once a task type has run, its next task shows how long it
        should take and when it should end, in `tasks` and in what
        `watch` reads (PROGRESS eta=)."""
        # Long enough that the first is still running while `tasks`
        # reads all three, under valgrind too.
        slow = params_file(self.node.dir, 5000 if harness.WRAP else 1500)
        u = self.run_ok("schedule", "import", "-p", "/data/e", "-x",
                        slow).strip()
        self.run_ok("watch", u)
        c = self.node.client()
        try:
            v = c.schedule("import low -p /data/e -x %s" % slow)
            c.send("SUBSCRIBE %s\n" % v)
            running = [l for l in c.wait_states({v: "Running"})
                       if l.startswith("PROGRESS %s 0 Running" % v)]
            self.assertRegex(running[0], r" eta=\d+\.\d$")
            rows = [r for r in self.run_ok("tasks").splitlines() if v in r]
            self.assertEqual(len(rows), 1)
            # EST: what import took here on average; ENDS: from now.
            self.assertRegex(rows[0], r" Running .* cli +\d\d:\d\d:\d\d +\d+\.\ds "
                             r"in \d+\.\ds$")
            # Two more wait for the one slot: each is expected to end a
            # run after the one ahead of it, in `tasks` as in `watch`.
            w, x = (c.schedule("import low -p /data/e -x %s" % slow)
                    for _ in range(2))
            c.send("SUBSCRIBE %s\n" % x)
            told = [l for l in c.wait_states({x: "Ready"})
                    if l.startswith("PROGRESS %s 0 Ready" % x)]
            rows = {u: r for r in self.run_ok("tasks").splitlines()
                    for u in (v, w, x) if u in r}
            est = float(re.search(r" (\d+\.\d)s in ", rows[x]).group(1))
            ends = {u: float(re.search(r"in (\d+\.\d)s$", rows[u]).group(1))
                    for u in (v, w, x)}
            self.assertAlmostEqual(ends[w] - ends[v], est, delta=0.25)
            self.assertAlmostEqual(ends[x] - ends[w], est, delta=0.25)
            self.assertGreaterEqual(float(re.search(r" eta=(\d+\.\d)",
                                                    told[0]).group(1)),
                                    2 * est - 0.5)
            self.run_ok("cancel", w, x)
        finally:
            c.close()

    @unittest.skipIf(harness.WRAP, "dozens of command-line runs: under ASan+UBSan, "
                     "not valgrind (a minute)")
    def test_help_and_bad_arguments(self):
        for cmd in ("schedule", "submit", "watch", "cancel", "tasks", "nodes",
                    "idle", "log", "serve"):
            r = volery(cmd, "--help")
            self.assertEqual(r.returncode, 0, cmd)
            self.assertTrue(r.stdout.startswith("usage: volery " + cmd), r.stdout)
        self.assertIn("usage: volery schedule", self.run_fails(2, "schedule"))
        self.assertIn("usage:", self.run_fails(2, "schedule", "import", "-P", "urgent"))
        self.assertIn("usage:", self.run_fails(2, "watch"))
        self.assertIn("usage:", self.run_fails(2, "cancel"))
        self.assertIn("usage:", self.run_fails(2, "idle", "maybe"))
        self.assertIn("usage:", self.run_fails(2, "tasks", "extra"))
        self.assertIn("unknown command", self.run_fails(2, "frobnicate"))
        # One parser reads every subcommand's table: its errors name
        # what is wrong, then the usage.
        err = self.run_fails(2, "tasks", "--state")
        self.assertIn("--state needs STATE", err)
        self.assertIn("usage: volery tasks [-H host[:port]] [--state STATE]", err)
        self.assertIn("unknown option '-z'", self.run_fails(2, "nodes", "-z"))
        self.assertIn("-a needs UUID N", self.run_fails(2, "schedule", "import", "-a", "x"))
        self.assertIn("too many operands", self.run_fails(2, "idle", "on", "off"))
        self.assertIn("takes no argument", self.run_fails(2, "submit", "--watch=yes", "f.xml"))
        # Long options take their value either way; -Hhost is -H host.
        self.run_ok("tasks", "--state=Terminated", "-H" + self.host)
        self.run_ok("tasks", "--state", "Terminated")

    @unittest.skipIf(harness.WRAP, "dozens of command-line runs: under ASan+UBSan, "
                     "not valgrind (a minute)")
    def test_host_before_the_subcommand(self):
        # As in git, docker and tmux: global options come first.
        env = dict(self.env)
        del env["VOLERY_HOST"]
        u = self.run_ok("schedule", "import", "-p", "/data/x", "-x",
                        self.params).strip()
        for args in (["-H", self.host], ["-H" + self.host],
                     ["--host", self.host], ["--host=" + self.host]):
            r = volery(*(args + ["tasks"]), env=env)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            self.assertIn(u, r.stdout)
        # Before the subcommand it stands for $VOLERY_HOST: a -H after
        # the subcommand wins.
        r = volery("-H", "127.0.0.1:1", "nodes", "-H", self.host, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = volery("-H", "127.0.0.1:1", "nodes", env=env)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("127.0.0.1:1", r.stderr)
        for bad in (["-H"], ["-z", "tasks"], ["-H", self.host, "-q",
                                               "tasks"], ["--host=", "tasks"]):
            r = volery(*bad, env=env)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            self.assertIn("usage:", r.stderr)

    def test_host_forms_version_and_exit_statuses(self):
        env = dict(self.env)
        del env["VOLERY_HOST"]
        r = volery("--version", env=env)
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^volery \d+\.\d+\.\d+\n$")
        # Bad ports and hosts are bad arguments: 2, and nothing asked.
        for bad in ("127.0.0.1:99999", "127.0.0.1:http", "127.0.0.1:0",
                    "[::1", "[::1]x", ""):
            r = volery("-H", bad, "tasks", env=env) if bad else \
                volery("tasks", "-H", ":7600", env=env)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
        # A node's name: the local node tells its address and port.
        local = dict(env, VOLERY_SOCKET=os.path.join(self.node.dir, "state",
                                                     "volery.sock"))
        r = volery("-H", "cli", "nodes", env=local)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\ncli +127\.0\.0\.1:%d " % self.node.port)
        # IPv6, in brackets, to a node listening there.
        if not socket.has_ipv6:
            return
        v6 = Node(name="six")
        self.addCleanup(v6.cleanup)
        with open(v6.conf) as f:
            conf = f.read()
        with open(v6.conf, "w") as f:
            f.write(conf.replace("<listen>127.0.0.1:0</listen>",
                                 "<listen>[::1]:0</listen>"))
        try:
            v6.start()
        except AssertionError as e:
            if "cannot listen on [::1]" in str(e):
                self.skipTest("no IPv6 loopback here")
            raise
        r = volery("-H", "[::1]:%d" % v6.port, "nodes", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nsix +\[::1\]:%d " % v6.port)
        v6.stop()

    def test_a_lost_connection_exits_3(self):
        # A node that accepts, then closes: the connection is lost.
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        self.addCleanup(srv.close)

        def close_one():
            c, _ = srv.accept()
            c.recv(100)
            c.close()
        t = threading.Thread(target=close_one)
        t.start()
        r = volery("-H", "127.0.0.1:%d" % srv.getsockname()[1], "tasks",
                   env=self.env)
        t.join()
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("the node closed the connection", r.stderr)

    def test_error_replies_and_unreachable_node(self):
        self.assertIn("volery: unknown executable 'nosuch'",
                      self.run_fails(1, "schedule", "nosuch"))
        err = self.run_fails(1, "schedule", "georeferencing", "-a",
                             "00000000-0000-4000-8000-000000000000", "1",
                             "-a", "x", "1", "-a", "y", "1")
        self.assertTrue(err.startswith("volery: "), err)
        self.assertIn("unknown task", self.run_fails(
            1, "watch", "00000000-0000-4000-8000-000000000000"))
        self.assertIn("volery: ", self.run_fails(
            1, "cancel", "00000000-0000-4000-8000-000000000000"))
        self.assertIn("--state Sleeping: Submitted, Ready",
                      self.run_fails(2, "tasks", "--state", "Sleeping"))
        # A node that cannot be reached is 3, not a failure of the task.
        r = volery("nodes", "-H", "127.0.0.1:1", env=self.env)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(r.stderr, "volery: cannot reach the node at "
                         "127.0.0.1:1: Connection refused\n")
        self.assertIn("cannot reach", self.run_fails(
            3, "schedule", "import", "-H", "127.0.0.1:1"))

    def test_cancel_and_failed_tasks_make_watch_fail(self):
        slow = params_file(self.node.dir, 30000)
        u = self.run_ok("schedule", "import", "-p", "/x", "-x", slow).strip()
        self.assertEqual(self.run_ok("cancel", u).strip(), "CANCELLED " + u)
        r = volery("watch", u, env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stdout, r"Cancelled")
        c = self.run_ok("schedule", "crasher").strip()
        r = volery("watch", c, env=self.env)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("0 of 1 terminated", r.stdout)
        self.assertIn("attempts-exhausted", r.stdout)


class Submit(CliTest):
    def test_submit_and_watch(self):
        path = self.workflow_file(WORKFLOW % {"prio": "interactive",
                                              "params": self.params})
        r = volery("submit", path, "--watch", env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ids = re.findall(r"^([IGSA]) ([0-9a-f-]{36})$", r.stdout, re.M)
        self.assertEqual([i for i, _ in ids], ["I", "G", "S", "A"])
        self.assertIn("4 of 4 terminated", r.stdout)
        # Bound as the file says: A reads S's output.
        uu = dict(ids)
        tasks = self.node.client().tasks()
        self.assertEqual(tasks[uu["A"]][:3], ("anomaly_detection", "interactive",
                                             "Terminated"))
        args = harness.started_args(self.node, uu["S"])[0]
        self.assertEqual(args.count(" -i "), 3)

    def test_relative_params_are_relative_to_the_file(self):
        d = harness.make_workdir(prefix="volery-wf-", dir=self.node.dir)
        shutil.copy(self.params, os.path.join(d, "p.xml"))
        path = os.path.join(d, "wf.xml")
        with open(path, "w") as f:
            f.write('<workflow><task id="I" name="import"><path>/x</path>'
                    '<params>p.xml</params></task></workflow>\n')
        out = self.run_ok("submit", path)
        u = out.split()[1]
        self.assertIn("-x %s" % os.path.join(d, "p.xml"),
                      self.node.wait_log(r"Task UUID\{%s\} executable import "
                                         r"started.*" % u).group(0))

    BROKEN = [
        # (file text, expected "line: message" fragments)
        ('<workflow>\n<task id="I" name="imprt"><path>/x</path></task>\n</workflow>\n',
         [r":2: task 'I': no task named 'imprt'"]),
        ('<workflow>\n<task id="I" name="import"><path>/x</path></task>\n'
         '<task id="G" name="georeferencing">\n<input task="I" output="1"/>\n</task>\n</workflow>\n',
         [r":3: task 'G': georeferencing takes 3 inputs, not 1"]),
        ('<workflow>\n<task id="I" name="import"><path>/x</path></task>\n'
         '<task id="A" name="anomaly_detection">\n<input task="I" output="7"/>\n</task>\n</workflow>\n',
         [r":4: task 'A' input 1: import 'I' has 3 outputs; there is no output 7"]),
        ('<workflow>\n<task id="I" name="import"><path>/x</path></task>\n'
         '<task id="I" name="import"><path>/y</path></task>\n</workflow>\n',
         [r":3: duplicate task id 'I' \(first on line 2\)"]),
        ('<workflow>\n<task id="S" name="segmentation">\n<input task="S2" output="1"/>\n'
         '<input task="S2" output="1"/>\n<input task="S2" output="1"/>\n</task>\n'
         '<task id="S2" name="segmentation">\n<input task="S" output="1"/>\n'
         '<input task="S" output="1"/>\n<input task="S" output="1"/>\n</task>\n</workflow>\n',
         [r":2: task 'S' is on a dependency cycle", r":7: task 'S2' is on a dependency cycle"]),
        ('<workflow>\n<task id="I" name="import"/>\n</workflow>\n',
         [r":2: task 'I': import needs a <path>"]),
        ('<workflow>\n<task id="A" name="anomaly_detection">\n<input task="Z" output="1"/>\n'
         '</task>\n</workflow>\n',
         [r":3: task 'A' input 1: no task 'Z' in this file"]),
        ('<workflow priority="urgent">\n<job id="I"/>\n</workflow>\n',
         [r":1: <workflow>: priority 'urgent'", r":2: <job>: unknown element"]),
        ('<workflow>\n<task id="I" name="import">\n</workflow>\n',
         [r":\d+: .*"]),
        ('<tasks/>\n', [r":1: the root element must be <workflow>"]),
    ]

    @unittest.skipIf(harness.WRAP, "dozens of command-line runs: under ASan+UBSan, "
                     "not valgrind (a minute)")
    def test_broken_files_are_refused_whole(self):
        before = self.ntasks()
        for text, want in self.BROKEN:
            path = self.workflow_file(text)
            r = volery("submit", path, env=self.env)
            self.assertEqual(r.returncode, 1, (text, r.stdout, r.stderr))
            self.assertEqual(r.stdout, "", text)
            for w in want:
                self.assertRegex(r.stderr, re.escape(path) + w, text)
        self.assertEqual(self.ntasks(), before)
        r = volery("submit", "/nonexistent/wf.xml", env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "volery: /nonexistent/wf.xml: No such file "
                         "or directory\n")

    def test_a_task_the_node_refuses_cancels_the_files_others(self):
        """submit sends many tasks at once: when the node refuses one (its
        input is a uuid it does not know), those sent before it and those
        already on their way after it are all cancelled."""
        before = set(self.node.client().tasks())
        unknown = "33333333-3333-4333-8333-333333333333"
        cmds = "".join('<command id="c%d" requires="nosuchtag"><arg>/bin/true'
                       '</arg></command>\n' % k for k in range(100))
        path = self.workflow_file(
            "<workflow>\n" + cmds +
            '<command id="bad"><arg>/bin/true</arg><input task="%s" '
            'output="1"/></command>\n' % unknown +
            cmds.replace('id="c', 'id="d') + "</workflow>\n")
        r = volery("submit", path, env=self.env)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("unknown task %s" % unknown, r.stderr)
        self.assertIn(":102: task 'bad' was not scheduled", r.stderr)
        m = re.search(r"the (\d+) tasks of the file that were scheduled were "
                      r"cancelled", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        ours = {u: f for u, f in self.node.client().tasks().items()
                if u not in before}
        # The hundred before it, and some sent after it.
        self.assertGreaterEqual(len(ours), 100)
        self.assertEqual(len(ours), int(m.group(1)))
        self.assertEqual({f[2] for f in ours.values()}, {"Cancelled"})


class LogSearch(CliTest):
    LINES = [
        "[2026-11-20 23:59:58]: <debug> TRY_DEQUEUE UUID[%(a)s] was broadcast",
        "[2026-11-21 00:00:01]: <info> Task(UUID{%(a)s} name{import} state{Running})",
        "[2026-11-21 00:10:00]: <warning> Task UUID{%(b)s} name{segmentation} attempt 1 of 3 failed",
        "[2026-11-21 01:00:00]: <error> cannot listen on 127.0.0.1:7600",
        "[2026-11-21 02:30:00]: <normal> node cli stopping (signal 15)",
        "[2026-11-21 02:30:01]: <info> Task(UUID{%(b)s} name{segmentation} state{Terminated})",
    ]
    A = "11111111-1111-4111-8111-111111111111"
    B = "22222222-2222-4222-8222-222222222222"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="volery-log-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.log = os.path.join(self.dir, "v.log")
        with open(self.log, "w") as f:
            for l in self.LINES:
                f.write(l % {"a": self.A, "b": self.B} + "\n")

    def search(self, *args):
        out = self.run_ok("log", self.log, *args)
        return [self.LINES.index(next(l for l in self.LINES
                                     if (l % {"a": self.A, "b": self.B}) == o))
                for o in out.splitlines()]

    @unittest.skipIf(harness.WRAP, "dozens of command-line runs: under ASan+UBSan, "
                     "not valgrind (a minute)")
    def test_filters(self):
        self.assertEqual(self.search(), [0, 1, 2, 3, 4, 5])
        self.assertEqual(self.search("-g", r"name\{segm"), [2, 5])
        self.assertEqual(self.search("-l", "warning"), [2, 3])
        self.assertEqual(self.search("-l", "info"), [1, 2, 3, 4, 5])
        self.assertEqual(self.search("-t", self.A), [0, 1])
        self.assertEqual(self.search("--since", "2026-11-21"), [1, 2, 3, 4, 5])
        # A bound to the minute covers that whole minute.
        self.assertEqual(self.search("--since", "2026-11-21 00:10",
                                     "--until", "2026-11-21 02:30"), [2, 3, 4, 5])
        self.assertEqual(self.search("--since", "2026-11-21T00:10:00",
                                     "--until", "2026-11-21 02:30:00"), [2, 3, 4])
        self.assertEqual(self.search("--until", "2026-11-20"), [0])
        self.assertEqual(self.search("-n", "2"), [4, 5])
        self.assertEqual(self.search("-t", self.B, "-l", "info", "-g",
                                     "Terminated"), [5])
        self.assertEqual(self.search("-g", "nothing matches this"), [])

    def test_invalid_arguments(self):
        r = volery("log", self.log, "-g", "state{(Run")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "volery: bad regular expression at offset 10: "
                         "missing closing parenthesis\n")
        r = volery("log", self.log, "--since", "last tuesday")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a time", r.stderr)
        self.assertIn("-l:", volery("log", self.log, "-l", "loud").stderr)
        self.assertIn("No such file", volery("log", "/nonexistent.log").stderr)

    def test_remote_log_through_the_node(self):
        u = self.run_ok("schedule", "import", "-p", "/x", "-x", self.params).strip()
        self.run_ok("watch", u)
        out = self.run_ok("log", "-H", self.host, "-t", u, "-g", r"state\{Terminated")
        self.assertEqual(len(out.splitlines()), 1, out)
        self.assertIn("makespan{", out)
        out = self.run_ok("log", "-t", u, "-n", "1", "--since", "1h")
        self.assertEqual(len(out.splitlines()), 1)
        out = self.run_ok("log", "-l", "error", "--until", "2000-01-01")
        self.assertEqual(out, "")
        r = volery("log", "-H", self.host, "-g", "a(", env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("offset 2", r.stderr)
        # Straight to the node: its own PCRE2 message.
        c = self.node.client()
        self.assertEqual(c.ask("LOG -g a("), "ERROR bad regular expression "
                         "at offset 2: missing closing parenthesis")

    def follower(self, *args):
        """Start `volery log ARGS -f`; return (process, its lines so far,
        wait_for(text))."""
        p = subprocess.Popen([harness.VOLERY, "log"] + list(args) + ["-f"],
                             stdout=subprocess.PIPE, text=True, env=self.env)
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        lines = []
        cond = threading.Condition()

        def read():
            for l in p.stdout:
                with cond:
                    lines.append(l.strip())
                    cond.notify_all()
        threading.Thread(target=read, daemon=True).start()

        def wait_for(text):
            deadline = time.monotonic() + TIMEOUT
            with cond:
                while not any(text in l for l in lines):
                    left = deadline - time.monotonic()
                    self.assertGreater(left, 0, "never saw %r in %r" % (text, lines))
                    cond.wait(left)
        return p, lines, wait_for

    def test_follow_survives_rotation(self):
        p, lines, wait_for = self.follower(self.log, "-g", "tick")

        def append(path, text):
            with open(path, "a") as f:
                f.write("[2026-11-21 03:00:00]: <info> %s\n" % text)

        append(self.log, "tick one")
        wait_for("tick one")
        os.rename(self.log, self.log + ".1")      # logrotate's move
        append(self.log + ".1", "tick late in the old file")
        append(self.log, "tick two in the new file")
        wait_for("tick two in the new file")
        wait_for("tick late in the old file")
        # copytruncate, then a longer line, while the follower cannot
        # look (stopped): it must still notice the file was rewritten.
        p.send_signal(signal.SIGSTOP)
        with open(self.log, "w"):
            pass
        append(self.log, "tick three after truncation, longer than before")
        p.send_signal(signal.SIGCONT)
        wait_for("tick three after truncation, longer than before")
        self.assertFalse(any("tock" in l for l in lines))

    def test_follow_a_node_across_rotation(self):
        p, lines, wait_for = self.follower("-H", self.host, "-g",
                                           r"executable\simport\sstarted")
        u1 = self.run_ok("schedule", "import", "-p", "/x", "-x", self.params).strip()
        wait_for(u1)
        # logrotate: move the file away, SIGHUP; the node says so in
        # the new file.
        log = self.node.logfile
        os.rename(log, log + ".1")
        self.addCleanup(lambda: os.path.exists(log + ".1") and os.remove(log + ".1"))
        # Before the node reopens, the path names nothing: LOG still
        # reads the file the node writes (a follower asking now goes on).
        got = self.node.client().ask_multi(r"LOG -g executable\simport")
        self.assertEqual(len(got), 1, got)
        self.assertIn(u1, got[0])
        self.node.proc.send_signal(signal.SIGHUP)
        self.node.wait_log(r"log file reopened \(SIGHUP\)")
        u2 = self.run_ok("schedule", "import", "-p", "/x", "-x", self.params).strip()
        wait_for(u2)
        u3 = self.run_ok("schedule", "import", "-p", "/x", "-x", self.params).strip()
        wait_for(u3)
        # Each once, though the node is asked again every second.
        for u in (u1, u2, u3):
            self.assertEqual(sum(u in l for l in lines), 1, (u, lines))


class Terminal(CliTest):
    def tmux_run(self, path, rows, cols=120, meanwhile=None):
        """submit --watch path in a tmux terminal of cols x rows (then
        meanwhile(tmux) while it runs); the screen once it exited."""
        sock = "volery-test-%d" % os.getpid()
        tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
        self.addCleanup(subprocess.run, tmux + ["kill-server"],
                        capture_output=True)
        # The command signals a tmux channel when done: an event to
        # wait on, not a time.
        cmd = ("VOLERY_HOST=%s VOLERY_TASKS=%s %s submit %s --watch; "
               "echo EXIT=$?; tmux -L %s wait-for -S done; sleep 600"
               % (self.host, self.node.tasks, harness.VOLERY, path, sock))
        subprocess.run(tmux + ["new-session", "-d", "-x", str(cols), "-y",
                               str(rows), "sh", "-c", cmd], check=True,
                       timeout=TIMEOUT)
        if meanwhile is not None:
            meanwhile(tmux)
        subprocess.run(tmux + ["wait-for", "done"], check=True, timeout=TIMEOUT)
        # With what scrolled off the top: the summary follows the bars.
        screen = subprocess.run(tmux + ["capture-pane", "-p", "-S", "-200"],
                                check=True, capture_output=True, text=True).stdout
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        return screen

    def test_submit_watch_draws_bars_under_tmux(self):
        if shutil.which("tmux") is None:
            self.skipTest("tmux is not installed")
        path = self.workflow_file(WORKFLOW % {"prio": "low",
                                              "params": self.params})
        screen = self.tmux_run(path, rows=40)
        self.assertIn("EXIT=0", screen)
        # Each bar shows the task's own id, once (not the name as well).
        bars = re.findall(r"^([IGSA]) +\[(#+)\] 100% Terminated +cli *$",
                          screen, re.M)
        self.assertEqual([b[0] for b in bars], ["I", "G", "S", "A"], screen)
        self.assertTrue(all(len(b[1]) == 24 for b in bars))
        # Redrawn in place: one bar line per task, no plain progress lines.
        self.assertEqual(len(re.findall(r"^I +\[", screen, re.M)), 1)
        self.assertNotRegex(screen, r"\d\d:\d\d:\d\d I ")
        self.assertIn("4 of 4 terminated", screen)

    def test_watch_fits_the_terminal_and_follows_a_resize(self):
        if shutil.which("tmux") is None:
            self.skipTest("tmux is not installed")
        slow = params_file(self.node.dir, 2500)
        path = self.workflow_file(
            '<workflow>%s</workflow>\n' % "".join(
                '<task id="a_rather_long_task_label_%d" name="import"><path>/x'
                '</path><params>%s</params></task>\n' % (i, slow)
                for i in range(3)), name="fits.xml")

        def shrink(tmux):
            # Once bars are drawn, the terminal narrows to 50 columns.
            def drawn():
                return "] " in subprocess.run(
                    tmux + ["capture-pane", "-p"], capture_output=True,
                    text=True).stdout
            harness.wait_until(drawn, "no bars drawn")
            subprocess.run(tmux + ["resize-window", "-x", "50", "-y", "12"],
                           check=True)
        screen = self.tmux_run(path, rows=12, cols=100, meanwhile=shrink)
        self.assertIn("EXIT=0", screen)
        # After the resize, every bar line fits 49 columns, label cut.
        last = screen[screen.rindex("a_rather"):]
        bars = [l for l in screen.splitlines() if "] " in l and "%" in l]
        self.assertTrue(bars, screen)
        self.assertTrue(all(len(l) <= 49 for l in bars[-3:]), bars)
        self.assertIn("workflow fits.xml: 3 tasks:", screen)
        self.assertIn("workflow fits.xml: 3 of 3 terminated", last)

    def test_more_tasks_than_the_screen_holds(self):
        if shutil.which("tmux") is None:
            self.skipTest("tmux is not installed")
        path = self.workflow_file("<workflow>%s</workflow>\n" % "".join(
            '<task id="T%02d" name="import"><path>/x</path><params>%s</params>'
            '</task>\n' % (i, self.params) for i in range(12)))
        screen = self.tmux_run(path, rows=8)
        self.assertIn("EXIT=0", screen)
        # 6 lines of bars: the last 5 tasks that ended, then the count.
        bars = re.findall(r"^(T\d\d) +\[#+\] 100% Terminated", screen, re.M)
        self.assertEqual(bars, ["T07", "T08", "T09", "T10", "T11"], screen)
        self.assertIn("12 tasks: 0 running, 0 waiting, 12 ended", screen)


class Keys(unittest.TestCase):
    """`volery keygen` and the key checks of `volery serve -n`."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="volery-keys-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def run_volery(self, *args):
        return subprocess.run([harness.VOLERY] + list(args), capture_output=True,
                              text=True, timeout=TIMEOUT)

    def check(self, body):
        conf = os.path.join(self.dir, "node.xml")
        with open(conf, "w") as f:
            f.write("<server>\n  <state_dir>state</state_dir>\n%s\n</server>\n" % body)
        return self.run_volery("serve", "-n", "-c", conf)

    def test_keygen_writes_a_private_key_once(self):
        key = os.path.join(self.dir, "cluster.key")
        r = self.run_volery("keygen", key)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.stat(key).st_mode & 0o777, 0o600)
        with open(key) as f:
            first = f.read()
        self.assertEqual(len(base64.b64decode(first.strip())), 32)
        # Never overwritten; a second key differs.
        r = self.run_volery("keygen", key)
        self.assertEqual(r.returncode, 1)
        self.assertIn("never overwritten", r.stderr)
        with open(key) as f:
            self.assertEqual(f.read(), first)
        other = os.path.join(self.dir, "other.key")
        self.run_volery("keygen", other)
        with open(other) as f:
            self.assertNotEqual(f.read(), first)
        self.assertEqual(self.run_volery("keygen").returncode, 2)

    def test_users_own_limits_are_checked(self):
        self.assertEqual(self.check("<max_running_of>alice:8, bob 2</max_running_of>")
                         .returncode, 1)
        self.assertEqual(self.check("<max_running_of>alice:8, bob:2</max_running_of>")
                         .returncode, 0)
        r = self.check("<max_running_of>Robert:1</max_running_of>")
        self.assertIn("<max_running_of>: expected user:N pairs", r.stderr)

    def test_serve_checks_the_keys(self):
        key = os.path.join(self.dir, "cluster.key")
        self.run_volery("keygen", key)
        lan = "<broadcast>10.213.0.255</broadcast>"
        admin = os.path.join(self.dir, "admin.key")
        self.run_volery("keygen", "--admin", admin)
        # A LAN node without a key refuses; without an admin key too;
        # with both, or insecure, starts.
        r = self.check(lan)
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not loopback and no cluster key", r.stderr)
        r = self.check(lan + "<keyring><key>cluster.key</key></keyring>")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not loopback and no <admin_key> is named", r.stderr)
        self.assertEqual(self.check(lan + "<keyring><key>cluster.key</key></keyring>"
                                    "<admin_key>admin.key.pub</admin_key>")
                         .returncode, 0)
        r = self.check(lan + "<keyring><key>cluster.key</key></keyring>"
                       "<admin_key>cluster.key</admin_key>")
        self.assertIn("is not a volery key file", r.stderr)
        self.assertEqual(self.check(lan + "<insecure/>").returncode, 0)
        # A loopback node needs nothing: it takes its user's key at start.
        self.assertEqual(self.check("").returncode, 0)
        # Bad key files, each with the reason.
        os.chmod(key, 0o644)
        r = self.check("<keyring><key>cluster.key</key></keyring>")
        self.assertIn("can be read by others (mode 644): chmod 600 it", r.stderr)
        bad = os.path.join(self.dir, "bad.key")
        with open(bad, "w") as f:
            f.write("not base64 at all\n")
        os.chmod(bad, 0o600)
        r = self.check("<keyring><key>bad.key</key></keyring>")
        self.assertIn("is not a volery key", r.stderr)
        r = self.check("<keyring><key>missing.key</key></keyring>")
        self.assertIn("missing.key: No such file", r.stderr)
        r = self.check("<keyring/>")
        self.assertIn("<keyring>: no <key> in it", r.stdout + r.stderr)
        r = self.check("<keyring><key>cluster.key</key></keyring><insecure/>")
        self.assertIn("choose one", r.stdout + r.stderr)


class ManPages(unittest.TestCase):
    def test_pages_render_without_warnings(self):
        if shutil.which("man") is None:
            self.skipTest("man is not installed")
        pages = ["volery.1", "volery.conf.5", "volery-task.5", "volery-protocol.7",
                 "volery-api.7"]
        for page in pages:
            path = os.path.join(ROOT, "man", page)
            r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True,
                               text=True, timeout=TIMEOUT,
                               env=dict(os.environ, MANWIDTH="80", MANPAGER="cat",
                                        PAGER="cat"))
            self.assertEqual(r.returncode, 0, (page, r.stderr))
            self.assertEqual(r.stderr, "", page)
            self.assertGreater(len(r.stdout), 1000, page)

    def test_every_subcommand_and_config_element_is_documented(self):
        with open(os.path.join(ROOT, "man", "volery.1")) as f:
            page = f.read()
        r = subprocess.run([harness.VOLERY, "--help"], capture_output=True, text=True)
        cmds = re.findall(r"^  (\w+) ", r.stdout, re.M)
        self.assertGreaterEqual(len(cmds), 9)
        for cmd in cmds:
            self.assertIn(".SS volery %s" % cmd, page.replace("\\-", "-"))
        with open(os.path.join(ROOT, "man", "volery.conf.5")) as f:
            conf = f.read()
        with open(os.path.join(ROOT, "conf", "volery.conf.xml")) as f:
            elements = set(re.findall(r"^\s*<(\w+)[ >]", f.read(), re.M)) - {"server"}
        for el in elements:
            self.assertIn(".B %s" % el, conf, el)

    def test_bash_completion_knows_every_subcommand_and_long_option(self):
        path = os.path.join(ROOT, "conf", "volery.bash-completion")
        r = subprocess.run([harness.VOLERY, "--help"], capture_output=True, text=True)
        cmds = re.findall(r"^  (\w+) ", r.stdout, re.M)
        for cmd in cmds:
            # What bash offers after `volery CMD --`, by the script itself.
            script = ("source %s; COMP_WORDS=(volery %s --); COMP_CWORD=2; "
                      "_volery; printf '%%s\\n' \"${COMPREPLY[@]}\"" % (path, cmd))
            got = subprocess.run(["bash", "-c", script], capture_output=True,
                                 text=True).stdout.split()
            usage = subprocess.run([harness.VOLERY, cmd, "--help"],
                                   capture_output=True, text=True).stdout
            for opt in re.findall(r"\[(--[a-z-]+)", usage):
                self.assertIn(opt, got, (cmd, opt))
            self.assertIn("--help", got)
        script = ("source %s; COMP_WORDS=(volery hi); COMP_CWORD=1; _volery; "
                  "printf '%%s\\n' \"${COMPREPLY[@]}\"" % path)
        self.assertEqual(subprocess.run(["bash", "-c", script], capture_output=True,
                                        text=True).stdout.split(), ["history"])


if __name__ == "__main__":
    unittest.main()

"""Accounting (issue 14): `volery history` tells each finished task's
times, runner, attempts, exit status, CPU time, peak memory, scheduler and
submitting user, filtered like sacct, as a table or JSON, the same before
and after the task leaves the map and after a restart."""
import json
import os
import pwd
import subprocess
import time
import unittest
import urllib.request

import harness
from harness import TIMEOUT, Node

# A few hundred ms of CPU in a shell loop, whatever the machine.
BURN = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"


def volery(*args, env=None):
    return subprocess.run(harness.WRAP + [harness.VOLERY] + list(args),
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env=env)


class Accounting(unittest.TestCase):
    def setUp(self):
        self.node = Node(name="acct", slots=2,
                         extra="<max_attempts>2</max_attempts>"
                         "<cancel_grace_ms>300</cancel_grace_ms>")
        self.addCleanup(self.node.cleanup)
        self.node.start()
        self.host = "127.0.0.1:%d" % self.node.port
        # The CLI on this host, through the node's UNIX socket.
        self.env = dict(os.environ, VOLERY_SOCKET=os.path.join(
            self.node.dir, "state", "volery.sock"))
        self.me = pwd.getpwuid(os.getuid()).pw_name

    def run_cmd(self, *argv):
        r = volery("run", "--", *argv, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def history(self, *args):
        r = volery("-H", self.host, "history", "--json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return {t["uuid"]: t for t in json.loads(r.stdout)}

    def finish(self, c, want):
        c.ask("SUBSCRIBE " + " ".join(want))
        c.wait_states(want)
        # The end is confirmed; the reply to SUBSCRIBE told it final.

    def test_history_tells_what_each_task_did_and_cost(self):
        c = self.node.client()
        self.addCleanup(c.close)
        burn = self.run_cmd("sh", "-c", BURN)
        fail = self.run_cmd("sh", "-c", "exit 3")
        # Scheduled over TCP from this host: its owner is known too.
        imp = c.schedule("import low -p /data/x")
        self.finish(c, {burn: "Terminated", fail: "Failed",
                        imp: "Terminated"})
        h = self.history()
        self.assertEqual(set(h), {burn, fail, imp})
        for t in h.values():
            self.assertEqual(t["user"], self.me)
            self.assertEqual(t["scheduler"], "acct")
            self.assertLessEqual(t["submit_ms"], t["ready_ms"])
            self.assertLessEqual(t["ready_ms"], t["start_ms"])
            self.assertLessEqual(t["start_ms"], t["end_ms"])
            self.assertEqual(t["wait_ms"], t["start_ms"] - t["ready_ms"])
            self.assertEqual(t["elapsed_ms"], t["end_ms"] - t["start_ms"])
            self.assertGreater(t["maxrss_kib"], 0)
        b = h[burn]
        self.assertEqual((b["state"], b["node"], b["attempts"], b["exit_code"],
                          b["exit_signal"]), ("Terminated", "acct", 1, 0, None))
        self.assertGreaterEqual(b["cpu_ms"], 50, b)
        self.assertEqual(b["command"], ["sh", "-c", BURN])
        f = h[fail]
        self.assertEqual((f["state"], f["attempts"], f["exit_code"]),
                         ("Failed", 2, 3))
        self.assertIn("exit status 3", f["reason"])
        self.assertEqual(h[imp]["name"], "import")

        # Filters, as sacct's.
        self.assertEqual(set(self.history("--state", "Failed")), {fail})
        self.assertEqual(set(self.history("-s", "terminated,failed")),
                         {burn, fail, imp})
        self.assertEqual(set(self.history("--node", "acct")), {burn, fail, imp})
        self.assertEqual(self.history("--node", "elsewhere"), {})
        self.assertEqual(set(self.history("--user", self.me)), {burn, fail, imp})
        self.assertEqual(self.history("--user", "nobody-else"), {})
        self.assertEqual(set(self.history("--since", "1h ago")), {burn, fail, imp})
        self.assertEqual(set(self.history("--since", "10 minutes ago",
                                          "--until", "now")), {burn, fail, imp})
        self.assertEqual(self.history("--until", "2001-01-01"), {})
        later = time.strftime("%Y-%m-%d", time.localtime(time.time() + 2 * 86400))
        self.assertEqual(self.history("--since", later), {})

        # A table of the fields asked for, in that order.
        r = volery("-H", self.host, "history", "--format", "uuid,exit,attempts",
                   "--state", "Failed")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [l.split() for l in r.stdout.splitlines()]
        self.assertEqual(rows, [["UUID", "EXIT", "ATTEMPTS"], [fail, "3:0", "2"]])
        # Bad arguments say why and exit 2.
        for bad, word in ((["--format", "uuid,colour"], "colour"),
                          (["--since", "last tuesday"], "last tuesday")):
            r = volery("-H", self.host, "history", *bad)
            self.assertEqual(r.returncode, 2, (bad, r.stdout))
            self.assertIn(word, r.stderr)
        r = volery("-H", self.host, "history", "--state", "Running")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Terminated, Cancelled, Failed", r.stderr)



    def test_a_result_counts_when_its_process_has_exited(self):
        c = self.node.client()
        self.addCleanup(c.close)
        u = c.schedule("lingerer low")
        c.ask("SUBSCRIBE " + u)
        # It said TERMINATED and kept running: stopped after the grace.
        self.node.wait_log(r"Task UUID\{%s\} name\{lingerer\} pid \d+ still "
                           r"running 300 ms after its TERMINATED; SIGTERM" % u)
        c.wait_states({u: "Terminated"})
        t = self.history()[u]
        self.assertEqual((t["state"], t["exit_code"], t["exit_signal"]),
                         ("Terminated", None, 15))
        self.assertGreaterEqual(t["elapsed_ms"], 250)     # the grace, give or take
        r = volery("-H", self.host, "history", "-o", "name,exit")
        self.assertEqual(r.stdout.split(), ["NAME", "EXIT", "lingerer", "0:15"])

class Kept(unittest.TestCase):
    def test_history_is_the_same_after_retirement_and_a_restart(self):
        node = Node(name="keep", extra="<node_timeout_ms>1000</node_timeout_ms>"
                    "<membership_timeout_s>1</membership_timeout_s>"
                    "<retention_s>1</retention_s>")
        self.addCleanup(node.cleanup)
        node.start()
        host = "127.0.0.1:%d" % node.port
        c = node.client()
        # Short: a task not ended two retention periods after it was
        # scheduled is given up.
        u = c.schedule("import low -p /data/y -x " +
                       harness.params_file(node.dir, 50))
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Terminated"})

        def history():
            r = volery("-H", host, "history", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)

        before = history()
        self.assertEqual([t["uuid"] for t in before], [u])
        self.assertIsNotNone(before[0]["cpu_ms"])
        node.wait_log(r"Task UUID\{%s\} name\{import\} Terminated, ended over "
                      r"the retention period ago: moved to the history" % u)
        self.assertNotIn(u, c.tasks())
        self.assertEqual(history(), before)
        c.close()
        node.stop()
        node.start()
        host = "127.0.0.1:%d" % node.port
        self.assertEqual(history(), before)
        node.stop()


if __name__ == "__main__":
    unittest.main()


class WorkstationDays(unittest.TestCase):
    """The time each workstation spent in each volunteer state, per day
    (the dashboard's days chart), kept across a restart; a corrupt
    record is said and skipped, not believed."""

    def test_days_survive_a_restart_and_a_corrupt_line_is_skipped(self):
        node = Node(name="days", extra="<http>127.0.0.1:0</http>")
        self.addCleanup(node.cleanup)
        node.start()

        def dedicated():
            port = node.http_port()
            with urllib.request.urlopen("http://127.0.0.1:%d/api/stats"
                                        % port, timeout=TIMEOUT) as f:
                today = json.load(f)["days"][-1]
            return today["day"], today["nodes"]["days"]["dedicated"]
        day, first = dedicated()
        node.stop()
        path = os.path.join(node.dir, "state", "pooltime")
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 1, lines)
        name, date, *ms = lines[0].split()
        self.assertEqual((name, date, len(ms)), ("days", day, 6))
        kept = int(ms[3])	# idle busy batch dedicated suspended clash
        self.assertGreaterEqual(kept, first)
        with open(path, "a") as f:
            f.write("days 2026-13-40 1 2 3 4 5 6\nnonsense\n")
        open(node.logfile, "w").close()
        node.start()
        node.wait_log(r"pooltime: 2 bad lines skipped")
        day2, again = dedicated()
        if day2 == day:	# not across a midnight
            self.assertGreaterEqual(again, kept)

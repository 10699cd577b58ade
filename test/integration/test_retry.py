"""Retries that learn (issue 37): a failed attempt goes to a node that
has not failed it, a while later; a workstation whose runs keep failing
while the same tasks succeed elsewhere (a "black hole": a full disk, a
missing library) stops volunteering, says why, and an admin lets it back;
`volery history` shows each attempt's node and exit."""
import json
import subprocess
import unittest

import harness
from harness import TIMEOUT, Cluster


def volery(*args):
    return subprocess.run(harness.WRAP + [harness.VOLERY] + list(args),
                          capture_output=True, text=True, timeout=TIMEOUT)


class BlackHole(unittest.TestCase):
    def setUp(self):
        self.cl = Cluster(())
        self.addCleanup(self.cl.cleanup)
        for name in ("good1", "good2"):
            self.cl.add(name, extra="<tags>good</tags>")
        self.cl.add("hole")
        self.cl.master()
        # A run learns its run dir in TMPDIR, under its node's own
        # directory: there the hole's runs fail, as on a full disk.
        self.script = ('case "$TMPDIR" in %s/*) echo disk full >&2; '
                       'exit 7;; esac; sleep 0.1' %
                       self.cl.nodes["hole"].dir)

    def host(self, name):
        return "127.0.0.1:%d" % self.cl.nodes[name].port

    def ok(self, *args, on="good1"):
        r = volery("-H", self.host(on), *args)
        self.assertEqual(r.returncode, 0, "%s\n%s\n%s" % (
            r.stderr, r.stdout,
            "\n".join(n.log() for n in self.cl.nodes.values())))
        return r.stdout

    def run_all(self, count):
        uuids = [self.ok("run", "--cwd", "/", "--", "sh", "-c",
                         self.script).strip() for _ in range(count)]
        c = self.cl.nodes["good1"].client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(uuids))
        c.wait_states({u: "Terminated" for u in uuids})
        return uuids

    def history(self, uuids):
        h = {t["uuid"]: t for t in json.loads(self.ok("history", "--json"))}
        return [h[u] for u in uuids]

    def test_a_black_hole_stops_and_the_others_finish_its_tasks(self):
        # The good nodes busy a while: the hole is the only node free,
        # so it takes the work -- and fails it, fast.
        # (Under valgrind, twelve `volery run`s take longer than 3 s.)
        busy = [self.ok("run", "--cwd", "/", "--requires", "good", "--",
                        "sleep", "10" if harness.WRAP else "3").strip()
                for _ in range(2)]
        c = self.cl.nodes["good1"].client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(busy))
        c.wait_states({u: "Running" for u in busy})
        uuids = self.run_all(12)
        # Every task ended well; each that failed on the hole went
        # elsewhere and was never tried there again.
        failed_there = 0
        for t in self.history(uuids):
            nodes = [a["node"] for a in t["failed_attempts"]]
            self.assertNotEqual(t["node"], "hole", t)
            self.assertLessEqual(nodes.count("hole"), 1, t)
            for a in t["failed_attempts"]:
                self.assertEqual((a["node"], a["exit_code"]), ("hole", 7))
            failed_there += len(nodes)
        self.assertGreaterEqual(failed_there, 3)
        # The table tells each attempt: the hole's, then the good one's.
        rows = self.ok("history", "--format", "uuid,tries").splitlines()
        self.assertIn("hole=7:0,good", "\n".join(rows))

        # Three tasks failed there and succeeded elsewhere: it stopped,
        # says why, and every node sees it.
        self.cl.nodes["hole"].wait_log("quarantined: 3 tasks failed here")
        out = self.ok("nodes", on="hole")
        self.assertIn("quarantined: 3 tasks failed here and succeeded "
                      "elsewhere", out)
        me = [n for n in json.loads(self.ok("nodes", "--json", on="hole"))
              if n["self"]][0]
        self.assertEqual(me["state"], "quarantined")
        self.assertIn("succeeded elsewhere", me["quarantine"]["why"])
        harness.wait_until(
            lambda: " quarantined " in self.ok("nodes", on="good2"),
            "good2 sees the hole quarantined")

        # New work runs only on the others.
        for t in self.history(self.run_all(6)):
            self.assertEqual(t["failed_attempts"], [], t)
            self.assertNotEqual(t["node"], "hole")

        # A restart does not end it (kill -9: nothing said at the end).
        hole = self.cl.nodes["hole"]
        hole.kill9()
        hole.start()
        hole.wait_log("still quarantined after its restart")
        self.assertIn("quarantined: 3 tasks failed here",
                      self.ok("nodes", on="hole"))

        # An admin lets it back, on that node.
        r = volery("-H", self.host("good1"), "nodes", "--clear", "hole")
        self.assertEqual(r.returncode, 1)
        self.assertIn("this node is good1", r.stderr)
        self.assertIn("hole takes tasks again",
                      self.ok("nodes", "--clear", "hole", on="hole"))
        self.cl.nodes["hole"].wait_log("quarantine lifted")
        self.assertNotIn("quarantined", self.ok("nodes", on="hole"))
        r = volery("-H", self.host("hole"), "nodes", "--clear", "hole")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not quarantined", r.stderr)

    def test_a_retry_waits_and_says_so(self):
        # Failing everywhere: each retry waits longer (1 s, then 2 s).
        u = self.ok("run", "--cwd", "/", "--", "sh", "-c", "exit 4").strip()
        c = self.cl.nodes["good1"].client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Failed"})
        t = self.history([u])[0]
        self.assertEqual([a["exit_code"] for a in t["failed_attempts"]],
                         [4, 4, 4])
        # Three runs on three different nodes: none retried it while
        # another could.
        self.assertEqual(len({a["node"] for a in t["failed_attempts"]}), 3)
        self.assertGreaterEqual(t["end_ms"] - t["submit_ms"], 3000)
        self.assertIn("attempts-exhausted", t["reason"])


if __name__ == "__main__":
    unittest.main()

"""Tail replication (issue 38, point 2): with <replicate_tail>, the last
run of a bag, on a slow node, gets a copy on an idle node; the first
confirmed result is the task's, the slow run stops, its time is counted
wasted, and the bag ends sooner than on the same pool without it."""
import json
import time
import unittest

import harness
from harness import Cluster
from test_run import volery


class TailReplication(unittest.TestCase):
    def bag_on(self, copies):
        """Three tasks at once (an array) on three one-slot nodes, one of
        them slow: each node takes one.  The seconds from the first
        seen running to all ended, the end lines, and the cluster."""
        cl = Cluster(())
        self.addCleanup(cl.cleanup)
        extra = "<replicate_tail>%d</replicate_tail>" % copies
        for name in ("a", "b", "slow"):
            cl.add(name, extra=extra)
        cl.master()
        # A run learns its run dir in TMPDIR, under its node's own
        # directory: there it takes 10 s, as on a machine 5 times slower.
        script = ('case "$TMPDIR" in %s/*) sleep 10;; *) sleep 2;; esac; '
                  'echo done' % cl.nodes["slow"].dir)
        r = volery("-H", "127.0.0.1:%d" % cl.nodes["a"].port, "run",
                   "--array", "1-3", "--cwd", "/", "--output", "line:(.*)",
                   "--", "sh", "-c", script)
        self.assertEqual(r.returncode, 0, r.stderr)
        uuids = r.stdout.decode().split()
        self.assertEqual(len(uuids), 3, uuids)
        c = cl.nodes["b"].client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(uuids))
        start, ends = None, {}
        deadline = time.monotonic() + harness.TIMEOUT
        while len(ends) < 3:
            f = c.line(deadline - time.monotonic()).split()
            if f[:1] != ["PROGRESS"] or f[1] not in uuids:
                continue
            if f[3] == "Running" and start is None:
                start = time.monotonic()
            if f[3] == "Terminated":
                ends[f[1]] = " ".join(f)
        self.assertIsNotNone(start)
        return time.monotonic() - start, ends, cl

    def tail_counts(self, node):
        r = volery("-H", "127.0.0.1:%d" % node.port, "nodes", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return [n for n in json.loads(r.stdout) if n["self"]][0]["tail"]

    def test_a_copy_on_an_idle_node_ends_the_bag_sooner(self):
        plain, ends, cl = self.bag_on(0)
        self.assertFalse(any("tail-won" in l for l in ends.values()), ends)
        self.assertEqual(self.tail_counts(cl.nodes["a"])["replicas_made"], 0)
        cl.cleanup()

        copied, ends, cl = self.bag_on(2)
        # The slow node's task ended with a copy's result, made by the
        # node it was scheduled on; the slow run stopped, counted wasted.
        # (A fast one may have got a copy too, before the pool learned
        # which node is slow: its own result or its copy's, one wins.)
        won = [l for l in ends.values() if "reason=tail-won:" in l]
        self.assertGreaterEqual(len(won), 1, ends)
        self.assertIn("outputs=done", won[0])
        self.assertGreaterEqual(
            self.tail_counts(cl.nodes["a"])["replicas_made"], 1)
        slow = self.tail_counts(cl.nodes["slow"])
        self.assertEqual(slow["runs_stopped"], 1)
        self.assertGreaterEqual(slow["wasted_ms"], 1000)
        cl.nodes["slow"].wait_log("a copy ended first")
        # Every node holds the one result.
        u = won[0].split()[1]
        for name in ("a", "slow"):
            r = volery("-H", "127.0.0.1:%d" % cl.nodes[name].port,
                       "tasks", "--json")
            t = [x for x in json.loads(r.stdout) if x["uuid"] == u][0]
            self.assertEqual(t["state"], "Terminated")
            self.assertEqual(t["outputs"], ["done"])
        self.assertLess(copied, plain - 3, (copied, plain))


if __name__ == "__main__":
    unittest.main()

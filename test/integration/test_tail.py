"""Tail replication (issue 38, point 2): with <replicate_tail>, the last
run of a bag, on a slow node, gets a copy on an idle node; the first
confirmed result is the task's, the slow run stops, its time is counted
wasted, and the bag ends sooner than on the same pool without it."""
import json
import time
import unittest

from harness import Cluster
from test_run import volery


class TailReplication(unittest.TestCase):
    def bag_on(self, copies):
        """Three tasks on three one-slot nodes, one of them slow: each
        node runs one.  The seconds from all running to all ended, the
        end lines, and the cluster."""
        cl = Cluster(())
        self.addCleanup(cl.cleanup)
        extra = "<replicate_tail>%d</replicate_tail>" % copies
        for name in ("a", "b", "slow"):
            cl.add(name, extra=extra)
        cl.master()
        # A run learns its run dir in TMPDIR, under its node's own
        # directory: there it takes 8 s, as on a machine 8 times slower.
        script = ('case "$TMPDIR" in %s/*) sleep 8;; *) sleep 1;; esac; '
                  'echo done' % cl.nodes["slow"].dir)
        host = "127.0.0.1:%d" % cl.nodes["a"].port
        uuids = []
        for _ in range(3):
            r = volery("-H", host, "run", "--cwd", "/", "--output",
                       "line:(.*)", "--", "sh", "-c", script)
            self.assertEqual(r.returncode, 0, r.stderr)
            uuids.append(r.stdout.decode().strip())
        c = cl.nodes["b"].client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(uuids))
        c.wait_states({u: "Running" for u in uuids})
        start = time.monotonic()
        lines = c.wait_states({u: "Terminated" for u in uuids})
        ends = {l.split()[1]: l for l in lines
                if l.split()[:1] == ["PROGRESS"] and l.split()[3] == "Terminated"}
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
        # The slow node's task ended with its copy's result, made by the
        # node it was scheduled on; the slow run stopped, counted wasted.
        won = [l for l in ends.values() if "reason=tail-won:" in l]
        self.assertEqual(len(won), 1, ends)
        self.assertIn("outputs=done", won[0])
        self.assertEqual(self.tail_counts(cl.nodes["a"])["replicas_made"], 1)
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
        self.assertLess(copied, plain - 2, (copied, plain))


if __name__ == "__main__":
    unittest.main()

"""Checkpoints kept by the pool (issue 37): a run that writes one keeps
it and has copies kept by other live nodes; a later run of the task, on
another node, starts from the newest copy that hashes as its maker
signed, and does not redo the work before it."""
import os
import re
import unittest

import harness
from harness import Cluster


def params(where, duration_ms, checkpoint_ms):
    path = os.path.join(where, "ckpt-%d-%d.xml" % (duration_ms,
                                                    checkpoint_ms))
    with open(path, "w") as f:
        f.write("<parameters><duration_ms>%d</duration_ms><checkpoint_ms>"
                "%d</checkpoint_ms></parameters>\n" % (duration_ms,
                                                        checkpoint_ms))
    return path


class KeptByThePool(unittest.TestCase):
    # Five nodes: with two switched off, three still confirm its end.
    def setUp(self):
        self.cl = Cluster(("a", "b", "c", "d", "e")).start()
        self.addCleanup(self.cl.cleanup)
        self.cl.master()
        self.c = self.cl.nodes["a"].client()
        self.addCleanup(self.c.close)

    def start_long_task(self):
        """A 6-s task checkpointing every 0.3 s; (uuid, runner, holders
        of its checkpoint once it is past half)."""
        u = self.c.schedule("import low -p /x -x %s" % params(
            self.cl.nodes["a"].dir, 6000, 300))
        self.c.ask("SUBSCRIBE " + u)
        self.c.wait_states({u: "Running"})
        runner = harness.wait_until(lambda: (self.cl.starts(u) or [None])[0],
                                    "a node starts it")
        node = self.cl.nodes[runner]
        # Two copies of one checkpoint, past 40 % of its work.
        node.wait_log(r"Task UUID\{%s\} name\{import\} checkpoint (\d+) "
                      r"kept by \S+ too" % u)
        while True:         # its PROGRESS lines, to half its work
            f = self.c.line(harness.TIMEOUT).split()
            if f[:2] == ["PROGRESS", u] and int(f[2]) >= 50:
                break
        seqs = re.findall(r"Task UUID\{%s\} name\{import\} checkpoint (\d+) "
                          r"kept by (\S+) too" % u, node.log())
        last = max(int(s) for s, _ in seqs)
        holders = sorted(h for s, h in seqs if int(s) == last)
        return u, runner, last, holders

    def test_its_runner_and_a_holder_killed_it_resumes_from_the_other(self):
        u, runner, seq, holders = self.start_long_task()
        self.assertEqual(len(holders), 2, holders)
        self.assertNotIn(runner, holders)
        # The runner and the first holder switched off at once.
        for name in (runner, holders[0]):
            self.cl.nodes[name].kill9()
        if "a" in (runner, holders[0]):
            self.c = [n for n in self.cl.nodes.values()
                      if n.proc.poll() is None][0].client()
            self.addCleanup(self.c.close)
            self.c.ask("SUBSCRIBE " + u)
        self.c.wait_states({u: "Terminated"})
        later = [n for n in self.cl.starts(u) if n != runner]
        self.assertTrue(later, self.cl.starts(u))
        node = self.cl.nodes[later[-1]]
        m = node.wait_log(r"Task UUID\{%s\} name\{import\} owner\{\S*\} "
                          r"starts from its checkpoint (\d+), made by %s"
                          % (u, runner))
        self.assertGreaterEqual(int(m.group(1)), seq)
        # Its work went on from there: not from the beginning.
        m = node.wait_log(r"Task UUID\{%s\} name\{import\} stderr: import: "
                          r"resumed at (\d+)%% from its checkpoint" % u)
        self.assertGreaterEqual(int(m.group(1)), 40)


if __name__ == "__main__":
    unittest.main()

"""Results you can check (issue 35, point 6): `--verify N` runs a task on
N different nodes and keeps its result only if all N agree; a
disagreement fails it, naming both results and their runners, and the
nodes count the runner that differed."""
import os
import re
import unittest

from harness import Cluster
from test_run import shared_dir, volery, wait_end
from test_security import rejected


class Verify(unittest.TestCase):
    def setUp(self):
        self.cl = Cluster(("a", "b", "c"), slots=2,
                          extra="<max_attempts>1</max_attempts>").start()
        self.addCleanup(self.cl.cleanup)
        self.cl.master()
        self.work = shared_dir(self.cl.nodes["a"].dir, "work")

    def volery_ok(self, *args, host="a"):
        r = volery("-H", "127.0.0.1:%d" % self.cl.nodes[host].port, *args,
                   cwd=self.work)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        return r.stdout.decode()

    def wait_end(self, uuid, host="a"):
        return wait_end(self, self.cl.nodes[host], uuid).strip()

    def test_an_agreed_result_is_kept_and_binds_a_dependent(self):
        u = self.volery_ok("run", "--verify", "3", "--output",
                           "line:answer (\\d+)", "--", "sh", "-c",
                           "echo answer 42").strip()
        d = self.volery_ok("run", "--input", u, "1", "--output", "line:(.*)",
                           "--", "sh", "-c", 'echo "got$VOLERY_INPUT_1"').strip()
        end = self.wait_end(u, host="b")
        self.assertIn("Terminated", end)
        self.assertIn("outputs=42", end)
        runners = re.search(r"verified-by:(\S+)", end).group(1).split(",")
        self.assertEqual(sorted(runners), ["a", "b", "c"])
        self.assertIn("outputs=got42", self.wait_end(d, host="c"))

    def test_a_disagreement_fails_the_task_and_its_dependent(self):
        # Each replica prints its own index: the runs differ, as a
        # runner that lies about its result would.
        # (A second first: the dependent is scheduled while they run.)
        u = self.volery_ok("run", "--verify", "2", "--output", "line:(.*)",
                           "--", "sh", "-c",
                           'sleep 1; echo "replica$VOLERY_REPLICA"').strip()
        d = self.volery_ok("run", "--input", u, "1", "--", "true").strip()
        end = self.wait_end(u, host="c")
        self.assertIn("Failed", end)
        self.assertRegex(end, r"replicas-disagree: \S+ gave [0-9a-f]{12}/replica[12], "
                         r"\S+ gave [0-9a-f]{12}/replica[12]")
        self.assertIn("upstream-failed:" + u, self.wait_end(d, host="b"))
        c = self.cl.nodes["c"].client()
        self.addCleanup(c.close)
        self.assertEqual(rejected(c).get("results that disagreed under --verify"), 1)

    def test_a_workflow_file_asks_for_it_and_output_reads_the_agreed_stdout(self):
        wf = os.path.join(self.work, "v.xml")
        with open(wf, "w") as f:
            f.write("""<workflow>
  <command id="gen" verify="2"><shell>seq 1 5 | tee nums-{uuid}.txt</shell>
    <output file="nums-{uuid}.txt"/></command>
  <command id="count"><arg>wc</arg><arg>-l</arg><arg>{in1}</arg>
    <input task="gen" output="1"/></command>
</workflow>
""")
        out = self.volery_ok("submit", "--watch", wf)
        self.assertIn("2 of 2 terminated", out)
        ids = dict(l.split()[:2] for l in out.splitlines()[:2])
        # Each replica wrote a file of its own, named after its uuid (in
        # one directory, they would overwrite each other's): hashed
        # alike, or it would have failed; the task's output is the first
        # replica's file, which the dependent read.
        self.assertEqual(self.volery_ok("output", ids["gen"], host="c"),
                         "1\n2\n3\n4\n5\n")
        end = self.wait_end(ids["gen"])
        self.assertIn("verified-by:", end)
        replica1 = ids["gen"][:-2] + "%02x" % (int(ids["gen"][-2:], 16) ^ 1)
        self.assertIn("outputs=nums-%s.txt" % replica1, end)

    def test_held_and_cancelled_with_its_replicas(self):
        # A tag no node has: its replicas wait, Ready.
        u = self.volery_ok("run", "--verify", "2", "--requires", "nowhere",
                           "--", "true").strip()
        self.volery_ok("hold", u)
        rows = [l for l in self.volery_ok("tasks").splitlines() if u[:34] in l]
        self.assertEqual(len(rows), 3, rows)
        self.assertIn("checked by 2 replicas on distinct nodes: 0 running, "
                      "0 ended", rows[0])
        self.assertTrue(all("held: volery release" in l for l in rows[1:]), rows)
        self.volery_ok("release", u)
        self.volery_ok("cancel", u)
        end = self.wait_end(u, host="b")
        self.assertIn("Cancelled", end)
        self.assertIn("replica-cancelled:", end)

    def test_more_replicas_than_nodes_is_refused(self):
        r = volery("-H", "127.0.0.1:%d" % self.cl.nodes["a"].port, "run",
                   "--verify", "4", "--", "true")
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"--verify 4 needs 4 nodes; the pool has 3", r.stderr)
        r = volery("run", "--verify", "10", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"--verify 10: how many nodes must agree, 2 to 9", r.stderr)


if __name__ == "__main__":
    unittest.main()

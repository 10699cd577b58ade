"""Secret variables (issue 35): `volery run --secret-env NAME` gives the
run its value, and nothing else ever holds it -- not the map, the
journal, ACCOUNT, the log, a datagram the cluster key opens -- nor does a
certified node that asks for it without running the task get it."""
import hashlib
import os
import select
import unittest

import harness
import sealer
import test_liar
import test_run

SECRET = "s3cr3t-v4lue-%d" % os.getpid()


class SecretEnv(test_liar.Liar):
    def setUp(self):
        super().setUp()
        self.cap = sealer.Capture(self.cl.port)
        self.addCleanup(self.cap.close)
        self.key = sealer.read_key(harness.cluster_key(self.cl.name))

    def volery_run(self, *words):
        r = test_run.volery("-H", "127.0.0.1:%d" % self.cl.nodes["a"].port, "run",
                            "--secret-env", "TOKEN", *words,
                            env=dict(os.environ, TOKEN=SECRET), cwd="/")
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode().split()

    def test_the_value_reaches_the_runs_and_nothing_else(self):
        # Runs on both nodes (four of 300 ms on two one-slot nodes): each
        # ends Terminated only if it saw the value (its hash: the command
        # line is in the record).
        digest = hashlib.sha256(SECRET.encode()).hexdigest()
        uuids = self.volery_run("--array", "1-4", "--", "sh", "-c",
                                'sleep 0.3; test "$(printf %%s "$TOKEN" | sha256sum)" '
                                '= "%s  -"' % digest)
        a = self.client("a")
        a.ask("SUBSCRIBE " + " ".join(uuids))
        seen = a.wait_states({u: "Terminated" for u in uuids})
        runners = {kv[5:] for l in seen for kv in l.split() if kv.startswith("node=")}
        self.assertEqual(runners, {"a", "b"})
        # Its values leave the node that took it with its end.
        kept = os.path.join(self.cl.nodes["a"].dir, "state", "secrets")
        harness.wait_until(lambda: os.listdir(kept) == [], "a forgot the secrets")
        for n, node in self.cl.nodes.items():
            with open(os.path.join(node.dir, "state", "journal"), "rb") as f:
                self.assertNotIn(SECRET.encode(), f.read(), n)
            self.assertNotIn(SECRET, node.log(), n)
            records = " ".join(self.client(n).ask_multi("ACCOUNT"))
            self.assertIn("sen=TOKEN", records)
            self.assertNotIn(SECRET, records)
        # Every broadcast the runs made, opened with the cluster key.
        frames = self.cap.read(lambda f: any(b" sen=TOKEN" in (
            sealer.open_frame(self.key, d) or b"") for d, _ in f))
        for data, _ in frames:
            self.assertNotIn(SECRET.encode(), sealer.open_frame(self.key, data) or b"")

    def test_a_node_that_does_not_run_it_is_not_given_it(self):
        u = self.volery_run("--", "sleep", "30")[0]
        a = self.client("a")
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Running"})
        self.liar.broadcast("SECRET_WANTED " + u)
        self.cl.nodes["a"].wait_log(r"node mallory asked the secret variables of task %s, "
                                    r"which it does not run: not given" % u)
        # Nothing came to the liar (the refusal above was the answer).
        ready, _, _ = select.select([self.liar.sock], [], [], 0)
        for _ in ready:
            frame, _ = self.liar.sock.recvfrom(65536)
            self.assertNotIn(b"SECRET ", sealer.open_frame(self.liar.key, frame,
                                                           self.liar.name) or b"")
        self.assertEqual(a.ask("CANCEL " + u), "CANCELLED " + u)

    def test_a_run_whose_taker_is_gone_fails_with_why(self):
        """The values never left a's keeping: with a switched off, b
        cannot start the task, and says why."""
        u = self.volery_run("--begin", "now+2s", "--", "true")[0]
        b = self.client("b")
        b.ask("SUBSCRIBE " + u)
        b.wait_states({u: "Ready"})
        self.cl.nodes["a"].kill9()
        self.cl.nodes["b"].wait_log(
            r"Task UUID\{%s\} name\{true\} owner\{\S+\} cannot start: node a, which "
            r"took it, did not give its secret variables" % u, timeout=30)


if __name__ == "__main__":
    unittest.main()

"""One compromised workstation (issue 35).  A host that holds the cluster
key but no certificate is heard by no one; a certified one that lies is
believed only within what it could know.  Each of the review's attacks,
sent for real to real nodes, changes nothing and is counted."""
import os
import subprocess
import threading
import time
import unittest

import harness
import sealer
import test_run
from harness import VOLERY, Cluster, params_file
from test_security import rejected

GHOST = "00000000-0000-4000-8000-00000000beef"
EVIL = "666EVIL-1,666EVIL-2,666EVIL-3"	# import's three outputs
RECORD = ("v=1 id=%s exec=import prio=low aged=0 st=%s sb=%s "
          "cl=x sub=%d rdy=-1 stt=-1 end=-1 pg=0 att=0 fail=0 ver=%d")


def now_ms():
    return int(time.time() * 1000)


def heartbeat(reputation=10, master=0, epoch=0):
    return "HEARTBEAT %d %x 1 1 idle %d 0 0 1 1000 60 %d 500" % (
        master, epoch, reputation, now_ms())


class Liar(unittest.TestCase):
    names = ("a", "b")
    liar_name = "mallory"
    skew_s = 2
    certified = True
    max_reputation = 50

    def setUp(self):
        self.cl = Cluster(self.names, extra="<max_clock_skew_s>%d</max_clock_skew_s>"
                          % self.skew_s).start()
        self.addCleanup(self.cl.cleanup)
        ident = None
        if self.certified:
            ident = sealer.Identity()
            line = subprocess.run(
                [VOLERY, "enroll", "-k", harness.admin_key(self.cl.name),
                 "-r", str(self.max_reputation)],
                input="%s %s\n" % (self.liar_name, ident.public()),
                check=True, capture_output=True, text=True).stdout
            ident.certify(line)
        self.ident = ident
        self.liar = sealer.KeyHolder(sealer.read_key(harness.cluster_key(self.cl.name)),
                                     self.cl.name, self.cl.port, name=self.liar_name,
                                     identity=ident)
        self.addCleanup(self.liar.close)
        self.master = self.cl.master()

    def client(self, name):
        c = self.cl.nodes[name].client()
        self.addCleanup(c.close)
        return c

    def wait_rejected(self, why, count):
        """Until every node counted count datagrams dropped for why; NODES
        is a snapshot, with nothing to wait on."""
        clients = [self.client(x) for x in self.names]
        harness.wait_until(lambda: all(rejected(c).get(why, 0) >= count
                                       for c in clients),
                           "%d '%s' counted" % (count, why))

    def node_names(self, c):
        return sorted(r.split()[1] for r in c.ask_multi("NODES") if r.startswith("NODE "))

    def run_one(self):
        """A task still runs and ends, confirmed by a majority."""
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s" % params_file(self.cl.nodes["a"].dir, 10))
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Terminated"})
        return u


class KeyWithoutCertificate(Liar):
    """It holds the cluster key: its datagrams open, but no node believes
    a word of them."""
    certified = False

    def test_a_sybil_flood_of_made_up_names_joins_nothing(self):
        """20 000 names (2 000 under valgrind), sent in bursts the nodes'
        socket buffers hold: each burst counted before the next goes."""
        names = 2000 if harness.WRAP else 20000
        for start in range(0, names, 200):
            for i in range(start, start + 200):
                self.liar.broadcast(heartbeat(), name="sybil%d" % i)
            self.wait_rejected("no node identity", start + 200)
        for n in self.names:
            self.assertEqual(self.node_names(self.client(n)), ["a", "b"])
        self.run_one()

    def test_another_nodes_name_and_forged_ends_change_nothing(self):
        u = self.run_one()
        a = self.client("a")
        tasks = a.tasks()
        # As b: a confirmed end with a forged output, a cancel, and a
        # claim to be master of a higher epoch.
        forged = (RECORD % (u, "Terminated", "b", now_ms() - 1000, 99)
                  + " conf=1 out=666EVIL,x,y on=b")
        self.liar.broadcast("STATE " + forged, name="b")
        self.liar.broadcast("STATE " + RECORD % (u, "Cancelled", "b", now_ms(), 99),
                            name="b")
        self.liar.broadcast("NEW_MASTER 5", name="b")
        self.wait_rejected("no node identity", 3)
        self.assertEqual(a.tasks(), tasks)
        self.assertEqual(self.cl.master(), self.master)
        self.assertNotIn("666EVIL", self.cl.nodes["a"].log())


class CertifiedLiar(Liar):
    """A workstation the admin enrolled, compromised: what it says is
    checked against what it could know."""

    def test_a_submit_time_of_2_to_the_63_cannot_stop_scheduling(self):
        self.liar.broadcast("ENQUEUE " + RECORD % (GHOST, "Submitted", "mallory",
                                                   2**63 - 1, 1))
        self.wait_rejected("implausible values", 1)
        self.run_one()
        for n in self.names:
            self.assertNotIn(GHOST, self.client(n).tasks())

    def test_a_rewritten_submit_time_then_retired_forgets_nothing(self):
        u = self.run_one()
        tasks = {n: self.client(n).tasks() for n in self.names}
        self.liar.broadcast("STATE " + RECORD % (u, "Terminated", "a", 1, 999)
                            + " conf=1 out=666EVIL,x,y on=a")
        self.liar.broadcast("RETIRED " + u)
        # Datagrams of one socket arrive in order: once this one is
        # counted, the RETIRED before it was read.
        self.liar.broadcast(heartbeat(), sent_ms=now_ms() - 60000)
        self.wait_rejected("implausible values", 1)
        self.wait_rejected("stamped too far from our clock", 1)
        for n in self.names:
            self.assertEqual(self.client(n).tasks(), tasks[n])
            self.assertNotIn("666EVIL", self.cl.nodes[n].log())

    def test_command_tasks_in_another_nodes_name_never_run(self):
        """A command task 'scheduled by' b and another user, straight from
        the liar: b's signature is missing (or false), so no node takes it
        into its map, let alone runs it."""
        mark = os.path.join(self.cl.nodes["a"].dir, "pwned")
        rec = (RECORD % (GHOST, "Ready", "b", now_ms() - 1000, 1)).replace(
            "exec=import", "exec=sh") + " usr=root uid=0 cmd=sh,-c,touch%%20%s" % mark
        self.liar.broadcast("ENQUEUE " + rec)
        self.liar.broadcast("STATE " + rec + " sig=" + "A" * 86)
        self.wait_rejected("implausible values", 2)
        self.run_one()
        for n in self.names:
            self.assertNotIn(GHOST, self.client(n).tasks())
        self.assertFalse(os.path.exists(mark))

    def test_absurd_epochs_and_reputations_do_not_make_a_master(self):
        self.liar.broadcast(heartbeat(master=1, epoch=2**48 - 1))
        self.liar.broadcast("NEW_MASTER ffffffffffff")
        self.wait_rejected("implausible values", 2)
        # More than its certificate lets it claim.
        self.liar.broadcast(heartbeat(reputation=1000000))
        self.liar.broadcast("TRY_TO_BE_MASTER 1000000 0 %d" % now_ms())
        self.wait_rejected("a reputation over its certificate's", 2)
        self.assertEqual(self.cl.master(), self.master)

    def test_claims_stamped_at_zero_do_not_keep_tasks_ready(self):
        a = self.client("a")
        begin = now_ms() + 1000
        u = a.schedule("import low -p /x -b %d -x %s"
                       % (begin, params_file(self.cl.nodes["a"].dir, 10)))
        a.ask("SUBSCRIBE " + u)
        # The earliest claim there is, over and over, from before the task
        # may start until well after.
        while now_ms() < begin + 500:
            self.liar.broadcast("TRY_DEQUEUE %s 0" % u)
            time.sleep(0.01)	# a liar's pace, not a wait for volery
        a.wait_states({u: "Terminated"})
        self.wait_rejected("implausible values", 100)

    def test_claims_that_never_become_runs_lose_the_race(self):
        """Claims stamped as early as may be, for a task the liar never
        runs, sent all along: after a few windows they count no more."""
        a = self.client("a")
        u = a.schedule("import low -p /x -b %d -x %s"
                       % (now_ms() + 500, params_file(self.cl.nodes["a"].dir, 10)))
        a.ask("SUBSCRIBE " + u)
        done = threading.Event()

        def claim():
            while not done.is_set():
                self.liar.broadcast("TRY_DEQUEUE %s %d" % (u, now_ms() - 60000))
                done.wait(0.01)	# a liar's pace, not a wait for volery
        t = threading.Thread(target=claim)
        t.start()
        try:
            a.wait_states({u: "Terminated"}, timeout=10)
        finally:
            done.set()
            t.join()
        # And volery nodes names it, natively.  A node that reads the
        # liar's claims in bursts far apart (under valgrind, or the
        # sanitizers on a loaded machine: a stall longer than the claims'
        # memory, four windows, ends a streak) sees no streak last, and
        # the task simply runs.
        if harness.WRAP or harness.VOLERY != os.path.join(harness.ROOT,
                                                          "volery"):
            return
        harness.wait_until(lambda: any(
            r.startswith("REJECTED ") and " mallory claims that never became runs" in r
            for r in a.ask_multi("NODES")), "mallory named")

    def test_stamps_far_from_our_clock_are_dropped(self):
        """A sealed datagram stamped a minute ago (a capture replayed after
        this node restarted) is dropped before it is read."""
        self.liar.broadcast(heartbeat(), sent_ms=now_ms() - 60000)
        self.wait_rejected("stamped too far from our clock", 1)
        self.assertNotIn("mallory", self.node_names(self.client("a")))

    def test_a_revoked_node_is_heard_no_more(self):
        self.liar.broadcast(heartbeat())
        a = self.client("a")
        harness.wait_until(lambda: "mallory" in self.node_names(a), "mallory heard")
        r = subprocess.run([VOLERY, "-H", "127.0.0.1:%d" % self.cl.nodes["b"].port, "revoke",
                            "-k", harness.admin_key(self.cl.name), "mallory"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.liar.broadcast(heartbeat())
        # b tells a; both drop it from then on, and keep it across a
        # restart.
        self.wait_rejected("a revoked certificate", 1)
        self.cl.nodes["a"].stop()
        self.cl.nodes["a"].start()
        self.liar.broadcast(heartbeat())
        harness.wait_until(lambda: rejected(self.client("a")).get(
            "a revoked certificate", 0) >= 1, "the revocation kept")


if __name__ == "__main__":
    unittest.main()


class SignedRuns(Liar):
    """A start, a result, a cancel: each is one node's to write, signed by
    it.  A certified liar can state neither another node's run nor a
    cancel the task's own node did not make."""

    def record(self, u, state):
        """u's latest record in state, as node a journaled it."""
        path = os.path.join(self.cl.nodes["a"].dir, "state", "journal")
        found = {}

        def journaled():
            with open(path, "rb") as f:
                for line in f.read().decode(errors="replace").splitlines():
                    rec = line[9:].split()
                    if " id=%s " % u in line and "st=" + state in rec:
                        found["rec"] = dict(kv.split("=", 1) for kv in rec)
            return "rec" in found
        harness.wait_until(journaled, "a journaled %s %s" % (u, state))
        return found["rec"]

    @staticmethod
    def forge(rec, **change):
        rec = dict(rec, **{k: v for k, v in change.items() if v is not None})
        for k, v in change.items():
            if v is None:
                rec.pop(k, None)
        return "STATE " + " ".join("%s=%s" % kv for kv in rec.items())

    def test_results_and_cancels_of_others_runs_are_refused(self):
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s" % params_file(self.cl.nodes["a"].dir, 1500))
        a.ask("SUBSCRIBE " + u)
        seen = a.wait_states({u: "Running"})
        runner = [kv[5:] for kv in seen[-1].split() if kv.startswith("node=")][0]
        rec = self.record(u, "Running")
        self.assertEqual(rec.get("eby"), runner)	# its start, signed
        end = str(now_ms())
        # The runner's result, under the runner's signature of its start.
        self.liar.broadcast(self.forge(rec, st="Terminated", end=end, pg="100",
                                       out=EVIL, conf="1"))
        # A cancel in the liar's own name: neither taker nor runner.
        self.liar.broadcast(self.forge(rec, st="Cancelled", end=end, conf="1",
                                       rsn="cancelled-by-client", eby="mallory",
                                       esg=None))
        self.wait_rejected("implausible values", 2)
        # A result by a node no one knows: kept aside while its
        # certificate is asked of the relay, who has none to give.
        self.liar.broadcast(self.forge(rec, st="Terminated", end=end, out=EVIL,
                                       conf="1", on="aaa", eby="aaa"))
        self.liar.wait_for(b"CERT_WANTED aaa")
        seen = a.wait_states({u: "Terminated"})
        self.assertFalse(any(" Cancelled " in l for l in seen), seen)
        self.assertEqual(self.cl.starts(u), [runner])
        for n in self.names:
            self.assertNotIn("666EVIL", self.cl.nodes[n].log())
            self.assertNotIn("666EVIL", " ".join(self.client(n).ask_multi("ACCOUNT")))

    def test_only_the_tasks_own_node_cancels_it(self):
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s" % params_file(self.cl.nodes["a"].dir, 30000))
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Running"})
        self.assertRegex(self.client("b").ask("CANCEL " + u),
                         r"^ERROR task %s was scheduled on node a: only that node" % u)
        self.assertEqual(self.client("a").ask("CANCEL " + u), "CANCELLED " + u)
        for n in self.names:
            c = self.client(n)
            c.ask("SUBSCRIBE " + u)
            c.wait_states({u: "Cancelled"})


class ConfirmedEnds(Liar):
    """An end is final only with the signed votes of a majority.  A
    certified liar -- named to sort first, so that between two confirmed
    ends of one task its would win -- claims a run of a task the pool has
    confirmed already, signed by itself as its runner, and sends it as
    confirmed: with votes it made up, or with none."""
    liar_name = "0liar"
    record = SignedRuns.record

    def claimed_run(self, rec, qc):
        claim = dict(rec, on=self.liar_name, eby=self.liar_name, conf="1",
                     out=EVIL, end=str(now_ms()),
                     ver=str(int(rec["ver"]) + 100))
        claim.pop("qc", None)
        claim.pop("esg", None)
        claim["esg"] = self.ident.sign_run(claim)
        if qc is not None:
            claim["qc"] = qc
        return "STATE " + " ".join("%s=%s" % kv for kv in claim.items())

    def test_a_claimed_run_confirmed_by_made_up_votes_replaces_nothing(self):
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s" % params_file(self.cl.nodes["a"].dir, 10))
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Terminated"})
        rec = self.record(u, "Terminated")
        self.assertIn("qc", rec)			# the majority's votes
        self.assertEqual(len(rec["qc"].split("+")), 2)
        fake = "A" * 86
        self.liar.broadcast(self.claimed_run(rec, "a/2/%s+b/2/%s+%s/2/%s" % (
            fake, fake, self.liar_name, fake)))
        self.liar.broadcast(self.claimed_run(rec, None))
        for n in self.names:
            harness.wait_until(
                lambda: self.cl.nodes[n].log().count(
                    "came confirmed by 0 good signatures") >= 2,
                "%s refused both" % n)
        for n in self.names:
            c = self.client(n)
            c.ask("SUBSCRIBE " + u)
            seen = c.wait_states({u: "Terminated"})
            self.assertIn("outputs=" + rec["out"], seen[-1])
            self.assertNotIn("666EVIL", " ".join(c.ask_multi("ACCOUNT")))


class VerifiedResults(Liar):
    """--verify: a task's end is its replicas', which every node derives.
    A certified liar's end for the task itself, signed as its runner's,
    is no one's to write."""
    record = SignedRuns.record

    def test_a_liars_end_of_a_verified_task_is_refused(self):
        a = self.client("a")
        u = a.schedule("import low -p /x -V 2 -x %s"
                       % params_file(self.cl.nodes["a"].dir, 1500))
        a.ask("SUBSCRIBE " + u)
        rec = self.record(u, "Submitted")
        self.assertEqual(rec["vfy"], "2")
        forged = dict(rec, st="Terminated", end=str(now_ms()), pg="100",
                      out=EVIL, conf="1", rsn="verified-by:a,b",
                      on=self.liar_name, eby=self.liar_name, ver=str(int(rec["ver"]) + 100))
        forged.pop("esg", None)
        forged["esg"] = self.ident.sign_run(forged)
        self.liar.broadcast("STATE " + " ".join("%s=%s" % kv
                                                for kv in forged.items()))
        self.wait_rejected("implausible values", 1)
        seen = a.wait_states({u: "Terminated"})
        self.assertRegex(seen[-1], r"reason=verified-by:(a,b|b,a)$")
        for n in self.names:
            self.assertNotIn("666EVIL", self.cl.nodes[n].log())


class CertificatesKept(unittest.TestCase):
    """A node keeps the certificates it heard: restarted while a peer is
    off, it still knows that peer's key (to check the tasks it took)."""

    def test_a_restarted_node_knows_a_peer_that_is_gone(self):
        cl = Cluster(("a", "b")).start()
        self.addCleanup(cl.cleanup)
        cl.master()
        a = cl.nodes["a"]
        c = a.client()
        before = c.ask("PEERKEY b")
        c.close()
        self.assertTrue(before.startswith("PEERKEY b "), before)
        cl.nodes["b"].kill9()
        a.stop()
        a.start()
        c = a.client()
        self.addCleanup(c.close)
        self.assertEqual(c.ask("PEERKEY b"), before)


class CommandsPolicy(unittest.TestCase):
    """<commands>: a workstation whose admin says so runs no one's
    command tasks, or only a group's; described tasks run as before."""

    def test_a_node_that_runs_no_commands_leaves_them_to_the_others(self):
        cl = Cluster(("b",), extra="<dequeue_window_ms>10</dequeue_window_ms>")
        self.addCleanup(cl.cleanup)
        cl.add("a", extra="<commands>none</commands>", start=False)
        cl.start()
        cl.master()
        work = test_run.shared_dir(cl.nodes["a"].dir, "work")
        uuids = subprocess.run(
            [VOLERY, "-H", "127.0.0.1:%d" % cl.nodes["a"].port, "run",
             "--array", "1-6", "--", "true"], cwd=work, check=True,
            capture_output=True, text=True).stdout.split()
        self.assertEqual(len(uuids), 6)
        c = cl.nodes["a"].client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(uuids))
        seen = c.wait_states({u: "Terminated" for u in uuids})
        runners = {l.split()[1]: l for l in seen if " Terminated " in l}
        for u in uuids:
            self.assertIn("node=b", runners[u])
        cl.nodes["a"].wait_log(r"this node runs no command tasks "
                               r"\(<commands>none</commands>\)")
        # A described task still runs anywhere.
        u = c.schedule("import low -p /x -x %s" % params_file(cl.nodes["a"].dir, 10))
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Terminated"})

"""One compromised workstation (issue 35): a host that holds the cluster
key seals whatever it likes.  Each of the review's attacks, sent for real
to real nodes, changes nothing and is counted."""
import time
import unittest

import harness
import sealer
from harness import Cluster, params_file
from test_security import rejected

GHOST = "00000000-0000-4000-8000-00000000beef"
RECORD = ("v=1 id=%s exec=import prio=low aged=0 st=Submitted sb=mallory "
          "cl=x sub=%d rdy=-1 stt=-1 end=-1 pg=0 att=0 fail=0 ver=1")


def now_ms():
    return int(time.time() * 1000)


class KeyHolder(unittest.TestCase):
    """A peer holding the cluster key, its values absurd."""
    names = ("a", "b")
    skew_s = 2

    def setUp(self):
        self.cl = Cluster(self.names, extra="<max_clock_skew_s>%d</max_clock_skew_s>"
                          % self.skew_s).start()
        self.addCleanup(self.cl.cleanup)
        self.liar = sealer.KeyHolder(sealer.read_key(harness.cluster_key(self.cl.name)),
                                     self.cl.name, self.cl.port)
        self.addCleanup(self.liar.close)
        self.master = self.cl.master()

    def client(self, name):
        c = self.cl.nodes[name].client()
        self.addCleanup(c.close)
        return c

    def wait_implausible(self, count):
        """Until every node counted n implausible values; NODES is a
        snapshot, with nothing to wait on."""
        clients = [self.client(x) for x in self.names]
        harness.wait_until(lambda: all(rejected(c).get("implausible values", 0)
                                       >= count for c in clients),
                           "%d implausible values counted" % count)

    def test_a_submit_time_of_2_to_the_63_cannot_stop_scheduling(self):
        self.liar.broadcast("ENQUEUE " + RECORD % (GHOST, 2**63 - 1))
        self.wait_implausible(1)
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s" % params_file(self.cl.nodes["a"].dir, 10))
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Terminated"})
        for n in self.names:
            self.assertNotIn(GHOST, self.client(n).tasks())

    def test_absurd_epochs_do_not_make_a_master(self):
        self.liar.broadcast("HEARTBEAT 1 ffffffffffff 1 1 idle 10 0 0 1 1000 60 %d 500"
                            % now_ms())
        self.liar.broadcast("NEW_MASTER ffffffffffff")
        self.wait_implausible(2)
        self.assertEqual(self.cl.master(), self.master)

    def test_claims_stamped_at_zero_do_not_keep_tasks_ready(self):
        a = self.client("a")
        begin = now_ms() + 1000
        u = a.schedule("import low -p /x -b %d -x %s"
                       % (begin, params_file(self.cl.nodes["a"].dir, 10)))
        a.ask("SUBSCRIBE " + u)
        # The liar answers the task with the earliest claim there is, over
        # and over, from before it may start until well after.
        while now_ms() < begin + 500:
            self.liar.broadcast("TRY_DEQUEUE %s 0" % u)
            time.sleep(0.01)	# a liar's pace, not a wait for volery
        a.wait_states({u: "Terminated"})
        self.wait_implausible(100)

    def test_stamps_far_from_our_clock_are_dropped(self):
        """A sealed datagram stamped a minute ago (a capture replayed after
        this node restarted) is dropped before it is read."""
        a = self.client("a")
        self.liar.broadcast("HEARTBEAT 0 0 1 1 idle 10 0 0 1 1000 60 %d 500" % now_ms(),
                            sent_ms=now_ms() - 60000)
        harness.wait_until(lambda: rejected(a).get("stamped too far from our clock", 0) >= 1,
                           "the stale frame counted")
        names = [r.split()[1] for r in a.ask_multi("NODES") if r.startswith("NODE ")]
        self.assertNotIn("mallory", names)


if __name__ == "__main__":
    unittest.main()

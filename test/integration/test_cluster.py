"""Several nodes on loopback form one pool (issue 3)."""
import collections
import subprocess
import os
import re
import time
import unittest

import harness
from harness import Cluster, params_file, schedule_workflow


class ClusterTest(unittest.TestCase):
    names = ("a", "b", "c")

    def setUp(self):
        self.cl = Cluster(self.names, extra="<log_level>debug</log_level>").start()
        self.addCleanup(self.cl.cleanup)

    def client(self, name):
        c = self.cl.nodes[name].client()
        self.addCleanup(c.close)
        return c

    def start_slow(self, ms):
        """Schedule a task of ms on a; return its uuid, runner and a client."""
        self.cl.master()
        a = self.client("a")
        slow = params_file(self.cl.nodes["a"].dir, ms)
        u = a.schedule("import low -p /x -x %s" % slow)
        a.ask("SUBSCRIBE " + u)
        seen = a.wait_states({u: "Running"})
        return u, re.search(r"node=(\S+)", seen[-1]).group(1), a


FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"


@unittest.skipIf(harness.WRAP, "libfaketime is not preloaded under valgrind")
class ClockSteps(unittest.TestCase):
    """An NTP step moves a node's wall clock (libfaketime, driven through a
    file): every deadline follows the monotonic clock, so a step neither
    fails remote runs and peers (forward) nor freezes the node (back)."""

    def test_wall_clock_steps_time_out_nothing(self):
        self.assertTrue(os.path.exists(FAKETIME), "make test installs libfaketime")
        cl = Cluster(("a", "b"), extra="<log_level>debug</log_level>")
        self.addCleanup(cl.cleanup)
        steps = {}
        for name, node in cl.nodes.items():
            steps[name] = os.path.join(node.dir, "faketime")
            with open(steps[name], "w") as f:
                f.write("+0\n")
            node.env = dict(os.environ, LD_PRELOAD=FAKETIME,
                            FAKETIME_TIMESTAMP_FILE=steps[name],
                            FAKETIME_DONT_FAKE_MONOTONIC="1", FAKETIME_NO_CACHE="1",
                            ASAN_OPTIONS="verify_asan_link_order=0")
        cl.start()
        cl.master()
        a = cl.nodes["a"].client()
        self.addCleanup(a.close)
        u = a.schedule("import low -p /x -x %s" % params_file(cl.nodes["a"].dir, 3000))
        a.ask("SUBSCRIBE " + u)
        seen = a.wait_states({u: "Running"})
        runner = re.search(r"node=(\S+)", seen[-1]).group(1)
        other = "b" if runner == "a" else "a"
        # 20 s forward on the node not running it, then back again: well
        # past node_timeout_ms (800 ms here), within max_clock_skew_s (30:
        # a clock further off is not heard at all, as a replay is not).
        with open(steps[other], "w") as f:
            f.write("+20\n")
        # What is tested is that nothing happens: watch for longer than
        # the timeouts (800 ms); no event could say so sooner.
        time.sleep(1.5)
        with open(steps[other], "w") as f:
            f.write("+0\n")
        seen += a.wait_states({u: "Terminated"})
        self.assertEqual(cl.starts(u), [runner])
        for name, node in cl.nodes.items():
            log = node.log()
            self.assertNotRegex(log, r"silent for \d+ ms: dead", name)
            self.assertNotIn("back to Ready", log, name)
        self.assertFalse(any(" Ready " in l for l in seen), seen)


class Spread(ClusterTest):
    def test_workflows_scheduled_on_one_node_run_on_several(self):
        self.assertEqual(self.cl.master(), "a")
        a, b = self.client("a"), self.client("b")
        p = params_file(self.cl.nodes["a"].dir, 200)
        wfs = [schedule_workflow(a, p) for _ in range(4)]
        every = [u for wf in wfs for u in wf]
        # Subscribed on b: progress of tasks running anywhere.
        b.ask("SUBSCRIBE " + " ".join(every))
        seen = b.wait_states({u: "Terminated" for u in every})
        ran = collections.Counter()
        for l in seen:
            f = l.split()
            if f[3] == "Terminated":
                ran[[kv for kv in f if kv.startswith("node=")][0][5:]] += 1
        self.assertEqual(sum(ran.values()), 16)
        self.assertGreaterEqual(len(ran), 2, ran)
        # Each task ran once, and every node knows every task ended.
        for u in every:
            self.assertEqual(len(self.cl.starts(u)), 1, u)
        for n in self.names:
            tasks = self.client(n).tasks()
            self.assertEqual({tasks[u][2] for u in every}, {"Terminated"})
        nodes = a.ask_multi("NODES")
        self.assertEqual(sorted(r.split()[1] for r in nodes), ["a", "b", "c"])
        self.assertEqual([r.split()[1] for r in nodes if r.split()[3] == "master"], ["a"])


class Failures(ClusterTest):
    def test_kill9_of_the_runner_task_completes_elsewhere(self):
        u, runner, a = self.start_slow(3000)
        victim = runner if runner != "a" else None
        if victim is None:
            # Watch from another node when a itself runs it.
            watch = self.client("b")
            watch.ask("SUBSCRIBE " + u)
            victim = "a"
        else:
            watch = a
        self.cl.nodes[victim].kill9()
        seen = watch.wait_states({u: "Terminated"}, timeout=30)
        final = [l for l in seen if "Terminated" in l][-1]
        self.assertNotIn("node=%s " % victim, final)
        # Some survivor noticed the silence (the first tells the others).
        survivors = [n for n in self.names if n != victim]
        self.assertTrue(any(re.search(r"Task UUID\{%s\} name\{import\}: no progress from %s"
                                      % (u, victim), self.cl.nodes[n].log())
                            for n in survivors))
        self.assertEqual(len([n for n in self.cl.starts(u) if n != victim]), 1)

    def test_kill9_of_the_master_then_a_late_joiner_gets_every_task(self):
        self.assertEqual(self.cl.master(), "a")
        b = self.client("b")
        p = params_file(self.cl.nodes["b"].dir, 50)
        wf = schedule_workflow(b, p)
        b.ask("SUBSCRIBE " + " ".join(wf))
        b.wait_states({u: "Terminated" for u in wf})
        # a's epoch: 1, or more when the start-up took two elections (a
        # slow machine, the sanitizers).
        old = max(int(e) for e in re.findall(
            r"I won the master election \(epoch (\d+)\)", self.cl.nodes["a"].log()))
        self.cl.nodes["a"].kill9()
        # Equal reputations and maps: the first to notice proposes first
        # and wins (older candidacy), with an epoch above a's.
        new = self.cl.master(among=["b", "c"])
        # Its latest win (a slow start may have won one before a's): the
        # log is all that tells.
        harness.wait_until(lambda: max([0] + [int(e) for e in re.findall(
            r"I won the master election \(epoch (\d+)\)", self.cl.nodes[new].log())])
            > old, "%s won an election above epoch %d" % (new, old))
        more = b.schedule("import interactive -p /late -x %s" % p)
        d = self.cl.add("d")
        self.assertEqual(self.cl.master(among=["b", "c", "d"]), new)
        dc = self.client("d")
        deadline = time.monotonic() + 20
        while more not in dc.tasks():	# the transfer is datagrams
            self.assertLess(time.monotonic(), deadline, "d never learned the tasks")
            time.sleep(0.05)
        dc.ask("SUBSCRIBE " + more)
        dc.wait_states({more: "Terminated"})
        self.assertEqual(set(dc.tasks()), set(wf) | {more})

    def test_a_record_heard_outlives_a_kill9_at_once(self):
        # A record nobody waits on (another node's run) is written at
        # once, though synced only with the next that is waited on: a
        # node killed the moment it hears it restarts with it.
        u, runner, a = self.start_slow(3000)
        other = [n for n in self.names if n not in ("a", runner)][0]
        w = self.client(other)
        w.ask("SUBSCRIBE " + u)
        w.wait_states({u: "Running"})
        for n in self.names:
            self.cl.nodes[n].kill9()
        self.cl.nodes[other].start()
        c = self.cl.nodes[other].client()
        self.addCleanup(c.close)
        self.assertIn(u, c.tasks())

    def test_clean_stop_hands_the_task_back_at_once(self):
        u, runner, a = self.start_slow(1500)
        watcher = "b" if runner != "b" else "c"
        w = self.client(watcher)
        w.ask("SUBSCRIBE " + u)
        self.cl.nodes[runner].stop()
        seen = w.wait_states({u: "Terminated"}, timeout=30)
        self.assertTrue(any(l.split()[3] == "Ready" for l in seen))
        # Handed back by the stopping node, not found by a timeout.
        self.assertNotRegex(self.cl.nodes[watcher].log(), r"no progress from %s" % runner)


class Ends(ClusterTest):
    def test_cancel_answers_once_the_cancel_is_final_everywhere(self):
        u, runner, a = self.start_slow(30000)
        # Cancelled where it was scheduled (a), the node its owner asked:
        # no other may (test_liar.Cancels).
        other = "a"
        c = self.client(other)
        # Pipelined: CANCEL's reply waits for the end a majority
        # confirmed, and TASKS, sent with it, is answered after it.
        c.send("CANCEL %s\nTASKS\n" % u)
        self.assertEqual(c.line(), "CANCELLED %s" % u)
        rows = []
        while True:
            l = c.line()
            if l == ".":
                break
            rows.append(l.split())
        # Told CANCELLED, the node already holds the end final (not
        # Unconfirmed), and read TASKS only after answering.
        self.assertEqual([r[4] for r in rows if r[1] == u], ["Cancelled"])
        # Every node comes to the same end.
        for n in self.names:
            x = self.client(n)
            x.ask("SUBSCRIBE " + u)
            x.wait_states({u: "Cancelled"})
        self.assertRegex(self.cl.nodes[other].log(),
                         r"Task UUID\{%s\} name\{import\} Cancelled confirmed by [23] of 3 nodes" % u)


if __name__ == "__main__":
    unittest.main()


class NameClash(unittest.TestCase):
    """Two workstations given one name: each says so in `volery nodes`
    and takes no tasks until one is renamed; the other gone, the one
    left takes tasks again."""

    def test_a_name_clash_is_shown_and_stops_volunteering(self):
        # Heartbeats every 250 ms even when quiet: the clash is over one
        # silence (four of them, or node_timeout_ms) after b stops.
        quick = "<quiet_heartbeat_ms>0</quiet_heartbeat_ms>"
        a = harness.Node(name="twin", cluster="clash", extra=quick)
        b = harness.Node(name="twin", cluster="clash", extra=quick)
        self.addCleanup(a.cleanup)
        self.addCleanup(b.cleanup)
        a.start()
        a.wait_log(r"I won the master election")
        b.start()
        for n in (a, b):
            n.wait_log(r"another node, at \S+, is also called twin: names "
                       r"must be unique")
            r = subprocess.run(harness.WRAP + [harness.VOLERY, "-H",
                               "127.0.0.1:%d" % n.port, "nodes"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"\ntwin +\S+ +\S+ +clash ")
            self.assertIn("name clash: the node at 127.0.0.1:", r.stdout)
        c = a.client()
        self.addCleanup(c.close)
        u = c.schedule("import low -p /x")
        line = [l for l in c.ask_multi("TASKS") if u in l][0]
        self.assertIn(" Ready ", line)
        self.assertIn("waiting: the node that can run it takes no tasks now",
                      line)
        b.stop()
        a.wait_log(r"also called twin has been silent for \d+ ms: taking "
                   r"tasks again", timeout=harness.TIMEOUT)
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Running"})


class UserKeys(unittest.TestCase):
    """Nodes one user starts on one host, with one <cluster> and no
    keyring, form one pool as they are (README, A cluster by hand); a
    node with another user's key is refused, and `volery nodes` says
    what to do."""

    def nodes_of(self, node):
        r = subprocess.run(harness.WRAP + [harness.VOLERY, "-H",
                           "127.0.0.1:%d" % node.port, "nodes"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_one_users_nodes_share_a_key_and_another_users_is_refused(self):
        port = harness.free_udp_port()
        cluster = "k%d" % port
        extra = harness.FAST_CLUSTER % port
        nodes = [harness.Node(name=n, cluster=cluster, key=False, extra=extra)
                 for n in ("a", "b", "c")]
        for n in nodes:
            self.addCleanup(n.cleanup)
            n.start()
        def one_pool():
            out = self.nodes_of(nodes[1])
            return (len(re.findall(r"^[abc] +127\.0\.0\.1:\d+ ", out, re.M)) == 3
                    and len(re.findall(r" master ", out)) == 1)
        harness.wait_until(one_pool, "three nodes in one pool, one master")
        keys = os.path.join(os.environ["XDG_CONFIG_HOME"], "volery", "keys")
        st = os.stat(os.path.join(keys, cluster + ".key"))
        self.assertEqual(st.st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(keys).st_mode & 0o777, 0o700)
        # Another user's node: its own key, made in its own directory.
        other = harness.Node(name="d", cluster=cluster, key=False, extra=extra)
        self.addCleanup(other.cleanup)
        other.env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(other.dir, "xdg"))
        other.start()
        self.assertTrue(os.path.exists(os.path.join(other.dir, "xdg", "volery",
                                                    "keys", cluster + ".key")))
        harness.wait_until(lambda: "sealed with an unknown key" in
                           self.nodes_of(nodes[0]), "d's datagrams refused")
        out = self.nodes_of(nodes[0])
        self.assertIn("give every node one key (volery keygen FILE", out)
        self.assertNotRegex(out, r"\nd +127\.0\.0\.1")

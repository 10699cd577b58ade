"""Two floors on two subnets, a router between that forwards IP but not
broadcasts, and relays that make them one pool (issue 40 point 4):
tasks from one floor run on the other; a relay killed, the router down
and 10 % loss change nothing but the time it takes."""
import time
import unittest

import lan
import test_lan

FLOORS = [0, 0, 0, 1, 1, 1]        # hosts h0-h2 on one subnet, h3-h5 on the other
# Two relays a floor, each naming both of the other's: no single relay
# is the one way across.
RELAYS = {0: (3, 4), 1: (3, 4), 3: (0, 1), 4: (0, 1)}

# What a node that joins cannot help (rejects.c: counted, not an alarm).
JOINING = ("from a node that does not know us yet",
           "from a node whose certificate we have not heard")


class Subnets(test_lan.LanTest):
    @classmethod
    def make_lan(cls):
        return lan.Lan(len(FLOORS), subnets=FLOORS)

    def setUp(self):
        self.cluster = "sub%d" % int(time.monotonic() * 1000 % 1e9)
        self.nodes = {}
        self.addCleanup(self.stop_all)
        self.addCleanup(self.lan.router_up)
        for k in range(len(FLOORS)):
            self.start_node(k)

    def start_node(self, k):
        name = "h%d" % k
        extra = test_lan.TIMING + "\n  <tags>floor%d</tags>" % FLOORS[k]
        extra += "".join("\n  <relay>%s</relay>" % self.lan.addr(r)
                         for r in RELAYS.get(k, ()))
        node = self.lan.node(k, name, self.cluster, extra)
        node.start()
        self.nodes[name] = node
        return node

    def floor(self, f):
        return [n for n in self.live() if FLOORS[int(n[1:])] == f]

    def run_on(self, via, floor, count, tag):
        c = self.client(via)
        return [c.ask("RUN %s%d low -g floor%d -- /bin/true" %
                      (tag, k, floor)).split()[1] for k in range(count)]

    def rejected(self, name):
        return [r for r in self.node_rows(name) if r.startswith("REJECTED")]

    def node_rows(self, name):
        return self.client(name).ask_multi("NODES")

    def test_two_floors_are_one_pool(self):
        self.one_master()
        # Every node hears every other, by heartbeats relayed or not.
        deadline = time.monotonic() + 20
        for n in self.live():
            while True:
                rows = [r for r in self.node_rows(n) if r.startswith("NODE ")]
                heard = sorted(r.split()[1] for r in rows)
                if heard == sorted(self.nodes) or time.monotonic() > deadline:
                    break
                time.sleep(0.1)  # NODES is a snapshot: nothing to wait on
            self.assertEqual(heard, sorted(self.nodes), n)
        joined = {n: self.rejected(n) for n in self.live()}
        up = self.run_on("h2", 1, 4, "up")      # from floor 0, for floor 1
        down = self.run_on("h5", 0, 4, "down")
        self.wait_all(up + down, "h2")
        where = self.agreed_results(up + down)
        for u in up:
            self.assertIn(where[u], self.floor(1), u)
        for u in down:
            self.assertIn(where[u], self.floor(0), u)
        # Each frame comes over by two relays, and is broadcast twice on
        # the far floor: the copies are dropped before the replay guard,
        # which would count them.  While the pool formed, a node could
        # drop a frame MAC'd before its sender had heard it (counted, not
        # an alarm; answered with our certificate); once formed, none.
        for n in self.live():
            rejected = self.rejected(n)
            self.assertEqual(rejected, joined[n], n)
            self.assertEqual([r for r in rejected if not any(
                why in r for why in JOINING)], [], n)

    def test_a_relay_killed_the_router_down_and_loss(self):
        self.one_master()
        self.lan.loss(10)
        self.nodes["h0"].kill9()        # one of floor 0's two relays
        self.one_master()
        first = self.run_on("h2", 1, 3, "a") + self.run_on("h5", 0, 3, "b")
        self.wait_all(first, "h2", timeout=60)
        # The router fails: each floor goes on alone, as a partition.
        self.lan.router_down()
        self.one_master(self.floor(0))
        self.one_master(self.floor(1))
        split = self.run_on("h2", 0, 3, "c") + self.run_on("h5", 1, 3, "d")
        self.lan.router_up()
        self.one_master()
        self.wait_all(first + split, "h5", timeout=60)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.agreed_results(first + split)
                break
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)  # anti-entropy runs on heartbeats


if __name__ == "__main__":
    unittest.main()

"""Sleeping machines, woken (issue 40 point 5), on a namespace LAN: a
node about to suspend says so (`volery sleep`) and is stopped; its host
is a stand-in machine, a namespace that listens for its own magic packet
and starts the node when it comes.  Work that waits with no free slot
wakes it; a sleeper that would not volunteer woken is left asleep."""
import socket
import subprocess
import threading
import time
import unittest

import lan
import test_lan
from harness import VOLERY


def mac_of(netns):
    r = subprocess.run(["ip", "netns", "exec", netns, "cat",
                        "/sys/class/net/eth0/address"],
                       capture_output=True, text=True, check=True)
    return r.stdout.strip()


class StandIn:
    """A machine asleep: a socket on UDP port 9 in its namespace, which
    starts its node when its own magic packet arrives."""

    def __init__(self, node):
        self.node = node
        self.mac = bytes.fromhex(mac_of(node.netns).replace(":", ""))
        self.magic = b"\xff" * 6 + self.mac * 16
        self.packets = []
        self.woken = threading.Event()
        with lan.inside(node.netns):
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.sock.bind(("", 9))
        self.sock.settimeout(0.2)
        self.stopping = False
        self.thread = threading.Thread(target=self.listen, daemon=True)
        self.thread.start()

    def listen(self):
        while not self.stopping:
            try:
                data, _ = self.sock.recvfrom(2048)
            except socket.timeout:
                continue
            self.packets.append(data)
            if data == self.magic and not self.woken.is_set():
                self.node.start()
                self.woken.set()

    def close(self):
        self.stopping = True
        self.thread.join()
        self.sock.close()


class Wake(test_lan.LanTest):
    @classmethod
    def make_lan(cls):
        return lan.Lan(4)

    def setUp(self):
        self.cluster = "wk%d" % int(time.monotonic() * 1000 % 1e9)
        self.nodes = {}
        self.addCleanup(self.stop_all)
        # h0 and h1 stay awake; h2 volunteers whenever it is up
        # (dedicated); h3 only when its user is away (screensaver mode,
        # no batch window), so waking it would give the work nothing.
        for k in range(4):
            self.start_node(k)

    def start_node(self, k):
        extra = test_lan.TIMING + "\n  <wake_after_s>1</wake_after_s>"
        if k == 3:
            extra += "\n  <mode>screensaver</mode>"
        node = self.lan.node(k, "h%d" % k, self.cluster, extra)
        node.start()
        self.nodes[node.name] = node
        return node

    def put_to_sleep(self, name):
        """`volery sleep` on that host, then the machine is off."""
        node = self.nodes[name]
        r = subprocess.run(["ip", "netns", "exec", node.netns, VOLERY,
                            "-H", "127.0.0.1:%d" % node.port, "sleep"],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        for other in ("h0", "h1"):
            self.nodes[other].wait_log(r"node %s is asleep; it wakes by "
                                       r"[0-9a-f:]{17}@[\d.]+" % name)
        node.kill9()
        stand_in = StandIn(node)
        self.addCleanup(stand_in.close)
        return stand_in

    def test_waiting_work_wakes_a_sleeper_that_would_take_it(self):
        self.one_master()
        master = self.one_master()
        self.assertIn(master, ("h0", "h1"))
        h2, h3 = self.put_to_sleep("h2"), self.put_to_sleep("h3")
        self.assertEqual(self.nodes["h0"].wait_log(
            r"node h2 is asleep; it wakes by (\S+)").group(1),
            "%s@%s,always" % (mac_of(self.nodes["h2"].netns),
                              self.lan.broadcast))
        c = self.client("h0")
        uuids = [c.ask("RUN long%d low -- sleep 4" % k).split()[1]
                 for k in range(3)]
        # Two run on h0 and h1; the third waits with no free slot until
        # the master wakes h2, whose stand-in starts its node.
        self.assertTrue(h2.woken.wait(30), self.nodes[master].log()[-3000:])
        self.nodes[master].wait_log(r"waking node h2 \(\S+,always\): 1 "
                                    r"Ready tasks waited \d+ s with no free "
                                    r"slot")
        self.nodes[master].wait_log(r"woke node h2: magic packet for ")
        self.wait_all(uuids, "h0", timeout=60)
        where = self.agreed_results(uuids)
        self.assertEqual(sorted(where.values()), ["h0", "h1", "h2"])
        self.nodes[master].wait_log(r"node h2 is awake again, woken")
        # h3 would not have volunteered: never woken (it hears h2's
        # packet, a broadcast, as every machine on the subnet does).
        self.assertIn(h2.magic, h3.packets)
        self.assertNotIn(h3.magic, h3.packets)
        self.assertNotIn("waking node h3", self.nodes[master].log())


if __name__ == "__main__":
    unittest.main()

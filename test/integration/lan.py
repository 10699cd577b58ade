"""A LAN of network namespaces for volery nodes, one node per host.

    switch namespace:  bridge br0, one veth end per host
    host namespaces:   eth0 with 10.213.<net>.<k>/24, lo

The root namespace gets no address and no route: traffic stays between
the namespaces made here.  Tests reach a node's client port (127.0.0.1
inside its namespace) by creating the socket inside that namespace.
Everything is removed by close(), also after a failure.
"""
import ctypes
import os
import socket
import subprocess

from harness import Client, Node, TIMEOUT, VOLERY  # noqa: F401
import harness

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def sh(*args, check=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stderr.strip()))
    return r


def available():
    """None if a LAN can be built here, else the reason."""
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    for tool in ("ip", "nft"):
        if subprocess.run(["sh", "-c", "command -v " + tool],
                          capture_output=True).returncode != 0:
            return "needs %s (iproute2, nftables)" % tool
    return None


class NsClient(Client):
    """A client connected from inside a namespace."""

    def __init__(self, netns, port, host="127.0.0.1"):
        self.buf = b""
        own = os.open("/proc/self/ns/net", os.O_RDONLY)
        target = os.open("/var/run/netns/" + netns, os.O_RDONLY)
        try:
            if _libc.setns(target, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + netns)
            try:
                self.sock = socket.create_connection((host, port),
                                                     timeout=TIMEOUT)
            finally:
                if _libc.setns(own, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns back")
        finally:
            os.close(own)
            os.close(target)


class LanNode(Node):
    def __init__(self, lan, host, **kw):
        self.lan = lan
        self.host = host
        self.netns = lan.ns(host)
        super().__init__(**kw)

    def start(self):
        saved = harness.WRAP
        harness.WRAP = ["ip", "netns", "exec", self.netns] + saved
        try:
            return super().start()
        finally:
            harness.WRAP = saved

    def client(self):
        return NsClient(self.netns, self.port)


class Lan:
    def __init__(self, hosts):
        self.tag = "vl%d" % os.getpid()
        self.net = 200 + os.getpid() % 50
        self.switch = self.tag + "-sw"
        self.hosts = []
        self.nodes = {}
        self.port = 7601
        try:
            sh("ip", "netns", "add", self.switch)
            sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
            sh("ip", "-n", self.switch, "link", "set", "br0", "up")
            for k in range(hosts):
                self.add_host()
        except Exception:
            self.close()
            raise

    def ns(self, host):
        return "%s-h%d" % (self.tag, host)

    def addr(self, host):
        return "10.213.%d.%d" % (self.net, host + 1)

    @property
    def broadcast(self):
        return "10.213.%d.255" % self.net

    def add_host(self):
        k = len(self.hosts)
        ns = self.ns(k)
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", self.switch, "link", "add", "p%d" % k, "type", "veth",
           "peer", "name", "eth0", "netns", ns)
        sh("ip", "-n", self.switch, "link", "set", "p%d" % k, "master", "br0", "up")
        sh("ip", "-n", ns, "addr", "add", self.addr(k) + "/24",
           "broadcast", self.broadcast, "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        self.hosts.append(k)
        return k

    def node(self, host, name, cluster, extra="", key=True, slots=1):
        node = LanNode(self, host, name=name, cluster=cluster, key=key,
                       slots=slots, extra=(
            "<broadcast>%s</broadcast>\n  <peer_port>%d</peer_port>\n  %s"
            % (self.broadcast, self.port, extra)))
        self.nodes[name] = node
        return node

    def loss(self, percent):
        """Drop percent% of the UDP datagrams every host receives."""
        for k in self.hosts:
            ns = self.ns(k)
            sh("ip", "netns", "exec", ns, "nft", "delete", "table", "inet", "volery",
               check=False)
            if percent > 0:
                rules = ("table inet volery {\n  chain input {\n"
                         "    type filter hook input priority 0;\n"
                         "    meta l4proto udp numgen random mod 100 < %d drop\n"
                         "  }\n}\n" % percent)
                r = subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"],
                                   input=rules, capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError("nft: " + r.stderr.strip())

    def cut(self, host):
        sh("ip", "-n", self.switch, "link", "set", "p%d" % host, "down")

    def heal(self, host):
        sh("ip", "-n", self.switch, "link", "set", "p%d" % host, "up")

    def close(self):
        for node in self.nodes.values():
            node.cleanup()
        for k in self.hosts:
            sh("ip", "netns", "del", self.ns(k), check=False)
        sh("ip", "netns", "del", self.switch, check=False)

"""A LAN of network namespaces for volery nodes, one node per host.

    switch namespace:  bridge br0, one veth end per host
    host namespaces:   eth0 with 10.213.<net>.<k>/24, lo

With subnets (Lan(hosts, subnets=[0, 0, 1, ...]), a host's subnet each),
subnet s is bridge br<s> and 10.<213+s>.<net>.0/24, and a router
namespace joins them: eth<s> with 10.<213+s>.<net>.254, IP forwarded,
broadcasts not (as a router does); every host routes through it.

The root namespace gets no address and no route: traffic stays between
the namespaces made here.  Tests reach a node's client port (127.0.0.1
inside its namespace) by creating the socket inside that namespace.
Everything is removed by close(), also after a failure.
"""
import contextlib
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


@contextlib.contextmanager
def inside(netns):
    """This thread in the namespace netns meanwhile: a socket made there
    stays there."""
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open("/var/run/netns/" + netns, os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns " + netns)
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(own)
        os.close(target)


class NsClient(Client):
    """A client connected from inside a namespace."""

    def __init__(self, netns, port, host="127.0.0.1"):
        self.buf = b""
        with inside(netns):
            self.sock = socket.create_connection((host, port),
                                                 timeout=TIMEOUT)


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
    def __init__(self, hosts, subnets=None):
        self.tag = "vl%d" % os.getpid()
        self.net = 200 + os.getpid() % 50
        self.switch = self.tag + "-sw"
        self.router = self.tag + "-rt"
        self.subnet = {}
        self.hosts = []
        self.nodes = {}
        self.port = 7601
        subnets = subnets or [0] * hosts
        try:
            sh("ip", "netns", "add", self.switch)
            for s in sorted(set(subnets)):
                sh("ip", "-n", self.switch, "link", "add", "br%d" % s,
                   "type", "bridge")
                sh("ip", "-n", self.switch, "link", "set", "br%d" % s, "up")
            if len(set(subnets)) > 1:
                self.add_router(sorted(set(subnets)))
            for s in subnets[:hosts]:
                self.add_host(s)
        except Exception:
            self.close()
            raise

    def ns(self, host):
        return "%s-h%d" % (self.tag, host)

    def addr(self, host):
        return "10.%d.%d.%d" % (213 + self.subnet.get(host, 0), self.net,
                                host + 1)

    def broadcast_of(self, subnet):
        return "10.%d.%d.255" % (213 + subnet, self.net)

    @property
    def broadcast(self):
        return self.broadcast_of(0)

    def gateway(self, subnet):
        return "10.%d.%d.254" % (213 + subnet, self.net)

    def add_router(self, subnets):
        sh("ip", "netns", "add", self.router)
        for s in subnets:
            sh("ip", "-n", self.switch, "link", "add", "r%d" % s, "type",
               "veth", "peer", "name", "eth%d" % s, "netns", self.router)
            sh("ip", "-n", self.switch, "link", "set", "r%d" % s, "master",
               "br%d" % s, "up")
            sh("ip", "-n", self.router, "addr", "add",
               self.gateway(s) + "/24", "broadcast", self.broadcast_of(s),
               "dev", "eth%d" % s)
            sh("ip", "-n", self.router, "link", "set", "eth%d" % s, "up")
        sh("ip", "netns", "exec", self.router, "sysctl", "-qw",
           "net.ipv4.ip_forward=1")

    def router_down(self):
        for s in set(self.subnet.values()):
            sh("ip", "-n", self.switch, "link", "set", "r%d" % s, "down")

    def router_up(self):
        for s in set(self.subnet.values()):
            sh("ip", "-n", self.switch, "link", "set", "r%d" % s, "up")

    def add_host(self, subnet=0):
        k = len(self.hosts)
        ns = self.ns(k)
        self.subnet[k] = subnet
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", self.switch, "link", "add", "p%d" % k, "type", "veth",
           "peer", "name", "eth0", "netns", ns)
        sh("ip", "-n", self.switch, "link", "set", "p%d" % k, "master",
           "br%d" % subnet, "up")
        sh("ip", "-n", ns, "addr", "add", self.addr(k) + "/24",
           "broadcast", self.broadcast_of(subnet), "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        if self.router_on():
            sh("ip", "-n", ns, "route", "add", "default", "via",
               self.gateway(subnet))
        self.hosts.append(k)
        return k

    def router_on(self):
        return os.path.exists("/var/run/netns/" + self.router)

    def node(self, host, name, cluster, extra="", key=True, slots=1):
        node = LanNode(self, host, name=name, cluster=cluster, key=key,
                       slots=slots, extra=(
            "<broadcast>%s</broadcast>\n  <peer_port>%d</peer_port>\n  %s"
            % (self.broadcast_of(self.subnet.get(host, 0)), self.port,
               extra)))
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
        sh("ip", "netns", "del", self.router, check=False)
        sh("ip", "netns", "del", self.switch, check=False)

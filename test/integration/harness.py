"""Drive real `volery serve` nodes over TCP, as a user with nc would.

A Node runs in its own temporary directory with a config on a free port
(listen 127.0.0.1:0; the node logs the port it got).  Every wait here
waits for an event -- a log line, a reply, a PROGRESS line -- with a
deadline, never for a fixed time.
"""
import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOLERY = os.path.join(ROOT, "volery")
TIMEOUT = float(os.environ.get("VOLERY_TEST_TIMEOUT", "20"))
# A command to run each node under, e.g. "valgrind -q --error-exitcode=99".
WRAP = os.environ.get("VOLERY_WRAP", "").split()


def proc_state(pid):
    """The state letter of /proc/PID/stat (T: stopped, Z: zombie), or None
    once the process is gone (also when it goes while being read)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def alive(pid):
    """True while pid runs (a zombie waiting for its parent counts as gone)."""
    return proc_state(pid) not in (None, "Z")


def wait_until(cond, what, timeout=TIMEOUT):
    """Poll cond() for what only the kernel or a terminal can tell (a
    process state, a screen): no event says when.  Its value."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("never: " + what)
        time.sleep(0.02)


def make_workdir(prefix="volery-test-", dir=None):
    """A temporary directory the tasks can enter: a node started as root
    runs them as an unprivileged user (nobody, when the host has no
    volery user), as it would on a workstation."""
    d = tempfile.mkdtemp(prefix=prefix, dir=dir)
    os.chmod(d, 0o755)
    return d


def tasks_dir(where):
    """A tasks dir holding copies of the sample tasks and the test tasks
    (copies: the checkout may be somewhere the run user cannot enter)."""
    d = os.path.join(where, "tasks")
    os.makedirs(d, exist_ok=True)
    for src in (os.path.join(ROOT, "tasks"), os.path.join(ROOT, "test", "tasks")):
        for name in os.listdir(src):
            if name.endswith(".c"):
                continue
            shutil.copy2(os.path.join(src, name), os.path.join(d, name))
    return d


def params_file(where, duration_ms):
    path = os.path.join(where, "params-%d.xml" % duration_ms)
    with open(path, "w") as f:
        f.write("<parameters><duration_ms>%d</duration_ms></parameters>\n"
                % duration_ms)
    return path


_KEYS = {}

# A loopback node with no keyring takes its user's key for its cluster
# (~/.config/volery/keys): the tests' keys stay in a directory of their
# own, gone when they end.
_XDG = tempfile.mkdtemp(prefix="volery-xdg-")
atexit.register(shutil.rmtree, _XDG, True)
os.environ["XDG_CONFIG_HOME"] = _XDG


def cluster_key(cluster):
    """The key file of a cluster, made once with `volery keygen` as an
    admin would; every node of that cluster names it in its keyring."""
    if cluster not in _KEYS:
        d = tempfile.mkdtemp(prefix="volery-key-")
        atexit.register(shutil.rmtree, d, True)
        path = os.path.join(d, "cluster.key")
        subprocess.run([VOLERY, "keygen", path], check=True,
                       stdout=subprocess.DEVNULL)
        _KEYS[cluster] = path
    return _KEYS[cluster]


def admin_key(cluster):
    """The admin key of a cluster (`volery keygen --admin`): its nodes
    name the secret one and so enrol themselves; a test enrols others
    with it (`volery enroll -k`)."""
    if cluster not in _ADMIN_KEYS:
        d = tempfile.mkdtemp(prefix="volery-admin-")
        atexit.register(shutil.rmtree, d, True)
        path = os.path.join(d, "admin.key")
        subprocess.run([VOLERY, "keygen", "--admin", path], check=True,
                       stdout=subprocess.DEVNULL)
        _ADMIN_KEYS[cluster] = path
    return _ADMIN_KEYS[cluster]


_ADMIN_KEYS = {}


class Node:
    def __init__(self, name="alpha", slots=1, extra="", workdir=None, cluster=None,
                 key=True):
        self.dir = workdir or make_workdir()
        # A cluster of its own: tests never meet another node by accident.
        self.cluster = cluster or "t" + os.path.basename(self.dir).replace("_", "-")[-12:]
        self.name = name
        # Nodes of a named cluster share its key; a lone node makes its own.
        if key and cluster and "<keyring>" not in extra and "<insecure/>" not in extra:
            extra += "\n  <keyring><key>%s</key></keyring>" % cluster_key(cluster)
            if "<admin_key>" not in extra:
                extra += "\n  <admin_key>%s</admin_key>" % admin_key(cluster)
        self.tasks = os.path.join(self.dir, "tasks")
        if not os.path.isdir(self.tasks):
            tasks_dir(self.dir)
        self.conf = os.path.join(self.dir, "node.xml")
        with open(self.conf, "w") as f:
            f.write("""<server>
  <name>%s</name>
  <cluster>%s</cluster>
  <listen>127.0.0.1:0</listen>
  <tasks_dir>tasks</tasks_dir>
  <state_dir>state</state_dir>
  <log_file>volery.log</log_file>
  <slots>%d</slots>
  <mode>dedicated</mode>
  %s
</server>
""" % (name, self.cluster, slots, extra))
        self.proc = None
        self.port = None
        self.stderr = []
        self.cond = threading.Condition()
        self.env = None     # the node's environment, if not ours
        self.wrap = []      # a command the node runs under (before WRAP)

    @property
    def logfile(self):
        return os.path.join(self.dir, "volery.log")

    def start(self):
        """Start and wait for the 'listening on' line."""
        self.stderr = []
        listening = threading.Event()
        self.proc = subprocess.Popen(self.wrap + WRAP + [VOLERY, "serve", "-c", self.conf],
                                     env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True,
                                     errors="replace")

        def drain(proc=self.proc, lines=self.stderr):
            for line in proc.stderr:
                with self.cond:
                    lines.append(line)
                    self.cond.notify_all()
                m = re.search(r"listening on (?:[\d.]+|\[[\da-f:]+\]):(\d+)", line)
                if m:
                    self.port = int(m.group(1))
                    listening.set()
            listening.set()
            with self.cond:
                self.cond.notify_all()

        threading.Thread(target=drain, daemon=True).start()
        if not listening.wait(TIMEOUT) or self.port is None:
            self.kill9()
            raise AssertionError("node did not start:\n" + "".join(self.stderr))
        return self

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self):
        """SIGTERM; a clean stop must exit 0 (sanitizers report here)."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("node did not stop on SIGTERM")
        if rc != 0:
            raise AssertionError("node exited %d:\n%s" % (rc, "".join(self.stderr)[-3000:]))
        return rc

    def log(self):
        with open(self.logfile, errors="replace") as f:
            return f.read()

    def wait_log(self, pattern, timeout=TIMEOUT):
        """Wait until this run's console log (the log file's lines, echoed
        on stderr) has a line matching pattern; returns the match."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                m = re.search(pattern, "".join(self.stderr))
                if m:
                    return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("log never matched %r:\n%s" % (
                        pattern, "".join(self.stderr)[-3000:]))
                self.cond.wait(left)

    def client(self):
        return Client(self.port)

    def http_port(self):
        """The port its <http>127.0.0.1:0</http> got, once it serves."""
        return int(self.wait_log(r"dashboard and API on "
                                 r"http://127\.0\.0\.1:(\d+)/").group(1))

    def cleanup(self):
        self.kill9()
        shutil.rmtree(self.dir, ignore_errors=True)


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def line(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no reply line; have %r" % self.buf)
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed; have %r" % self.buf)
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace")

    def ask(self, request):
        """One request, its first reply line (skipping PROGRESS lines)."""
        self.send(request + "\n")
        while True:
            l = self.line()
            if not l.startswith("PROGRESS "):
                return l

    def ask_multi(self, request):
        """A multi-line reply up to its '.' line."""
        self.send(request + "\n")
        lines = []
        while True:
            l = self.line()
            if l.startswith("PROGRESS "):
                continue
            if l == ".":
                return lines
            if l.startswith("ERROR"):
                return [l]
            lines.append(l)

    def schedule(self, request):
        reply = self.ask("SCHEDULE " + request)
        assert reply.startswith("SCHEDULED "), reply
        return reply.split()[1]

    def tasks(self):
        """{uuid: (exec, prio, state, percent, scheduled_by, running_on)}"""
        out = {}
        for l in self.ask_multi("TASKS"):
            f = l.split()
            assert f[0] == "TASK", l
            out[f[1]] = tuple(f[2:])
        return out

    def wait_states(self, want, timeout=TIMEOUT):
        """Read PROGRESS lines until every uuid in want reached its state.
        Returns the PROGRESS lines seen, in order."""
        seen = []
        states = {}
        deadline = time.monotonic() + timeout
        while any(states.get(u) != s for u, s in want.items()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("states %r never reached; last %r"
                                     % (want, states))
            l = self.line(left)
            seen.append(l)
            f = l.split()
            if f and f[0] == "PROGRESS":
                states[f[1]] = f[3]
        return seen

    def close(self):
        self.sock.close()


def schedule_workflow(c, params, prio="low", path="/data/inspection-42"):
    """The four-task workflow of thesis Table 4.1; returns (I, G, S, A)."""
    i = c.schedule("import %s -p %s -x %s" % (prio, path, params))
    g = c.schedule("georeferencing %s -a %s 1 -a %s 2 -a %s 3 -x %s"
                   % (prio, i, i, i, params))
    s = c.schedule("segmentation %s -a %s 1 -a %s 1 -a %s 2 -x %s"
                   % (prio, i, g, g, params))
    a = c.schedule("anomaly_detection %s -a %s 1 -x %s" % (prio, s, params))
    return i, g, s, a


def outputs_of(progress_lines, uuid):
    for l in progress_lines:
        f = l.split()
        if f[:2] == ["PROGRESS", uuid] and f[3] == "Terminated":
            for kv in f[4:]:
                if kv.startswith("outputs="):
                    return kv[len("outputs="):].split(",")
    return None


def started_args(node, uuid):
    """The argument lists the node started uuid's executable with."""
    return re.findall(r"Task UUID\{%s\} executable \S+ started, pid \d+, "
                      r"user \S+, attempt \d+:(.*)" % uuid, node.log())


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# A LAN's windows.  Under valgrind a node does its work some thirty
# times slower: a winner's Running reaches the others later than a
# 10-ms window's claim memory (claims.h) lasts, and a node next in line
# steps in beside it.  Four times the window is that host's LAN.
DEQUEUE_WINDOW_MS = 40 if WRAP else 10

FAST_CLUSTER = """<peer_port>%%d</peer_port>
  <dequeue_window_ms>%d</dequeue_window_ms>
  <election_window_ms>50</election_window_ms>
  <progress_interval_ms>100</progress_interval_ms>
  <failure_timeout_ms>800</failure_timeout_ms>
  <node_timeout_ms>800</node_timeout_ms>
  <quiet_heartbeat_ms>1000</quiet_heartbeat_ms>
  <cancel_grace_ms>200</cancel_grace_ms>""" % DEQUEUE_WINDOW_MS


class Cluster:
    """Nodes on loopback in a cluster of their own (name and peer port)."""

    def __init__(self, names, extra="", slots=1):
        self.port = free_udp_port()
        self.name = "c%d" % self.port
        self.nodes = {}
        for n in names:
            self.add(n, extra=extra, slots=slots, start=False)

    def add(self, name, extra="", slots=1, start=True):
        node = Node(name=name, slots=slots, cluster=self.name,
                    extra=(FAST_CLUSTER % self.port) + extra)
        self.nodes[name] = node
        if start:
            node.start()
        return node

    def start(self):
        for node in self.nodes.values():
            node.start()
        return self

    def cleanup(self):
        for node in self.nodes.values():
            node.cleanup()

    @classmethod
    def with_dashboard(cls, names=("a", "b", "c")):
        """Started, a master agreed, every node serving HTTP on a port of
        its own (Node.http_port)."""
        cl = cls(names, extra="<http>127.0.0.1:0</http>").start()
        cl.master()
        return cl

    def master(self, among=None):
        """Wait until the live nodes agree on one master; return its name."""
        deadline = time.monotonic() + TIMEOUT
        live = [n for n in (among or self.nodes) if self.nodes[n].proc
                and self.nodes[n].proc.poll() is None]
        while True:
            views = set()
            for n in live:
                c = self.nodes[n].client()
                rows = c.ask_multi("NODES")
                c.close()
                masters = [r.split()[1] for r in rows
                           if r.startswith("NODE ") and r.split()[3] == "master"]
                views.add(tuple(masters))
            if len(views) == 1 and len(next(iter(views))) == 1 and \
                    next(iter(views))[0] in live:
                return next(iter(views))[0]
            if time.monotonic() > deadline:
                raise AssertionError("no single master: %r" % views)
            # Elections take a few windows; nothing to wait on but time.
            time.sleep(0.05)

    def starts(self, uuid):
        """Which nodes started uuid's executable, from every node's log."""
        return [n for n, node in self.nodes.items()
                for _ in started_args(node, uuid)]

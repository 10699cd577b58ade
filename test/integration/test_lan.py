"""A real LAN of network namespaces on a bridge, one node per host
(issue 3): workflows, kill -9 of a runner and of the master, a late
joiner, 10% datagram loss, a partition healed."""
import collections
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import harness
import lan
import test_checkpoint
from harness import FAST_CLUSTER, TIMEOUT, WRAP, params_file, schedule_workflow

HOSTS = 5
TIMING = "\n".join(l for l in (FAST_CLUSTER % 7601).splitlines()
                   if "peer_port" not in l) + "\n  <log_level>debug</log_level>"


class LanTest(unittest.TestCase):
    @classmethod
    def make_lan(cls):
        return lan.Lan(HOSTS + 1)	# the last host stays free to join

    @classmethod
    def setUpClass(cls):
        why = lan.available()
        if WRAP:
            # The same code as the loopback clusters valgrind runs; the
            # LAN runs natively and under ASan+UBSan (make check), and
            # five valgrind nodes would take minutes of `make test`.
            why = "the LAN suite runs natively and under ASan+UBSan"
        if why:
            raise unittest.SkipTest(why)
        cls.lan = cls.make_lan()

    @classmethod
    def tearDownClass(cls):
        cls.lan.close()

    def setUp(self):
        # A cluster name of its own per test: no stray state between tests.
        self.cluster = "lan%d" % int(time.monotonic() * 1000 % 1e9)
        self.nodes = {}
        for k in range(HOSTS):
            self.start_node(k)
        self.addCleanup(self.stop_all)
        self.lan.loss(0)

    EXTRA = ""          # more config for every node

    def start_node(self, k):
        name = "h%d" % k
        node = self.lan.node(k, name, self.cluster, TIMING + self.EXTRA)
        node.start()
        self.nodes[name] = node
        return node

    def stop_all(self):
        self.lan.loss(0)
        for k in self.lan.hosts:
            self.lan.heal(k)
        for node in self.nodes.values():
            node.cleanup()

    def client(self, name):
        c = self.nodes[name].client()
        self.addCleanup(c.close)
        return c

    def live(self):
        return [n for n, node in self.nodes.items() if node.proc.poll() is None]

    def masters(self, among):
        views = set()
        for n in among:
            rows = self.client(n).ask_multi("NODES")
            views.add(tuple(r.split()[1] for r in rows
                            if r.startswith("NODE ") and r.split()[3] == "master"))
        return views

    def one_master(self, among=None):
        among = among or self.live()
        deadline = time.monotonic() + 20
        while True:
            views = self.masters(among)
            if len(views) == 1:
                (view,) = views
                if len(view) == 1 and view[0] in among:
                    return view[0]
            if time.monotonic() > deadline:
                raise AssertionError("no single master among %s: %s" % (among, views))
            time.sleep(0.1)	# elections take windows; nothing to wait on

    def workflows(self, count, ms=200, prio="low"):
        uuids = []
        names = sorted(self.live())
        p = params_file(self.nodes[names[0]].dir, ms)	# once: tasks read it
        for w in range(count):
            c = self.client(names[w % len(names)])
            uuids.extend(schedule_workflow(c, p, prio=prio))
        return uuids

    def wait_all(self, uuids, via, timeout=60):
        # Tasks scheduled elsewhere arrive by ENQUEUE, a lost one later
        # by anti-entropy: first wait until `via` knows them all.
        self.wait_known(via, uuids, timeout=timeout)
        c = self.client(via)
        reply = c.ask("SUBSCRIBE " + " ".join(uuids))
        self.assertTrue(reply.startswith("SUBSCRIBED"), reply)
        return c.wait_states({u: "Terminated" for u in uuids}, timeout=timeout)

    def wait_known(self, name, uuids, timeout=20):
        """A joining node learns the tasks from the master (TASKS_TRANSFER)."""
        deadline = time.monotonic() + timeout
        while not set(uuids) <= set(self.client(name).tasks()):
            if time.monotonic() > deadline:
                raise AssertionError("%s never learned every task" % name)
            time.sleep(0.05)	# the transfer is datagrams; poll TASKS

    def agreed_results(self, uuids):
        """Every live node has every task Terminated on the same node."""
        results = collections.defaultdict(set)
        for n in self.live():
            tasks = self.client(n).tasks()
            for u in uuids:
                self.assertEqual(tasks[u][2], "Terminated", (n, u))
                results[u].add(tasks[u][5])
        for u, where in results.items():
            self.assertEqual(len(where), 1, (u, where))
        return {u: next(iter(w)) for u, w in results.items()}


class LanCluster(LanTest):
    def test_ten_workflows_complete_across_hosts(self):
        self.one_master()
        uuids = self.workflows(10)
        self.wait_all(uuids, "h1")
        where = self.agreed_results(uuids)
        self.assertGreaterEqual(len(set(where.values())), 3, where)
        starts = collections.Counter()
        for node in self.nodes.values():
            for u in re.findall(r"Task UUID\{([0-9a-f-]+)\} executable \S+ started",
                                node.log()):
                starts[u] += 1
        twice = {u: starts[u] for u in uuids if starts[u] != 1}
        for u in twice:
            for n, node in sorted(self.nodes.items()):
                print("== %s" % n)
                print("".join(l for l in node.log().splitlines(True)
                              if u in l or "TRY_DEQUEUE UUID[%s" % u in l))
        self.assertEqual(twice, {})

    def test_a_deadline_on_a_real_lan(self):
        """A deadline that can be met is forecast and met; one that cannot
        is said so at submit, and refused with -H (--deadline-strict)
        (issue 38).  sleep's 2 s are learned across the LAN first."""
        self.one_master()
        c = self.client("h0")
        first = c.ask("RUN sleep low -- sleep 2").split()[1]
        c.ask("SUBSCRIBE " + first)
        c.wait_states({first: "Terminated"})
        now = int(time.time() * 1000)
        reply = c.ask("RUN sleep low -D %d -- sleep 2" % (now + 3600000))
        m = re.match(r"SCHEDULED (\S+) forecast=(\d+) deadline=(\d+)$",
                     reply)
        self.assertTrue(m, reply)
        self.assertGreater(int(m.group(2)), now + 1900)
        self.assertLess(int(m.group(2)), now + 60000)
        c.ask("SUBSCRIBE " + m.group(1))
        c.wait_states({m.group(1): "Terminated"})
        runner = c.tasks()[m.group(1)][5]
        self.nodes[runner].wait_log(r"Task UUID\{%s\} name\{sleep\} of \S+ "
                                    r"met its deadline" % m.group(1))
        at = int(time.time() * 1000) + 1000
        reply = c.ask("RUN sleep low -D %d -- sleep 2" % at)
        m = re.match(r"SCHEDULED \S+ forecast=(\d+) deadline=%d$" % at,
                     reply)
        self.assertTrue(m and int(m.group(1)) > at, reply)
        reply = c.ask("RUN sleep low -H %d -- sleep 2" % at)
        self.assertRegex(reply, r"^ERROR cannot meet its deadline: expected "
                         r"to end \d+ s after it")

    def test_keys_on_a_real_lan(self):
        """A node broadcasting on the LAN without a key refuses to start;
        with <insecure/> it warns and cannot join the sealed pool."""
        master = self.one_master()
        node = self.lan.node(HOSTS, "nokey", self.cluster, TIMING, key=False)
        self.addCleanup(node.cleanup)
        with self.assertRaises(AssertionError) as e:
            node.start()
        self.assertIn("is not loopback and no cluster key is configured", str(e.exception))
        loose = self.lan.node(HOSTS, "loose", self.cluster, TIMING + "<insecure/>")
        self.addCleanup(loose.cleanup)
        loose.start()
        loose.wait_log(r"<insecure/>: peer datagrams are neither sealed nor checked")
        c = self.client(master)
        deadline = time.monotonic() + 20
        while True:
            rows = c.ask_multi("NODES")
            if any(re.match(r"REJECTED \d+ %s:\d+ not sealed" % re.escape(
                    self.lan.addr(HOSTS)), r) for r in rows):
                break
            self.assertLess(time.monotonic(), deadline, rows)
            time.sleep(0.1)
        self.assertNotIn("loose", [r.split()[1] for r in rows if r.startswith("NODE ")])
        self.assertEqual(self.one_master(list(self.nodes)), master)

    def test_remote_operators_need_the_operator_key(self):
        """A node serving the LAN (*:port) answers a client on another
        host only after AUTH with the operator key; nc works with
        `volery auth`, the subcommands answer by themselves."""
        import hashlib
        import hmac
        import subprocess
        import tempfile
        import harness
        d = tempfile.mkdtemp(prefix="volery-opkey-")
        self.addCleanup(__import__("shutil").rmtree, d, True)
        key = os.path.join(d, "operator.key")
        subprocess.run([harness.VOLERY, "keygen", key], check=True,
                       capture_output=True)
        ops = self.lan.node(HOSTS, "ops", self.cluster, TIMING +
                            "<listen>*:7700</listen><operator_key>%s</operator_key>" % key)
        self.addCleanup(ops.cleanup)
        ops.start()
        there = self.lan.addr(HOSTS)
        c = lan.NsClient(self.lan.ns(0), 7700, there)
        self.addCleanup(c.close)
        for request in ("NODES", "TASKS", "SCHEDULE import low -p /x",
                        "CANCEL 00000000-0000-4000-8000-000000000001",
                        "LOG", "IDLE on", "HELP", "AUTH 00"):
            c.send(request + "\n")
            self.assertEqual(c.line(), "ERROR authentication required", request)
        # A wrong answer, then the right one.
        c.send("AUTH\n")
        challenge = c.line().split()[1]
        c.send("AUTH %s\n" % ("0" * 64))
        self.assertEqual(c.line(), "ERROR authentication required")
        # Guessing costs time, and the log says it once, with a count.
        start = time.monotonic()
        for _ in range(3):
            c.send("AUTH\n")
            c.line()
            c.send("AUTH %s\n" % ("0" * 64))
            self.assertEqual(c.line(), "ERROR authentication required")
        self.assertGreaterEqual(time.monotonic() - start, 1.4)
        self.assertEqual(len(re.findall(r"failed to authenticate",
                                        ops.log())), 1)
        c.send("AUTH\n")
        challenge = c.line().split()[1]
        with open(key) as f:
            k = __import__("base64").b64decode(f.read().strip())
        answer = hmac.new(k, b"volery-auth " + challenge.encode(),
                          hashlib.sha256).hexdigest()
        helper = subprocess.run([harness.VOLERY, "auth", "-k", key, challenge],
                                capture_output=True, text=True, check=True)
        self.assertEqual(helper.stdout, "AUTH %s\n" % answer)
        c.send("AUTH %s\n" % answer)
        self.assertEqual(c.line(), "OK")
        self.assertTrue(any(r.startswith("NODE ops ") for r in c.ask_multi("NODES")))
        # The command line from another host: refused without the key,
        # served with it.
        cmd = ["ip", "netns", "exec", self.lan.ns(0), harness.VOLERY, "nodes",
               "-H", "%s:7700" % there]
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("authentication required", r.stderr)
        r = subprocess.run(cmd, capture_output=True, text=True,
                           env=dict(os.environ, VOLERY_OPERATOR_KEY=key))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ops", r.stdout)

    def http_from(self, host, addr, port, request):
        """An HTTP request sent from inside host's namespace: the status
        line and the body of the answer (b"" if refused)."""
        status, _, body = self.http_full(host, addr, port, request)
        return status, body

    def http_full(self, host, addr, port, request):
        """http_from, with the answer's headers (names in lower case)."""
        import ctypes
        own = os.open("/proc/self/ns/net", os.O_RDONLY)
        target = os.open("/var/run/netns/" + self.lan.ns(host), os.O_RDONLY)
        libc = ctypes.CDLL(None, use_errno=True)
        try:
            libc.setns(target, lan.CLONE_NEWNET)
            try:
                s = socket.create_connection((addr, port), timeout=TIMEOUT)
            except ConnectionRefusedError:
                return b"", {}, b""
            finally:
                libc.setns(own, lan.CLONE_NEWNET)
        finally:
            os.close(own)
            os.close(target)
        with s:
            s.sendall(request)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict((k.strip().lower(), v.strip()) for k, _, v in
                       (line.partition(":") for line in lines[1:]))
        return lines[0].encode(), headers, body

    def test_the_dashboard_from_another_host_needs_the_operator_key(self):
        """Another host gets the page and a login, 401 for the rest; the
        answer `volery auth` prints buys an HttpOnly, SameSite=Strict
        session cookie, good until logout; forged, spent or wrong tries
        change nothing."""
        import shutil
        import subprocess
        import tempfile
        import harness
        d = tempfile.mkdtemp(prefix="volery-opkey-")
        self.addCleanup(shutil.rmtree, d, True)
        key = os.path.join(d, "operator.key")
        subprocess.run([harness.VOLERY, "keygen", key], check=True,
                       capture_output=True)
        web = self.lan.node(HOSTS, "web", self.cluster, TIMING +
                            "<http>*:7780</http><operator_key>%s"
                            "</operator_key>" % key)
        self.addCleanup(web.cleanup)
        web.start()
        web.wait_log(r"dashboard and API on http://0\.0\.0\.0:7780/; other "
                     r"hosts log in with the operator key")
        there = self.lan.addr(HOSTS)
        origin = "http://%s:7780" % there

        def ask(method, path, body=None, cookie=None, origin=origin):
            head = ["%s %s HTTP/1.0" % (method, path),
                    "Host: %s:7780" % there]
            if body is not None:
                body = json.dumps(body).encode()
                head += ["Content-Type: application/json",
                         "Content-Length: %d" % len(body)]
            if cookie:
                head.append("Cookie: " + cookie)
            if origin and method == "POST":
                head.append("Origin: " + origin)
            status, headers, answer = self.http_full(
                0, there, 7780, ("\r\n".join(head) + "\r\n\r\n").encode()
                + (body or b""))
            code = int(status.split()[1])
            try:
                return code, headers, json.loads(answer)
            except ValueError:
                return code, headers, answer

        c = web.client()
        u = c.schedule("import low -p /x -x %s"
                       % params_file(web.dir, 60000))
        before = set(c.tasks())

        def unchanged():
            tasks = c.tasks()
            self.assertEqual(set(tasks), before)
            self.assertNotIn("Cancelled", tasks[u])
        unauthorized = (("GET", "/api/nodes", None), ("GET", "/api/events",
                        None), ("GET", "/api/tasks/" + u, None),
                        ("POST", "/api/tasks/%s/cancel" % u, {}),
                        ("POST", "/api/workflows", {"text": "<workflow/>"}))
        for method, path, body in unauthorized:
            code, _, answer = ask(method, path, body)
            self.assertEqual(code, 401, path)
            self.assertEqual(answer, {"error": "authentication required"})
        # The page itself holds no data; it asks to log in.
        code, _, page = ask("GET", "/")
        self.assertEqual(code, 200)
        self.assertIn(b"/app.js", page)
        # A wrong answer spends its challenge: the right one comes too late.
        code, _, ch = ask("GET", "/api/login")
        self.assertEqual((code, ch["authenticated"], ch["local"]),
                         (200, False, False))
        self.assertEqual(ch["command"], "volery auth " + ch["challenge"])
        code, _, why = ask("POST", "/api/login", {"challenge": ch["challenge"],
                                                  "answer": "0" * 64})
        self.assertEqual(code, 403)
        self.assertIn("wrong answer", why["error"])

        def answer(challenge):
            r = subprocess.run([harness.VOLERY, "auth", "-k", key, challenge],
                               capture_output=True, text=True, check=True)
            return r.stdout.strip()	# "AUTH <hex>", pasted as printed
        code, _, why = ask("POST", "/api/login", {
            "challenge": ch["challenge"], "answer": answer(ch["challenge"])})
        self.assertEqual(code, 403)
        self.assertIn("no such challenge", why["error"])
        unchanged()
        # The right answer to a fresh challenge, from another site: refused.
        _, _, ch = ask("GET", "/api/login")
        code, _, _ = ask("POST", "/api/login", {
            "challenge": ch["challenge"], "answer": answer(ch["challenge"])},
            origin="http://evil.example")
        self.assertEqual(code, 403)
        _, _, ch = ask("GET", "/api/login")
        code, headers, _ = ask("POST", "/api/login", {
            "challenge": ch["challenge"], "answer": answer(ch["challenge"])})
        self.assertEqual(code, 200)
        cookie = headers["set-cookie"]
        self.assertRegex(cookie, r"^volery_session=[0-9a-f]{64}; Path=/; "
                         r"Max-Age=\d+; HttpOnly; SameSite=Strict$")
        session = cookie.split(";")[0]
        web.wait_log(r"http: http/%s:\d+ logged in with the operator key"
                     % re.escape(self.lan.addr(0)))
        # The session is the key: reads, and a cancel (a same-origin POST).
        code, _, nodes = ask("GET", "/api/nodes", cookie="a=b; " + session)
        self.assertEqual(code, 200)
        self.assertIn("web", [n["name"] for n in nodes])
        code, _, me = ask("GET", "/api/login", cookie=session)
        self.assertEqual((me["authenticated"], me["local"]), (True, False))
        code, _, _ = ask("POST", "/api/tasks/%s/cancel" % u, {},
                         cookie=session, origin="http://evil.example")
        self.assertEqual(code, 403)
        unchanged()
        code, _, _ = ask("POST", "/api/tasks/%s/cancel" % u, {},
                         cookie=session)
        self.assertEqual(code, 202)
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Cancelled"})
        # What it schedules is the operator's, as a remote client's is.
        code, _, t = ask("POST", "/api/tasks", {"command": ["true"]},
                         cookie=session)
        self.assertEqual(code, 201, t)
        self.assertEqual(ask("GET", "/api/tasks/" + t["uuid"],
                             cookie=session)[2]["user"], "operator")
        # Forged or ended sessions are nobody.
        forged = "volery_session=" + "ab" * 32
        self.assertEqual(ask("GET", "/api/nodes", cookie=forged)[0], 401)
        code, headers, _ = ask("POST", "/api/logout", {}, cookie=session)
        self.assertEqual(code, 200)
        self.assertIn("Max-Age=0", headers["set-cookie"])
        self.assertEqual(ask("GET", "/api/nodes", cookie=session)[0], 401)
        if WRAP or harness.VOLERY != os.path.join(harness.ROOT, "volery"):
            return	# the browser drives the plain build (test_browser)
        # The same in a real browser on that other host: the login page,
        # a wrong answer refused, the printed line pasted in, the pool.
        here = os.path.dirname(os.path.abspath(__file__))
        r = subprocess.run(["ip", "netns", "exec", self.lan.ns(0),
                            sys.executable, os.path.join(here,
                                                         "browser_login.py"),
                            "http://%s:7780/" % there, harness.VOLERY, key,
                            str(TIMEOUT)], capture_output=True, text=True,
                           timeout=TIMEOUT * 4)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        # Without a cluster key, a node does not serve other hosts at all.
        bare = self.lan.node(HOSTS, "bare", self.cluster + "x", TIMING +
                             "<insecure/><http>*:7781</http>", key=False)
        self.addCleanup(bare.cleanup)
        bare.start()
        bare.wait_log(r"http: \*:7781 is reachable from other hosts and the "
                      r"cluster has no key \(<insecure/>\): not served")
        self.assertEqual(self.http_from(0, there, 7781,
                                        b"GET /api/nodes HTTP/1.0\r\n\r\n"),
                         (b"", b""))

    def test_kill9_of_a_runner_task_completes_elsewhere(self):
        self.one_master()
        c = self.client("h0")
        slow = params_file(self.nodes["h0"].dir, 3000)
        u = c.schedule("import low -p /x -x %s" % slow)
        c.ask("SUBSCRIBE " + u)
        seen = c.wait_states({u: "Running"})
        victim = re.search(r"node=(\S+)", seen[-1]).group(1)
        watcher = "h1" if victim != "h1" else "h2"
        w = self.client(watcher)
        w.ask("SUBSCRIBE " + u)
        self.nodes[victim].kill9()
        seen = w.wait_states({u: "Terminated"}, timeout=30)
        self.assertNotIn("node=%s " % victim, seen[-1])
        self.agreed_results([u])

    def test_kill9_of_the_master_new_master_and_late_joiner(self):
        first = self.one_master()
        uuids = self.workflows(3, ms=50)
        self.wait_all(uuids, "h2")
        self.nodes[first].kill9()
        rest = [n for n in self.live()]
        new = self.one_master(rest)
        self.assertNotEqual(new, first)
        more = self.workflows(2, ms=50)
        joiner = self.start_node(HOSTS)	# the free host
        self.wait_all(uuids + more, joiner.name)
        self.assertEqual(self.one_master(), new)
        self.assertEqual(set(self.client(joiner.name).tasks()), set(uuids + more))

    def test_ten_percent_loss_every_task_once(self):
        self.one_master()
        self.lan.loss(10)
        uuids = self.workflows(10, ms=100)
        self.wait_all(uuids, "h3", timeout=120)
        # Every node converges on one accepted result per task.
        deadline = time.monotonic() + 20
        while True:
            try:
                self.agreed_results(uuids)
                break
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)	# anti-entropy runs on heartbeats

    def test_partition_then_heal_one_master_nothing_lost(self):
        master = self.one_master()
        k = int(master[1:])
        self.lan.cut(k)
        others = [n for n in self.live() if n != master]
        new = self.one_master(others)
        self.assertNotEqual(new, master)
        # Work on both sides of the partition.
        lone = self.client(master)
        p = params_file(self.nodes[master].dir, 100)
        alone = list(schedule_workflow(lone, p))
        many = self.workflows(2, ms=100)
        many = [u for u in many]
        self.lan.heal(k)
        after = self.one_master()
        self.assertIn(after, self.live())
        self.wait_all(alone + many, others[0], timeout=60)
        self.agreed_results(alone + many)


class LanCheckpoints(LanTest):
    """Checkpoint copies between hosts, as an office installs volery:
    the client port on every interface (README), copies fetched as a
    node of the cluster (AUTH PEER), not over loopback (issue 37)."""

    EXTRA = "\n  <listen>*:7600</listen>"

    def test_kill9_of_a_runner_and_a_holder_resumes_from_the_other(self):
        self.one_master()
        c = self.client("h0")
        u = c.schedule("import low -p /x -x %s" % test_checkpoint.params(
            self.nodes["h0"].dir, 6000, 300))
        c.ask("SUBSCRIBE " + u)
        while True:         # half its work done
            f = c.line(TIMEOUT).split()
            if f[:2] == ["PROGRESS", u] and int(f[2]) >= 50:
                runner = [w[5:] for w in f if w.startswith("node=")][0]
                break
        node = self.nodes[runner]
        pid = int(re.search(r"Task UUID\{%s\} executable \S+ started, pid "
                            r"(\d+)" % u, node.log()).group(1))
        os.kill(pid, signal.SIGSTOP)    # no newer checkpoint than this
        seq, holders = test_checkpoint.newest_copied(node, u, "import", 2)
        for name in (runner, holders[0]):
            self.nodes[name].kill9()
        w = self.client(holders[1])
        w.ask("SUBSCRIBE " + u)
        w.wait_states({u: "Terminated"}, timeout=30)
        resumed = [re.search(r"Task UUID\{%s\} name\{import\} stderr: "
                             r"import: resumed at (\d+)%%" % u,
                             self.nodes[n].log()) for n in self.live()]
        resumed = [int(m.group(1)) for m in resumed if m]
        self.assertEqual(len(resumed), 1, resumed)
        self.assertGreaterEqual(resumed[0], 40)
        self.agreed_results([u])

class LanInputs(LanTest):
    """Input files where no directory is shared (issue 39): the submit
    directory is on h0 alone (every other host's node has an empty
    tmpfs over it), and the runs on the other hosts get the files."""

    EXTRA = ("\n  <listen>*:7600</listen><max_attempts>10</max_attempts>"
             "<retry_delay_s>1</retry_delay_s>")

    def setUp(self):
        # Made before the nodes start: each hides it at its own start.
        self.data = tempfile.mkdtemp(prefix="vtdata")
        self.addCleanup(shutil.rmtree, self.data, True)
        os.chmod(self.data, 0o755)
        super().setUp()

    def start_node(self, k):
        # h1 alone takes the tasks that require "far".
        self.EXTRA = LanInputs.EXTRA + ("<tags>far</tags>" if k == 1 else "")
        if k == 0:
            return super().start_node(k)
        saved = harness.WRAP
        harness.WRAP = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                        'mount -t tmpfs -o size=1m none "$0" && exec "$@"',
                        self.data] + saved
        try:
            return super().start_node(k)
        finally:
            harness.WRAP = saved

    def test_inputs_only_the_submitters_host_has_reach_the_other_hosts(self):
        table = os.urandom(1 << 20)
        os.makedirs(os.path.join(self.data, "in"))
        with open(os.path.join(self.data, "in", "table.csv"), "wb") as f:
            f.write(table)
        self.one_master()
        h0 = self.nodes["h0"]
        script = ('if [ -e %s/in/table.csv ]; then echo shared; else echo hidden; '
                  'fi; sha256sum in/table.csv' % self.data)
        r = subprocess.run(["ip", "netns", "exec", h0.netns, harness.VOLERY, "-H",
                            "127.0.0.1:%d" % h0.port, "run", "--array", "1-10",
                            "--in", "in", "--", "sh", "-c", script],
                           cwd=self.data, capture_output=True, text=True,
                           timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        uuids = r.stdout.split()
        seen = self.wait_all(uuids, "h0")
        runners = {}
        for l in seen:
            f = l.split()
            if f[:1] == ["PROGRESS"] and f[3] == "Terminated":
                runners[f[1]] = [w[5:] for w in f if w.startswith("node=")][0]
        elsewhere = [u for u in uuids if runners[u] != "h0"]
        self.assertTrue(elsewhere, runners)
        for u in uuids:
            r = subprocess.run(["ip", "netns", "exec", h0.netns, harness.VOLERY,
                                "-H", "127.0.0.1:%d" % h0.port, "output", u],
                               capture_output=True, text=True, timeout=TIMEOUT)
            where, digest = r.stdout.split()[:2]
            self.assertEqual(digest, hashlib.sha256(table).hexdigest(), u)
            self.assertEqual(where, "shared" if runners[u] == "h0" else "hidden", u)

    def test_a_fetch_cut_midway_goes_on_from_where_it_stopped(self):
        big = os.urandom(48 << 20)
        os.makedirs(os.path.join(self.data, "in"))
        with open(os.path.join(self.data, "in", "big.bin"), "wb") as f:
            f.write(big)
        self.one_master()
        h0, h1 = self.nodes["h0"], self.nodes["h1"]
        # h0 sends at 8 MB/s: the fetch takes seconds, time to cut it.
        rules = ("table inet vtbw {\n chain output {\n"
                 "  type filter hook output priority 0;\n"
                 "  tcp sport 7600 limit rate over 8 mbytes/second drop\n"
                 " }\n}\n")
        subprocess.run(["ip", "netns", "exec", h0.netns, "nft", "-f", "-"],
                       input=rules, text=True, check=True)
        unlimit = ["ip", "netns", "exec", h0.netns, "nft", "delete", "table",
                   "inet", "vtbw"]
        self.addCleanup(subprocess.run, unlimit, capture_output=True)
        r = subprocess.run(["ip", "netns", "exec", h0.netns, harness.VOLERY, "-H",
                            "127.0.0.1:%d" % h0.port, "run", "--requires", "far",
                            "--in", "in", "--", "sha256sum", "in/big.bin"],
                           cwd=self.data, capture_output=True, text=True,
                           timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        u = r.stdout.strip()
        store = os.path.join(h1.dir, "state", "inputs")
        # No event tells a byte count: the part file's size is polled.
        deadline = time.monotonic() + 30
        while not any(n.endswith(".part") and os.path.getsize(
                os.path.join(store, n)) > (8 << 20) for n in os.listdir(store)):
            self.assertLess(time.monotonic(), deadline, "no part grew")
            time.sleep(0.05)
        self.lan.cut(0)
        h1.wait_log(r"Task UUID\{%s\}: input in/big\.bin not fetched" % u, timeout=30)
        self.lan.heal(0)
        subprocess.run(unlimit, check=True)
        c = self.client("h1")
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Terminated"}, timeout=60)
        have = int(h1.wait_log(r"Task UUID\{%s\}: input in/big\.bin resumed at "
                               r"(\d+) bytes" % u).group(1))
        self.assertGreater(have, 8 << 20)
        out = subprocess.run(["ip", "netns", "exec", h0.netns, harness.VOLERY, "-H",
                              "127.0.0.1:%d" % h0.port, "output", u],
                             capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(out.stdout.split()[0], hashlib.sha256(big).hexdigest())


if __name__ == "__main__":
    unittest.main()

"""The JSON API (issue 15, volery-api(7)): every endpoint on a real
cluster, bad parameters answered 400 with a JSON error, oversized bodies
413, other sites' Host names 403, the event stream fed by the node's own
notifications, and a stream whose client stops reading dropped without
stalling the node.  The command line's --json reads the same answers."""
import http.client
import json
import os
import socket
import subprocess
import threading
import time
import unittest
from urllib.parse import quote

import harness
from harness import TIMEOUT, Cluster, params_file, schedule_workflow


def volery(*args, env=None):
    return subprocess.run(harness.WRAP + [harness.VOLERY] + list(args),
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env=env)


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cl = Cluster.with_dashboard()
        cls.a = cls.cl.nodes["a"]
        cls.port = cls.a.http_port()

    @classmethod
    def tearDownClass(cls):
        cls.cl.cleanup()

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            data = r.read()
            ctype = r.getheader("Content-Type")
            return r.status, ctype, json.loads(data) if data else None
        finally:
            c.close()

    def get(self, path):
        status, ctype, v = self.request("GET", path)
        self.assertEqual(ctype, "application/json")
        return status, v

    def test_nodes_show_the_cluster_and_its_master(self):
        status, nodes = self.get("/api/nodes")
        self.assertEqual(status, 200)
        self.assertEqual(sorted(n["name"] for n in nodes), ["a", "b", "c"])
        self.assertEqual(nodes[0]["name"], "a")
        self.assertTrue(nodes[0]["self"])
        self.assertEqual(sum(n["role"] == "master" for n in nodes), 1, nodes)
        for n in nodes:
            self.assertEqual(n["state"], "dedicated", n)
            self.assertIn("linux", n["tags"])
            self.assertGreater(n["cores"], 0)
        # The command line says the same, through the client protocol.
        r = volery("-H", "127.0.0.1:%d" % self.a.port, "nodes", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(n["name"] for n in json.loads(r.stdout)),
                         ["a", "b", "c"])

    def test_tasks_one_task_and_workflows(self):
        c = self.a.client()
        self.addCleanup(c.close)
        wf = schedule_workflow(c, params_file(self.a.dir, 50))
        c.ask("SUBSCRIBE " + " ".join(wf))
        c.wait_states({u: "Terminated" for u in wf})
        status, tasks = self.get("/api/tasks?workflow=" + wf[0])
        self.assertEqual(status, 200)
        self.assertEqual([t["uuid"] for t in tasks], list(wf))
        self.assertEqual([t["name"] for t in tasks],
                         ["import", "georeferencing", "segmentation",
                          "anomaly_detection"])
        for t in tasks:
            self.assertEqual((t["state"], t["progress"], t["workflow"]),
                             ("Terminated", 100, wf[0]))
            self.assertIn(t["node"], ("a", "b", "c"))
            self.assertLessEqual(t["submit_ms"], t["start_ms"])
            self.assertLessEqual(t["start_ms"], t["end_ms"])
            self.assertIsNotNone(t["cpu_ms"])
        # Inputs name the task and output they read, and what it was.
        g = tasks[1]
        self.assertEqual([(i["task"], i["output"]) for i in g["inputs"]],
                         [(wf[0], 1), (wf[0], 2), (wf[0], 3)])
        self.assertEqual([i["dataset"] for i in g["inputs"]], tasks[0]["outputs"])
        status, one = self.get("/api/tasks/" + wf[3])
        self.assertEqual((status, one["uuid"], one["name"]),
                         (200, wf[3], "anomaly_detection"))
        status, done = self.get("/api/tasks?state=Terminated")
        self.assertTrue(set(wf) <= {t["uuid"] for t in done})
        status, flows = self.get("/api/workflows")
        mine = [w for w in flows if w["uuid"] == wf[0]]
        self.assertEqual(len(mine), 1, flows)
        self.assertEqual((mine[0]["tasks"], mine[0]["progress"], mine[0]["done"],
                          mine[0]["states"]), (4, 100, True, {"Terminated": 4}))
        r = volery("-H", "127.0.0.1:%d" % self.a.port, "tasks", "--json",
                   "--state", "Terminated")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(set(wf) <= {t["uuid"] for t in json.loads(r.stdout)})

    def test_bad_requests_get_json_errors(self):
        for path, code in (("/api/tasks?state=Sleeping", 400),
                           ("/api/tasks?workflow=nope", 400),
                           ("/api/tasks/not-a-uuid", 400),
                           ("/api/tasks/00000000-0000-4000-8000-000000000000",
                            404),
                           ("/api/nothing", 404), ("/nothing.js", 404)):
            status, v = self.get(path)
            self.assertEqual(status, code, path)
            self.assertIsInstance(v["error"], str)
        status, _, v = self.request("POST", "/api/nodes", body=b"{}",
                                    headers={"Content-Type": "application/json"})
        self.assertEqual(status, 405)
        # A body over the limit is refused before it is read.
        with socket.create_connection(("127.0.0.1", self.port),
                                      timeout=TIMEOUT) as s:
            s.sendall(b"POST /api/nodes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % (2 << 20))
            self.assertTrue(s.recv(100).startswith(b"HTTP/1.1 413 "))
        # Another site's name for 127.0.0.1 (DNS rebinding) is refused.
        status, _, v = self.request("GET", "/api/nodes",
                                    headers={"Host": "evil.example:80"})
        self.assertEqual(status, 403)
        # The command line: a bad state is a bad argument.
        r = volery("-H", "127.0.0.1:%d" % self.a.port, "tasks", "--json",
                   "--state", "Sleeping")
        self.assertEqual(r.returncode, 2)

    def one_task_done(self):
        """A short task scheduled on a and Terminated: its uuid."""
        c = self.a.client()
        self.addCleanup(c.close)
        u = c.schedule("import low -p /x -x %s" % params_file(self.a.dir, 20))
        c.ask("SUBSCRIBE " + u)
        c.wait_states({u: "Terminated"})
        return u

    def test_the_log_searched_as_volery_log_searches_it(self):
        u = self.one_task_done()
        status, lines = self.get("/api/log?task=" + u)
        self.assertEqual(status, 200)
        self.assertTrue(lines)
        for line in lines:
            self.assertIn(u, line["message"])
            self.assertRegex(line["time"], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
        self.assertTrue(any("state{Terminated}" in l["message"] for l in lines))
        # The same lines as the command line's JSON (once the task's last
        # line, its confirmation by the other nodes, is in the log).
        def same():
            r = volery("-H", "127.0.0.1:%d" % self.a.port, "log", "--json",
                       "--task", u, "-n", "200")
            self.assertEqual(r.returncode, 0, r.stderr)
            return [json.loads(x) for x in r.stdout.splitlines()] == \
                self.get("/api/log?task=" + u)[1]
        harness.wait_until(same, "the same lines from volery log --json")
        # (Every node logs a task's states; its start, only the runner.)
        status, lines = self.get("/api/log?regex=" + quote(
            "state\\{(Ready|Terminated)\\}") + "&task=" + u + "&lines=1")
        self.assertEqual(len(lines), 1)
        self.assertIn("state{Terminated}", lines[0]["message"])
        status, lines = self.get("/api/log?level=normal&since=" + quote("1h ago"))
        self.assertEqual(status, 200)
        self.assertTrue(lines)
        self.assertTrue(all(l["level"] in ("normal", "warning", "error")
                            for l in lines), lines)
        for query, why in (("level=loud", "level"), ("task=42", "task"),
                           ("lines=0", "lines"), ("lines=x", "lines"),
                           ("since=whenever", "bad time"),
                           ("regex=" + quote("(unclosed"), "regular expression"),
                           ("colour=red", "unknown parameter")):
            status, v = self.get("/api/log?" + query)
            self.assertEqual(status, 400, query)
            self.assertIn(why, v["error"], query)

    def test_the_queue_in_the_order_the_pool_takes_it(self):
        c = self.a.client()
        self.addCleanup(c.close)
        slow = params_file(self.a.dir, 60000)
        busy = [c.schedule("import low -p /x -x %s" % slow) for _ in range(3)]
        c.ask("SUBSCRIBE " + " ".join(busy))
        c.wait_states({u: "Running" for u in busy})
        low = c.schedule("import low -p /x -x %s" % slow)
        later = c.schedule("import low -p /x -x %s" % slow)
        urgent = self.cl.nodes["b"].client()
        self.addCleanup(urgent.close)
        inter = urgent.schedule("import interactive -p /x -x %s" % slow)
        mine = {low, later, inter}
        harness.wait_until(lambda: mine <= {t["uuid"] for t in self.get(
            "/api/queue")[1]}, "three tasks queued")
        status, queue = self.get("/api/queue")
        self.assertEqual(status, 200)
        order = [t["uuid"] for t in queue if t["uuid"] in mine]
        self.assertEqual(order, [inter, low, later], queue)
        self.assertEqual([t["position"] for t in queue],
                         list(range(1, len(queue) + 1)))
        self.assertFalse(any(t["aged"] for t in queue))
        for u in busy + [low, later, inter]:
            c.ask("CANCEL " + u)

    def test_stats_for_the_charts(self):
        self.one_task_done()
        status, st = self.get("/api/stats")
        self.assertEqual(status, 200)
        self.assertEqual(st["hours"], 6)
        self.assertLessEqual(len(st["buckets"]), 96)
        self.assertEqual(st["bucket_ms"] % 60000, 0)
        last = st["buckets"][-1]
        self.assertLessEqual(last["start_ms"], st["now_ms"])
        self.assertGreater(last["start_ms"] + st["bucket_ms"], st["now_ms"])
        self.assertGreaterEqual(sum(b["finished"] for b in st["buckets"]), 1)
        self.assertTrue(any(b["makespan_ms"] is not None
                            for b in st["buckets"]))
        self.assertEqual(len(st["days"]), 8)
        today = st["days"][-1]["nodes"]
        self.assertEqual(sorted(today), ["a", "b", "c"])
        for name, d in today.items():
            self.assertGreater(d["dedicated"], 0, name)
            self.assertLessEqual(d["dedicated"], 86400000)
        self.assertGreater(sum(d.get("running", 0) for d in today.values()),
                           0)
        status, week = self.get("/api/stats?hours=168")
        self.assertEqual((status, len(week["buckets"])), (200, 96))
        for bad in ("0", "169", "x", ""):
            status, v = self.get("/api/stats?hours=" + bad)
            self.assertEqual(status, 400, bad)
            self.assertIn("hours", v["error"])

    def post(self, path, body, headers=None):
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        status, _, v = self.request("POST", path, body=json.dumps(body),
                                    headers=h)
        return status, v

    def workflow_text(self, ms):
        with open(os.path.join(harness.ROOT, "conf", "workflow.xml")) as f:
            return f.read().replace("params.xml", params_file(self.a.dir, ms))

    def test_submit_a_workflow_file_and_cancel(self):
        # The dashboard's form: the file, checked as volery submit does.
        status, v = self.post("/api/workflows", {"name": "wf.xml",
                                                 "text": self.workflow_text(50)})
        self.assertEqual(status, 201, v)
        self.assertEqual([t["id"] for t in v["tasks"]], ["I", "G", "S", "A"])
        self.assertEqual(v["workflow"], v["tasks"][0]["uuid"])
        c = self.a.client()
        self.addCleanup(c.close)
        uuids = [t["uuid"] for t in v["tasks"]]
        c.ask("SUBSCRIBE " + " ".join(uuids))
        c.wait_states({u: "Terminated" for u in uuids})
        # A broken file: every problem with its line, nothing scheduled.
        before = len(self.get("/api/tasks")[1])
        broken = self.workflow_text(50).replace('output="3"', 'output="9"')
        status, v = self.post("/api/workflows", {"name": "bad.xml",
                                                 "text": broken})
        self.assertEqual(status, 400)
        self.assertIn("nothing was submitted", v["error"])
        self.assertTrue(any(p.startswith("bad.xml:") and "no output 9" in p
                            for p in v["problems"]), v)
        self.assertEqual(len(self.get("/api/tasks")[1]), before)
        for body in ({}, {"name": "x.xml"}, [1, 2]):
            status, v = self.post("/api/workflows", body)
            self.assertEqual(status, 400, body)
        # Cancel: proposed at once, the end on the event stream.
        status, v = self.post("/api/workflows", {"name": "slow.xml",
                                                 "text": self.workflow_text(30000)})
        self.assertEqual(status, 201, v)
        first = v["workflow"]
        status, v = self.post("/api/tasks/%s/cancel" % first, {})
        self.assertEqual((status, v), (202, {"cancelling": first}))
        c.ask("SUBSCRIBE " + first)
        c.wait_states({first: "Cancelled"})
        status, v = self.post("/api/tasks/nope/cancel", {})
        self.assertEqual(status, 400)
        # Not JSON, or from a page of another site: refused (CSRF).
        status, _, v = self.request("POST", "/api/workflows", body="x",
                                    headers={"Content-Type": "text/plain"})
        self.assertEqual(status, 415)
        status, v = self.post("/api/tasks/%s/cancel" % first, {},
                              headers={"Origin": "http://evil.example"})
        self.assertEqual(status, 403)

    def test_schedule_one_task(self):
        c = self.a.client()
        self.addCleanup(c.close)
        # A command, as volery run would send it.
        status, t = self.post("/api/tasks", {
            "command": ["sh", "-c", "echo hello $WHO"], "env": ["WHO=api"],
            "outputs": ["line:hello (.*)"], "priority": "interactive",
            "requires": ["linux"], "cores": 1, "time_limit_s": 60})
        self.assertEqual(status, 201, t)
        self.assertEqual(t["name"], "sh")
        c.ask("SUBSCRIBE " + t["uuid"])
        c.wait_states({t["uuid"]: "Terminated"})
        status, done = self.get("/api/tasks/" + t["uuid"])
        self.assertEqual((done["priority"], done["command"], done["outputs"],
                          done["requires"]),
                         ("interactive", ["sh", "-c", "echo hello $WHO"],
                          ["api"], "linux"), done)
        # A task reading that output; a described one, too.
        status, g = self.post("/api/tasks", {
            "command": ["echo"], "inputs": [
                {"task": t["uuid"], "output": 1}], "cwd": "/"})
        self.assertEqual(status, 201, g)
        status, i = self.post("/api/tasks", {
            "name": "import", "path": "/x", "params": params_file(
                self.a.dir, 10)})
        self.assertEqual(status, 201, i)
        # Checked by three nodes (issue 35): its replicas are listed.
        status, v = self.post("/api/tasks", {"command": ["echo", "same"],
                                             "verify": 3, "estimate_s": 90})
        self.assertEqual(status, 201, v)
        c.ask("SUBSCRIBE %s %s %s" % (g["uuid"], i["uuid"], v["uuid"]))
        c.wait_states({g["uuid"]: "Terminated", i["uuid"]: "Terminated",
                       v["uuid"]: "Terminated"})
        status, v = self.get("/api/tasks/" + v["uuid"])
        self.assertEqual(v["verify"], 3)
        self.assertEqual(v["estimate_given_ms"], 90000)
        self.assertRegex(v["reason"], r"^verified-by:[abc],[abc],[abc]$")
        replicas = [t for t in self.get("/api/tasks")[1]
                    if t["replica_of"] == v["uuid"]]
        self.assertEqual(sorted(t["replica"] for t in replicas), [1, 2, 3])
        self.assertEqual(len({t["digest"] for t in replicas}), 1)
        self.assertEqual(len({t["node"] for t in replicas}), 3)
        # A deadline, as --deadline gives one (issue 38).
        at = int(time.time() * 1000) + 3600000
        status, d = self.post("/api/tasks", {"command": ["true"],
                                             "deadline_ms": at})
        self.assertEqual(status, 201, d)
        self.assertEqual(self.get("/api/tasks/" + d["uuid"])[1]["deadline_ms"],
                         at)
        before = len(self.get("/api/tasks")[1])
        for body, why in (({"name": "nosuch"}, "no task named 'nosuch'"),
                          ({"name": "georeferencing"}, "takes 3 inputs"),
                          ({"name": "anomaly_detection", "inputs": [
                              {"task": t["uuid"], "output": 1}]},
                           "must come from a segmentation task"),
                          ({"command": ["true"], "env": ["1=x"]},
                           "not NAME=value"),
                          ({"command": []}, "command"),
                          ({"command": "true"}, "command"),
                          ({"command": ["true"], "colour": "red"},
                           "unknown field"),
                          ({"command": ["true"], "priority": "urgent"},
                           "priority"),
                          ({"command": ["true"], "inputs": [{"task": "x",
                                                             "output": 1}]},
                           "inputs"),
                          ({"command": ["true"], "cores": 0}, "cores"),
                          ({"command": ["true"], "verify": 1}, "verify"),
                          ({"command": ["true"], "verify": 4},
                           "needs 4 nodes; the pool has 3"),
                          ({"command": ["true"], "cwd": "src"}, "absolute"),
                          ({"command": ["true"], "deadline_ms": "soon"},
                           "deadline_ms"),
                          ({"command": ["true"], "estimate_s": 0},
                           "estimate_s: its run time in seconds"),
                          ({"command": ["true"], "deadline_ms": 1000},
                           "the deadline is past"),
                          ({}, "a name"), ([], "JSON object")):
            status, v = self.post("/api/tasks", body)
            self.assertEqual(status, 400, body)
            self.assertIn(why, v["error"], body)
            self.assertNotIn("task:1:", v["error"])
        self.assertEqual(len(self.get("/api/tasks")[1]), before)

    def test_a_deadline_is_answered_with_a_forecast_and_strict_refuses(self):
        c = self.a.client()
        self.addCleanup(c.close)
        sleep = {"command": ["sleep", "2"]}
        status, t = self.post("/api/tasks", sleep)   # a run to learn from
        self.assertEqual(status, 201, t)
        c.ask("SUBSCRIBE " + t["uuid"])
        c.wait_states({t["uuid"]: "Terminated"})
        now = int(time.time() * 1000)
        status, d = self.post("/api/tasks", dict(sleep, deadline_ms=now +
                                                 3600000))
        self.assertEqual(status, 201, d)
        self.assertEqual(d["deadline_ms"], now + 3600000)
        self.assertGreater(d["forecast_ms"], now + 1900)
        self.assertLess(d["forecast_ms"], now + 3600000)
        # Strict: refused, as one task and as a workflow, nothing left.
        before = len(self.get("/api/tasks")[1])
        status, v = self.post("/api/tasks", dict(
            sleep, deadline_ms=int(time.time() * 1000) + 1000,
            deadline_strict=True))
        self.assertEqual(status, 400, v)
        self.assertIn("cannot meet its deadline", v["error"])
        text = ('<workflow>\n<command id="a"><arg>sleep</arg><arg>2</arg>'
                '</command>\n</workflow>\n')
        status, v = self.post("/api/workflows", {
            "name": "late.xml", "text": text, "deadline_strict": True,
            "deadline_ms": int(time.time() * 1000) + 1000})
        self.assertEqual(status, 400, v)
        self.assertRegex(v["error"], r"^late.xml:2: task 'a' was not "
                         r"scheduled: cannot meet its deadline")
        for body, why in (({"command": ["true"], "deadline_strict": "yes"},
                           "deadline_strict: true or false"),
                          ({"command": ["true"], "deadline_strict": True},
                           "deadline_strict: with deadline_ms")):
            status, v = self.post("/api/tasks", body)
            self.assertEqual((status, v["error"]), (400, why), body)
        self.assertEqual(len(self.get("/api/tasks")[1]), before)
        # Given the time: the workflow's forecast is its last task's.
        at = int(time.time() * 1000) + 3600000
        status, v = self.post("/api/workflows", {
            "name": "ok.xml", "text": text, "deadline_ms": at,
            "deadline_strict": True})
        self.assertEqual(status, 201, v)
        self.assertEqual(v["deadline_ms"], at)
        self.assertEqual(v["forecast_ms"], v["tasks"][0]["forecast_ms"])
        self.assertLess(v["forecast_ms"], at)
        # Ended before the next test, which wants the pool idle.
        c.ask("SUBSCRIBE %s %s" % (d["uuid"], v["workflow"]))
        c.wait_states({d["uuid"]: "Terminated", v["workflow"]: "Terminated"})

    def test_the_page_is_served_from_the_binary(self):
        for path, ctype in (("/", "text/html"), ("/app.js", "text/javascript"),
                            ("/style.css", "text/css")):
            c = http.client.HTTPConnection("127.0.0.1", self.port,
                                           timeout=TIMEOUT)
            c.request("GET", path)
            r = c.getresponse()
            body = r.read()
            c.close()
            self.assertEqual(r.status, 200, path)
            self.assertTrue(r.getheader("Content-Type").startswith(ctype))
            self.assertIn("script-src 'self'",
                          r.getheader("Content-Security-Policy"))
            self.assertGreater(len(body), 100)
        status, v = self.get("/nothing.html")
        self.assertEqual(status, 404)

    def open_stream(self, rcvbuf=None):
        s = socket.socket()
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(TIMEOUT)
        s.connect(("127.0.0.1", self.port))
        s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return s

    def events(self, s):
        """A reader of stream s: next(until, what) is the first (name,
        data) event from here on for which until(name, data) holds."""
        buf = [b""]	# what came after the last event read

        def next_event(until, what):
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                while b"\n\n" in buf[0]:
                    event, buf[0] = buf[0].split(b"\n\n", 1)
                    fields = dict(line.split(b": ", 1) for line in
                                  event.split(b"\n") if b": " in line)
                    if b"event" in fields:
                        name = fields[b"event"].decode()
                        data = json.loads(fields[b"data"])
                        if until(name, data):
                            return name, data
                buf[0] += s.recv(65536)
            self.fail("no event showed " + what)
        return next_event

    def test_events_follow_a_task_to_its_end(self):
        s = self.open_stream()
        self.addCleanup(s.close)
        c = self.a.client()
        self.addCleanup(c.close)
        u = c.schedule("import low -p /x -x %s" % params_file(self.a.dir, 50))
        states = []

        def seen(name, t):
            if name == "task" and t["uuid"] == u:
                states.append(t["state"])
            return "Terminated" in states
        self.events(s)(seen, "the task Terminated")
        self.assertIn("Running", states)
        self.assertEqual(states[-1], "Terminated")

    def test_events_tell_the_nodes_as_they_change(self):
        s = self.open_stream()
        self.addCleanup(s.close)
        events = self.events(s)
        # Where the cards start: the nodes as GET /api/nodes has them.
        _, first = events(lambda n, d: n == "nodes", "the nodes")
        self.assertEqual(sorted(n["name"] for n in first), ["a", "b", "c"])
        self.assertTrue(all(n["free"] == 1 for n in first), first)
        # A task takes a workstation's slot, then gives it back: the
        # node says so, unasked.
        c = self.a.client()
        self.addCleanup(c.close)
        u = c.schedule("import low -p /x -x %s" % params_file(self.a.dir,
                                                               1000))
        _, busy = events(lambda n, v: n == "nodes" and any(
            x["free"] == 0 for x in v), "a slot taken")
        runner = [x["name"] for x in busy if x["free"] == 0]
        self.assertEqual(len(runner), 1, busy)
        events(lambda n, v: n == "nodes" and all(
            x["free"] == 1 for x in v), "the slot given back")
        self.assertEqual(self.get("/api/tasks/" + u)[1]["state"], "Terminated")
        self.assertEqual(self.get("/api/tasks/" + u)[1]["node"], runner[0])

    @unittest.skipIf(harness.WRAP, "four hundred tasks: under ASan+UBSan, not "
                     "valgrind (minutes)")
    def test_a_stream_that_stops_reading_is_dropped_not_waited_for(self):
        s = self.open_stream(rcvbuf=4096)
        self.addCleanup(s.close)
        s.recv(100)     # the headers: it is open; then it reads no more
        # Events pile up for it: a few hundred tasks' changes.
        r = volery("-H", "127.0.0.1:%d" % self.a.port, "run", "--array",
                   "1-400", "--cwd", "/", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.a.wait_log(r"http: an event stream's client stopped reading; "
                        r"dropped", timeout=60)
        # The node answers at once all along.
        t0 = time.monotonic()
        status, _ = self.get("/api/nodes")
        self.assertEqual(status, 200)
        self.assertLess(time.monotonic() - t0, 2)
        uuids = r.stdout.split()
        c = self.a.client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(uuids[:100]))   # a line holds 100
        c.wait_states({u: "Terminated" for u in uuids[:100]}, timeout=60)


class BigSubmissions(unittest.TestCase):
    """Thousands of tasks at once -- a workflow file POSTed to the API, RUN
    lines pipelined on one connection -- go in a slice at a time (issue 40
    point 2): all are scheduled, and the node answers other clients while
    they go in, natively within a quarter of a second each (a file
    scheduled in one pass held them 0.4 s, 11 s before the waiting queue's
    walks went; RUN lines are read 16 KB a pass, about 400 of them;
    tools/bench_bigpost.py measures the 50 ms target)."""

    def setUp(self):
        self.cl = Cluster.with_dashboard(names=("a", "b"))
        self.addCleanup(self.cl.cleanup)
        self.a = self.cl.nodes["a"]

    def asking_nodes_while(self, busy):
        """Ask NODES until busy (a thread) ends; how long each waited."""
        c = self.a.client()
        self.addCleanup(c.close)
        busy.start()
        waits = []
        while busy.is_alive():
            t0 = time.monotonic()
            lines = c.ask_multi("NODES")
            waits.append(time.monotonic() - t0)
            self.assertTrue(lines[0].startswith("NODE "), lines)
        busy.join()
        return waits

    def test_pipelined_runs_go_in_while_the_node_answers(self):
        n = 1000 if harness.WRAP else 5000
        replies = []
        runs = self.a.client()
        self.addCleanup(runs.close)

        def pipeline():
            runs.send("".join("RUN p%d low -g nowhere -- /bin/true\n" % k
                              for k in range(n)))
            replies.extend(runs.line(TIMEOUT) for _ in range(n))

        waits = self.asking_nodes_while(threading.Thread(target=pipeline))
        self.assertEqual(len(replies), n)
        refused = [r for r in replies if not r.startswith("SCHEDULED ")]
        self.assertEqual(refused, [])
        if not harness.WRAP:
            self.assertLess(max(waits), 0.25, sorted(waits)[-5:])

    def test_a_big_file_goes_in_while_the_node_answers(self):
        n = 1024 if harness.WRAP else 4096
        # Tasks no node can run: the file goes in, nothing starts.
        text = "<workflow>\n%s</workflow>\n" % "".join(
            '  <command id="t%d" requires="nowhere"><arg>/bin/true</arg>'
            '</command>\n' % k for k in range(n))
        result = {}

        def post():
            h = http.client.HTTPConnection("127.0.0.1", self.a.http_port(),
                                           timeout=TIMEOUT * 6)
            try:
                h.request("POST", "/api/workflows", body=json.dumps(
                    {"name": "big.xml", "text": text}),
                    headers={"Content-Type": "application/json"})
                r = h.getresponse()
                result["v"] = (r.status, json.loads(r.read()))
            finally:
                h.close()

        waits = self.asking_nodes_while(threading.Thread(target=post))
        status, v = result["v"]
        self.assertEqual(status, 201, v)
        self.assertEqual([t["id"] for t in v["tasks"]],
                         ["t%d" % k for k in range(n)])
        if not harness.WRAP:
            self.assertLess(max(waits), 0.25, sorted(waits)[-5:])
        # All of it is in, at the other node too.
        b = self.cl.nodes["b"].client()
        self.addCleanup(b.close)
        last = v["tasks"][-1]["uuid"]
        b.ask("SUBSCRIBE " + last)
        b.wait_states({last: "Ready"})


if __name__ == "__main__":
    unittest.main()

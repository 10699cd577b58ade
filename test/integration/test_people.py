"""People, not one operator (issue 34): every task has an owner, the user
the node saw behind the request, and only the owner, root, remote operators
and the <admins> group may cancel it, read its output, its log lines and
its environment; a task runs as its owner, apart from everyone else's.
Real local users, made for the test with useradd and removed after it (also
when it fails)."""
import atexit
import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import threading
import unittest

import harness
from harness import Node, TIMEOUT
from test_unprivileged import wait_gone

SUFFIX = "%d" % (os.getpid() % 100000)
ALICE, MALLORY, ADMIN = "vtal" + SUFFIX, "vtma" + SUFFIX, "vtad" + SUFFIX
GONE = "vtgo" + SUFFIX		# removed while its task waits
SLOTS = "vtsl" + SUFFIX		# a <run_as>, with two slot users
ADMINS = "vtadm" + SUFFIX

# The ACCOUNT reply, as a user's own process reads it (the system's
# Python: a user may not reach root's).
ACCOUNT = """
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"ACCOUNT\\n")
out = b""
while not out.endswith(b"\\n.\\n") and out != b".\\n":
    chunk = s.recv(65536)
    if not chunk:
        break
    out += chunk
sys.stdout.write(out.decode())
"""


# An HTTP request from a user's own process: status and body.
HTTP = """
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=20)
c.request(sys.argv[2], sys.argv[3], body=b"{}" if sys.argv[2] == "POST" else None,
          headers={"Content-Type": "application/json"})
r = c.getresponse()
print(r.status, r.read().decode())
"""


def remove_accounts():
    for user in (ALICE, MALLORY, ADMIN, GONE, SLOTS, SLOTS + "-slot1",
                 SLOTS + "-slot2"):
        subprocess.run(["userdel", user], stderr=subprocess.DEVNULL)
    subprocess.run(["groupdel", ADMINS], stderr=subprocess.DEVNULL)


# The checks are the node's; valgrind would mostly time the users' CLIs
# (make test's 12 minutes): natively and under ASan+UBSan.
UNWRAPPED = unittest.skipIf(harness.WRAP, "natively and under the sanitizers")


@UNWRAPPED
@unittest.skipUnless(os.geteuid() == 0, "useradd needs root")
class People(unittest.TestCase):
    """Tests with real local users (made once for the module's classes,
    removed after them) and a node of their own."""

    @classmethod
    def setUpClass(cls):
        atexit.register(remove_accounts)
        cls.addClassCleanup(remove_accounts)
        subprocess.run(["groupadd", ADMINS], check=True)
        for user, more in ((ALICE, []), (MALLORY, []), (ADMIN, ["-G", ADMINS]),
                           (SLOTS, ["-r"]), (SLOTS + "-slot1", ["-r"]),
                           (SLOTS + "-slot2", ["-r"])):
            subprocess.run(["useradd", "-M", "-N", "-d", "/nonexistent", "-s",
                            "/usr/sbin/nologin"] + more + [user], check=True)

    def start_node(self, **kw):
        """A node of its own (Node's arguments), started, and a client."""
        self.node = Node(**kw)
        self.addCleanup(self.node.cleanup)
        self.node.start()
        self.addCleanup(self.node.stop)
        self.c = self.node.client()
        self.addCleanup(self.c.close)
        return self.node

    def shared_dir(self, prefix="vtshare"):
        """A directory every user may write (mode 1777), removed after."""
        d = tempfile.mkdtemp(prefix=prefix)
        self.addCleanup(shutil.rmtree, d, True)
        os.chmod(d, 0o1777)
        return d

    def volery(self, user, *args, cwd="/"):
        return subprocess.run(
            harness.WRAP + [harness.VOLERY, "-H", "127.0.0.1:%d" % self.node.port]
            + list(args), user=user, group=65534, extra_groups=[], cwd=cwd,
            capture_output=True, text=True, timeout=TIMEOUT)

    def run_as(self, user, *command):
        r = self.volery(user, "run", *command)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def state(self, uuid):
        return [l.split()[4] for l in self.c.ask_multi("TASKS") if uuid in l][0]


class Owners(People):
    def setUp(self):
        self.start_node(extra="<admins>%s</admins><http>127.0.0.1:0</http>"
                        % ADMINS)
        self.web = self.node.http_port()

    def http(self, user, method, path):
        r = subprocess.run(["/usr/bin/python3", "-c", HTTP, str(self.web),
                            method, path], user=user, group=65534,
                           extra_groups=[], capture_output=True,
                           text=True, timeout=TIMEOUT)
        status, _, body = r.stdout.partition(" ")
        return int(status), body

    def test_only_the_owner_reads_a_tasks_output_log_and_environment(self):
        u = self.run_as(ALICE, "--env", "TOKEN=s3cret-of-alice", "--",
                        "sh", "-c", "echo out-of-alice")
        self.assertEqual(self.volery(ALICE, "watch", u).returncode, 0)
        self.assertIn("out-of-alice", self.volery(ALICE, "output", u).stdout)
        # Everyone sees whose it is.
        rows = [r for r in self.volery(MALLORY, "tasks").stdout.splitlines()
                if r.startswith(u)]
        self.assertRegex(rows[0], r"^%s +sh +%s +low +Terminated " % (u, ALICE))
        for args in (("output", u), ("log", "-t", u)):
            r = self.volery(MALLORY, *args)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn("not yours: task %s belongs to %s" % (u, ALICE),
                          r.stderr, args)
            self.assertNotIn("out-of-alice", r.stdout)
        self.assertIn(u, self.volery(ALICE, "log", "-t", u).stdout)
        # Nor among all the lines: hers are hidden from others, the
        # node's own are not.
        every = self.volery(MALLORY, "log", "-n", "10000").stdout
        self.assertNotIn(u, every)
        self.assertIn("listening on", every)
        self.assertIn(u, self.volery(ALICE, "log", "-n", "10000").stdout)
        self.assertIn(u, self.volery(ADMIN, "log", "-n", "10000").stdout)
        status, body = self.http(MALLORY, "GET", "/api/log?lines=5000")
        self.assertEqual(status, 200)
        self.assertNotIn(u, body)
        # The dashboard learns who looks, to offer only what it may do.
        for who, admin in ((MALLORY, False), (ALICE, False), (ADMIN, True)):
            status, body = self.http(who, "GET", "/api/login")
            self.assertEqual(json.loads(body)["user"], who)
            self.assertEqual(json.loads(body)["admin"], admin)
        status, body = self.http(MALLORY, "GET", "/api/log?task=" + u)
        self.assertEqual(status, 403, body)
        self.assertIn("not yours", body)
        self.assertEqual(self.http(ALICE, "GET", "/api/log?task=" + u)[0], 200)
        # The record tells who asked; its environment only to its owner.
        line = lambda who: [l for l in subprocess.run(
            ["/usr/bin/python3", "-c", ACCOUNT, str(self.node.port)], user=who,
            group=65534, extra_groups=[], capture_output=True, text=True, timeout=TIMEOUT).stdout.splitlines()
            if u in l][0]
        self.assertIn("usr=%s" % ALICE, line(MALLORY))
        self.assertNotIn("s3cret-of-alice", line(MALLORY))
        self.assertIn("s3cret-of-alice", line(ALICE))
        self.assertIn("s3cret-of-alice", line(ADMIN))

    def test_only_the_owner_or_an_admin_cancels(self):
        u = self.run_as(ALICE, "--", "sleep", "60")
        self.c.ask("SUBSCRIBE " + u)
        self.c.wait_states({u: "Running"})
        r = self.volery(MALLORY, "cancel", u)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not yours: task %s belongs to %s" % (u, ALICE), r.stderr)
        self.assertEqual(self.state(u), "Running")
        # The dashboard's cancel is checked the same way.
        status, body = self.http(MALLORY, "POST", "/api/tasks/%s/cancel" % u)
        self.assertEqual(status, 403, body)
        self.assertIn("not yours", body)
        self.assertEqual(self.state(u), "Running")
        status, body = self.http(ALICE, "POST", "/api/tasks/%s/cancel" % u)
        self.assertEqual(status, 202, body)
        self.c.wait_states({u: "Cancelled"})
        # A member of <admins> may touch anyone's; root always may.
        for who in (ADMIN, "root"):
            u = self.run_as(ALICE, "--", "sleep", "60")
            r = self.volery(who, "cancel", u)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.state(u), "Cancelled")


    def subscribe(self, *uuids):
        sub = self.node.client()
        self.addCleanup(sub.close)
        sub.send("SUBSCRIBE %s\n" % " ".join(uuids))
        return sub

    def started_in_order(self, *uuids):
        log = self.node.log()
        at = [log.index("Task UUID{%s} command" % u) for u in uuids]
        self.assertEqual(at, sorted(at))

    def test_only_the_owner_holds_releases_and_reprioritises(self):
        self.assertEqual(self.c.ask("IDLE off"), "OK")	# nothing starts
        held, other = (self.run_as(ALICE, "--", "true") for _ in range(2))
        self.assertEqual(self.volery(ALICE, "hold", held).returncode, 0)
        self.assertEqual(self.state(held), "Held")
        for args in (("release", held), ("hold", other),
                     ("prio", "interactive", other)):
            r = self.volery(MALLORY, *args)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn("not yours: task %s belongs to %s" % (args[-1], ALICE),
                          r.stderr)
        self.assertEqual(self.state(held), "Held")
        # The held one is first in line, yet the next one runs.
        sub = self.subscribe(held, other)
        self.assertEqual(self.c.ask("IDLE on"), "OK")
        sub.wait_states({other: "Terminated"})
        self.assertEqual(self.state(held), "Held")
        self.assertRegex([l for l in self.c.ask_multi("TASKS") if held in l][0],
                         "held: volery release " + held)
        # An admin may release it; then it runs.
        self.assertEqual(self.volery(ADMIN, "release", held).returncode, 0)
        sub.wait_states({held: "Terminated"})
        # A running task is not held: a clear error, nothing changes.
        r = self.volery(ALICE, "hold", other)
        self.assertEqual(r.returncode, 1)
        self.assertIn("only a waiting task", r.stderr)

    def test_prio_interactive_goes_before_every_low_task(self):
        self.assertEqual(self.c.ask("IDLE off"), "OK")
        first, second = (self.run_as(ALICE, "--", "true") for _ in range(2))
        r = self.volery(ALICE, "prio", "interactive", second)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex([l for l in self.c.ask_multi("TASKS") if second in l][0],
                         " interactive ")
        sub = self.subscribe(first, second)
        self.assertEqual(self.c.ask("IDLE on"), "OK")
        sub.wait_states({first: "Terminated", second: "Terminated"})
        self.started_in_order(second, first)


class Volunteering(People):
    """Only people decide when a workstation volunteers: IDLE from root,
    the node's user or a user logged in at the host; never from a task's
    run (it would keep itself running while its user works)."""

    def setUp(self):
        self.start_node(extra="<max_attempts>1</max_attempts>")

    def test_a_task_cannot_make_its_node_volunteer(self):
        at = "127.0.0.1:%d" % self.node.port
        u = subprocess.run([harness.VOLERY, "-H", at, "run", "--cwd", "/", "--",
                            harness.VOLERY, "-H", at, "idle", "on"],
                           capture_output=True, text=True, timeout=TIMEOUT,
                           check=True).stdout.strip()
        self.c.ask("SUBSCRIBE " + u)
        self.c.wait_states({u: "Failed"})
        out = subprocess.run([harness.VOLERY, "-H", "127.0.0.1:%d" % self.node.port,
                              "output", "--stderr", u], capture_output=True,
                             text=True, timeout=TIMEOUT).stdout
        self.assertIn("IDLE is not accepted from a task's run", out)
        self.assertNotIn("screensaver hook: IDLE on", self.node.log())

    def test_a_task_cannot_cancel_another_over_http(self):
        node = Node(slots=2, extra="<http>127.0.0.1:0</http>")
        self.addCleanup(node.cleanup)
        node.start()
        self.addCleanup(node.stop)
        c = node.client()
        self.addCleanup(c.close)
        at = "127.0.0.1:%d" % node.port
        victim = subprocess.run([harness.VOLERY, "-H", at, "run", "--cwd", "/",
                                 "--", "sleep", "60"], capture_output=True,
                                text=True, timeout=TIMEOUT, check=True).stdout.strip()
        c.send("SUBSCRIBE %s\n" % victim)
        c.wait_states({victim: "Running"})
        post = ("import http.client; c = http.client.HTTPConnection('127.0.0.1', "
                "%d); c.request('POST', '/api/tasks/%s/cancel', body=b'{}', "
                "headers={'Content-Type': 'application/json'}); r = "
                "c.getresponse(); print(r.status, r.read().decode())"
                % (node.http_port(), victim))
        u = subprocess.run([harness.VOLERY, "-H", at, "run", "--cwd", "/", "--",
                            "/usr/bin/python3", "-c", post], capture_output=True,
                           text=True, timeout=TIMEOUT, check=True).stdout.strip()
        c.send("SUBSCRIBE %s\n" % u)
        c.wait_states({u: "Terminated"})
        out = subprocess.run([harness.VOLERY, "-H", at, "output", u],
                             capture_output=True, text=True, timeout=TIMEOUT).stdout
        self.assertIn("403", out)
        self.assertIn("not accepted from a task's run", out)
        self.assertEqual([l.split()[4] for l in c.ask_multi("TASKS")
                          if victim in l][0], "Running")

    def test_only_people_present_say_when_it_volunteers(self):
        r = subprocess.run(harness.WRAP + [harness.VOLERY, "-H", "127.0.0.1:%d"
                           % self.node.port, "idle", "on"], user=MALLORY,
                           group=65534, extra_groups=[], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 1)
        self.assertIn("accepted from root, the node's user and users logged "
                      "in at this host only", r.stderr)
        self.assertNotIn("screensaver hook: IDLE on", self.node.log())
        self.assertEqual(self.c.ask("IDLE on"), "OK")
        self.node.wait_log(r"screensaver hook: IDLE on")


class RunAsOwner(People):
    """A root node runs each task as the person who scheduled it: their
    files, their 0700 directories; two people's runs cannot see or signal
    each other; a node without the owner's account never takes the task."""

    def setUp(self):
        self.start_node(slots=2, extra="<max_attempts>1</max_attempts>")

    def private_dir(self, user):
        d = tempfile.mkdtemp(prefix="vtrun")
        self.addCleanup(shutil.rmtree, d, True)
        os.chown(d, pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid)
        os.chmod(d, 0o700)
        return d

    def test_alice_compresses_her_own_files_in_her_0700_directory(self):
        home, uid = self.private_dir(ALICE), pwd.getpwnam(ALICE).pw_uid
        gid = pwd.getpwnam(ALICE).pw_gid
        os.mkdir(os.path.join(home, "data"))
        for i in range(1, 13):
            with open(os.path.join(home, "data", "f%d.txt" % i), "w") as f:
                f.write("line %d\n" % i * 1000)
        for dirpath, _, files in os.walk(home):
            for name in [""] + files:
                os.chown(os.path.join(dirpath, name), uid, gid)
        r = self.volery(ALICE, "run", "--array", "1-12%4", "--", "xz", "-k",
                        "-9", "data/f{i}.txt", cwd=home)
        self.assertEqual(r.returncode, 0, r.stderr)
        uuids = r.stdout.split()
        self.assertEqual(len(uuids), 12)
        self.c.send("SUBSCRIBE %s\n" % " ".join(uuids))
        self.c.wait_states({u: "Terminated" for u in uuids}, timeout=60)
        for i in range(1, 13):
            st = os.stat(os.path.join(home, "data", "f%d.txt.xz" % i))
            self.assertEqual(st.st_uid, uid)
        self.assertRegex(self.node.log(), r"started, pid \d+, user %s," % ALICE)

    def test_two_owners_runs_cannot_read_or_signal_each_other(self):
        shared = self.shared_dir()
        a = self.run_as(ALICE, "--env", "TOKEN=alice-secret-42", "--", "sh",
                        "-c", 'echo "$$ $TMPDIR" > %s/alice.tmp && mv '
                        '%s/alice.tmp %s/alice && exec sleep 60'
                        % (shared, shared, shared))
        self.c.send("SUBSCRIBE %s\n" % a)
        self.c.wait_states({a: "Running"})
        spy = ('until [ -s {d}/alice ]; do sleep 0.05; done; '
               'read pid dir < {d}/alice; echo "pid $pid dir $dir"; '
               'tr "\\0" "\\n" < /proc/$pid/environ; ls "$dir"; '
               'touch "$dir/planted"; kill -9 $pid; echo spied').format(d=shared)
        m = self.run_as(MALLORY, "--", "sh", "-c", spy)
        self.c.send("SUBSCRIBE %s\n" % m)
        self.c.wait_states({m: "Terminated"})
        out = self.volery(MALLORY, "output", m).stdout
        err = self.volery(MALLORY, "output", "--stderr", m).stdout
        self.assertIn("spied", out)
        self.assertNotIn("alice-secret-42", out + err)
        self.assertRegex(err, r"environ: Permission denied")
        self.assertRegex(err, r"ls: cannot open directory .*Permission denied")
        self.assertRegex(err, r"planted.*Permission denied")
        self.assertRegex(err, r"kill.*(not permitted|Operation)")
        self.assertEqual(self.state(a), "Running")
        self.assertEqual(self.c.ask("CANCEL " + a).split()[0], "CANCELLED")

    def test_a_node_without_the_owners_account_never_takes_the_task(self):
        subprocess.run(["useradd", "-M", "-N", "-d", "/nonexistent", "-s",
                        "/usr/sbin/nologin", GONE], check=True)
        self.assertEqual(self.c.ask("IDLE off"), "OK")
        u = self.run_as(GONE, "--", "true")
        subprocess.run(["userdel", GONE], check=True)
        self.assertEqual(self.c.ask("IDLE on"), "OK")
        self.node.wait_log(r"Task UUID\{%s\} is never run here for now: no account "
                           r"%s here" % (u, GONE))
        # The node's answer goes in its heartbeats: no live node has it.
        self.assertIn("waiting: no live node has account %s" % GONE, [
            l for l in self.c.ask_multi("TASKS") if u in l][0])
        self.assertEqual(self.state(u), "Ready")


class SlotUsers(People):
    """With a fixed <run_as>, each slot runs as its own user: two runs at
    once, alice's too, never share a uid."""

    def test_two_runs_at_once_are_two_slot_users(self):
        self.start_node(slots=2, extra="<run_as>%s</run_as>" % SLOTS)
        c, shared = self.c, self.shared_dir()
        # Each says who it is, then waits for the other: both at once.
        say = ('id -un > {d}/$VOLERY_TASK; '
               'until [ "$(ls {d} | wc -l)" -ge 2 ]; do sleep 0.05; done'
               ).format(d=shared)
        uuids = [self.run_as(who, "--", "sh", "-c", say)
                 for who in ("root", ALICE)]
        c.send("SUBSCRIBE %s\n" % " ".join(uuids))
        c.wait_states({u: "Terminated" for u in uuids})
        users = sorted(open(os.path.join(shared, u)).read().strip()
                       for u in uuids)
        self.assertEqual(users, [SLOTS + "-slot1", SLOTS + "-slot2"])


class BoundedRuns(People):
    """Every run is bounded: its processes (pids.max, else RLIMIT_NPROC of
    its own user), its memory (--mem: memory.max, else RLIMIT_DATA), its
    run directory (max_scratch_mb)."""

    def setUp(self):
        self.start_node(extra="<max_attempts>3</max_attempts><max_run_procs>"
                        "40</max_run_procs><max_scratch_mb>5</max_scratch_mb>")
        self.shared = self.shared_dir()

    def reason(self, u):
        out = self.volery(ALICE, "history", "--format", "uuid,reason").stdout
        return [l for l in out.splitlines() if l.startswith(u)][0]

    def ends(self, u, state):
        self.c.send("SUBSCRIBE %s\n" % u)
        self.c.wait_states({u: state})
        return self.volery(ALICE, "output", "--stderr", u).stdout

    def test_a_fork_bomb_stops_at_the_process_bound(self):
        u = self.run_as(ALICE, "--", "sh", "-c", "for i in $(seq 200); do "
                        "sleep 30 & echo $! >> %s/forked.$$; done" % self.shared)
        err = self.ends(u, "Failed")
        self.assertIn("Cannot fork", err, "%s\n%s" % (
            self.reason(u), self.node.log()))
        # Each attempt (a fork bomb fails, and is tried again) forked
        # fewer than the bound allows: it counts the shell too.  And
        # each of the three did: an attempt's slot is free only once
        # the processes of the one before are gone (a user's process
        # count bounds them where no cgroup does).
        self.assertEqual(len(os.listdir(self.shared)), 3, self.node.log())
        for name in os.listdir(self.shared):
            with open(os.path.join(self.shared, name)) as f:
                forked = len(f.read().split())
            self.assertLess(forked, 40)
            self.assertGreater(forked, 5)
        # Nothing of it is left: the next run of alice's starts.
        u = self.run_as(ALICE, "--", "true")
        self.ends(u, "Terminated")

    def test_mem_is_a_bound_not_only_a_wish(self):
        u = self.run_as(ALICE, "--mem", "64M", "--", "python3", "-c",
                        "b = bytearray(512 << 20); print('got it')")
        err = self.ends(u, "Failed")
        self.assertIn("MemoryError", err)
        self.assertNotIn("got it", self.volery(ALICE, "output", u).stdout)

    def test_a_run_dir_over_max_scratch_mb_fails_with_why(self):
        fill = "dd if=/dev/zero of=$TMPDIR/fill bs=1M count=12 2>/dev/null"
        # Found as it runs (a check every few seconds)...
        u = self.run_as(ALICE, "--", "sh", "-c", fill + "; exec sleep 60")
        self.ends(u, "Failed")
        why = "its run directory grew to 12 MB, over max_scratch_mb (5)"
        self.assertIn(why, self.reason(u))
        # ...or as it ends; and no attempt is tried again (it would fill
        # it again): one attempt.
        u = self.run_as(ALICE, "--", "sh", "-c", fill)
        self.ends(u, "Failed")
        self.assertIn(why, self.reason(u))
        self.assertEqual(len(re.findall(r"Task UUID\{%s\} .*started" % u,
                                        self.node.log())), 1)


@unittest.skipUnless(shutil.which("setpriv"), "needs setpriv")
class UserStartedNode(People):
    """A node a user starts has no cgroup of its own: it is the subreaper
    of its runs, so a child that leaves its run's session dies with the
    run, and with the node killed -9 (its watchdog)."""

    def setUp(self):
        self.node = Node(extra="<max_attempts>1</max_attempts>")
        self.addCleanup(self.node.cleanup)
        alice = pwd.getpwnam(ALICE)
        for d, _, files in os.walk(self.node.dir):
            for f in [d] + [os.path.join(d, x) for x in files]:
                os.lchown(f, alice.pw_uid, alice.pw_gid)
        self.node.wrap = ["setpriv", "--reuid=%d" % alice.pw_uid, "--regid=%d"
                          % alice.pw_gid, "--clear-groups", "--"]
        self.node.start()
        self.addCleanup(self.node.stop)
        self.assertIn("containment: subreaper", self.node.log())
        self.c = self.node.client()
        self.addCleanup(self.c.close)
        self.fifo = os.path.join(self.shared_dir("vtfifo"), "pid")
        os.mkfifo(self.fifo)
        os.chmod(self.fifo, 0o666)

    def escaped(self, then):
        """A run of alice's whose child leaves its session; its pid, told
        once the child leads a session of its own (the run waits for
        that): a run that ended before its child's setsid had it killed
        with its process group, not as a process it left."""
        u = self.run_as(ALICE, "--", "sh", "-c", "setsid sleep 300 & c=$!; "
                        "while [ \"$(cut -d' ' -f6 /proc/$c/stat)\" != $c ]; "
                        "do :; done; echo $c > %s; %s" % (self.fifo, then))
        got = []

        def read():
            with open(self.fifo) as f:
                got.append(int(f.read()))
        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(TIMEOUT)
        if not got:
            with open(self.fifo, "w"):	# let the reader go
                pass
            self.fail("the run never said its child's pid:\n" + self.node.log())
        return u, got[0]

    def test_a_setsid_child_dies_with_its_run(self):
        u, pid = self.escaped("true")
        self.c.send("SUBSCRIBE %s\n" % u)
        self.c.wait_states({u: "Terminated"})
        wait_gone(pid)
        self.assertIn("killed 1 process its run left", self.node.log())

    def test_a_setsid_child_dies_with_its_node(self):
        u, pid = self.escaped("exec sleep 300")
        self.node.kill9()
        wait_gone(pid)



class Containment(unittest.TestCase):
    """`volery nodes` says how each node contains its runs (told in its
    heartbeats): a cgroup (with the bounds it holds), else a subreaper."""

    @staticmethod
    def cli(node, *args):
        """The command line's output, as root, against node."""
        return subprocess.run([harness.VOLERY, "-H", "127.0.0.1:%d"
                               % node.port] + list(args), capture_output=True,
                              text=True, timeout=TIMEOUT, check=True).stdout

    def test_volery_nodes_says_how_each_node_contains_its_runs(self):
        cl = harness.Cluster(("a", "b")).start()
        self.addCleanup(cl.cleanup)
        cl.master()
        how = {name: n.wait_log(r"containment: (\S+)").group(1)
               for name, n in cl.nodes.items()}
        out = self.cli(cl.nodes["a"], "nodes").splitlines()
        self.assertIn("CONTAINMENT", out[0])
        col = out[0].index("CONTAINMENT")
        shown = {l.split()[0]: l[col:].split()[0] for l in out[1:] if l.strip()}
        self.assertEqual(shown, how)

    def test_a_run_is_in_its_cgroup_from_its_first_instruction(self):
        """The program's first look at /proc/self/cgroup names its run's
        cgroup (born in it, or moved before execve), several runs in a
        row: a child that shares the node's memory until it executes
        starts each of them."""
        node = Node("a")
        self.addCleanup(node.cleanup)
        node.start()
        how = node.wait_log(r"containment: (\S+)").group(1)
        if not how.startswith("cgroup"):
            self.skipTest("runs are not held in cgroups here: %s" % how)
        c = node.client()
        self.addCleanup(c.close)
        runs = []
        for _ in range(3):
            u = c.ask("RUN cg low -- /bin/cat /proc/self/cgroup").split()[1]
            runs.append(u)
            c.send("SUBSCRIBE %s\n" % u)
            c.wait_states({u: "Terminated"})
        for u in runs:
            out = self.cli(node, "output", u)
            self.assertRegex(out, r"(?m)^0::/\S*/run-%s$" % u, node.log())



class SharingThePool(People):
    """max_running_per_user: one user's tasks run at most so many at once
    in the pool; another user's run beside them."""

    def test_one_user_runs_at_most_max_running_per_user(self):
        self.start_node(slots=3, extra="<max_running_per_user>1"
                        "</max_running_per_user>")
        c, shared = self.c, self.shared_dir()
        # Each user's own file: one may not write another's.
        stamp = ('echo "start $(id -un) $(date +%%s%%N)" >> %s/runs.$(id -u); '
                 'sleep 0.3; echo "end $(id -un) $(date +%%s%%N)" >> '
                 '%s/runs.$(id -u)' % (shared, shared))
        uuids = [self.run_as(who, "--", "sh", "-c", stamp)
                 for who in (ALICE, ALICE, ALICE, MALLORY)]
        c.send("SUBSCRIBE %s\n" % " ".join(uuids))
        c.wait_states({u: "Terminated" for u in uuids}, timeout=60)
        events = []
        for name in os.listdir(shared):
            with open(os.path.join(shared, name)) as f:
                for line in f:
                    what, who, ns = line.split()
                    events.append((int(ns), 0 if what == "end" else 1, who))
        running, most = {}, {}
        for _, start, who in sorted(events):
            running[who] = running.get(who, 0) + (1 if start else -1)
            most[who] = max(most.get(who, 0), running[who])
            most["all"] = max(most.get("all", 0), sum(running.values()))
        self.assertEqual(most[ALICE], 1)
        self.assertEqual(most["all"], 2)	# mallory's ran beside hers

    def test_fairshare_lets_the_lighter_user_go_first(self):
        self.start_node(extra="<order>fairshare</order>")
        c = self.c
        # Alice has used the pool (mallory a little: each one's first
        # command is looked for once, and that answer must not race);
        # then both queue, alice first.
        warm = [self.run_as(ALICE, "--", "sleep", "0.3"),
                self.run_as(ALICE, "--", "true"),
                self.run_as(MALLORY, "--", "true")]
        c.send("SUBSCRIBE %s\n" % " ".join(warm))
        c.wait_states({x: "Terminated" for x in warm})
        self.assertEqual(c.ask("IDLE off"), "OK")
        alice = [self.run_as(ALICE, "--", "true") for _ in range(2)]
        mallory = [self.run_as(MALLORY, "--", "true") for _ in range(2)]
        sub = self.node.client()
        self.addCleanup(sub.close)
        sub.send("SUBSCRIBE %s\n" % " ".join(alice + mallory))
        self.assertEqual(c.ask("IDLE on"), "OK")
        sub.wait_states({x: "Terminated" for x in alice + mallory})
        log = self.node.log()
        at = {x: log.index("Task UUID{%s} command" % x) for x in alice + mallory}
        self.assertLess(max(at[x] for x in mallory), min(at[x] for x in alice))

    def test_begin_defers_the_start(self):
        self.start_node()
        u = self.run_as(ALICE, "--begin", "now+2s", "--", "true")
        self.assertIn("--begin time has not come",
                      [l for l in self.c.ask_multi("TASKS") if u in l][0])
        self.c.send("SUBSCRIBE %s\n" % u)
        self.c.wait_states({u: "Terminated"})
        rec = [l for l in self.c.ask_multi("ACCOUNT") if u in l][0]
        fields = dict(w.split("=", 1) for w in rec.split() if "=" in w)
        self.assertGreaterEqual(int(fields["stt"]), int(fields["bgn"]))
        # To the second, as Slurm: now+2s is 1 to 2 s away.
        self.assertGreaterEqual(int(fields["bgn"]) - int(fields["sub"]), 900)
        r = self.volery(ALICE, "run", "--begin", "soon", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--begin soon: now+2h", r.stderr)

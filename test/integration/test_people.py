"""People, not one operator (issue 34, first slice): every task has an
owner, the user the node saw behind the request, and only the owner, root,
remote operators and the <admins> group may cancel it, read its output,
its log lines and its environment.  Real local users, made for the test
with useradd and removed after it (also when it fails)."""
import atexit
import os
import subprocess
import unittest

import harness
from harness import Node, TIMEOUT

SUFFIX = "%d" % (os.getpid() % 100000)
ALICE, MALLORY, ADMIN = "vtal" + SUFFIX, "vtma" + SUFFIX, "vtad" + SUFFIX
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
    for user in (ALICE, MALLORY, ADMIN):
        subprocess.run(["userdel", user], stderr=subprocess.DEVNULL)
    subprocess.run(["groupdel", ADMINS], stderr=subprocess.DEVNULL)


# The checks are the node's; valgrind would mostly time the users' CLIs
# (make test's 12 minutes): natively and under ASan+UBSan.
UNWRAPPED = unittest.skipIf(harness.WRAP, "natively and under the sanitizers")


@UNWRAPPED
@unittest.skipUnless(os.geteuid() == 0, "useradd needs root")
class Owners(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        atexit.register(remove_accounts)
        cls.addClassCleanup(remove_accounts)
        subprocess.run(["groupadd", ADMINS], check=True)
        for user, more in ((ALICE, []), (MALLORY, []), (ADMIN, ["-G", ADMINS])):
            subprocess.run(["useradd", "-M", "-N", "-d", "/nonexistent", "-s",
                            "/usr/sbin/nologin"] + more + [user], check=True)

    def setUp(self):
        self.node = Node(extra="<admins>%s</admins><http>127.0.0.1:0</http>"
                         % ADMINS)
        self.addCleanup(self.node.cleanup)
        self.node.start()
        self.addCleanup(self.node.stop)
        self.c = self.node.client()
        self.addCleanup(self.c.close)
        self.web = self.node.http_port()

    def volery(self, user, *args):
        return subprocess.run(
            harness.WRAP + [harness.VOLERY, "-H", "127.0.0.1:%d" % self.node.port]
            + list(args), user=user, group=65534, extra_groups=[], cwd="/",
            capture_output=True, text=True, timeout=TIMEOUT)

    def http(self, user, method, path):
        r = subprocess.run(["/usr/bin/python3", "-c", HTTP, str(self.web),
                            method, path], user=user, group=65534,
                           extra_groups=[], capture_output=True,
                           text=True, timeout=TIMEOUT)
        status, _, body = r.stdout.partition(" ")
        return int(status), body

    def run_as(self, user, *command):
        r = self.volery(user, "run", *command)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def state(self, uuid):
        return [l.split()[4] for l in self.c.ask_multi("TASKS") if uuid in l][0]

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


@UNWRAPPED
@unittest.skipUnless(os.geteuid() == 0, "useradd needs root")
class Volunteering(unittest.TestCase):
    """Only people decide when a workstation volunteers: IDLE from root,
    the node's user or a user logged in at the host; never from a task's
    run (it would keep itself running while its user works)."""

    @classmethod
    def setUpClass(cls):
        Owners.setUpClass.__func__(cls)

    def setUp(self):
        self.node = Node(extra="<max_attempts>1</max_attempts>")
        self.addCleanup(self.node.cleanup)
        self.node.start()
        self.addCleanup(self.node.stop)
        self.c = self.node.client()
        self.addCleanup(self.c.close)

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

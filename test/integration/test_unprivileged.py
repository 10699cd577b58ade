"""Tasks run unprivileged (issue 12, point 8): a node started as root runs
them as an unprivileged user, under their description's limits, each in a
private working directory removed when the run ends -- and after a node
killed with -9, at its next start."""
import os
import pwd
import re
import select
import shutil
import subprocess
import unittest

import harness
from harness import Node, TIMEOUT, outputs_of, params_file

ROOT_NODE = os.geteuid() == 0


def run_user(node_uid=os.geteuid()):
    """Whom a node started by node_uid runs tasks as, by default."""
    if node_uid != 0:
        return pwd.getpwuid(node_uid)
    for name in ("volery", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            pass
    raise unittest.SkipTest("no volery or nobody user")


def wait_gone(pid):
    """Wait for a process that is not our child to end (a pidfd becomes
    readable when it does)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        if not select.select([fd], [], [], TIMEOUT)[0]:
            raise AssertionError("process %d still alive" % pid)
    finally:
        os.close(fd)


@unittest.skipIf(harness.WRAP, "under valgrind, the child's setrlimit(RLIMIT_NOFILE) "
                 "is valgrind's emulation, which refuses a new hard limit")
class Unprivileged(unittest.TestCase):
    switches = ROOT_NODE    # the node runs tasks as another user

    def setUp(self):
        self.node = Node(extra="<max_attempts>1</max_attempts>")
        self.addCleanup(self.node.cleanup)
        self.prepare(self.node)
        self.node.start()
        self.addCleanup(self.node.stop)     # first: a clean stop
        self.c = self.node.client()
        self.addCleanup(self.c.close)
        self.runs = os.path.join(os.path.realpath(self.node.dir), "state", "runs")

    def prepare(self, node):
        """What a subclass does to the node before it starts."""

    def schedule(self, request, c=None):
        """Schedule, and hear of its states."""
        c = c or self.c
        u = c.schedule(request)
        c.ask("SUBSCRIBE %s" % u)
        return u

    def node_uid(self):
        with open("/proc/%d/status" % self.node.proc.pid) as f:
            return int(re.search(r"^Uid:\s*(\d+)", f.read(), re.M).group(1))

    def ended(self, uuid):
        """The node's line for the end of uuid's run (its directory is
        gone by then)."""
        return self.node.wait_log(r"Task UUID\{%s\} name\{\w+\} pid \d+ ended: ([^,]+)"
                                  % uuid).group(1)

    def test_a_run_is_unprivileged_limited_and_in_a_directory_of_its_own(self):
        # Something of the test's a symlink in the run directory points to.
        outside = os.path.join(self.node.dir, "outside")
        os.mkdir(outside)
        with open(os.path.join(outside, "keep"), "w") as f:
            f.write("not the run's\n")
        u = self.schedule("confined low -p whoami -x %s" % outside)
        seen = self.c.wait_states({u: "Terminated"})
        uid, cwd, files = outputs_of(seen, u)
        user = run_user(self.node_uid())
        self.assertEqual(uid, "uid=%d" % user.pw_uid)
        if self.switches:
            self.assertNotEqual(user.pw_uid, 0)
        self.assertEqual(cwd, u)    # <state_dir>/runs/<uuid>, and $TMPDIR
        self.assertEqual(files, "files=32")
        self.assertRegex(self.node.log(), r"Task UUID\{%s\} executable confined "
                         r"started, pid \d+, user %s," % (u, user.pw_name))
        self.assertEqual(self.ended(u), "exit status 0")
        # The tree it made (a directory it made unreadable among it) is
        # gone -- its emptied directory is kept as a spare for the next
        # run; what its symlink pointed to is not.
        left = os.listdir(self.runs)
        self.assertTrue(all(d.startswith(".spare-") for d in left), left)
        for d in left:
            self.assertEqual(os.listdir(os.path.join(self.runs, d)), [])
        self.assertEqual(os.listdir(outside), ["keep"])
        if self.switches:
            # The run could not read the node's state, nor write it.
            st = os.stat(os.path.join(self.node.dir, "state", "journal"))
            self.assertEqual(st.st_uid, 0)
            self.assertEqual(st.st_mode & 0o077, 0)
            st = os.stat(os.path.join(self.node.dir, "state"))
            self.assertEqual(st.st_mode & 0o777, 0o711)

    def test_cpu_limit_stops_a_spinning_run(self):
        u = self.schedule("confined low -p cpu")
        seen = self.c.wait_states({u: "Failed"})
        self.assertIn("killed by signal %d" % 24, " ".join(seen))  # SIGXCPU
        self.assertIn("killed by signal 24", self.ended(u))
        self.assertRegex(self.node.log(), r"Task UUID\{%s\} name\{confined\} used the "
                         r"1 s of CPU its description allows" % u)

    def test_memory_limit_denies_a_large_allocation(self):
        u = self.schedule("confined low -p memory")
        seen = self.c.wait_states({u: "Failed"})
        self.assertIn("cannot allocate 256 MiB", " ".join(seen))
        self.assertEqual(self.ended(u), "exit status 1")

    def test_a_program_the_run_user_cannot_execute_is_never_started(self):
        if not self.switches:
            self.skipTest("the run user is the node's own")
        self.node.stop()
        path = os.path.join(self.node.tasks, "sink")
        os.chmod(path, 0o700)
        self.node.start()
        self.node.wait_log(r"task sink cannot run on this node: user \S+ cannot "
                           r"execute %s" % re.escape(os.path.realpath(path)))
        c = self.node.client()
        self.addCleanup(c.close)
        i = c.schedule("confined low -p whoami -x /")
        u = c.schedule("sink low -a %s 1" % i)
        c.ask("SUBSCRIBE %s" % i)   # after the last request: ask() skips PROGRESS
        self.node.wait_log(r"Task UUID\{%s\} name\{sink\} is never run here: "
                           r"user \S+ cannot execute" % u)
        c.wait_states({i: "Terminated"})
        # First come, first served: a task submitted after sink runs, so
        # sink would have run before it if it could.
        j = self.schedule("confined low -p whoami -x /", c)
        c.wait_states({j: "Terminated"})
        self.assertNotIn("Task UUID{%s} executable sink started" % u, self.node.log())
        self.assertEqual(c.tasks()[u][2], "Ready")


class BadLimits(unittest.TestCase):
    def test_a_description_with_bad_limits_is_skipped_with_its_line(self):
        node = Node()
        self.addCleanup(node.cleanup)
        bad = {
            "cpu0": "<cpu_seconds>0</cpu_seconds>",
            "memhuge": "<memory_mb>99999999999</memory_mb>",
            "files": "<open_files>many</open_files>",
            "other": "<nice>5</nice>",
        }
        for name, limit in bad.items():
            shutil.copy2(os.path.join(node.tasks, "sink"), os.path.join(node.tasks, name))
            with open(os.path.join(node.tasks, name + ".xml"), "w") as f:
                f.write("<task><name>%s</name><outputs>1</outputs>\n"
                        "<limits>%s</limits></task>\n" % (name, limit))
        node.start()
        self.addCleanup(node.stop)
        for name, why in (("cpu0", "<cpu_seconds> must be 1 to 31536000"),
                          ("memhuge", "<memory_mb> must be 1 to 16777216"),
                          ("files", "<open_files> must be 1 to 1048576"),
                          ("other", "unknown element <nice> in <limits> "
                                    "(cpu_seconds, memory_mb, open_files)")):
            node.wait_log(r"task description \S+/%s\.xml: line 2: %s; skipped"
                          % (name, re.escape(why)))
        c = node.client()
        self.addCleanup(c.close)
        self.assertIn("ERROR", c.ask("SCHEDULE cpu0 low"))


def unit_setting(key):
    with open(os.path.join(harness.ROOT, "conf", "volery.service.in")) as f:
        m = re.search(r"^%s=(.*)$" % key, f.read(), re.M)
    return m.group(1) if m else None


@unittest.skipUnless(ROOT_NODE and shutil.which("setpriv"), "needs root and setpriv")
class UnderTheSystemdUnit(Unprivileged):
    """The unit's restrictions, without systemd: a node started as root
    with no capabilities but those of its CapabilityBoundingSet, and
    NoNewPrivileges, still runs tasks as its user and cleans up after
    them (every test of Unprivileged, again)."""

    def setUp(self):
        caps = unit_setting("CapabilityBoundingSet").split()
        self.assertEqual(unit_setting("NoNewPrivileges"), "yes")
        self.assertIsNone(unit_setting("DynamicUser"))
        self.assertTrue(caps)
        self.caps = caps
        super().setUp()

    def prepare(self, node):
        node.wrap = ["setpriv", "--bounding-set", ",".join(
            ["-all"] + ["+" + c[len("CAP_"):].lower() for c in self.caps]),
            "--no-new-privs", "--"]

    def test_the_node_holds_only_those_capabilities(self):
        with open("/proc/%d/status" % self.node.proc.pid) as f:
            status = f.read()
        eff = int(re.search(r"^CapEff:\s*(\w+)", status, re.M).group(1), 16)
        self.assertEqual(bin(eff).count("1"), len(unit_setting("CapabilityBoundingSet").split()))
        self.assertRegex(status, r"NoNewPrivs:\s*1")


@unittest.skipUnless(ROOT_NODE and shutil.which("setpriv"), "needs root and setpriv")
class AsAUser(Unprivileged):
    """A node a user starts runs tasks as that user: no switch, and the
    same private directories and limits (every test of Unprivileged)."""
    switches = False

    def prepare(self, node):
        nobody = pwd.getpwnam("nobody")
        for d, dirs, files in os.walk(node.dir):
            for f in [d] + [os.path.join(d, x) for x in files]:
                os.lchown(f, nobody.pw_uid, nobody.pw_gid)
        node.wrap = ["setpriv", "--reuid=%d" % nobody.pw_uid,
                     "--regid=%d" % nobody.pw_gid, "--clear-groups", "--"]


class KilledNode(unittest.TestCase):
    def test_a_node_killed_mid_run_leaves_nothing_after_its_restart(self):
        node = Node()
        self.addCleanup(node.cleanup)
        node.start()
        self.addCleanup(node.stop)
        c = node.client()
        self.addCleanup(c.close)
        u = c.schedule("import low -p /data/x -x %s" % params_file(node.dir, 60000))
        pid = int(node.wait_log(r"Task UUID\{%s\} executable import started, "
                                r"pid (\d+)" % u).group(1))
        runs = os.path.join(node.dir, "state", "runs")
        self.assertEqual(os.listdir(runs), [u])
        c.close()
        node.kill9()
        wait_gone(pid)      # the run dies with its node
        self.assertEqual(os.listdir(runs), [u])
        node.start()
        node.wait_log(r"removed 1 run directories a previous start left")
        c = node.client()
        self.addCleanup(c.close)
        self.assertEqual(node.wait_log(r"Task UUID\{%s\} executable import started, "
                                       r"pid \d+, user \S+, attempt (\d)" % u).group(1), "2")
        self.assertEqual(os.listdir(runs), [u])


class RunAs(unittest.TestCase):
    """Whom tasks run as is checked before the node starts."""

    def check(self, run_as, **kw):
        d = harness.make_workdir()
        self.addCleanup(shutil.rmtree, d, True)
        conf = os.path.join(d, "node.xml")
        with open(conf, "w") as f:
            f.write("<server><run_as>%s</run_as></server>\n" % run_as)
        return subprocess.run([harness.VOLERY, "serve", "-n", "-c", conf],
                              capture_output=True, text=True, **kw)

    def test_a_missing_user_is_refused(self):
        r = self.check("nosuchuser")
        self.assertEqual(r.returncode, 1)
        self.assertIn("<run_as>nosuchuser</run_as>: no such user", r.stderr)

    def test_a_name_that_is_not_a_user_name_is_a_config_error(self):
        r = self.check("Robert'); DROP")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not a user name", r.stderr)

    @unittest.skipUnless(ROOT_NODE, "needs to start a node as another user")
    def test_only_root_runs_tasks_as_another_user(self):
        nobody = pwd.getpwnam("nobody")

        def as_nobody():
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
        r = self.check("root", preexec_fn=as_nobody)
        self.assertEqual(r.returncode, 1)
        self.assertIn("only a node started as root can run tasks as another user",
                      r.stderr)


if __name__ == "__main__":
    unittest.main()

"""Installs that just work on N workstations (issue 14): make install
twice keeps the admin's config, uninstall leaves it, a new PREFIX is
compiled in, two workstations installed alike get two names from their
host names, and the Debian package installs, runs the manual's examples
as printed, and purges."""
import os
import pwd
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import unittest

import harness
from harness import ROOT, TIMEOUT, Node

# These build and install the tree itself: once, with the plain build,
# not again under the sanitizers or valgrind.
PLAIN = harness.VOLERY == os.path.join(ROOT, "volery") and not harness.WRAP


def make(*args):
    # A make of its own, not the one running the tests (make check
    # passes its sanitizer build down through MAKEFLAGS).
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BUILD", "SANITIZE")}
    r = subprocess.run(["make", "-s", "-C", ROOT] + list(args),
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        raise AssertionError("make %s: %s%s" % (" ".join(args), r.stdout[-2000:],
                                               r.stderr[-3000:]))
    return r


def read(path):
    with open(path) as f:
        return f.read()


@unittest.skipUnless(PLAIN, "the plain build installs")
class MakeInstall(unittest.TestCase):
    def setUp(self):
        self.dest = tempfile.mkdtemp(prefix="volery-dest-")
        self.addCleanup(shutil.rmtree, self.dest, True)

    def test_install_twice_keeps_the_config_and_uninstall_leaves_it(self):
        make("install", "DESTDIR=" + self.dest)
        d = self.dest
        for f in ("bin/volery", "share/man/man1/volery.1",
                  "share/man/man5/volery.conf.5", "share/man/man5/volery-task.5",
                  "share/man/man7/volery-protocol.7", "share/man/man7/volery-api.7",
                  "lib/volery/tasks/import",
                  "lib/volery/tasks/import.xml", "lib/systemd/system/volery.service",
                  "lib/systemd/system-sleep/volery",
                  "share/doc/volery/workflow.xml", "share/doc/volery/params.xml"):
            self.assertTrue(os.path.isfile(os.path.join(d, "usr/local", f)), f)
        conf = d + "/etc/volery/volery.conf.xml"
        text = read(conf)
        self.assertNotRegex(text, r"(?m)^\s*<name>")
        self.assertIn("<state_dir>/var/lib/volery</state_dir>", text)
        self.assertIn("<tasks_dir>/usr/local/lib/volery/tasks</tasks_dir>", text)
        self.assertEqual(stat.S_IMODE(os.stat(d + "/var/lib/volery").st_mode), 0o711)
        self.assertTrue(os.path.isdir(d + "/var/log/volery"))
        self.assertIn("/var/log/volery/*.log", read(d + "/etc/logrotate.d/volery"))
        self.assertIn("complete -F _volery volery",
                      read(d + "/usr/local/share/bash-completion/completions/volery"))
        unit = read(d + "/usr/local/lib/systemd/system/volery.service")
        self.assertIn("ExecStart=/usr/local/bin/volery serve -q -c "
                      "/etc/volery/volery.conf.xml", unit)
        self.assertIn("/etc/volery/volery.conf.xml",
                      read(d + "/usr/local/share/man/man1/volery.1"))
        hook = d + "/usr/local/lib/systemd/system-sleep/volery"
        self.assertIn("pre)\texec /usr/local/bin/volery sleep now", read(hook))
        self.assertEqual(stat.S_IMODE(os.stat(hook).st_mode), 0o755)
        # The installed config is valid as it is.
        r = subprocess.run([d + "/usr/local/bin/volery", "serve", "-n", "-c", conf],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "configuration %s OK\n"
                                                     % conf), r.stderr)

        # The admin's edits survive a second install and an uninstall.
        with open(conf, "a") as f:
            f.write("<!-- the admin's -->\n")
        mine = read(conf)
        make("install", "DESTDIR=" + d)
        self.assertEqual(read(conf), mine)
        make("uninstall", "DESTDIR=" + d)
        left = sorted(os.path.relpath(os.path.join(p, f), d)
                      for p, _, fs in os.walk(d) for f in fs)
        self.assertEqual(left, ["etc/logrotate.d/volery", "etc/volery/volery.conf.xml"])
        self.assertEqual(read(conf), mine)

    def test_a_new_prefix_is_compiled_in(self):
        try:
            make("install", "PREFIX=/opt/vol", "DESTDIR=" + self.dest)
            binary = self.dest + "/opt/vol/bin/volery"
            with open(binary, "rb") as f:
                self.assertIn(b"/opt/vol/lib/volery/tasks", f.read())
            self.assertIn("<tasks_dir>/opt/vol/lib/volery/tasks</tasks_dir>",
                          read(self.dest + "/etc/volery/volery.conf.xml"))
        finally:
            make("all")     # the tree's own binary, for the other tests
        with open(os.path.join(ROOT, "volery"), "rb") as f:
            self.assertNotIn(b"/opt/vol/lib", f.read())

    def test_two_workstations_installed_alike_get_two_names(self):
        make("install", "DESTDIR=" + self.dest)
        template = read(self.dest + "/etc/volery/volery.conf.xml")
        nodes = []
        for host in ("ws-one", "ws-two"):
            n = Node(name="unused", cluster="installs")
            self.addCleanup(n.cleanup)
            # The installed config, made to run beside the tests: its
            # own ports and directories; no <name>, as installed.
            conf = template
            for elem, value in (("listen", "127.0.0.1:0"),
                                ("state_dir", n.dir + "/state"),
                                ("log_file", n.dir + "/volery.log"),
                                ("socket", n.dir + "/state/volery.sock"),
                                ("tasks_dir", n.tasks),
                                ("mode", "dedicated"),
                                ("cluster", n.cluster)):
                conf = re.sub(r"<%s>[^<]*</%s>" % (elem, elem),
                              "<%s>%s</%s>" % (elem, value, elem), conf)
            conf = conf.replace("</server>", "<keyring><key>%s</key></keyring>"
                                "\n</server>" % harness.cluster_key(n.cluster))
            with open(n.conf, "w") as f:
                f.write(conf)
            # A workstation of its own host name (a UTS namespace).
            n.wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"',
                      host]
            n.start()
            nodes.append(n)
        for n, other in ((nodes[0], "ws-two"), (nodes[1], "ws-one")):
            n.wait_log(r"node %s joined" % other)
        r = subprocess.run([harness.VOLERY, "-H", "127.0.0.1:%d" % nodes[0].port,
                            "nodes"], capture_output=True, text=True)
        # The node rows (a name, then an address); what follows them
        # (rejected datagrams, a hint) is about other senders.
        names = [f[0] for f in map(str.split, r.stdout.splitlines()[1:])
                 if len(f) > 1 and re.match(r"[\d.]+:\d+$", f[1])]
        self.assertEqual(sorted(names), ["ws-one", "ws-two"], r.stdout)
        self.assertNotIn("clash", r.stdout)
        for n in nodes:
            n.stop()


def man_examples(page):
    """The shell lines of the EXAMPLES section of a roff page."""
    text = page[page.index(".SH EXAMPLES"):page.index(".SH SEE ALSO")]
    lines = []
    for block in re.findall(r"\.nf\n\.RS\n(.*?)\n\.RE\n\.fi", text, re.S):
        lines += [l.replace("\\-", "-") for l in block.splitlines()]
    return lines


@unittest.skipUnless(PLAIN, "the plain build packages")
class DebianPackage(unittest.TestCase):
    def test_the_package_builds_lintian_clean_and_its_examples_work(self):
        make("deb")     # fails on any lintian error or warning
        debs = [f for f in os.listdir(os.path.join(ROOT, "build", "deb"))
                if re.match(r"volery_.*\.deb$", f)]
        self.assertEqual(len(debs), 1, debs)
        deb = os.path.join(ROOT, "build", "deb", debs[0])
        listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True,
                                 text=True, check=True).stdout
        for path in ("./usr/bin/volery", "./etc/volery/volery.conf.xml",
                     "./usr/lib/systemd/system/volery.service",
                     "./usr/lib/systemd/system-sleep/volery",
                     "./etc/logrotate.d/volery", "./usr/share/man/man1/volery.1.gz",
                     "./usr/share/bash-completion/completions/volery"):
            self.assertIn(path, listing)
        # dpkg -i changes the machine: only where that is the point (CI,
        # or asked for).
        if not (os.environ.get("CI") or os.environ.get("VOLERY_TEST_DPKG")) \
                or os.getuid() != 0 or os.path.exists("/usr/bin/volery"):
            self.skipTest("dpkg -i only in CI (or VOLERY_TEST_DPKG=1), as root, "
                          "on a host without volery")
        had_user = subprocess.run(["getent", "passwd", "volery"],
                                  capture_output=True).returncode == 0
        self.addCleanup(self.purge, had_user)
        subprocess.run(["dpkg", "-i", deb], check=True, capture_output=True)
        self.assertEqual(pwd.getpwnam("volery").pw_shell, "/usr/sbin/nologin")
        self.assertEqual(stat.S_IMODE(os.stat("/var/lib/volery").st_mode), 0o711)
        r = subprocess.run(["volery", "serve", "-n", "-c",
                            "/etc/volery/volery.conf.xml"], capture_output=True,
                           text=True)
        self.assertEqual(r.stdout, "configuration /etc/volery/volery.conf.xml "
                         "OK\n", r.stderr)
        # The manual's examples, as printed, in one shell: the node they
        # start is told its user is away (a busy CI machine would keep a
        # screensaver node from taking tasks).
        page = subprocess.run(["zcat", "/usr/share/man/man1/volery.1.gz"],
                              capture_output=True, text=True, check=True).stdout
        lines = man_examples(page)
        self.assertIn("volery serve -q -c /etc/volery/volery.conf.xml & sleep 1",
                      lines)
        self.assertIn("volery submit --watch /usr/share/doc/volery/workflow.xml",
                      lines)
        script = "set -e\nnode=\ntrap '[ -z \"$node\" ] || { kill $node; " \
            "wait $node; }' EXIT\n"
        for l in lines:
            script += l + "\n"
            if l.startswith("volery serve"):
                script += "node=$!\nvolery idle on\n"
        work = tempfile.mkdtemp(prefix="volery-examples-")
        self.addCleanup(shutil.rmtree, work, True)
        # Named after its host, as the installed config names no node.
        script += "volery nodes\n"
        r = subprocess.run(["bash", "-c", script], cwd=work, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])
        self.assertRegex(r.stdout, r"\n%s +\S+ +master " % re.escape(
            socket.gethostname()))
        self.assertIn("a b and c", r.stdout)
        self.assertRegex(r.stdout, r"4 of 4 terminated")
        self.assertTrue(os.path.exists("/tmp/runs.json"))

    def purge(self, had_user):
        subprocess.run(["dpkg", "--purge", "volery"], capture_output=True)
        if not had_user:
            subprocess.run(["userdel", "volery"], capture_output=True)
        for leftover in ("/tmp/runs.json", "/run/volery"):
            shutil.rmtree(leftover, True) if os.path.isdir(leftover) else \
                os.path.exists(leftover) and os.unlink(leftover)


if __name__ == "__main__":
    unittest.main()

"""Data without a share (issue 39): `volery run --in PATH` records each
file's size and hash; the node that wins the task fetches the files it
lacks from the node that took it, once per node however many runs want
them, and gives each run its copy at the same relative path; a file
changed after the submit is refused for good; a path that would leave
the directory is refused; the taker reads a file only with its owner's
rights."""
import hashlib
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import unittest

import harness
import test_people
import test_run
from harness import TIMEOUT, Cluster


def blake(data):
    return hashlib.blake2b(data, digest_size=32).hexdigest()


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


class Inputs(unittest.TestCase):
    def setUp(self):
        self.cl = Cluster(("a", "b"), extra="<max_attempts>3</max_attempts>"
                          "<retry_delay_s>0</retry_delay_s>").start()
        self.addCleanup(self.cl.cleanup)
        self.cl.master()
        self.work = test_run.shared_dir(self.cl.nodes["a"].dir, "work")

    def run_ok(self, *args):
        r = test_run.volery("-H", "127.0.0.1:%d" % self.cl.nodes["a"].port,
                            "run", *args, cwd=self.work)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode().split()

    def ends(self, uuids):
        return {u: test_run.wait_end(self, self.cl.nodes["a"], u) for u in uuids}

    def fetches(self, name, path):
        return len(re.findall(r"input %s fetched" % re.escape(path),
                              self.cl.nodes[name].log()))

    def test_every_run_gets_the_files_and_each_node_fetches_them_once(self):
        notes = b"notes of the survey\n"
        big = os.urandom(4 << 20)
        write(os.path.join(self.work, "data", "notes.txt"), notes)
        write(os.path.join(self.work, "data", "deep", "er", "big.bin"), big)
        script = ('test "$(pwd)" != "%s" && test -O data/notes.txt && '
                  'test "$(cat data/notes.txt)" = "notes of the survey" && '
                  'sha256sum data/deep/er/big.bin' % self.work)
        uuids = self.run_ok("--array", "1-6", "--in", "data", "--",
                            "sh", "-c", script)
        ends = self.ends(uuids)
        for u, end in ends.items():
            self.assertIn("Terminated", end, u)
            self.assertEqual(test_run.volery(
                "-H", "127.0.0.1:%d" % self.cl.nodes["a"].port, "output",
                u).stdout.decode().split()[0], hashlib.sha256(big).hexdigest())
        runners = {re.search(r"node=(\S+)", e).group(1) for e in ends.values()}
        for name in runners:
            # Once per node, not once per run; kept by owner and hash.
            self.assertEqual(self.fetches(name, "data/deep/er/big.bin"), 1, name)
            self.assertTrue(os.path.exists(os.path.join(
                self.cl.nodes[name].dir, "state", "inputs",
                "%s.%s" % (pwd.getpwuid(os.geteuid()).pw_name, blake(big)))))

    def test_a_workflows_in_files_travel_and_foreach_fills_them(self):
        for i in (1, 2, 3):
            write(os.path.join(self.work, "parts", "part%d.txt" % i),
                  b"".join(b"row %d\n" % k for k in range(i * 10)))
        wf = os.path.join(self.work, "parts.xml")
        with open(wf, "w") as f:
            f.write("""<workflow>
  <foreach values="1-3">
    <command id="count"><in>parts/part{i}.txt</in>
      <shell>test ! -e parts.xml &amp;&amp; wc -l &lt; parts/part{i}.txt</shell></command>
  </foreach>
  <command id="all"><in>parts</in><shell>cat parts/*.txt | wc -l</shell></command>
</workflow>
""")
        # From elsewhere: the paths are the file's directory's.
        r = test_run.volery("-H", "127.0.0.1:%d" % self.cl.nodes["a"].port,
                            "submit", "--watch", wf, cwd="/")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("4 of 4 terminated", r.stdout.decode())
        ids = dict(l.split()[:2] for l in r.stdout.decode().splitlines()
                   if re.match(r"^\S+ [0-9a-f-]{36}$", l))
        for i in (1, 2, 3):
            self.assertEqual(test_run.volery(
                "-H", "127.0.0.1:%d" % self.cl.nodes["a"].port, "output",
                ids["count[%d]" % i]).stdout.decode().strip(), str(i * 10))
        self.assertEqual(test_run.volery(
            "-H", "127.0.0.1:%d" % self.cl.nodes["a"].port, "output",
            ids["all"]).stdout.decode().strip(), "60")
        # A missing one: nothing is submitted, and the line says why.
        with open(wf, "w") as f:
            f.write('<workflow>\n<command id="x"><arg>true</arg>\n'
                    '<in>parts/none.txt</in></command>\n</workflow>\n')
        r = test_run.volery("-H", "127.0.0.1:%d" % self.cl.nodes["a"].port,
                            "submit", wf)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"parts.xml:2: <in>: parts/none.txt: No such file",
                      r.stderr)

    def test_a_file_changed_after_its_submit_is_refused_for_good(self):
        for name in ("same.txt", "grown.txt"):
            write(os.path.join(self.work, name), b"as submitted\n")
        # Time to change them before any node fetches them.
        same = self.run_ok("--begin", "now+2s", "--in", "same.txt", "--",
                           "cat", "same.txt")[0]
        grown = self.run_ok("--begin", "now+2s", "--in", "grown.txt", "--",
                            "cat", "grown.txt")[0]
        write(os.path.join(self.work, "same.txt"), b"as TAMPERED!\n")
        write(os.path.join(self.work, "grown.txt"), b"as submitted, then more\n")
        ends = self.ends([same, grown])
        for u, end in ends.items():
            self.assertIn("Failed", end, u)
            self.assertIn("changed after its submit", end, u)
        # Refused for good: one attempt each, though three are allowed.
        for u in (same, grown):
            starts = sum(len(re.findall(r"Task UUID\{%s\} name\{cat\} owner\{\S+\} "
                                        r"cannot start" % u, n.log()))
                         for n in self.cl.nodes.values())
            self.assertEqual(starts, 1, u)
        self.assertNotIn("TAMPERED", test_run.volery(
            "-H", "127.0.0.1:%d" % self.cl.nodes["a"].port, "output",
            same).stdout.decode())

    def test_paths_that_leave_the_directory_are_refused(self):
        write(os.path.join(self.work, "in", "ok.txt"), b"ok\n")
        os.symlink("/etc/hostname", os.path.join(self.work, "in", "link"))
        for path, why in (("../x", "below the directory"),
                          ("/etc/hostname", "below the directory"),
                          ("in", "in/link: a symbolic link")):
            r = test_run.volery("-H", "127.0.0.1:%d" % self.cl.nodes["a"].port,
                                "run", "--in", path, "--", "true", cwd=self.work)
            self.assertEqual(r.returncode, 2, (path, r.stdout))
            self.assertIn(why, r.stderr.decode(), path)
        # A request made by hand, past the command line's checks: the
        # node refuses it before it is a task.
        c = self.cl.nodes["a"].client()
        self.addCleanup(c.close)
        for item in ("3:%s:../../etc/shadow" % blake(b"ok\n"),
                     "3:%s:/etc/shadow" % blake(b"ok\n"),
                     "3:%s:in/./ok.txt" % blake(b"ok\n"),
                     "3:nothex:in/ok.txt"):
            reply = c.ask("RUN cat low -I %s -i %s -- cat x" % (self.work, item))
            self.assertTrue(reply.startswith("ERROR"), (item, reply))
        self.assertNotIn(" cat ", " ".join(c.ask_multi("TASKS")))


class InputsOfPeople(test_people.People):
    """The node that took the task reads its files as the task's owner:
    a request naming another user's file, with its true size and hash,
    gets nothing of it."""

    def test_another_users_file_is_not_read_for_a_task(self):
        self.start_node()
        home = tempfile.mkdtemp(prefix="vtalice")
        self.addCleanup(shutil.rmtree, home, True)
        secret = b"alice's diary\n"
        write(os.path.join(home, "diary.txt"), secret, mode=0o600)
        uid = pwd.getpwnam(test_people.ALICE).pw_uid
        for path in (home, os.path.join(home, "diary.txt")):
            os.chown(path, uid, -1)
        os.chmod(home, 0o700)
        # Alice's own run gets it.
        r = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", "127.0.0.1:%d" % self.node.port, "run",
            "--in", "diary.txt", "--", "cat", "diary.txt"],
            user=test_people.ALICE, group=65534, extra_groups=[], cwd=home,
            capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        mine = r.stdout.strip()
        # Mallory's request names it with its true size and hash.
        line = "RUN cat low -I %s -i %d:%s:diary.txt -- cat diary.txt" % (
            home, len(secret), blake(secret))
        r = subprocess.run(["/usr/bin/python3", "-c", ASK, str(self.node.port),
                            line], user=test_people.MALLORY, group=65534,
                           extra_groups=[], capture_output=True, text=True,
                           timeout=TIMEOUT)
        self.assertTrue(r.stdout.startswith("SCHEDULED "), r.stdout)
        theirs = r.stdout.split()[1]
        self.c.ask("SUBSCRIBE %s %s" % (mine, theirs))
        seen = self.c.wait_states({mine: "Terminated", theirs: "Failed"})
        why = [l for l in seen if l.startswith("PROGRESS %s" % theirs)]
        self.assertIn("Permission denied", why[-1])
        out = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", "127.0.0.1:%d" % self.node.port, "output",
            mine], user=test_people.ALICE, group=65534, extra_groups=[],
            capture_output=True, timeout=TIMEOUT)
        self.assertEqual(out.stdout, secret)


# One request line from a user's own process: the first reply line.
ASK = """
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode() + b"\\n")
out = b""
while b"\\n" not in out:
    chunk = s.recv(65536)
    if not chunk:
        break
    out += chunk
sys.stdout.write(out.decode())
"""


if __name__ == "__main__":
    unittest.main()

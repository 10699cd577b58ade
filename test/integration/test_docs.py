"""The README and docs/ work as printed: every fenced block marked `sh` runs,
in order, in one shell, in a copy of the top of the tree (./volery, tasks/,
conf/), exactly as written -- as a person would type it.

A block fails the test if it exits non-zero or takes over BLOCK_TIMEOUT
seconds; some blocks also say what their output shows (EXPECT below).  The
word UUID in a block stands for the last uuid the block before printed.
Blocks marked `text` (output, files, commands for other hosts) are not run.
As root the shell runs as nobody, as a person at a workstation would: the
node then runs tasks as that person, in a directory of theirs.  Whatever the
blocks started is stopped at the end, and the copy removed.
"""
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import harness
from harness import ROOT

BLOCK_TIMEOUT = 120
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
END = "__volery_doc_block_end__"

# (file, a line of the block): what its output must show.
EXPECT = {
    ("README.md", "./volery submit --watch conf/workflow.xml"):
        [r"Terminated(.|\n)*Terminated(.|\n)*Terminated(.|\n)*Terminated"],
    ("README.md", "./volery output $u"): [r"(?m)^1000 data\.csv$"],
    ("README.md", "ls parts | wc -l"): [r"(?m)^12$"],
    ("README.md", "./volery submit --watch wc.xml"): [r"Terminated"],
    ("README.md", "./volery -H 127.0.0.1:7610 watch $u"):
        [r"Terminated(.|\n)*verified-by:(acor|gaviao|pato)(,(acor|gaviao|pato)){2}"],
    ("README.md", "./volery -H 127.0.0.1:7620 tasks | grep $u"):
        [r"Terminated .* checkpoint \d+, \d+s old, on (acor|gaviao|pato)"],
    ("README.md", './volery -H 127.0.0.1:7600 nodes'):
        [r"(?m)^acor +127\.0\.0\.1:7600 ", r"(?m)^gaviao +127\.0\.0\.1:7610 ",
         r"(?m)^pato +127\.0\.0\.1:7620 ",
         lambda out: len(re.findall(r" master ", out)) == 1],
}


def sh_blocks(path):
    """The `sh` blocks of a Markdown file: (line, text)."""
    with open(path) as f:
        text = f.read()
    return [(text.count("\n", 0, m.start()) + 1, m.group(2))
            for m in FENCE.finditer(text) if m.group(1) == "sh"]


def doc_files():
    docs = os.path.join(ROOT, "docs")
    return ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(docs) if f.endswith(".md"))


def session_members(sid):
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(p))
    return pids


class Shell:
    """One bash, fed block after block, as a person's terminal would be."""

    def __init__(self, cwd, env, user):
        kw = {}
        if user is not None:
            kw = dict(user=user, group=65534, extra_groups=[])
        self.proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, **kw)

    def run(self, text, timeout=BLOCK_TIMEOUT):
        """Run text; (exit status, output), or (None, output) on timeout."""
        self.proc.stdin.write(("%s\necho; echo %s $?\n" % (text, END)).encode())
        self.proc.stdin.flush()
        out = b""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(rb"\n%s (\d+)\n" % END.encode(), out)
            if m:
                return int(m.group(1)), out[:m.start()].decode(errors="replace")
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                return None, out.decode(errors="replace")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk and self.proc.poll() is not None:
                    return None, out.decode(errors="replace")
                out += chunk

    def close(self):
        """Stop all it started: nodes cleanly first (their runs end with
        them), then whatever is left."""
        sid = self.proc.pid
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            for pid in session_members(sid):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + wait
            while session_members(sid) and time.monotonic() < deadline:
                time.sleep(0.05)
        self.proc.wait()


class Docs(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        if harness.VOLERY != os.path.join(ROOT, "volery") or harness.WRAP:
            self.skipTest("the docs run against the plain build")

    def sandbox(self):
        """The top of a tree: ./volery, tasks/ and conf/ of this one."""
        d = tempfile.mkdtemp(prefix="volery-docs-")
        self.addCleanup(shutil.rmtree, d, True)
        os.symlink(harness.VOLERY, os.path.join(d, "volery"))
        shutil.copytree(os.path.join(ROOT, "tasks"), os.path.join(d, "tasks"))
        shutil.copytree(os.path.join(ROOT, "conf"), os.path.join(d, "conf"))
        os.mkdir(os.path.join(d, "home"))
        user = None
        if os.geteuid() == 0:
            user = "nobody"
            for top, dirs, files in os.walk(d):
                for name in [top] + [os.path.join(top, x) for x in dirs + files]:
                    os.lchown(name, 65534, 65534)
            os.chmod(d, 0o755)
        env = {"PATH": d + ":/usr/local/bin:/usr/bin:/bin", "HOME":
               os.path.join(d, "home"), "LANG": "C.UTF-8", "TERM": "dumb",
               "USER": user or os.environ.get("USER", "")}
        return d, env, user

    def run_file(self, name):
        blocks = sh_blocks(os.path.join(ROOT, name))
        if not blocks:
            return
        d, env, user = self.sandbox()
        shell = Shell(d, env, user)
        self.addCleanup(shell.close)
        last = ""
        for line, text in blocks:
            found = UUID.findall(last)
            if "UUID" in text:
                self.assertTrue(found, "%s:%d: UUID, but the block before "
                                "printed no uuid" % (name, line))
                text = re.sub(r"\bUUID\b", found[-1], text)
            status, out = shell.run(text)
            where = "%s:%d" % (name, line)
            self.assertIsNotNone(status, "%s: no end within %d s:\n%s"
                                 % (where, BLOCK_TIMEOUT, out[-3000:]))
            self.assertEqual(status, 0, "%s: exit status %s:\n%s"
                             % (where, status, out[-3000:]))
            for (f, first), wants in EXPECT.items():
                if f == name and first in text:
                    for want in wants:
                        if callable(want):
                            self.assertTrue(want(out), "%s: %s:\n%s"
                                            % (where, first, out))
                        else:
                            self.assertRegex(out, want, "%s: %s"
                                             % (where, first))
            last = out

    def test_every_expectation_names_a_block(self):
        for (f, first) in EXPECT:
            self.assertTrue(any(first in text for _, text in
                                sh_blocks(os.path.join(ROOT, f))), first)

    def test_readme_reads_in_ten_minutes(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            n = len(f.readlines())
        self.assertLessEqual(n, 300, "README.md: %d lines; the rest "
                             "belongs in docs/" % n)

    def test_readme_as_printed(self):
        self.run_file("README.md")

    def test_docs_as_printed(self):
        for name in doc_files()[1:]:
            with self.subTest(doc=name):
                self.run_file(name)


if __name__ == "__main__":
    unittest.main()

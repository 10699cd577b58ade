"""Checkpoints kept by the pool (issue 37): a run that writes one keeps
it and has copies kept by other live nodes; a later run of the task, on
another node, starts from the newest copy that hashes as its maker
signed, and does not redo the work before it."""
import glob
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import unittest

import harness
import test_volunteer
from harness import Cluster


def params(where, duration_ms, checkpoint_ms):
    path = os.path.join(where, "ckpt-%d-%d.xml" % (duration_ms,
                                                    checkpoint_ms))
    with open(path, "w") as f:
        f.write("<parameters><duration_ms>%d</duration_ms><checkpoint_ms>"
                "%d</checkpoint_ms></parameters>\n" % (duration_ms,
                                                        checkpoint_ms))
    return path


def newest_copied(node, u, name, copies):
    """The newest checkpoint node made of u, once it has copies; (seq,
    the nodes that keep them)."""
    def newest():
        made = re.findall(r"Task UUID\{%s\} name\{%s\} owner\{\S*\} "
                          r"checkpoint (\d+) " % (u, name), node.log())
        seq = max(int(m) for m in made)
        at = re.findall(r"Task UUID\{%s\} name\{%s\} checkpoint %d "
                        r"kept by (\S+) too" % (u, name, seq), node.log())
        return len(at) >= copies and (seq, sorted(at))
    return harness.wait_until(newest, "the newest checkpoint's copies")


class KeptByThePool(unittest.TestCase):
    # Five nodes: with two switched off, three still confirm its end.
    def setUp(self):
        self.cl = Cluster(("a", "b", "c", "d", "e")).start()
        self.addCleanup(self.cl.cleanup)
        self.cl.master()
        self.c = self.cl.nodes["a"].client()
        self.addCleanup(self.c.close)

    def start_long_task(self):
        """A 6-s task (12 s under valgrind, whose command-line calls
        here take seconds) checkpointing every 0.3 s; (uuid, runner,
        holders of its checkpoint once it is past half)."""
        u = self.c.schedule("import low -p /x -x %s" % params(
            self.cl.nodes["a"].dir, 12000 if harness.WRAP else 6000, 300))
        self.c.ask("SUBSCRIBE " + u)
        self.c.wait_states({u: "Running"})
        # Two copies of one checkpoint, past 40 % of its work.
        runner = self.runner_with_copies(u, "import", r"\d+")
        node = self.cl.nodes[runner]
        while True:         # its PROGRESS lines, to half its work
            f = self.c.line(harness.TIMEOUT).split()
            if f[:2] == ["PROGRESS", u] and int(f[2]) >= 50:
                break
        self.shown(u, runner)
        # Its process stopped, it makes no newer checkpoint: the newest
        # it made gets its two copies, the least a next run starts from.
        pid = int(re.findall(r"Task UUID\{%s\} executable \S+ started, "
                             r"pid (\d+)" % u, node.log())[-1])
        os.kill(pid, signal.SIGSTOP)
        return (u, runner) + newest_copied(node, u, "import", 2)

    def runner_with_copies(self, u, name, seq):
        """The node whose run of u made a checkpoint seq that another
        node keeps too.  Not simply the first that started it: a claim
        race may have started it twice at first, and the twin that
        stopped ("also runs on b; ours stops") is not the runner."""
        kept = (r"Task UUID\{%s\} name\{%s\} checkpoint %s kept by \S+ "
                r"too" % (u, name, seq))
        twin = r"Task UUID\{%s\} also runs on \S+ .*; ours .* stops" % u

        def found():
            for n, node in self.cl.nodes.items():
                log = node.log()
                if re.search(kept, log) and not re.search(twin, log):
                    return n
            return None
        return harness.wait_until(found, "a run's checkpoint " + seq +
                                  " kept elsewhere too")

    def follow_from_a_live_node(self, u):
        """Nodes were killed, maybe a: follow u from one alive."""
        if self.cl.nodes["a"].proc.poll() is not None:
            self.c = [n for n in self.cl.nodes.values()
                      if n.proc.poll() is None][0].client()
            self.addCleanup(self.c.close)
            self.c.ask("SUBSCRIBE " + u)

    def shown(self, u, runner):
        """volery tasks and the API say its checkpoint's age and where
        it is kept (a new one is kept by its runner alone at first)."""
        host = "127.0.0.1:%d" % self.cl.nodes["e"].port

        def ask(*args):
            return subprocess.run(harness.WRAP + [
                harness.VOLERY, "-H", host] + list(args),
                capture_output=True, text=True,
                timeout=harness.TIMEOUT).stdout

        harness.wait_until(lambda: re.search(
            r"(?m)^%s .* checkpoint \d+, \d+s old, on %s,\S+$" % (u, runner),
            ask("tasks")), "volery tasks shows copies")

        def copies():
            ck = [t for t in json.loads(ask("tasks", "--json"))
                  if t["uuid"] == u][0]["checkpoint"]
            return len(ck["kept_by"]) >= 2 and ck
        ck = harness.wait_until(copies, "the API shows copies")
        self.assertEqual(ck["kept_by"][0], runner)
        self.assertEqual(ck["file"], "checkpoint")
        # volery watch --json: each change with its checkpoint.
        w = subprocess.Popen(harness.WRAP + [
            harness.VOLERY, "-H", host, "watch", "--json", u],
            stdout=subprocess.PIPE, text=True)
        self.addCleanup(w.wait)
        self.addCleanup(w.kill)
        ready, _, _ = select.select([w.stdout], [], [], harness.TIMEOUT)
        self.assertTrue(ready, "volery watch --json printed nothing")
        line = json.loads(w.stdout.readline())
        self.assertEqual(line["uuid"], u)
        self.assertEqual(line["checkpoint"]["kept_on"].split(",")[0],
                         runner)

    def test_its_runner_and_a_holder_killed_it_resumes_from_the_other(self):
        u, runner, seq, holders = self.start_long_task()
        self.assertEqual(len(holders), 2, holders)
        self.assertNotIn(runner, holders)
        # The runner and the first holder switched off at once.
        for name in (runner, holders[0]):
            self.cl.nodes[name].kill9()
        self.follow_from_a_live_node(u)
        self.c.wait_states({u: "Terminated"})
        node, m = self.later_run(runner, r"Task UUID\{%s\} name\{import\} "
                                 r"owner\{\S*\} starts from its checkpoint "
                                 r"(\d+), made by %s" % (u, runner))
        self.assertGreaterEqual(int(m.group(1)), seq)
        # Its work went on from there: not from the beginning.
        m = node.wait_log(r"Task UUID\{%s\} name\{import\} stderr: import: "
                          r"resumed at (\d+)%% from its checkpoint" % u)
        self.assertGreaterEqual(int(m.group(1)), 40)
        # Ended, its checkpoints leave every node: the live ones now, the
        # two switched off once they are back and hear of its end.
        away = (runner, holders[0])
        for name in away:
            self.assertTrue(self.kept(name, u), name)
        harness.wait_until(lambda: not any(
            self.kept(n, u) for n in self.cl.nodes if n not in away),
            "the live nodes drop its checkpoints")
        for name in away:
            self.cl.nodes[name].start()
        harness.wait_until(lambda: not any(self.kept(n, u) for n in away),
                           "the nodes back drop its checkpoints")

    def kept(self, name, u):
        """The checkpoint files of u in name's store."""
        return glob.glob(os.path.join(self.cl.nodes[name].dir, "state",
                                      "checkpoints", u + ".*"))

    def test_a_copy_that_does_not_hash_right_is_never_restored(self):
        u, runner, seq, holders = self.start_long_task()
        # Its runner frozen (it makes no newer one), every copy the
        # others keep changed on disk -- same size, other bytes.
        self.cl.nodes[runner].proc.send_signal(signal.SIGSTOP)
        changed = 0
        for h in holders:
            for path in self.kept(h, u):
                with open(path, "r+b") as f:
                    data = f.read()
                    f.seek(0)
                    f.write(data.replace(b"checkpoint ", b"checkpoinT "))
                changed += 1
        self.assertGreaterEqual(changed, 2)
        self.cl.nodes[runner].kill9()
        self.follow_from_a_live_node(u)
        self.c.wait_states({u: "Terminated"})
        node, _ = self.later_run(runner, r"Task UUID\{%s\}: no live node "
                                 r"keeps a good copy of its checkpoint \d+; "
                                 r"it starts from the beginning" % u)
        self.assertNotRegex(node.log(), r"Task UUID\{%s\} name\{import\} "
                            r"(owner\{\S*\} starts from its checkpoint|"
                            r"stderr: import: resumed)" % u)

    def later_run(self, runner, pattern):
        """The node, not runner, whose log has pattern (about the run
        after runner's), and its match.  Not simply the last node that
        started the task: a claim race may have started it twice at
        first, and nodes are listed by name."""
        def found():
            for n, node in self.cl.nodes.items():
                m = n != runner and re.search(pattern, node.log())
                if m:
                    return node, m
            return None
        return harness.wait_until(found, "a later run: " + pattern)

    def test_a_command_with_checkpoint_resumes_from_it(self):
        # Counts to 30, a step each 0.2 s, its count its checkpoint --
        # and 200 kB of zeros, which go compressed.
        script = ('i=0; if [ -n "$VOLERY_CHECKPOINT" ]; then '
                  'i=$(head -n 1 "$VOLERY_CHECKPOINT"); echo "resumed at '
                  '$i" >&2; fi; while [ $i -lt 30 ]; do i=$((i+1)); '
                  'sleep 0.2; { echo $i; head -c 200000 /dev/zero; } > '
                  '"$TMPDIR/ck.tmp"; mv "$TMPDIR/ck.tmp" "$TMPDIR/ck"; '
                  'done; echo counted to $i')
        host = "127.0.0.1:%d" % self.cl.nodes["e"].port
        r = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", host, "run", "--cwd", "/", "--checkpoint",
            "ck", "--", "sh", "-c", script], capture_output=True, text=True,
            timeout=harness.TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        u = r.stdout.strip()
        self.c.ask("SUBSCRIBE " + u)
        self.c.wait_states({u: "Running"})
        # Its count past 10, with copies elsewhere: its node switched off.
        runner = self.runner_with_copies(u, "sh", "1[0-9]")
        node = self.cl.nodes[runner]
        # Stopped, it writes no newer one: the newest gets its copies.
        pid = int(re.findall(r"Task UUID\{%s\} command sh started, pid "
                             r"(\d+)" % u, node.log())[-1])
        os.kill(pid, signal.SIGSTOP)
        newest_copied(node, u, "sh", 2)
        self.assertTrue([p for p in self.kept(runner, u)
                         if p.endswith(".z")], "sent compressed")
        self.cl.nodes[runner].kill9()
        self.follow_from_a_live_node(u)
        self.c.wait_states({u: "Terminated"})
        node, m = self.later_run(runner, r"Task UUID\{%s\} name\{sh\} "
                                 r"owner\{\S*\} starts from its checkpoint "
                                 r"(\d+), made by %s" % (u, runner))
        self.assertGreaterEqual(int(m.group(1)), 10)
        out = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", "127.0.0.1:%d" % node.port, "output",
            "--stderr", u], capture_output=True, text=True,
            timeout=harness.TIMEOUT)
        m = re.search(r"resumed at (\d+)", out.stdout)
        self.assertIsNotNone(m, out)
        self.assertGreaterEqual(int(m.group(1)), 10)


class Vacated(test_volunteer.VolunteerTest):
    """The user back at a for longer than vacate_after_s: the run there
    is stopped, and b runs the task from a's newest checkpoint."""

    setUp = test_volunteer.UserComesBack.setUp
    a_idle_b_busy = test_volunteer.UserComesBack.a_idle_b_busy

    def test_a_vacated_run_resumes_elsewhere_from_its_checkpoint(self):
        self.vacate = 1
        self.a_idle_b_busy()
        a = self.client("a")
        u = a.schedule("import low -p /x -x %s" % params(
            self.cl.nodes["a"].dir, 6000, 300))
        a.ask("SUBSCRIBE " + u)
        while True:         # half its work done on a
            f = a.line(harness.TIMEOUT).split()
            if f[:2] == ["PROGRESS", u] and int(f[2]) >= 50:
                self.assertIn("node=a", f)
                break
        self.cl.nodes["a"].wait_log(r"Task UUID\{%s\} name\{import\} "
                                    r"checkpoint \d+ kept by b too" % u)
        self.assertEqual(self.client("b").ask("IDLE auto"), "OK")
        self.user(0)
        seen = a.wait_states({u: "Terminated"})
        self.assertIn("node=b", seen[-1])
        b = self.cl.nodes["b"]
        b.wait_log(r"Task UUID\{%s\} name\{import\} owner\{\S*\} starts "
                   r"from its checkpoint \d+, made by a" % u)
        m = b.wait_log(r"Task UUID\{%s\} name\{import\} stderr: import: "
                       r"resumed at (\d+)%% from its checkpoint" % u)
        self.assertGreaterEqual(int(m.group(1)), 40)

    def test_a_vacated_command_writes_a_last_checkpoint_first(self):
        # No checkpoint but the one USR1 asks for, before the vacate.
        self.vacate = 1
        self.a_idle_b_busy()
        a = self.client("a")
        script = ('i=0; if [ -n "$VOLERY_CHECKPOINT" ]; then '
                  'i=$(cat "$VOLERY_CHECKPOINT"); echo "resumed at $i" >&2; '
                  'fi; trap \'echo $i > "$TMPDIR/ck.tmp"; mv "$TMPDIR/ck.tmp" '
                  '"$TMPDIR/ck"; exit 0\' USR1; ' + self.counting())
        u = self.vacate_counting(a, script, "--checkpoint", "ck",
                                 "--checkpoint-signal", "USR1")
        self.cl.nodes["a"].wait_log(r"Task UUID\{%s\} name\{sh\} vacated "
                                    r"from a: suspended too long; signal "
                                    r"10 asks a last checkpoint" % u)
        m = re.search(r"resumed at (\d+)", self.output("b", u, "--stderr"))
        self.assertIsNotNone(m)
        self.assertGreaterEqual(int(m.group(1)), 15)
        self.assertIn("counted to 40", self.output("b", u))
        # Vacating is not the task's end, nor its failure.
        self.assertNotIn("attempt 1 of", self.cl.nodes["a"].log())

    def counting(self):
        """A shell loop that counts to 40, a step each 0.1 s, and waits
        at step 20 until vacate_counting lets it go on: the vacate
        finds it mid-count however slow the node (under valgrind a's
        node once took longer to stop it than it took to count on)."""
        self.gate = os.path.join(tempfile.mkdtemp(), "go")
        self.addCleanup(shutil.rmtree, os.path.dirname(self.gate))
        os.chmod(os.path.dirname(self.gate), 0o755)
        return ('while [ $i -lt 40 ]; do i=$((i+1)); echo "step $i"; '
                'if [ $i -eq 20 ]; then while [ ! -e %s ]; do sleep 0.05; '
                'done; fi; sleep 0.1; done; echo counted to $i' % self.gate)

    def vacate_counting(self, a, script, *flags):
        """The command script (with flags; its count from counting())
        runs on a past "step 15", then a's user is back for good and b
        idle: once a has vacated it, the count may go on, and b ends
        it; its uuid."""
        r = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", "127.0.0.1:%d" % self.cl.nodes["a"].port,
            "run", "--cwd", "/"] + list(flags) + ["--", "sh", "-c", script],
            capture_output=True, text=True, timeout=harness.TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        u = r.stdout.strip()
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Running"})
        harness.wait_until(lambda: "step 15" in self.output("a", u),
                           "a counted past 15")
        self.assertEqual(self.client("b").ask("IDLE auto"), "OK")
        self.user(0)
        self.cl.nodes["a"].wait_log(r"Task UUID\{%s\} name\{sh\} vacated "
                                    r"from a" % u)
        open(self.gate, "w").close()
        seen = a.wait_states({u: "Terminated"})
        self.assertIn("node=b", seen[-1])
        return u

    def output(self, node, u, *flags):
        r = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", "127.0.0.1:%d" % self.cl.nodes[node].port,
            "output"] + list(flags) + [u], capture_output=True, text=True,
            timeout=harness.TIMEOUT)
        self.assertEqual(r.returncode, 0, "volery output on %s: %s\n%s" % (
            node, r.stderr, self.cl.nodes[node].log()[-3000:]))
        return r.stdout


CRIU = os.path.join(harness.ROOT, "build", "criu", "criu")


def criu_cannot():
    """Why CRIU cannot run here (tools/build-criu.sh builds it), or None."""
    if os.geteuid() != 0:
        return "CRIU needs a node started as root"
    if not os.access(CRIU, os.X_OK):
        return "no %s (tools/build-criu.sh could not build it)" % CRIU
    r = subprocess.run([CRIU, "check"], capture_output=True, text=True,
                       timeout=harness.TIMEOUT)
    if r.returncode != 0:
        return "criu check: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return None


class Transparent(test_volunteer.VolunteerTest):
    """--checkpoint=auto: at a vacate CRIU dumps the stopped run; another
    node restores the process tree and it goes on where it was."""

    def setUp(self):
        why = criu_cannot()
        if why is not None:
            self.skipTest(why)
        test_volunteer.UserComesBack.setUp(self)
        for n in self.cl.nodes.values():
            with open(n.conf) as f:
                conf = f.read()
            with open(n.conf, "w") as f:
                f.write(conf.replace("</server>", "<criu>%s</criu>\n"
                                     "</server>" % CRIU))

    a_idle_b_busy = test_volunteer.UserComesBack.a_idle_b_busy
    output = Vacated.output
    counting = Vacated.counting
    vacate_counting = Vacated.vacate_counting

    def test_a_vacated_run_goes_on_elsewhere_where_it_was(self):
        self.vacate = 1
        self.a_idle_b_busy()
        for n in "ab":      # both offer it: "volery nodes" says so
            self.assertIn("criu", " ".join(self.nodes_row("a", n)))
        a = self.client("a")
        # Its count lives in the shell's memory only.
        u = self.vacate_counting(a, "i=0; " + self.counting(),
                                 "--checkpoint=auto")
        self.cl.nodes["a"].wait_log(r"Task UUID\{%s\} name\{sh\} pid \d+ "
                                    r"dumped by CRIU" % u)
        # CRIU's pipes were given to the run's user, nothing else (a
        # dump once gave it /dev/null, its stderr).
        self.assertEqual(os.stat("/dev/null").st_uid, 0)
        self.cl.nodes["b"].wait_log(r"Task UUID\{%s\} name\{sh\} restored "
                                    r"by CRIU as pid \d+" % u)
        # b printed only what a had not: the count went on.
        out = self.output("b", u)
        steps = [int(s) for s in re.findall(r"step (\d+)", out)]
        self.assertTrue(steps, "b's output %r; b's log:\n%s" % (
            out, "\n".join(l for l in self.cl.nodes["b"].log().splitlines()
                           if u in l)))
        self.assertGreaterEqual(min(steps), 15)
        self.assertEqual(steps, list(range(min(steps), 41)))
        self.assertIn("counted to 40", out)
        self.assertNotIn("attempt 1 of", self.cl.nodes["a"].log())

    def test_a_dump_that_does_not_restore_starts_from_the_beginning(self):
        # The script the shell reads changes size after the dump: CRIU
        # refuses to restore a file that is not what was open.
        self.vacate = 1
        self.a_idle_b_busy()
        a = self.client("a")
        where = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, where)
        os.chmod(where, 0o755)
        script = os.path.join(where, "count.sh")
        with open(script, "w") as f:
            f.write("i=0; " + self.counting() + "\n")
        os.chmod(script, 0o644)
        r = subprocess.run(harness.WRAP + [
            harness.VOLERY, "-H", "127.0.0.1:%d" % self.cl.nodes["a"].port,
            "run", "--cwd", "/", "--checkpoint=auto", "--", "sh", script],
            capture_output=True, text=True, timeout=harness.TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        u = r.stdout.strip()
        a.ask("SUBSCRIBE " + u)
        a.wait_states({u: "Running"})
        harness.wait_until(lambda: "step 15" in self.output("a", u),
                           "a counted past 15")
        self.user(0)
        self.cl.nodes["a"].wait_log(r"Task UUID\{%s\} name\{sh\} pid \d+ "
                                    r"dumped by CRIU" % u)
        with open(script, "w") as f:
            f.write('echo "from the beginning"; i=0; while [ $i -lt 3 ]; '
                    'do i=$((i+1)); echo "step $i"; done\n')
        self.assertEqual(self.client("b").ask("IDLE auto"), "OK")
        seen = a.wait_states({u: "Terminated"})
        self.assertIn("node=b", seen[-1])
        self.cl.nodes["b"].wait_log(r"Task UUID\{%s\} name\{sh\}: its "
                                    r"transparent checkpoint did not "
                                    r"restore: CRIU: .*; it starts again" % u)
        self.assertEqual(self.output("b", u).split("\n")[:2],
                         ["from the beginning", "step 1"])


class NoCriu(unittest.TestCase):
    """Where CRIU cannot run, a transparent checkpoint's task waits for a
    node that can, and says so; the node's log says why it cannot."""

    def test_it_waits_for_a_node_that_offers_criu(self):
        cl = Cluster(("a",), extra="<criu>/nonexistent/criu</criu>").start()
        self.addCleanup(cl.cleanup)
        cl.master()
        a = cl.nodes["a"]
        a.wait_log(r"transparent checkpoints \(--checkpoint=auto\) are off "
                   r"here: no criu at /nonexistent/criu")
        host = ["-H", "127.0.0.1:%d" % a.port]

        def run(*args):
            return subprocess.run(harness.WRAP + [harness.VOLERY] + host +
                                  ["run", "--cwd", "/"] + list(args) +
                                  ["--", "true"], capture_output=True,
                                  text=True, timeout=harness.TIMEOUT)
        r = run("--checkpoint=auto")
        self.assertEqual(r.returncode, 0, r.stderr)
        u = r.stdout.strip()
        out = subprocess.run(harness.WRAP + [harness.VOLERY] + host +
                             ["tasks", "--state", "Ready"],
                             capture_output=True, text=True,
                             timeout=harness.TIMEOUT).stdout
        self.assertRegex(out, u + r".*waiting: no live node has tag criu")
        # A dump needs no signal: asking for one is an error.
        r = run("--checkpoint=auto", "--checkpoint-signal", "USR1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not auto", r.stderr)


if __name__ == "__main__":
    unittest.main()

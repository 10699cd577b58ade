"""One node, end to end, over the client protocol (issue 2)."""
import os
import re
import socket
import subprocess
import threading
import time
import unittest
import zlib

import harness

from harness import (Node, VOLERY, TIMEOUT, params_file, schedule_workflow,
                     alive, outputs_of, started_args, wait_until)


class NodeTest(unittest.TestCase):
    slots = 1
    extra = ""

    def setUp(self):
        self.node = Node(slots=self.slots, extra=self.extra).start()
        self.addCleanup(self.node.cleanup)
        self.c = self.node.client()
        self.addCleanup(self.c.close)
        self.fast = params_file(self.node.dir, 100)

    def stop_cleanly(self):
        self.c.close()
        self.node.stop()


class Workflow(NodeTest):
    def test_workflow_completes_with_outputs_bound(self):
        i, g, s, a = schedule_workflow(self.c, self.fast)
        self.c.ask("SUBSCRIBE %s %s %s %s" % (i, g, s, a))
        seen = self.c.wait_states({u: "Terminated" for u in (i, g, s, a)})
        oi, og, os_ = (outputs_of(seen, u) for u in (i, g, s))
        self.assertEqual(len(oi), 3)
        self.assertEqual(len(og), 2)
        # Every input is the right output of the right task (Table 4.1).
        self.assertEqual(started_args(self.node, g),
                         [" -i %s -i %s -i %s -x %s" % (oi[0], oi[1], oi[2], self.fast)])
        self.assertEqual(started_args(self.node, s),
                         [" -i %s -i %s -i %s -x %s" % (oi[0], og[0], og[1], self.fast)])
        self.assertEqual(started_args(self.node, a),
                         [" -i %s -x %s" % (os_[0], self.fast)])
        self.assertEqual(started_args(self.node, i),
                         [" -p /data/inspection-42 -x %s" % self.fast])
        # Subscribers saw each state in order, and progress as it went:
        # the last task's (on a loaded host the import may have ended and
        # the georeferencing started before the SUBSCRIBE was read).
        states = [l.split()[3] for l in seen if l.split()[1] == a]
        self.assertEqual(states[0], "Submitted")
        self.assertIn("Ready", states)
        self.assertLess(states.index("Ready"), states.index("Running"))
        # Progress as it went: a task not yet running when we subscribed
        # (its first line, the snapshot, is not Running) shows its 50 %.
        # The import may be past 50 % by then on a slow host.
        def first_state(u):
            return next(l.split()[3] for l in seen if l.split()[1] == u)
        later = [u for u in (i, g, s, a)
                 if first_state(u) not in ("Running", "Terminated")]
        self.assertIn(a, later)
        for u in later:
            self.assertTrue(any(l.split()[1] == u and l.split()[2] == "50"
                                for l in seen), u)
        tasks = self.c.tasks()
        for u in (i, g, s, a):
            self.assertEqual(tasks[u][2:4], ("Terminated", "100"))
            self.assertEqual(tasks[u][5], "alpha")
        # The log names waiting time and makespan at termination.
        self.node.wait_log(r"Task\(UUID\{%s\} name\{anomaly_detection\} priority\{low\} "
                           r"state\{Terminated\} ScheduledBy\{alpha\} ExecutedBy\{alpha\}\) "
                           r"WaitingTimeOnQueue\{[\d.]+s\} makespan\{[\d.]+s\}" % a)
        self.stop_cleanly()

    def test_interactive_overtakes_queued_low(self):
        slow = params_file(self.node.dir, 400)
        first = self.c.schedule("import low -p /a -x %s" % slow)
        lows = [self.c.schedule("import low -p /b%d -x %s" % (k, self.fast))
                for k in range(3)]
        hot = self.c.schedule("import interactive -p /hot -x %s" % self.fast)
        everyone = [first] + lows + [hot]
        self.c.ask("SUBSCRIBE " + " ".join(everyone))
        seen = self.c.wait_states({u: "Terminated" for u in everyone})
        order = []
        for l in seen:
            f = l.split()
            if f[3] == "Running" and f[1] not in order:
                order.append(f[1])
        self.assertEqual(order, [first, hot] + lows)

    def test_subscribe_late_gets_current_state(self):
        u = self.c.schedule("import low -p /x -x %s" % self.fast)
        other = self.node.client()
        self.addCleanup(other.close)
        other.ask("SUBSCRIBE %s" % u)
        other.wait_states({u: "Terminated"})
        # Subscribing after the end still says how it ended.
        late = self.node.client()
        self.addCleanup(late.close)
        self.assertEqual(late.ask("SUBSCRIBE %s" % u), "SUBSCRIBED %s" % u)
        self.assertRegex(late.line(), r"^PROGRESS %s 100 Terminated node=alpha "
                         r"attempt=1 outputs=\d+,\d+,\d+ waited=\d+\.\d{3} "
                         r"makespan=\d+\.\d{3}$" % u)

    def test_help_nodes_quit(self):
        help_lines = self.c.ask_multi("help")
        self.assertTrue(any("SCHEDULE" in l for l in help_lines))
        # Alone, the node elects itself master once nobody answers.
        self.node.wait_log(r"I won the master election \(epoch 1\)")
        nodes = self.c.ask_multi("NODES")
        self.assertEqual(len(nodes), 1)
        self.assertRegex(nodes[0], r"^NODE alpha 127\.0\.0\.1:%d master dedicated 1/1 10 "
                         r"cores=\d+ memory=\d+ tags=linux,\S+ contain=(cgroup\S*|"
                         r"subreaper|process-group)$" % self.node.port)
        self.assertEqual(self.c.ask("QUIT"), "BYE")
        with self.assertRaises(EOFError):
            self.c.line()


class DescriptionAdded(NodeTest):
    def test_a_task_description_added_after_start_runs(self):
        # The node reads its descriptions at start and lets the XML
        # library go (xmllazy.h); one added later is read then.
        self.node.wait_log(r"I won the master election")
        d = os.path.join(self.node.dir, "tasks")
        with open(os.path.join(d, "import.xml")) as f:
            text = f.read()
        self.assertIn("<name>import</name>", text)
        with open(os.path.join(d, "later.xml"), "w") as f:
            f.write(text.replace("<name>import</name>", "<name>later</name>"))
        os.link(os.path.join(d, "import"), os.path.join(d, "later"))
        u = self.c.schedule("later low -p /x -x %s" % self.fast)
        self.c.ask("SUBSCRIBE %s" % u)
        seen = self.c.wait_states({u: "Terminated"})
        self.assertEqual(len(outputs_of(seen, u)), 3)
        self.stop_cleanly()


class Cancel(NodeTest):
    # The grace a task has to end on its CANCEL before its SIGTERM: under
    # valgrind, on a loaded host, the node reads the cooperative task's
    # exit later than 150 ms.
    extra = "<cancel_grace_ms>%d</cancel_grace_ms>" % (
        1500 if harness.WRAP else 150)

    def test_cancel_kills_process_group_and_cascades(self):
        s = self.c.schedule("stubborn low")
        down = self.c.schedule("sink low -a %s 1" % s)
        further = self.c.schedule("sink interactive -a %s 1" % down)
        self.c.ask("SUBSCRIBE %s %s %s" % (s, down, further))
        self.c.wait_states({s: "Running"})
        m = self.node.wait_log(r"stubborn: pid (\d+) child (\d+)")
        pids = [int(m.group(1)), int(m.group(2))]
        self.assertEqual(self.c.ask("CANCEL %s" % s), "CANCELLED %s" % s)
        seen = self.c.wait_states({s: "Cancelled", down: "Cancelled",
                                   further: "Cancelled"})
        self.assertTrue(any(("reason=upstream-cancelled:%s" % s) in l for l in seen))
        # CANCEL, then SIGTERM (ignored), then SIGKILL to the group.
        self.node.wait_log(r"ignored SIGTERM; SIGKILL")
        self.node.wait_log(r"Task UUID\{%s\} name\{stubborn\} pid \d+ ended: killed by signal 9" % s)
        for pid in pids:
            self.assertFalse(alive(pid), "pid %d survived the cancel" % pid)
        tasks = self.c.tasks()
        self.assertEqual([tasks[u][2] for u in (s, down, further)], ["Cancelled"] * 3)
        self.assertEqual(self.c.ask("CANCEL %s" % s),
                         "ERROR task %s is already Cancelled" % s)
        # The slot is free again: a new task runs.
        u = self.c.schedule("import low -p /x -x %s" % self.fast)
        self.c.ask("SUBSCRIBE %s" % u)
        self.c.wait_states({u: "Terminated"})
        self.stop_cleanly()

    def test_cancel_of_cooperative_task(self):
        slow = params_file(self.node.dir, 5000)
        u = self.c.schedule("import low -p /x -x %s" % slow)
        self.c.ask("SUBSCRIBE %s" % u)
        self.c.wait_states({u: "Running"})
        self.assertEqual(self.c.ask("CANCEL %s" % u), "CANCELLED %s" % u)
        self.node.wait_log(r"Task UUID\{%s\} name\{import\} pid \d+ ended: exit status 0" % u)
        self.assertNotIn("SIGTERM", self.node.log())


class Retry(NodeTest):
    extra = "<max_attempts>3</max_attempts>"

    def test_crash_is_retried_then_failed(self):
        u = self.c.schedule("crasher low")
        down = self.c.schedule("sink low -a %s 1" % u)
        self.c.ask("SUBSCRIBE %s %s" % (u, down))
        seen = self.c.wait_states({u: "Failed", down: "Failed"})
        self.assertEqual(len(started_args(self.node, u)), 3)
        self.assertEqual(started_args(self.node, down), [])
        final = [l for l in seen if l.split()[1] == u][-1]
        self.assertRegex(final, r"Failed node=alpha attempt=3 waited=[\d.]+ "
                         r"makespan=[\d.]+ reason=attempts-exhausted "
                         r"\(3\): exited with status 3 without TERMINATED$")
        self.node.wait_log(r"Task UUID\{%s\} name\{crasher\} stderr: crasher: giving up" % u)
        self.assertEqual(self.c.tasks()[down][2], "Failed")


class BadInput(NodeTest):
    def test_every_bad_request_gets_error_and_changes_nothing(self):
        # Another client's workflow runs all along and must complete.
        other = self.node.client()
        self.addCleanup(other.close)
        slow = params_file(self.node.dir, 300)
        wf = schedule_workflow(other, slow)
        other.ask("SUBSCRIBE " + " ".join(wf))
        i = wf[0]
        before = self.c.tasks()
        ghost = "00000000-0000-4000-8000-000000000000"
        bad = {
            "FROB": "ERROR unknown command 'FROB' (try HELP)",
            "SCHEDULE": "ERROR usage: SCHEDULE",
            "SCHEDULE nosuch low": "ERROR unknown executable 'nosuch'",
            "SCHEDULE ghost low": "ERROR unknown executable 'ghost'",
            "SCHEDULE ../tasks/import low -p /x": "ERROR bad executable name",
            "SCHEDULE /bin/sh low": "ERROR bad executable name",
            "SCHEDULE import low": "ERROR import needs -p <path>",
            "SCHEDULE import soon -p /x": "ERROR bad priority",
            "SCHEDULE georeferencing low -a %s 1" % i: "ERROR georeferencing takes 3 inputs",
            "SCHEDULE georeferencing low -a %s 1 -a %s 2 -a %s 4" % (i, i, i):
                "ERROR input 3: import has no output 4",
            "SCHEDULE georeferencing low -a %s 1 -a %s 2 -a %s 3" % (i, i, ghost):
                "ERROR input 3: unknown task %s" % ghost,
            "SCHEDULE anomaly_detection low -a %s 1" % i:
                "ERROR input 1 of anomaly_detection must come from a segmentation task",
            "SCHEDULE import low -p /x -a not-a-uuid 1": "ERROR malformed uuid 'not-a-uuid'",
            "SUBSCRIBE %s" % ghost: "ERROR unknown task %s" % ghost,
            "SUBSCRIBE %s %s" % (i, ghost): "ERROR unknown task %s" % ghost,
            "SUBSCRIBE 12345": "ERROR malformed uuid '12345'",
            "CANCEL %s" % ghost: "ERROR unknown task %s" % ghost,
            "CANCEL": "ERROR usage: CANCEL <uuid>",
            "TASKS Dancing": "ERROR unknown state",
            "\x00\x01\x02\xff\xfe": "ERROR",
        }
        for line, want in bad.items():
            got = self.c.ask(line)
            self.assertTrue(got.startswith(want), "%r -> %r, want %r" % (line, got, want))
        # An over-long line, then a good one on the same connection.
        self.c.send("SCHEDULE " + "A" * 5000 + "\n")
        self.assertEqual(self.c.line(), "ERROR line too long")
        self.c.send("B" * 100000 + "\nNODES\n")
        self.assertEqual(self.c.line(), "ERROR line too long")
        self.assertTrue(self.c.line().startswith("NODE alpha"))
        self.assertEqual(self.c.line(), ".")
        # Random binary garbage with newlines: an ERROR per line, no crash.
        garbage = bytes((k * 7919 + 13) % 256 for k in range(3000))
        self.c.send(garbage + b"\n")
        nlines = garbage.count(b"\n") + 1
        for _ in range(nlines):
            l = self.c.line()
            self.assertTrue(l.startswith("ERROR"), l)
        # A client that leaves mid-line.
        s = socket.create_connection(("127.0.0.1", self.node.port))
        s.sendall(b"SCHEDULE import low -p /half")
        s.close()
        # Nothing changed: same tasks (states may advance), none added.
        self.assertEqual(set(self.c.tasks()), set(before))
        other.wait_states({u: "Terminated" for u in wf})
        self.assertEqual(self.c.ask("SUBSCRIBE %s" % i), "SUBSCRIBED %s" % i)
        self.stop_cleanly()

    def test_many_clients_at_once(self):
        uuids, errors = [], []

        def one(k):
            try:
                c = self.node.client()
                uuids.append(c.schedule("import low -p /c%d -x %s" % (k, self.fast)))
                c.close()
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=one, args=(k,)) for k in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(set(uuids)), 40)
        self.assertEqual(set(self.c.tasks()), set(uuids))


class Durability(unittest.TestCase):
    def setUp(self):
        self.node = Node(slots=1)
        self.addCleanup(self.node.cleanup)

    def test_kill9_mid_workflow_then_restart_finishes(self):
        self.node.start()
        c = self.node.client()
        params = params_file(self.node.dir, 400)
        wf = schedule_workflow(c, params)
        i, g, s, a = wf
        c.ask("SUBSCRIBE " + " ".join(wf))
        c.wait_states({g: "Running"})
        self.node.kill9()
        c.close()
        self.node.start()
        self.node.wait_log(r"Task UUID\{%s\} name\{georeferencing\} was Running on alpha "
                           r"when the node stopped; back to Ready" % g)
        c = self.node.client()
        self.addCleanup(c.close)
        c.ask("SUBSCRIBE " + " ".join(wf))
        c.wait_states({u: "Terminated" for u in wf})
        # The finished import did not run again; georeferencing ran twice.
        self.assertEqual(len(started_args(self.node, i)), 1)
        self.assertEqual(len(started_args(self.node, g)), 2)
        self.assertEqual(len(started_args(self.node, a)), 1)
        c.close()
        self.node.stop()

    def test_scheduled_means_durable(self):
        self.node.start()
        c = self.node.client()
        u = c.schedule("import low -p /x -x %s" % params_file(self.node.dir, 60000))
        self.node.kill9()
        c.close()
        self.node.start()
        c = self.node.client()
        self.addCleanup(c.close)
        self.assertIn(u, c.tasks())

    def test_corrupt_journal_tail_is_reported_and_rest_loaded(self):
        self.node.start()
        c = self.node.client()
        p = params_file(self.node.dir, 50)
        done = [c.schedule("import low -p /x%d -x %s" % (k, p)) for k in range(3)]
        c.ask("SUBSCRIBE " + " ".join(done))
        c.wait_states({u: "Terminated" for u in done})
        c.close()
        self.node.stop()
        journal = os.path.join(self.node.dir, "state", "journal")
        with open(journal, "ab") as f:
            f.write(b"deadbeef v=1 id=torn-recor")
        self.node.start()
        self.node.wait_log(r"journal .*: line \d+ is truncated")
        c = self.node.client()
        self.addCleanup(c.close)
        tasks = c.tasks()
        self.assertEqual({u: tasks[u][2] for u in done}, {u: "Terminated" for u in done})
        self.assertTrue(os.path.exists(journal + ".bad"))
        # A flipped byte in the middle loses that record only: the
        # records after it are intact and load.
        c.close()
        self.node.stop()
        with open(journal, "rb") as f:
            data = bytearray(f.read())
        second = data.index(b"\n") + 1
        data[second + 20] ^= 0x20
        # And a record whose checksum holds but which does not decode
        # (a field out of range) before the last one.
        lines = bytes(data).split(b"\n")
        payload = b"v=1 id=%s exec=import att=-1" % done[0].encode()
        lines.insert(len(lines) - 2, b"%08x %s" % (zlib.crc32(payload), payload))
        with open(journal, "wb") as f:
            f.write(b"\n".join(lines))
        self.node.start()
        self.node.wait_log(r"journal .*: line 2 fails its checksum; skipped")
        self.node.wait_log(r"journal .*: line 3: bad attempts; skipped")
        c = self.node.client()
        tasks = c.tasks()
        self.assertEqual(len(tasks), 2)
        self.assertTrue(all(t[2] == "Terminated" for t in tasks.values()))
        c.close()
        self.node.stop()


class Stay(unittest.TestCase):
    """A desktop switched off keeps what it learned of how long it
    volunteers and how fast it is: state/stay holds its periods, the
    current one's start and its speed, its modification time says when
    the node was last up, and the next start learns the period the
    switch-off ended.  A file it did not write is said so and changes
    nothing."""

    def setUp(self):
        self.node = Node(slots=1)
        self.addCleanup(self.node.cleanup)
        self.path = os.path.join(self.node.dir, "state", "stay")

    def kept(self):
        try:
            with open(self.path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def test_the_period_a_switch_off_ended_counts_after_the_restart(self):
        self.node.start()
        start = wait_until(lambda: re.fullmatch(r"\d+", self.kept()),
                           "the node never kept its volunteer period")
        self.assertLess(abs(int(start.group(0)) - time.time() * 1000), 60000)
        self.node.kill9()
        # As if it had been up five minutes, last stamped a minute ago.
        now = time.time()
        with open(self.path, "w") as f:
            f.write("%d 3600 7200 speed=850" % ((now - 300) * 1000))
        os.utime(self.path, (now - 60, now - 60))
        self.node.start()
        self.node.wait_log(r"node alpha knows 3 volunteer periods from "
                           r"before its restart, the last ended by the "
                           r"stop, and its speed 0\.85")
        # Kept on: the file written again holds all it knows (it once
        # held the new period's start alone until that period ended).
        wait_until(lambda: re.fullmatch(r"\d+ 3600 7200 \d+ speed=850",
                                        self.kept()),
                   "the node kept only part of what it knows")
        self.node.kill9()
        with open(self.path, "w") as f:
            f.write("-1 3600 seven")
        self.node.start()
        self.node.wait_log(r"node alpha: what it kept of its volunteer "
                           r"periods is not what it wrote; it learns them anew")
        self.assertNotIn("knows 1 volunteer", self.node.log())


class Retention(unittest.TestCase):
    """Finished tasks leave the map after retention_s, into the history."""

    def test_finished_tasks_move_to_the_history(self):
        node = Node(name="ret", extra="<node_timeout_ms>1000</node_timeout_ms>"
                    "<membership_timeout_s>1</membership_timeout_s>"
                    "<retention_s>1</retention_s>")
        self.addCleanup(node.cleanup)
        node.start()
        c = node.client()
        wf = schedule_workflow(c, params_file(node.dir, 50))
        c.ask("SUBSCRIBE " + " ".join(wf))
        c.wait_states({u: "Terminated" for u in wf})
        # Upstream tasks leave no earlier than their dependents' end.
        for u in wf:
            node.wait_log(r"Task UUID\{%s\} name\{\w+\} Terminated, ended over "
                          r"the retention period ago: moved to the history" % u)
        self.assertFalse(set(wf) & set(c.tasks()))
        history = c.ask_multi("HISTORY")
        self.assertEqual([l.split()[1] for l in history], list(wf))
        self.assertTrue(all(l.split()[4] == "Terminated" for l in history), history)
        self.assertEqual(c.ask_multi("HISTORY Failed"), [])
        r = subprocess.run([VOLERY, "-H", "127.0.0.1:%d" % node.port, "tasks",
                            "--history"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(all(u in r.stdout for u in wf), r.stdout)
        # Watching a retired task tells how it ended.
        r = subprocess.run([VOLERY, "-H", "127.0.0.1:%d" % node.port, "watch",
                            wf[3]], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 of 1 terminated", r.stdout)
        c.close()
        # A restart (the journal may still hold them): gone from the map,
        # each once in the history.
        node.stop()
        node.start()
        c = node.client()
        self.addCleanup(c.close)
        self.assertFalse(set(wf) & set(c.tasks()))
        self.assertEqual([l.split()[1] for l in c.ask_multi("HISTORY")], list(wf))
        c.close()
        node.stop()


class Config(unittest.TestCase):
    def run_check(self, text):
        node = Node()
        self.addCleanup(node.cleanup)
        with open(node.conf, "w") as f:
            f.write(text)
        return subprocess.run([VOLERY, "serve", "-c", node.conf], capture_output=True,
                              text=True, timeout=20), node.conf

    def test_errors_name_file_line_element_and_refuse_start(self):
        r, conf = self.run_check("<server>\n  <slots>lots</slots>\n"
                                 "  <listen>127.0.0.1</listen>\n  <colour>red</colour>\n"
                                 "  <batch days=\"someday\" from=\"19:00\" to=\"07:30\"/>\n"
                                 "  <order>random</order>\n"
                                 "  <batch from=\"19:00\" to=\"07:30\" order=\"sjf\"/>\n"
                                 "  <placement>smart</placement>\n"
                                 "</server>\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s:2: <slots>: expected a whole number from 1 to 256, got 'lots'" % conf,
                      r.stderr)
        self.assertIn("%s:3: <listen>: expected ADDRESS:PORT" % conf, r.stderr)
        self.assertIn("%s:4: <colour>: unknown element" % conf, r.stderr)
        self.assertIn("%s:5: <batch>: days=\"someday\"" % conf, r.stderr)
        self.assertIn("%s:6: <order>: expected fcfs, lret, sret or fairshare, "
                      "got 'random'" % conf, r.stderr)
        self.assertIn("%s:7: <batch>: order=\"sjf\": expected fcfs, lret, "
                      "sret or fairshare" % conf, r.stderr)
        self.assertIn("%s:8: <placement>: expected informed, blind or fit, got 'smart'" % conf,
                      r.stderr)
        self.assertIn("not starting", r.stderr)

    def test_relays_are_addresses_and_need_a_key(self):
        r, conf = self.run_check("<server>\n  <insecure/>\n"
                                 "  <relay>10.0.2.7:7601</relay>\n"
                                 "  <relay>floor2</relay>\n"
                                 "  <relay>10.0.2.8:0</relay>\n"
                                 "</server>\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s:4: <relay>: expected an IPv4 ADDRESS[:PORT]" % conf,
                      r.stderr)
        self.assertIn("%s:5: <relay>: expected an IPv4" % conf, r.stderr)
        self.assertIn("%s:1: <relay>: needs a cluster key (<keyring>)" % conf,
                      r.stderr)
        self.assertNotIn(":3: <relay>", r.stderr)

    def test_retention_shorter_than_the_membership_timeout(self):
        r, conf = self.run_check("<server>\n  <retention_s>60</retention_s>\n"
                                 "</server>\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s:1: <retention_s>: must be 0 (keep forever) or at "
                      "least membership_timeout_s (600 s)" % conf, r.stderr)

    def test_malformed_xml(self):
        r, conf = self.run_check("<server>\n<slots>2</slot>\n</server>\n")
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, re.escape(conf) + r":2: .*slot")

    def test_check_only(self):
        node = Node()
        self.addCleanup(node.cleanup)
        r = subprocess.run([VOLERY, "serve", "-n", "-c", node.conf], capture_output=True,
                           text=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)


if __name__ == "__main__":
    unittest.main()


class DiskFull(unittest.TestCase):
    """A full disk: SCHEDULE says it is not durable, and once there is room
    again the journal is rewritten whole, so nothing is lost."""

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to mount a tmpfs")
        self.node = Node(extra="")
        self.addCleanup(self.node.cleanup)
        self.state = os.path.join(self.node.dir, "state")
        os.makedirs(self.state)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", self.state],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest("cannot mount a tmpfs: " + r.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", "-l", self.state])

    def test_disk_full_then_room_again(self):
        self.node.start()
        c = self.node.client()
        self.addCleanup(c.close)
        slow = params_file(self.node.dir, 60000)
        # The journal is empty now: fill every page of the file system.
        fill = os.path.join(self.state, "fill")
        with open(fill, "wb") as f:
            try:
                f.write(b"\0" * 200000)
            except OSError:
                pass
        reply = c.ask("SCHEDULE import low -p /b -x %s" % slow)
        self.assertRegex(reply, r"^ERROR the journal could not be written .*not durable: "
                         r"SCHEDULED [0-9a-f-]{36}$")
        lost = reply.split()[-1]
        self.node.wait_log(r"No space left on device")
        os.unlink(fill)
        third = c.schedule("import low -p /c -x %s" % slow)
        self.node.wait_log(r"rewritten whole; every task is durable again")
        self.node.kill9()
        self.node.start()
        c2 = self.node.client()
        self.addCleanup(c2.close)
        self.assertEqual(set(c2.tasks()), {lost, third})


class Reputation(unittest.TestCase):
    def test_unclean_stop_costs_one_clean_stop_keeps(self):
        node = Node(extra="<reputation>7</reputation>")
        self.addCleanup(node.cleanup)
        node.start()
        node.stop()
        node.start()
        node.wait_log(r"listening on")
        self.assertNotIn("not clean", "".join(node.stderr))
        node.kill9()
        node.start()
        node.wait_log(r"the last stop was not clean: reputation now 6")
        c = node.client()
        self.addCleanup(c.close)
        node.wait_log(r"I won the master election")
        self.assertEqual(c.ask_multi("NODES")[0].split()[6], "6")

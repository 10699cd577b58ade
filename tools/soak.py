#!/usr/bin/env python3
"""A soak on a real LAN (make soak; not part of make test).

  python3 tools/soak.py [--minutes 3] [--seed 1] [--hosts 7]

Seven nodes, one per network namespace on a bridge.  For the given time,
workflows of several shapes are scheduled on random nodes (some cancelled
at random moments), while random faults hit the pool: kill -9 (the master
too, and a node right after it answered SCHEDULED) and restarts, 10-30 %
datagram loss, a host's veth down, the bridge split in two groups,
SIGSTOP pauses.  Then everything heals and the soak checks, on every
node, every task it was told SCHEDULED for:

  lost       a node does not know it, or it never ends
  divergent  nodes disagree on its end (state or runner)
  wrongly bound  a result ran on inputs other than its upstream's outputs
  withdrawn  a subscriber was told it final, then something else
  starts beyond one per task, split by why:
    duplicates  two runs at once, one stopped by the duplicate rule
                (target <= 5 % of the tasks that ran)
    reruns      after the run's node was killed, paused or cut off, a
                crashed attempt, a vacate: the run was lost, not doubled

Exit status 1 if any of the first four is not 0.  Needs root (ip, nft).
"""
import argparse
import collections
import os
import random
import re
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "integration"))
import harness  # noqa: E402
import lan  # noqa: E402
from harness import FAST_CLUSTER, params_file, started_args  # noqa: E402

FINAL = ("Terminated", "Cancelled", "Failed")
TIMING = "\n".join(l for l in (FAST_CLUSTER % 7601).splitlines()
                   if "peer_port" not in l) + "\n  <log_level>info</log_level>"


class Watcher(threading.Thread):
    """A subscriber on one node: what it is told, line by line."""

    def __init__(self, soak, name):
        super().__init__(daemon=True)
        self.soak, self.name = soak, name
        self.client = soak.nodes[name].client()
        self.told = {}          # uuid -> the final line's (state, node, outputs)

    def subscribe(self, uuids):
        for u in uuids:
            try:
                self.client.send("SUBSCRIBE %s\n" % u)
            except OSError:
                return

    def run(self):
        while True:
            try:
                line = self.client.line(timeout=3600)
            except (EOFError, OSError, AssertionError):
                return
            f = line.split()
            if len(f) < 4 or f[0] != "PROGRESS":
                continue
            u, state = f[1], f[3]
            kv = dict(x.split("=", 1) for x in f[4:] if "=" in x)
            end = (state, kv.get("node", ""), kv.get("outputs", ""))
            with self.soak.lock:
                if u in self.told and self.told[u] != end:
                    self.soak.withdrawn.append((self.name, u, self.told[u], end))
                if state in FINAL:
                    self.told.setdefault(u, end)
                    self.soak.final_outputs.setdefault(u, kv.get("outputs", ""))
                    self.soak.finals[u].add(end)


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.lan = lan.Lan(args.hosts)
        self.cluster = "soak%d" % os.getpid()
        self.nodes, self.watchers, self.paused = {}, {}, set()
        self.acked = []                 # (uuid, inputs as [(uuid, nth)])
        self.lock = threading.Lock()
        self.withdrawn = []
        self.final_outputs = {}
        self.finals = collections.defaultdict(set)     # every end told final
        self.faults = collections.Counter()
        self.split = False

    # ---- nodes ---------------------------------------------------------
    def start(self, k):
        name = "h%d" % k
        node = self.nodes.get(name) or self.lan.node(k, name, self.cluster, TIMING)
        node.start()
        self.nodes[name] = node
        w = Watcher(self, name)
        w.start()
        self.watchers[name] = w
        # After a restart: the tasks acknowledged so far it knows.
        known = set(node.client().tasks())
        w.subscribe([u for u, _ in self.acked if u in known])
        return node

    def live(self):
        return sorted(n for n, node in self.nodes.items()
                      if node.proc.poll() is None and n not in self.paused)

    def ask(self, name, request):
        c = self.nodes[name].client()
        try:
            return c.ask(request)
        finally:
            c.close()

    # ---- work ----------------------------------------------------------
    def schedule(self, name, line, inputs):
        reply = self.ask(name, "SCHEDULE " + line)
        if not reply.startswith("SCHEDULED "):
            return None
        u = reply.split()[1]
        self.acked.append((u, inputs))
        self.watchers[name].subscribe([u])
        return u

    def work(self, name):
        """One DAG, of a random shape, on node name."""
        p = self.params[self.rng.choice((100, 300, 800))]
        i = self.schedule(name, "import low -p /soak -x %s" % p, [])
        if i is None or self.rng.random() < 0.2:
            return
        fan = 1 if self.rng.random() < 0.6 else 2       # chain or fan-out
        for _ in range(fan):
            g = self.schedule(name, "georeferencing low -a %s 1 -a %s 2 -a %s 3 -x %s"
                              % (i, i, i, p), [(i, 1), (i, 2), (i, 3)])
            if g is None:
                return
            s = self.schedule(name, "segmentation interactive -a %s 1 -a %s 1 -a %s 2 -x %s"
                              % (i, g, g, p), [(i, 1), (g, 1), (g, 2)])
            if s is None:
                return
            self.schedule(name, "anomaly_detection low -a %s 1 -x %s" % (s, p), [(s, 1)])

    # ---- faults --------------------------------------------------------
    def fault(self):
        kind = self.rng.choice(("kill", "kill_master", "kill_after_schedule",
                                "loss", "veth", "split", "pause", "cancel"))
        live = self.live()
        if len(live) < 3 and kind.startswith("kill"):
            kind = "loss"
        self.faults[kind] += 1
        if kind == "kill":
            self.kill_restart(self.rng.choice(live))
        elif kind == "kill_master":
            m = self.master_of(live)
            if m:
                self.kill_restart(m)
        elif kind == "kill_after_schedule":
            n = self.rng.choice(live)
            self.work(n)
            self.kill_restart(n)
        elif kind == "loss":
            self.lan.loss(self.rng.choice((10, 20, 30)))
            self.later(self.rng.uniform(1, 4), lambda: self.lan.loss(0))
        elif kind == "veth":
            k = self.rng.choice(self.lan.hosts)
            self.lan.cut(k)
            self.later(self.rng.uniform(1, 5), lambda: self.lan.heal(k))
        elif kind == "split" and not self.split:
            hosts = list(self.lan.hosts)
            self.rng.shuffle(hosts)
            cut = len(hosts) // 2 - (self.rng.random() < 0.5)
            self.split_groups(hosts[:cut], hosts[cut:])
            self.later(self.rng.uniform(2, 6), self.unsplit)
        elif kind == "pause":
            n = self.rng.choice(live)
            self.nodes[n].proc.send_signal(signal.SIGSTOP)
            self.paused.add(n)
            self.later(self.rng.uniform(0.5, 4), lambda: self.resume(n))
        elif kind == "cancel" and self.acked:
            u, _ = self.rng.choice(self.acked)
            # Its answer waits for a majority: send it and go on.
            c = self.nodes[self.rng.choice(live)].client()
            c.send("CANCEL %s\n" % u)
            c.close()

    def master_of(self, live):
        for n in live:
            try:
                c = self.nodes[n].client()
                rows = c.ask_multi("NODES")
                c.close()
            except (AssertionError, OSError, EOFError):
                continue
            for r in rows:
                f = r.split()
                if len(f) > 3 and f[3] == "master" and f[1] in live:
                    return f[1]
        return None

    def kill_restart(self, name):
        self.nodes[name].kill9()
        self.later(self.rng.uniform(1, 5), lambda: self.start(int(name[1:])))

    def resume(self, name):
        if self.nodes[name].proc.poll() is None:
            self.nodes[name].proc.send_signal(signal.SIGCONT)
        self.paused.discard(name)

    def split_groups(self, a, b):
        self.split = True
        for side, other in ((a, b), (b, a)):
            addrs = ", ".join(self.lan.addr(k) for k in other)
            for k in side:
                rules = ("table inet soaksplit {\n chain input {\n"
                         "  type filter hook input priority 0;\n"
                         "  ip saddr { %s } drop\n }\n}\n" % addrs)
                lan.subprocess.run(["ip", "netns", "exec", self.lan.ns(k), "nft", "-f", "-"],
                                   input=rules, capture_output=True, text=True)

    def unsplit(self):
        for k in self.lan.hosts:
            lan.sh("ip", "netns", "exec", self.lan.ns(k), "nft", "delete", "table",
                   "inet", "soaksplit", check=False)
        self.split = False

    def later(self, delay, fn):
        self.pending.append((time.monotonic() + delay, fn))

    def run_pending(self, all_now=False):
        now = time.monotonic()
        due = [p for p in self.pending if all_now or p[0] <= now]
        self.pending = [p for p in self.pending if p not in due]
        for _, fn in sorted(due, key=lambda p: p[0]):
            try:
                fn()
            except Exception as e:      # a restart that failed: say so
                print("soak: %s" % e, file=sys.stderr)

    # ---- the soak ------------------------------------------------------
    def run(self):
        self.pending = []
        for k in self.lan.hosts:
            self.start(k)
        d = self.nodes["h0"].dir
        self.params = {ms: params_file(d, ms) for ms in (100, 300, 800)}
        # Every node reads the params files by path: they live under h0.
        time.sleep(1)           # the election; nothing to wait on but time
        end = time.monotonic() + self.args.minutes * 60
        next_fault = time.monotonic() + 2
        while time.monotonic() < end:
            live = self.live()
            if live:
                try:
                    self.work(self.rng.choice(live))
                except (AssertionError, OSError, EOFError):
                    pass        # a node killed under us: not acknowledged
            if time.monotonic() >= next_fault:
                try:
                    self.fault()
                except (AssertionError, OSError, EOFError):
                    pass
                next_fault = time.monotonic() + self.rng.uniform(1, 4)
            self.run_pending()
            time.sleep(self.rng.uniform(0.1, 0.5))
        # Heal: every fault undone, every node up.
        self.run_pending(all_now=True)
        self.unsplit()
        self.lan.loss(0)
        for k in self.lan.hosts:
            self.lan.heal(k)
        for n in list(self.paused):
            self.resume(n)
        for n, node in self.nodes.items():
            if node.proc.poll() is not None:
                self.start(int(n[1:]))
        return self.check()

    def tasks_everywhere(self):
        views = {}
        for n in sorted(self.nodes):
            c = self.nodes[n].client()
            views[n] = c.tasks()
            c.close()
        return views

    def tell_ends(self, c, batch):
        """SUBSCRIBE to batch (known everywhere by now): the ends told."""
        c.send("SUBSCRIBE %s\n" % " ".join(batch))
        left = set(batch)
        while left:
            f = c.line().split()
            if len(f) >= 4 and f[0] == "PROGRESS" and f[1] in left:
                left.discard(f[1])
                kv = dict(x.split("=", 1) for x in f[4:] if "=" in x)
                if f[3] in FINAL:
                    self.finals[f[1]].add((f[3], kv.get("node", ""),
                                           kv.get("outputs", "")))
                    self.final_outputs.setdefault(f[1], kv.get("outputs", ""))
            elif f and f[0] == "ERROR":
                return

    def check(self):
        uuids = [u for u, _ in self.acked]
        deadline = time.monotonic() + 180
        while True:
            views = self.tasks_everywhere()
            open_ = [(n, u) for n, v in views.items() for u in uuids
                     if u not in v or v[u][2] not in FINAL]
            same = all(len({(v[u][2], v[u][5]) for v in views.values() if u in v}) == 1
                       for u in uuids)
            if (not open_ and same) or time.monotonic() > deadline:
                break
            time.sleep(0.5)     # convergence is datagrams: poll TASKS
        lost = sorted({u for n, u in open_})
        # Every node tells where each task stands now: the ends told final
        # there, and the outputs dependents must have run on.
        for n in sorted(self.nodes):
            c = self.nodes[n].client()
            for b in range(0, len(uuids), 50):
                self.tell_ends(c, uuids[b:b + 50])
            c.close()

        divergent = [u for u in uuids
                     if len({(v[u][2], v[u][5]) for v in views.values() if u in v}) > 1
                     or len(self.finals[u]) > 1]
        # Wrongly bound: the last run of a result, on its runner, started
        # with inputs other than its upstreams' final outputs.
        any_view = views[sorted(views)[0]]
        wrong, ran, starts = [], 0, 0
        for u, inputs in self.acked:
            s = sum(len(started_args(node, u)) for node in self.nodes.values())
            starts += s
            ran += s > 0
            if u not in any_view or any_view[u][2] != "Terminated" or not inputs:
                continue
            runner = any_view[u][5]
            args = started_args(self.nodes[runner], u)
            got = re.findall(r"-i (\S+)", args[-1]) if args else None
            want = []
            for up, nth in inputs:
                outs = self.final_outputs.get(up, "").split(",")
                want.append(outs[nth - 1] if len(outs) >= nth else None)
            if got != want:
                wrong.append((u, got, want,
                              [sorted(self.finals[up]) for up, _ in inputs],
                              [any_view.get(up, ("?",) * 6)[2] for up, _ in inputs]))
        extra = starts - ran
        # A duplicate: two runs at once, the later one stopped by the
        # duplicate rule (each node logs the stop of its own run).
        acked = {u for u, _ in self.acked}
        dup = sum(1 for node in self.nodes.values()
                  for u in re.findall(r"Task UUID\{(\S+)\} also runs on \S+ "
                                      r"\(\d+%\); ours \(\d+%\) stops", node.log())
                  if u in acked)
        print("soak: %d minutes, %d hosts, seed %d; faults: %s" % (
            self.args.minutes, self.args.hosts, self.args.seed,
            ", ".join("%s %d" % kv for kv in sorted(self.faults.items()))))
        ends = collections.Counter(any_view[u][2] for u in uuids if u in any_view)
        print("soak: %d tasks acknowledged (%s)" % (
            len(uuids), ", ".join("%s %d" % kv for kv in sorted(ends.items()))))
        print("soak: lost %d, divergent %d, wrongly bound %d, withdrawn %d" % (
                  len(lost), len(divergent), len(wrong), len(self.withdrawn)))
        print("soak: %d tasks ran, %d starts beyond one: duplicates %d "
              "(%.1f %%), reruns after a lost run %d (%.1f %%)" % (
                  ran, extra, dup, 100.0 * dup / max(ran, 1), extra - dup,
                  100.0 * (extra - dup) / max(ran, 1)))
        for u in lost[:5]:
            print("soak: lost %s: %s" % (u, {n: v.get(u, ("?",) * 6)[2]
                                             for n, v in views.items()}))
        for u in divergent[:5]:
            print("soak: divergent %s: told %s" % (u, sorted(self.finals[u])))
        for what, v in (("lost", lost), ("divergent", divergent),
                        ("wrongly bound", wrong), ("withdrawn", self.withdrawn)):
            for x in v[:5]:
                print("soak: %s: %r" % (what, x))
        return 1 if lost or divergent or wrong or self.withdrawn else 0

    def close(self):
        try:
            self.unsplit()
        finally:
            self.lan.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hosts", type=int, default=7)
    ap.add_argument("--volery", default=os.path.join(HERE, "..", "volery"))
    args = ap.parse_args()
    harness.VOLERY = os.path.abspath(args.volery)
    why = lan.available()
    if why:
        print("soak: " + why, file=sys.stderr)
        return 2
    soak = Soak(args)
    try:
        return soak.run()
    finally:
        soak.close()


if __name__ == "__main__":
    sys.exit(main())

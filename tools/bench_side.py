#!/usr/bin/env python3
"""make bench-side: volery beside a fork loop, task-spooler and Slurm at its
best, in one sitting, with ratios (issue 36).  Numbers, not assertions.

  python3 tools/bench_side.py --stamp build/stamp [--tasks 500]
      [--samples 30] [--rounds 1] [--skip slurm,tsp]

Every system gets the same 9 slots on this host: 9 one-slot volery nodes
on loopback (one cluster key, tasks run as the submitter); task-spooler's
one server with 9 slots; Slurm 22.05 at its best (tools/bench_slurm.py:
nine `slurmd -N n<k>` of one CPU each, batch_sched_delay=0, an Epilog,
so that it schedules at every job end; as root).

W1  N trivial tasks (/bin/true), from the first submission to the moment
    the system says the last one ended (volery: its Terminated reaching a
    subscriber of the submitting node; tsp: `tsp -w`; Slurm: squeue empty,
    asked every 50 ms):
      file       one submission: a workflow file of N <command>s
                 (`volery submit`), a job array (`sbatch --array`)
      cli        one command-line call per task, one after the other from
                 one shell loop (`volery run`, `tsp`, `sbatch --wrap`)
      pipelined  N RUN requests written at once on one connection to one
                 node (volery's protocol)
      fork loop  a shell loop forking /bin/true N times, one at a time:
                 what this machine does with no scheduler at all
W2  10 chains of four 2-s tasks (thesis Table 4.1's edges) on 9 slots,
    sent at once: the average chain makespan, from its first submission
    to its last task's end, beside the best possible (4T/k)·Σ⌈i/9⌉ = 8.8 s.
W3  an idle pool, one task at a time: submission started -> the task's
    first instruction (build/stamp reads the wall clock first), median
    and p90 of --samples; for volery also its breakdown, from its journal
    (milliseconds) and the task's stamp.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "integration"))
sys.path.insert(0, HERE)
import bench_slurm  # noqa: E402
from harness import VOLERY, Cluster, make_workdir, params_file, \
    schedule_workflow  # noqa: E402

SLOTS = 9
CHAINS, CHAIN_T = 10, 2.0
# The i-th of k chains can end no sooner than 4T⌈i/9⌉.
BEST_W2 = 4 * CHAIN_T * sum(-(-i // SLOTS) for i in range(1, CHAINS + 1)) / CHAINS


def med(v):
    return statistics.median(v) if v else float("nan")


def p90(v):
    v = sorted(v)
    return v[len(v) * 9 // 10] if v else float("nan")


def wait_file(path, timeout=60):
    """The stamp a task wrote into path (ns), once it is there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                return int(f.read())
        except (OSError, ValueError):
            pass
        # A file written by another process has no event to await.
        time.sleep(0.0005)
    raise RuntimeError("no stamp in %s" % path)


def shell_loop(n, command, out=None, env=None):
    """Run `command` n times from one dash loop (its stdout to out)."""
    script = 'i=0; while [ $i -lt %d ]; do %s || exit 1; i=$((i+1)); done' \
        % (n, command)
    with open(out or os.devnull, "w") as f:
        subprocess.run(["sh", "-c", script], stdout=f, env=env, check=True)


def fork_loop(n):
    t0 = time.monotonic()
    shell_loop(n, "/bin/true")
    return n / (time.monotonic() - t0)


def fork_start(stamp, samples, scratch):
    lat = []
    for k in range(samples):
        path = os.path.join(scratch, "f%d" % k)
        t0 = time.time_ns()
        subprocess.run([stamp, path], check=True)
        lat.append((wait_file(path) - t0) / 1e6)
    return lat


# --- volery -----------------------------------------------------------------

def start_quiet(node):
    """Start a node as a service runs: no console log (-q), its log in
    its file only, which the harness does not read (reading every line
    of nine nodes' consoles cost the harness a tenth of the machine)."""
    node.stderr = []
    node.proc = subprocess.Popen([VOLERY, "serve", "-c", node.conf, "-q"],
                                 env=node.env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(node.logfile) as f:
                m = re.search(r"listening on [\d.]+:(\d+)", f.read())
        except OSError:
            m = None
        if m:
            node.port = int(m.group(1))
            return
        if node.proc.poll() is not None:
            break
        time.sleep(0.005)   # the log file has no event to await here
    raise RuntimeError("node %s did not start; see %s" % (node.name,
                                                           node.logfile))


def udp_counts():
    """(InDatagrams, OutDatagrams) of this host's UDP."""
    with open("/proc/net/snmp") as f:
        rows = [l.split() for l in f if l.startswith("Udp:")]
    head, vals = rows[0], rows[1]
    return (int(vals[head.index("InDatagrams")]),
            int(vals[head.index("OutDatagrams")]))


class Volery:
    def __init__(self, scratch, extra=""):
        self.cl = Cluster(["n%d" % k for k in range(SLOTS)], extra=extra)
        for node in self.cl.nodes.values():
            start_quiet(node)
        self.cl.master()
        self.first = self.cl.nodes["n0"]
        self.env = dict(os.environ, VOLERY_SOCKET=os.path.join(
            self.first.dir, "state", "volery.sock"))
        self.scratch = scratch

    def close(self):
        self.cl.cleanup()

    def cpu_s(self):
        """CPU the nodes and their reaped runs used so far, s."""
        ticks = 0
        for node in self.cl.nodes.values():
            with open("/proc/%d/stat" % node.proc.pid) as f:
                ticks += sum(int(x) for x in
                             f.read().rsplit(")", 1)[1].split()[11:15])
        return ticks / os.sysconf("SC_CLK_TCK")

    def costed(self, what, n):
        """Run W1's `what` for n tasks: (tasks/s, the nodes' CPU per task
        in ms, UDP datagrams sent and delivered per task).  The datagram
        counters are the host's (/proc/net/snmp): only the nodes send
        any while volery's W1 runs."""
        cpu, udp = self.cpu_s(), udp_counts()
        rate = getattr(self, "w1_" + what)(n)
        udp2 = udp_counts()
        return (rate, (self.cpu_s() - cpu) * 1000 / n,
                (udp2[1] - udp[1]) / n, (udp2[0] - udp[0]) / n)

    def cli(self, *argv):
        return subprocess.run([VOLERY] + list(argv), env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def until_ended(self, uuids, c=None):
        """Subscribe to uuids on the first node (by c, else a connection
        of its own); the monotonic time its last Terminated arrived (a
        task already ended is told at once)."""
        own = c is None
        c = c or self.first.client()
        try:
            c.send("".join("SUBSCRIBE %s\n" % u for u in uuids))
            c.wait_states({u: "Terminated" for u in uuids}, timeout=900)
            return time.monotonic()
        finally:
            if own:
                c.close()

    def w1_file(self, n):
        path = os.path.join(self.scratch, "w1.xml")
        with open(path, "w") as f:
            f.write("<workflow>\n" + "".join(
                '  <command id="t%d"><arg>/bin/true</arg></command>\n' % k
                for k in range(n)) + "</workflow>\n")
        t0 = time.monotonic()
        uuids = [l.split()[1] for l in self.cli("submit", path).splitlines()]
        return n / (self.until_ended(uuids) - t0)

    def w1_cli(self, n):
        out = os.path.join(self.scratch, "w1-cli.uuids")
        t0 = time.monotonic()
        shell_loop(n, "%s run -- /bin/true" % VOLERY, out, self.env)
        with open(out) as f:
            uuids = f.read().split()
        return n / (self.until_ended(uuids) - t0)

    def w1_pipelined(self, n):
        c = self.first.client()
        try:
            t0 = time.monotonic()
            c.send("RUN t low -- /bin/true\n" * n)
            uuids = [c.line().split()[1] for _ in range(n)]
            return n / (self.until_ended(uuids, c) - t0)
        finally:
            c.close()

    def w2(self):
        p = params_file(self.first.dir, int(CHAIN_T * 1000))
        clients = [self.cl.nodes["n%d" % k].client() for k in range(SLOTS)]
        try:
            sent, last = [], []
            for k in range(CHAINS):
                sent.append(time.monotonic())
                last.append(schedule_workflow(clients[k % SLOTS], p)[-1])
            w = clients[0]
            w.send("".join("SUBSCRIBE %s\n" % u for u in last))
            ended = {}
            deadline = time.monotonic() + 300
            while len(ended) < CHAINS and time.monotonic() < deadline:
                f = w.line(300).split()
                if f[:1] == ["PROGRESS"] and f[3] == "Terminated" and f[1] in last:
                    ended.setdefault(f[1], time.monotonic())
            return statistics.mean(ended[u] - s for u, s in zip(last, sent))
        finally:
            for c in clients:
                c.close()

    def record(self, uuid):
        """The fields of the last record of uuid in the first node's journal."""
        with open(os.path.join(self.first.dir, "state", "journal"), "rb") as f:
            lines = [l for l in f.read().decode(errors="replace").splitlines()
                     if " id=%s " % uuid in l]
        return dict(w.split("=", 1) for w in lines[-1].split() if "=" in w)

    def w3(self, stamp, samples):
        """(protocol, cli, breakdown {step: [ms]})."""
        proto, cli = [], []
        steps = {k: [] for k in ("cli start -> submission",
                                 "submission -> reply",
                                 "submission -> run started",
                                 "run started -> first instruction",
                                 "first instruction -> end",
                                 "end -> watch returns")}
        c = self.first.client()
        try:
            for k in range(samples):
                path = os.path.join(self.scratch, "p%d" % k)
                t0 = time.time_ns()
                uuid = c.ask("RUN stamp interactive -- %s %s"
                             % (stamp, path)).split()[1]
                proto.append((wait_file(path) - t0) / 1e6)
                c.ask("SUBSCRIBE " + uuid)
                c.wait_states({uuid: "Terminated"})
                time.sleep(0.05)    # idle again: heartbeats, confirmations

                path = os.path.join(self.scratch, "c%d" % k)
                t0 = time.time_ns()
                uuid = self.cli("run", "-P", "interactive", "--", stamp,
                                path).strip()
                replied = time.time_ns()
                first = wait_file(path)
                self.cli("watch", uuid)
                watched = time.time_ns()
                cli.append((first - t0) / 1e6)
                r = self.record(uuid)
                sub, stt, end = (int(r[f]) for f in ("sub", "stt", "end"))
                for name, v in zip(steps, (
                        sub - t0 / 1e6, replied / 1e6 - sub, stt - sub,
                        first / 1e6 - stt, end - first / 1e6,
                        watched / 1e6 - end)):
                    steps[name].append(v)
                time.sleep(0.05)
        finally:
            c.close()
        return proto, cli, steps


# --- task-spooler -------------------------------------------------------------

class Tsp:
    def __init__(self, scratch, n):
        self.dir = tempfile.mkdtemp(prefix="volery-tsp-", dir=scratch)
        self.env = dict(os.environ, TS_SOCKET=os.path.join(self.dir, "sock"),
                        TMPDIR=self.dir, TS_SLOTS=str(SLOTS),
                        TS_MAXFINISHED=str(n + 100), TS_MAXCONN=str(n + 100))
        self.cmd("-S", str(SLOTS))

    def cmd(self, *argv):
        return subprocess.run(["tsp"] + list(argv), env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def close(self):
        subprocess.run(["tsp", "-K"], env=self.env, capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def until_ended(self, ids):
        """`tsp -w` the last one; then any still unfinished, in turn."""
        self.cmd("-w", ids[-1])
        for i in ids:
            if self.cmd("-s", i).strip() != "finished":
                self.cmd("-w", i)
        return time.monotonic()

    def w1_cli(self, n):
        self.cmd("-C")
        out = os.path.join(self.dir, "ids")
        t0 = time.monotonic()
        shell_loop(n, "tsp /bin/true", out, self.env)
        with open(out) as f:
            ids = f.read().split()
        return n / (self.until_ended(ids) - t0)

    def w2(self):
        self.cmd("-C")
        lasts, sent = [], []
        for _ in range(CHAINS):
            sent.append(time.monotonic())
            prev = None
            for _ in range(4):
                prev = self.cmd(*((["-D", prev] if prev else []) +
                                  ["sleep", "%g" % CHAIN_T])).strip()
            lasts.append(prev)
        ended = [None] * CHAINS

        def wait(k):
            self.cmd("-w", lasts[k])
            ended[k] = time.monotonic()
        threads = [threading.Thread(target=wait, args=(k,)) for k in range(CHAINS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return statistics.mean(e - s for e, s in zip(ended, sent))

    def w3(self, stamp, samples):
        lat = []
        for k in range(samples):
            path = os.path.join(self.dir, "s%d" % k)
            t0 = time.time_ns()
            self.cmd(stamp, path)
            lat.append((wait_file(path) - t0) / 1e6)
            time.sleep(0.05)
        return lat


# --- Slurm ----------------------------------------------------------------------

def slurm_until_empty(slurm, timeout=900):
    deadline = time.monotonic() + timeout
    while slurm.cmd("squeue", "-h", "-o", "%i").strip():
        if time.monotonic() > deadline:
            raise RuntimeError("slurm: jobs never ended")
        time.sleep(0.05)    # slurmctld tells no one; asking costs it
    return time.monotonic()


def slurm_w1_file(slurm, n):
    t0 = time.monotonic()
    slurm.cmd("sbatch", "--parsable", "-o", "/dev/null", "--array=1-%d" % n,
              "--wrap", "/bin/true")
    return n / (slurm_until_empty(slurm) - t0)


def slurm_w1_cli(slurm, n):
    t0 = time.monotonic()
    shell_loop(n, "sbatch -Q -o /dev/null --wrap /bin/true", env=slurm.env)
    return n / (slurm_until_empty(slurm) - t0)


def slurm_w3(slurm, stamp, samples):
    batch, run = [], []
    for k in range(samples):
        path = slurm.path("jobs", "w3.%d" % k)
        t0 = time.time_ns()
        slurm.cmd("sbatch", "-Q", "-o", "/dev/null", "--wrap",
                  "exec %s %s" % (stamp, path))
        batch.append((wait_file(path) - t0) / 1e6)
        time.sleep(0.05)
        t0 = time.time_ns()
        out = slurm.cmd("srun", "-Q", stamp)
        run.append((int(out) - t0) / 1e6)
        time.sleep(0.05)
    return batch, run


# --- the sitting ------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stamp", required=True)
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=1,
                    help="W1 repeated this often, interleaved; medians kept")
    ap.add_argument("--skip", default="", help="slurm,tsp")
    args = ap.parse_args()
    stamp = os.path.abspath(args.stamp)
    skip = set(filter(None, args.skip.split(",")))
    if "slurm" not in skip and bench_slurm.available():
        print("no Slurm column: %s" % bench_slurm.available())
        skip.add("slurm")
    if "tsp" not in skip and shutil.which("tsp") is None:
        print("no task-spooler column: no tsp (apt-get install task-spooler)")
        skip.add("tsp")
    scratch = make_workdir("volery-bench-side-")
    os.chmod(scratch, 0o777)
    n = args.tasks
    r = {}      # (workload, system) -> [values]

    def note(key, v):
        r.setdefault(key, []).append(v)
        print("  %-28s %-8s %s" % (key[0], key[1], "%.1f" % v if
                                   isinstance(v, float) else v), flush=True)

    print("W1 (%d trivial tasks), %d round(s):" % (n, args.rounds))
    for _ in range(args.rounds):
        note(("W1 fork loop", "fork"), fork_loop(n))
        v = Volery(scratch)
        try:
            for what in ("file", "cli", "pipelined"):
                rate, cpu, sent, got = v.costed(what, n)
                note(("W1 " + what, "volery"), rate)
                r.setdefault(("W1 cost", what), []).append((cpu, sent, got))
        finally:
            v.close()
        if "tsp" not in skip:
            t = Tsp(scratch, n)
            try:
                note(("W1 cli", "tsp"), t.w1_cli(n))
            finally:
                t.close()
        if "slurm" not in skip:
            s = bench_slurm.Slurm(hosts=SLOTS)
            try:
                note(("W1 file", "slurm"), slurm_w1_file(s, n))
                note(("W1 cli", "slurm"), slurm_w1_cli(s, n))
            finally:
                s.close()

    print("W2 and W3:")
    v = Volery(scratch)
    try:
        note(("W2 makespan", "volery"), v.w2())
        proto, cli, steps = v.w3(stamp, args.samples)
        r[("W3 protocol", "volery")] = proto
        r[("W3 cli", "volery")] = cli
    finally:
        v.close()
    r[("W3 cli", "fork")] = fork_start(stamp, args.samples, scratch)
    if "tsp" not in skip:
        t = Tsp(scratch, n)
        try:
            note(("W2 makespan", "tsp"), t.w2())
            r[("W3 cli", "tsp")] = t.w3(stamp, args.samples)
        finally:
            t.close()
    if "slurm" not in skip:
        s = bench_slurm.Slurm(hosts=SLOTS)
        try:
            note(("W2 makespan", "slurm"), bench_slurm.workflows(
                s, SLOTS, [["low"] * 4] * CHAINS, CHAIN_T)[0])
            r[("W3 cli", "slurm")], r[("W3 srun", "slurm")] = \
                slurm_w3(s, stamp, args.samples)
        finally:
            s.close()
    shutil.rmtree(scratch, ignore_errors=True)
    report(r, steps, n, args.rounds)


def report(r, steps, n, rounds):
    fork = med(r[("W1 fork loop", "fork")])
    slurm_best = max([med(r[k]) for k in (("W1 file", "slurm"),
                                          ("W1 cli", "slurm")) if k in r] or [0])

    def tput(key):
        if key not in r:
            return "—"
        v = med(r[key])
        s = "%.0f (%.2f× fork" % (v, v / fork)
        if slurm_best:
            s += ", %.1f× Slurm's best" % (v / slurm_best)
        return s + ")"
    print()
    print("| workload | fork loop | task-spooler | Slurm best | volery |")
    print("|---|---|---|---|---|")
    print("| W1 %d × /bin/true, one submission, tasks/s | %.0f | — | %s | %s |"
          % (n, fork, "%.1f" % med(r[("W1 file", "slurm")])
             if ("W1 file", "slurm") in r else "—", tput(("W1 file", "volery"))))
    print("| W1 one CLI call per task, tasks/s | — | %s | %s | %s |"
          % ("%.0f" % med(r[("W1 cli", "tsp")]) if ("W1 cli", "tsp") in r
             else "—", "%.1f" % med(r[("W1 cli", "slurm")])
             if ("W1 cli", "slurm") in r else "—", tput(("W1 cli", "volery"))))
    print("| W1 pipelined RUNs on one connection, tasks/s | — | — | — | %s |"
          % tput(("W1 pipelined", "volery")))

    def span(key):
        return "%.2f s (%.3f× best)" % (med(r[key]), med(r[key]) / BEST_W2) \
            if key in r else "—"
    print("| W2 %d chains × 4 × %g s on 9 slots, average makespan (best %.1f s)"
          " | — | %s | %s | %s |" % (CHAINS, CHAIN_T, BEST_W2,
                                     span(("W2 makespan", "tsp")),
                                     span(("W2 makespan", "slurm")),
                                     span(("W2 makespan", "volery"))))

    def lat(key):
        return "%.1f ms (p90 %.1f)" % (med(r[key]), p90(r[key])) \
            if key in r else "—"
    print("| W3 idle pool, submit → the task's first instruction, median | %s "
          "| %s | sbatch %s, srun %s | %s; protocol %s |"
          % (lat(("W3 cli", "fork")), lat(("W3 cli", "tsp")),
             lat(("W3 cli", "slurm")), lat(("W3 srun", "slurm")),
             lat(("W3 cli", "volery")), lat(("W3 protocol", "volery"))))
    print()
    print("W3 through volery's command line, where the time goes (medians, ms;"
          " journal stamps are whole milliseconds):")
    for name, v in steps.items():
        print("  %-34s %6.2f" % (name, med(v)))
    print("What W1 cost volery's nine nodes per task (medians): their CPU,"
          " with the runs'; UDP datagrams sent, and delivered (a broadcast"
          " reaches every node):")
    for what in ("file", "cli", "pipelined"):
        c = r.get(("W1 cost", what), [])
        if c:
            print("  %-10s %5.2f ms CPU   %5.1f datagrams sent   %5.1f "
                  "delivered" % (what, med([x[0] for x in c]),
                                 med([x[1] for x in c]),
                                 med([x[2] for x in c])))
    print("(%d round(s) of W1; medians.)" % rounds)


if __name__ == "__main__":
    main()

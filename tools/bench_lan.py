#!/usr/bin/env python3
"""make bench: the thesis' experiment (chapter 5) and more, on a LAN of
network namespaces, one volery node per host, one slot each, default
timing.  Numbers and plots, not assertions.

  python3 tools/bench_lan.py [--quick] [--out DIR] [--seed N]

1. Tables 5.3 and 5.4, time-scaled x1/60 (2-s tasks: the thesis' minutes
   are our seconds): 1..9 nodes x 5/10/15 workflows of the four-task
   chain, each task low or interactive at random (fixed seed, the same in
   every cell, as the thesis' tester), each workflow sent to a random
   node.  Per cell: the average workflow makespan (its first SCHEDULE to
   its last task's end) and the average Ready->start wait (the nodes'
   waited=), beside the thesis and the best possible (see best()).
2. Table 5.5: 10 workflows on 9 nodes; 8, 5, 2 or 0 nodes killed with -9
   while running their first tasks; every task must end Terminated once.
3. Throughput (500 trivial tasks over 9 nodes), SCHEDULE->Running latency
   on an idle pool, idle CPU and memory per node.

--quick: 5 workflows on 1, 3 and 9 nodes, Table 5.5 with 5 killed, 200
trivial tasks.  Plots (gnuplot) and the tables go to --out.

--slurm (make bench BENCH_SLURM=1): parts 1 and 3 also on Slurm, tuned to
its best case (tools/bench_slurm.py), printed beside ours.
"""
import argparse
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
import harness  # noqa: E402
import lan  # noqa: E402
from harness import params_file  # noqa: E402
from bench_cluster import latency, throughput  # noqa: E402
import bench_slurm  # noqa: E402

# Thesis Tables 5.3 and 5.4 (minutes; ours in seconds at 1/60 scale):
# nodes -> (5, 10, 15 workflows).
THESIS_MAKESPAN = {
    1: (52.03, 100.76, 149.75), 2: (18.76, 44.19, 54.37),
    3: (14.79, 26.34, 45.06), 4: (12.76, 20.97, 35.31),
    5: (11.63, 19.30, 28.12), 6: (10.00, 16.57, 24.18),
    7: (9.59, 15.10, 20.76), 8: (9.55, 13.50, 18.68),
    9: (9.23, 13.16, 18.08),
}
THESIS_WAIT = {
    1: (11.01, 23.19, 35.44), 2: (2.79, 9.05, 11.71),
    3: (1.80, 4.57, 9.27), 4: (1.29, 3.23, 6.83),
    5: (1.01, 2.81, 5.04), 6: (0.63, 2.13, 4.05),
    7: (0.54, 1.77, 3.20), 8: (0.53, 1.39, 2.68),
    9: (0.44, 1.31, 2.53),
}
# Table 5.5: nodes killed of 9 -> (average wait, average makespan), min.
THESIS_KILLED = {8: (19.77, 89.14), 5: (3.35, 22.81), 2: (1.83, 15.88),
                 0: (1.31, 13.16)}
CHAIN = ("import", "georeferencing", "segmentation", "anomaly_detection")
TIMING = "<log_level>normal</log_level>"


def best(n, k, T, length=4):
    """The best possible average workflow makespan and Ready->start wait
    of k chains of `length` tasks of T seconds, all submitted at once, on
    n one-slot nodes: workflows run n at a time, one after the other, so
    the i-th (from 1) ends at length*T*ceil(i/n) and waited
    length*T*(ceil(i/n) - 1) before its first task (its others wait 0).
    No schedule does better: at most n tasks run at once, and finishing
    whole chains first is what minimises the sum of their ends."""
    ends = [length * T * math.ceil(i / n) for i in range(1, k + 1)]
    waits = [length * T * (math.ceil(i / n) - 1) for i in range(1, k + 1)]
    return statistics.mean(ends), sum(waits) / (k * length)


class Pool:
    """n nodes on hosts 0..n-1 of the LAN, a cluster of their own."""

    def __init__(self, net, n, tag, extra="", slots=1):
        self.cluster = "b%s%d" % (tag, int(time.monotonic() * 1000) % 10**7)
        self.nodes = [net.node(k, "n%d" % k, self.cluster, TIMING + extra,
                               slots=slots)
                      for k in range(n)]
        for node in self.nodes:
            node.start()
        self.clients = [node.client() for node in self.nodes]
        self.wait_ready()

    def wait_ready(self):
        """Until the first node sees all the others alive and a master."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            rows = [r.split() for r in self.clients[0].ask_multi("NODES")
                    if r.startswith("NODE ")]
            if len(rows) == len(self.nodes) and \
                    sum(r[3] == "master" for r in rows) == 1 and \
                    all(r[3] in ("master", "peer") for r in rows):
                return
            time.sleep(0.05)    # NODES is a snapshot; nothing to await
        raise RuntimeError("pool of %d never formed" % len(self.nodes))

    def close(self):
        for c in self.clients:
            try:
                c.close()
            except OSError:
                pass
        for node in self.nodes:
            node.cleanup()


def schedule_chain(c, params, prios, k):
    """One workflow on client c; returns its four uuids."""
    uuids = []
    for j, name in enumerate(CHAIN):
        binds = {
            "import": "-p /data/inspection-%d" % k,
            "georeferencing": "-a {0} 1 -a {0} 2 -a {0} 3",
            "segmentation": "-a {0} 1 -a {1} 1 -a {1} 2",
            "anomaly_detection": "-a {2} 1",
        }[name].format(*uuids)
        uuids.append(c.schedule("%s %s %s -x %s" % (name, prios[j], binds, params)))
    return uuids


def watch(c, uuids, timeout=900):
    """Read PROGRESS on c until every uuid is final: {uuid: (state, end
    time, waited s)}; a uuid that ends twice differently is an error."""
    c.send("".join("SUBSCRIBE %s\n" % u for u in uuids))
    want, ended = set(uuids), {}
    deadline = time.monotonic() + timeout
    while want - set(ended):
        line = c.line(max(0.1, deadline - time.monotonic()))
        f = line.split()
        if len(f) < 4 or f[0] != "PROGRESS" or f[1] not in want:
            continue
        if f[3] in ("Terminated", "Failed", "Cancelled"):
            if f[1] in ended:   # a snapshot of a SUBSCRIBE again
                if ended[f[1]][0] != f[3]:
                    raise RuntimeError("task %s ended %s, then %s"
                                       % (f[1], ended[f[1]][0], f[3]))
                continue
            m = re.search(r"waited=([\d.]+)", line)
            ended[f[1]] = (f[3], time.monotonic(), float(m.group(1)) if m else 0)
    return ended


PRIOS = ("low", "interactive")


def workload(n, k, seed):
    """What a cell sends: k workflows, each (its tasks' priorities, the
    node it goes to), the same for volery and Slurm."""
    rng = random.Random(seed)
    return [([rng.choice(PRIOS) for _ in CHAIN], rng.randrange(n))
            for _ in range(k)]


def run_workflows(pool, k, T, seed, kill=0):
    """k workflows on the pool; (average makespan, average wait, ended)."""
    params = params_file(pool.nodes[0].dir, int(T * 1000))
    watcher = pool.nodes[0].client()
    try:
        sent, wfs = [], []
        for w, (prios, target) in enumerate(workload(len(pool.nodes), k, seed)):
            sent.append(time.monotonic())
            wfs.append(schedule_chain(pool.clients[target], params, prios, w))
        if kill:
            kill_first_runners(pool, watcher, [u for wf in wfs for u in wf], kill)
        ended = watch(watcher, [u for wf in wfs for u in wf])
    finally:
        watcher.close()
    bad = {u: s for u, (s, _, _) in ended.items() if s != "Terminated"}
    if bad:
        raise RuntimeError("tasks not Terminated: %r" % bad)
    makespans = [ended[wf[-1]][1] - t0 for wf, t0 in zip(wfs, sent)]
    waits = [ended[u][2] for wf in wfs for u in wf]
    return statistics.mean(makespans), statistics.mean(waits), ended


def kill_first_runners(pool, watcher, uuids, count):
    """kill -9 the first `count` nodes seen running a task, but the
    watcher's (the first node: it tells the ends)."""
    watcher.send("".join("SUBSCRIBE %s\n" % u for u in uuids))
    names = [node.name for node in pool.nodes]
    killed = [0]
    while len(killed) < count + 1:
        f = watcher.line().split()
        if len(f) >= 5 and f[0] == "PROGRESS" and f[3] == "Running":
            m = re.match(r"node=(\S+)", f[4])
            if m and m.group(1) in names and names.index(m.group(1)) not in killed:
                i = names.index(m.group(1))
                pool.nodes[i].kill9()
                killed.append(i)
    return killed[1:]


def grid(net, nodes, counts, T, seed, out, slurm=None):
    rows = []
    print("\nTables 5.3 and 5.4 on the LAN: %s-s tasks (the thesis' minutes are "
          "our seconds); average workflow makespan and Ready->start wait, s"
          % T)
    hdr = "%5s %4s | %8s %8s %8s %7s | %7s %7s %7s" % (
        "nodes", "wf", "ours", "thesis", "best", "vs best", "wait", "thesis", "best")
    if slurm:
        hdr += " | %8s %7s %7s" % ("slurm", "vs best", "wait")
    print(hdr)
    print("-" * len(hdr))
    for n in nodes:
        for j, k in enumerate((5, 10, 15)):
            if k not in counts:
                continue
            pool = Pool(net, n, "g")
            try:
                mk, wait, _ = run_workflows(pool, k, T, seed)
            finally:
                pool.close()
            bmk, bwait = best(n, k, T)
            # Slurm's columns are NaN (gnuplot skips them) without Slurm.
            smk, swait = (bench_slurm.workflows(
                slurm, n, [p for p, _ in workload(n, k, seed)], T)
                if slurm else (math.nan, math.nan))
            row = (n, k, mk, THESIS_MAKESPAN[n][j] * T / 2, bmk, (mk / bmk - 1) * 100,
                   wait, THESIS_WAIT[n][j] * T / 2, bwait, smk,
                   (smk / bmk - 1) * 100, swait)
            rows.append(row)
            line = "%5d %4d | %8.2f %8.2f %8.2f %+6.1f%% | %7.2f %7.2f %7.2f" % row[:9]
            if slurm:
                line += " | %8.2f %+6.1f%% %7.2f" % row[9:]
            print(line)
            sys.stdout.flush()
    # One block per number of workflows, for gnuplot's index.
    with open(os.path.join(out, "grid.dat"), "w") as f:
        f.write("# nodes workflows makespan thesis best vs_best% wait "
                "thesis_wait best_wait slurm slurm_vs_best% slurm_wait\n")
        for k in (5, 10, 15):
            f.write("".join("%d %d %.3f %.3f %.3f %.2f %.3f %.3f %.3f %.3f %.2f %.3f\n"
                            % r for r in rows if r[1] == k) + "\n\n")
    return rows


# A node killed with -9 stays in the membership (whose majority confirms
# every end) for membership_timeout_s, 600 s by default: with 5 of 9
# killed, no end is final for ten minutes.  The thesis' system had no
# quorum; Table 5.5 runs with a membership timeout of 10 s and says so.
KILL_MEMBERSHIP_S = 10


def table55(net, kills, T, seed, slurm=None):
    print("\nTable 5.5 on the LAN: 10 workflows on 9 nodes, nodes killed -9 while "
          "running their first tasks (s; membership_timeout_s %d)" % KILL_MEMBERSHIP_S)
    print("%6s | %8s %8s | %8s %8s | %s" % ("killed", "wait", "thesis", "makespan",
                                              "thesis", "tasks"))
    for kill in kills:
        pool = Pool(net, 9, "k", "<membership_timeout_s>%d</membership_timeout_s>"
                    % KILL_MEMBERSHIP_S)
        try:
            mk, wait, ended = run_workflows(pool, 10, T, seed, kill=kill)
        finally:
            pool.close()
        tw, tm = THESIS_KILLED[kill]
        print("%6d | %8.2f %8.2f | %8.2f %8.2f | %d Terminated, each once" % (
            kill, wait, tw * T / 2, mk, tm * T / 2, len(ended)))
        sys.stdout.flush()
    if slurm:
        print("(Slurm: not run; its pool here is one host, which no kill -9 "
              "of a daemon makes into a lost host)")


def node_cost(pids, seconds):
    """Idle CPU (% of a core) and memory (KiB) of processes over seconds."""
    def on_cpu_ns(pid):
        # schedstat counts nanoseconds; /proc/PID/stat's clock ticks
        # (10 ms) are too coarse for a node that runs 0.1 ms a second.
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    t0, before = time.monotonic(), [on_cpu_ns(p) for p in pids]
    time.sleep(seconds)     # the measurement itself: idle time
    dt, after = time.monotonic() - t0, [on_cpu_ns(p) for p in pids]
    cpu = [(a - b) / 1e9 / dt * 100 for a, b in zip(after, before)]
    mem = []
    for p in pids:
        with open("/proc/%d/smaps_rollup" % p) as f:
            text = f.read()
        mem.append({k: int(re.search(r"^%s:\s+(\d+)" % k, text, re.M).group(1))
                    for k in ("Pss", "Anonymous", "Private_Dirty")})
    return cpu, mem


def speed(net, tasks, idle_s, slurm=None):
    print("\nOn an idle 9-node LAN pool (one slot each):")
    pool = Pool(net, 9, "s")
    try:
        # Idle first: a fresh pool, nothing in its maps.
        cpu, mem = node_cost([node.proc.pid for node in pool.nodes], idle_s)
        print("  idle, over %d s: CPU %.3f %% of a core per node (max %.3f); "
              "memory per node: anonymous %d KiB, PSS %d KiB (medians)" % (
                  idle_s, statistics.mean(cpu), max(cpu),
                  statistics.median(m["Anonymous"] for m in mem),
                  statistics.median(m["Pss"] for m in mem)))
        zero = params_file(pool.nodes[0].dir, 0)
        lat = latency(pool.clients[-1], zero, 40)
        print("  SCHEDULE->Running: median %.1f ms, p90 %.1f ms, min %.1f, max %.1f "
              "(%d samples)" % (statistics.median(lat), lat[int(len(lat) * 0.9)],
                                lat[0], lat[-1], len(lat)))
        per = tasks // 9
        rate = throughput(pool.clients, zero, per)
    finally:
        pool.close()
    # The bar: one node with 9 slots, the same tasks, in the same run.
    one = Pool(net, 1, "o", slots=9)
    try:
        zero = params_file(one.nodes[0].dir, 0)
        alone = throughput(one.clients * 9, zero, per)
    finally:
        one.close()
    print("  throughput: %d trivial tasks: %.0f tasks/s (one 9-slot node: "
          "%.0f, the pool %.0f %% of it)" % (per * 9, rate, alone,
                                             100 * rate / alone))
    if slurm:
        slurm_speed(slurm, per * 9, idle_s)


def slurm_speed(slurm, tasks, idle_s):
    print("\nSlurm on this host (slurmctld, one slurmd of 9 CPUs, munged):")
    names = [os.path.basename(p.args[0]) for p in slurm.procs]
    cpu, mem = node_cost([p.pid for p in slurm.procs], idle_s)
    print("  idle, over %d s: CPU %% of a core: %s; anonymous memory: %s" % (
        idle_s, ", ".join("%s %.3f" % (n, c) for n, c in zip(names, cpu)),
        ", ".join("%s %d KiB" % (n, m["Anonymous"]) for n, m in zip(names, mem))))
    batch, run = bench_slurm.latency(slurm, 20)
    print("  sbatch->start: median %.1f ms, p90 %.1f ms; srun->start: median "
          "%.1f ms, p90 %.1f ms (%d samples)" % (
              statistics.median(batch), batch[int(len(batch) * 0.9)],
              statistics.median(run), run[int(len(run) * 0.9)], len(batch)))
    print("  throughput: %d trivial jobs from 9 sbatch loops: %.0f jobs/s" % (
        tasks, bench_slurm.throughput(slurm, tasks)))


def plot(out, rows, T, slurm=False):
    if not shutil.which("gnuplot"):
        print("(no gnuplot: no plots)")
        return
    script = """set terminal pngcairo size 1000,440 font ",10"
set key top right
set grid
set xlabel "nodes"
set xrange [0.5:9.5]
f = "%(out)s/grid.dat"
ks = "5 10 15"
set output "%(out)s/makespan.png"
set multiplot layout 1,2
set title "Average workflow makespan, s (thesis: its minutes)"
plot for [i=1:3] f index i-1 using 1:3 with linespoints lc i lw 2 title "volery ".word(ks,i)." wf", \\
     for [i=1:3] f index i-1 using 1:4 with lines lc i dt 2 title "thesis", \\
     for [i=1:3] f index i-1 using 1:5 with lines lc i dt 3 title "best"%(slurm_mk)s
set title "Average Ready->start wait, s"
plot for [i=1:3] f index i-1 using 1:7 with linespoints lc i lw 2 title "volery ".word(ks,i)." wf", \\
     for [i=1:3] f index i-1 using 1:8 with lines lc i dt 2 title "thesis", \\
     for [i=1:3] f index i-1 using 1:9 with lines lc i dt 3 title "best"%(slurm_wait)s
unset multiplot
""" % {"out": out, "T": T,
       "slurm_mk": ', \\\n     for [i=1:3] f index i-1 using 1:10 with points lc i pt 6 '
                   'title "Slurm"' if slurm else "",
       "slurm_wait": ', \\\n     for [i=1:3] f index i-1 using 1:12 with points lc i pt 6 '
                     'title "Slurm"' if slurm else ""}
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0:
        print("gnuplot: " + r.stderr.strip())
    else:
        print("\nplot: %s/makespan.png" % out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--task-ms", type=int, default=2000)
    ap.add_argument("--nodes", help="the grid's node counts, e.g. 1,3,9")
    ap.add_argument("--workflows", help="the grid's workflow counts, e.g. 5,15")
    ap.add_argument("--prios", choices=("random", "low"), default="random",
                    help="each task's priority: at random as the thesis' tester "
                    "(default), or all low (to see what the order costs)")
    ap.add_argument("--parts", default="speed,grid,kills",
                    help="which of speed, grid, kills to run")
    ap.add_argument("--slurm", action="store_true",
                    help="the same workloads on Slurm too, beside ours")
    args = ap.parse_args()
    global PRIOS
    if args.prios == "low":
        PRIOS = ("low",)
    why = lan.available() or (args.slurm and bench_slurm.available())
    if why:
        sys.exit("bench: " + why)
    os.makedirs(args.out, exist_ok=True)
    T = args.task_ms / 1000
    nodes = (1, 3, 9) if args.quick else range(1, 10)
    counts = (5,) if args.quick else (5, 10, 15)
    if args.nodes:
        nodes = [int(x) for x in args.nodes.split(",")]
    if args.workflows:
        counts = [int(x) for x in args.workflows.split(",")]
    t0 = time.monotonic()
    net = lan.Lan(9)
    slurm = None
    try:
        if args.slurm:
            slurm = bench_slurm.Slurm()
        parts = args.parts.split(",")
        if "speed" in parts:
            speed(net, 200 if args.quick else 500, 10 if args.quick else 20, slurm)
        if "grid" in parts:
            rows = grid(net, nodes, counts, T, args.seed, args.out, slurm)
        if "kills" in parts:
            table55(net, (5,) if args.quick else (8, 5, 2, 0), T, args.seed, slurm)
    finally:
        if slurm:
            slurm.close()
        net.close()
    if "grid" in parts:
        plot(args.out, rows, T, args.slurm)
    print("\nbench: %.0f s" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()

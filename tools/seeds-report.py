#!/usr/bin/env python3
"""The seed papers' experiments in the simulator, beside their numbers
(make seeds).  Each policy runs on the same seeds (paired), so the
differences are the policies', not the draws'.

E1, the P2P HTC thesis (000), chapter 4: 20 desktops, 400 tasks, a
third each short U(1,1500), medium U(1500,6000) and long
U(6000,25000) s, run one simulated ms per second; unstable desktops up
10^4 s and down 10^3 s on average (the thesis' lambda = 1e-4/s,
mu = 1e-3/s), exponential or Weibull (shape 0.7); stable ones never
down in the run (the thesis': up 1e6 s on average); systems 90/10,
50/50 and 10/90 stable/unstable.  Each task's length is told at submit
(-b 1: the thesis' policies know it, as volery run --estimate tells
it).  Makespan against the thesis' FCFS (fcfs order, blind placement),
runs per task, and the time wasted per task (runs lost, in the thesis'
seconds).  Then estimates off by up to k = 3 (runs take U(l/k, l*k)):
the fit against FCFS, and tasks dropped (volery drops none: a run
whose workload is not done fails the report).

The residual-time LRET of Anglano et al. (001) on the same bag: lret
against fcfs, no faults, 3, 10 and 50 tasks per desktop.

E3, Anglano et al. (001) section IV: 85 machines, Bags of RR * 85 tasks
of U(0.5, 1.5) * 35000 s at power 1, one simulated ms per second; the
enterprise grid's speeds {1, 1.125, 1.4375} or the public grid's
N(10, 10) capped to [1, 40]; CPU availability 100/50/33 % as a Markov
chain stepped every 10 s; Weibull faults (shape 0.7), 120-s repairs,
the mean time to a fault 10^7 s (enterprise) and 100 times shorter
(public); checkpoints every 5000 s of work, 480 s to copy; replication
threshold 2 for both policies.  WQR-FT: fcfs order, blind placement.
volery's LRET-EffCPU: lret order, informed placement (speed learned from
runs, of which the pool has made 4 per machine before: -E 340).
Each task's length learned (its type's mean: in a bag of one type lret
cannot rank them) or told at submit (-b 1, the paper's knowledge: LRET
ranks by it; the enterprise grid only so).  Completion time normalised
to WQR-FT's on the same seed, and the CPU wasted (used but not needed:
replicas stopped, work redone).  RR 3 by
default (RR="3 10 50" for more: RR 50 takes minutes a run).

E2, the P2P HTC thesis (000), chapter 2: 20 nodes, 400 single tasks of
U(1, max) s for max 2, 20 and 150 s (real seconds: the network's
milliseconds are real here), arriving as a Poisson process at a load of
0.2, 1.0 and 2.0 of the pool's capacity (the thesis' tasks/s/node, its
utilisation about 0.85 of that at 1.0).  Collisions: tasks started on
two nodes or more; scheduling: from a free node and a ready task to
the start.

E4, Polo (002) section 5.3, experiment 1: 100 nodes, 40 jobs of
lognormal(62, 15.5) tasks, each job's tasks of one length, 1, 2, 3 or
4 s (the paper's MapReduce tasks scaled down so that a run stays
short), arriving as a Poisson process at a load of 0.2, 0.6 and 1.0;
deadlines U(1.5, 4) and U(1.5, 12) times a job's run alone.  volery
told the deadlines (least slack first) against FIFO (the same jobs,
deadlines not told, only measured); the middle 32 jobs counted; and the
forecast at submit against the job's end.  Then an office's evening
(-e 50): half the desks in use by their people until their batch
windows open, halfway through the arrivals; the forecasts under FIFO
at load 1.0 with the windows told in heartbeats and not told.

usage: tools/seeds-report.py [volery-sim] [seeds]
"""
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SIM = sys.argv[1] if len(sys.argv) > 1 else "build/volery-sim"
SEEDS = int(sys.argv[2]) if len(sys.argv) > 2 else 8


def run_out(opts, seed):
    out = subprocess.run([SIM, "-q", "-s", str(seed)] + opts,
                         capture_output=True, text=True, check=True).stdout
    f = out.strip().split("\n")[-1].split()
    if f[-1] != "ok":
        sys.exit("volery-sim %s -s %d: %s" % (" ".join(opts), seed, out))
    return out, f


def field(out, prefix, word):
    """The number in word `word` of the line that starts with prefix."""
    line = [l for l in out.split("\n") if l.startswith(prefix)][-1]
    return float(line.split()[word].strip("(),%"))


def makespan_runs(f):
    """Makespan and runs per task, from the summary line's words f."""
    return float(f[3]), 1 + float(f[9].rstrip("%")) / 100


def run(opts, seed):
    return makespan_runs(run_out(opts, seed)[1])


def run_waste(opts, seed):
    """Makespan, runs per task and the CPU wasted per task (simulated ms,
    the thesis' seconds; -b, one seed: volery-sim prints the cpu line)."""
    out, f = run_out(opts, seed)
    wasted = field(out, "cpu:", 1) - field(out, "cpu:", 4)
    return makespan_runs(f) + (wasted * 1000 / int(f[2]),)


def run_cpu(opts, seed):
    """Makespan and the CPU wasted, per cent (volery-sim -x prints it)."""
    out, f = run_out(opts, seed)
    return float(f[3]), field(out, "cpu:", 7)


def paired(fn, opts, seeds=None):
    """fn(opts, seed) for seeds 1.. (SEEDS), two at a time."""
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(lambda s: fn(opts, s),
                           range(1, (seeds or SEEDS) + 1)))


def cell(opts):
    r = paired(run, opts)
    return [m for m, _ in r], statistics.mean(x for _, x in r)


def cell_waste(opts, seeds=None):
    """Makespans, mean runs per task, mean ms wasted per task."""
    r = paired(run_waste, opts, seeds)
    return ([m for m, _, _ in r], statistics.mean(x for _, x, _ in r),
            statistics.mean(w for _, _, w in r))


def vs(a, base):
    """Mean paired change, per cent, and its standard error."""
    d = [100 * (x / b - 1) for x, b in zip(a, base)]
    se = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else 0
    return "%+.1f ± %.1f %%" % (statistics.mean(d), se)


# The thesis' workloads: 80 % of one type, 10 % each other; tasks for
# 100 000 s of work a desktop (the thesis: 10^6 s on each of 1000 nodes).
WORKLOAD_TASKS = {"S": 792, "M": 432, "L": 156}


def e1():
    seeds = min(SEEDS, 6)
    common = "-n 20 -w mix -T 1000 -E 40 -u 10000,1000 -b 1".split()
    fcfs, fit = ["-o", "fcfs", "-I", "blind"], ["-o", "fcfs", "-I", "fit"]
    scen = [("exp", 90, "S", "−1.37 %"), ("exp", 50, "S", "−16.88 %"),
            ("exp", 50, "M", "−16.97 %; 837.6 → 529.9 s"),
            ("exp", 50, "L", "−15.92 %"), ("exp", 10, "S", "−19.13 %"),
            ("exp", 10, "M", "−20.46 %"), ("weibull", 50, "M", "-")]
    print("E1 (000 ch. 4): makespan against the thesis' FCFS (blind), %d "
          "paired seeds; runs per task; time wasted per task (thesis s)"
          % seeds)
    print()
    print("| law | stable/unstable | workload | FCFS | fit (BFGC) "
          "| fit + lret | thesis, BFGC |")
    print("|---|---|---|---|---|---|---|")
    for law, stable, wl, thesis in scen:
        base = common + ["-a", law, "-N", str(stable), "-p", wl, "-t",
                         str(WORKLOAD_TASKS[wl])]
        f, fr, fw = cell_waste(base + fcfs, seeds)
        b, br, bw = cell_waste(base + fit, seeds)
        l, lr, lw = cell_waste(base + ["-o", "lret", "-I", "fit"], seeds)
        print("| %s | %d/%d | %s | %.1f s, %.2f runs, %.0f s | %s, %.2f, "
              "%.0f s | %s, %.2f, %.0f s | %s |" % (
                  law, stable, 100 - stable, wl, statistics.mean(f), fr, fw,
                  vs(b, f), br, bw, vs(l, f), lr, lw, thesis))
    print()
    kseeds = min(seeds, 3)
    print("Estimates off by up to k (runs take U(l/k, l*k)): the fit against "
          "FCFS, %d paired seeds; tasks dropped (k = 1: the table above)"
          % kseeds)
    print()
    print("| scenario | k = 2 | k = 3 | dropped |")
    print("|---|---|---|---|")
    for stable, wl, name in ((90, "S", "small/stable"),
                             (50, "L", "large/mixed"),
                             (10, "M", "medium/unstable")):
        row = []
        for k in (2, 3):
            base = (common[:-1] + [str(k), "-a", "exp", "-N", str(stable),
                                   "-p", wl, "-t", str(WORKLOAD_TASKS[wl])])
            f, _, _ = cell_waste(base + fcfs, kseeds)
            b, _, _ = cell_waste(base + fit, kseeds)
            row.append(vs(b, f))
        # Every run's workload done ('ok'): volery drops no task.
        print("| %s | %s | 0 |" % (name, " | ".join(row)))
    print()


def lret():
    print("LRET on residual time (001's task selection), 9 desktops, no "
          "faults: makespan against fcfs, %d paired seeds" % SEEDS)
    print()
    print("| tasks per desktop | fcfs | lret | sret |")
    print("|---|---|---|---|")
    for rr in (3, 10, 50):
        base = ("-n 9 -w mix -T 100 -E 30 -t %d" % (9 * rr)).split()
        f, _ = cell(base + ["-o", "fcfs"])
        l, _ = cell(base + ["-o", "lret"])
        s, _ = cell(base + ["-o", "sret"])
        print("| %d | %.2f s | %s | %s |" % (rr, statistics.mean(f),
                                            vs(l, f), vs(s, f)))
    print()


def e3():
    # At 85 nodes a run takes 10-70 s: four seeds on the public grid, two
    # on the enterprise one (its machines alike, its runs the longest).
    nseeds = {"public": min(SEEDS, 4), "enterprise": min(SEEDS, 2)}
    common = ("-n 85 -w bot -T 35000 -E 340 -m 10 -x 2 -i 5000 -z 6000 "
              "-a weibull -N 0").split()
    wqr = ["-o", "fcfs", "-I", "blind"]
    ours = ["-o", "lret", "-I", "informed"]
    paper = {("public", 3): "0.82", ("public", 10): "0.93",
             ("public", 50): "0.97", ("enterprise", 3): "0.90"}
    print("E3 (001 section IV): completion time normalised to WQR-FT, "
          "paired seeds (%d public, %d enterprise); CPU wasted" % (
              nseeds["public"], nseeds["enterprise"]))
    print()
    print("| grid | lengths | RR | WQR-FT | LRET-EffCPU (volery): ratio "
          "(range) | paper's ratio |")
    print("|---|---|---|---|---|---|")
    rrs = [int(x) for x in os.environ.get("RR", "3").split()]
    # Lengths learned: the type's mean (one type: lret cannot rank); told:
    # each task's length given at submit (-b 1), as the paper's LRET has.
    for grid, up, told in (("public", 100000, 0), ("public", 100000, 1),
                           ("enterprise", 10000000, 1)):
        for rr in rrs:
            if grid == "enterprise" and rr != 3:
                continue
            base = common + ["-V", grid, "-u", "%d,120" % up,
                             "-t", str(85 * rr)] + (["-b", "1"] if told
                                                    else [])
            seeds = nseeds[grid]
            w = paired(run_cpu, base + wqr, seeds)
            o = paired(run_cpu, base + ours, seeds)
            ratio = [a[0] / b[0] for a, b in zip(o, w)]
            print("| %s | %s | %d | %.1f s, %.1f %% wasted | %.2f "
                  "(%.2f-%.2f), %.1f %% wasted | %s |" % (
                      grid, "told" if told else "learned", rr,
                      statistics.mean(x[0] for x in w),
                      statistics.mean(x[1] for x in w),
                      statistics.mean(ratio), min(ratio), max(ratio),
                      statistics.mean(x[1] for x in o),
                      paper.get((grid, rr), "-")))
    print()


def e2():
    print("E2 (000 ch. 2): 20 nodes, 400 tasks arriving as a Poisson "
          "process; collisions and the time from a free node to a start, "
          "1 seed a cell")
    print()
    print("| load | max 2 s | max 20 s | max 150 s | thesis |")
    print("|---|---|---|---|---|")
    thesis = {0.2: "> 5 % collisions, < 40 ms",
              1.0: "< 1 %, < 40 ms", 2.0: "~0.5 %, < 40 ms"}
    for load in (0.2, 1.0, 2.0):
        opts = [["-n", "20", "-w", "poisson", "-t", "400", "-T",
                 str(m * 1000), "-J", str(load)] for m in (2, 20, 150)]
        with ThreadPoolExecutor(2) as ex:
            outs = list(ex.map(lambda o: run_out(o, 1)[0], opts))
        print("| %.1f | %s | %s |" % (load, " | ".join(
            "%.2f %%, %.1f ms" % (field(o, "collisions:", 11),
                                  field(o, "scheduling:", 1))
            for o in outs), thesis[load]))
    print()


def e4():
    print("E4 (002 section 5.3, experiment 1): 100 nodes, 40 jobs "
          "arriving as a Poisson process; jobs that missed their "
          "deadline, FIFO against volery told them (least slack first); "
          "forecasts at submit within 10 % of the end; 1 seed a cell")
    print()
    print("| deadlines | load | FIFO missed | volery missed | forecasts "
          "within 10 % (FIFO, volery) |")
    print("|---|---|---|---|---|")
    for factor in (4, 12):
        for load in (0.2, 0.6, 1.0):
            base = ["-n", "100", "-w", "jobs", "-k", "40", "-T", "2000",
                    "-J", str(load), "-D", str(factor)]
            with ThreadPoolExecutor(2) as ex:
                fifo, told = ex.map(lambda o: run_out(o, 1)[0],
                                    [base + ["-f"], base])
            print("| 1.5-%dx | %.1f | %.1f %% | %.1f %% | %.0f %%, %.0f %% |"
                  % (factor, load, field(fifo, "jobs:", 9),
                     field(told, "jobs:", 9), field(fifo, "forecasts:", 2),
                     field(told, "forecasts:", 2)))
    print()
    base = ["-n", "100", "-w", "jobs", "-k", "40", "-T", "2000", "-J", "1.0",
            "-D", "4", "-f"]
    with ThreadPoolExecutor(2) as ex:
        told, untold = ex.map(lambda o: run_out(o, 1)[0],
                              [base + ["-e", "50"], base + ["-e", "50,untold"]])
    print("An office's evening, half the desks in use till their batch "
          "windows open halfway (FIFO, load 1.0, 1.5-4x): forecasts within "
          "10 %% of the end %.0f %% with the windows told, %.0f %% "
          "without; 90th percentile error %.1f %% and %.1f %%"
          % (field(told, "forecasts:", 2), field(untold, "forecasts:", 2),
             field(told, "forecasts:", 13), field(untold, "forecasts:", 13)))
    print()


if __name__ == "__main__":
    e1()
    lret()
    e2()
    e3()
    e4()

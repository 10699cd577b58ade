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
50/50 and 10/90 stable/unstable.  Makespan against FCFS (volery's
informed placement, fcfs order), and runs per task.

The residual-time LRET of Anglano et al. (001) on the same bag: lret
against fcfs, no faults, 3, 10 and 50 tasks per desktop.

usage: tools/seeds-report.py [volery-sim] [seeds]
"""
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SIM = sys.argv[1] if len(sys.argv) > 1 else "build/volery-sim"
SEEDS = int(sys.argv[2]) if len(sys.argv) > 2 else 8


def run(opts, seed):
    out = subprocess.run([SIM, "-q", "-s", str(seed)] + opts,
                         capture_output=True, text=True, check=True).stdout
    f = out.strip().split("\n")[-1].split()
    if f[-1] != "ok":
        sys.exit("volery-sim %s -s %d: %s" % (" ".join(opts), seed, out))
    return float(f[3]), 1 + float(f[9].rstrip("%")) / 100


def cell(opts):
    with ThreadPoolExecutor(2) as ex:
        r = list(ex.map(lambda s: run(opts, s), range(1, SEEDS + 1)))
    return [m for m, _ in r], statistics.mean(x for _, x in r)


def vs(a, base):
    """Mean paired change, per cent, and its standard error."""
    d = [100 * (x / b - 1) for x, b in zip(a, base)]
    se = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else 0
    return "%+.1f ± %.1f %%" % (statistics.mean(d), se)


def e1():
    common = "-n 20 -w mix -t 400 -T 1000 -E 40 -u 10000,1000".split()
    thesis = {90: "−1.4 %", 50: "−16.9 to −17.0 %", 10: "−17.8 to −20.5 %"}
    print("E1 (000 ch. 4): makespan against FCFS, %d paired seeds; runs "
          "per task" % SEEDS)
    print()
    print("| law | stable/unstable | FCFS | fit (BFGC) | lret | fit + lret "
          "| thesis, BFGC |")
    print("|---|---|---|---|---|---|---|")
    for law in ("exp", "weibull"):
        for stable in (90, 50, 10):
            base = common + ["-a", law, "-N", str(stable)]
            f, fr = cell(base + ["-o", "fcfs"])
            b, br = cell(base + ["-o", "fcfs", "-I", "fit"])
            o, orr = cell(base + ["-o", "lret"])
            l, lr = cell(base + ["-o", "lret", "-I", "fit"])
            print("| %s | %d/%d | %.1f s, %.2f runs | %s, %.2f | %s, %.2f "
                  "| %s, %.2f | %s |" % (law, stable, 100 - stable,
                                         statistics.mean(f), fr, vs(b, f), br,
                                         vs(o, f), orr, vs(l, f), lr,
                                         thesis[stable] if law == "exp"
                                         else "-"))
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
    print("Not yet: tail replication and WQR-FT (E3's baseline), "
          "deadlines (E4), E2's load sweep.")


if __name__ == "__main__":
    e1()
    lret()

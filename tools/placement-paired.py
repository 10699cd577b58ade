#!/usr/bin/env python3
"""Compare two simulator builds' informed placement seed by seed.

The placement report's ratios move by several per cent with any change
of the pool's timing, even over 50 seeds; the difference of the same
seed's bag completion under two builds is far steadier.  Prints, per
configuration, the mean difference (A - B, seconds: below 0, A is
faster), its standard error, and how many seeds each build won.

usage: tools/placement-paired.py A B [seeds] -- 'OPTIONS' ...
  e.g. tools/placement-paired.py build/new/volery-sim build/volery-sim \\
       50 -- '-t 27 -V 0.25-4 -a weibull' '-t 90 -V 0.5-2'
B may be the word "blind": build A's blind placement, so that the
differences are informed minus blind on one build (the ratio of the
means is the placement report's).
"""
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def completion(sim, seed, opts, placement="informed"):
    out = subprocess.run(
        [sim, "-q", "-n", "9", "-w", "bag", "-T", "2000", "-E", "90",
         "-s", str(seed)] + opts + ["-I", placement],
        capture_output=True, text=True, check=True).stdout
    return float(out.strip().split("\n")[-1].split()[3])


def main(argv):
    if "--" not in argv or argv.index("--") < 2:
        sys.exit(__doc__)
    head, configs = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    a, b = head[0], head[1]
    seeds = int(head[2]) if len(head) > 2 else 50
    for cfg in configs:
        opts = cfg.split()
        with ThreadPoolExecutor(2) as ex:
            ta = list(ex.map(lambda s: completion(a, s, opts),
                             range(1, seeds + 1)))
            if b == "blind":
                tb = list(ex.map(lambda s: completion(a, s, opts, "blind"),
                                 range(1, seeds + 1)))
            else:
                tb = list(ex.map(lambda s: completion(b, s, opts),
                                 range(1, seeds + 1)))
        d = [x - y for x, y in zip(ta, tb)]
        se = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else 0
        print("%-40s A-B %+.3f s +- %.3f  A won %d, B won %d  "
              "(means %.2f, %.2f; ratio %.3f)" % (
                  cfg, statistics.mean(d), se, sum(x < 0 for x in d),
                  sum(x > 0 for x in d), statistics.mean(ta),
                  statistics.mean(tb),
                  statistics.mean(ta) / statistics.mean(tb)))


if __name__ == "__main__":
    main(sys.argv[1:])

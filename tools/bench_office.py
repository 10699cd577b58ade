#!/usr/bin/env python3
"""make bench-office: a whole office on this machine (issue 40 point 3).
As root: --nodes `volery serve` processes, each in its own network
namespace on one bridge (test/integration/lan.py), one slot each, the
default timings.  Numbers, not assertions, printed beside the
simulator's cell for the same settings.

  python3 tools/bench_office.py [--nodes 100] [--tasks 1000] [--idle 30]

1. Boot: from the first `volery serve` to every node naming the same
   single master and listing every node.
2. Idle: over --idle s, each node's CPU (schedstat: % of a core), its
   anonymous memory, and the UDP datagrams it received and sent (its
   namespace's /proc/net/snmp), per second.
3. Throughput: --tasks trivial tasks (the import sample with no work),
   an equal share scheduled on every node at once, first SCHEDULE to
   last Terminated; duplicate starts, from every node's log.
4. A node killed -9 while it runs a task: how long until the task runs
   elsewhere, beside failure_timeout_ms (the promise).
5. volery-sim's row for the same pool: nodes, trivial bag, no loss.
"""
import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "integration"))
sys.path.insert(0, HERE)
import lan  # noqa: E402
from harness import params_file  # noqa: E402
from bench_cluster import throughput  # noqa: E402
from bench_lan import node_cost  # noqa: E402

FAILURE_TIMEOUT_MS = 2000       # the default (src/core/nodeconfig.c)


# The kernel keeps one neighbour (ARP) table for every namespace, of
# gc_thresh3 entries (1024): a hundred hosts that each know 99 others
# need ten times that, and beyond it unicasts are dropped (IpOutDiscards)
# -- a limit of this rig, not of an office, where each host has its own.
NEIGH = {"net.ipv4.neigh.default.gc_thresh2": 16384,
         "net.ipv4.neigh.default.gc_thresh3": 16384}


def sysctl(name, value=None):
    if value is None:
        return subprocess.run(["sysctl", "-n", name], capture_output=True,
                              text=True, check=True).stdout.strip()
    subprocess.run(["sysctl", "-qw", "%s=%s" % (name, value)], check=True)
    return None


def snmp_udp(netns):
    """(InDatagrams, OutDatagrams) of a namespace so far."""
    text = subprocess.run(["ip", "netns", "exec", netns, "cat",
                           "/proc/net/snmp"], capture_output=True, text=True,
                          check=True).stdout
    rows = [l.split() for l in text.splitlines() if l.startswith("Udp:")]
    udp = dict(zip(rows[0][1:], rows[1][1:]))
    return int(udp["InDatagrams"]), int(udp["OutDatagrams"])


def views(clients):
    """Each node's (master, number of nodes listed), or None."""
    out = []
    for c in clients:
        try:
            rows = [r.split() for r in c.ask_multi("NODES")
                    if r.startswith("NODE ")]
        except (OSError, AssertionError):
            out.append(None)
            continue
        masters = [r[1] for r in rows if r[3] == "master"]
        out.append((masters[0] if len(masters) == 1 else None, len(rows)))
    return out


def boot(nodes, t0, timeout=300):
    clients = [n.client() for n in nodes]
    while True:
        v = views(clients)
        masters = {x[0] for x in v if x is not None}
        if None not in v and len(masters) == 1 and None not in masters and \
                all(x[1] == len(nodes) for x in v):
            return time.monotonic() - t0, masters.pop(), clients
        if time.monotonic() - t0 > timeout:
            raise RuntimeError("no single master after %d s: %s" %
                               (timeout, collections.Counter(v)))
        time.sleep(0.5)     # NODES is a snapshot: nothing to wait on


def duplicates(nodes):
    starts = collections.Counter()
    for n in nodes:
        starts.update(re.findall(r"Task UUID\{(\S+)\} executable \S+ "
                                 r"started, pid", n.log()))
    return sum(c - 1 for c in starts.values() if c > 1), len(starts)


def kill9(nodes, clients, master):
    """A task of 60 s on a node that is not the master, that node
    killed: ms until the task runs on another node."""
    watcher = clients[[n.name for n in nodes].index(master)]
    u = watcher.ask("RUN long low -- sleep 60").split()[1]
    watcher.ask("SUBSCRIBE " + u)
    seen = watcher.wait_states({u: "Running"}, timeout=60)
    victim = re.search(r"node=(\S+)", seen[-1]).group(1)
    if victim == master:
        return None, victim
    node = nodes[[n.name for n in nodes].index(victim)]
    t0 = time.monotonic()
    node.kill9()
    while True:
        line = watcher.line()
        m = re.search(r"Running node=(\S+)", line)
        if line.startswith("PROGRESS %s" % u) and m and m.group(1) != victim:
            return (time.monotonic() - t0) * 1000, victim


def sim_row(sim, nodes, tasks):
    r = subprocess.run([sim, "-s", "1", "-n", str(nodes), "-w", "bag", "-t",
                        str(tasks), "-T", "5"], capture_output=True,
                       text=True, timeout=1800)
    return r.stdout.strip().splitlines()[-2:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--idle", type=int, default=30)
    ap.add_argument("--sim", default="build/volery-sim")
    # Not below info: duplicates are counted from "started" lines.
    ap.add_argument("--log-level", default="info", choices=("info", "debug"),
                    help="the nodes' <log_level> (debug: every race)")
    ap.add_argument("--keep-logs", metavar="DIR",
                    help="copy each node's log to DIR/NAME.log")
    args = ap.parse_args()
    why = lan.available()
    if why:
        sys.exit("bench-office: " + why)
    n = args.nodes
    saved = {k: sysctl(k) for k in NEIGH}
    try:
        for k, v in NEIGH.items():
            if int(saved[k]) < v:
                sysctl(k, v)
        office(args, n)
    finally:
        for k, v in saved.items():
            sysctl(k, v)


def office(args, n):
    t = time.monotonic()
    net = lan.Lan(n)
    print("%d network namespaces on one bridge in %.1f s" %
          (n, time.monotonic() - t))
    nodes, clients = [], []
    try:
        cluster = "office%d" % (int(time.monotonic() * 1000) % 10**7)
        level = "<log_level>%s</log_level>" % args.log_level
        nodes = [net.node(k, "n%02d" % k, cluster, level) for k in range(n)]
        t0 = time.monotonic()
        for node in nodes:
            node.start()
        started = time.monotonic() - t0
        took, master, clients = boot(nodes, t0)
        print("boot: %d nodes started in %.1f s; every node names master %s "
              "and lists all %d after %.1f s" % (n, started, master, n, took))

        time.sleep(10)      # settle: joins, transfers, quiet heartbeats
        before = [snmp_udp(x.netns) for x in nodes]
        t1 = time.monotonic()
        cpu, mem = node_cost([x.proc.pid for x in nodes], args.idle)
        dt = time.monotonic() - t1
        after = [snmp_udp(x.netns) for x in nodes]
        rx = [(a[0] - b[0]) / dt for a, b in zip(after, before)]
        tx = [(a[1] - b[1]) / dt for a, b in zip(after, before)]
        anon = [m["Anonymous"] for m in mem]
        print("idle over %d s, per node: CPU mean %.3f %% of a core (max "
              "%.3f; all %d together %.1f %%); anonymous memory median %d "
              "KiB (max %d); UDP datagrams received %.1f/s (max %.1f), sent "
              "%.2f/s" % (args.idle, statistics.mean(cpu), max(cpu), n,
                          sum(cpu), statistics.median(anon), max(anon),
                          statistics.mean(rx), max(rx), statistics.mean(tx)))

        zero = params_file(nodes[0].dir, 0)
        per = max(1, args.tasks // n)
        rate = throughput(clients, zero, per)
        dups, ran = duplicates(nodes)
        print("throughput: %d trivial tasks, %d scheduled on each node at "
              "once: %.0f tasks/s; duplicate starts %d (%.2f %% of %d "
              "tasks run)" % (per * n, per, rate, dups,
                              100.0 * dups / max(ran, 1), ran))

        ms, victim = kill9(nodes, clients, master)
        if ms is None:
            print("kill -9: the task ran on the master; not measured")
        else:
            print("kill -9 of %s while it runs a task: running elsewhere "
                  "after %.0f ms (failure_timeout_ms %d)" %
                  (victim, ms, FAILURE_TIMEOUT_MS))
    finally:
        if args.keep_logs:
            os.makedirs(args.keep_logs, exist_ok=True)
            for x in nodes:
                with open(os.path.join(args.keep_logs, x.name + ".log"),
                          "w") as f:
                    f.write(x.log())
        try:
            for c in clients:
                try:
                    c.close()
                except OSError:
                    pass
        finally:
            net.close()
    per = max(1, args.tasks // n)
    if os.path.exists(args.sim):
        print("volery-sim, the same pool (-n %d -w bag -t %d -T 5, no "
              "loss):" % (n, per * n))
        for line in sim_row(args.sim, n, per * n):
            print("  " + line)


if __name__ == "__main__":
    main()

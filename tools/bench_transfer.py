#!/usr/bin/env python3
"""Input files moved by the pool (issue 39; numbers, no assertions).

  make bench-transfer   (or: python3 tools/bench_transfer.py [--mb 1024])

On a LAN of network namespaces (one volery node per host, as root):

  one     a task on h1 over one --mb file that only h0 has: the fetch
          (the runner's log: "input ... fetched, N bytes in M ms"),
          beside `cat file | nc` from h0 to h1 (into a file on h1's
          disk, as the runner's store is), in the same sitting
  fan-out an array of 8 such tasks, one per runner h1..h8, all over the
          same file: the last fetch's end, beside 8 sequential copies
          with cat | nc (the issue: no slower)

The source file is read once before each measure (in the page cache for
both), and the runners' stores are emptied between runs.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "integration"))
import harness  # noqa: E402
import lan  # noqa: E402
from harness import TIMEOUT  # noqa: E402

PORT = 9199


def nc_copy(net, src_host, dst_host, path, out):
    """cat path | nc from src_host to dst_host, into out: seconds."""
    listen = subprocess.Popen(["ip", "netns", "exec", net.ns(dst_host), "sh",
                               "-c", "nc -l -N %d > %s" % (PORT, out)])
    time.sleep(0.3)     # the listener binds; nothing to wait on from here
    started = time.monotonic()
    subprocess.run(["ip", "netns", "exec", net.ns(src_host), "sh", "-c",
                    "cat %s | nc -N %s %d" % (path, net.addr(dst_host), PORT)],
                   check=True)
    listen.wait(TIMEOUT)
    took = time.monotonic() - started
    os.unlink(out)
    return took


def fetch_ms(node):
    """Each 'input ... fetched, N bytes in M ms' of node's log: [ms]."""
    return [int(m) for m in re.findall(r"input \S+ fetched, \d+ bytes in "
                                       r"(\d+) ms", node.log())]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=1024)
    args = ap.parse_args()
    why = lan.available()
    if why:
        sys.exit("bench-transfer: " + why)
    net = lan.Lan(9)
    data = tempfile.mkdtemp(prefix="vtbench")
    nodes = []
    try:
        os.chmod(data, 0o755)   # root's tasks run as a slot user
        path = os.path.join(data, "input.bin")
        with open(path, "wb") as f:
            for _ in range(args.mb):
                f.write(os.urandom(1 << 20))
        os.chmod(path, 0o644)
        cluster = "bt%d" % os.getpid()
        for k in range(9):
            tags = "" if k == 0 else "<tags>runner</tags>"
            node = net.node(k, "h%d" % k, cluster, "<listen>*:7600</listen>"
                            "<mode>dedicated</mode>%s<cache_mb>%d</cache_mb>"
                            "<max_transfer_mb>%d</max_transfer_mb>"
                            % (tags, 4 * args.mb, 4 * args.mb))
            node.start()
            nodes.append(node)
        h0 = nodes[0]
        time.sleep(2)   # the pool forms: heartbeats, an election

        def run(array):
            cmd = ["ip", "netns", "exec", h0.netns, harness.VOLERY, "-H",
                   "127.0.0.1:%d" % h0.port, "run", "--requires", "runner",
                   "--in", "input.bin"]
            if array:
                cmd += ["--array", "1-%d" % array]
            r = subprocess.run(cmd + ["--", "true"], cwd=data,
                               capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                sys.exit(r.stderr)
            uuids = set(r.stdout.split())
            c = h0.client()
            c.ask("SUBSCRIBE " + " ".join(uuids))
            while uuids:
                f = c.line(600).split()
                if f[:1] == ["PROGRESS"] and f[3] == "Failed":
                    for n in nodes:
                        print("\n".join(l for l in n.log().splitlines()
                                        if f[1] in l))
                    sys.exit("a task failed: " + " ".join(f))
                if f[:1] == ["PROGRESS"] and f[3] == "Terminated":
                    uuids.discard(f[1])
            c.close()

        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
        nc1 = nc_copy(net, 0, 1, path, os.path.join(data, "nc.out"))
        run(0)
        one = max(max(fetch_ms(n), default=0) for n in nodes[1:]) / 1000
        mb = args.mb
        print("one      %5d MB  volery %.2f s (%.0f MB/s)  cat|nc %.2f s "
              "(%.0f MB/s)  volery/nc %.2f" % (mb, one, mb / one, nc1,
                                               mb / nc1, nc1 / one))
        for n in nodes[1:]:     # the stores emptied (the node holds the dir)
            store = os.path.join(n.dir, "state", "inputs")
            for name in os.listdir(store):
                os.unlink(os.path.join(store, name))
        seq = sum(nc_copy(net, 0, k, path, os.path.join(data, "nc%d.out" % k))
                  for k in range(1, 9))
        before = {n.name: len(fetch_ms(n)) for n in nodes}
        started = time.monotonic()
        run(8)
        fan = time.monotonic() - started
        fetched = sum(len(fetch_ms(n)) - before[n.name] for n in nodes)
        print("fan-out  8 x %d MB  volery %.2f s (8 tasks, %d fetches, "
              "submit to last end)  8 sequential cat|nc %.2f s  "
              "volery/sequential %.2f" % (mb, fan, fetched, seq, fan / seq))
    finally:
        for n in nodes:
            n.cleanup()
        net.close()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()

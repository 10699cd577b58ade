#!/usr/bin/env python3
"""make bench-bigpost: a big workflow file POSTed to the API while
another client asks NODES over and over (issue 40 point 2: every answer
within 50 ms, the whole submission within 1 s).  Numbers, not assertions.

  python3 tools/bench_bigpost.py [--tasks 4096] [--rounds 3]

Two nodes on loopback serving HTTP; each round POSTs a file of --tasks
commands that need a tag no node has (so nothing runs) to the first
node, and prints the POST's time and the NODES round trips meanwhile:
how many, their median and the longest.
"""
import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "integration"))
from harness import Cluster  # noqa: E402


def one_round(node, ntasks):
    text = "<workflow>\n%s</workflow>\n" % "".join(
        '  <command id="t%d" requires="nowhere"><arg>/bin/true</arg>'
        '</command>\n' % k for k in range(ntasks))
    body = json.dumps({"name": "big.xml", "text": text})
    done = threading.Event()
    waits = []

    def ask():
        c = node.client()
        try:
            while not done.is_set():
                t0 = time.monotonic()
                c.ask_multi("NODES")
                waits.append((time.monotonic() - t0) * 1000)
        finally:
            c.close()

    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(0.2)
    h = http.client.HTTPConnection("127.0.0.1", node.http_port(), timeout=300)
    try:
        t0 = time.monotonic()
        h.request("POST", "/api/workflows", body=body,
                  headers={"Content-Type": "application/json"})
        r = h.getresponse()
        r.read()
        took = time.monotonic() - t0
    finally:
        h.close()
        time.sleep(0.2)
        done.set()
        asker.join()
    return r.status, took, waits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    cl = Cluster.with_dashboard(names=("a", "b"))
    try:
        for k in range(args.rounds):
            status, took, waits = one_round(cl.nodes["a"], args.tasks)
            print("round %d: POST of %d tasks: %d in %.2f s; %d NODES "
                  "meanwhile, median %.1f ms, longest %.1f ms"
                  % (k + 1, args.tasks, status, took, len(waits),
                     statistics.median(waits), max(waits)), flush=True)
    finally:
        cl.cleanup()


if __name__ == "__main__":
    main()

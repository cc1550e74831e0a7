#!/usr/bin/python3
"""Python against the command line: N predictions through the bindings (edgetwin.predict, one
forked child each), the same N as `edgetwin predict --json` processes started from Python and
parsed, and the bindings from 2 threads. Prints each loop's wall time, per call, and the load
average around it (docs/explanation/performance.md, *Python against the command line*).

Usage: PYTHONPATH=build/python bench/python_predict_bench.py [N] [device] [workload] [modules]
modules: a comma list imported first (torch,pandas: a notebook's interpreter, whose larger
address space each fork copies the page tables of).
The settings cycle over workers 0, 1, 2, 4 at the workload's batch size, one epoch each; the
first call of each kind is left out of the timing (page cache, imports).
"""

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import edgetwin

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
DEVICE = sys.argv[2] if len(sys.argv) > 2 else "jetson-nano"
WORKLOAD = sys.argv[3] if len(sys.argv) > 3 else "lenet-mnist"
for module in filter(None, (sys.argv[4] if len(sys.argv) > 4 else "").split(",")):
    __import__(module)
WORKERS = [0, 1, 2, 4]
PROGRAM = edgetwin.program("edgetwin")


def through_bindings(i):
    return edgetwin.predict(DEVICE, WORKLOAD, workers=WORKERS[i % len(WORKERS)]).epochs[0].e2e_s


def through_processes(i):
    done = subprocess.run([PROGRAM, "predict", "--json", "--device", DEVICE, "--workload", WORKLOAD, "--workers",
                           str(WORKERS[i % len(WORKERS)])], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["epochs"][0]["e2e_s"]


def timed(name, loop):
    loop(-1)  # warm: imports, page cache
    before = os.getloadavg()
    start = time.perf_counter()
    results = loop(N)
    seconds = time.perf_counter() - start
    after = os.getloadavg()
    print(f"{name:<34} {N} calls in {seconds:7.2f} s, {seconds / N * 1e3:6.2f} ms a call "
          f"(load average {before[0]:.2f} before, {after[0]:.2f} after)")
    return results


def serial(function):
    return lambda n: [function(i) for i in range(max(n, 1))]


def threaded(n):
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(through_bindings, range(max(n, 1))))


with open("/proc/self/status") as status:
    rss = next(line.split()[1] for line in status if line.startswith("VmRSS:"))
print(f"{N} predictions of {WORKLOAD} on {DEVICE}, workers cycling over {WORKERS}; {os.cpu_count()} CPUs; "
      f"this interpreter's resident set {int(rss) / 1024:.0f} MiB")
bindings = timed("edgetwin.predict (bindings)", serial(through_bindings))
processes = timed("edgetwin predict --json (processes)", serial(through_processes))
together = timed("edgetwin.predict, 2 threads", threaded)
assert bindings == processes == together, "the bindings and the command line disagree"
print("the three loops returned the same figures")

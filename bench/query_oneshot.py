#!/usr/bin/env python3
"""One-shot wall time: `gpuwatch query` against `nvidia-smi --query-gpu`, same fields, same
format, alternating runs (hyperfine is not on the GPU machine: a Python timing loop instead).

    python3 bench/query_oneshot.py [--runs 20] [--gpuwatch build/gpuwatch] [--fields LIST]
                                   [--floor build/nvml_init]

Prints min / median / mean milliseconds per tool and the ratio of the medians (target: gpuwatch
at most 1/2 of nvidia-smi). Without nvidia-smi only gpuwatch is timed. With --floor, also
`true` (starting a process from here) and `nvml_init floor` (a C program doing only nvmlInit,
the first handle and nvmlShutdown: the least any NVML command pays), and what gpuwatch adds on
top of that floor."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_fields import NVSMI_FIELDS  # noqa: E402


def once(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({r.returncode}): {r.stderr.decode(errors='replace')[:300]}")
    return dt * 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--fields", default=NVSMI_FIELDS)
    ap.add_argument("--floor", default=None, help="bench/nvml_init.c's binary: time its floor mode")
    a = ap.parse_args()
    tools = {"gpuwatch query": [a.gpuwatch, "query", "--query-gpu=" + a.fields, "--format=csv"]}
    if a.floor:
        tools["true (process start)"] = ["true"]
        tools["NVML floor (nvml_init)"] = [a.floor, "floor"]
    if shutil.which("nvidia-smi"):
        tools["nvidia-smi --query-gpu"] = ["nvidia-smi", "--query-gpu=" + a.fields,
                                           "--format=csv"]
    else:
        print("(nvidia-smi not found: timing gpuwatch only)", file=sys.stderr)
    for cmd in tools.values():  # warm the page cache and the driver
        once(cmd)
    times = {name: [] for name in tools}
    for _ in range(a.runs):
        for name, cmd in tools.items():
            times[name].append(once(cmd))
    print(f"one-shot wall time over {a.runs} runs each ({len(a.fields.split(','))} fields)")
    print(f"{'tool':<24} {'min ms':>8} {'median':>8} {'mean':>8}")
    for name, t in times.items():
        print(f"{name:<24} {min(t):8.2f} {statistics.median(t):8.2f} {statistics.mean(t):8.2f}")
    med = {name: statistics.median(t) for name, t in times.items()}
    g = med["gpuwatch query"]
    n = med.get("nvidia-smi --query-gpu")
    f = med.get("NVML floor (nvml_init)")
    if n:
        print(f"ratio gpuwatch / nvidia-smi (medians): {g / n:.3f} (target <= 0.5)")
    if f:
        print(f"gpuwatch above the NVML floor (medians): {g - f:+.2f} ms")
        if n:
            print(f"ratio NVML floor / nvidia-smi (medians): {f / n:.3f} (the best gpuwatch can do)")


if __name__ == "__main__":
    main()

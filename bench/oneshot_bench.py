#!/usr/bin/env python3
"""One-shot commands timed side by side: `gpuwatch query` (the 38 fields of bench/query_fields.py),
the compact `gpuwatch` view and `gpuwatch mark` outside a run, for this build and, with --before,
an older one, next to `nvidia-smi --query-gpu` with the same fields, plain `nvidia-smi` and `true`
(a process start, for scale). Runs alternate; prints min / median / mean ms and each median's
ratio to nvidia-smi --query-gpu's (the goal for query: at most 0.5).

    python3 bench/oneshot_bench.py [--runs 30] [--gpuwatch build/gpuwatch] [--before OLD/gpuwatch]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_fields import NVSMI_FIELDS  # noqa: E402


def once(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = (time.perf_counter() - t0) * 1000.0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)[:80]} failed ({r.returncode}): "
                 f"{r.stderr.decode(errors='replace')[:300]}")
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--before", help="an older gpuwatch binary to time beside this one")
    a = ap.parse_args()
    env = dict(os.environ)
    env.pop("GPUWATCH_RUN_DIR", None)
    env["NO_COLOR"] = "1"
    tools = {}
    if shutil.which("nvidia-smi"):
        tools["nvidia-smi --query-gpu"] = ["nvidia-smi", "--query-gpu=" + NVSMI_FIELDS,
                                           "--format=csv"]
        tools["nvidia-smi"] = ["nvidia-smi"]
    builds = [("", a.gpuwatch)] + ([("before ", a.before)] if a.before else [])
    for tag, gw in builds:
        tools[tag + "gpuwatch query"] = [gw, "query", "--query-gpu=" + NVSMI_FIELDS,
                                         "--format=csv"]
        tools[tag + "gpuwatch"] = [gw]
        tools[tag + "gpuwatch mark"] = [gw, "mark", "x"]
    tools["true"] = ["true"]
    for cmd in tools.values():  # warm the page cache and the driver
        once(cmd, env)
    times = {name: [] for name in tools}
    for _ in range(a.runs):
        for name, cmd in tools.items():
            times[name].append(once(cmd, env))
    ref = statistics.median(times["nvidia-smi --query-gpu"]) if "nvidia-smi" in tools else None
    print(f"wall time of one command, {a.runs} runs each ({len(NVSMI_FIELDS.split(','))} fields)")
    print(f"{'command':<24} {'min ms':>8} {'median':>8} {'mean':>8} {'/ nvsmi':>8}")
    for name, t in times.items():
        ratio = f"{statistics.median(t) / ref:8.3f}" if ref else f"{'':>8}"
        print(f"{name:<24} {min(t):8.2f} {statistics.median(t):8.2f} {statistics.mean(t):8.2f} "
              f"{ratio}")


if __name__ == "__main__":
    main()

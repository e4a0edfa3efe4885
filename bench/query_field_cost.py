#!/usr/bin/env python3
"""What each --query-gpu field adds to a one-shot `gpuwatch query`: the median wall time of
`query --query-gpu=index,FIELDS` against `--query-gpu=index` alone (the cost of starting, loading
and initialising NVML and opening the GPUs), group by group, and `nvidia-smi --query-gpu=index`
beside it. On a real GPU the first call of each kind in a process costs milliseconds (the values
are not cached yet), so this is where a one-shot's time goes (docs/performance.md, "One-shot").

    python3 bench/query_field_cost.py [--runs 12] [--gpuwatch build/gpuwatch]"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_fields import NVSMI_FIELDS  # noqa: E402

GROUPS = ["name,uuid,pci.bus_id", "driver_version", "utilization.gpu,utilization.memory",
          "memory.total,memory.used,memory.free,memory.reserved", "temperature.gpu",
          "temperature.memory", "power.draw", "power.limit", "enforced.power.limit",
          "clocks.sm,clocks.mem,clocks.gr", "clocks.max.sm", "clocks.max.mem",
          "clocks_event_reasons.active", "pstate", "fan.speed",
          "pcie.link.gen.current,pcie.link.gen.max",
          "pcie.link.width.current,pcie.link.width.max", "ecc.errors.uncorrected.volatile.total",
          "gpm.sm_active"]


def wall_ms(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    a = ap.parse_args()
    cmds = {"index": "index"}
    cmds.update({g: "index," + g for g in GROUPS})
    cmds["all 38 fields"] = NVSMI_FIELDS
    res = {name: [] for name in cmds}
    nvsmi = shutil.which("nvidia-smi")
    if nvsmi:
        res["nvidia-smi --query-gpu=index"] = []
    for _ in range(a.runs):
        for name, fields in cmds.items():
            res[name].append(wall_ms([a.gpuwatch, "query", "--query-gpu=" + fields,
                                      "--format=csv"]))
        if nvsmi:
            res["nvidia-smi --query-gpu=index"].append(
                wall_ms([nvsmi, "--query-gpu=index", "--format=csv"]))
    base = statistics.median(res["index"])
    for name, v in res.items():
        m = statistics.median(v)
        print(f"{name[:56]:<56} {m:7.2f} ms  ({m - base:+6.2f} over index)")


if __name__ == "__main__":
    main()

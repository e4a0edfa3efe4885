#!/usr/bin/env python3
"""Benchmark `gpuwatch report` against pandas on a generated nvidia-smi log.

Generates `nvidia-smi --query-gpu=timestamp,name,pci.bus_id,utilization.gpu,utilization.memory,
memory.used,memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,
clocks_event_reasons.active,pstate --format=csv` output (units inside values, local time, GPUs
interleaved) for GPUS GPUs over HOURS hours at HZ samples per second, then times
  1. gpuwatch report LOG --json OUT       (full analysis: phases, stats, verdicts)
  2. pandas: read_csv, strip units, groupby GPU, describe(5/50/95 %)   (when pandas imports)
each in its own process, and prints wall time and peak RSS side by side.

usage: bench/report_bench.py [--gpus 8] [--hours 24] [--hz 1] [--keep DIR]
Default: 8 GPUs x 24 h x 1 Hz = 691,200 rows (~100 MB). The issue's full size is --hz 10.
Speed is reported, never asserted.
"""
import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

HEADER = ("timestamp, name, pci.bus_id, utilization.gpu [%], utilization.memory [%], "
          "memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W], "
          "power.limit [W], clocks.current.sm [MHz], clocks_event_reasons.active, pstate\n")

PANDAS = r"""
import sys, pandas as pd
df = pd.read_csv(sys.argv[1], skipinitialspace=True)
units = ["utilization.gpu [%]", "utilization.memory [%]", "memory.used [MiB]",
         "memory.total [MiB]", "power.draw [W]", "power.limit [W]", "clocks.current.sm [MHz]"]
for c in units:
    df[c] = pd.to_numeric(df[c].str.split(" ", n=1).str[0], errors="coerce")
df["timestamp"] = pd.to_datetime(df["timestamp"], format="%Y/%m/%d %H:%M:%S.%f")
cols = units + ["temperature.gpu"]
out = df.groupby("pci.bus_id")[cols].describe(percentiles=[0.05, 0.5, 0.95])
print(out.shape)
"""


def generate(path, gpus, hours, hz):
    rnd = random.Random(1)
    n = int(hours * 3600 * hz)
    t0 = time.mktime((2026, 11, 30, 0, 0, 0, 0, 0, -1))
    step = 1.0 / hz
    with open(path, "w") as f:
        f.write(HEADER)
        buf = []
        for i in range(n):
            t = t0 + i * step
            ts = time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(t)) + ".%03d" % (
                int(round((t % 1) * 1000)) % 1000)
            phase = (i // int(600 * hz)) % 6  # 10-minute blocks: mostly busy, some idle
            for g in range(gpus):
                busy = phase != 5 and not (g == 7 and phase == 4)
                util = rnd.randint(92, 100) if busy else rnd.randint(0, 3)
                mem = 40000 + g * 100 + (i % 1000) if busy else 600
                power = 600 + rnd.random() * 80 if busy else 80 + rnd.random() * 5
                buf.append(f"{ts}, NVIDIA H200, 00000000:{0x10 + g:02X}:00.0, {util} %, "
                           f"{util // 2} %, {mem} MiB, 143771 MiB, {40 + util // 5}, "
                           f"{power:.2f} W, 700.00 W, {1980 if busy else 345} MHz, "
                           f"0x000000000000000{0 if busy else 1}, P0\n")
            if len(buf) > 20000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
    return n * gpus


def measure(cmd):
    """Runs cmd in a child; returns (wall seconds, peak RSS MiB of that child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({p.returncode}): {p.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: run the smaller program first.
    return wall, max(after, before) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--hours", type=float, default=24)
    ap.add_argument("--hz", type=float, default=1)
    ap.add_argument("--keep", help="write the log here and keep it")
    ap.add_argument("--bin", default=os.environ.get("GPUWATCH_BIN", "build/gpuwatch"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gwbench")
    log = a.keep or os.path.join(tmp, "nvsmi.csv")
    t = time.perf_counter()
    rows = generate(log, a.gpus, a.hours, a.hz)
    size_mb = os.path.getsize(log) / 1e6
    print(f"generated {rows:,} rows ({size_mb:.0f} MB) in {time.perf_counter() - t:.1f} s: {log}")
    results = [("gpuwatch report --json", *measure([a.bin, "report", log, "--json",
                                                     os.path.join(tmp, "summary.json")]))]
    try:
        import pandas  # noqa: F401
        results.append(("pandas read_csv+describe",
                        *measure([sys.executable, "-c", PANDAS, log])))
    except ImportError:
        print("pandas is not importable here: only gpuwatch is timed "
              "(Debian: apt-get install python3-pandas)")
    print(f"\n{'program':<28}{'wall s':>10}{'peak RSS MiB':>15}{'rows/s':>14}")
    for name, wall, rss in results:
        print(f"{name:<28}{wall:>10.2f}{rss:>15.0f}{rows / wall:>14,.0f}")
    if len(results) == 2:
        (_, gw_t, gw_m), (_, pd_t, pd_m) = results
        print(f"\npandas / gpuwatch: {pd_t / gw_t:.1f}x the time, {pd_m / gw_m:.1f}x the memory")
    if not a.keep:
        os.remove(log)


if __name__ == "__main__":
    main()

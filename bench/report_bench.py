#!/usr/bin/env python3
"""Benchmark `gpuwatch report` against pandas on a generated nvidia-smi log.

Generates `nvidia-smi --query-gpu=timestamp,name,pci.bus_id,utilization.gpu,utilization.memory,
memory.used,memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,
clocks_event_reasons.active,pstate --format=csv` output (units inside values, local time, GPUs
interleaved) for GPUS GPUs over HOURS hours at HZ samples per second, then times
  1. gpuwatch report LOG --json OUT       (full analysis: phases, stats, verdicts)
  2. pandas: read_csv, strip units, groupby GPU, describe(5/50/95 %)   (when pandas imports)
each in its own process, and prints wall time and peak RSS side by side.

With --format gpuwatch the input is gpuwatch's own gpu.csv (numbers without units, ISO UTC
times, the columns `gpuwatch record` writes) and pandas reads it as it is: the two formats
give different ratios (issue 28). --rows N sets the total rows (N / GPUS samples a GPU at HZ).

With --peers DIR (a directory where `npm install --prefix DIR @duckdb/node-api nodejs-polars`
ran) DuckDB and Polars compute the same per-GPU statistics from gpu.csv (bench/report_peers.cjs).

usage: bench/report_bench.py [--gpus 8] [--hours 24] [--hz 1] [--rows N]
                             [--format nvsmi|gpuwatch] [--keep DIR] [--peers DIR]
Default: 8 GPUs x 24 h x 1 Hz = 691,200 rows (~100 MB). The issue's full size is --hz 10.
Speed is reported, never asserted.
"""
import argparse
import os
import random
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

PANDAS_GW = r"""
import sys, pandas as pd
df = pd.read_csv(sys.argv[1], skipinitialspace=True)
df["timestamp"] = pd.to_datetime(df["timestamp"], format="%Y-%m-%dT%H:%M:%S.%fZ")
cols = [c for c in df.columns if c not in ("timestamp", "index", "clocks_event_reasons.active",
                                           "pstate")]
out = df.groupby("index")[cols].describe(percentiles=[0.05, 0.5, 0.95])
print(out.shape)
"""

GW_HEADER = ("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
             "memory.total [MiB], temperature.gpu, power.draw [W], power.limit [W], "
             "clocks.current.sm [MHz], clocks_event_reasons.active, pstate, "
             "total_energy_consumption [mJ]\n")


def generate_gw(path, gpus, n, hz):
    """gpuwatch's gpu.csv: n samples a GPU, GPUs interleaved, values without units."""
    rnd = random.Random(1)
    t0 = int(time.mktime((2026, 11, 30, 0, 0, 0, 0, 0, -1)))
    step_ms = int(round(1000 / hz))
    block = int(600 * hz)
    utils = [rnd.randint(92, 100) for _ in range(997)]
    with open(path, "w") as f:
        f.write(GW_HEADER)
        buf = []
        energy = [0] * gpus
        for i in range(n):
            ms = t0 * 1000 + i * step_ms
            ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (
                ms % 1000)
            phase = (i // block) % 6
            for g in range(gpus):
                busy = phase != 5 and not (g == 7 and phase == 4)
                util = utils[(i * 7 + g) % 997] if busy else utils[(i + g) % 997] - 92
                mem = 40000 + g * 100 + (i % 1000) if busy else 600
                power = 600 + util * 0.8 if busy else 80 + util
                energy[g] += int(power * step_ms)
                buf.append(f"{ts}, {g}, {util}, {util // 2}, {mem}, 143771, {40 + util // 5}, "
                           f"{power:.2f}, 700.00, {1980 if busy else 345}, "
                           f"0x000000000000000{0 if busy else 1}, P0, {energy[g]}\n")
            if len(buf) > 20000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
    return n * gpus


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


def measure(cmd, env=None):
    """Runs cmd in a child; returns (wall s, peak RSS MiB, CPU s) of that child alone (wait4)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{cmd[0]} failed ({status}): {err[-2000:].decode()}")
    return wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--hours", type=float, default=24)
    ap.add_argument("--hz", type=float, default=1)
    ap.add_argument("--no-pandas", action="store_true", help="gpuwatch alone (pandas needs "
                    "~530 bytes a row: 10.6 GB at 20 M rows)")
    ap.add_argument("--peers", help="a directory where `npm install --prefix DIR @duckdb/node-api "
                    "nodejs-polars` was run: DuckDB and Polars are timed too (bench/report_peers.cjs,"
                    " --format gpuwatch only)")
    ap.add_argument("--before", help="an older gpuwatch binary, timed beside --bin")
    ap.add_argument("--rows", type=int, help="total rows (instead of --hours)")
    ap.add_argument("--format", choices=("nvsmi", "gpuwatch"), default="nvsmi")
    ap.add_argument("--keep", help="write the log here and keep it (reused when it exists)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of every program in turn "
                    "(medians; on a shared machine 3 or more)")
    ap.add_argument("--bin", default=os.environ.get("GPUWATCH_BIN", "build/gpuwatch"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gwbench")
    log = a.keep or os.path.join(tmp, "nvsmi.csv" if a.format == "nvsmi" else "gpu.csv")
    t = time.perf_counter()
    per_gpu = a.rows // a.gpus if a.rows else int(a.hours * 3600 * a.hz)
    if a.keep and os.path.exists(log):
        rows = per_gpu * a.gpus
    elif a.format == "gpuwatch":
        rows = generate_gw(log, a.gpus, per_gpu, a.hz)
    else:
        rows = generate(log, a.gpus, per_gpu / 3600 / a.hz, a.hz)
    size_mb = os.path.getsize(log) / 1e6
    print(f"generated {rows:,} rows ({size_mb:.0f} MB) in {time.perf_counter() - t:.1f} s: {log}")
    programs = [("gpuwatch report --json",
                 [a.bin, "report", log, "--json", os.path.join(tmp, "summary.json")], None)]
    if a.before:
        programs.append(("before: report --json",
                         [a.before, "report", log, "--json", os.path.join(tmp, "old.json")], None))
    try:
        if a.no_pandas:
            raise ImportError
        import pandas  # noqa: F401
        programs.append(("pandas read_csv+describe",
                         [sys.executable, "-c", PANDAS if a.format == "nvsmi" else PANDAS_GW, log],
                         None))
    except ImportError:
        if not a.no_pandas:
            print("pandas is not importable here: only gpuwatch is timed "
                  "(Debian: apt-get install python3-pandas)")
    if a.peers and a.format == "gpuwatch":
        env = dict(os.environ, NODE_PATH=os.path.join(os.path.abspath(a.peers), "node_modules"))
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_peers.cjs")
        for engine in ("duckdb", "polars"):
            programs.append((f"{engine} (Node.js)", ["node", script, engine, log], env))
    # Rounds: every program once per round, in turn, so that a machine shared with other work
    # loads each about alike; the median wall and CPU of the rounds and the largest peak.
    with open(log, "rb") as f:  # into the page cache first: no program pays the disk for the others
        while f.read(1 << 24):
            pass
    load0 = os.getloadavg()[0]
    runs = {name: [] for name, _, _ in programs}
    for _ in range(a.repeat):
        for name, cmd, env in programs:
            runs[name].append(measure(cmd, env))
    med = lambda xs: sorted(xs)[len(xs) // 2]
    results = [(name, med([r[0] for r in rs]), max(r[1] for r in rs), med([r[2] for r in rs]))
               for name, rs in runs.items()]
    print(f"load average (1 min) {load0:.1f} before, {os.getloadavg()[0]:.1f} after; "
          f"{a.repeat} round(s), medians")
    print(f"\n{'program':<28}{'wall s':>8}{'CPU s':>8}{'peak RSS MiB':>14}{'rows/s':>12}")
    for name, wall, rss, cpu in results:
        print(f"{name:<28}{wall:>8.2f}{cpu:>8.2f}{rss:>14.0f}{rows / wall:>12,.0f}")
    _, gw_t, gw_m, gw_c = results[0]
    for name, wall, rss, cpu in results[1:]:
        print(f"{name} / gpuwatch: {wall / gw_t:.2f}x the time ({cpu / gw_c:.2f}x the CPU), "
              f"{rss / gw_m:.2f}x the memory")
    if not a.keep:
        os.remove(log)


if __name__ == "__main__":
    main()

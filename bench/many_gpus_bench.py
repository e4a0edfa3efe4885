#!/usr/bin/env python3
"""`gpuwatch report node*/` on many GPUs across files, against pandas (issue 28, item 1).

Writes NODES directories of one gpu.csv each (8 GPUs, ROWS samples a GPU at 1 Hz, gpuwatch's own
format); one GPU in ten runs 30 points below its peers, so the imbalance check has GPUs to judge.
Then times, each in its own process:
  1. gpuwatch report DIR/node*/ > /dev/null   (the whole analysis, verdicts included; --json
     adds the JSON document)
  2. pandas: read every gpu.csv, per GPU mean, p5/p50/p95 and max of every column, and each
     GPU's mean utilization.gpu against the median of the others (the imbalance statistic)
and prints wall time, peak RSS and the ratio. Several --gpus values show how time grows.

usage: bench/many_gpus_bench.py [--bin build/gpuwatch] [--gpus 5000 20000] [--rows 60]
                                 [--before OLD/gpuwatch] [--json]
Speed is reported, never asserted.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HEADER = ("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
          "memory.total [MiB], temperature.gpu, power.draw [W], power.limit [W], "
          "clocks.current.sm [MHz], pstate\n")

PANDAS = r"""
import glob, sys, numpy as np, pandas as pd
files = sorted(glob.glob(sys.argv[1] + "/node*/gpu.csv"))
frames = [pd.read_csv(f, skipinitialspace=True) for f in files]
df = pd.concat(frames, keys=range(len(frames)), names=["node", None]).reset_index(level=0)
df["timestamp"] = pd.to_datetime(df["timestamp"], format="%Y-%m-%dT%H:%M:%S.%fZ")
cols = [c for c in df.columns if c not in ("timestamp", "index", "node", "pstate")]
g = df.groupby(["node", "index"])[cols]
agg = g.agg(["mean", "max"])                  # vectorised: groupby.describe() is 20x slower
q = g.quantile([0.05, 0.5, 0.95])
# each GPU's mean utilization.gpu against the median of the others (leave-one-out)
mean = agg[("utilization.gpu [%]", "mean")].to_numpy()
s = np.sort(mean)
n = len(s)
k = np.searchsorted(s, mean)                  # the rank left out
lo, hi = (n - 2) // 2, (n - 1) // 2           # the median's neighbours among n - 1 values
a = s[lo + (lo >= k)]
b = s[hi + (hi >= k)]
below = int(((a + b) / 2 - mean > 15).sum())
print(agg.shape, q.shape, below)
"""


def write_nodes(root, nodes, rows):
    for n in range(nodes):
        d = os.path.join(root, f"node{n:05d}")
        os.mkdir(d)
        lines = [HEADER]
        for r in range(rows):
            ts = f"2026-11-30T00:{r // 60:02d}:{r % 60:02d}.000Z"
            for g in range(8):
                slow = (n * 8 + g) % 10 == 3
                u = (60 if slow else 95) - (r + g) % 5
                lines.append(f"{ts}, {g}, {u}, {u // 2}, {40000 + g}, 143771, {40 + u // 5}, "
                             f"{300 + 4 * u}.00, 700.00, 1980, P0\n")
        with open(os.path.join(d, "gpu.csv"), "w") as f:
            f.write("".join(lines))


def measure(cmd):
    """Runs cmd; returns (wall seconds, peak RSS MiB of that child alone, via wait4)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1, 2):
        sys.exit(f"{cmd[:3]} failed ({p.returncode}): {err[-1500:].decode()}")
    return wall, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("GPUWATCH_BIN", "build/gpuwatch"))
    ap.add_argument("--gpus", type=int, nargs="+", default=[5000, 20000])
    ap.add_argument("--rows", type=int, default=60, help="samples a GPU (1 Hz), >= 30")
    ap.add_argument("--no-pandas", action="store_true")
    ap.add_argument("--before", help="an older gpuwatch, timed beside --bin")
    ap.add_argument("--json", action="store_true", help="report --json /dev/null (the JSON is "
                    "built whole: 5.5 KB a GPU)")
    a = ap.parse_args()
    try:
        import pandas  # noqa: F401
        have_pandas = not a.no_pandas
    except ImportError:
        have_pandas = False
        print("pandas is not importable: only gpuwatch is timed (apt-get install python3-pandas)")
    print(f"{'GPUs':>7} {'rows':>9} {'program':<10} {'wall s':>8} {'peak MiB':>9} {'ratio':>7}")
    for gpus in a.gpus:
        with tempfile.TemporaryDirectory(prefix="gwmany") as d:
            nodes = max(1, gpus // 8)
            write_nodes(d, nodes, a.rows)
            dirs = sorted(os.path.join(d, x) for x in os.listdir(d))
            out = ["--json", os.devnull] if a.json else []
            gw = measure([a.bin, "report", *dirs, *out])
            print(f"{nodes * 8:>7} {nodes * 8 * a.rows:>9} {'gpuwatch':<10} {gw[0]:>8.2f} "
                  f"{gw[1]:>9.0f} {'1.00':>7}", flush=True)
            if a.before:
                old = measure([a.before, "report", *dirs, *out])
                print(f"{'':>7} {'':>9} {'before':<10} {old[0]:>8.2f} {old[1]:>9.0f} "
                      f"{old[0] / gw[0]:>7.2f}", flush=True)
            if have_pandas:
                pd_ = measure([sys.executable, "-c", PANDAS, d])
                print(f"{'':>7} {'':>9} {'pandas':<10} {pd_[0]:>8.2f} {pd_[1]:>9.0f} "
                      f"{pd_[0] / gw[0]:>7.2f}", flush=True)


if __name__ == "__main__":
    main()

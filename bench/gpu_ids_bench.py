#!/usr/bin/env python3
"""How `gpuwatch report` scales with the number of distinct GPU ids in one CSV (issue 12, item 7).

Generates CSVs with N distinct uuids (one row each per second, ROWS seconds) and prints wall time
and peak RSS of `gpuwatch report FILE --json /dev/null` for each N. With the shipped limit (64 GPUs
a file) the 20,000-id file is a one-line error in milliseconds; to see the reader's own scaling
beyond the limit, build with a larger one (a power of two, at most 32768):

  cmake -S . -B /tmp/bx -DCMAKE_C_FLAGS=-DGW_LOGREAD_MAX_GPUS=32768 && cmake --build /tmp/bx
  python3 bench/gpu_ids_bench.py --bin /tmp/bx/gpuwatch --ids 5000 10000 20000 --rows 1

usage: bench/gpu_ids_bench.py [--bin build/gpuwatch] [--ids 8 64 20000] [--rows 60]
Speed is reported, never asserted.
"""
import argparse
import os
import resource
import subprocess
import tempfile
import time


def write_csv(path, ids, rows):
    with open(path, "w") as f:
        f.write("timestamp, index, uuid, utilization.gpu [%], memory.used [MiB]\n")
        for r in range(rows):
            ts = f"2026-11-30T{r // 3600:02d}:{r // 60 % 60:02d}:{r % 60:02d}.000Z"
            for i in range(ids):
                f.write(f"{ts}, {i % 1000}, GPU-{i:08d}, {50 + i % 50}, {1000 + i}\n")


def run(binary, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.monotonic()
    p = subprocess.run([binary, "report", path, "--json", os.devnull], capture_output=True,
                       text=True)
    wall = time.monotonic() - t0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return p, wall, max(rss, before) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/gpuwatch")
    ap.add_argument("--ids", type=int, nargs="+", default=[8, 64, 20000])
    ap.add_argument("--rows", type=int, default=60)
    a = ap.parse_args()
    print(f"{'ids':>7} {'rows':>8} {'MB':>7} {'rc':>3} {'wall s':>8} {'peak RSS MiB':>13}")
    with tempfile.TemporaryDirectory() as d:
        for n in a.ids:
            rows = a.rows if n <= 64 else 1
            path = os.path.join(d, f"ids{n}.csv")
            write_csv(path, n, rows)
            p, wall, rss = run(a.bin, path)
            size = os.path.getsize(path) / 1e6
            print(f"{n:>7} {n * rows:>8} {size:>7.2f} {p.returncode:>3} {wall:>8.3f} {rss:>13.1f}")
            if p.returncode:
                print("        " + p.stderr.strip())


if __name__ == "__main__":
    main()

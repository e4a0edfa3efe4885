#!/usr/bin/env python3
"""`gpuwatch log` on a big output.log of progress-bar redraws, against mawk + sed (issue 28).

Writes a run directory whose output.log holds MB megabytes of tqdm-style bars (each redraw ends
in '\\r', each bar in '\\n', a colour escape around the description) and whose output.idx has an
entry for every redraw, 100 ms apart, as `gpuwatch run` writes them. Then times, each alone:
  1. gpuwatch log DIR            (every line with its time)
  2. gpuwatch log --no-times DIR         (lines only)
  3. mawk -F'\\r' '{print $NF}' output.log | sed 's/\\x1b\\[[0-9;]*m//g'   (the same collapse)
checks that 2 and 3 print the same bytes, and prints wall and CPU seconds, MB/s and the ratios.

usage: bench/log_bench.py [--bin build/gpuwatch] [--mb 500] [--before OLD/gpuwatch] [--keep DIR]
Speed is reported, never asserted.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

T0_MS = 1764460800000  # 2025-11-30T00:00:00Z


def write_run(d, mb):
    """output.log and output.idx of about mb megabytes; returns the log's size."""
    log = open(os.path.join(d, "output.log"), "wb")
    idx = open(os.path.join(d, "output.idx"), "w")
    idx.write("# gpuwatch output index 1: OFFSET UNIX_MS a line; the bytes of output.log from "
              "OFFSET on arrived at UNIX_MS\n")
    off, ms, epoch, target = 0, T0_MS, 0, mb * 1_000_000
    while off < target:
        epoch += 1
        out, entries = [], []
        steps = 500
        for s in range(steps + 1):
            fill = s * 20 // steps
            bar = "\u2588" * fill + " " * (20 - fill)
            r = (f"\x1b[32mEpoch {epoch}\x1b[0m: {100 * s // steps:3d}%|{bar}| {s}/{steps} "
                 f"[00:{s // 10 % 60:02d}<00:{(steps - s) // 10 % 60:02d}, 9.8it/s, "
                 f"loss={1.0 / (1 + s + epoch):.4f}]").encode()
            entries.append(f"{off} {ms}\n")
            r += b"\n" if s == steps else b"\r"
            out.append(r)
            off += len(r)
            ms += 100
        log.write(b"".join(out))
        idx.write("".join(entries))
    log.close()
    idx.close()
    return off


def timed(cmd, shell=False):
    """(wall s, CPU s of the children, sha256 of stdout, bytes of stdout)"""
    before = os.times()
    t = time.perf_counter()
    p = subprocess.Popen(cmd, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    h, n = hashlib.sha256(), 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        h.update(b)
        n += len(b)
    err = p.stderr.read()
    if p.wait() != 0:
        sys.exit(f"{cmd} failed: {err[-1000:].decode(errors='replace')}")
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system)
    return wall, cpu, h.hexdigest(), n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("GPUWATCH_BIN", "build/gpuwatch"))
    ap.add_argument("--before", help="an older gpuwatch, timed beside --bin")
    ap.add_argument("--mb", type=int, default=500)
    ap.add_argument("--keep", help="write the run here and keep it (reused when it exists)")
    a = ap.parse_args()
    if not shutil.which("mawk"):
        sys.exit("mawk is missing (Debian: apt-get install mawk)")
    d = a.keep or tempfile.mkdtemp(prefix="gwlog")
    os.makedirs(d, exist_ok=True)
    logf = os.path.join(d, "output.log")
    if not os.path.exists(logf):
        write_run(d, a.mb)
    size = os.path.getsize(logf)
    print(f"output.log {size / 1e6:.0f} MB, output.idx "
          f"{os.path.getsize(os.path.join(d, 'output.idx')) / 1e6:.0f} MB: {d}")
    peer = f"mawk -F'\\r' '{{print $NF}}' {logf} | sed 's/\\x1b\\[[0-9;]*m//g'"
    runs = [("gpuwatch log", [a.bin, "log", d], False),
            ("gpuwatch log --no-times", [a.bin, "log", "--no-times", d], False)]
    if a.before:
        runs += [("before: log", [a.before, "log", d], False),
                 ("before: --no-times", [a.before, "log", "--no-times", d], False)]
    runs.append(("mawk | sed", peer, True))
    for name in ("output.log", "output.idx"):  # into the page cache first, for every program alike
        with open(os.path.join(d, name), "rb") as f:
            while f.read(1 << 24):
                pass
    print(f"load average (1 min) {os.getloadavg()[0]:.1f}")
    res = {}
    print(f"\n{'program':<24}{'wall s':>9}{'CPU s':>9}{'MB/s':>8}{'x mawk':>8}  output")
    for name, cmd, shell in runs:
        res[name] = timed(cmd, shell)
    peer_wall = res["mawk | sed"][0]
    for name, (wall, cpu, digest, n) in res.items():
        print(f"{name:<24}{wall:>9.2f}{cpu:>9.2f}{size / 1e6 / wall:>8.0f}"
              f"{wall / peer_wall:>8.2f}  {n / 1e6:.0f} MB {digest[:12]}")
    same = res["gpuwatch log --no-times"][2] == res["mawk | sed"][2]
    print(f"\ngpuwatch log --no-times and mawk | sed print {'the same' if same else 'DIFFERENT'} bytes")
    if not a.keep:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()

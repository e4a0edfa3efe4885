#!/usr/bin/env python3
"""`gpuwatch report` on a long `nvidia-smi -l` log: N snapshots of G GPUs in driver 550's table
layout with a process per GPU (a day at 1 s, 86,400 snapshots of 8 GPUs, is ~420 MB; the
default is 3 h, 10,800 snapshots of 8 GPUs, ~52 MB). Prints the file's size,
the wall time (best of --runs) and peak RSS (GNU time) of `report --json`, and checks the rows read.

    python3 bench/table_log_bench.py [--snapshots 10800] [--gpus 8] [--runs 3] [--bin build/gpuwatch]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

RULE = "+-----------------------------------------+------------------------+----------------------+"
WIDE = "+-----------------------------------------------------------------------------------------+"


def write_log(path, snapshots, gpus):
    t0 = time.mktime((2026, 1, 5, 0, 0, 0, 0, 0, -1))
    with open(path, "w") as f:
        for k in range(snapshots):
            out = [time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(t0 + k)) + "       ", WIDE,
                   "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
                   "|-----------------------------------------+------------------------+----------------------+",
                   "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
                   "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
                   "|                                         |                        |               MIG M. |",
                   "|=========================================+========================+======================|"]
            for g in range(gpus):
                u = (k * 7 + g * 13) % 101
                out += [f"|   {g}  NVIDIA H100 80GB HBM3          On  |   00000000:{0x18 + g:02X}:00.0 Off |"
                        "                    0 |",
                        f"| N/A   {40 + u // 5}C    P0            {100 + u * 6:3d}W /  700W |   "
                        f"{30000 + u:5d}MiB /  81559MiB |    {u:3d}%      Default |",
                        "|                                         |                        |             Disabled |",
                        RULE]
            out += ["", WIDE,
                    "| Processes:                                                                              |",
                    "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
                    "|        ID   ID                                                               Usage      |",
                    "|=========================================================================================|"]
            out += [f"|    {g}   N/A  N/A    {100000 + g}      C   python3                               "
                    f"{30000 + g:5d}MiB |" for g in range(gpus)]
            out.append(WIDE)
            f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshots", type=int, default=10800)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", default="build/gpuwatch")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "smi-l.log")
        write_log(log, a.snapshots, a.gpus)
        size = os.path.getsize(log) / 1e6
        best, rss = None, None
        for _ in range(a.runs):
            t = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%M", a.bin, "report", log, "--json", "-"],
                               capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))
            dt = time.perf_counter() - t
            if p.returncode != 0:
                raise SystemExit(p.stderr)
            best = dt if best is None else min(best, dt)
            rss = int(p.stderr.strip().splitlines()[-1])
        s = json.loads(p.stdout)
        rows = s["inputs"][0]["rows"]
        assert rows == a.snapshots * a.gpus, rows
        print(f"{a.snapshots} snapshots x {a.gpus} GPUs, {size:.1f} MB: report {best:.2f} s "
              f"(best of {a.runs}), peak RSS {rss / 1024:.0f} MiB, {rows} rows read")


if __name__ == "__main__":
    main()

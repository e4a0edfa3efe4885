#!/usr/bin/env python3
"""A job that takes GPU memory, works briefly, then sits idle holding it (a notebook kernel left
open, a script waiting on something): gpuwatch reports idle_holding_memory.

    gpuwatch run -- python3 examples/idle_holding_memory.py --gib 20 --idle 70"""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--gib", type=float, default=20)
ap.add_argument("--work", type=float, default=5, help="seconds of matrix products first")
ap.add_argument("--idle", type=float, default=70, help="seconds idle afterwards")
args = ap.parse_args()
held = torch.empty(int(args.gib * 2**30), dtype=torch.uint8, device="cuda")
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
t0 = time.time()
while time.time() - t0 < args.work:
    a = (a @ a).clamp_(-1, 1)
torch.cuda.synchronize()
print(f"holding {args.gib:.0f} GiB, idle for {args.idle:.0f} s", flush=True)
time.sleep(args.idle)
print("done", flush=True)

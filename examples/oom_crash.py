#!/usr/bin/env python3
"""A training job that runs out of GPU memory: each step keeps a bigger activation alive until
the allocator fails with "CUDA out of memory" and the script dies with a traceback, exit 1 — as a
too-large batch or a leak does after hours. gpuwatch reports oom_crash with the numbers.

    gpuwatch run -- python3 examples/oom_crash.py"""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--step-gib", type=float, default=8, help="memory kept per step")
ap.add_argument("--step-seconds", type=float, default=0.5)
args = ap.parse_args()
kept = []
a = torch.randn(4096, 4096, device="cuda")
for step in range(1, 10000):
    print(f"train step {step}: {torch.cuda.memory_allocated() / 2**30:.1f} GiB allocated",
          flush=True)
    kept.append(torch.empty(int(args.step_gib * 2**30), dtype=torch.uint8, device="cuda"))
    t0 = time.time()
    while time.time() - t0 < args.step_seconds:
        a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()

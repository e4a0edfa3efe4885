#!/usr/bin/env python3
"""A job that keeps the GPU "busy" without using it: one tiny kernel after another, each far too
small to fill the GPU. nvidia-smi's GPU-Util reads high (a kernel is running most of the time)
while GPM's SM activity stays near zero and the power stays low: gpuwatch reports
underfilled_kernels.

    gpuwatch run -- python3 examples/underfilled_kernels.py --seconds 20"""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=20)
ap.add_argument("--elements", type=int, default=32, help="elements per kernel (one small block)")
args = ap.parse_args()
x = torch.zeros(args.elements, device="cuda")
print(f"launching {args.elements}-element kernels for {args.seconds:.0f} s", flush=True)
t0 = time.time()
n = 0
while time.time() - t0 < args.seconds:
    for _ in range(1000):
        x.mul_(1.0001).add_(1e-6)
    torch.cuda.synchronize()
    n += 2000
print(f"{n} kernels launched", flush=True)

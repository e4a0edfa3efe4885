#!/usr/bin/env python3
"""A job that keeps the GPU "busy" without using it: a kernel of a single thread block that spins
(torch.cuda._sleep), one after another. nvidia-smi's GPU-Util reads 100% (a kernel is always
running) while GPM's SM activity stays under 1% (1 of 132 SMs on an H200) and the power stays
near idle: gpuwatch reports underfilled_kernels.

    gpuwatch run -- python3 examples/underfilled_kernels.py --seconds 20"""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=20)
args = ap.parse_args()
torch.zeros(1, device="cuda")  # create the context first
cycles = int(2e9 * 0.25)  # about a quarter of a second per kernel at ~2 GHz
print(f"spinning one thread block for {args.seconds:.0f} s", flush=True)
t0 = time.time()
n = 0
while time.time() - t0 < args.seconds:
    torch.cuda._sleep(cycles)
    torch.cuda.synchronize()
    n += 1
print(f"{n} kernels", flush=True)

"""A step for the GPM alignment proof (bench/h200/gpm_align.sh): idle, a bf16 matmul burst, idle.

Prints the burst's edges as unix seconds ("burst_start 1764600000.123", "burst_end ...") so that
the rows of gpu.csv can be placed against them.

    python3 bench/h200/step_job.py [--idle 3] [--busy 5] [--idle-after 3]
"""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--idle", type=float, default=3.0)
p.add_argument("--busy", type=float, default=5.0)
p.add_argument("--idle-after", type=float, default=3.0)
a = p.parse_args()

x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
y = x @ x  # CUDA context, cuBLAS handle and the kernel loaded before the idle part
torch.cuda.synchronize()
time.sleep(a.idle)
t0 = time.time()
print(f"burst_start {t0:.3f}", flush=True)
while time.time() - t0 < a.busy:
    for _ in range(20):
        y = x @ x
    torch.cuda.synchronize()
t1 = time.time()
print(f"burst_end {t1:.3f}", flush=True)
time.sleep(a.idle_after)

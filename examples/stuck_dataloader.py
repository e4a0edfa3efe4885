#!/usr/bin/env python3
"""A training job that hangs: after some steps one DataLoader worker blocks forever (as on a
corrupt image, a dead network mount or a deadlock), the main process waits for its batch, the GPU
goes idle and nothing is printed any more. gpuwatch's stall detection fires job_stalled; the
report says what each process was doing.

    gpuwatch run --stall-timeout 20 -- python3 examples/stuck_dataloader.py"""
import argparse
import threading
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    def __init__(self, n, hang_at):
        self.n, self.hang_at = n, hang_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.hang_at:
            threading.Event().wait()  # blocks forever, in the worker's main thread
        return torch.rand(3, 64, 64), i % 10


ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=1000)
ap.add_argument("--hang-at-step", type=int, default=40)
args = ap.parse_args()
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, 4096),
                            torch.nn.ReLU(), torch.nn.Linear(4096, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
dl = DataLoader(Images(args.steps * 64, args.hang_at_step * 64), batch_size=64, num_workers=2,
                timeout=0)
print("Epoch 1/1", flush=True)
for step, (x, y) in enumerate(dl, 1):
    loss = torch.nn.functional.cross_entropy(model(x.to(dev)), y.to(dev))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"train step {step} loss {loss.item():.4f}", flush=True)
    time.sleep(0.02)

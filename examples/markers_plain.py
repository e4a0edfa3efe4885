#!/usr/bin/env python3
"""Markers from a plain PyTorch training loop: epochs, steps, validation and the CUDA allocator's
statistics go into the recording of the `gpuwatch run` that wraps it, so the report's epochs come
from the script itself and its tables show what the script was doing.

    gpuwatch run -- python3 examples/markers_plain.py --epochs 3

The gpuwatch module is python/gpuwatch.py of this repository (no dependencies): put that folder
on PYTHONPATH, or copy the file next to your script. Runs on the CPU when no GPU is visible."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gpuwatch  # noqa: E402
import torch  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--steps", type=int, default=100)
ap.add_argument("--val-steps", type=int, default=20)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--width", type=int, default=4096)
args = ap.parse_args()

dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
                            torch.nn.Linear(args.width, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
gpuwatch.mark("start", device=str(dev), batch=args.batch)
step = 0
for epoch in range(1, args.epochs + 1):
    gpuwatch.mark("epoch", n=epoch, total=args.epochs)
    print(f"Epoch {epoch}/{args.epochs}", flush=True)
    model.train()
    t0 = time.time()
    for _ in range(args.steps):
        x = torch.randn(args.batch, args.width, device=dev)
        y = torch.randint(0, 10, (args.batch,), device=dev)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % 20 == 0:
            gpuwatch.mark("step", n=step, loss=loss.item())  # .item() syncs: mark every N steps
            gpuwatch.mark_memory()
    print(f"  {args.steps / (time.time() - t0):.1f} steps/s, loss {loss.item():.4f}", flush=True)
    gpuwatch.mark("validation", epoch=epoch)
    model.eval()
    with torch.no_grad():
        for _ in range(args.val_steps):
            model(torch.randn(args.batch, args.width, device=dev))
    if dev.type == "cuda":
        torch.cuda.synchronize()
    gpuwatch.mark("validation_end", epoch=epoch)
gpuwatch.mark_memory("memory_final")
print("done", flush=True)

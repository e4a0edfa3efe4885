#!/usr/bin/env python3
"""A real PyTorch training job for trying gpuwatch: a torchvision model trained on synthetic
images that come through a DataLoader, as a YOLO or ResNet training script would feed them.

    gpuwatch run -- python3 examples/train_torchvision.py --model resnet50 --epochs 3

Knobs reproduce the situations gpuwatch diagnoses:
  --data-on-gpu     batches made on the GPU, no DataLoader (the GPU-bound case)
  --cpu-work N      extra CPU work per image in the workers (an input-pipeline bottleneck)
  --target-gpu-busy F  choose --cpu-work so that the GPU is busy about F of the time (0-1),
                    after timing a few GPU steps and the CPU work here
  --workers N       DataLoader worker processes (0 = load in the main process)
  --val-steps N     a validation pass after each epoch (expected dips in GPU use)
  --leak-mib N      keep N MiB more GPU memory every step (a memory leak)
  --batch, --image-size, --amp {bf16,fp16,off}, --channels-last

Prints "Epoch N/M" lines and a throughput line per epoch. Needs torch and torchvision; runs on the
CPU (slowly) when no GPU is visible."""
import argparse
import math
import time

import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, Dataset


class SyntheticImages(Dataset):
    """Random images with labels; optional CPU work per item stands in for decoding/augmenting."""

    def __init__(self, n, size, classes, cpu_work):
        self.n, self.size, self.classes, self.cpu_work = n, size, classes, cpu_work

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, self.size, self.size, generator=g)
        for _ in range(self.cpu_work):  # like JPEG decoding and augmentation on the CPU
            img = torch.flip(img, dims=[2]) * 0.999 + 0.0005
        return img, i % self.classes


def gpu_batches(args, dev):
    """args.steps batches made directly on the GPU: no input pipeline at all."""
    x = torch.rand(args.batch, 3, args.image_size, args.image_size, device=dev)
    y = torch.randint(0, 1000, (args.batch,), device=dev)
    for _ in range(args.steps):
        yield x, y


def calibrate(args, model, opt, loss_fn, dev, amp_dtype):
    """The --cpu-work that makes the input pipeline deliver a batch every (GPU step time / F)."""
    x = torch.rand(args.batch, 3, args.image_size, args.image_size, device=dev)
    y = torch.randint(0, 1000, (args.batch,), device=dev)
    times = []
    for i in range(8):
        t0 = time.time()
        with torch.autocast(dev.type, dtype=amp_dtype or torch.float32,
                            enabled=amp_dtype is not None):
            loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        if i >= 3:
            times.append(time.time() - t0)
    step = sorted(times)[len(times) // 2]
    ds0, ds1 = (SyntheticImages(64, args.image_size, 1000, w) for w in (0, 8))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in a DataLoader worker
    t0 = time.time()
    for i in range(32):
        ds0[i]
    base = (time.time() - t0) / 32
    t0 = time.time()
    for i in range(32):
        ds1[i]
    per_unit = max(1e-6, ((time.time() - t0) / 32 - base) / 8)
    torch.set_num_threads(threads)
    want = step / args.target_gpu_busy * max(1, args.workers) / args.batch
    work = max(0, round((want - base) / per_unit))
    print(f"calibration: GPU step {step * 1000:.1f} ms, image {base * 1000:.2f} ms + "
          f"{per_unit * 1000:.3f} ms per unit of CPU work: --cpu-work {work}", flush=True)
    return work


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=50, help="training steps per epoch")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--cpu-work", type=int, default=0)
    ap.add_argument("--val-steps", type=int, default=0)
    ap.add_argument("--leak-mib", type=int, default=0)
    ap.add_argument("--amp", choices=["bf16", "fp16", "off"], default="bf16")
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--data-on-gpu", action="store_true")
    ap.add_argument("--target-gpu-busy", type=float, default=0)
    args = ap.parse_args()

    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = getattr(torchvision.models, args.model)(num_classes=1000).to(dev)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.amp)
    scaler = torch.amp.GradScaler(enabled=(args.amp == "fp16" and dev.type == "cuda"))
    if args.target_gpu_busy > 0:
        args.cpu_work = calibrate(args, model, opt, loss_fn, dev, amp_dtype)
    ds = SyntheticImages(args.steps * args.batch, args.image_size, 1000, args.cpu_work)
    dl = DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                    pin_memory=dev.type == "cuda", persistent_workers=args.workers > 0,
                    drop_last=True)
    leaked = []
    print(f"device {dev}, model {args.model}, batch {args.batch}, workers {args.workers}",
          flush=True)
    for epoch in range(1, args.epochs + 1):
        print(f"Epoch {epoch}/{args.epochs}", flush=True)
        model.train()
        t0, seen = time.time(), 0
        batches = gpu_batches(args, dev) if args.data_on_gpu else dl
        for step, (x, y) in enumerate(batches, 1):
            x = x.to(dev, non_blocking=True)
            y = y.to(dev, non_blocking=True)
            if args.channels_last:
                x = x.to(memory_format=torch.channels_last)
            with torch.autocast(dev.type, dtype=amp_dtype or torch.float32,
                                enabled=amp_dtype is not None):
                loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            if args.leak_mib:
                leaked.append(torch.empty(args.leak_mib * 1024 * 1024, dtype=torch.uint8,
                                          device=dev))
            seen += x.shape[0]
            if step % 10 == 0:
                print(f"  step {step}/{args.steps} loss {loss.item():.4f}", flush=True)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        dt = time.time() - t0
        print(f"epoch {epoch} done: {seen / dt:.1f} images/s", flush=True)
        if args.val_steps:
            print(f"validation {epoch}", flush=True)
            model.eval()
            with torch.no_grad():
                for i, (x, _) in enumerate(dl):
                    if i >= args.val_steps:
                        break
                    model(x.to(dev))
            torch.save(model.state_dict(), "/tmp/gpuwatch-example-checkpoint.pt")
    if dev.type == "cuda":
        print(f"max memory allocated {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()

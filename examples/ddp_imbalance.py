#!/usr/bin/env python3
"""Two-GPU DistributedDataParallel training with one rank slowed down (its input pipeline takes
longer), as happens with a slow disk or an unlucky shard: the other rank waits in the all-reduce
every step. gpuwatch reports multi_gpu_imbalance.

    gpuwatch run -- python3 examples/ddp_imbalance.py --slow-rank 1 --delay 0.05

Needs 2 GPUs and NCCL. Starts one process per GPU itself (no torchrun needed)."""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torchvision


def worker(rank, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    dist.init_process_group("nccl", rank=rank, world_size=args.world)
    torch.cuda.set_device(rank)
    model = nn.parallel.DistributedDataParallel(
        torchvision.models.resnet50(num_classes=1000).cuda(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.rand(args.batch, 3, 224, 224, device=rank)
    y = torch.randint(0, 1000, (args.batch,), device=rank)
    for epoch in range(1, args.epochs + 1):
        if rank == 0:
            print(f"Epoch {epoch}/{args.epochs}", flush=True)
        for step in range(args.steps):
            if rank == args.slow_rank:
                time.sleep(args.delay)  # this rank's data arrives late
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        torch.cuda.synchronize()
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--delay", type=float, default=0.05, help="seconds added per step")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--batch", type=int, default=128)
    mp.spawn(worker, args=(ap.parse_args(),), nprocs=ap.parse_args().world)

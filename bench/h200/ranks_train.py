"""A small training loop for torchrun's ranks, all on GPU 0 (bench/h200/torchrun_ranks.sh): each
rank trains its own MLP on random data and, every 20 steps, averages its loss with the others over
gloo (CPU), so the ranks form one process group without NCCL (two NCCL ranks cannot share a GPU).
Prints "step N/TOTAL loss X" lines."""
import argparse
import os
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=2048)
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda:0")
    torch.manual_seed(rank)
    model = torch.nn.Sequential(torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
                                torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
                                torch.nn.Linear(args.width, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, args.width, device=dev)
    y = torch.randint(0, 10, (args.batch,), device=dev)
    t0 = time.time()
    for step in range(1, args.steps + 1):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == args.steps:
            mean = loss.detach().cpu().reshape(1)
            dist.all_reduce(mean)
            if rank == 0:
                print(f"step {step}/{args.steps} loss {mean.item() / world:.4f} "
                      f"({time.time() - t0:.1f} s)", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

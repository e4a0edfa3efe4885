#!/usr/bin/env python3
"""A small PyTorch training loop for tests/cli/test_inproc.py: its DataLoader's workers burn
--item-ms of CPU per item in pure Python (decode_and_augment), its loop --step-ms per batch
(train_step), so the input-bound and the main-bound cases are set by the arguments, not faked.
Runs on Debian's CPU-only python3-torch.

Options for the other cases: --start-method spawn, --persistent, --val (a second loader),
--exit-at-step K (sys.exit(3) in the middle of step K), --fake-cuda (torch.cuda reports an
initialised device with allocator figures, as on a GPU), --autocast (CPU bf16 autocast),
--cv2-worker-threads N (a stub cv2 module: N threads set in each worker, 8 in the main process).
"""
import argparse
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


def burn(seconds):
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


def decode_and_augment(i, ms):
    burn(ms / 1000.0)
    return torch.full((8,), float(i))


class Items(Dataset):
    def __init__(self, n, item_ms):
        self.n, self.item_ms = n, item_ms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return decode_and_augment(i, self.item_ms)


def train_step(batch, ms):
    burn(ms / 1000.0)
    return float(batch.sum())


class WorkerInit:
    def __init__(self, cv2_threads):
        self.cv2_threads = cv2_threads

    def __call__(self, worker_id):
        if self.cv2_threads is not None:
            import cv2
            cv2.setNumThreads(self.cv2_threads)


def fake_cuda():
    """torch.cuda as a job on a GPU sees it (this torch has no CUDA)."""
    c = torch.cuda
    c.is_initialized = lambda: True
    c.device_count = lambda: 1
    c.memory_allocated = lambda d=None: 3 * 2**30
    c.memory_reserved = lambda d=None: 5 * 2**30
    c.max_memory_allocated = lambda d=None: 4 * 2**30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--item-ms", type=float, default=1.0)
    ap.add_argument("--step-ms", type=float, default=1.0)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--start-method", default=None)
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--val", action="store_true")
    ap.add_argument("--exit-at-step", type=int, default=-1)
    ap.add_argument("--fake-cuda", action="store_true")
    ap.add_argument("--autocast", action="store_true")
    ap.add_argument("--cv2-worker-threads", type=int, default=None)
    a = ap.parse_args()
    if a.cv2_worker_threads is not None:
        import cv2
        cv2.setNumThreads(8)
    if a.fake_cuda:
        fake_cuda()
    kw = {}
    if a.workers:
        kw = {"persistent_workers": a.persistent, "worker_init_fn": WorkerInit(a.cv2_worker_threads)}
        if a.start_method:
            kw["multiprocessing_context"] = a.start_method
    train = DataLoader(Items(a.batches * a.batch_size, a.item_ms), batch_size=a.batch_size,
                       num_workers=a.workers, **kw)
    val = DataLoader(Items(4 * a.batch_size, 0), batch_size=a.batch_size) if a.val else None
    step = 0
    for epoch in range(a.epochs):
        t0 = time.perf_counter()
        for batch in train:
            if step == a.exit_at_step:
                print("exiting mid-step", step, flush=True)
                sys.exit(3)
            if a.autocast:
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    train_step(batch, a.step_ms)
            else:
                train_step(batch, a.step_ms)
            step += 1
        if val is not None:
            for batch in val:
                pass
        print("Epoch %d/%d %.2f s" % (epoch + 1, a.epochs, time.perf_counter() - t0), flush=True)
    print("PYTHONPATH=%s" % os.environ.get("PYTHONPATH", ""), flush=True)


if __name__ == "__main__":
    main()

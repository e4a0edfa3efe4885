#!/usr/bin/env python3
"""Writes the hand-made in-job data (docs/inproc.md format) of tests/data/inproc/*/python/ beside
real H200 recordings copied from examples/recordings/h200-causes (their gpu.csv, host.csv, ...).
The numbers are chosen, not measured: they test the reader and the report's arithmetic.
Usage: tests/data/inproc/handmade.py  (rewrites the python/ directories)"""
import datetime
import json
import pathlib
import shutil

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parents[2] / "examples" / "recordings" / "h200-causes"
T0 = 0.0  # the recording's start_time (meta.json), set by write()
DL = "site-packages/torch/utils/data/dataloader.py"
WAIT = (f"__next__ ({DL}:631);_next_data ({DL}:1329);_get_data ({DL}:1295);"
        f"_try_get_data ({DL}:1133);get (queues.py:113);poll (connection.py:257);"
        "_poll (connection.py:424);wait (connection.py:931);select (selectors.py:416)")
TRAIN = "<module> (train_dual.py:636);main (train_dual.py:531);train (train_dual.py:{})"
WORKER = ("_worker_loop (site-packages/torch/utils/data/_utils/worker.py:308);"
          "fetch (site-packages/torch/utils/data/_utils/fetch.py:51);"
          "<listcomp> (site-packages/torch/utils/data/_utils/fetch.py:51);"
          "__getitem__ (utils/dataloaders.py:{})")
WORKER_IDLE = ("_worker_loop (site-packages/torch/utils/data/_utils/worker.py:275);"
               "get (queues.py:113);poll (connection.py:257);_poll (connection.py:424);"
               "wait (connection.py:931);select (selectors.py:416)")


def rec(f, t, kind, **kw):
    f.write(json.dumps({"t": round(T0 + t, 3), "kind": kind, **kw}) + "\n")


def process(f, t, pid, ppid, role, worker_id=None):
    rec(f, t, "process", pid=pid, ppid=ppid, role=role, worker_id=worker_id, python="3.11.2",
        torch="2.5.1+cu124", start_method="fork" if role == "worker" else None, rank=None,
        local_rank=None, world_size=None)


def settings(f, t, cv2, autocast, compile_used=False):
    rec(f, t, "settings", torch_num_threads=8, torch_num_interop_threads=8, cv2_num_threads=cv2,
        cudnn_benchmark=True, autocast_used=autocast, torch_compile_used=compile_used,
        affinity_cores=16, cgroup_cpu_limit_cores=None, os_cpu_count=16)


def loaders(f, t, workers):
    rec(f, t, "loader", loader=0, num_workers=workers, batch_size=64, pin_memory=True,
        persistent_workers=False, prefetch_factor=2, drop_last=False,
        dataset="LoadImagesAndLabels", sampler=None, batches=38,
        created_at="utils/dataloaders.py:155")
    rec(f, t + 0.1, "loader", loader=1, num_workers=2, batch_size=128, pin_memory=True,
        persistent_workers=False, prefetch_factor=2, drop_last=False,
        dataset="LoadImagesAndLabels", sampler=None, batches=2,
        created_at="utils/dataloaders.py:155")


def a_pass(f, loader, n, t0, t1, steps, wait, between, first, chunks=4):
    """A pass as "steps" records every (t1-t0)/chunks seconds, then its "pass" record."""
    for k in range(chunks):
        a, b = t0 + (t1 - t0) * k / chunks, t0 + (t1 - t0) * (k + 1) / chunks
        rec(f, b, "steps", loader=loader, **{"pass": n}, t0=round(T0 + a, 3),
            t1=round(T0 + b, 3), steps=steps // chunks + (k < steps % chunks),
            wait_s=round(wait / chunks, 4), between_s=round(between / chunks, 4))
    rec(f, t1, "pass", loader=loader, **{"pass": n}, t_start=round(T0 + t0, 3),
        t_end=round(T0 + t1, 3), steps=steps, wait_s=wait, between_s=between,
        first_wait_s=first, complete=True)


def memory(f, t, alloc, reserved, peak):
    gib = 1 << 30
    rec(f, t, "memory", device=0, allocated_bytes=int(alloc * gib),
        reserved_bytes=int(reserved * gib), max_allocated_bytes=int(peak * gib))


def write(name, source, passes, main_stacks, worker_stacks, workers=1, autocast=False,
          mem=((2.0, 30.0, 28.0), (2.0, 30.0, 28.0)), torn=False):
    run = HERE / name
    if run.exists():
        shutil.rmtree(run)
    shutil.copytree(SRC / source, run)
    (run / "summary.json").unlink(missing_ok=True)
    meta = json.loads((run / "meta.json").read_text())
    global T0
    T0 = datetime.datetime.fromisoformat(meta["start_time"].replace("Z", "+00:00")).timestamp()
    meta["python_instrumentation"] = "on"
    (run / "meta.json").write_text(json.dumps(meta, indent="\t") + "\n")
    py = run / "python"
    py.mkdir()
    with open(py / "600.jsonl", "w") as f:
        start = passes[0][0]
        process(f, start - 5, 600, 584, "main")
        settings(f, start - 4.9, 8, autocast)
        loaders(f, start - 1, workers)
        for k, (t0, t1, steps, wait, between, first, v0, v1) in enumerate(passes):
            a_pass(f, 0, k, t0, t1, steps, wait, between, first)
            memory(f, t1 + 0.01, *mem[min(k, len(mem) - 1)])
            a_pass(f, 1, k, v0, v1, 2, 0.9, 0.6, 0.8, chunks=1)
        rec(f, passes[-1][7] + 0.2, "stacks", samples=sum(main_stacks.values()),
            interval_s=0.01, sampler_cpu_s=0.21)
        rec(f, passes[-1][7] + 0.3, "exit")
        if torn:
            f.write('{"t": %.3f, "kind": "steps", "loader": 0, "pa' % (T0 + passes[-1][7] + 0.4))
    (py / "600.stacks").write_text("".join(f"{s} {n}\n" for s, n in main_stacks.items()))
    for w in range(workers):
        pid = 700 + w
        with open(py / f"{pid}.jsonl", "w") as f:
            process(f, start - 0.5, pid, 600, "worker", w)
            settings(f, start - 0.4, 8, False)
            rec(f, passes[-1][1], "stacks", samples=sum(worker_stacks.values()), interval_s=0.01,
                sampler_cpu_s=0.2)
        (py / f"{pid}.stacks").write_text(
            "".join(f"{s} {n}\n" for s, n in worker_stacks.items()))


MAIN_INPUT = {
    TRAIN.format(330) + ";" + WAIT: 1400,
    TRAIN.format(356) + ";__call__ (utils/loss_tal_dual.py:170)"
                        ";build_targets (utils/loss_tal_dual.py:201)": 340,
    TRAIN.format(361) + ";backward (site-packages/torch/_tensor.py:521)": 250,
    TRAIN.format(370) + ";step (site-packages/torch/optim/sgd.py:80)": 210,
    TRAIN.format(350) + ";forward (models/yolo.py:640)": 200,
}
WORKERS_INPUT = {
    WORKER.format(730) + ";load_mosaic (utils/dataloaders.py:880)"
                         ";load_image (utils/dataloaders.py:800)": 960,
    WORKER.format(735) + ";random_perspective (utils/augmentations.py:180)": 440,
    WORKER.format(740) + ";augment_hsv (utils/augmentations.py:60)": 400,
    WORKER.format(750) + ";collate_fn (utils/dataloaders.py:1020)": 200,
    WORKER_IDLE: 100,
}
MAIN_BOUND = {
    TRAIN.format(330) + ";" + WAIT: 120,
    TRAIN.format(356) + ";__call__ (utils/loss_tal_dual.py:170)"
                        ";build_targets (utils/loss_tal_dual.py:201)": 680,
    TRAIN.format(361) + ";backward (site-packages/torch/_tensor.py:521)": 400,
    TRAIN.format(370) + ";step (site-packages/torch/optim/sgd.py:80)": 420,
    TRAIN.format(350) + ";forward (models/yolo.py:640)": 380,
}
WORKERS_IDLE = dict(WORKERS_INPUT)
WORKERS_IDLE[WORKER_IDLE] = 3000

if __name__ == "__main__":
    # (t0, t1, steps, wait_s, between_s, first_wait_s, val t0, val t1), seconds after T0
    write("yolo_input", "yolo_w1b64",
          [(60.0, 84.0, 38, 14.5, 9.3, 3.1, 84.2, 85.8),
           (86.2, 110.0, 38, 14.0, 9.6, 2.9, 110.1, 111.2)],
          MAIN_INPUT, WORKERS_INPUT, workers=1,
          mem=((2.0, 30.0, 28.0), (2.5, 30.0, 28.2)), torn=True)
    write("yolo_main", "yolo_w8b64",
          [(8.0, 23.0, 38, 1.0, 13.8, 2.0, 23.1, 24.0),
           (24.5, 39.5, 38, 0.8, 14.0, 0.6, 39.6, 40.5),
           (41.0, 56.0, 38, 0.7, 14.1, 0.5, 56.1, 57.0)],
          MAIN_BOUND, WORKERS_IDLE, workers=8,
          mem=((2.0, 30.0, 28.0), (2.6, 30.0, 28.6), (3.3, 31.0, 29.3)))
    write("yolo_changes", "yolo_w1b64",
          [(60.0, 84.0, 38, 15.0, 9.0, 3.0, 84.2, 85.8),
           (86.2, 110.0, 38, 1.5, 22.2, 0.5, 110.1, 111.2)],
          MAIN_INPUT, WORKERS_INPUT, workers=2)

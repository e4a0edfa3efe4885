#!/usr/bin/env python3
"""Cost of one marker, against what a script would do instead: python/gpuwatch.py's mark() inside
a run (open + one write + close on events.jsonl) and outside one (a no-op), a flushed JSON line
through an open file, the logging module, and torch.cuda.nvtx.mark (Nsight's markers) when torch
and CUDA are there; and `gpuwatch mark` from a shell (a process per marker).

    python3 bench/mark_bench.py [N]        (prints microseconds per call and ratios)"""
import json
import logging
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import gpuwatch  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000


def per_call_us(fn, n=N):
    fn()
    t = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - t) / n * 1e6


def main():
    d = tempfile.mkdtemp()
    open(os.path.join(d, "events.jsonl"), "w").close()
    rows = []
    os.environ["GPUWATCH_RUN_DIR"] = d
    rows.append(("gpuwatch.mark in a run", per_call_us(lambda i=0: gpuwatch.mark("step", n=i,
                                                                                   loss=0.5))))
    os.environ.pop("GPUWATCH_RUN_DIR")
    sys.stderr = open(os.devnull, "w")  # the one notice outside a run
    rows.append(("gpuwatch.mark outside a run", per_call_us(lambda i=0: gpuwatch.mark("step",
                                                                                      n=i))))
    sys.stderr = sys.__stderr__
    f = open(os.path.join(d, "plain.jsonl"), "a")
    rows.append(("json line + flush to an open file", per_call_us(
        lambda i=0: (f.write(json.dumps({"text": "step", "n": i, "loss": 0.5}) + "\n"),
                     f.flush()))))
    log = logging.getLogger("bench")
    log.addHandler(logging.FileHandler(os.path.join(d, "log.txt")))
    log.setLevel(logging.INFO)
    log.propagate = False
    rows.append(("logging.info to a FileHandler", per_call_us(
        lambda i=0: log.info("step n=%d loss=%.3f", i, 0.5))))
    try:
        import torch
        if torch.cuda.is_available():
            rows.append(("torch.cuda.nvtx.mark", per_call_us(
                lambda i=0: torch.cuda.nvtx.mark(f"step {i}"))))
    except ImportError:
        pass
    gw = os.path.join(HERE, "..", "build", "gpuwatch")
    os.environ["GPUWATCH_RUN_DIR"] = d
    n_cli = 200
    rows.append(("`gpuwatch mark` (a process each)", per_call_us(
        lambda i=0: subprocess.run([gw, "mark", "step", "-f", f"n={i}"], check=True), n_cli)))
    rows.append(("`true` (a process each, for scale)", per_call_us(
        lambda i=0: subprocess.run(["true"], check=True), n_cli)))
    base = rows[2][1]
    print(f"{'per call':40s} {'us':>9s} {'x json line':>12s}")
    for name, us in rows:
        print(f"{name:40s} {us:9.2f} {us / base:12.2f}")
    lines = open(os.path.join(d, "events.jsonl")).read().splitlines()
    assert all(json.loads(line)["type"] == "mark" for line in lines)
    print(f"events.jsonl: {len(lines)} whole lines")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CPU time of polling GPUs, every tool at once for the same duration (CPU time per process does
not depend on the others, and running them together keeps the GPU machine's time short):

  - `gpuwatch query -lms 100` against `nvidia-smi --query-gpu -lms 100`, same fields
    (target: gpuwatch at most 1/5 of nvidia-smi's CPU time);
  - the live view `gpuwatch -i 1` against a Python pynvml loop printing the same every second
    (bench/pynvml_live.py).

    python3 bench/query_cpu.py [--duration 60] [--gpuwatch build/gpuwatch] [--out DIR]

Prints CPU seconds (user + system, from os.wait4), % of one core, peak RSS, CSV lines written, and
the two ratios (bench/compare_cpu.py's measure_all). Tools that are not installed are skipped. With
--out the two CSV files are kept."""
import argparse
import os
import shutil
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_cpu import measure_all  # noqa: E402
from query_fields import LOG_FIELDS  # noqa: E402


def jobs(a, out_dir):
    """(name, command, stop signal) of every tool that is installed."""
    j = [("gpuwatch query -lms 100", [a.gpuwatch, "query", "--query-gpu=" + LOG_FIELDS,
                                      "--format=csv", "-lms", "100", "-f",
                                      os.path.join(out_dir, "gpuwatch.csv")], signal.SIGINT)]
    if shutil.which("nvidia-smi"):
        j.append(("nvidia-smi -lms 100", ["nvidia-smi", "--query-gpu=" + LOG_FIELDS,
                                          "--format=csv", "-lms", "100", "-f",
                                          os.path.join(out_dir, "nvsmi.csv")], signal.SIGINT))
    j.append(("gpuwatch -i 1 (live)", [a.gpuwatch, "-i", "1"], signal.SIGINT))
    try:
        import pynvml  # noqa: F401
        j.append(("python pynvml live loop", [sys.executable, os.path.join(HERE, "pynvml_live.py"),
                                              "1", str(a.duration)], None))
    except ImportError:
        print("(pynvml not installed: skipping the Python loop)", file=sys.stderr)
    return j


def rows_in(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--out", default=None, help="keep the two CSV files in this directory")
    a = ap.parse_args()
    out_dir = a.out or tempfile.mkdtemp(prefix="gw-query-cpu-")
    os.makedirs(out_dir, exist_ok=True)
    todo = jobs(a, out_dir)
    results = measure_all(todo, a.duration)
    lines = {"gpuwatch query -lms 100": rows_in(os.path.join(out_dir, "gpuwatch.csv")),
             "nvidia-smi -lms 100": rows_in(os.path.join(out_dir, "nvsmi.csv"))}
    print(f"CPU over {a.duration:g} s, all tools at once")
    print(f"{'tool':<26} {'CPU s':>8} {'% core':>8} {'peak RSS MiB':>13} {'CSV lines':>10}")
    for name, _, _ in todo:
        cpu, pct, rss = results[name]
        print(f"{name:<26} {cpu:8.3f} {pct:8.3f} {rss:13.1f} {lines.get(name, ''):>10}")
    cpu = {name: r[0] for name, r in results.items()}
    if "nvidia-smi -lms 100" in cpu:
        g, n = cpu["gpuwatch query -lms 100"], cpu["nvidia-smi -lms 100"]
        print(f"ratio gpuwatch query / nvidia-smi (CPU): {g / n:.3f} (target <= 0.2)"
              if n > 0 else "nvidia-smi used no measurable CPU")
    if "python pynvml live loop" in cpu:
        g, p = cpu["gpuwatch -i 1 (live)"], cpu["python pynvml live loop"]
        print(f"ratio gpuwatch -i 1 / pynvml loop (CPU): {g / p:.3f}" if p > 0 else
              "the pynvml loop used no measurable CPU")
    if not a.out:
        shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    main()

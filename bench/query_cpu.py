#!/usr/bin/env python3
"""CPU time of polling GPUs, every tool at once for the same duration (CPU time per process does
not depend on the others, and running them together keeps the GPU machine's time short):

  - `gpuwatch query -lms 100` against `nvidia-smi --query-gpu -lms 100`, same fields
    (target: gpuwatch at most 1/5 of nvidia-smi's CPU time);
  - the live view `gpuwatch -i 1` against a Python pynvml loop printing the same every second
    (bench/pynvml_live.py).

    python3 bench/query_cpu.py [--duration 60] [--gpuwatch build/gpuwatch] [--out DIR]

Prints CPU seconds (user + system, from os.wait4), % of one core, peak RSS, output lines, and
the two ratios. Tools that are not installed are skipped. With --out the outputs are kept."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from query_fields import LOG_FIELDS  # noqa: E402


def vm_hwm_mib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def tools(a):
    gw_env = dict(os.environ, NO_COLOR="1")
    t = {"gpuwatch query -lms 100": ([a.gpuwatch, "query", "--query-gpu=" + LOG_FIELDS,
                                      "--format=csv", "-lms", "100"], None)}
    if shutil.which("nvidia-smi"):
        t["nvidia-smi -lms 100"] = (["nvidia-smi", "--query-gpu=" + LOG_FIELDS, "--format=csv",
                                     "-lms", "100"], None)
    t["gpuwatch -i 1 (live)"] = ([a.gpuwatch, "-i", "1"], gw_env)
    try:
        import pynvml  # noqa: F401
        t["python pynvml live loop"] = ([sys.executable, os.path.join(HERE, "pynvml_live.py"),
                                         "1", str(a.duration)], None)
    except ImportError:
        print("(pynvml not installed: skipping the Python loop)", file=sys.stderr)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--out", default=None, help="keep every tool's output in this directory")
    a = ap.parse_args()
    out_dir = a.out or tempfile.mkdtemp(prefix="gw-query-cpu-")
    os.makedirs(out_dir, exist_ok=True)
    procs = {}
    for i, (name, (cmd, env)) in enumerate(tools(a).items()):
        out = open(os.path.join(out_dir, f"tool{i}.out"), "w")
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
        procs[name] = (p, out, time.monotonic())
    hwm = {name: 0.0 for name in procs}
    t0 = time.monotonic()
    while time.monotonic() - t0 < a.duration:
        time.sleep(0.25)
        for name, (p, _, _) in procs.items():
            hwm[name] = max(hwm[name], vm_hwm_mib(p.pid))
    rows = []
    for name, (p, out, start) in procs.items():
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        out.close()
        err = p.stderr.read().decode(errors="replace").strip()
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, -signal.SIGINT):
            print(f"  {name} exited {code}: {err[:300]}", file=sys.stderr)
        with open(out.name, "rb") as f:
            lines = f.read().count(b"\n")
        cpu = ru.ru_utime + ru.ru_stime
        rows.append((name, cpu, 100.0 * cpu / wall, hwm[name], lines))
    print(f"CPU over {a.duration:g} s, all tools at once (outputs in {out_dir})")
    print(f"{'tool':<26} {'CPU s':>8} {'% core':>8} {'peak RSS MiB':>13} {'lines':>7}")
    for name, cpu, pct, rss, lines in rows:
        print(f"{name:<26} {cpu:8.3f} {pct:8.3f} {rss:13.1f} {lines:7d}")
    by = {r[0]: r[1] for r in rows}
    if "nvidia-smi -lms 100" in by:
        g, n = by["gpuwatch query -lms 100"], by["nvidia-smi -lms 100"]
        print(f"ratio gpuwatch query / nvidia-smi (CPU): {g / n:.3f} (target <= 0.2)"
              if n > 0 else "nvidia-smi used no measurable CPU")
    if "python pynvml live loop" in by:
        g, p = by["gpuwatch -i 1 (live)"], by["python pynvml live loop"]
        print(f"ratio gpuwatch -i 1 / pynvml loop (CPU): {g / p:.3f}" if p > 0 else
              "the pynvml loop used no measurable CPU")
    if not a.out:
        shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    main()

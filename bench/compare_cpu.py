#!/usr/bin/env python3
"""CPU time and peak memory of GPU logging at 10 Hz: gpuwatch record against nvidia-smi
--query-gpu -lms 100 and a pynvml loop, each for the same duration, one after the other.

    python3 bench/compare_cpu.py [--duration 60] [--interval 0.1] [--gpuwatch build/gpuwatch]

Prints a table (user+system CPU seconds, % of one core, peak RSS) and the ratios. Tools that are
not installed are skipped. Measured with os.wait4's rusage of each process (children included
for the Python loop, which runs in one process)."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FIELDS = ("timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,"
          "temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate")


def vm_hwm_mib(pid):
    """Peak RSS since exec (VmHWM). rusage's ru_maxrss would also count the Python parent's
    pages that the child had between fork and exec."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def measure(cmd, duration, stop_signal=None, env=None):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    hwm = 0.0
    while time.monotonic() - t0 < duration - 0.3:
        time.sleep(0.2)
        hwm = max(hwm, vm_hwm_mib(p.pid))
    if stop_signal:
        time.sleep(max(0.0, duration - (time.monotonic() - t0)))
        hwm = max(hwm, vm_hwm_mib(p.pid))
        p.send_signal(stop_signal)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) not in (0, -stop_signal if stop_signal else 0):
        print(f"  {cmd[0]} exited {os.waitstatus_to_exitcode(status)}: {err.strip()[:300]}",
              file=sys.stderr)
    cpu = ru.ru_utime + ru.ru_stime
    return cpu, 100.0 * cpu / wall, hwm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gw-bench-")
    rows = []
    rows.append(("gpuwatch record", measure(
        [a.gpuwatch, "record", "-o", f"{tmp}/gw", "-i", str(a.interval), "--duration",
         str(a.duration), "--no-report"], a.duration)))
    if shutil.which("nvidia-smi"):
        ms = str(int(a.interval * 1000))
        rows.append(("nvidia-smi -lms " + ms, measure(
            ["nvidia-smi", "--query-gpu=" + FIELDS, "--format=csv", "-lms", ms,
             "-f", f"{tmp}/nvsmi.csv"], a.duration, signal.SIGTERM)))
    try:
        import pynvml  # noqa: F401
        here = os.path.dirname(os.path.abspath(__file__))
        rows.append(("python pynvml loop", measure(
            [sys.executable, os.path.join(here, "pynvml_loop.py"), str(a.interval),
             str(a.duration), f"{tmp}/py.csv"], a.duration)))
    except ImportError:
        print("(pynvml not installed: skipping the Python loop)", file=sys.stderr)
    base = rows[0][1]
    print(f"{'tool':<24} {'CPU s':>8} {'% core':>8} {'peak RSS MiB':>13} {'CPU vs gpuwatch':>16}")
    for name, (cpu, pct, rss) in rows:
        ratio = cpu / base[0] if base[0] > 0 else float("inf")
        print(f"{name:<24} {cpu:8.3f} {pct:8.2f} {rss:13.1f} {ratio:15.1f}x")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CPU time and peak memory of GPU logging at 10 Hz: gpuwatch record against nvidia-smi
--query-gpu -lms 100 and a pynvml loop, over the same duration. By default the three run at the
same time (each process's CPU time is its own; on a machine with spare cores they do not slow each
other), --sequential runs them one after the other.

    python3 bench/compare_cpu.py [--duration 60] [--interval 0.1] [--gpuwatch build/gpuwatch]

Prints a table (user+system CPU seconds from os.wait4's rusage, % of one core, peak RSS from
/proc/PID/status VmHWM) and the ratios. Tools that are not installed are skipped.
--rounds N repeats the whole comparison and prints each round and the medians; --variant
NAME=PATH adds another gpuwatch build; --threads prints the CPU of each gpuwatch thread (from
/proc/PID/task/*/stat, read half a second before the end, so the last moments are not in it)."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import statistics
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


def thread_cpu(pid):
    """{thread name: CPU seconds} of a live process, from /proc/PID/task/*/stat."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        out[name] = out.get(name, 0.0) + cpu
    return out


def measure_all(jobs, duration, threads=None):
    """Runs every (name, cmd, stop_signal) at once for `duration`; returns {name: (cpu, %, rss)}.
    threads, a dict, receives {name: {thread: CPU s}} of the gpuwatch jobs."""
    t0 = time.monotonic()
    procs = [(name, cmd, sig, subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.PIPE))
             for name, cmd, sig in jobs]
    hwm = {name: 0.0 for name, _, _, _ in procs}
    while time.monotonic() - t0 < duration - 0.3:
        time.sleep(0.2)
        for name, _, _, p in procs:
            hwm[name] = max(hwm[name], vm_hwm_mib(p.pid))
    if threads is not None:
        time.sleep(max(0.0, duration - 0.5 - (time.monotonic() - t0)))
        for name, _, _, p in procs:
            if name.startswith("gpuwatch"):
                threads[name] = thread_cpu(p.pid)
    time.sleep(max(0.0, duration - (time.monotonic() - t0)))
    out = {}
    for name, cmd, sig, p in procs:
        hwm[name] = max(hwm[name], vm_hwm_mib(p.pid))
        if sig:
            p.send_signal(sig)
    for name, cmd, sig, p in procs:
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        err = p.stderr.read().decode(errors="replace")
        if os.waitstatus_to_exitcode(status) not in (0, -sig if sig else 0):
            print(f"  {cmd[0]} exited {os.waitstatus_to_exitcode(status)}: {err.strip()[:300]}",
                  file=sys.stderr)
        cpu = ru.ru_utime + ru.ru_stime
        out[name] = (cpu, 100.0 * cpu / min(wall, duration + 1), hwm[name])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--sequential", action="store_true")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--threads", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gw-bench-")
    builds = [("gpuwatch record", a.gpuwatch)]
    builds += [("gpuwatch " + v.split("=", 1)[0], v.split("=", 1)[1]) for v in a.variant]
    jobs = [(name, [path, "record", "-o", f"{tmp}/gw{k}", "-i", str(a.interval),
                    "--duration", str(a.duration), "--no-report"], None)
            for k, (name, path) in enumerate(builds)]
    if shutil.which("nvidia-smi"):
        ms = str(int(a.interval * 1000))
        jobs.append(("nvidia-smi -lms " + ms,
                     ["nvidia-smi", "--query-gpu=" + FIELDS, "--format=csv", "-lms", ms,
                      "-f", f"{tmp}/nvsmi.csv"], signal.SIGTERM))
    try:
        import pynvml  # noqa: F401
        here = os.path.dirname(os.path.abspath(__file__))
        jobs.append(("python pynvml loop",
                     [sys.executable, os.path.join(here, "pynvml_loop.py"), str(a.interval),
                      str(a.duration), f"{tmp}/py.csv"], None))
    except ImportError:
        print("(pynvml not installed: skipping the Python loop)", file=sys.stderr)
    rounds = []
    for r in range(a.rounds):
        threads = {} if a.threads else None
        if a.sequential:
            results = {}
            for job in jobs:
                results.update(measure_all([job], a.duration, threads))
        else:
            results = measure_all(jobs, a.duration, threads)
        for k in range(len(jobs)):  # fresh output folders for the next round
            shutil.rmtree(f"{tmp}/gw{k}", ignore_errors=True)
        rows = [(name, results[name]) for name, _, _ in jobs]
        rounds.append(rows)
        if a.rounds > 1:
            print(f"round {r + 1}")
        table(rows)
        for name, per in (threads or {}).items():
            print(f"  {name} threads: " +
                  ", ".join(f"{t} {c:.2f}" for t, c in sorted(per.items())))
    if a.rounds > 1:
        print(f"median of {a.rounds} rounds")
        table([(name, tuple(statistics.median(rd[i][1][j] for rd in rounds) for j in range(3)))
               for i, (name, _) in enumerate(rounds[0])])
    shutil.rmtree(tmp, ignore_errors=True)


def table(rows):
    base = rows[0][1]
    print(f"{'tool':<24} {'CPU s':>8} {'% core':>8} {'peak RSS MiB':>13} {'CPU vs gpuwatch':>16}")
    for name, (cpu, pct, rss) in rows:
        ratio = cpu / base[0] if base[0] > 0 else float("inf")
        print(f"{name:<24} {cpu:8.3f} {pct:8.2f} {rss:13.1f} {ratio:15.2f}x")


if __name__ == "__main__":
    main()

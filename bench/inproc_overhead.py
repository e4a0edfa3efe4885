#!/usr/bin/env python3
"""The cost of gpuwatch's in-job instrumentation (docs/inproc.md) to a training job: the same
command under `gpuwatch run` with it (the default) and with --no-python, alternated, and the
training throughput each epoch reached, from the job's own output:
  - tqdm epoch bars ("  2/9  ...  38/38 [00:16<00:00, 2.31it/s]"): the last rate of each
    epoch's bar, in steps/s; YOLO's train_dual.py bars ("  1/2 ... 38/38 00:15") carry no rate:
    steps over the elapsed seconds (1 s resolution) when the bar is full;
  - "epoch N done: X images/s" lines (examples/train_torchvision.py);
  - with the run's output.idx, YOLO's bars timed to the millisecond (idx_rates), preferred.
The first epoch (start-up, caches) is left out of the mean. From the instrumented runs it also
reads the sampler threads' own CPU time (sampler_cpu_s) from RUN/python/*.jsonl.

    bench/inproc_overhead.py [--gpuwatch build/gpuwatch] [--reps 1] [--out DIR]
                             [--modes on,off,nostacks] -- CMD [ARGS]

Modes: on (the default instrumentation), off (--no-python), nostacks (instrumented with
GPUWATCH_PYTHON_HZ=0: DataLoader timing, settings and memory, no stack sampling), which tells the
sampler's share of the cost from the hooks'. Each run also prints its start-up (from gpuwatch's
start to the job's first output byte) and its tail (from the last byte to gpuwatch's exit).

Prints one line per run and the slowdown of the mean; writes nothing but the run directories.
Run it on the device (bench/h200/inproc.sh); figures go to docs/performance.md."""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

BAR = re.compile(r"^\s*(\d+)/(\d+)\s.*?([\d.]+)\s*(it/s|s/it)\]")
# YOLO's bar has no rate: "  1/2  ...  640: 100%|#####| 38/38 00:15" (steps done, elapsed)
BAR_ELAPSED = re.compile(r"^\s*(\d+)/(\d+)\s.*\|\s*(\d+)/(\d+)\s+(?:(\d+):)?(\d+):(\d+)\s*$")
DONE = re.compile(r"epoch (\d+) done: ([\d.]+) images/s")


def rates(output_log):
    """{epoch: rate} from a job's output."""
    with open(output_log, "rb") as fh:
        text = fh.read().decode("utf-8", "replace")
    out = {}
    for piece in re.split(r"[\r\n]", text):
        piece = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", piece)
        m = DONE.search(piece)
        if m:
            out[int(m.group(1))] = float(m.group(2))
            continue
        m = BAR_ELAPSED.match(piece)
        if m:
            elapsed = int(m.group(5) or 0) * 3600 + int(m.group(6)) * 60 + int(m.group(7))
            if elapsed and m.group(3) == m.group(4):  # the epoch's last state: all steps done
                out[int(m.group(1))] = int(m.group(3)) / elapsed
            continue
        m = BAR.match(piece)
        if m:
            r = float(m.group(3))
            out[int(m.group(1))] = r if m.group(4) == "it/s" else (1.0 / r if r else 0.0)
    return out


def idx_rates(run):
    """{epoch: steps/s} from YOLO-style bars ("k/N ... s/S elapsed") timed to the millisecond by
    output.idx (the arrival time of each byte of output.log): from the epoch's first bar state to
    its full one. The bars' own 1 s clock is too coarse to see a 1 % difference; this is not."""
    try:
        with open(os.path.join(run, "output.log"), "rb") as fh:
            data = fh.read()
        marks = []
        with open(os.path.join(run, "output.idx"), encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("#"):
                    continue
                off, ms = line.split()
                marks.append((int(off), int(ms)))
    except (OSError, ValueError):
        return {}
    offs = [m[0] for m in marks]

    def when(offset):  # the arrival of the byte at offset
        import bisect
        i = bisect.bisect_right(offs, offset) - 1
        return marks[i][1] / 1000.0 if i >= 0 else None

    first, full = {}, {}
    for m in re.finditer(rb"[^\r\n]+", data):
        piece = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", m.group(0).decode("utf-8", "replace"))
        b = BAR_ELAPSED.match(piece)
        if not b:
            continue
        k, done, total = int(b.group(1)), int(b.group(3)), int(b.group(4))
        t = when(m.end() - 1)
        if t is None:
            continue
        first.setdefault(k, (t, done))
        if done == total and k not in full:
            full[k] = (t, done)
    out = {}
    for k, (t1, s1) in full.items():
        t0, s0 = first[k]
        if t1 > t0 and s1 > s0:
            out[k] = (s1 - s0) / (t1 - t0)
    return out


def first_last(run):
    """(first, last) arrival of the job's output, UNIX seconds, from output.idx, or None."""
    try:
        with open(os.path.join(run, "output.idx"), encoding="ascii", errors="replace") as fh:
            ms = [int(line.split()[1]) for line in fh if line[:1].isdigit()]
    except (OSError, ValueError, IndexError):
        return None
    return (ms[0] / 1000.0, ms[-1] / 1000.0) if ms else None


def sampler_cpu(run):
    total = 0.0
    for path in glob.glob(os.path.join(run, "python", "*.jsonl")):
        cpu = 0.0
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if '"kind":"stacks"' in line:
                    try:
                        cpu = json.loads(line).get("sampler_cpu_s") or cpu
                    except ValueError:
                        pass
        total += cpu
    return total, len(glob.glob(os.path.join(run, "python", "*.jsonl")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--out", default="/tmp/inproc-overhead")
    ap.add_argument("--interval", default="0.5")
    ap.add_argument("--modes", default="on,off")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("give the command after --")
    os.makedirs(a.out, exist_ok=True)
    modes = [m for m in a.modes.split(",") if m]
    if not modes or set(modes) - {"on", "off", "nostacks"} or "off" not in modes:
        ap.error("--modes: a list of on, off, nostacks that holds off")
    means = {m: [] for m in modes}
    for rep in range(a.reps):
        for mode in modes:
            run = os.path.join(a.out, "%s-%d" % (mode, rep))
            flags = ["--no-python"] if mode == "off" else []
            env = dict(os.environ)
            if mode == "nostacks":
                env["GPUWATCH_PYTHON_HZ"] = "0"
            t0 = time.time()
            with open(run + ".console", "w") as con:
                rc = subprocess.call([a.gpuwatch, "run", "--no-report", "-i", a.interval, "-o",
                                      run] + flags + ["--"] + cmd, stdout=con, stderr=con,
                                     env=env)
            t1 = time.time()
            wall = t1 - t0
            fl = first_last(run)
            edges = ("start-up %.1f s, tail %.1f s  " % (fl[0] - t0, t1 - fl[1])) if fl else ""
            r = idx_rates(run) or rates(os.path.join(run, "output.log"))
            later = [v for k, v in sorted(r.items())][1:]
            mean = statistics.mean(later) if later else float("nan")
            means[mode].append(mean)
            cpu, nproc = sampler_cpu(run)
            print("%-8s rep %d rc %d wall %.0f s  %sper epoch %s  mean after the first %.3f  "
                  "sampler CPU %.2f s in %d processes" %
                  (mode, rep, rc, wall, edges,
                   ", ".join("%.3f" % v for k, v in sorted(r.items())), mean, cpu, nproc),
                  flush=True)
    off = statistics.mean(means["off"])
    for mode in modes:
        if mode == "off":
            continue
        on = statistics.mean(means[mode])
        print("mean throughput: %s %.3f, --no-python %.3f: %+.1f %%" %
              (mode, on, off, 100.0 * (on - off) / off if off else float("nan")))


if __name__ == "__main__":
    sys.exit(main())

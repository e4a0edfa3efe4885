"""Generates a gpuwatch run directory of a long multi-GPU training job (no GPU needed).

Used by tests/cli/test_html_report.py (an hour, to check decimation) and bench/html_bench.py (the
issue's 24 hours x 8 GPUs x 10 Hz). The job: one-hour epochs (epoch events), each ending in three
minutes of validation (low util and power); GPU 2 is power-capped (reason 0x4, lower SM clock)
for two minutes every three hours (from 30 min on); GPU 6 slows down thermally (0x20, 90 C) for a
minute at 45 % of the run; and two
one-sample spikes that decimation must keep: SPIKE_POWER_W on GPU 3 and a util dip to 0 on GPU 5.

usage: python3 tests/cli/longrun.py DIR [--gpus 8] [--hours 24] [--hz 10]
"""
import argparse
import json
import os
import random
import time

T0 = 1796083200.0  # 2026-12-01T00:00:00Z
SPIKE_POWER_W = 699.9
GPU_HEADER = ("timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
              "temperature.gpu, power.draw [W], power.limit [W], clocks.current.sm [MHz], "
              "clocks_event_reasons.active, gpm.sm_active [%], gpm.tensor_active [%]\n")
HOST_HEADER = "timestamp, cpu.util [%], memory.used [MiB], job.cpu [%], job.rss [MiB], job.processes\n"
PROC_HEADER = "timestamp, index, pid, process_name, used_memory [MiB], in_job\n"


def spike_ticks(n):
    """Ticks of the power spike (GPU 3) and the util dip (GPU 5): in the middle of training."""
    return int(n * 0.37) | 1, int(n * 0.61) | 1


def rfc3339(t):
    ms = int(round(t * 1000))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def gpu_row(ts, i, g, hz, noise, spikes, hot_s):
    sec = i / hz
    in_epoch = sec % 3600
    validating = in_epoch >= 3420
    r = noise[(i * 7 + g * 131) % len(noise)]
    capped = g == 2 and 1800 <= sec % 10800 < 1920
    hot = g == 6 and hot_s <= sec < hot_s + 60
    if sec < 60:  # start-up: loading data, compiling
        util, sm, tensor, power, clock, reasons = 0, 0.0, 0.0, 80 + 3 * r, 345, 1
    elif validating:
        util = 30 + int(20 * r)
        sm, tensor, power, clock, reasons = 25 + 10 * r, 5 + 3 * r, 250 + 40 * r, 1980, 0
    else:
        util = 95 + int(5.99 * r)
        sm, tensor, power, clock, reasons = 85 + 7 * r, 40 + 20 * r, 520 + 80 * r, 1980, 0
        if capped:
            power, clock, reasons = 699 + r, 1755 + int(40 * r), 0x4
    temp = 35 + int(power / 14)
    if hot:
        temp, clock, reasons = 90, 1600, 0x20
    if i == spikes[0] and g == 3:
        power = SPIKE_POWER_W
    if i == spikes[1] and g == 5:
        util = 0
    mem = 600 if sec < 60 else 61000 + g * 512 + int(in_epoch * 0.1)
    return (f"{ts}, {g}, {util}, {mem}, 143771, {temp}, {power:.1f}, 700.00, {clock}, "
            f"0x{reasons:016x}, {sm:.1f}, {tensor:.1f}\n")


def write_meta(d, gpus, hz, n):
    meta = {"gpuwatch_version": "0.1.0", "mode": "run", "host": "gen", "interval_ms": 1000 // hz,
            "devices": [{"index": g, "name": "NVIDIA H200", "uuid": f"GPU-gen-{g}",
                         "pci_bus_id": f"00000000:{0x10 + g:02X}:00.0",
                         "memory_total_mib": 143771, "power_limit_w": 700,
                         "slowdown_temp_c": 89, "max_sm_clock_mhz": 1980}
                        for g in range(gpus)],
            "command": ["python3", "train.py"], "start_time": rfc3339(T0),
            "end_time": rfc3339(T0 + (n - 1) / hz)}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def write_events(d, hours, n, hz):
    with open(os.path.join(d, "events.jsonl"), "w") as f:
        f.write(json.dumps({"timestamp": rfc3339(T0), "type": "job_start", "pid": 4242}) + "\n")
        for e in range(int(hours)):
            f.write(json.dumps({"timestamp": rfc3339(T0 + 60 + e * 3600), "type": "epoch",
                                "epoch": e + 1, "total": int(hours)}) + "\n")
        f.write(json.dumps({"timestamp": rfc3339(T0 + (n - 1) / hz), "type": "job_exit",
                            "pid": 4242, "code": 0}) + "\n")


def generate(d, gpus=8, hours=24.0, hz=10):
    """Writes the run directory d; returns the number of ticks."""
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(5)
    noise = [rnd.random() for _ in range(8191)]
    n = int(hours * 3600 * hz)
    spikes = spike_ticks(n)
    write_meta(d, gpus, hz, n)
    write_events(d, hours, n, hz)
    with open(os.path.join(d, "gpu.csv"), "w") as fg, \
            open(os.path.join(d, "host.csv"), "w") as fh, \
            open(os.path.join(d, "processes.csv"), "w") as fp:
        fg.write(GPU_HEADER)
        fh.write(HOST_HEADER)
        fp.write(PROC_HEADER)
        gbuf, hbuf, pbuf = [], [], []
        for i in range(n):
            ts = rfc3339(T0 + i / hz)
            for g in range(gpus):
                gbuf.append(gpu_row(ts, i, g, hz, noise, spikes, int(hours * 3600 * 0.45)))
            r = noise[i % len(noise)]
            hbuf.append(f"{ts}, {40 + 20 * r:.1f}, {200000 + i % 5000}, {700 + 300 * r:.1f}, "
                        f"{9000 + 2000 * r:.1f}, 9\n")
            if i % hz == 0 and i / hz >= 60:
                for g in range(gpus):
                    used = 61000 + g * 512 + int((i / hz % 3600) * 0.1) - 615
                    pbuf.append(f"{ts}, {g}, {5000 + g}, python3, {used}, 1\n")
            if len(gbuf) > 40000:
                fg.write("".join(gbuf))
                fh.write("".join(hbuf))
                fp.write("".join(pbuf))
                gbuf, hbuf, pbuf = [], [], []
        fg.write("".join(gbuf))
        fh.write("".join(hbuf))
        fp.write("".join(pbuf))
    return n


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--hours", type=float, default=24)
    ap.add_argument("--hz", type=int, default=10)
    a = ap.parse_args()
    t = time.time()
    ticks = generate(a.dir, a.gpus, a.hours, a.hz)
    print(f"{a.dir}: {ticks} ticks x {a.gpus} GPUs in {time.time() - t:.0f} s")

#!/usr/bin/env python3
"""The Python way of a live GPU view that `gpuwatch -i 1` is compared with: a pynvml loop that
prints, every INTERVAL seconds, what gpuwatch's view shows — per GPU name, temperature,
GPU-Util, SM activity (GPM, when this pynvml has it), memory used / total, power draw / limit,
and per process user, pid, command line and memory — for DURATION seconds.

    python3 bench/pynvml_live.py INTERVAL DURATION"""
import os
import pwd
import sys
import time

import pynvml as N


def user_of(pid):
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return "-"
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def command_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read(4096)
    except OSError:
        return "(another container)"
    return raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")[:60]


class Gpm:
    """SM activity over the last interval, where pynvml and the GPU support GPM."""

    def __init__(self, h):
        self.h, self.prev = h, None
        try:
            self.ok = N.nvmlGpmQueryDeviceSupport(h).isSupportedDevice
        except Exception:  # an older pynvml, or a GPU without GPM
            self.ok = False

    def sm_active(self):
        if not self.ok:
            return None
        try:
            return self._sample()
        except Exception:  # this pynvml's GPM API differs: go on without SM activity
            self.ok = False
            return None

    def _sample(self):
        cur = N.nvmlGpmSampleAlloc()
        N.nvmlGpmSampleGet(self.h, cur)
        value = None
        if self.prev is not None:
            mg = N.c_nvmlGpmMetricsGet_t()
            mg.version = N.NVML_GPM_METRICS_GET_VERSION
            mg.numMetrics = 1
            mg.sample1, mg.sample2 = self.prev, cur
            mg.metrics[0].metricId = N.NVML_GPM_METRIC_SM_UTIL
            N.nvmlGpmMetricsGet(mg)
            value = mg.metrics[0].value
            N.nvmlGpmSampleFree(self.prev)
        self.prev = cur
        return value


def frame(handles, gpms):
    lines = [time.strftime("%Y-%m-%d %H:%M:%S")]
    for i, h in enumerate(handles):
        name = N.nvmlDeviceGetName(h)
        temp = N.nvmlDeviceGetTemperature(h, 0)
        try:
            util = f"{N.nvmlDeviceGetUtilizationRates(h).gpu} %"
        except N.NVMLError:
            util = "n/a"
        sm = gpms[i].sm_active()
        mem = N.nvmlDeviceGetMemoryInfo(h)
        draw = N.nvmlDeviceGetPowerUsage(h) / 1000
        limit = N.nvmlDeviceGetPowerManagementLimit(h) / 1000
        sm_text = f"  SM {sm:.0f} %" if sm is not None else ""
        lines.append(f"[{i}] {name} | {temp}C | {util}{sm_text} | {-(-mem.used // 2**20)} / "
                     f"{mem.total // 2**20} MiB | {draw:.0f} / {limit:.0f} W")
        for p in N.nvmlDeviceGetComputeRunningProcesses(h):
            used = "n/a" if p.usedGpuMemory is None else f"{-(-p.usedGpuMemory // 2**20)} MiB"
            lines.append(f"    {user_of(p.pid)}  {p.pid}  {command_of(p.pid)}  {used}")
    return "\n".join(lines) + "\n"


def main():
    interval, duration = float(sys.argv[1]), float(sys.argv[2])
    N.nvmlInit()
    handles = [N.nvmlDeviceGetHandleByIndex(i) for i in range(N.nvmlDeviceGetCount())]
    gpms = [Gpm(h) for h in handles]
    t0 = time.monotonic()
    k = 0
    while time.monotonic() - t0 < duration:
        sys.stdout.write(frame(handles, gpms) + "\n")
        sys.stdout.flush()
        k += 1
        time.sleep(max(0.0, t0 + k * interval - time.monotonic()))
    N.nvmlShutdown()


if __name__ == "__main__":
    main()

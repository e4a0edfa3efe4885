#!/usr/bin/env python3
"""The Python way of logging GPUs that gpuwatch is compared with: a pynvml loop reading the same
fields as gpu.csv every INTERVAL seconds and appending CSV lines, for DURATION seconds.

    python3 bench/pynvml_loop.py INTERVAL DURATION OUT.csv"""
import sys
import time

import pynvml as N

interval, duration, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
N.nvmlInit()
handles = [N.nvmlDeviceGetHandleByIndex(i) for i in range(N.nvmlDeviceGetCount())]
t0 = time.monotonic()
k = 0
with open(out, "w") as f:
    while time.monotonic() - t0 < duration:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S")
        for i, h in enumerate(handles):
            u = N.nvmlDeviceGetUtilizationRates(h)
            m = N.nvmlDeviceGetMemoryInfo(h)
            f.write(", ".join(map(str, [
                ts, i, u.gpu, u.memory, m.used >> 20, m.total >> 20,
                N.nvmlDeviceGetTemperature(h, 0), N.nvmlDeviceGetPowerUsage(h) / 1000,
                N.nvmlDeviceGetPowerManagementLimit(h) / 1000, N.nvmlDeviceGetClockInfo(h, 1),
                hex(N.nvmlDeviceGetCurrentClocksEventReasons(h)),
                N.nvmlDeviceGetPerformanceState(h)])) + "\n")
        f.flush()
        k += 1
        time.sleep(max(0.0, t0 + k * interval - time.monotonic()))
N.nvmlShutdown()

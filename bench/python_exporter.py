#!/usr/bin/env python3
"""A GPU exporter in Python, built the usual way from prometheus_client and pynvml: the peer that
bench/h200/serve.sh measures `gpuwatch serve` against.

It exposes dcgm-exporter's names and labels for the fields both can read (utilization, memory,
temperature, power, limit, clocks, energy), sampled by a background thread every --interval
seconds; a scrape renders the latest sample and does not call NVML, as `gpuwatch serve` does, so
the comparison is of the HTTP and exposition side, not of NVML calls per scrape. It has no GPM
ratios (pynvml's GPM support varies by version), so its pages are a little smaller than
gpuwatch's. prometheus_client's default process and Python collectors stay registered, as a user
would have them; its counters get a _total suffix (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total).

  python3 bench/python_exporter.py [--listen 127.0.0.1] [--port 9401] [--interval 1]
"""
import argparse
import signal
import socket
import sys
import threading
import time

import pynvml
from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY, CounterMetricFamily, GaugeMetricFamily

LABELS = ["gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"]
MIB = 1024 * 1024


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def read(h):
    """One GPU's values; a field NVML cannot give is left out (absent, not 0)."""
    out = {}
    getters = {
        "util": lambda: pynvml.nvmlDeviceGetUtilizationRates(h),
        "mem": lambda: pynvml.nvmlDeviceGetMemoryInfo(h),
        "temp": lambda: pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
        "power_mw": lambda: pynvml.nvmlDeviceGetPowerUsage(h),
        "limit_mw": lambda: pynvml.nvmlDeviceGetPowerManagementLimit(h),
        "sm_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
        "mem_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
        "energy_mj": lambda: pynvml.nvmlDeviceGetTotalEnergyConsumption(h),
    }
    for key, get in getters.items():
        try:
            out[key] = get()
        except pynvml.NVMLError:
            pass
    return out


class Sampler(threading.Thread):
    def __init__(self, interval):
        super().__init__(daemon=True)
        self.interval = interval
        self.lock = threading.Lock()
        self.latest = []
        host = socket.gethostname()
        self.gpus = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            labels = [str(i), text(pynvml.nvmlDeviceGetUUID(h)),
                      text(pynvml.nvmlDeviceGetPciInfo(h).busId), f"nvidia{i}",
                      text(pynvml.nvmlDeviceGetName(h)), host]
            self.gpus.append((h, labels))
        self.sample()

    def sample(self):
        values = [(labels, read(h)) for h, labels in self.gpus]
        with self.lock:
            self.latest = values

    def run(self):
        next_t = time.monotonic()
        while True:
            next_t += self.interval
            time.sleep(max(0.0, next_t - time.monotonic()))
            self.sample()


class Collector:
    def __init__(self, sampler):
        self.sampler = sampler

    def collect(self):
        with self.sampler.lock:
            latest = self.sampler.latest
        fams = {
            "DCGM_FI_DEV_SM_CLOCK": ("SM clock frequency (in MHz).", lambda v: v["sm_mhz"]),
            "DCGM_FI_DEV_MEM_CLOCK": ("Memory clock frequency (in MHz).", lambda v: v["mem_mhz"]),
            "DCGM_FI_DEV_GPU_TEMP": ("GPU temperature (in C).", lambda v: v["temp"]),
            "DCGM_FI_DEV_POWER_USAGE": ("Power draw (in W).", lambda v: v["power_mw"] / 1000),
            "DCGM_FI_DEV_GPU_UTIL": ("GPU utilization (in %).", lambda v: v["util"].gpu),
            "DCGM_FI_DEV_MEM_COPY_UTIL": ("Memory utilization (in %).",
                                          lambda v: v["util"].memory),
            "DCGM_FI_DEV_FB_FREE": ("Framebuffer memory free (in MiB).",
                                    lambda v: v["mem"].free // MIB),
            "DCGM_FI_DEV_FB_USED": ("Framebuffer memory used (in MiB).",
                                    lambda v: -(-v["mem"].used // MIB)),
            "DCGM_FI_DEV_POWER_MGMT_LIMIT": ("Power management limit (in W).",
                                             lambda v: v["limit_mw"] / 1000),
        }
        for name, (help_text, get) in fams.items():
            g = GaugeMetricFamily(name, help_text, labels=LABELS)
            for labels, v in latest:
                try:
                    g.add_metric(labels, get(v))
                except KeyError:
                    pass
            yield g
        c = CounterMetricFamily("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                                "Total energy consumption since boot (in mJ).", labels=LABELS)
        for labels, v in latest:
            if "energy_mj" in v:
                c.add_metric(labels, v["energy_mj"])
        yield c


def main():
    ap = argparse.ArgumentParser(description="GPU exporter: prometheus_client + pynvml")
    ap.add_argument("--listen", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=9401)
    ap.add_argument("--interval", type=float, default=1.0)
    a = ap.parse_args()
    pynvml.nvmlInit()
    sampler = Sampler(a.interval)
    REGISTRY.register(Collector(sampler))
    sampler.start()
    start_http_server(a.port, addr=a.listen)
    print(f"python exporter: serving {len(sampler.gpus)} GPUs on "
          f"http://{a.listen}:{a.port}/metrics", file=sys.stderr, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    pynvml.nvmlShutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Scrape latency, throughput, CPU per scrape and memory of `gpuwatch serve` (bench/README.md).

Fake GPUs (default): for each GPU count, starts `gpuwatch serve` on loopback against the fake NVML
library playing constant H200s, and measures
  - latency p50/p99 of back-to-back scrapes on one keep-alive connection (wrk --latency -c1),
  - scrapes per second with 8 connections (wrk -t2 -c8),
  - CPU time per scrape (the server's utime+stime over the 1-connection run / its scrapes),
  - RSS after the load: VmRSS, split into RssAnon (heap and stacks: gpuwatch's own data) and
    RssFile (mapped code: libc, libmicrohttpd with GnuTLS, cJSON, the NVML library), and VmHWM.
bench/scrape_load.c gives the same figures where wrk is missing (--loadgen scrape_load), and
cross-checks wrk (--loadgen both).

Any running exporter: --url http://HOST:PORT/metrics --pid PID --name NAME measures one server the
same way (bench/h200/serve.sh uses it for gpuwatch and bench/python_exporter.py on a real GPU).

Many scrapers from one address (--scrapers 64,100,300,600): N kept-alive connections from
127.0.0.1 scraping back to back (build/scrape_load -c N), one fake GPU; prints scrapes answered
and connections reset (a scraper whose idle connection was closed to make room for another). The
default per-address limit is half of --max-connections (256 of 512); it was 64 (issue 28).

  python3 bench/serve_bench.py [--gpus 1,8,64] [--seconds 5] [--loadgen wrk|scrape_load|both]
  python3 bench/serve_bench.py --scrapers 64,100,300,600 [--bin OLD/gpuwatch]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("GPUWATCH_BUILD", ROOT / "build"))
TICK = os.sysconf("SC_CLK_TCK")


def scenario(n):
    dev = lambda i: {  # noqa: E731
        "uuid": f"GPU-5e7a0000-0000-0000-0000-{i:012x}",
        "pci_bus_id": f"00000000:{(i + 1) % 256:02X}:{i // 256:02X}.0",
        "timeline": [{"t": 0, "util_gpu": 87, "util_mem": 35, "mem_used_mib": 20480,
                      "temp_c": 65, "power_w": 512.5, "sm_clock_mhz": 1755,
                      "mem_clock_mhz": 2619, "clocks_event_reasons": 0, "pstate": 0,
                      "sm_active": 92.5, "sm_occupancy": 40, "tensor_active": 60,
                      "dram_active": 30}]}
    return {"devices": [dev(i) for i in range(n)]}


def cpu_s(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def memory(pid):
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[k + "_kib"] = int(v.split()[0])
    return out


def wrk_us(text, pct):
    m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    return float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)] if m else None


def run_wrk(url, conns, seconds):
    threads = 1 if conns == 1 else 2
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors", out)
    return {"rps": rps, "p50_us": wrk_us(out, 50), "p99_us": wrk_us(out, 99),
            "errors": 1 if errors else 0}


def run_scrape_load(url, conns, seconds):
    binary = BUILD / "scrape_load"
    out = subprocess.run([str(binary), "-c", str(conns), "-d", str(seconds), url],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def measure(url, pid, seconds, loadgens):
    """Latency on 1 connection, throughput on 8, CPU per scrape, memory after."""
    result = {"body_bytes": len(urllib.request.urlopen(url, timeout=10).read())}
    for gen in loadgens:
        run = run_wrk if gen == "wrk" else run_scrape_load
        c0 = cpu_s(pid)
        one = run(url, 1, seconds)
        c1 = cpu_s(pid)
        eight = run(url, 8, seconds)
        result[gen] = {"p50_us": one["p50_us"], "p99_us": one["p99_us"],
                       "rps_1conn": one["rps"], "rps_8conn": eight["rps"],
                       "cpu_us_per_scrape": (c1 - c0) * 1e6 / max(1, one["rps"] * seconds),
                       "errors": one.get("errors", 0) + eight.get("errors", 0)}
    result.update(memory(pid))
    return result


def wait_ready(url, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if b"DCGM_FI_PROF_SM_ACTIVE" in urllib.request.urlopen(url, timeout=2).read():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{url} did not come up with GPM values")


def bench_fake(n, seconds, loadgens, scrapers=None, binary=None):
    tmp = Path(tempfile.mkdtemp(prefix="gw-serve-bench-"))
    path = tmp / "scenario.json"
    path.write_text(json.dumps(scenario(n)))
    env = dict(os.environ, GPUWATCH_NVML_LIB=str(BUILD / "fake-nvml" / "libnvidia-ml.so.1"),
               FAKE_NVML_SCENARIO=str(path))
    proc = subprocess.Popen([str(binary or BUILD / "gpuwatch"), "serve", "--listen", "127.0.0.1:0",
                             "-i", "1"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        addr = re.search(r"on http://(\S+)/metrics", line).group(1)
        url = f"http://{addr}/metrics"
        wait_ready(url)
        if scrapers:
            return [run_scrape_load(url, c, seconds) for c in scrapers]
        return measure(url, proc.pid, seconds, loadgens)
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp)


def table(rows, loadgens):
    print("| GPUs | body | load generator | p50 | p99 | scrapes/s (1 conn) | scrapes/s (8 conns) "
          "| CPU per scrape | VmRSS | RssAnon | RssFile | VmHWM |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in rows:
        for gen in loadgens:
            g = r[gen]
            print(f"| {name} | {r['body_bytes'] / 1024:.1f} KiB | {gen} | {g['p50_us']:.0f} us "
                  f"| {g['p99_us']:.0f} us | {g['rps_1conn']:.0f} | {g['rps_8conn']:.0f} "
                  f"| {g['cpu_us_per_scrape']:.1f} us | {r['VmRSS_kib'] / 1024:.1f} MiB "
                  f"| {r['RssAnon_kib'] / 1024:.1f} MiB | {r['RssFile_kib'] / 1024:.1f} MiB "
                  f"| {r['VmHWM_kib'] / 1024:.1f} MiB |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpus", default="1,8,64")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--loadgen", choices=["wrk", "scrape_load", "both"], default=None)
    ap.add_argument("--url")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--name", default="server")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--scrapers", help="comma-separated counts of kept-alive scrapers from one "
                    "address")
    ap.add_argument("--bin", help="the gpuwatch to start (default: the build's)")
    a = ap.parse_args()
    if a.scrapers:
        counts = [int(x) for x in a.scrapers.split(",")]
        print("| scrapers (one address) | scrapes | scrapes/s | resets | resets per scrape |")
        print("|---|---|---|---|---|")
        for c, r in zip(counts, bench_fake(1, a.seconds, [], counts, a.bin)):
            print(f"| {c} | {r['requests']} | {r['rps']:.0f} | {r['errors']} | "
                  f"{100 * r['errors'] / max(1, r['requests'] + r['errors']):.1f} % |")
        return 0
    loadgen = a.loadgen or ("wrk" if shutil.which("wrk") else "scrape_load")
    loadgens = ["wrk", "scrape_load"] if loadgen == "both" else [loadgen]
    if a.url:
        rows = [(a.name, measure(a.url, a.pid, a.seconds, loadgens))]
    else:
        rows = [(str(n), bench_fake(n, a.seconds, loadgens)) for n in map(int, a.gpus.split(","))]
    table(rows, loadgens)
    if a.json:
        Path(a.json).write_text(json.dumps(dict(rows), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

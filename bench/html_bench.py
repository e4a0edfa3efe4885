#!/usr/bin/env python3
"""HTML report size and render time for a long multi-GPU run (the issue's 24 h x 8 GPUs x 10 Hz).

Generates the run directory with tests/cli/longrun.py (gpu.csv, host.csv, processes.csv,
events.jsonl, meta.json), then measures
  1. `gpuwatch report RUN --html OUT`: wall time and peak RSS (reading, analysing, decimating)
  2. the HTML file's size (budget: 5 MB)
  3. in headless Chromium (tests/browser/check_report.mjs), REPEAT times: the time from
     navigation start until every chart is drawn (budget: 2 s), and the wall time of page.goto
     until then; console errors and network requests (must be none)
and prints them with the point counts of the charts. Speed is reported, never asserted.

usage: bench/html_bench.py [--gpus 8] [--hours 24] [--hz 10] [--repeat 3] [--keep DIR]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "cli"))
import longrun  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--hours", type=float, default=24)
    ap.add_argument("--hz", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", help="generate into (or reuse) this directory and keep it")
    ap.add_argument("--gpuwatch", default=str(ROOT / "build" / "gpuwatch"))
    a = ap.parse_args()
    work = Path(a.keep or tempfile.mkdtemp(prefix="gw-html-bench-"))
    run = work / "run"
    try:
        if not (run / "gpu.csv").exists():
            t = time.perf_counter()
            ticks = longrun.generate(str(run), a.gpus, a.hours, a.hz)
            print(f"generated {run}: {ticks} ticks x {a.gpus} GPUs "
                  f"({(run / 'gpu.csv').stat().st_size / 2**20:.0f} MiB gpu.csv) in "
                  f"{time.perf_counter() - t:.0f} s")
        html = work / "report.html"
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t = time.perf_counter()
        p = subprocess.run([a.gpuwatch, "report", str(run), "--html", str(html)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t
        if p.returncode:
            sys.exit(f"gpuwatch report failed: {p.stderr}")
        rss = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
        size = html.stat().st_size
        print(f"gpuwatch report --html: {wall:.1f} s wall, peak RSS {rss:.0f} MiB")
        print(f"HTML size: {size / 1e6:.2f} MB ({size} bytes; budget 5 MB)")
        ready, walls, last = [], [], None
        for i in range(a.repeat):
            p = subprocess.run(["node", str(ROOT / "tests/browser/check_report.mjs"), str(html),
                                str(work / "screenshot.png")], capture_output=True, text=True)
            if p.returncode:
                sys.exit(f"browser failed: {p.stdout[-2000:]} {p.stderr[-2000:]}")
            last = json.loads(p.stdout)
            ready.append(last["readyMs"])
            walls.append(last["wallMs"])
        print(f"Chromium render (navigation start -> all charts drawn): median "
              f"{statistics.median(ready):.0f} ms, max {max(ready):.0f} ms over {a.repeat} "
              f"loads (budget 2000 ms); page.goto -> drawn {statistics.median(walls):.0f} ms")
        print(f"console messages {len(last['console'])}, page errors {len(last['pageErrors'])}, "
              f"network requests {len(last['requests'])}")
        for c in last["charts"]:
            pts = sum(s["points"] for s in c["series"])
            print(f"  {c['id']:7s} {len(c['series']):3d} series, grid {c['gridPoints']} "
                  f"({'binned' if c['binned'] else 'raw'}), {pts} points")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

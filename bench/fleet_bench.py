#!/usr/bin/env python3
"""Benchmark `gpuwatch report --fleet` at a site's scale (docs/report.md, "Fleet").

  1. a directory of JOBS per-job summary.json files (the Slurm epilog's), USERS users, 2 GPUs
     each with a starved and an underfilled verdict: `gpuwatch report --fleet DIR --json OUT`
  2. a stand-in Prometheus HTTP API (one local thread) naming JOBS jobs in every answer:
     `gpuwatch report --fleet http://127.0.0.1:PORT --json OUT`
each in its own process (GNU time, Debian's `time` package, measures its peak RSS); prints wall
time and peak RSS, and checks that the GPU-hours add up.

usage: bench/fleet_bench.py [--jobs 50000] [--users 500] [--bin build/gpuwatch]
Speed is reported, never asserted.
"""
import argparse
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def timed(cmd):
    """Wall seconds and peak RSS (MiB) of cmd alone: GNU time measures the exec'd program, not
    this Python process that forks it (ru_maxrss of children would count Python's own pages)."""
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    wall = time.monotonic() - t
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return wall, int(p.stderr.strip().splitlines()[-1]) / 1024


def summaries(d, jobs, users):
    for i in range(jobs):
        gpus = [{"index": g, "source": "n1", "uuid": f"GPU-{i}-{g}", "duration_s": 3600,
                 "stats": {"gpm.sm_active [%]": {"mean": 50}}} for g in (0, 1)]
        verdicts = [{"id": "gpu_starved", "gpu": 0, "source": "n1", "duration_s": 1800},
                    {"id": "underfilled_kernels", "gpu": 1, "source": "n1", "duration_s": 600}]
        doc = {"gpus": gpus, "verdicts": verdicts,
               "job": {"job_id": str(i), "user": f"user{i % users}"}}
        with open(os.path.join(d, f"{i}.json"), "w") as f:
            json.dump(doc, f)


def prometheus(jobs, users):
    class Api(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)["query"][0]
            if "gpuwatch_job_info" in q:
                res = [{"metric": {"job_id": str(i), "user": f"user{i % users}"},
                        "value": [0, "1"]} for i in range(jobs)]
            else:
                v = "0.5" if "avg_over_time" in q else "2" if q.startswith("count") else "60"
                res = [{"metric": {"hpc_job": str(i)}, "value": [0, v]} for i in range(jobs)]
            body = json.dumps({"status": "success",
                               "data": {"resultType": "vector", "result": res}}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=50000)
    ap.add_argument("--users", type=int, default=500)
    ap.add_argument("--bin", default="build/gpuwatch")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "jobs")
        os.mkdir(d)
        summaries(d, a.jobs, a.users)
        out = os.path.join(tmp, "fleet.json")
        wall, rss = timed([a.bin, "report", "--fleet", d, "--json", out])
        t = json.load(open(out))["totals"]
        assert abs(t["gpu_hours"] - 2 * a.jobs) < 1e-3 * a.jobs, t
        print(f"{a.jobs} summaries, {a.users} users: {wall:.2f} s, {rss:.0f} MiB peak RSS")
        srv = prometheus(a.jobs, a.users)
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        wall, rss = timed([a.bin, "report", "--fleet", url, "--json", out])
        srv.shutdown()
        n = len(json.load(open(out))["jobs"])
        assert n == a.jobs, n
        print(f"Prometheus answer of {a.jobs} jobs: {wall:.2f} s (the stand-in server's time "
              f"included), {rss:.0f} MiB peak RSS")


if __name__ == "__main__":
    main()

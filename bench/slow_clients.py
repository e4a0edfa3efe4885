#!/usr/bin/env python3
"""How long a scrape of `gpuwatch serve` waits while slow or idle clients hold connections
(issue 12 item 2; figures in bench/README.md).

Starts `gpuwatch serve` on loopback against the fake NVML library (one constant H200) and, for
each attack, measures the time from connect to a complete /metrics answer of one scrape:
  - drip:  64 clients that send one header byte every 2 s and never finish their request;
  - idle:  1,000 connections that send nothing;
  - spread: the same 1,000 from 20 addresses (127.0.1.1-20), 50 each, more than the server's
    512 connections at once;
the scrape comes from 127.0.0.1 (the attacker's own address) and from 127.0.0.2 (another host as
far as the server can tell). A scrape not answered within --limit seconds is reported as such.
Also reports how long a dripping client stays connected (it should be --client-timeout).

  python3 bench/slow_clients.py [--bin build/gpuwatch] [--limit 30] [--serve-args '...']
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("GPUWATCH_BUILD", ROOT / "build"))
DEV = {"uuid": "GPU-5e7a0000-0000-0000-0000-000000000000", "timeline": [
    {"t": 0, "util_gpu": 87, "util_mem": 35, "mem_used_mib": 20480, "temp_c": 65, "power_w": 512.5,
     "sm_clock_mhz": 1755, "clocks_event_reasons": 0, "pstate": 0}]}


def start(binary, scen, extra=()):
    env = dict(os.environ, GPUWATCH_NVML_LIB=str(BUILD / "fake-nvml/libnvidia-ml.so.1"),
               FAKE_NVML_SCENARIO=scen, NO_COLOR="1",
               GPUWATCH_SYSTEM_CONFIG="/nonexistent", XDG_CONFIG_HOME="/nonexistent")
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "-i", "0.5", *extra],
                            env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, int(m.group(1))
    raise SystemExit("gpuwatch serve did not start")


def scrape(port, source, limit):
    """Seconds until a complete /metrics answer, or None after `limit` seconds."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        try:
            s = socket.create_connection(("127.0.0.1", port),
                                         timeout=max(0.1, limit - (time.monotonic() - t0)),
                                         source_address=(source, 0))
        except OSError:
            time.sleep(0.01)
            continue
        try:
            s.settimeout(max(0.1, limit - (time.monotonic() - t0)))
            s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
            if data.startswith(b"HTTP/1.1 200") and b"DCGM_FI_DEV_GPU_TEMP" in data:
                return time.monotonic() - t0
        except OSError:
            pass  # refused or reset: try again on a new connection
        finally:
            s.close()
        time.sleep(0.01)
    return None


def open_many(port, n, sources=("127.0.0.1",)):
    socks = []
    for i in range(n):
        s = socket.socket()
        s.bind((sources[i % len(sources)], 0))
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
    return socks


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


def attack(binary, scen, kind, source, limit, extra):
    """(seconds until the scrape was answered or None, the server's VmRSS in KiB after it)."""
    proc, port = start(binary, scen, extra)
    stop = threading.Event()
    socks = []
    try:
        assert scrape(port, "127.0.0.1", 10) is not None, "no answer before the attack"
        if kind == "drip":
            socks = open_many(port, 64)

            def drip():
                req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10000
                i = 0
                while not stop.is_set() and i < len(req):
                    for s in socks:
                        try:
                            s.send(req[i:i + 1])
                        except OSError:
                            pass
                    i += 1
                    stop.wait(2)
            threading.Thread(target=drip, daemon=True).start()
        elif kind == "spread":
            socks = open_many(port, 1000, [f"127.0.1.{i}" for i in range(1, 21)])
        else:
            socks = open_many(port, 1000)
        time.sleep(4)  # connects the full backlog dropped are retried after 1 s and 3 s
        took = scrape(port, source, limit)
        rss = rss_kib(proc.pid)
    finally:
        stop.set()
        for s in socks:
            s.close()
        proc.kill()
        proc.wait()
    return took, rss


def drip_lifetime(binary, scen, limit, extra):
    """Seconds until the server closes a client that sends one byte every 0.5 s."""
    proc, port = start(binary, scen, extra)
    try:
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(0.5)
        t0 = time.monotonic()
        req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10000
        for i in range(len(req)):
            if time.monotonic() - t0 > limit:
                return None
            try:
                s.send(req[i:i + 1])
                if s.recv(1) == b"":
                    return time.monotonic() - t0
            except socket.timeout:
                pass
            except OSError:
                return time.monotonic() - t0
        return None
    finally:
        proc.kill()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(BUILD / "gpuwatch"))
    ap.add_argument("--limit", type=float, default=30)
    ap.add_argument("--attacks", default="drip,idle,spread")
    ap.add_argument("--serve-args", default="", help="more arguments for gpuwatch serve, such as "
                    "'--max-connections-per-ip 100000' to measure the deadlines alone")
    a = ap.parse_args()
    extra = a.serve_args.split()
    with tempfile.TemporaryDirectory() as d:
        scen = os.path.join(d, "s.json")
        Path(scen).write_text(json.dumps({"devices": [DEV]}))
        out = {}
        for kind in a.attacks.split(","):
            for source in ("127.0.0.1", "127.0.0.2"):
                t, rss = attack(a.bin, scen, kind, source, a.limit, extra)
                out[f"{kind}_scrape_from_{source}_s"] = None if t is None else round(t, 3)
                out[f"{kind}_rss_kib"] = rss
                print(f"{kind:6} attack, scrape from {source}: "
                      + (f"answered after {t:.3f} s" if t is not None
                         else f"not answered within {a.limit:g} s")
                      + f" (server VmRSS {rss / 1024:.1f} MiB)", file=sys.stderr)
        t = drip_lifetime(a.bin, scen, a.limit, extra)
        out["dripping_client_closed_after_s"] = None if t is None else round(t, 1)
        print("a client dripping one byte every 0.5 s is "
              + (f"closed after {t:.1f} s" if t is not None
                 else f"still connected after {a.limit:g} s"), file=sys.stderr)
        print(json.dumps(out))


if __name__ == "__main__":
    main()

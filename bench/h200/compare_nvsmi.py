#!/usr/bin/env python3
"""Compares a gpuwatch gpu.csv with an nvidia-smi --query-gpu CSV recorded at the same time
(bench/h200/proof_run.sh): for each field, rows are paired with the nvidia-smi row nearest in
time (within half a sampling period), and the largest and median absolute differences are
printed, with the time gap of the pairs. Needs only the standard library.

    python3 bench/h200/compare_nvsmi.py RUN/gpu.csv NVSMI.csv"""
import statistics
import sys
from datetime import datetime, timezone

FIELDS = [("utilization.gpu [%]", "utilization.gpu [%]"),
          ("utilization.memory [%]", "utilization.memory [%]"),
          ("memory.used [MiB]", "memory.used [MiB]"),
          ("memory.total [MiB]", "memory.total [MiB]"),
          ("temperature.gpu", "temperature.gpu"),
          ("power.draw [W]", "power.draw [W]"),
          ("power.limit [W]", "power.limit [W]"),
          ("clocks.current.sm [MHz]", "clocks.current.sm [MHz]"),
          ("clocks_event_reasons.active", "clocks_event_reasons.active"),
          ("pstate", "pstate")]


def num(s):
    s = s.strip().split(" ")[0]
    if s.startswith("0x"):
        return int(s, 16)
    if s.startswith("P"):
        return int(s[1:])
    return float(s) if s not in ("", "[N/A]") else None


def load(path, local):
    lines = open(path).read().splitlines()
    head = [h.strip() for h in lines[0].split(",")]
    rows = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.split(",")]
        d = dict(zip(head, cells))
        if local:  # nvidia-smi writes local time without a zone; the device runs in UTC
            t = datetime.strptime(d["timestamp"], "%Y/%m/%d %H:%M:%S.%f")
        else:
            t = datetime.strptime(d["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ")
        d["_t"] = t.replace(tzinfo=timezone.utc).timestamp()
        rows.append(d)
    return rows


def main():
    gw, ns = load(sys.argv[1], False), load(sys.argv[2], True)
    pairs = []
    j = 0
    for r in gw:
        while j + 1 < len(ns) and abs(ns[j + 1]["_t"] - r["_t"]) <= abs(ns[j]["_t"] - r["_t"]):
            j += 1
        if abs(ns[j]["_t"] - r["_t"]) <= 0.1:
            pairs.append((r, ns[j]))
    gaps = [abs(a["_t"] - b["_t"]) * 1000 for a, b in pairs]
    print(f"{len(gw)} gpuwatch rows, {len(ns)} nvidia-smi rows, {len(pairs)} pairs within 100 ms "
          f"(median gap {statistics.median(gaps):.0f} ms)")
    print(f"{'field':<30} {'max |diff|':>11} {'median':>8} {'equal':>7}")
    for gk, nk in FIELDS:
        d = []
        for a, b in pairs:
            x, y = num(a.get(gk, "")), num(b.get(nk, ""))
            if x is not None and y is not None:
                d.append(abs(x - y))
        if not d:
            print(f"{gk:<30} {'(absent)':>11}")
            continue
        eq = sum(1 for v in d if v == 0) / len(d) * 100
        print(f"{gk:<30} {max(d):11.2f} {statistics.median(d):8.2f} {eq:6.0f}%")


if __name__ == "__main__":
    main()

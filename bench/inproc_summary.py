#!/usr/bin/env python3
"""Prints what a run directory's in-job data (RUN/python/, docs/inproc.md) says, for reading
device runs by eye: per loader pass the steps, steps/s and the share of the loop's time spent
waiting for data; the settings of the main process and of a worker; the top functions by self
samples per role; the sampler's own CPU time.

    bench/inproc_summary.py RUN [RUN...]

This is a bench helper, not the report (the report reads the same files in C)."""
import collections
import glob
import json
import os
import sys


def records(run):
    per_pid = {}
    for path in sorted(glob.glob(os.path.join(run, "python", "*.jsonl"))):
        recs = []
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass
        per_pid[int(os.path.basename(path).split(".")[0])] = recs
    return per_pid


def last(recs, kind):
    found = [r for r in recs if r.get("kind") == kind]
    return found[-1] if found else None


def stacks(run, pid):
    counts = collections.Counter()
    path = os.path.join(run, "python", "%d.stacks" % pid)
    if not os.path.exists(path):
        return counts
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if stack and n.isdigit():
                counts[stack.split(";")[-1]] += int(n)
    return counts


def summary(run):
    per_pid = records(run)
    print("== %s (%d Python processes)" % (run, len(per_pid)))
    try:
        with open(os.path.join(run, "meta.json")) as fh:
            print("python_instrumentation:", json.load(fh).get("python_instrumentation"))
    except (OSError, ValueError):
        pass
    roles = collections.defaultdict(list)
    cpu = 0.0
    for pid, recs in per_pid.items():
        proc = last(recs, "process") or {}
        roles[proc.get("role", "?")].append(pid)
        st = last(recs, "stacks")
        if st:
            cpu += st.get("sampler_cpu_s") or 0.0
    print("processes by role:", {k: len(v) for k, v in roles.items()},
          "sampler CPU %.2f s in all" % cpu)
    for pid in roles.get("main", []):
        recs = per_pid[pid]
        loaders = {r["loader"]: r for r in recs if r.get("kind") == "loader"}
        for lid, lr in sorted(loaders.items()):
            print("loader %d: %s workers=%s batch=%s pin=%s persistent=%s prefetch=%s %s "
                  "batches=%s at %s" % (lid, lr.get("class"), lr.get("num_workers"),
                                        lr.get("batch_size"), lr.get("pin_memory"),
                                        lr.get("persistent_workers"), lr.get("prefetch_factor"),
                                        lr.get("dataset"), lr.get("batches"),
                                        lr.get("created_at")))
        for p in (r for r in recs if r.get("kind") == "pass"):
            busy = p["wait_s"] + p["between_s"]
            dur = p["t_end"] - p["t_start"]
            print("  pid %d loader %d pass %d: %d steps in %.1f s (%.2f steps/s), waited %.1f s "
                  "= %.0f %% of the loop (first batch %.1f s)%s" %
                  (pid, p["loader"], p["pass"], p["steps"], dur, p["steps"] / dur if dur else 0,
                   p["wait_s"], 100 * p["wait_s"] / busy if busy else 0,
                   p["first_wait_s"] or 0, "" if p["complete"] else " (not complete)"))
        s = last(recs, "settings")
        print("  main settings:", s and {k: v for k, v in s.items() if k not in ("t", "kind")})
        m = last(recs, "memory")
        if m:
            print("  memory: allocated %.0f MiB, reserved %.0f MiB, max allocated %.0f MiB" %
                  (m["allocated_bytes"] / 2**20, m["reserved_bytes"] / 2**20,
                   m["max_allocated_bytes"] / 2**20))
    if roles.get("worker"):
        s = last(per_pid[roles["worker"][0]], "settings")
        print("  a worker's settings:", s and {k: s.get(k) for k in
                                              ("torch_num_threads", "cv2_num_threads")})
    for role in ("main", "worker"):
        total = collections.Counter()
        for pid in roles.get(role, []):
            total.update(stacks(run, pid))
        n = sum(total.values())
        if n:
            top = ", ".join("%.0f %% %s" % (100.0 * c / n, f) for f, c in total.most_common(5))
            print("  %s self (%d samples): %s" % (role, n, top[:600]))


if __name__ == "__main__":
    for r in sys.argv[1:]:
        summary(r)

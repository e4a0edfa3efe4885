"""Reads a step recording (bench/h200/step_job.py under `gpuwatch run -i 0.2`) and prints the
gpu.csv rows around both edges of the burst: seconds from the edge, GPU-Util, GPM SM activity,
and in which row each of them crossed 50 %. Also: `cpu BIN ARGS...` runs a command, prints its
CPU (user + system, from rusage), per-thread CPU read from /proc just before it ends, and the
rows of its gpu.csv.

    python3 bench/h200/gpm_align.py edges RUN_DIR
    python3 bench/h200/gpm_align.py cpu OUT_DIR SECONDS -- BIN record -o OUT_DIR ...
"""
import os
import subprocess
import sys
import time
from datetime import datetime


def rows(path):
    lines = open(path).read().splitlines()
    head = lines[0].split(", ")
    return [dict(zip(head, l.split(", "))) for l in lines[1:] if not l.startswith("timestamp")]


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()


def num(s):
    return float(s) if s not in ("", None) else None


def edges(run):
    log = open(os.path.join(run, "output.log")).read().split()
    start = float(log[log.index("burst_start") + 1])
    end = float(log[log.index("burst_end") + 1])
    rs = [r for r in rows(os.path.join(run, "gpu.csv")) if r["index"] == "0"]
    for name, edge, rising in (("rising", start, True), ("falling", end, False)):
        print(f"== {name} edge at {edge:.3f}")
        print(f"{'row':>4} {'t-edge s':>9} {'util %':>7} {'sm_active %':>12}")
        crossed = {}
        for i, r in enumerate(rs):
            dt = ts(r["timestamp"]) - edge
            util, sm = num(r["utilization.gpu [%]"]), num(r["gpm.sm_active [%]"])
            for key, v in (("util", util), ("sm", sm)):
                if v is not None and dt > -0.5 and key not in crossed and \
                        ((v >= 50) if rising else (v < 50)):
                    crossed[key] = i
            if -1.25 <= dt <= 1.45:
                print(f"{i:4d} {dt:9.3f} {util if util is not None else '':>7} "
                      f"{sm if sm is not None else '':>12}")
        u, s = crossed.get("util"), crossed.get("sm")
        print(f"crossed 50 %: util in row {u}, sm_active in row {s}: "
              f"{'n/a' if u is None or s is None else s - u} rows apart")
        late = [ts(r["timestamp"]) - edge for r in rs
                if 0.7 <= ts(r["timestamp"]) - edge <= (end - start if rising else 3) - 0.3
                and num(r["gpm.sm_active [%]"]) is not None
                and ((num(r["gpm.sm_active [%]"]) < 50) if rising
                     else (num(r["gpm.sm_active [%]"]) >= 50))]
        print(f"rows >= 0.7 s after the edge still showing the old SM activity: {len(late)}")


def cpu(out, seconds, cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(seconds)
    threads = []
    tick = os.sysconf("SC_CLK_TCK")
    for t in sorted(os.listdir(f"/proc/{p.pid}/task")):
        try:
            comm = open(f"/proc/{p.pid}/task/{t}/comm").read().strip()
            f = open(f"/proc/{p.pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()
            threads.append((comm, (int(f[11]) + int(f[12])) / tick))
        except OSError:
            pass
    _, status, ru = os.wait4(p.pid, 0)
    n = len(rows(os.path.join(out, "gpu.csv")))
    total = ru.ru_utime + ru.ru_stime
    print(f"{' '.join(cmd)}\n  exit {status >> 8}, CPU {total:.3f} s, {n} rows, "
          f"{total / n * 1e6:.0f} us per tick, max RSS {ru.ru_maxrss / 1024:.1f} MiB")
    print("  threads at %.0f s: %s" % (seconds, ", ".join(f"{c} {s:.2f} s" for c, s in threads)))


if __name__ == "__main__":
    if sys.argv[1] == "edges":
        edges(sys.argv[2])
    else:
        cpu(sys.argv[2], float(sys.argv[3]), sys.argv[5:])

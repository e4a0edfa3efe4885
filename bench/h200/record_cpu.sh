#!/usr/bin/env bash
# Issue 28, goal 2: `gpuwatch record -i 0.1` against `nvidia-smi --query-gpu=<gpu.csv's 12 fields>
# -lms 100` and a pynvml loop, side by side (bench/compare_cpu.py: 3 rounds of 30 s, one of 120 s,
# with each gpuwatch thread's CPU), then the fixed cost of a recording that starts and stops at
# once against one nvidia-smi query (7 runs each, CPU from rusage). About 4 minutes.
#   bench/h200/record_cpu.sh OUTDIR [BEFORE_GPUWATCH]
set -u
R=${1:?usage: record_cpu.sh OUTDIR [BEFORE_GPUWATCH]}/record_cpu
mkdir -p "$R"
. bench/h200/env.sh
before=()
[ -n "${2:-}" ] && before=(--variant "before=$2")
uptime > "$R/uptime.txt"
python3 bench/compare_cpu.py --duration 30 --rounds 3 --threads "${before[@]}" > "$R/cmp30.txt" 2>&1
python3 bench/compare_cpu.py --duration 120 --threads "${before[@]}" > "$R/cmp120.txt" 2>&1
python3 - > "$R/startup.txt" 2>&1 <<'PY'
import os, shutil, statistics, subprocess, tempfile
F = ("timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,"
     "temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate")
def cpu(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime
for name, mk in [("gpuwatch record --duration 0.1",
                  lambda d: ["build/gpuwatch", "record", "-o", d, "-i", "0.1", "--duration", "0.1",
                             "--no-report"]),
                 ("nvidia-smi --query-gpu once", lambda d: ["nvidia-smi", "--query-gpu=" + F,
                                                            "--format=csv"])]:
    xs = []
    for _ in range(7):
        d = tempfile.mkdtemp()
        shutil.rmtree(d)
        xs.append(cpu(mk(d)))
        shutil.rmtree(d, ignore_errors=True)
    print(f"{name:34s} CPU s median {statistics.median(xs):.4f}")
PY
uptime >> "$R/uptime.txt"

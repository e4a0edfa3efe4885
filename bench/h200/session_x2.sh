#!/usr/bin/env bash
# The 2-GPU session: the DDP run with one rank slowed (bench/h200/ddp.sh), where gpuwatch's CPU goes
# per thread during a 20 s recording at 10 Hz (/proc/PID/task/TID/schedstat, nanoseconds), the CPU
# comparisons of bench/compare_cpu.py and bench/query_cpu.py over 30 s, and how long nvmlInit takes
# with and without NVML_INIT_FLAG_NO_ATTACH. About 3 minutes.
#   bench/h200/session_x2.sh OUTDIR
set -u
OUT=${1:?usage: session_x2.sh OUTDIR}
R=$OUT/x2
mkdir -p "$R"
. bench/h200/env.sh
bench/h200/ddp.sh "$OUT"
build/gpuwatch record -o "$R/rec" -i 0.1 --duration 20 --no-report 2> "$R/rec.txt" &
GP=$!
sleep 2
snap() { for t in /proc/$GP/task/*; do echo "$(cat $t/comm) $(cut -d' ' -f1 $t/schedstat)"; done; }
snap > "$R/threads_t2.txt"
sleep 16
snap > "$R/threads_t18.txt"
grep -E 'VmHWM|VmRSS|RssAnon|RssFile' /proc/$GP/status >> "$R/threads_t18.txt"
wait $GP
python3 bench/compare_cpu.py --duration 30 > "$R/compare_cpu.txt" 2>&1 &
mkdir -p "$R/qc"
python3 bench/query_cpu.py --duration 30 --out "$R/qc" > "$R/query_cpu.txt" 2>&1
wait
python3 - > "$R/init_timing.txt" 2>&1 <<'PY'
import ctypes, time
lib = ctypes.CDLL("libnvidia-ml.so.1")
for flags in (0, 2, 0, 2):
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        r = lib.nvmlInitWithFlags(ctypes.c_uint(flags))
        ts.append((time.perf_counter() - t) * 1000)
        lib.nvmlShutdown()
    print(f"nvmlInitWithFlags({flags}): rc {r}, ms {min(ts):.1f} min {sorted(ts)[2]:.1f} median")
PY
tar -C "$OUT" -czf "$OUT/x2.tar.gz" x2 ddp

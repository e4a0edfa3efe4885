#!/usr/bin/env bash
# The CPU figures after the cadence changes, on one GPU: per-call costs 100 ms apart
# (bench_tick), then record / nvidia-smi / pynvml and query -lms 100 / live view side by side for
# 30 s, with per-thread CPU of the recording. About 1.5 minutes.
#   bench/h200/final_cpu.sh OUTDIR
set -u
R=${1:?usage: final_cpu.sh OUTDIR}/final
mkdir -p "$R"
. bench/h200/env.sh
build/bench_tick 2000 10 > "$R/bench_tick.txt" 2>&1
python3 bench/compare_cpu.py --duration 30 > "$R/compare_cpu.txt" 2>&1 &
mkdir -p "$R/qc"
python3 bench/query_cpu.py --duration 30 --out "$R/qc" > "$R/query_cpu.txt" 2>&1
wait
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/final.tar.gz" final

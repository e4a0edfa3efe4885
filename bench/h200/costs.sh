#!/usr/bin/env bash
# Where gpuwatch's CPU goes on a real GPU: per-NVML-call costs (bench_tick), per-thread CPU of a
# 20 s `gpuwatch record` at 10 Hz, nvidia-smi's MiB rounding, and a one-block spinning job.
set -u
R=${1:?usage: costs.sh OUTDIR}/costs
mkdir -p "$R"
. bench/h200/env.sh
build/bench_tick 20000 > "$R/bench_tick.txt" 2>&1
build/gpuwatch record -o "$R/rec" -i 0.1 --duration 20 --no-report 2> "$R/rec.txt" &
GP=$!
sleep 19
for t in /proc/$GP/task/*; do
  echo "$(cat $t/comm) $(awk '{print "utime", $14, "stime", $15}' $t/stat)"
done > "$R/threads.txt"
grep -E 'VmRSS|VmHWM|RssAnon|RssFile' /proc/$GP/status >> "$R/threads.txt"
wait $GP
python3 bench/h200/memory_rounding.py > "$R/memory_rounding.txt" 2>&1
build/gpuwatch run -o "$R/underfilled" -i 0.2 -- python3 examples/underfilled_kernels.py \
  --seconds 12 > "$R/underfilled.txt" 2>&1
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/costs.tar.gz" costs

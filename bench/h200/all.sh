#!/usr/bin/env bash
# Every real-GPU proof in one session on one GPU machine (about 12 minutes on an H200), from the
# repository root with build/ built here and bench/h200/collect-libs.sh run. Each part is a script
# of its own that can also run alone; this one orders them so that the 60-second CPU comparisons
# run side by side while a job that holds idle memory is recorded.
#
#   bench/h200/all.sh OUTDIR [1|2]   -> OUTDIR/all1.tar.gz / all2.tar.gz (both parts when omitted;
#                                      a part stays under 10 minutes)
set -u
OUT=${1:?usage: all.sh OUTDIR [1|2]}
PART=${2:-12}
mkdir -p "$OUT"
. bench/h200/env.sh
T0=$(date +%s)
step() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a "$OUT/timeline.txt"; }

if [[ $PART == *1* ]]; then
step "environment, NVML layout test, per-call costs"
mkdir -p "$OUT/base"
{ date -u; uname -a; nvidia-smi; ldd build/gpuwatch; cat /proc/cpuinfo | grep -m1 "model name"
  python3 -c 'import torch, torchvision; print("torch", torch.__version__, torchvision.__version__)'
} > "$OUT/base/env.txt" 2>&1
NVML_H=$(ls /usr/local/cuda*/targets/x86_64-linux/include/nvml.h 2>/dev/null | head -1)
cc -std=c11 -I src -I "$(dirname "$NVML_H")" tests/layout/nvml_layout.c -o /tmp/nvml_layout \
  > "$OUT/base/layout.txt" 2>&1 && /tmp/nvml_layout >> "$OUT/base/layout.txt" 2>&1
echo "layout exit $?" >> "$OUT/base/layout.txt"
build/bench_tick 20000 20 > "$OUT/base/bench_tick.txt" 2>&1

step "60 s CPU window (record/nvidia-smi/pynvml, query -lms 100, live view) + idle-holding job"
python3 bench/compare_cpu.py --duration 60 > "$OUT/base/compare_cpu.txt" 2>&1 &
C1=$!
mkdir -p "$OUT/base/query_cpu"
python3 bench/query_cpu.py --duration 60 --out "$OUT/base/query_cpu" \
  > "$OUT/base/query_cpu.txt" 2>&1 &
C2=$!
LABELLED_ONLY=idle_holding_memory LABELLED_NO_REPORT=1 bench/h200/labelled.sh "$OUT"
wait $C1 $C2

step "labelled runs"
LABELLED_SKIP=idle_holding_memory bench/h200/labelled.sh "$OUT"
step "part 1 done"
tar -C "$OUT" -czf "$OUT/all1.tar.gz" base labelled timeline.txt
fi
if [[ $PART == *2* ]]; then
step "query"
QUERY_CPU=0 bench/h200/query.sh "$OUT" > /dev/null 2>&1
step "check and alerts"
bench/h200/check.sh "$OUT" > /dev/null 2>&1
step "serve"
bench/h200/serve.sh "$OUT" > /dev/null 2>&1
step "markers"
bench/h200/markers.sh "$OUT" > /dev/null 2>&1
step "part 2 done"
tar -C "$OUT" -czf "$OUT/all2.tar.gz" query check serve markers timeline.txt
fi

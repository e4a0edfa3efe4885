#!/usr/bin/env bash
# The real-GPU proof for `gpuwatch run` (issue 2), run on an NVIDIA machine from the repository
# root with build/ built: environment, the NVML layout test, the tick benchmark, a real torchvision
# training job recorded by gpuwatch while nvidia-smi records the same fields, an underfilled-kernel
# job, and the CPU/RSS comparison with nvidia-smi and pynvml. Everything lands in one tarball.
#
#   bench/h200/proof_run.sh OUTDIR        (then: bench/h200/compare_nvsmi.py OUTDIR/...)
set -u
OUTDIR=${1:?usage: proof_run.sh OUTDIR}
R=$OUTDIR/proof
mkdir -p "$R"
. bench/h200/env.sh
FIELDS=timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate
{
  date -u; uname -a; nvidia-smi; nvidia-smi -q | head -40; ldd --version | head -1
  python3 -c 'import torch, torchvision; print("torch", torch.__version__, torchvision.__version__, torch.cuda.is_available())'
  python3 -c 'import pynvml; print("pynvml", pynvml.nvmlSystemGetDriverVersion() if pynvml.nvmlInit() is None else "")'
  ldd build/gpuwatch
} > "$R/env.txt" 2>&1
NVML_H=$(ls /usr/local/cuda*/targets/x86_64-linux/include/nvml.h 2>/dev/null | head -1)
cc -std=c11 -I src -I "$(dirname "$NVML_H")" tests/layout/nvml_layout.c -o /tmp/nvml_layout \
  > "$R/layout.txt" 2>&1 && /tmp/nvml_layout >> "$R/layout.txt" 2>&1
echo "layout exit $?" >> "$R/layout.txt"
build/bench_tick 20000 > "$R/bench_tick.txt" 2>&1
# A real training job, with nvidia-smi recording the same fields alongside.
nvidia-smi --query-gpu=$FIELDS --format=csv -lms 200 -f "$R/train.nvsmi.csv" &
NP=$!
sleep 1
build/gpuwatch run -o "$R/train" -i 0.2 -- python3 examples/train_torchvision.py --model resnet50 \
  --epochs 3 --steps 120 --batch 256 --workers 8 --val-steps 15 --channels-last \
  > "$R/train.stdout.txt" 2> "$R/train.stderr.txt"
echo "gpuwatch run exit $?" >> "$R/train.stderr.txt"
sleep 1
kill $NP
# One tiny kernel after another: GPU-Util high, SM activity low.
build/gpuwatch run -o "$R/underfilled" -i 0.2 -- python3 examples/underfilled_kernels.py \
  --seconds 15 > "$R/underfilled.stdout.txt" 2> "$R/underfilled.stderr.txt"
# The sanitizer build against the real driver, if its runtime loads here.
if [ -x build-asan/gpuwatch ]; then
  ASAN_OPTIONS=detect_leaks=1 build-asan/gpuwatch record -o "$R/asan" -i 0.1 --duration 3 \
    > "$R/asan.txt" 2>&1
  echo "asan record exit $?" >> "$R/asan.txt"
fi
python3 bench/compare_cpu.py --duration 60 --interval 0.1 > "$R/compare_cpu.txt" 2>&1
tar -C "$OUTDIR" -czf "$OUTDIR/proof.tar.gz" proof

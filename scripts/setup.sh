#!/usr/bin/env bash
# Installs what gpuwatch needs (Debian 12 / Ubuntu packages), builds build/gpuwatch, and records an
# example training job with `gpuwatch run`. With an NVIDIA driver and PyTorch it trains a real
# torchvision model on the GPU; otherwise it plays a simulated H200 through the fake NVML library
# and says so. Idempotent: run it again at any time (each run records into a new runs/ folder).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
if nvidia-smi -L >/dev/null 2>&1 && python3 -c 'import torch, torchvision' 2>/dev/null; then
  echo "setup: NVIDIA driver and PyTorch found: recording a real training job" >&2
  exec build/gpuwatch run -- python3 examples/train_torchvision.py --epochs 2 --steps 40
fi
echo "setup: no NVIDIA driver or no PyTorch here: recording a simulated job on a simulated GPU" \
     "(fake NVML playing examples/scenarios/demo_training.json)" >&2
export GPUWATCH_NVML_LIB="$PWD/build/fake-nvml/libnvidia-ml.so.1"
export FAKE_NVML_SCENARIO="$PWD/examples/scenarios/demo_training.json"
exec build/gpuwatch run -i 0.2 -- python3 examples/simulated_train.py

#!/usr/bin/env bash
# Two-GPU DDP run with one rank slowed, recorded by gpuwatch (needs a 2-GPU machine).
#   bench/h200/ddp.sh OUTDIR
set -u
R=${1:?usage: ddp.sh OUTDIR}/ddp
mkdir -p "$R"
. bench/h200/env.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L > "$R/gpus.txt"
build/gpuwatch run -o "$R/ddp_slow_rank" -i 0.2 -- python3 examples/ddp_imbalance.py \
  --slow-rank 1 --delay 0.08 --epochs 3 --steps 60 > "$R/out.txt" 2> "$R/err.txt"
echo "exit $?" >> "$R/err.txt"
build/gpuwatch report "$R/ddp_slow_rank" > "$R/verdicts.txt" 2>&1
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/ddp.tar.gz" ddp

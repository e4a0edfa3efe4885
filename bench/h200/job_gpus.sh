#!/usr/bin/env bash
# Issue 17 items 1-2 on real GPUs: does the GPU meta.json's "job" names match the GPU CUDA really
# gave the command? PyTorch prints the UUID of its device 0; meta.json must hold the same UUID.
#   bench/h200/job_gpus.sh OUTDIR      (from the repository root, build/ and .device/ carried)
# Cases: CUDA_VISIBLE_DEVICES=<UUID prefix of the last GPU>; nothing set (the GPUs come from the
# job's processes); on 2+ GPUs also CUDA_VISIBLE_DEVICES=1 with CUDA_DEVICE_ORDER=PCI_BUS_ID, and
# without it (not guessed: gpus_note, then processes). Results: OUTDIR/job_gpus/summary.txt.
set -u
R=${1:?usage: job_gpus.sh OUTDIR}/job_gpus
mkdir -p "$R"
. bench/h200/env.sh
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER NVIDIA_VISIBLE_DEVICES SLURM_JOB_GPUS SLURM_STEP_GPUS
nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader > "$R/gpus.txt" 2>&1
N=$(wc -l < "$R/gpus.txt")
LAST_UUID=$(tail -1 "$R/gpus.txt" | cut -d, -f2 | tr -d ' ')
JOB='import torch, time
x = torch.randn(8192, 8192, device="cuda")
t = time.time()
while time.time() - t < 4:
    y = x @ x
torch.cuda.synchronize()
print("torch device 0:", "GPU-" + str(torch.cuda.get_device_properties(0).uuid), flush=True)'

one() { # NAME ENV...: one recorded run and what it says
  local name=$1; shift
  env "$@" build/gpuwatch run -o "$R/$name" -i 0.2 -- python3 -c "$JOB" \
    > "$R/$name.out" 2> "$R/$name.err"
  echo "exit $?" >> "$R/$name.err"
  {
    echo "== $name: $*"
    grep -h "torch device 0" "$R/$name.out"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["job"]
print("meta.json job:", j["gpus"], j["gpu_uuids"], j["gpus_source"], "note:", j["gpus_note"])' \
      "$R/$name/meta.json"
    grep -h "this job's GPU\|FASTEST_FIRST\|names no GPU" "$R/$name.err"
  } >> "$R/summary.txt" 2>&1
}

one uuid_prefix "CUDA_VISIBLE_DEVICES=${LAST_UUID:0:12}"
one processes
if [ "$N" -ge 2 ]; then
  one index_pci CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_ORDER=PCI_BUS_ID
  one index_fastest CUDA_VISIBLE_DEVICES=1
fi
one missing CUDA_VISIBLE_DEVICES=GPU-ffffffff
build/gpuwatch report "$R/uuid_prefix" --scope node > "$R/report_node.txt" 2>&1
cat "$R/summary.txt"
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/job_gpus.tar.gz" job_gpus

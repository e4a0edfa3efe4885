#!/usr/bin/env bash
# Issue 13's proof: YOLOv9 and torchvision under `gpuwatch run -i 0.2`, the roles bench
# (build/bench_roles) beside bench_tick. Runs from a folder holding build/ (gpuwatch, bench_tick,
# bench_roles), .device/lib (bench/h200/collect-libs.sh), env.sh (bench/h200/env.sh, with
# build/bench_roles added to its ldd list), workloads/ (../shared/workloads) and
# train_torchvision.py (examples/); writes $OUT/bench.txt and $OUT/runs.tgz.
# examples/recordings/h200-causes holds what it recorded.
cd "$(dirname "$0")"
. ./env.sh
O=${OUT:-/tmp/out}; mkdir -p "$O/runs"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi -L; nproc
el bench
{ build/bench_roles 3000 24; build/bench_roles 3000 24; build/bench_tick 3000; } > "$O/bench.txt" 2>&1
cat "$O/bench.txt" | tail -30
rec() { # name timeout cmd...
  local n=$1 t=$2; shift 2
  el "start $n"
  timeout -s INT "$t" build/gpuwatch run -i 0.2 -o "$O/runs/$n" -- "$@" > "$O/runs/$n.console" 2>&1
  el "end $n rc=$?"
  grep -E "^(critical|warning|info) " "$O/runs/$n.console" | cut -c1-400
  grep -aoE "[0-9]+(\.[0-9]+)?(it/s|s/it)" "$O/runs/$n/output.log" | tail -3 | tr '\n' ' '; echo
  grep -aE "img/s|images/s|throughput" "$O/runs/$n/output.log" | tail -3
}
rec yolo_w1b64 170 workloads/run-yolov9.sh 1 64 2
rec yolo_w8b64 130 workloads/run-yolov9.sh 8 64 2
rec tv_input_w1 80 python3 train_torchvision.py --model resnet18 --epochs 2 --steps 60 --batch 256 --workers 1 --target-gpu-busy 0.3
rec tv_gpu 70 python3 train_torchvision.py --model resnet50 --epochs 2 --steps 120 --batch 256 --data-on-gpu --channels-last
if [ $(( $(date +%s) - T0 )) -lt 380 ]; then
  rec yolo_w8b192 130 workloads/run-yolov9.sh 8 192 2
fi
el done
rm -f "$O"/runs/*/report.html
cd "$O" && tar czf runs.tgz runs && rm -rf runs && ls -la

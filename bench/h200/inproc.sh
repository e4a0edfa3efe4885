#!/usr/bin/env bash
# Issue 22's device runs: gpuwatch's in-job data on YOLOv9 train_dual.py and the torchvision
# example, input-bound and main-bound, each with one intervention (same job, one setting
# changed), and the overhead benchmark (bench/inproc_overhead.py). Runs from a folder holding
# build/gpuwatch with build/python/ (python/inject), .device/lib (bench/h200/collect-libs.sh),
# env.sh (bench/h200/env.sh), workloads/ (../shared/workloads), train_torchvision.py
# (examples/), inproc_summary.py and inproc_overhead.py (bench/).
#   inproc.sh cases      the diagnosis runs, summarised by inproc_summary.py; $OUT/cases.tgz
#   inproc.sh overhead   steps/s with and without the instrumentation; $OUT/overhead.txt
#   inproc.sh reps       the YOLOv9 overhead, 2 runs each way timed by output.idx
#   inproc.sh split N    the YOLOv9 overhead split: instrumented, --no-python and without stack
#                        sampling (GPUWATCH_PYTHON_HZ=0), one run each, round N;
#                        $OUT/overhead-split-N.txt
#   inproc.sh tv         the torchvision example's overhead, the same three modes, 2 runs each;
#                        $OUT/overhead-tv.txt
#   inproc.sh cases2     the torchvision example input-bound (1 worker) and main-bound (small
#                        images and batch), each with its intervention, and YOLOv9's main-bound
#                        run with twice the workers (the bound says <= 1.1x); $OUT/cases2.tgz
#                        (ONLY_TVMAIN=1 TVMAIN_STEPS=1500 TVMAIN_EPOCHS=2: the main-bound three
#                        alone, with epochs long enough for a steady state)
#   inproc.sh final      YOLOv9 1 and 8 workers with its launcher's sitecustomize order fixed,
#                        then the overhead benchmark: $OUT/final.tgz, $OUT/overhead.txt
# examples/recordings/h200-inproc holds what it recorded (README there: commands, date).
cd "$(dirname "$0")"
. ./env.sh
O=${OUT:-/tmp/out}
export PYTHONUNBUFFERED=1
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
# YOLOv9's launcher puts its own py-shims/sitecustomize.py FIRST on PYTHONPATH, which hides
# gpuwatch's in a venv without a user site (docs/inproc.md, Limits): append it instead, so that
# gpuwatch's sitecustomize runs and chain-loads the shim (numpy.trapz) as the job's own.
shims_last() {
  sed -i 's|^export PYTHONPATH="$D/py-shims${PYTHONPATH:+:$PYTHONPATH}"|export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$D/py-shims"|' workloads/run-yolov9.sh
}
rec() { # name timeout cmd...
  local n=$1 t=$2; shift 2
  el "start $n"
  timeout -s INT "$t" build/gpuwatch run -i 0.2 -o "runs/$n" -- "$@" > "runs/$n.console" 2>&1
  el "end $n rc=$?"
  grep -E "^(critical|warning|info) " "runs/$n.console" | cut -c1-300
  python3 inproc_summary.py "runs/$n"
}
case "${1:-cases}" in
cases)
  mkdir -p runs
  python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.cuda.device_count())'
  rec yolo_w1b64 130 workloads/run-yolov9.sh 1 64 2
  rec yolo_w3b64 100 workloads/run-yolov9.sh 3 64 2
  rec yolo_w8b64 90 workloads/run-yolov9.sh 8 64 2
  rec yolo_w8b128 90 workloads/run-yolov9.sh 8 128 2
  rec tv_w1 60 python3 train_torchvision.py --model resnet18 --epochs 2 --steps 60 --batch 256 \
    --workers 1 --target-gpu-busy 0.3
  rec tv_w4 60 python3 train_torchvision.py --model resnet18 --epochs 2 --steps 60 --batch 256 \
    --workers 4 --target-gpu-busy 0.3
  el done
  rm -f runs/*/report.html runs/*/output.idx
  tar czf "$O/cases.tgz" runs && ls -la "$O"
  ;;
final)
  shims_last
  grep -n '^export PYTHONPATH' workloads/run-yolov9.sh
  mkdir -p runs
  rec yolo_w1b64 140 workloads/run-yolov9.sh 1 64 2
  rec yolo_w8b64 80 workloads/run-yolov9.sh 8 64 2
  {
    el "overhead: YOLOv9 8 workers batch 64, 3 epochs"
    timeout 200 python3 inproc_overhead.py --gpuwatch build/gpuwatch --out /tmp/ovh-yolo \
      --interval 0.5 -- workloads/run-yolov9.sh 8 64 3
    el "overhead: torchvision resnet50, 4 workers, 3 epochs"
    timeout 90 python3 inproc_overhead.py --gpuwatch build/gpuwatch --out /tmp/ovh-tv \
      --interval 0.5 -- python3 train_torchvision.py --model resnet50 --epochs 3 --steps 40 \
      --batch 128 --workers 4
    el done
  } 2>&1 | tee "$O/overhead.txt"
  python3 inproc_summary.py /tmp/ovh-yolo/on-0 | head -4
  rm -f runs/*/report.html runs/*/output.idx
  tar czf "$O/final.tgz" runs && ls -la "$O"
  ;;
reps)
  # The YOLOv9 overhead again, twice each way, timed by output.idx (bench/inproc_overhead.py
  # idx_rates): the bars' own 1 s clock could not tell 1 % apart. Launcher order fixed as in final.
  shims_last
  {
    el "overhead: YOLOv9 8 workers batch 64, 3 epochs, 2 reps"
    timeout 450 python3 inproc_overhead.py --gpuwatch build/gpuwatch --out /tmp/ovh-reps \
      --interval 0.5 --reps 2 -- workloads/run-yolov9.sh 8 64 3
    el done
  } 2>&1 | tee "$O/overhead-reps.txt"
  ;;
cases2)
  shims_last
  mkdir -p runs
  TVIN="python3 train_torchvision.py --model resnet18 --epochs 3 --steps 30 --batch 256 --cpu-work 2"
  TVMAIN="python3 train_torchvision.py --model resnet18 --epochs ${TVMAIN_EPOCHS:-3} --steps ${TVMAIN_STEPS:-150} --image-size 64"
  if [ -z "${ONLY_TVMAIN:-}" ]; then
    rec tv_in_w1 80 $TVIN --workers 1
    rec tv_in_w4 60 $TVIN --workers 4
  fi
  rec tv_main_w4b16 90 $TVMAIN --batch 16 --workers 4
  rec tv_main_w8b16 90 $TVMAIN --batch 16 --workers 8
  rec tv_main_w4b64 90 $TVMAIN --batch 64 --workers 4
  [ -n "${ONLY_TVMAIN:-}" ] || rec yolo_w16b64 90 workloads/run-yolov9.sh 16 64 2
  el done
  rm -f runs/*/report.html runs/*/output.idx
  tar czf "$O/cases2.tgz" runs && ls -la "$O"
  ;;
split)
  shims_last
  {
    el "overhead split, round ${2:-0}: YOLOv9 8 workers batch 64, 3 epochs"
    timeout 540 python3 inproc_overhead.py --gpuwatch build/gpuwatch --out "/tmp/ovh-split-${2:-0}" \
      --interval 0.5 --modes on,off,nostacks -- workloads/run-yolov9.sh 8 64 3
    el done
  } 2>&1 | tee "$O/overhead-split-${2:-0}.txt"
  ;;
tv)
  {
    el "overhead: torchvision resnet50, 4 workers, 3 epochs, 2 runs each way"
    timeout 540 python3 inproc_overhead.py --gpuwatch build/gpuwatch --out /tmp/ovh-tv \
      --interval 0.5 --reps 2 --modes on,off,nostacks -- python3 train_torchvision.py \
      --model resnet50 --epochs 3 --steps 60 --batch 128 --workers 4
    el done
  } 2>&1 | tee "$O/overhead-tv.txt"
  ;;
overhead)
  {
    el "YOLOv9 8 workers batch 64, 3 epochs"
    python3 inproc_overhead.py --gpuwatch build/gpuwatch --out /tmp/ovh-yolo --interval 0.5 \
      -- workloads/run-yolov9.sh 8 64 3
    el "torchvision resnet50, 4 workers, 3 epochs"
    python3 inproc_overhead.py --gpuwatch build/gpuwatch --out /tmp/ovh-tv --interval 0.5 \
      -- python3 train_torchvision.py --model resnet50 --epochs 3 --steps 60 --batch 128 --workers 4
    el done
  } 2>&1 | tee "$O/overhead.txt"
  ;;
esac

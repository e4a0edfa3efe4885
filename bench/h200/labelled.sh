#!/usr/bin/env bash
# Labelled real-GPU runs for the report (issue 4) and the job-level verdicts (issue 8), each
# recorded with `gpuwatch run` on one GPU, then `gpuwatch report` on each: the verdict table of the
# issue note comes from OUTDIR/labelled/verdicts.txt. About 5 minutes on an H200.
#
#   bench/h200/labelled.sh OUTDIR
set -u
R=${1:?usage: labelled.sh OUTDIR}/labelled
mkdir -p "$R"
. bench/h200/env.sh
GW=build/gpuwatch
# LABELLED_ONLY / LABELLED_SKIP: space-separated labels to run only / to leave out.
want() {
  case " ${LABELLED_SKIP:-} " in *" $1 "*) return 1 ;; esac
  [ -z "${LABELLED_ONLY:-}" ] && return 0
  case " $LABELLED_ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}
rec() { # label, then gpuwatch run options, --, command
  local label=$1; shift
  want "$label" || return 0
  echo "== $label: $*" >> "$R/log.txt"
  $GW run -o "$R/$label" -i 0.2 "$@" > "$R/$label.out.txt" 2> "$R/$label.err.txt"
  echo "exit $?" >> "$R/$label.err.txt"
}
T=examples/train_torchvision.py
# nvidia-smi records the same fields during the first run (bench/h200/compare_nvsmi.py).
FIELDS=timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate
if want compute_bound; then
  nvidia-smi --query-gpu=$FIELDS --format=csv -lms 200 -f "$R/compute_bound.nvsmi.csv" &
  NP=$!
fi
rec compute_bound -- python3 $T --model resnet50 --epochs 2 --steps 150 --batch 256 \
  --data-on-gpu --channels-last
want compute_bound && kill $NP
rec epochs_with_validation -- python3 $T --model resnet50 --epochs 3 --steps 80 --batch 256 \
  --data-on-gpu --channels-last --workers 4 --val-steps 10
rec input_bound_half -- python3 $T --model resnet18 --epochs 2 --steps 120 --batch 256 \
  --workers 4 --target-gpu-busy 0.5
rec tiny_kernels -- python3 examples/underfilled_kernels.py --seconds 15
rec memory_leak -- python3 $T --model resnet18 --epochs 1 --steps 800 --batch 128 \
  --data-on-gpu --leak-mib 64
rec idle_holding_memory -- python3 examples/idle_holding_memory.py --gib 20 --work 5 --idle 65
rec oom_crash -- python3 examples/oom_crash.py --step-gib 12 --step-seconds 0.4
# The stuck job is ended by SIGTERM to gpuwatch (forwarded) once the stall has been reported.
if want stuck_dataloader; then
( $GW run -o "$R/stuck_dataloader" -i 0.2 --stall-timeout 15 -- \
    python3 examples/stuck_dataloader.py > "$R/stuck_dataloader.out.txt" \
    2> "$R/stuck_dataloader.err.txt"; echo "exit $?" >> "$R/stuck_dataloader.err.txt" ) &
SP=$!
sleep 45
pkill -TERM -f "gpuwatch run -o $R/stuck_dataloader" || true
wait $SP
fi
[ -n "${LABELLED_NO_REPORT:-}" ] && exit 0
rm -f "$R/verdicts.txt"
for d in "$R"/*/; do
  n=$(basename "$d")
  echo "== $n" >> "$R/verdicts.txt"
  $GW report "$d" >> "$R/verdicts.txt" 2>&1
done
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/labelled.tar.gz" labelled

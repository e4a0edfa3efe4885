#!/usr/bin/env bash
# torchrun with 2 ranks on one GPU, each rank under its own `gpuwatch run` (bench/h200/rank_run.sh
# gives each its run directory), then `gpuwatch report` over both directories gathers them by job
# id (TORCHELASTIC_RUN_ID) into one report. Run from the repository root with build/ (and .device/
# from collect-libs.sh) carried:
#   bench/h200/torchrun_ranks.sh [OUTDIR]     (default $OUT)
# -> OUTDIR/torchrun/{runs/rank_0,runs/rank_1, report.txt, report.json, torchrun.txt, meta_*.json}
# TORCHRUN and TRAIN replace torchrun and the training command (tests/cli/test_torchrun_ranks.py
# runs this with a stand-in torchrun on the fake NVML).
set -u
R=${1:-${OUT:?usage: torchrun_ranks.sh OUTDIR (or set OUT)}}/torchrun
mkdir -p "$R/runs"
[ -f bench/h200/env.sh ] && [ -d .device ] && . bench/h200/env.sh
export GW=${GW:-build/gpuwatch} RANKS_DIR="$R/runs"
if [ -z "${TORCHRUN:-}" ]; then # torchrun, or the module it runs when not on PATH
  TORCHRUN=torchrun
  command -v torchrun > /dev/null || TORCHRUN="python3 -m torch.distributed.run"
fi
NPROC=${NPROC:-2}
TRAIN=${TRAIN:-python3 bench/h200/ranks_train.py --steps ${STEPS:-3000}}
{ date -u; nvidia-smi -L 2>/dev/null; "$GW" --version; } > "$R/env.txt" 2>&1
# shellcheck disable=SC2086 # TRAIN is a command line
$TORCHRUN --standalone --nproc_per_node "$NPROC" --no-python bench/h200/rank_run.sh $TRAIN \
  > "$R/torchrun.txt" 2>&1
echo "torchrun exit $?" >> "$R/torchrun.txt"
for d in "$R"/runs/rank_*; do
  [ -f "$d/meta.json" ] && cp "$d/meta.json" "$R/meta_$(basename "$d").json"
done
"$GW" report "$R"/runs/rank_* > "$R/report.txt" 2>&1
echo "report exit $?" >> "$R/report.txt"
"$GW" report "$R"/runs/rank_* --json "$R/report.json" > /dev/null 2>> "$R/report.txt"
cat "$R/report.txt"

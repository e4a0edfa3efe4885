#!/usr/bin/env bash
# Issue 23 on real jobs: two trainers no test of ours was written from, run under gpuwatch run on
# the GPU machine, their phases as gpuwatch read them kept with their raw output.
#   bench/h200/trainers.sh OUTDIR      (from the repository root; build/gpuwatch built here and
#                                       .device/lib collected: bench/h200/collect-libs.sh)
set -u
OUT=${1:?usage: trainers.sh OUTDIR}
mkdir -p "$OUT"
. bench/h200/env.sh
GW=${GW:-build/gpuwatch}
phases() { python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
print("epochs:", [(e["epoch"], e["total"], e.get("steps"), e.get("steps_per_s")) for e in s["epochs"]])
print("phases:", [(p["kind"], p.get("steps"), round(p["duration_s"], 1)) for p in s["job_phases"]])
print("found:", s["job_phases_found"])
PY
}
"$GW" run -o "$OUT/hf" -i 0.2 -- python3 bench/h200/trainers/hf_bert.py > "$OUT/hf.console.txt" 2>&1
echo "hf exit $?" >> "$OUT/hf.console.txt"
phases "$OUT/hf" > "$OUT/hf.phases.txt" 2>&1
"$GW" run -o "$OUT/jsonl" -i 0.2 -- torchrun --standalone --nproc_per_node 1 --tee 3 \
  bench/h200/trainers/jsonl_loop.py > "$OUT/jsonl.console.txt" 2>&1
echo "jsonl exit $?" >> "$OUT/jsonl.console.txt"
phases "$OUT/jsonl" > "$OUT/jsonl.phases.txt" 2>&1
for r in hf jsonl; do
  cp "$OUT/$r/output.log" "$OUT/$r.output.log" 2>/dev/null
  "$GW" report "$OUT/$r" > "$OUT/$r.report.txt" 2>&1
done
tar czf "$OUT/trainers.tar.gz" -C "$OUT" hf.console.txt hf.phases.txt jsonl.console.txt \
  jsonl.phases.txt hf.output.log jsonl.output.log hf.report.txt jsonl.report.txt

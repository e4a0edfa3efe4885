#!/usr/bin/env bash
# The real-GPU proof for `gpuwatch check` and alert rules (issue 6), run on an NVIDIA machine from
# the repository root with build/ built and bench/h200/collect-libs.sh run (gpuwatch now also needs
# libinih.so.1, copied by it with the others). About a minute and a half:
#   1. `gpuwatch check` (table and --json, with exit statuses) on the idle GPU, and its wall time
#      against `nvidia-smi --query-gpu` and `nvidia-smi -q` (5 runs each);
#   2. a real PyTorch job under `gpuwatch run` with the memory warning lowered to 1 % and a rule of
#      our own (GPU-Util above 50 % for 5 s), a hook that logs its environment, and a
#      `gpuwatch check --json` taken while the job trains (the trainer holds memory);
#   3. everything into OUTDIR/check.tar.gz.
#
#   bench/h200/check.sh OUTDIR
set -u
OUTDIR=${1:?usage: check.sh OUTDIR}
R=$OUTDIR/check
mkdir -p "$R"
. bench/h200/env.sh
export GPUWATCH_SYSTEM_CONFIG=/nonexistent XDG_CONFIG_HOME=/nonexistent  # only our files
GW=build/gpuwatch
{
  date -u; uname -r; nvidia-smi; ldd "$GW"
  nvidia-smi -q -d PCIE,ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE 2>&1 | head -120
} > "$R/env.txt" 2>&1

# 1. check on the idle GPU
"$GW" check > "$R/check_idle.txt" 2> "$R/check_idle.stderr.txt"
echo "exit $?" >> "$R/check_idle.txt"
"$GW" check --json > "$R/check_idle.json" 2>> "$R/check_idle.stderr.txt"
echo "exit $?" > "$R/check_idle.json.exit"
{
  for tool in "$GW check" "nvidia-smi --query-gpu=temperature.gpu,memory.used,clocks_event_reasons.active,pcie.link.gen.current,pcie.link.width.current,ecc.errors.uncorrected.volatile.total --format=csv" "nvidia-smi -q"; do
    start=$(date +%s%N)
    for _ in 1 2 3 4 5; do $tool > /dev/null 2>&1; done
    end=$(date +%s%N)
    echo "$(( (end - start) / 5000000 )) ms per run: $tool"
  done
} > "$R/check_timing.txt"

# 2. an in-run alert from a real training job
cat > "$R/alerts.ini" <<'EOF'
; lowered so that a small real job crosses it
[memory_warning]
threshold = 1
clear = 0.5

; a rule of our own, with a duration
[gpu_busy]
metric = util_gpu
threshold = 50
clear = 20
duration = 5s
severity = warning

[hook]
timeout = 5s
EOF
cat > "$R/hook.py" <<'EOF'
import json, os, sys
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({k: v for k, v in sorted(os.environ.items()) if k.startswith("GPUWATCH_")}) + "\n")
EOF
"$GW" run -o "$R/train" -i 0.2 --config "$R/alerts.ini" \
  --on-alert python3 "$R/hook.py" "$R/hook_calls.jsonl" ';' -- \
  python3 examples/train_torchvision.py --model resnet18 --epochs 1 --steps 300 --batch 128 \
  > "$R/train.stdout.txt" 2> "$R/train.stderr.txt" &
RUN=$!
sleep 12  # the job is training by now (it runs for about 30 s): check sees who holds the GPU
"$GW" check --json > "$R/check_during.json" 2> "$R/check_during.stderr.txt"
echo "exit $?" > "$R/check_during.json.exit"
wait $RUN
echo "gpuwatch run exit $?" >> "$R/train.stderr.txt"
grep -E '"type":"(alert|alert_resolved|xid|ecc_double_bit)"' "$R/train/events.jsonl" \
  > "$R/alert_events.jsonl"
grep -E '^gpuwatch: (ALERT|resolved|alert hook)' "$R/train.stderr.txt" > "$R/alert_lines.txt"

# 3. a summary on stdout, and the tarball
echo "== check (idle)"; cat "$R/check_idle.txt"
echo "== timing"; cat "$R/check_timing.txt"
echo "== alerts during the job"; cat "$R/alert_lines.txt"
echo "== hook calls: $(wc -l < "$R/hook_calls.jsonl" 2>/dev/null || echo 0)"
tar -C "$OUTDIR" -czf "$OUTDIR/check.tar.gz" check

#!/usr/bin/env bash
# The GPM alignment proof on a real GPU (issue 11): a step (idle 3 s, a bf16 matmul burst ~5 s,
# idle 3 s) recorded with `gpuwatch run -i 0.2` by the build under test (build/) and by the one
# before (BEFORE, default before/), the rows around both edges, and the CPU of `gpuwatch record`
# at -i 0.2 and -i 0.1 for 30 s with both builds, same fields, one after the other. ~4 minutes.
#   bench/h200/gpm_align.sh OUTDIR [BEFORE_DIR]
set -u
R=${1:?usage: gpm_align.sh OUTDIR [BEFORE_DIR]}/gpm_align
OLD=${2:-before}
mkdir -p "$R"
. bench/h200/env.sh
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > "$R/env.txt" 2>&1
A=bench/h200/gpm_align.py
for b in after before; do
  bin=build/gpuwatch; [ $b = before ] && bin=$OLD/gpuwatch
  $bin run -o "$R/step-$b" -i 0.2 --no-report -- python3 bench/h200/step_job.py \
    > "$R/step-$b.txt" 2>&1
  python3 $A edges "$R/step-$b" > "$R/edges-$b.txt" 2>&1
done
for i in 0.2 0.1; do
  for b in before after; do
    bin=build/gpuwatch; [ $b = before ] && bin=$OLD/gpuwatch
    python3 $A cpu "$R/rec-$b-$i" 29 -- $bin record -o "$R/rec-$b-$i" -i $i --duration 30 \
      --no-report >> "$R/cpu.txt" 2>&1
  done
done
timeout 120 build/bench_tick 2000 10 > "$R/bench_tick.txt" 2>&1
rm -rf "$R"/rec-*
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/gpm_align.tar.gz" gpm_align

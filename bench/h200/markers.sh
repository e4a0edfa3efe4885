#!/usr/bin/env bash
# Markers on a real GPU (issue 8): examples/markers_plain.py (a PyTorch loop marking epochs,
# steps, validation and torch.cuda's allocator statistics) recorded by `gpuwatch run`, the report
# (epochs from marks, the Marks table), and the cost of a marker next to torch.cuda.nvtx.mark.
# About one minute on an H200.
#
#   bench/h200/markers.sh OUTDIR        (results in OUTDIR/markers.tar.gz)
set -u
R=${1:?usage: markers.sh OUTDIR}/markers
mkdir -p "$R"
. bench/h200/env.sh
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' \
  > "$R/env.txt" 2>&1
build/gpuwatch run -o "$R/plain" -i 0.2 -- python3 examples/markers_plain.py --epochs 3 \
  --steps 300 --val-steps 60 > "$R/plain.out.txt" 2> "$R/plain.err.txt"
echo "exit $?" >> "$R/plain.err.txt"
build/gpuwatch report "$R/plain" > "$R/plain.report.txt" 2>&1
grep -c '"type":"mark"' "$R/plain/events.jsonl" > "$R/plain.marks.txt"
grep -m3 '"text":"memory"' "$R/plain/events.jsonl" >> "$R/plain.marks.txt"
python3 examples/markers_lightning.py --epochs 1 > "$R/lightning.txt" 2>&1  # says so without it
python3 bench/mark_bench.py 20000 > "$R/mark_bench.txt" 2>&1
tar -C "$(dirname "$R")" -czf "$(dirname "$R")/markers.tar.gz" markers

#!/usr/bin/env bash
# Where a one-shot command's time goes on a real GPU (issue 16, item 4), from the repository root
# with build/ built and bench/h200/collect-libs.sh run (an older build's binary, if given, needs
# its libraries in .device/lib too):
#   1. bench/oneshot_bench.py: `gpuwatch query` (38 fields), `gpuwatch`, `gpuwatch mark` of this
#      build and of BEFORE beside nvidia-smi and `true`, 30 runs each;
#   2. build/nvml_init in 20 fresh processes with nvmlInitWithFlags(0) and (2: NO_ATTACH): the
#      library's load, its initialisation, handles and a first read, stage by stage;
#   3. bench/query_field_cost.py: what each group of fields adds to `query --query-gpu=index`;
#   4. the dynamic loader's statistics and the shared libraries of each build.
#
#   bench/h200/oneshot.sh OUTDIR [BEFORE_BINARY]      -> OUTDIR/oneshot/*.txt  (about 1 minute)
set -u
OUTDIR=${1:?usage: oneshot.sh OUTDIR [BEFORE_BINARY]}
BEFORE=${2:-}
R=$OUTDIR/oneshot
mkdir -p "$R"
. bench/h200/env.sh
{
  date -u; nvidia-smi -L; nvidia-smi --version
  nvidia-smi --query-gpu=persistence_mode --format=csv
  echo "== this build"; ldd build/gpuwatch
  [ -n "$BEFORE" ] && { echo "== before"; ldd "$BEFORE"; }
} > "$R/env.txt" 2>&1
for b in build/gpuwatch $BEFORE; do
  echo "== $b"
  LD_DEBUG=statistics "$b" query --query-gpu=index --format=csv 2>&1 | grep -E 'total startup|load'
done > "$R/loader.txt" 2>&1
for flags in 0 2 0 2; do
  for _ in $(seq 10); do build/nvml_init "$flags"; done
done > "$R/nvml_init.txt" 2>&1
python3 bench/oneshot_bench.py --runs 30 ${BEFORE:+--before "$BEFORE"} > "$R/oneshot.txt" 2>&1
python3 bench/query_field_cost.py > "$R/field_cost.txt" 2>&1
cat "$R/env.txt" "$R/loader.txt" "$R/oneshot.txt" "$R/field_cost.txt"
sort "$R/nvml_init.txt" | uniq -c | head -40

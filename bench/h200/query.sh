#!/usr/bin/env bash
# The real-GPU proof for the live view and `gpuwatch query` (issue 3), run on an NVIDIA machine
# from the repository root with build/ built (bench/h200/env.sh: libcjson from .device/lib; the
# live view and query need no other .so):
#
#   1. the same --query-gpu field list through nvidia-smi and gpuwatch at the same moment, three
#      times idle and three times under a small torch load (NAME.nvsmi.csv / NAME.gw.csv, and
#      compare.txt from bench/h200/compare_query.py), plus gpuwatch's GPM fields;
#   2. the live view and its JSON, idle and under load;
#   3. one-shot wall time against nvidia-smi (bench/query_oneshot.py, 20 runs each);
#   4. CPU of `-lms 100` against nvidia-smi's and of `gpuwatch -i 1` against a pynvml loop, all
#      at once for DURATION seconds (bench/query_cpu.py; default 60).
#
#   bench/h200/query.sh OUTDIR [DURATION]      -> OUTDIR/query.tar.gz   (about 2 minutes)
set -u
OUTDIR=${1:?usage: query.sh OUTDIR [DURATION]}
DURATION=${2:-60}
R=$OUTDIR/query
mkdir -p "$R"
. bench/h200/env.sh   # only the libraries the GPU machine lacks (not its libstdc++ for torch)
export NO_COLOR=1
GW=build/gpuwatch
FIELDS=$(python3 bench/query_fields.py nvsmi)
GPM=$(python3 bench/query_fields.py gpm)
{
  date -u; uname -a; nvidia-smi -L; nvidia-smi --version; ldd "$GW"
  nvidia-smi --query-gpu=persistence_mode,mig.mode.current --format=csv
} > "$R/env.txt" 2>&1
nvidia-smi --help-query-gpu > "$R/nvsmi_help_query_gpu.txt" 2>&1
"$GW" query --help-query-gpu > "$R/gw_help_query_gpu.txt" 2>&1

# Both tools started together; each writes its own file.
# (waits for these two only: a bare `wait` would also wait for the torch load below)
same_moment() {
  nvidia-smi --query-gpu="$FIELDS" --format=csv > "$R/$1.nvsmi.csv" 2> "$R/$1.nvsmi.err" &
  local a=$!
  "$GW" query --query-gpu="$FIELDS" --format=csv > "$R/$1.gw.csv" 2> "$R/$1.gw.err" &
  wait $a $!
  nvidia-smi --query-gpu="$FIELDS" --format=csv,nounits > "$R/$1-nounits.nvsmi.csv" 2>&1 &
  a=$!
  "$GW" query --query-gpu="$FIELDS" --format=csv,nounits > "$R/$1-nounits.gw.csv" 2>&1 &
  wait $a $!
}
for k in 1 2 3; do same_moment "idle$k"; sleep 1; done
"$GW" query --query-gpu="index,$GPM" --format=csv > "$R/idle.gpm.txt" 2>&1
"$GW" > "$R/live_idle.txt" 2>&1
"$GW" --json > "$R/live_idle.json" 2>&1
# Unknown field, unknown GPU: nvidia-smi's messages and exit statuses next to gpuwatch's.
{ nvidia-smi --query-gpu=index,clocks.smm --format=csv; echo "nvidia-smi exit $?"
  "$GW" query --query-gpu=index,clocks.smm --format=csv; echo "gpuwatch exit $?"
  nvidia-smi --query-gpu=index --format=csv -i 99; echo "nvidia-smi exit $?"
  "$GW" query --query-gpu=index --format=csv -i 99; echo "gpuwatch exit $?"; } \
  > "$R/unknown_field.txt" 2>&1

# A small torch load: bf16 matmuls on one GPU for 30 s.
python3 -c '
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 30
while time.time() < end:
    b = a @ a
    torch.cuda.synchronize()
' > "$R/load.txt" 2>&1 &
LOAD=$!
sleep 8
for k in 1 2 3; do same_moment "load$k"; sleep 1; done
"$GW" query --query-gpu="index,$GPM" --format=csv > "$R/load.gpm.txt" 2>&1
"$GW" > "$R/live_load.txt" 2>&1
"$GW" --json > "$R/live_load.json" 2>&1
"$GW" -i 0.5 --count 3 > "$R/live_refresh_pipe.txt" 2>&1
wait $LOAD

python3 bench/h200/compare_query.py "$R" > "$R/compare.txt" 2>&1
python3 bench/query_oneshot.py --runs 20 > "$R/oneshot.txt" 2>&1
python3 bench/query_oneshot.py --runs 20 --fields "$(python3 bench/query_fields.py log)" \
  > "$R/oneshot_log_fields.txt" 2>&1
# QUERY_CPU=0 leaves the CPU comparison to the caller (bench/h200/all.sh runs it concurrently).
if [ "${QUERY_CPU:-1}" != 0 ]; then
  python3 bench/query_cpu.py --duration "$DURATION" --out "$R/cpu_outputs" > "$R/cpu.txt" 2>&1
fi
tar -C "$OUTDIR" -czf "$OUTDIR/query.tar.gz" query
cat "$R/compare.txt" "$R/oneshot.txt" "$R/oneshot_log_fields.txt" "$R/cpu.txt"

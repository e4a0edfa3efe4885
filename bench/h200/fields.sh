#!/usr/bin/env bash
# Issue 24 item 3 on the H200: the new fields against nvidia-smi, the NVML layout test against the
# real nvml.h, and the cost of the new reads (docs/performance.md, "The fields of issue 24"). From
# the repository root with build/ built and bench/h200/collect-libs.sh run (about 30 s):
#
#   bench/h200/fields.sh OUTDIR      -> OUTDIR/fields.tar.gz
#
# (The figures of 2026-12-02 came from this script run from a copy in .device/h24f.)
set -u
O=${1:-/tmp/out}/fields; mkdir -p "$O"
GWLIB=/tmp/gwlib; mkdir -p $GWLIB
for i in 1 2 3 4; do
  miss=$(LD_LIBRARY_PATH=$GWLIB ldd build/gpuwatch build/bench_tick $GWLIB/libmicrohttpd.so.12 2>/dev/null | awk '/not found/{print $1}' | sort -u)
  ldconfig -p | grep -q libmicrohttpd.so.12 || cp .device/lib/libmicrohttpd.so.12 $GWLIB/
  [ -z "$miss" ] && break
  for l in $miss; do cp .device/lib/$l $GWLIB/ 2>/dev/null; done
done
ls $GWLIB > "$O/libs_copied.txt"
export LD_LIBRARY_PATH=$GWLIB NO_COLOR=1
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv; nvidia-smi nvlink -s 2>&1 | head -5; } > "$O/env.txt" 2>&1
NVML_H=$(ls /usr/local/cuda*/targets/x86_64-linux/include/nvml.h /usr/include/nvml.h 2>/dev/null | head -1)
echo "nvml.h: $NVML_H" > "$O/layout.txt"
cc -std=c11 -I src -I "$(dirname "$NVML_H")" tests/layout/nvml_layout.c -o /tmp/nvml_layout >> "$O/layout.txt" 2>&1 && /tmp/nvml_layout >> "$O/layout.txt" 2>&1
echo "layout exit $?" >> "$O/layout.txt"
F=index,utilization.gpu,utilization.encoder,utilization.decoder
for k in 1 2; do nvidia-smi --query-gpu=$F --format=csv & a=$!; build/gpuwatch query --query-gpu=$F --format=csv; wait $a; done > "$O/query_codec.txt" 2>&1
nvidia-smi dmon -s t -d 1 -c 10 > "$O/dmon_t.txt" 2>&1 &
nvidia-smi --query-gpu=timestamp,utilization.encoder,utilization.decoder --format=csv -lms 1000 > "$O/nvsmi_codec.csv" 2>&1 & q=$!
rm -rf /tmp/gwrun
build/gpuwatch run --no-report -i 0.5 --listen 127.0.0.1:9499 -o /tmp/gwrun -- env -u LD_LIBRARY_PATH python3 bench/h200/fields_load.py "$O" > "$O/run_stdout.txt" 2>&1
echo "run exit $?" >> "$O/run_stdout.txt"
kill $q; wait
cp /tmp/gwrun/gpu.csv /tmp/gwrun/processes.csv "$O/" 2>/dev/null
build/bench_tick 2000 2 > "$O/bench_tick.txt" 2>&1
cd "$O/.." && tar czf fields.tar.gz fields

#!/usr/bin/env bash
# `gpuwatch serve` on a real NVIDIA GPU against a Python exporter built from prometheus_client and
# pynvml (bench/python_exporter.py): scrape latency p50/p99, scrapes per second, CPU per scrape and
# RSS of each, with NVML's own RSS measured apart (bench/nvml_rss.c) so that gpuwatch's share is
# known; then the same figures for gpuwatch with 1, 8 and 64 fake GPUs on this machine. The load
# generator is bench/scrape_load.c (wrk is not installed on the GPU machine), the same on both
# sides. About a minute and a half. Run from the repository root with build/ built here (its
# fake-nvml/ included) and bench/h200/collect-libs.sh run:
#
#   bench/h200/serve.sh OUTDIR            -> OUTDIR/serve/ and OUTDIR/serve.tar.gz
#
# Shared libraries the exporter adds beyond the others' (collect-libs.sh copies them):
# libmicrohttpd.so.12 and what it pulls in, libgnutls.so.30, libp11-kit.so.0, libidn2.so.0,
# libunistring.so.2, libtasn1.so.6, libnettle.so.8, libhogweed.so.6, libgmp.so.10, libffi.so.8.
set -u
OUTDIR=${1:?usage: serve.sh OUTDIR}
R=$OUTDIR/serve
mkdir -p "$R"
. bench/h200/env.sh
SECONDS_EACH=5
GW_PORT=19400
PY_PORT=19401

for tool in scrape_load nvml_rss; do  # built here by cmake; rebuilt with the local cc if missing
  if [ ! -x "build/$tool" ]; then
    cc -O2 -pthread -o "build/$tool" "bench/$tool.c" -ldl || exit 1
  fi
done

{
  date -u; uname -a; nvidia-smi -L; nproc; ldd build/gpuwatch
  python3 -c 'import prometheus_client, pynvml; from importlib.metadata import version as v; print("prometheus_client", v("prometheus_client"), "pynvml/nvidia-ml-py", pynvml.__file__)'
} > "$R/env.txt" 2>&1

# Waits until URL answers 200 (or 30 s pass).
wait_http() {
  python3 - "$1" <<'EOF'
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1).read()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
EOF
}

save_page() {
  python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "$1" > "$2" 2>&1
}

# 1. NVML's own memory: dlopen + nvmlInit_v2 + handles, in a process that does nothing else.
build/nvml_rss > "$R/nvml_rss.json" 2>&1

# 2. gpuwatch serve on the real GPU(s).
build/gpuwatch serve --listen 127.0.0.1:$GW_PORT -i 1 2> "$R/gpuwatch.stderr.txt" &
GW=$!
wait_http "http://127.0.0.1:$GW_PORT/healthz"
sleep 2  # the GPM ratios need two samples
save_page "http://127.0.0.1:$GW_PORT/metrics" "$R/gpuwatch_metrics.txt"
python3 bench/serve_bench.py --url "http://127.0.0.1:$GW_PORT/metrics" --pid $GW \
  --name "gpuwatch (real NVML)" --loadgen scrape_load --seconds $SECONDS_EACH \
  --json "$R/gpuwatch.json" > "$R/gpuwatch.md" 2>&1
save_page "http://127.0.0.1:$GW_PORT/metrics" "$R/gpuwatch_metrics_after.txt"
kill -TERM $GW
wait $GW
echo "gpuwatch serve exit $?" >> "$R/gpuwatch.stderr.txt"

# 3. The Python exporter on the same GPU(s).
python3 bench/python_exporter.py --port $PY_PORT --interval 1 2> "$R/python.stderr.txt" &
PY=$!
wait_http "http://127.0.0.1:$PY_PORT/metrics"
sleep 2
save_page "http://127.0.0.1:$PY_PORT/metrics" "$R/python_metrics.txt"
python3 bench/serve_bench.py --url "http://127.0.0.1:$PY_PORT/metrics" --pid $PY \
  --name "python (prometheus_client + pynvml)" --loadgen scrape_load --seconds $SECONDS_EACH \
  --json "$R/python.json" > "$R/python.md" 2>&1
kill -TERM $PY
wait $PY

# 4. gpuwatch against 1, 8 and 64 fake GPUs on this machine (its own share of RSS, no NVML).
python3 bench/serve_bench.py --gpus 1,8,64 --loadgen scrape_load --seconds 3 \
  --json "$R/fake.json" > "$R/fake.md" 2>&1

# 5. Ratios.
python3 - "$R" > "$R/summary.txt" 2>&1 <<'EOF'
import json, sys
from pathlib import Path
r = Path(sys.argv[1])
gw = next(iter(json.loads((r / "gpuwatch.json").read_text()).values()))
py = next(iter(json.loads((r / "python.json").read_text()).values()))
nvml = json.loads((r / "nvml_rss.json").read_text())
g, p = gw["scrape_load"], py["scrape_load"]
print(f"GPUs: {nvml['gpus']}; NVML's own cost (dlopen + init + handles): "
      f"{nvml['nvml_cost_kib'] / 1024:.1f} MiB")
print(f"{'':28} {'gpuwatch':>12} {'python':>12} {'python/gpuwatch':>16}")
for key, label, unit in (("p50_us", "latency p50", "us"), ("p99_us", "latency p99", "us"),
                         ("cpu_us_per_scrape", "CPU per scrape", "us")):
    print(f"{label:28} {g[key]:>9.0f} {unit} {p[key]:>9.0f} {unit} {p[key] / g[key]:>15.1f}x")
for key, label in (("rps_1conn", "scrapes/s, 1 connection"), ("rps_8conn", "scrapes/s, 8 connections")):
    print(f"{label:28} {g[key]:>12.0f} {p[key]:>12.0f} {g[key] / p[key]:>14.1f}x more")
for key, label in (("VmRSS_kib", "RSS"), ("RssAnon_kib", "RSS anonymous (heap, stacks)"),
                   ("RssFile_kib", "RSS file-backed (code)")):
    print(f"{label:28} {gw[key] / 1024:>8.1f} MiB {py[key] / 1024:>8.1f} MiB "
          f"{py[key] / gw[key]:>15.1f}x")
print(f"gpuwatch RSS minus NVML's own cost: {(gw['VmRSS_kib'] - nvml['nvml_cost_kib']) / 1024:.1f} MiB"
      f" (python: {(py['VmRSS_kib'] - nvml['nvml_cost_kib']) / 1024:.1f} MiB)")
fake = json.loads((r / "fake.json").read_text())
for n, f in fake.items():
    s = f["scrape_load"]
    print(f"fake {n:>2} GPUs: p50 {s['p50_us']:.0f} us, p99 {s['p99_us']:.0f} us, "
          f"{s['rps_8conn']:.0f} scrapes/s (8 conns), RSS {f['VmRSS_kib'] / 1024:.1f} MiB "
          f"(anonymous {f['RssAnon_kib'] / 1024:.1f} MiB), page {f['body_bytes'] / 1024:.1f} KiB")
EOF
cat "$R/summary.txt"
tar -C "$OUTDIR" -czf "$OUTDIR/serve.tar.gz" serve

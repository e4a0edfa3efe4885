#!/usr/bin/env bash
# The installed package on a real NVIDIA GPU (issue 18): the .deb that CPack made from this build
# (build/gpuwatch_*.deb: `cmake --build build --target package` before carrying build/) unpacked
# with dpkg-deb -x (the GPU machine need not be Debian 12, so nothing is installed into it), and
# its /usr/bin/gpuwatch run against the real driver: --version, the same --query-gpu list as
# nvidia-smi at the same moment, `check --json`, and `serve` scraped once; then the marker module
# through `pip install ./python` into a venv (offline: --no-build-isolation). Under a minute.
# Run from the repository root with build/ and .device/ carried (bench/h200/collect-libs.sh run):
#
#   bench/h200/package.sh "$OUT"        -> $OUT/package/ and $OUT/package.tar.gz
set -u
OUTDIR=${1:?usage: package.sh OUTDIR}
R=$OUTDIR/package
mkdir -p "$R"
. bench/h200/env.sh
export GPUWATCH_SYSTEM_CONFIG=/nonexistent XDG_CONFIG_HOME=/nonexistent
DEB=$(ls build/gpuwatch_*.deb 2>/dev/null | head -1)
if [ -z "$DEB" ]; then
  echo "no build/gpuwatch_*.deb: run cmake --build build --target package first" | tee "$R/error.txt"
  exit 1
fi
ROOT=$(mktemp -d)
dpkg-deb -x "$DEB" "$ROOT" 2>/dev/null || (cd "$ROOT" && ar p "$OLDPWD/$DEB" data.tar.gz | tar xz) \
  || (cd "$ROOT" && ar p "$OLDPWD/$DEB" data.tar.xz | tar xJ)
GW=$ROOT/usr/bin/gpuwatch
FIELDS=index,name,uuid,pci.bus_id,memory.total,power.limit,driver_version
{
  date -u; uname -r; nvidia-smi -L; echo "deb: $DEB"; ls -l "$DEB"
  (dpkg-deb -I "$DEB" 2>/dev/null || echo "dpkg-deb not on this machine")
  find "$ROOT" -type f | sed "s|$ROOT||" | sort
  ldd "$GW"
} > "$R/env.txt" 2>&1

"$GW" --version > "$R/version.txt" 2>&1; echo "exit $?" >> "$R/version.txt"
nvidia-smi --query-gpu=$FIELDS --format=csv,noheader > "$R/query_nvsmi.csv" 2>&1
"$GW" query --query-gpu=$FIELDS --format=csv,noheader > "$R/query_gpuwatch.csv" 2> "$R/query.stderr.txt"
echo "exit $?" >> "$R/query.stderr.txt"
if cmp -s "$R/query_nvsmi.csv" "$R/query_gpuwatch.csv"; then
  echo "same" > "$R/query_compare.txt"
else
  diff "$R/query_nvsmi.csv" "$R/query_gpuwatch.csv" > "$R/query_compare.txt"
fi
"$GW" check --json > "$R/check.json" 2> "$R/check.stderr.txt"; echo "exit $?" >> "$R/check.stderr.txt"

# serve, as the packaged unit runs it (loopback), scraped once after two samples
"$GW" serve --listen 127.0.0.1:19410 --interval 1 > "$R/serve.stdout.txt" 2> "$R/serve.stderr.txt" &
pid=$!
sleep 3
python3 - > "$R/metrics.txt" 2>&1 <<'PY'
import urllib.request
print(urllib.request.urlopen("http://127.0.0.1:19410/metrics", timeout=5).read().decode())
PY
kill -TERM "$pid"; wait "$pid"; echo "serve exit $?" >> "$R/serve.stderr.txt"
grep -c '^DCGM_FI_' "$R/metrics.txt" > "$R/metrics_count.txt"

# the marker module, installed by pip into a venv
VT=$(mktemp -d)
V=$VT/venv
{
  python3 --version
  python3 -m venv --system-site-packages "$V" && cp -r python "$V/../src" &&
    "$V/bin/pip" install --no-index --no-build-isolation "$V/../src" 2>&1 | tail -3 &&
    (cd / && "$V/bin/python" -c 'import gpuwatch; print(gpuwatch.__file__, gpuwatch.__version__)')
  echo "exit $?"
} > "$R/pip.txt" 2>&1

rm -rf "$ROOT" "$VT"
tar -czf "$OUTDIR/package.tar.gz" -C "$OUTDIR" package
cat "$R/version.txt" "$R/query_compare.txt" "$R/metrics_count.txt" "$R/pip.txt"

#!/usr/bin/env bash
# `gpuwatch serve --kubernetes` on a real GPU (issue 18, item 4): what the PodResources module
# costs and that the labels follow the real GPUs' UUIDs. Run from the repository root with
# build/ built here and, first, here:  bench/h200/kubernetes.sh --collect  (copies the module's
# gRPC and protobuf-c libraries, which the GPU machine lacks, into .device/lib-podres; carry
# build/ and .device/). Then on the GPU machine:
#
#   bench/h200/kubernetes.sh OUTDIR          -> OUTDIR/kubernetes/*.txt   (about 30 s)
#
#   1. serve without and with --kubernetes (no kubelet there: the socket is absent): time to the
#      "serving" line, RSS after 20 scrapes, the one warning, scrape p50 of 200 scrapes;
#   2. one-shot commands map no gRPC library (/proc/PID/maps of `gpuwatch query -l`);
#   3. when python3 there imports grpc and google.protobuf: the tests' fake kubelet (serving
#      the real GPUs' UUIDs) and the labels on the real GPUs' series.
set -u
if [ "${1:-}" = "--collect" ]; then
  mkdir -p .device/lib-podres
  ldd build/gpuwatch-podres.so | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
      *) cp -L "$lib" .device/lib-podres/ ;;
    esac
  done
  ls .device/lib-podres | wc -l
  exit 0
fi
OUTDIR=${1:?usage: kubernetes.sh OUTDIR   (after kubernetes.sh --collect here)}
R=$OUTDIR/kubernetes
mkdir -p "$R"
. bench/h200/env.sh
# The module's libraries this machine lacks, from .device/lib-podres (only those).
PODLIB=/tmp/gwlib-podres
mkdir -p "$PODLIB"
# ldd names a missing library's own needs only once it is found: repeat until nothing is missing
for _i in 1 2 3 4 5 6; do
  _missing=$(LD_LIBRARY_PATH="$PODLIB:$GWLIB" ldd build/gpuwatch-podres.so | awk '/not found/{print $1}')
  [ -z "$_missing" ] && break
  for _l in $_missing; do
    cp ".device/lib-podres/$_l" "$PODLIB/" 2>/dev/null
  done
done
export LD_LIBRARY_PATH="$PODLIB:$LD_LIBRARY_PATH"
{ date -u; nvidia-smi -L; ldd build/gpuwatch-podres.so | grep -c '=>'; } > "$R/env.txt" 2>&1

python3 - "$R" <<'PY'
import os, re, statistics, subprocess, sys, threading, time, urllib.request
R = sys.argv[1]
GW = "build/gpuwatch"
SOCK = "/tmp/gw-k8s-bench/kubelet.sock"

def start(args):
    t0 = time.monotonic()
    p = subprocess.Popen([GW, "serve", "--listen", "127.0.0.1:0", "-i", "1"] + args,
                         stderr=subprocess.PIPE, text=True)
    lines = []
    addr = None
    while addr is None:
        line = p.stderr.readline()
        if not line:
            raise SystemExit("serve did not start: " + "".join(lines))
        lines.append(line)
        m = re.search(r"on http://(\S+)/metrics", line)
        addr = m.group(1) if m else None
    started = time.monotonic() - t0
    threading.Thread(target=lambda: lines.extend(p.stderr), daemon=True).start()
    return p, addr, started, lines

def scrape(addr):
    t = time.monotonic()
    body = urllib.request.urlopen(f"http://{addr}/metrics", timeout=10).read().decode()
    return body, time.monotonic() - t

def rss_kib(pid):
    return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1))

out = open(os.path.join(R, "cost.txt"), "w")
for args in ([], ["--kubernetes", "--pod-resources-socket", "/nonexistent/kubelet.sock"]):
    p, addr, started, lines = start(args)
    time.sleep(2.5)
    lat = [scrape(addr)[1] for _ in range(200)]
    body = scrape(addr)[0]
    up = re.findall(r"^gpuwatch_pod_resources_up (\d)$", body, re.M)
    name = " ".join(args) or "(plain)"
    print(f"serve {name}: start {started*1e3:.0f} ms, RSS {rss_kib(p.pid)} KiB, scrape p50 "
          f"{statistics.median(lat)*1e3:.3f} ms p99 {sorted(lat)[197]*1e3:.3f} ms, "
          f"pod_resources_up {up}", file=out)
    maps = open(f"/proc/{p.pid}/maps").read()
    print(f"  maps libgrpc: {'libgrpc' in maps}", file=out)
    p.terminate(); p.wait(30)
    print("  stderr: " + "".join(lines).replace("\n", "\n          "), file=out)
# A one-shot command maps no gRPC (it would exit before we looked: use the live view's loop).
q = subprocess.Popen([GW, "query", "-l", "1", "--query-gpu=index", "--format=csv"],
                     stdout=subprocess.DEVNULL)
time.sleep(1.5)
print(f"query -l: maps libgrpc: {'libgrpc' in open(f'/proc/{q.pid}/maps').read()}", file=out)
q.terminate(); q.wait()
out.close()

try:
    import grpc, google.protobuf  # noqa: F401
except ImportError as e:
    open(os.path.join(R, "labels.txt"), "w").write(f"skipped: {e} (no python grpc here)\n")
    sys.exit(0)
sys.path.insert(0, "tests/cli")
os.environ.setdefault("GPUWATCH_SOURCE", os.getcwd())
import pathlib
from fake_kubelet import FakeKubelet
uuids = subprocess.run([GW, "query", "--query-gpu=uuid", "--format=csv,noheader"],
                       capture_output=True, text=True).stdout.split()
d = pathlib.Path(SOCK).parent; d.mkdir(exist_ok=True)
k = FakeKubelet(SOCK, d)
k.pods = [(f"train-{i}", "ml", "trainer", "nvidia.com/gpu", [u]) for i, u in enumerate(uuids)]
k.start()
p, addr, _, lines = start(["--kubernetes", "--pod-resources-socket", SOCK])
time.sleep(2.5)
scrape(addr); time.sleep(1.5)
body = scrape(addr)[0]
with open(os.path.join(R, "labels.txt"), "w") as f:
    f.write("\n".join(l for l in body.splitlines()
                      if l.startswith(("DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_DEV_GPU_UTIL",
                                       "gpuwatch_gpu_allocated", "gpuwatch_pod_resources_up"))))
    f.write(f"\nkubelet List calls: {k.calls}\n")
p.terminate(); p.wait(30); k.stop()
PY
cat "$R"/*.txt

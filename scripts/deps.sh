#!/usr/bin/env bash
# Installs the Debian 12 packages gpuwatch builds and tests with, when any is missing.
# Idempotent; needs root (or sudo). Each package and why it is here: README.md "Dependencies".
# With --test it also installs what only the tests need: Chromium (~300 MB with its libraries)
# for the HTML report's browser tests and clang's libFuzzer; scripts/test.sh passes it,
# scripts/setup.sh does not.
set -euo pipefail

PACKAGES=(
  gcc make cmake pkg-config          # the C11 toolchain and build
  libcjson-dev                       # JSON: scenarios, meta.json, events.jsonl, summary.json
  libinih-dev                        # gpuwatch.ini: alert rules, the alert hook, check thresholds
  libcmocka-dev                      # unit tests
  libmicrohttpd-dev                  # HTTP server of `gpuwatch serve` and `run --listen`
  prometheus                         # serve's tests: a real Prometheus scrapes it; promtool
  wrk                                # bench/serve_bench.py: scrape latency and throughput
  python3 python3-pytest             # command-line tests
  libcairo2-dev                      # `gpuwatch plot`: PNG and SVG charts
  libcurl4-openssl-dev               # `report --fleet` queries Prometheus (libcurl, loaded lazily)
  fonts-dejavu-core                  # the font of the plots' text
  libncurses-dev                     # `gpuwatch top`: ncursesw (pkg-config ncursesw; Debian 12 ships
                                     # libncursesw-dev as this package)
  libgrpc-dev libprotobuf-c-dev protobuf-c-compiler # `serve --kubernetes`: the kubelet's
                                     # PodResources client module (gRPC C core, protobuf-c)
)
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(chromium)               # headless browser for the HTML report's tests
  PACKAGES+=(clang libclang-rt-14-dev) # the log reader's libFuzzer harness (fuzz/run.sh)
  PACKAGES+=(tmux)                   # `gpuwatch top`'s tests drive it in tmux (tests/cli/test_top.py)
  # `serve --kubernetes` tests: a fake kubelet (python3-grpcio, messages generated with protoc),
  # deploy/kubernetes rendered with kubectl kustomize and read back with python3-yaml
  PACKAGES+=(python3-grpcio python3-protobuf protobuf-compiler python3-yaml)
  PACKAGES+=(slurmctld slurmd slurm-client munge shellcheck) # a real one-node Slurm runs
                                     # deploy/slurm's Prolog/Epilog (tests/cli/test_slurm.py starts
                                     # its own daemons); shellcheck lints those scripts
  PACKAGES+=(zsh man-db groff-base)  # the generated zsh completion loads in zsh -f; man -l, groff -ww
                                     # and lexgrog check the man pages (tests/cli/test_manpages.py)
  # Installing (tests/cli/test_package.py): CPack's dpkg-shlibdeps, lintian, man and bash
  # completion of the installed package, pip install ./python offline in a venv; the image
  # (tests/cli/test_container.py): a Debian root by debootstrap, built by buildah.
  PACKAGES+=(dpkg-dev file lintian man-db bash-completion)
  PACKAGES+=(python3-venv python3-setuptools python3-wheel)
  PACKAGES+=(python3-torch)          # `run`'s in-job data on a real (CPU) PyTorch: DataLoader
                                     # workers, fork and spawn (tests/cli/test_inproc.py)
  PACKAGES+=(debootstrap buildah)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm installs uPlot (package-lock.json) once at build time, and playwright-core for the tests.
# Node.js may come from elsewhere (NodeSource bundles npm), so look for the commands.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
# kubectl (for `kubectl kustomize` in the tests) may come from Kubernetes' own packages; Debian's
# is kubernetes-client.
if [ "${1:-}" = "--test" ] && ! command -v kubectl >/dev/null 2>&1; then
  missing+=(kubernetes-client)
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

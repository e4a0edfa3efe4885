#!/usr/bin/env bash
# Installs the Debian 12 packages gpuwatch builds and tests with, when any is missing.
# Idempotent; needs root (or sudo). Each package and why it is here: README.md "Dependencies".
set -euo pipefail

PACKAGES=(
  gcc make cmake pkg-config          # the C11 toolchain and build
  libcjson-dev                       # JSON: scenarios, meta.json, events.jsonl, summary.json
  libcmocka-dev                      # unit tests
  python3 python3-pytest             # command-line tests
  clang libclang-rt-14-dev           # the log reader's libFuzzer harness (fuzz/run.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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

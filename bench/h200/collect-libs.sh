#!/usr/bin/env bash
# Copies the shared libraries that build/gpuwatch and the bench programs need, except glibc's own,
# into .device/lib, so that binaries built here run on a GPU machine that lacks the -dev packages'
# runtime libraries (no network there). The scripts in bench/h200 put .device/lib on
# LD_LIBRARY_PATH.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .device/lib
for bin in build/gpuwatch build/bench_tick build-asan/gpuwatch .device/before/gpuwatch; do
  [ -x "$bin" ] || continue
  ldd "$bin" | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libutil.so*|ld-linux*) ;;
      *) cp -L "$lib" .device/lib/ ;;
    esac
  done
done
ls .device/lib

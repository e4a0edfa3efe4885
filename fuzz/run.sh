#!/usr/bin/env bash
# Builds the log-reader fuzzer with clang's libFuzzer (+ASan/UBSan) and runs it for a bounded
# time: fuzz/run.sh [SECONDS=60]. Seeds come from tests/data (traces, fixtures) and fuzz/corpus/;
# a crash leaves crash-* in build-fuzz/ and a non-zero exit status.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=build-fuzz
mkdir -p "$out/corpus"
# Only what the log reader, the analysis and the report need (the HTML report's embedded assets
# come from the CMake build: scripts/build.sh runs first).
[ -f build/gen/gw_assets.c ] || { echo "fuzz/run.sh: build first (scripts/build.sh)" >&2; exit 1; }
srcs="$(ls src/util/*.c src/stats/*.c src/events/*.c src/logread/*.c src/analysis/*.c src/report/*.c src/chart/*.c)"
srcs="$srcs src/sampler/fields.c src/record/job.c src/view/utf8.c build/gen/gw_assets.c"
clang -std=c11 -D_GNU_SOURCE -DGPUWATCH_VERSION='"fuzz"' -g -O1 -Isrc -Ibuild/gen \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    $(pkg-config --cflags libcjson) fuzz/fuzz_logread.c $srcs \
    $(pkg-config --libs libcjson) -ldl -lm -lpthread -lutil -o "$out/fuzz_logread"
for f in tests/data/traces/*.csv tests/data/fixtures/public/*.csv tests/data/public-logs/*.*; do
    [ -f "$f" ] && head -c 4000 "$f" > "$out/corpus/$(basename "$f")"
done
[ -d fuzz/corpus ] && cp fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
cd "$out"
./fuzz_logread -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 corpus

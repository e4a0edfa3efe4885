#!/usr/bin/env bash
# Runs every test: installs what is missing, builds build/ and build-asan/ (AddressSanitizer and
# UndefinedBehaviorSanitizer), runs ctest in both, and ends with one line: "N passed, N failed"
# (individual test cases from cmocka's and pytest's JUnit XML, plus any test program that failed
# without reporting a case). Exit status 0 only when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test || { echo "0 passed, 1 failed"; exit 1; }
scripts/build.sh --asan || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
status=0
for b in build build-asan; do
  rm -rf "$b/test-results"
  mkdir -p "$b/test-results"
  echo "== ctest in $b"
  (cd "$b" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j2 --timeout 900 2>&1 | tee test-results/ctest.log) || status=1
done
# The log reader's fuzzer, for a bounded time; a crash is a failed test (and leaves crash-* files).
mkdir -p build-fuzz
fuzz_result=passed
echo "== fuzz/run.sh ${GPUWATCH_FUZZ_SECONDS:-60}"
fuzz/run.sh "${GPUWATCH_FUZZ_SECONDS:-60}" > build-fuzz/fuzz.log 2>&1 || { fuzz_result=failed; status=1; tail -30 build-fuzz/fuzz.log; }
grep -E "^Done|stat::number_of_executed_units" build-fuzz/fuzz.log | tail -1
/usr/bin/python3 - "$fuzz_result" <<'PY'
import sys
ok = sys.argv[1] == "passed"
body = "" if ok else "<failure message='the fuzzer found a crash: see build-fuzz/'/>"
open("build-fuzz/fuzz.xml", "w").write(
    f"<testsuite><testcase classname='fuzz' name='fuzz_logread'>{body}</testcase></testsuite>")
PY
/usr/bin/python3 scripts/test-summary.py build/test-results build-asan/test-results build-fuzz || status=1
exit $status

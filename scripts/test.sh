#!/usr/bin/env bash
# Runs the tests: installs what is missing, builds build/ and build-asan/ (AddressSanitizer and
# UndefinedBehaviorSanitizer), runs ctest in both, fuzzes the log reader for a bounded time, and
# ends with one line: "N passed, N failed, N skipped" (individual test cases from cmocka's and
# pytest's JUnit XML, plus any test program that failed without reporting a case). Exit status 0
# only when nothing failed.
#
#   scripts/test.sh            every test that runs our code: about 5 minutes on 2 idle cores
#   scripts/test.sh --system   also the system tests (ctest label "system": the image built with
#                              buildah, the .deb installed with dpkg, a real Slurm), once, in the
#                              background beside the others: what CI runs (.ci/run)
#
# Both builds' ctest runs and the fuzzer run at the same time, each into its own log: most tests
# wait on a recording's clock, a job's sleep or a server rather than compute (the whole normal
# ctest takes about 100 s of CPU for 570 s of test time), so together they keep two cores busy.
# Tests must therefore share nothing fixed (docs/style.md, "Tests"). Tests labelled "once"
# (generated text and scripts: man pages, deploy files, layer rules) run in the normal build only:
# the sanitizer build would run the same code again. GPUWATCH_FUZZ_SECONDS sets the fuzzer's time
# (default 30; CI gives it 60), GPUWATCH_TEST_JOBS each ctest's parallelism (default 3: six tests
# at once; more makes the tests that judge a job's CPU or a tick's timing see a starved machine).
set -uo pipefail
cd "$(dirname "$0")/.."
system=0
case "${1:-}" in
  --system) system=1 ;;
  "") ;;
  *) echo "scripts/test.sh: unknown option '$1' (use --system or nothing)"; echo "0 passed, 1 failed"; exit 2 ;;
esac
jobs=${GPUWATCH_TEST_JOBS:-3}
start=$(date +%s)
scripts/deps.sh --test || { echo "0 passed, 1 failed"; exit 1; }
scripts/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
# The log reader's fuzzer (it needs build/'s generated assets): built beside the sanitizer build
# and run beside the tests, for a bounded time; a crash is a failed test (and leaves crash-*).
mkdir -p build-fuzz
(exec fuzz/run.sh "${GPUWATCH_FUZZ_SECONDS:-30}" > build-fuzz/fuzz.log 2>&1) &
fuzz_pid=$!
scripts/build.sh --asan || { echo "build failed"; echo "0 passed, 1 failed"; kill "$fuzz_pid"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
for b in build build-asan; do
  rm -rf "$b/test-results"
  mkdir -p "$b/test-results"
done
status=0
sys_pid=
if [ "$system" = 1 ]; then
  echo "== ctest -L system in build (background)"
  (cd build && ctest -L system --output-on-failure -j2 --timeout 1200 \
     > test-results/ctest-system.log 2>&1) &
  sys_pid=$!
fi
# Both builds' tests at once, each into its own log (printed whole when it ends); the longest
# tests start first (their COST in cmake/tests.cmake).
echo "== ctest in build and in build-asan, -j$jobs each (live: build*/test-results/ctest.log)"
(cd build && exec ctest -LE system --output-on-failure -j"$jobs" --timeout 900 \
   > test-results/ctest.log 2>&1) &
normal_pid=$!
(cd build-asan && exec ctest -LE 'system|once' --output-on-failure -j"$jobs" --timeout 900 \
   > test-results/ctest.log 2>&1) &
asan_pid=$!
wait "$normal_pid" || status=1
echo "== ctest in build"
cat build/test-results/ctest.log
wait "$asan_pid" || status=1
echo "== ctest in build-asan"
cat build-asan/test-results/ctest.log
echo "== fuzz/run.sh ${GPUWATCH_FUZZ_SECONDS:-30}"
fuzz_result=passed
wait "$fuzz_pid" || { fuzz_result=failed; status=1; tail -30 build-fuzz/fuzz.log; }
grep -E "^Done|stat::number_of_executed_units" build-fuzz/fuzz.log | tail -1
/usr/bin/python3 - "$fuzz_result" <<'PY'
import sys
ok = sys.argv[1] == "passed"
body = "" if ok else "<failure message='the fuzzer found a crash: see build-fuzz/'/>"
open("build-fuzz/fuzz.xml", "w").write(
    f"<testsuite><testcase classname='fuzz' name='fuzz_logread'>{body}</testcase></testsuite>")
PY
if [ -n "$sys_pid" ]; then
  echo "== waiting for the system tests"
  wait "$sys_pid" || status=1
  cat build/test-results/ctest-system.log
fi
echo "== $(( $(date +%s) - start )) s"
/usr/bin/python3 scripts/test-summary.py build/test-results build-asan/test-results build-fuzz || status=1
exit $status

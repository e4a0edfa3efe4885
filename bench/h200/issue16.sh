#!/usr/bin/env bash
# Issue 16 on one GPU machine, about 4 minutes, from the repository root with build/ and .device/
# carried; everything it measures, shows and logs goes under $OUT/issue16:
#   a. one-shot speed (bench/query_oneshot.py): `gpuwatch query` against nvidia-smi for 38 fields
#      and for `index` only, beside `true` and the NVML floor (build/nvml_init floor: nvmlInit,
#      the first handle, nvmlShutdown), as ratios; the loader's statistics; the first call of
#      14 kinds of value serially and in threads, and each other call of `query index`
#      (build/nvml_parallel); oneshot_bench (query, compact view, mark)          -> a-*.txt
#   b. CPU per refresh (bench/live_cpu.py) of `gpuwatch top` and the compact live view beside a
#      pynvml loop, `nvidia-smi -lms` and `nvidia-smi dmon`, each in a tmux pane, 30 s at 1 s
#      and 30 s at 0.2 s                                                         -> b-*.txt, b-screens/
#   c. `gpuwatch top` on a real training job: YOLOv9 (2 epochs) under `gpuwatch run -o
#      $OUT/issue16/yolo-run`, top in tmux at 120x40 and 80x24, captured (plain and with
#      colours, -e) about 45 s and 75 s after the job started                   -> c-top-*.txt
#
# Here, first (copies tmux with its libraries and terminfo entries, the libraries of build/,
# and the YOLOv9 workload into the ignored .device/):
#   scripts/build.sh && bench/h200/issue16.sh prepare [BEFORE_BINARY]
# (BEFORE_BINARY: an older build's gpuwatch, e.g. main's, copied to .device/before/gpuwatch and
# timed beside this build by bench/oneshot_bench.py)
# On the GPU machine (carry: build, .device):
#   bench/h200/issue16.sh
# Without a GPU (a dry run on the fake NVML, a stand-in job, shorter windows):
#   GPUWATCH_NVML_LIB=build/fake-nvml/libnvidia-ml.so.1 FAKE_NVML_SCENARIO=... \
#   ISSUE16_JOB="python3 examples/simulated_train.py" ISSUE16_CPU_S=5 OUT=/tmp/o bench/h200/issue16.sh
# Every step has a time limit and a failed step does not stop the next one.
set -u
cd "$(dirname "$0")/../.."

if [ "${1:-}" = prepare ]; then
  set -e
  bench/h200/collect-libs.sh > /dev/null
  mkdir -p .device/bin .device/terminfo
  cp -L "$(command -v tmux)" .device/bin/tmux
  ldd .device/bin/tmux | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*) ;;
      *) cp -L "$lib" .device/lib/ ;;
    esac
  done
  for t in t/tmux t/tmux-256color s/screen s/screen-256color v/vt100 x/xterm x/xterm-256color; do
    for d in /lib/terminfo /usr/share/terminfo /etc/terminfo; do
      [ -f "$d/$t" ] && { mkdir -p ".device/terminfo/${t%/*}"; cp -L "$d/$t" ".device/terminfo/$t"; break; }
    done
  done
  if [ -n "${2:-}" ]; then
    mkdir -p .device/before && cp -L "$2" .device/before/gpuwatch
  fi
  if [ -d ../shared/workloads ]; then
    rm -rf .device/workloads && cp -r ../shared/workloads .device/
  fi
  du -sh .device build
  echo "ready: carry [\"build\", \".device\"], run bench/h200/issue16.sh"
  exit 0
fi

OUT=${OUT:?set OUT to the folder for the results}
R=$OUT/issue16
mkdir -p "$R"
exec > >(tee -a "$R/log.txt") 2>&1
T0=$(date +%s)
step() { echo "== $(( $(date +%s) - T0 )) s: $*"; }
CPU_S=${ISSUE16_CPU_S:-30}
JOB=${ISSUE16_JOB:-.device/workloads/run-yolov9.sh 8 64 2}
CAPTURE_AT=${ISSUE16_CAPTURE_AT:-45 75}
JOB_LIMIT=${ISSUE16_JOB_LIMIT:-200}

. bench/h200/env.sh
export LANG=C.UTF-8 LC_ALL=C.UTF-8
# terminfo entries from here, after the machine's own (ncurses tries each directory in turn)
export TERMINFO_DIRS="/etc/terminfo:/lib/terminfo:/usr/share/terminfo:$PWD/.device/terminfo"
if command -v tmux > /dev/null; then
  TMUX_BIN=$(command -v tmux)
else
  TMUX_BIN=$PWD/.device/bin/tmux
  for _l in $(LD_LIBRARY_PATH="$GWLIB" ldd "$TMUX_BIN" 2>/dev/null | awk '/not found/{print $1}'); do
    [ -f ".device/lib/$_l" ] && cp ".device/lib/$_l" "$GWLIB/"
  done
fi
SOCK=gw-issue16-$$
tm() { timeout 10 "$TMUX_BIN" -L "$SOCK" -f /dev/null "$@"; }
JOBPID=
cleanup() {
  tm kill-server > /dev/null 2>&1
  [ -n "$JOBPID" ] && kill -INT "$JOBPID" 2> /dev/null
}
trap cleanup EXIT

step "environment"
{
  date -u; uname -a; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,persistence_mode --format=csv
  echo "tmux: $TMUX_BIN $("$TMUX_BIN" -V)"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd build/gpuwatch; ls "$GWLIB"
  python3 -c 'import pynvml; print("pynvml", getattr(pynvml, "__version__", "?"))'
  grep -m1 "model name" /proc/cpuinfo; nproc
} > "$R/env.txt" 2>&1
cat "$R/env.txt"

step "a. one-shot: query (38 fields, index) vs nvidia-smi, true and the NVML floor"
{
  echo "== LD_DEBUG=statistics build/gpuwatch query --query-gpu=index"
  LD_DEBUG=statistics timeout 20 build/gpuwatch query --query-gpu=index --format=csv 2>&1 \
    | grep -E 'startup|relocations|objects'
} > "$R/a-loader.txt" 2>&1
for _ in 1 2 3 4 5; do timeout 20 build/nvml_init floor; done > "$R/a-nvml-floor-stages.txt" 2>&1
for _ in 1 2 3 4 5; do timeout 20 build/nvml_init 0; done >> "$R/a-nvml-floor-stages.txt" 2>&1
# the first call of 14 kinds of value: one after the other, or each in a thread, fresh processes
for _ in 1 2 3 4 5 6 7 8 9 10; do
  timeout 20 build/nvml_parallel serial; timeout 20 build/nvml_parallel threads
done > "$R/a-nvml-parallel.txt" 2>&1
# what `query index` calls besides nvmlInit and the handle, one by one
for _ in 1 2 3 4 5; do timeout 20 build/nvml_parallel open; done > "$R/a-nvml-open.txt" 2>&1
timeout 120 python3 bench/query_oneshot.py --runs 30 --floor build/nvml_init > "$R/a-query38.txt" 2>&1
timeout 120 python3 bench/query_oneshot.py --runs 30 --floor build/nvml_init --fields index \
  > "$R/a-query-index.txt" 2>&1
# `gpuwatch` (compact) and `gpuwatch mark` too, beside plain nvidia-smi and `true`
BEFORE=
[ -x .device/before/gpuwatch ] && BEFORE=.device/before/gpuwatch
timeout 150 python3 bench/oneshot_bench.py --runs 15 ${BEFORE:+--before "$BEFORE"} \
  > "$R/a-oneshot.txt" 2>&1
cat "$R/a-loader.txt" "$R/a-nvml-floor-stages.txt" "$R/a-nvml-parallel.txt" "$R/a-nvml-open.txt" \
  "$R/a-query38.txt" "$R/a-query-index.txt" \
  "$R/a-oneshot.txt"

step "b. CPU per refresh, ${CPU_S} s at 1 s and at 0.2 s"
for iv in 1 0.2; do
  timeout $((CPU_S + 60)) python3 bench/live_cpu.py --interval "$iv" --duration "$CPU_S" \
    --tmux "$TMUX_BIN" --out "$R/b-screens" > "$R/b-cpu-$iv.txt" 2>&1
  cat "$R/b-cpu-$iv.txt"
done

step "c. top on a training job: $JOB"
# shellcheck disable=SC2086  # JOB is a command line
timeout -k 20 -s INT "$JOB_LIMIT" build/gpuwatch run -o "$R/yolo-run" -- $JOB > "$R/c-run.log" 2>&1 &
JOBPID=$!
TJ=$(date +%s)
sleep 3
GW=$PWD/build/gpuwatch
tm new-session -d -s big -x 120 -y 40 "exec $GW top -i 1" && tm set-option -t big status off
tm new-session -d -s small -x 80 -y 24 "exec $GW top -i 1" && tm set-option -t small status off
tm set-option -g remain-on-exit on
for at in $CAPTURE_AT; do
  while [ $(( $(date +%s) - TJ )) -lt "$at" ] && kill -0 "$JOBPID" 2> /dev/null; do sleep 1; done
  step "capture at $(( $(date +%s) - TJ )) s of the job"
  for s in big small; do
    tm capture-pane -p -t "$s" > "$R/c-top-$s-${at}s.txt" 2>&1
    tm capture-pane -p -e -t "$s" > "$R/c-top-$s-${at}s.ansi.txt" 2>&1
  done
  cat "$R/c-top-big-${at}s.txt" "$R/c-top-small-${at}s.txt"
done
for s in big small; do
  pid=$(tm list-panes -t "$s" -F '#{pane_pid}' 2> /dev/null)
  [ -n "$pid" ] && echo "top $s: $(awk '{print ($14 + $15) / 100 " CPU s"}' "/proc/$pid/stat" 2> /dev/null) over $(( $(date +%s) - TJ - 3 )) s"
done | tee "$R/c-top-cpu.txt"
tm kill-server > /dev/null 2>&1
step "waiting for the job (at most ${JOB_LIMIT} s from its start)"
wait "$JOBPID"
echo "gpuwatch run exit $?"
JOBPID=
tail -40 "$R/c-run.log"
ls -la "$R/yolo-run" 2> /dev/null
step "done"

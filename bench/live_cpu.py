#!/usr/bin/env python3
"""CPU per refresh of full-screen GPU views, each in a tmux pane of its own (a real terminal:
ncurses draws, nvidia-smi prints), all at once for the same duration:

  - `gpuwatch top -i SEC` and the compact live view `gpuwatch --compact -i SEC`;
  - a pynvml loop printing what the view shows, the way nvitop-like tools poll (pynvml_live.py);
  - `nvidia-smi -lms MS` and, at whole seconds, `nvidia-smi dmon -d SEC`.

    python3 bench/live_cpu.py [--interval 1] [--duration 30] [--warmup 3] [--gpuwatch PATH]
                              [--tmux tmux] [--out DIR]

Each tool's user + system CPU (/proc/PID/stat) is read after --warmup seconds (start-up left out)
and at the end; CPU per refresh is the difference divided by the refreshes the interval gives
in that time. Prints a table with each tool's CPU per refresh, % of one core and the ratio to
`gpuwatch top`. With --out, each pane's last screen is kept there. Tools that are not installed
are skipped; a tool that dies early is reported, never waited for."""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """utime + stime of a live process in seconds, None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def tools(a):
    """(name, shell command) of every tool installed; each command execs the measured process."""
    gw = os.path.abspath(a.gpuwatch)
    sec = f"{a.interval:g}"
    t = [("gpuwatch top", f"exec {gw} top -i {sec}"),
         ("gpuwatch --compact", f"exec {gw} --compact -i {sec}")]
    try:
        import pynvml  # noqa: F401
        t.append(("pynvml loop", f"exec {sys.executable} {HERE}/pynvml_live.py {sec} "
                                 f"{a.duration + a.warmup + 30:g}"))
    except ImportError:
        print("(pynvml not installed: skipping the Python loop)", file=sys.stderr)
    if shutil.which("nvidia-smi"):
        ms = int(round(a.interval * 1000))
        t.append((f"nvidia-smi -lms {ms}", f"exec nvidia-smi -lms {ms}"))
        if a.interval == int(a.interval):
            t.append((f"nvidia-smi dmon -d {int(a.interval)}",
                      f"exec nvidia-smi dmon -d {int(a.interval)}"))
    else:
        print("(nvidia-smi not found: skipping it)", file=sys.stderr)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--gpuwatch", default="build/gpuwatch")
    ap.add_argument("--tmux", default="tmux")
    ap.add_argument("--cols", type=int, default=120)
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    sock = f"gw-live-cpu-{os.getpid()}"

    def tm(*args):
        return subprocess.run([a.tmux, "-L", sock] + list(args), capture_output=True, text=True,
                              timeout=10)

    todo = tools(a)
    pids = {}
    try:
        for i, (name, cmd) in enumerate(todo):
            r = tm("new-session", "-d", "-s", f"s{i}", "-x", str(a.cols), "-y", str(a.rows), cmd)
            if r.returncode != 0:
                print(f"  {name}: tmux failed: {r.stderr.strip()}", file=sys.stderr)
                continue
            tm("set-option", "-t", f"s{i}", "remain-on-exit", "on")
            pid = tm("list-panes", "-t", f"s{i}", "-F", "#{pane_pid}").stdout.strip()
            pids[name] = (f"s{i}", int(pid) if pid.isdigit() else 0)
        time.sleep(a.warmup)
        t0 = time.monotonic()
        start = {name: cpu_s(pid) for name, (_, pid) in pids.items()}
        time.sleep(a.duration)
        end = {name: cpu_s(pid) for name, (_, pid) in pids.items()}
        wall = time.monotonic() - t0
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            for name, (sess, _) in pids.items():
                slug = "".join(c if c.isalnum() else "_" for c in name)
                screen = tm("capture-pane", "-p", "-t", sess).stdout
                with open(os.path.join(a.out, f"{slug}-{a.interval:g}s.txt"), "w") as f:
                    f.write(screen)
    finally:
        tm("kill-server")
    refreshes = wall / a.interval
    print(f"CPU per refresh over {wall:.1f} s after {a.warmup:g} s of start-up, every "
          f"{a.interval:g} s ({refreshes:.0f} refreshes), each tool in a {a.cols}x{a.rows} "
          f"tmux pane, all at once")
    print(f"{'tool':<24} {'CPU s':>8} {'% core':>8} {'ms/refresh':>11} {'vs top':>8}")
    per = {}
    for name, _ in todo:
        if name not in pids:
            continue
        s, e = start.get(name), end.get(name)
        if s is None or e is None:
            print(f"{name:<24} {'(exited early: see its screen)':>40}")
            continue
        per[name] = (e - s) * 1000.0 / refreshes
        ratio = ""
        base = per.get("gpuwatch top")
        if base:
            ratio = f"{per[name] / base:7.2f}x"
        print(f"{name:<24} {e - s:8.3f} {100 * (e - s) / wall:8.2f} {per[name]:11.3f} {ratio:>8}")
    base = per.get("gpuwatch top")
    if base:
        for name, v in per.items():
            if name != "gpuwatch top" and v > 0:
                print(f"ratio gpuwatch top / {name} (CPU per refresh): {base / v:.3f}")
    else:
        print("gpuwatch top used no measurable CPU (or exited): no ratios")


if __name__ == "__main__":
    main()

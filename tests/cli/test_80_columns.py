"""Every plain output of the README's commands fits 80 columns on a terminal (issue 16, item 3),
on the fake scenarios, and every command line the README shows runs: each is run here as written,
in a pseudo-terminal (inputs the README names are put in place in a scratch directory; `python3`
is a stand-in on PATH that prints like a training script, since the test machine has no torch).
To a pipe, long lines go whole (for scripts and grep); help texts fit 80 columns everywhere.
Machine formats are exempt: CSV (`query`, nvidia-smi's own format), JSON and HTML."""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest

from conftest import GW, SCENARIOS, SOURCE, gw_env, machine_lock, run_in_pty

REC = SOURCE / "examples" / "recordings"
PLAIN_SCENARIOS = ["h200_training.json", "h200_idle.json", "h200_mig.json", "no_gpm.json",
                   "two_gpus_one_lost.json"]
COMMANDS = ["run", "record", "report", "query", "check", "serve", "plot", "mark"]


def too_wide(text):
    return [line for line in text.splitlines() if len(line.rstrip("\r")) > 80]


class Tty:
    """What a command printed on a terminal (stdout and stderr together) and its exit status."""

    def __init__(self, argv, env, cwd=None, timeout=120):
        self.returncode, buf = run_in_pty(argv, env, timeout=timeout, cwd=cwd)
        self.out = buf.decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.fixture
def scratch(tmp_path):
    """A directory holding what the README's commands name, and a python3 stand-in on PATH."""
    shutil.copytree(REC / "h200-resnet50-train", tmp_path / "runs/20261130-053431-train_torchvision")
    for node in ("node1", "node2", "RUN"):
        shutil.copytree(REC / "h200-resnet50-train", tmp_path / node)
    shutil.copy(REC / "h200-resnet50-train.nvsmi.csv", tmp_path / "gpu_log.csv")
    # a training log with its own times (nvidia-smi's CSV has local times: TZ=UTC below)
    (tmp_path / "train.log").write_text("".join(
        f"2026-11-30T04:02:{10 + 8 * e:02d}Z Epoch {e + 1}/2 loss {1.5 - e / 2}\n"
        for e in range(2)))
    (tmp_path / "examples").symlink_to(SOURCE / "examples")
    (tmp_path / "train.py").write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    py = bin_dir / "python3"
    py.write_text("#!/bin/sh\n"
                  "printf 'Epoch 1/2: 100%%|##########| 150/150 [00:01<00:00, 120it/s]\\n'\n"
                  "sleep 0.5\n"
                  "printf 'Epoch 2/2:  40%%|####      | 60/150 [00:00<00:01, 121it/s]'\n")
    py.chmod(0o755)
    return tmp_path


def run_readme(scratch, line, scenario="h200_training.json", timeout=120):
    env = gw_env(SCENARIOS / scenario, COLUMNS="80", TZ="UTC")
    env["PATH"] = f"{scratch / 'bin'}:{env['PATH']}"
    argv = line.split()
    assert argv[0] == "gpuwatch"
    return Tty([GW] + argv[1:], env, cwd=scratch, timeout=timeout)


# The README's command lines, as written (README.md: "gpuwatch run", "report", live view, check).
README_LINES = [
    "gpuwatch run -i 0.2 -- python3 examples/train_torchvision.py --model resnet50 --epochs 2 "
    "--steps 150 --batch 256 --data-on-gpu --channels-last",
    "gpuwatch report runs/20261130-053431-train_torchvision",
    "gpuwatch report gpu_log.csv --log train.log",
    "gpuwatch report node1/ node2/ --json summary.json --fail-on warning",
    "gpuwatch report RUN --html report.html",
    "gpuwatch report examples/recordings/h200-labelled/input_bound_half",
    "gpuwatch",
    "gpuwatch check",
    "gpuwatch query --help-query-gpu",
    "gpuwatch plot RUN -o run.png --metrics temp,memory,util,power",
    "gpuwatch record -o rec --duration 1",
]


@pytest.mark.parametrize("line", README_LINES)
def test_readme_command_runs_and_fits(scratch, line):
    r = run_readme(scratch, line)
    # report --fail-on warning exits 1 when a warning exists; check exits with its status
    assert r.returncode in (0, 1), f"{line}: rc {r.returncode}: {r.out}"
    if "--fail-on" not in line and not line.startswith("gpuwatch check"):
        assert r.returncode == 0, r.out
    assert r.out.startswith(("gpuwatch", "vm  ", "List of valid", "driver")), r.out[:200]
    assert too_wide(r.out) == []


@pytest.mark.parametrize("scenario", PLAIN_SCENARIOS)
def test_live_check_and_run_fit_on_every_scenario(scratch, scenario):
    for line in ("gpuwatch", "gpuwatch check",
                 "gpuwatch run -i 0.2 -- python3 train.py --epochs 2"):
        r = run_readme(scratch, line, scenario)
        assert r.returncode in (0, 1, 2), f"{line} on {scenario}: {r.out}"
        assert r.out.strip()
        assert too_wide(r.out) == [], f"{line} on {scenario}"


@pytest.mark.parametrize("cmd", [None] + COMMANDS)
def test_help_fits(cmd):
    # to a pipe too: help texts are written for 80 columns
    args = [GW] + ([cmd] if cmd else []) + ["--help"]
    r = subprocess.run(args, env=gw_env(), capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("usage: gpuwatch")
    assert too_wide(r.stdout) == []


def test_every_report_of_the_examples_fits():
    runs = sorted(p.parent for p in REC.rglob("gpu.csv"))
    assert len(runs) >= 5
    for run in runs:  # relative, as a user types them (a path is never broken)
        r = Tty([GW, "report", str(run.relative_to(SOURCE))], gw_env(), cwd=SOURCE)
        assert r.returncode == 0, r.out
        assert "Verdicts" in r.out and too_wide(r.out) == [], run


def test_query_loop_and_serve_as_the_readme_shows(scratch):
    # CSV is exempt from the width (nvidia-smi's format); what matters is that the line runs
    fields = ("timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,"
              "temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate")
    env = gw_env(SCENARIOS / "h200_training.json")
    p = subprocess.Popen([GW, "query", f"--query-gpu={fields}", "--format=csv", "-lms", "100"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    header = p.stdout.readline()
    rows = [p.stdout.readline() for _ in range(3)]
    p.send_signal(signal.SIGINT)
    p.wait(timeout=10)
    assert header.startswith("timestamp, index, utilization.gpu [%]")
    assert all(r.count(", ") == 11 for r in rows)
    pid, fd = pty.fork()  # its announcement, on a terminal; port 0: the one it says it bound
    if pid == 0:
        os.execve(GW, [GW, "serve", "--listen", "127.0.0.1:0", "-i", "1"], env)
    out = b""
    try:
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline and select.select([fd], [], [], 1)[0]:
            out += os.read(fd, 65536)
            m = re.search(rb"on http://127\.0\.0\.1:(\d+)/metrics", out)
            port = int(m[1]) if m else None
        assert port, out
        body = ""
        for _ in range(100):  # until the first sample is in
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                              timeout=2).read().decode()
            except OSError:
                pass
            if "DCGM_FI_DEV_GPU_UTIL" in body:
                break
            time.sleep(0.1)
        assert "DCGM_FI_DEV_GPU_UTIL" in body
    finally:
        os.kill(pid, signal.SIGTERM)
        while select.select([fd], [], [], 5)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.waitpid(pid, 0)
        os.close(fd)
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    assert "gpuwatch: serving 1 GPU" in text and too_wide(text) == []


def test_json_snapshot_and_run_with_listen_as_the_readme_shows(scratch):
    import json
    r = subprocess.run([GW, "--json"], env=gw_env(SCENARIOS / "h200_training.json"),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["gpus"][0]["name"] == "NVIDIA H200"
    # README: gpuwatch run --listen 127.0.0.1:9400 -- python3 train.py (our tests take turns with
    # the port; something else may hold it on a shared machine: then the documented error,
    # before anything runs)
    with machine_lock("port-9400"):
        r = run_readme(scratch, "gpuwatch run --listen 127.0.0.1:9400 -- python3 train.py")
    assert (r.returncode == 0 and "serving metrics on http://127.0.0.1:9400/metrics" in r.out) or \
        (r.returncode == 125 and "in use" in r.out), r.out
    assert too_wide(r.out) == []

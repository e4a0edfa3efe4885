"""Processes around the job (issue 12): what an alert hook leaves behind is neither counted as
the job nor outlives gpuwatch, and a gpuwatch killed with SIGKILL gives the job a defined fate
(SIGTERM to its process group, docs/run-directory.md) and loses at most the tick in progress."""
import os
import random
import signal
import subprocess
import time
from pathlib import Path

from conftest import GW, PYTHON, alive, gw, gw_env, h200, read_csv, rfc3339_to_s, wait_for


def hot_gpu():
    """A GPU above temp_warning's threshold from the start: the alert fires on the first tick."""
    base = {"t": 0, "util_gpu": 50, "util_mem": 10, "mem_used_mib": 1000, "temp_c": 85,
            "power_w": 300, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0}
    return h200(timeline=[base])


def test_hook_leftovers_are_not_the_job_and_do_not_outlive_it(scenario, tmp_path):
    pids = tmp_path / "left.pids"
    hook = tmp_path / "hook.sh"
    # one process left in the hook's group, one that escaped to a session of its own
    hook.write_text(f"#!/bin/sh\nsleep 30 &\necho $! >> {pids}\n"
                    f"sh -c 'setsid sleep 31 & echo $! >> {pids}'\n")
    hook.chmod(0o755)
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.2", "--no-report", f"--on-alert={hook}", "--",
            "sleep", "3"], scenario({"devices": [hot_gpu()]}), timeout=120)
    assert r.returncode == 0, r.stderr
    left = [int(p) for p in pids.read_text().split()]
    assert len(left) == 2
    assert not any(alive(p) for p in left)
    assert (f"gpuwatch: alert hook {hook} for temp_warning (firing) left 2 processes running: "
            "stopped") in r.stderr
    # the job is one `sleep` on every tick: its count and memory never moved
    _, host = read_csv(out / "host.csv")
    host = host[1:]  # the first tick comes before the job starts
    assert len(host) >= 10
    assert {h["job.processes"] for h in host} == {"1"}
    rss = {float(h["job.rss [MiB]"]) for h in host}
    assert max(rss) < 5, rss  # a sleep, not a fork of gpuwatch
    assert max(rss) - min(rss) <= 0.2, rss
    assert "up to 1 process" in r.stderr


JOB = """
import os, signal, subprocess, sys, time
out = sys.argv[1]
child = subprocess.Popen(["sleep", "120"])
def term(sig, frame):
    with open(out, "w") as f:
        f.write("TERM %d" % os.getpid())
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
with open(out + ".pids", "w") as f:
    f.write("%d %d" % (os.getpid(), child.pid))
while True:
    time.sleep(0.05)
"""


def test_sigkill_gives_the_job_sigterm_and_loses_one_tick_at_most(scenario, tmp_path):
    """SIGKILL at random moments, of gpuwatch alone or of its whole process group (as `timeout -s
    KILL` does): the job's group gets SIGTERM, a running hook is stopped, rows are whole."""
    job = tmp_path / "job.py"
    job.write_text(JOB)
    hook_pids = tmp_path / "hook.pids"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho $$ >> {hook_pids}\nsleep 100 &\necho $! >> {hook_pids}\n"
                    "wait\n")
    hook.chmod(0o755)
    interval = 0.1
    rng = random.Random(12)
    worst = 0.0
    for n in range(4):
        out = tmp_path / f"run{n}"
        fate = tmp_path / f"fate{n}"
        group = n % 2 == 1
        p = subprocess.Popen([GW, "run", "-o", str(out), "-i", str(interval), "--no-report",
                              f"--on-alert={hook}", "--on-alert-timeout", "60",
                              "--", PYTHON, str(job), str(fate)],
                             env=gw_env(scenario({"devices": [hot_gpu()]})),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=group)
        try:
            assert wait_for(lambda: Path(str(fate) + ".pids").exists())
            assert wait_for(lambda: hook_pids.exists() and
                            len(hook_pids.read_text().split()) == 2 * (n + 1))
            time.sleep(rng.uniform(0.3, 2.0))
            killed_at = time.time()
            if group:
                os.killpg(p.pid, signal.SIGKILL)
            else:
                p.kill()
            p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
        job_pid, child_pid = (int(x) for x in Path(str(fate) + ".pids").read_text().split())
        # the job's whole process group got SIGTERM: the job's handler ran, its child died
        assert wait_for(lambda: fate.exists() and fate.read_text() == f"TERM {job_pid}")
        assert wait_for(lambda: not alive(child_pid) and not alive(job_pid))
        # the hook that was running, and what it started, went with gpuwatch
        left = [int(x) for x in hook_pids.read_text().split()]
        assert wait_for(lambda: not any(alive(x) for x in left))
        # only whole rows, and nothing older than the tick in progress is missing
        for name in ("gpu.csv", "host.csv"):
            text = (out / name).read_text()
            assert text.endswith("\n")
            _, rows = read_csv(out / name)
            assert rows
            lost = killed_at - rfc3339_to_s(rows[-1]["timestamp"])
            worst = max(worst, lost)
            assert -0.05 <= lost <= 1.0 + interval, (name, lost)
    print(f"worst rows lost after SIGKILL: {worst:.3f} s")


GUARD_JOB = """
import os, sys, time
me = os.getppid()
kids = open("/proc/%d/task/%d/children" % (me, me)).read().split()
guards = [k for k in kids if open("/proc/%s/comm" % k).read().strip() == "gpuwatch-guard"]
open(sys.argv[1], "w").write(" ".join(guards))
time.sleep(1.5)
"""


def test_guard_is_not_the_job_and_goes_with_gpuwatch(scenario, tmp_path):
    """gpuwatch's guard process is not counted as the job, and gpuwatch's normal end stops it."""
    job = tmp_path / "job.py"
    job.write_text(GUARD_JOB)
    found = tmp_path / "guards"
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--no-report", "--", PYTHON, job, found],
           scenario({"devices": [hot_gpu()]}), timeout=60)
    assert r.returncode == 0, r.stderr
    guards = [int(g) for g in found.read_text().split()]
    assert len(guards) == 1
    assert not alive(guards[0])
    _, host = read_csv(out / "host.csv")
    # the guard is never counted: one process whenever the job's tree was read (a tick that
    # found no job, as after its end on a loaded machine, leaves the cell empty, never 0)
    counts = [h["job.processes"] for h in host[1:]]
    assert set(counts) - {""} == {"1"} and counts.count("1") >= len(counts) // 2, counts

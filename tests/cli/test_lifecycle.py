"""Processes around the job (issue 12): what an alert hook leaves behind is neither counted as
the job nor outlives gpuwatch."""
import time
from pathlib import Path

from conftest import gw, h200, read_csv


def hot_gpu():
    """A GPU above temp_warning's threshold from the start: the alert fires on the first tick."""
    base = {"t": 0, "util_gpu": 50, "util_mem": 10, "mem_used_mib": 1000, "temp_c": 85,
            "power_w": 300, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0}
    return h200(timeline=[base])


def alive(pid):
    """True while pid runs (a zombie has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(") ", 1)[1][0] != "Z"


def wait_for(cond, limit_s=20.0):
    """Polls cond until it holds or limit_s passes (a bound on waiting, not an assertion)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


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

"""The job beyond the GPU, end to end against the fake NVML library: job_stalled alerts of
`gpuwatch run --stall-timeout`, and the report's crash verdicts (oom_crash, job_failed)."""
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import GW, PYTHON, events, gw, gw_env, h200


def flat(util, **over):
    """One H200 at a constant GPU-Util, the wrapped command listed on it."""
    point = {"t": 0, "util_gpu": util, "util_mem": 0, "mem_used_mib": 20000, "temp_c": 40,
             "power_w": 80 + 6 * util, "sm_clock_mhz": 1980, "clocks_event_reasons": 0,
             "pstate": 0, "sm_active": util, "sm_occupancy": 0, "tensor_active": 0,
             "dram_active": 0}
    return h200(timeline=[point],
                processes=[{"pid": "child", "name": "python3", "used_mib": 19000, "from_s": 0}],
                **over)


def stall_events(run_dir):
    return [e for e in events(run_dir)
            if e["type"] in ("alert", "alert_resolved") and e.get("rule") == "job_stalled"]


def verdicts(run_dir):
    return json.loads((Path(run_dir) / "summary.json").read_text())["verdicts"]


def only(vs, vid):
    got = [v for v in vs if v["id"] == vid]
    assert len(got) == 1, vs
    return got[0]


# A real PyTorch 2.x message (torch.OutOfMemoryError on an H200).
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 GiB. GPU 0 has a "
       "total capacity of 139.81 GiB of which 7.86 GiB is free. Including non-PyTorch memory, "
       "this process has 131.94 GiB memory in use. Of the allocated memory 130.06 GiB is "
       "allocated by PyTorch, and 18.00 MiB is reserved by PyTorch but unallocated. If reserved "
       "but unallocated memory is large try setting "
       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
       "documentation for Memory Management  "
       "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def test_oom_traceback_gives_oom_crash(scenario, tmp_path):
    sc = scenario({"devices": [flat(100)]})
    out = tmp_path / "run"
    script = ("import sys, time\n"
              "for s in range(1, 4):\n  print(f'train step {s}', flush=True); time.sleep(0.3)\n"
              "print('Traceback (most recent call last):', file=sys.stderr)\n"
              "print('  File \"oom_crash.py\", line 22, in <module>', file=sys.stderr)\n"
              "print('    kept.append(torch.empty(n, device=\"cuda\"))', file=sys.stderr)\n"
              f"print({OOM!r}, file=sys.stderr)\n"
              "sys.exit(1)\n")
    r = gw(["run", "-o", out, "-i", "0.1", "--", PYTHON, "-c", script], sc)
    assert r.returncode == 1, r.stderr
    line = [l for l in r.stderr.splitlines() if " oom_crash " in l]
    assert len(line) == 1 and line[0].startswith("critical"), r.stderr
    assert "tried to allocate 12.0 GiB with 7.9 GiB free of 139.8 GiB" in line[0]
    assert "memory.used 20000 MiB of 143771 (14%)" in line[0]
    v = only(verdicts(out), "oom_crash")
    assert v["gpu"] == 0 and v["severity"] == "critical"
    ev = v["evidence"]
    assert ev["tried_to_allocate_mib"] == 12288
    assert ev["capacity_mib"] == pytest.approx(139.81 * 1024, abs=0.01)
    assert ev["free_mib"] == pytest.approx(7.86 * 1024, abs=0.01)
    assert ev["allocated_mib"] == pytest.approx(130.06 * 1024, abs=0.01)
    assert ev["reserved_unallocated_mib"] == 18
    assert ev["process_in_use_mib"] == pytest.approx(131.94 * 1024, abs=0.01)
    assert ev["memory_used_mib"] == 20000 and ev["memory_total_mib"] == 143771
    assert ev["exit_status"] == 1 and ev["cuda_device"] == 0
    assert ev["message"].startswith("torch.OutOfMemoryError: CUDA out of memory.")
    assert not [x for x in verdicts(out) if x["id"] == "job_failed"]


@pytest.mark.parametrize("cmd,cause,severity,words", [
    ("echo loading; echo 'ValueError: bad shape' >&2; exit 3", "exit_status", "warning",
     "the job exited with status 3: ValueError: bad shape"),
    ("sleep 0.3; kill -9 $$", "signal", "critical", "killed by SIGKILL"),
    ("sleep 0.3; kill -TERM $$", "signal", "info", "stopped by SIGTERM"),
])
def test_failed_job_names_its_cause(scenario, tmp_path, cmd, cause, severity, words):
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sh", "-c", cmd], sc)
    assert r.returncode != 0
    v = only(verdicts(out), "job_failed")
    assert (v["cause"], v["severity"]) == (cause, severity)
    assert words in v["message"]
    assert f"job_failed           job  {v['message']}" in r.stderr


def test_success_has_no_crash_verdict(scenario, tmp_path):
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sh", "-c", f"echo {OOM[:60]!r}"], sc)
    assert r.returncode == 0
    assert not [v for v in verdicts(out) if v["id"] in ("oom_crash", "job_failed")]


def test_silent_job_stalls_once_and_resolves_once(scenario, tmp_path):
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--stall-timeout", "1", "--", "sh", "-c",
            "sleep 3; echo back"], sc)
    assert r.returncode == 0, r.stderr
    ev = stall_events(out)
    assert [e["type"] for e in ev] == ["alert", "alert_resolved"], ev
    alert, res = ev
    assert alert["severity"] == "warning" and alert["gpu"] is None
    assert alert["threshold"] == 1 and alert["value"] >= 1
    assert alert["gpus"] == [0] and alert["gpu_util_pct"] == 0
    procs = {p["name"]: p for p in alert["processes"]}
    assert procs["sleep"]["state"] == "S" and procs["sh"]["state"] == "S"
    # gpuwatch started the job, so the kernel lets it read the system call (unless a hardened
    # ptrace policy forbids even that: then it is null)
    assert procs["sleep"]["syscall"] in ("clock_nanosleep", "nanosleep", None)
    assert res["reason"] == "output" and res["since"] == alert["since"]
    assert r.stderr.count("gpuwatch: job_stalled (warning)") == 1
    assert r.stderr.count("gpuwatch: job_stalled resolved: the job printed again") == 1
    v = only(verdicts(out), "job_stalled")
    assert v["severity"] == "warning" and v["evidence"]["until"] == "activity returned (output)"
    assert " sleep S " in v["evidence"]["processes"]


def test_stall_runs_the_alert_hook(scenario, tmp_path):
    """job_stalled goes through the same --on-alert hook as the alert rules."""
    log = tmp_path / "hook.log"
    hook = tmp_path / "hook.py"
    hook.write_text("import os, sys\n"
                    f"with open({str(log)!r}, 'a') as f:\n"
                    "    f.write(repr({k: v for k, v in os.environ.items()"
                    " if k.startswith('GPUWATCH_')}) + '\\n')\n")
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--stall-timeout", "1", "--on-alert", PYTHON,
            str(hook), ";", "--", "sh", "-c", "sleep 3; echo back; sleep 0.5"], sc)
    assert r.returncode == 0, r.stderr
    calls = [eval(line) for line in log.read_text().splitlines()]
    stall = [c for c in calls if c["GPUWATCH_ALERT"] == "job_stalled"]
    assert [c["GPUWATCH_STATE"] for c in stall] == ["firing", "resolved"], calls
    assert stall[0]["GPUWATCH_SEVERITY"] == "warning"
    assert stall[0]["GPUWATCH_GPU"] == ""
    assert stall[0]["GPUWATCH_THRESHOLD"] == "1"
    assert float(stall[0]["GPUWATCH_VALUE"]) >= 1
    assert "no output" in stall[0]["GPUWATCH_MESSAGE"]


def test_job_stalled_until_it_ends(scenario, tmp_path):
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--stall-timeout", "1", "--", "sleep", "3"], sc)
    assert r.returncode == 0, r.stderr
    assert [e["type"] for e in stall_events(out)] == ["alert"]  # the end resolves nothing
    v = only(verdicts(out), "job_stalled")
    assert v["evidence"]["until"] == "the job ended" and v["severity"] == "warning"
    exit_t = [e for e in events(out) if e["type"] == "job_exit"][0]["timestamp"]
    assert v["end"] == exit_t


@pytest.mark.parametrize("util,cmd", [
    (100, ["sleep", "3"]),  # quiet, but busy on the GPU
    (0, [PYTHON, "-c", "import time\nt = time.time()\nwhile time.time() - t < 3: pass"]),  # CPU
])
def test_quiet_but_busy_job_does_not_stall(scenario, tmp_path, util, cmd):
    sc = scenario({"devices": [flat(util)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--stall-timeout", "1", "--"] + cmd, sc)
    assert r.returncode == 0, r.stderr
    assert stall_events(out) == []
    assert "job_stalled" not in r.stderr


def test_stall_timeout_zero_turns_it_off(scenario, tmp_path):
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--stall-timeout", "0", "--", "sleep", "1.5"], sc)
    assert r.returncode == 0
    assert stall_events(out) == []


def test_stuck_job_ended_by_sigterm(scenario, tmp_path):
    """What bench/h200/labelled.sh does to examples/stuck_dataloader.py."""
    sc = scenario({"devices": [flat(0)]})
    out = tmp_path / "run"
    p = subprocess.Popen([GW, "run", "-o", str(out), "-i", "0.1", "--stall-timeout", "1", "--",
                          PYTHON, "-c", "import time\nprint('step 40', flush=True)\n"
                          "time.sleep(60)"],
                         env=gw_env(sc), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.time() + 30
    while not stall_events(out) and time.time() < deadline:
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 128 + 15, err
    assert [e["type"] for e in stall_events(out)] == ["alert"]
    vs = verdicts(out)
    st = only(vs, "job_stalled")
    assert st["severity"] == "critical"
    assert st["evidence"]["until"] == "the job was ended by SIGTERM"
    failed = only(vs, "job_failed")
    assert failed["cause"] == "signal" and failed["severity"] == "info"
    assert "critical  job_stalled          job  no output, GPU idle and CPU idle" in err


@pytest.mark.parametrize("args,words", [
    (["--stall-timeout", "soon"], "bad timeout 'soon' for --stall-timeout"),
    (["--stall-timeout", "-1"], "bad timeout"),
])
def test_stall_timeout_usage(scenario, args, words):
    r = gw(["run"] + args + ["--", "true"], scenario({"devices": [h200()]}))
    assert r.returncode == 2 and words in r.stderr
    r = gw(["record", "--stall-timeout", "5"], scenario({"devices": [h200()]}))
    assert r.returncode == 2 and "--stall-timeout is for `gpuwatch run`" in r.stderr


def test_report_of_a_run_dir_with_an_xid(tmp_path):
    """XID events (written by the NVML event watcher) name the cause of a crash."""
    d = tmp_path / "run"
    d.mkdir()
    (d / "gpu.csv").write_text(
        "timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
        + "".join(f"2027-01-15T08:00:{s:02d}.000Z, 0, 90, 5000\n" for s in range(20)))
    (d / "events.jsonl").write_text(
        '{"timestamp":"2027-01-15T08:00:00.000Z","type":"job_start","pid":5}\n'
        '{"timestamp":"2027-01-15T08:00:18.500Z","type":"xid","gpu":0,"xid":79}\n'
        '{"timestamp":"2027-01-15T08:00:19.000Z","type":"job_exit","pid":5,"code":1,'
        '"status":1}\n')
    (d / "output.log").write_text("RuntimeError: CUDA error: unspecified launch failure\n")
    r = gw(["report", d, "--json", "-"])
    assert r.returncode == 0, r.stderr
    v = only(json.loads(r.stdout)["verdicts"], "job_failed")
    assert v["cause"] == "xid" and v["severity"] == "critical" and v["gpu"] == 0
    assert v["evidence"]["xid"] == 79
    assert "Xid 79 (the GPU fell off the bus)" in v["message"]
    assert v["evidence"]["last_error"] == "RuntimeError: CUDA error: unspecified launch failure"

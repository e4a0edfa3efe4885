"""Issue 17: during a run, the alert rules, their hook and job_stalled follow the job's GPUs
(CUDA_VISIBLE_DEVICES and the other variables from the start, the job's processes once they are
listed); --scope node keeps judging the other GPUs and says "not this job". Through the fake NVML
with two GPUs: GPU 0 is another user's (docs/alerts.md "Shared nodes: the job's GPUs")."""
import json

import pytest

from conftest import PYTHON, events, gw, gw_env, h200, read_csv, rfc3339_to_s

UUID0 = "GPU-3f2a9c1e-7b44-4d0a-9e61-0c5d2b8a1f00"
UUID1 = "GPU-8d1b6e07-2c93-4f5e-a1d8-7e40c9b35a11"
JOB_VARS = ["CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES",
            "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "SLURM_JOB_ID"]
BASE = {"t": 0, "util_gpu": 50, "util_mem": 10, "mem_used_mib": 1000, "temp_c": 60,
        "power_w": 300, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0}


def gpu(i, points, procs=(), evs=()):
    tl = [dict(BASE, **points[0])] + [dict(p) for p in points[1:]]
    return h200(uuid=(UUID0, UUID1)[i], pci_bus_id=f"00000000:00:0{6 + i}.0", timeline=tl,
                processes=list(procs), events=list(evs))


OTHER = {"pid": 1, "name": "other", "used_mib": 30000, "from_s": 0}  # never in the job
CHILD = {"pid": "child", "name": "python3", "used_mib": 20000, "from_s": 0}


def hook_file(tmp_path):
    log = tmp_path / "hook.log"
    hook = tmp_path / "hook.py"
    hook.write_text("import os\n"
                    f"with open({str(log)!r}, 'a') as f:\n"
                    "    f.write(repr({k: v for k, v in os.environ.items()"
                    " if k.startswith('GPUWATCH_')}) + '\\n')\n")
    return hook, log


def hook_calls(log):
    return [eval(line) for line in log.read_text().splitlines()] if log.exists() else []


def run(scenario, tmp_path, devices, *args, cmd=("sleep", "3"), **job):
    sc = scenario({"devices": devices})
    env = gw_env(sc)
    for k in JOB_VARS:
        env.pop(k, None)
    env.update({k: str(v) for k, v in job.items()})
    hook, log = hook_file(tmp_path)
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--no-report", *args, "--on-alert", PYTHON, hook, ";",
            "--", *cmd], env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return out, r, hook_calls(log)


def fired(out, type_="alert"):
    return [e for e in events(out) if e["type"] == type_ and e["rule"] != "job_stalled"]


# GPU 0 (another user's) hot for the whole run with an XID; GPU 1 (the job's) hot for a second.
HOT_OTHER = [{"t": 0, "temp_c": 90}]
JOB_SPELL = [{"t": 0, "temp_c": 60}, {"t": 0.5, "temp_c": 85}, {"t": 1.5, "temp_c": 85},
             {"t": 1.6, "temp_c": 60}]
XID = [{"t": 0.5, "type": "xid", "data": 79}]


def test_variables_scope_alerts_and_hooks_from_the_start(scenario, tmp_path):
    devs = [gpu(0, HOT_OTHER, [OTHER], XID), gpu(1, JOB_SPELL)]
    out, r, calls = run(scenario, tmp_path, devs, CUDA_VISIBLE_DEVICES=UUID1)
    # the job's GPU is judged as before: its spell fires and resolves, the hook runs for both
    al = fired(out)
    assert [(e["rule"], e["gpu"]) for e in al] == [("temp_warning", 1)], al
    assert [(e["rule"], e["gpu"]) for e in fired(out, "alert_resolved")] == [("temp_warning", 1)]
    assert [(c["GPUWATCH_ALERT"], c["GPUWATCH_GPU"], c["GPUWATCH_STATE"]) for c in calls] == \
        [("temp_warning", "1", "firing"), ("temp_warning", "1", "resolved")]
    # the other user's hot GPU and its XID: recorded, never an alert of this job
    assert "GPU 0" not in "".join(e["message"] for e in al)
    assert [(e["gpu"], e["xid"]) for e in events(out) if e["type"] == "xid"] == [(0, 79)]
    _, rows = read_csv(out / "gpu.csv")
    assert any(row["index"] == "0" and row["temperature.gpu"] == "90" for row in rows)
    assert "ALERT warning temp_warning: GPU 1 temperature" in r.stderr
    assert "GPU 0" not in "\n".join(l for l in r.stderr.splitlines() if "ALERT" in l)
    # the report does not make the other GPU's XID the job's either
    s = json.loads(gw(["report", out, "--json", "-"], env=gw_env(None)).stdout)
    assert all(v.get("gpu") != 0 for v in s["verdicts"]), s["verdicts"]


def test_processes_scope_alerts_once_known(scenario, tmp_path):
    # nothing names the GPUs: the job's process on GPU 1 decides; GPU 0 heats up (and has an
    # XID) only from t = 4 s, when the process lists have shown the job's GPU
    hot_late = [{"t": 0, "temp_c": 60}, {"t": 4, "temp_c": 60}, {"t": 4.1, "temp_c": 90}]
    spell = [{"t": 0, "temp_c": 60}, {"t": 4.5, "temp_c": 60}, {"t": 4.6, "temp_c": 85}]
    devs = [gpu(0, hot_late, [OTHER], [{"t": 4.5, "type": "xid", "data": 79}]),
            gpu(1, spell, [CHILD])]
    out, r, calls = run(scenario, tmp_path, devs, cmd=("sleep", "7"))
    meta = json.loads((out / "meta.json").read_text())
    assert meta["job"]["gpus_source"] == "processes" and meta["job"]["gpus"] == [1]
    # the premise: the job's process was listed before GPU 0 got hot
    _, procs = read_csv(out / "processes.csv")
    _, rows = read_csv(out / "gpu.csv")
    known = min(rfc3339_to_s(p["timestamp"]) for p in procs if p["in_job"] == "1")
    hot = min(rfc3339_to_s(g["timestamp"]) for g in rows
              if g["index"] == "0" and g["temperature.gpu"] == "90")
    assert known < hot, "the job's process showed up too late for this test's timeline"
    al = fired(out)
    assert [(e["rule"], e["gpu"]) for e in al] == [("temp_warning", 1)], al
    assert [(c["GPUWATCH_GPU"], c["GPUWATCH_STATE"]) for c in calls] == [("1", "firing")]
    assert [e["gpu"] for e in events(out) if e["type"] == "xid"] == [0]


def test_scope_node_fires_marked(scenario, tmp_path):
    devs = [gpu(0, HOT_OTHER, [OTHER], XID), gpu(1, [{"t": 0}])]
    out, r, calls = run(scenario, tmp_path, devs, "--scope", "node", CUDA_VISIBLE_DEVICES=UUID1)
    al = {e["rule"]: e for e in fired(out)}
    assert sorted(al) == ["temp_warning", "xid"], al  # temp_critical needs 3 min
    assert al["temp_warning"]["gpu"] == 0
    assert al["temp_warning"]["message"].startswith("GPU 0 (not this job) temperature 90 C")
    assert al["xid"]["message"] == "GPU 0 (not this job) XID 79"
    assert "gpuwatch: ALERT critical xid: GPU 0 (not this job) XID 79" in r.stderr
    hooked = {c["GPUWATCH_ALERT"]: c for c in calls if c["GPUWATCH_STATE"] == "firing"}
    assert hooked["temp_warning"]["GPUWATCH_GPU"] == "0"
    assert "(not this job)" in hooked["temp_warning"]["GPUWATCH_MESSAGE"]


@pytest.mark.parametrize("job_gpu,stalls", [(UUID1, True), (UUID0, False)])
def test_job_stalled_judges_the_jobs_gpus(scenario, tmp_path, job_gpu, stalls):
    # GPU 0 busy for another user, GPU 1 idle; the job (sleep) lists no GPU process
    busy = gpu(0, [{"t": 0, "util_gpu": 100}], [OTHER])
    idle = gpu(1, [{"t": 0, "util_gpu": 0}])
    out, r, calls = run(scenario, tmp_path, [busy, idle], "--stall-timeout", "1",
                        CUDA_VISIBLE_DEVICES=job_gpu)
    st = [e for e in events(out) if e["type"] == "alert" and e["rule"] == "job_stalled"]
    if stalls:  # GPU 1 is the job's and idle: stalled, whatever GPU 0 does
        assert len(st) == 1 and st[0]["gpus"] == [1] and st[0]["gpu_util_pct"] == 0, st
        assert "no output, GPU idle" in r.stderr
        assert [c["GPUWATCH_ALERT"] for c in calls] == ["job_stalled"]
    else:  # GPU 0 is the job's and busy: not stalled
        assert st == [] and "job_stalled (warning)" not in r.stderr and calls == []


@pytest.mark.parametrize("scope,served", [("job", [1]), ("node", [0, 1])])
def test_run_listen_serves_the_jobs_gpus(scenario, tmp_path, scope, served):
    import sys
    from serve_helpers import parse
    scrape = tmp_path / "scrape.txt"
    job = ("import os, sys, time, urllib.request\n"
           "url = os.environ['GPUWATCH_METRICS_URL']  # port 0: the one really bound\n"
           "for _ in range(200):\n"
           "    t = urllib.request.urlopen(url).read().decode()\n"
           "    if 'DCGM_FI_DEV_GPU_TEMP' in t: break\n"
           "    time.sleep(0.05)\n"
           "open(sys.argv[2], 'w').write(t)\n")
    devs = [gpu(0, [{"t": 0, "temp_c": 71}], [OTHER]), gpu(1, [{"t": 0, "temp_c": 62}])]
    run(scenario, tmp_path, devs, "--scope", scope, "--listen", "127.0.0.1:0",
        cmd=(sys.executable, "-c", job, "-", scrape),
        CUDA_VISIBLE_DEVICES=UUID1)
    p = parse(scrape.read_text())
    temps = sorted((int(lab["gpu"]), v) for lab, v in p["DCGM_FI_DEV_GPU_TEMP"])
    assert temps == [(i, (71, 62)[i]) for i in served]
    # nor any other series of the other GPU
    assert {lab["gpu"] for lab, _ in p.get("DCGM_FI_DEV_FB_USED", [])} == \
        {str(i) for i in served}


def test_other_jobs_lost_gpu_is_recorded_not_alerted(scenario, tmp_path):
    devs = [gpu(0, [{"t": 0}], [OTHER]), gpu(1, [{"t": 0}])]
    devs[0]["lost_after_s"] = 0.5
    out, r, calls = run(scenario, tmp_path, devs, "--scope", "job", cmd=("sleep", "2"),
                        CUDA_VISIBLE_DEVICES=UUID1)
    assert [e["gpu"] for e in events(out) if e["type"] == "gpu_lost"] == [0]
    assert fired(out) == [] and calls == []
    lost = [l for l in r.stderr.splitlines() if "GPU 0 was lost" in l]
    assert len(lost) == 1 and "not this job's GPU; its cells stay empty, the job's keep" in \
        r.stderr.replace("\n", " "), r.stderr

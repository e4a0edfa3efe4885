"""Why the GPU waits (issue 13): the cause of gpu_starved from the job's processes by role in
host.csv. Synthetic run directories pin each cause and its numbers; short real jobs on the fake
NVML (a worker burning a core while the main waits, the main burning with idle workers) prove
that `gpuwatch run` records the roles that decide it."""
import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import GW, PYTHON, gw, h200, read_csv

T0 = 1796007900
ROLE_KEYS = ["cpu", "cpu_max", "saturated", "processes", "running", "sleeping", "disk_wait"]
HOST_HEADER = ("timestamp, cpu.util [%], memory.used [MiB], job.cpu [%], job.rss [MiB], "
               "job.processes, cpu.iowait [%], cpu.steal [%], cpu.others [%], " +
               ", ".join(f"job.{role}.{k}" + (" [%]" if k in ("cpu", "cpu_max", "running",
                                                            "sleeping", "disk_wait") else "")
                         for role in ("train", "workers", "rest") for k in ROLE_KEYS))
GPU_HEADER = ("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
              "memory.total [MiB], temperature.gpu, power.draw [W], power.limit [W], "
              "clocks.current.sm [MHz], clocks_event_reasons.active, pstate, gpm.sm_active [%], "
              "gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%]")


def ts(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def role(cpu, cpu_max, saturated, n, running=0, sleeping=100, disk_wait=0):
    return [cpu, cpu_max, saturated, n, running, sleeping, disk_wait]


def run_dir(root, util, host_row, epochs=(), sm=None, power=None):
    """A run directory at 1 Hz: util[i] per second, host_row(i) -> dict of host values."""
    root.mkdir()
    (root / "meta.json").write_text(json.dumps({
        "host": "node-a", "devices": [{"index": 0, "name": "NVIDIA H200", "uuid": "GPU-0",
                                       "pci_bus_id": "00000000:00:06.0",
                                       "memory_total_mib": 143771, "power_limit_w": 700,
                                       "slowdown_temp_c": 89}]}))
    rows = [GPU_HEADER]
    for i, u in enumerate(util):
        s = 0.9 * u if sm is None else sm(u)
        gpm = f"{s:.1f}, 40.0, 3.0, 30.0" if s is not None else ", , , "
        p = 100 + 5 * u if power is None else power
        rows.append(f"{ts(T0 + i)}, 0, {u}, {u // 2}, 20000, 143771, 60, {p:.2f}, "
                    f"700.00, 1980, 0x0000000000000000, P0, {gpm}")
    (root / "gpu.csv").write_text("\n".join(rows) + "\n")
    hrows = [HOST_HEADER]
    for i in range(len(util)):
        h = host_row(i)
        cells = [h.get("cpu", 40.0), 30000, h.get("job_cpu", 150.0), 5000, h.get("procs", 4),
                 h.get("iowait", 0.5), h.get("steal", 0.0), h.get("others", 5.0)]
        for r in ("train", "workers", "rest"):
            cells += h[r]
        hrows.append(ts(T0 + i) + ", " + ", ".join(str(c) for c in cells))
    (root / "host.csv").write_text("\n".join(hrows) + "\n")
    ev = [{"timestamp": ts(T0), "type": "job_start"}]
    ev += [{"timestamp": ts(T0 + s), "type": "epoch", "epoch": k + 1, "total": len(epochs),
            "line": f"Epoch {k + 1}/{len(epochs)}"} for k, s in enumerate(epochs)]
    ev.append({"timestamp": ts(T0 + len(util)), "type": "job_exit", "code": 0, "status": 0})
    (root / "events.jsonl").write_text("\n".join(json.dumps(e) for e in ev) + "\n")
    return root


def starved(d):
    r = subprocess.run([GW, "report", str(d), "--json", "-"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    vs = [v for v in json.loads(r.stdout)["verdicts"] if v["id"] == "gpu_starved"]
    assert len(vs) == 1, r.stdout
    return vs[0]


def text_report(d):
    r = subprocess.run([GW, "report", str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


BURSTY = [0] * 5 + [90 if i % 2 == 0 else 0 for i in range(60)] + [90]  # 1 s on, 1 s off
IDLE_TRAIN = role(40, 40, 0, 1, running=10, sleeping=90)


def test_input_pipeline_from_a_saturated_worker(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": IDLE_TRAIN, "workers": role(110, 100, 1, 3, running=33, sleeping=67),
        "rest": role(0, 0, 0, 0)})
    v = starved(d)
    ev = v["evidence"]
    assert v["cause"] == "input_pipeline"
    assert ev["workers_saturated_share_pct"] == 100
    assert v["thresholds"]["workers_saturated_share_pct"]["value"] == 50
    assert ev["workers_cpu_max_mean_pct"] == 100 and ev["train_cpu_max_mean_pct"] == 40
    assert ev["dataloader_workers"] == 3
    assert "num_workers" in v["suggestion"] and "cv2.setNumThreads(0)" in v["suggestion"]
    assert "DALI" in v["suggestion"]
    assert "a DataLoader worker at >= 85% of a core 100% of the time" in v["message"]


def test_cpu_bound_from_a_saturated_training_process(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": role(100, 100, 1, 1, running=100, sleeping=0),
        "workers": role(80, 50 if i % 4 == 0 else 5, 0, 8), "rest": role(0, 0, 0, 0)})
    v = starved(d)
    ev = v["evidence"]
    assert v["cause"] == "cpu_bound"
    assert ev["train_saturated_share_pct"] == 100 and ev["workers_saturated_share_pct"] == 0
    assert ev["dataloader_workers"] == 8
    # the fix of the step itself, never "more workers"
    assert "CUDA graphs" in v["suggestion"] and "torch.compile" in v["suggestion"]
    assert "more DataLoader workers will not help" in v["suggestion"]
    assert "num_workers > 0" not in v["suggestion"]


def test_io_wait_from_workers_in_disk_wait(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": IDLE_TRAIN, "workers": role(20, 10, 0, 4, running=0, sleeping=25, disk_wait=75),
        "rest": role(0, 0, 0, 0), "iowait": 35.0})
    v = starved(d)
    ev = v["evidence"]
    assert v["cause"] == "io_wait"
    assert ev["disk_wait_pct"] == 75 and ev["iowait_pct"] == 35
    assert "local SSD" in v["suggestion"]


def test_host_contention_from_load_outside_the_job(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": IDLE_TRAIN, "workers": role(60, 30, 0, 2), "rest": role(0, 0, 0, 0),
        "cpu": 99.0, "others": 90.0})
    v = starved(d)
    ev = v["evidence"]
    assert v["cause"] == "host_contention"
    assert ev["host_cpu_pct"] == 99 and ev["cpu_others_pct"] == 90
    assert "outside this job" in v["suggestion"]


def epoch_util():
    # 5 s start-up, then 4 epochs of 20 s: idle 4 s at each start, then 60 % busy
    u = [0] * 5
    for _ in range(4):
        u += [0] * 4 + [60] * 16
    return u + [60]


def test_epoch_start_idle_at_each_epoch(tmp_path):
    def host(i):
        warm = i >= 5 and (i - 5) % 20 < 4
        return {"train": IDLE_TRAIN, "workers": role(700 if warm else 30, 90 if warm else 5,
                                                     8 if warm else 0, 8),
                "rest": role(0, 0, 0, 0)}
    d = run_dir(tmp_path / "r", epoch_util(), host, epochs=(5, 25, 45, 65))
    v = starved(d)
    ev = v["evidence"]
    assert v["cause"] == "epoch_start", ev
    assert ev["epochs"] >= 3 and ev["epochs_stalled"] == ev["epochs"]
    assert ev["epoch_start_idle_share_pct"] > 90
    assert "persistent_workers=True" in v["suggestion"]


def test_no_signature_is_a_weak_attribution_never_unknown(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": role(30, 30, 0, 1), "workers": role(120, 60, 0, 4), "rest": role(0, 0, 0, 0)})
    v = starved(d)
    assert v["cause"] == "input_pipeline"
    assert v["evidence"]["strength"] == "weak"
    assert "weak: no process saturated" in v["message"]
    assert "`gpuwatch run`" not in v["suggestion"]  # it was recorded with it


def test_old_host_csv_says_what_is_missing(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": role("", "", "", ""), "workers": role("", "", "", ""),
        "rest": role("", "", "", "")})
    v = starved(d)
    assert v["cause"] == "unknown"
    assert v["evidence"]["missing"] == "process roles in host.csv"
    assert "`gpuwatch run`" in v["suggestion"]


def test_speedup_max_and_consistent_text(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": IDLE_TRAIN, "workers": role(110, 100, 1, 3), "rest": role(0, 0, 0, 0)})
    v = starved(d)
    ev = v["evidence"]
    # work time / busy time = 100 / mean util
    assert ev["speedup_max"] == pytest.approx(100 / ev["busy_pct"], rel=1e-3)
    assert 2.0 < ev["speedup_max"] < 2.4
    assert f"up to {ev['speedup_max']:.1f}x faster" in v["message"]
    # rhythm as the evidence shows it: many 1 s bursts are "short bursts", never "long stretches"
    assert ev["bursts"] > 10 and f"{ev['bursts']} short bursts" in v["message"]
    assert "long stretches" not in v["suggestion"]
    assert "long stretches" not in v["message"]
    assert "cause: input_pipeline" in text_report(d)


def test_no_idle_no_idle_claim(tmp_path):
    # busy 30 % without an idle sample: the message says idle 0 % and claims no bursts
    d = run_dir(tmp_path / "r", [30] * 40, lambda i: {
        "train": IDLE_TRAIN, "workers": role(110, 100, 1, 3), "rest": role(0, 0, 0, 0)})
    v = starved(d)
    assert v["evidence"]["idle_share_pct"] == 0
    # steady 30 % with no quiet stretch is launch-bound (issue 14): said without an idle claim
    assert "idle 0%" in v["message"] or "no quiet stretch" in v["message"]
    assert "burst" not in v["message"] and "idle up to" not in v["message"]
    assert "up to 3.3x faster" in v["message"]


def test_small_kernels_said_with_gpm(tmp_path):
    d = run_dir(tmp_path / "r", BURSTY, lambda i: {
        "train": IDLE_TRAIN, "workers": role(110, 100, 1, 3), "rest": role(0, 0, 0, 0)},
        sm=lambda u: 0.3 * u)
    v = starved(d)
    ev = v["evidence"]
    assert ev["while_busy_source"] == "gpm"
    assert ev["while_busy_sm_active_p50_pct"] == 27 and ev["while_busy_util_p50_pct"] == 90
    assert ev["while_busy_tensor_active_p50_pct"] == 3
    assert "only 27% of the SMs work at GPU-Util 90%" in v["message"]


# Real jobs on the fake NVML: the wrapped python process holds the (fake) GPU context.
JOB = r"""
import multiprocessing as mp, sys, time
def burn(t):
    end = time.time() + t
    while time.time() < end:
        pass
if __name__ == "__main__":
    mode, t = sys.argv[1], float(sys.argv[2])
    ctx = mp.get_context("fork")
    target = burn if mode == "worker" else time.sleep
    ws = [ctx.Process(target=target, args=(t,)) for _ in range(1 if mode == "worker" else 2)]
    for w in ws:
        w.start()
    if mode == "main":
        burn(t)
    for w in ws:
        w.join()
"""


def flat30():
    point = {"t": 0, "util_gpu": 30, "util_mem": 0, "mem_used_mib": 20000, "temp_c": 40,
             "power_w": 200, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0,
             "sm_active": 28, "sm_occupancy": 10, "tensor_active": 1, "dram_active": 0}
    return h200(timeline=[point],
                processes=[{"pid": "child", "name": "python3", "used_mib": 19000, "from_s": 0}])


def real_job(scenario, tmp_path, mode):
    sc = scenario({"devices": [flat30()]})
    script = tmp_path / "job.py"
    script.write_text(JOB)
    out = tmp_path / "run"
    # 11 s: the steady state must reach min_steady_s (10 s) to be judged
    r = gw(["run", "-i", "0.5", "-o", out, "--", PYTHON, script, mode, "11"], sc, timeout=60)
    assert r.returncode == 0, r.stderr
    _, rows = read_csv(out / "host.csv")
    rows = [x for x in rows if x["job.train.cpu_max [%]"]]
    # the ticks while the workers live: a loaded machine can take over a second to start them
    live = [i for i, x in enumerate(rows) if x["job.workers.processes"] not in ("", "0")]
    rows = rows[live[0]:live[-1] + 1] if live else []
    assert len(rows) >= 10
    v = json.loads((out / "summary.json").read_text())["verdicts"]
    return rows, next(x for x in v if x["id"] == "gpu_starved")


def mean(rows, key):
    return sum(float(x[key]) for x in rows) / len(rows)


def cause_or_contention(v, cause, role):
    """The cause the job's roles prove; a loaded test machine can slow the burning process below
    a saturated core, and then the load outside the job is the cause, with numbers to say so."""
    ev = v["evidence"]
    if v["cause"] == "host_contention":
        assert ev["host_cpu_mean_pct"] > 90 and ev["cpu_others_mean_pct"] > 50, ev
        assert ev[f"{role}_saturated_share_pct"] <= 50, ev
    else:
        assert v["cause"] == cause, v


def test_real_worker_burning_while_the_main_waits(scenario, tmp_path):
    rows, v = real_job(scenario, tmp_path, "worker")
    assert {x["job.train.processes"] for x in rows} == {"1"}
    assert {x["job.workers.processes"] for x in rows} == {"1"}
    # the worker does the work, the training process sleeps in join()
    assert mean(rows, "job.workers.cpu_max [%]") > 3 * mean(rows, "job.train.cpu_max [%]")
    assert mean(rows, "job.train.sleeping [%]") > 80
    cause_or_contention(v, "input_pipeline", "workers")


def test_real_main_burning_with_idle_workers(scenario, tmp_path):
    rows, v = real_job(scenario, tmp_path, "main")
    assert {x["job.workers.processes"] for x in rows} == {"2"}
    assert mean(rows, "job.train.cpu_max [%]") > 3 * mean(rows, "job.workers.cpu_max [%]")
    assert mean(rows, "job.workers.sleeping [%]") > 80
    cause_or_contention(v, "cpu_bound", "train")


def verdicts_of(d):
    r = subprocess.run([GW, "report", str(d), "--json", "-"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return {v["id"]: v for v in json.loads(r.stdout)["verdicts"]}


def test_underfilled_says_which_evidence_it_used(tmp_path):
    busy = [0] * 3 + [95] * 40
    idle_host = lambda i: {"train": IDLE_TRAIN, "workers": role(0, 0, 0, 0),
                           "rest": role(0, 0, 0, 0)}
    gpm = verdicts_of(run_dir(tmp_path / "gpm", busy, idle_host, sm=lambda u: 0.1 * u))
    ev = gpm["underfilled_kernels"]["evidence"]
    assert ev["evidence_source"] == "gpm" and ev["tensor_active_p50_pct"] == 3
    assert "occupancy 40%, tensor activity 3.0%" in gpm["underfilled_kernels"]["message"]
    # without GPM: power against the limit, said to be the weaker evidence
    pw = verdicts_of(run_dir(tmp_path / "pw", busy, idle_host, sm=lambda u: None, power=150))
    ev = pw["underfilled_kernels"]["evidence"]
    assert ev["evidence_source"].startswith("power") and "weaker" in ev["evidence_source"]
    assert ev["power_ratio"] == pytest.approx(150 / 700, rel=1e-3)
    assert "power, no GPM" in pw["underfilled_kernels"]["message"]

"""gpuwatch report end to end: the real traces of tests/data/traces reach the verdicts their README
gives, the public nvidia-smi fixtures are read, run directories use host.csv evidence, and exit
codes follow spec.md."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import GPU_HEADER, rfc3339

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
DATA = Path(__file__).resolve().parents[1] / "data"
TRACES = DATA / "traces"
FIXTURES = DATA / "fixtures" / "public"
# nvidia-smi wrote the traces in local time on a UTC machine; their GPM and log files use unix time.
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")


def run(*args, check_rc=0):
    p = subprocess.run([BIN, "report", *map(str, args)], capture_output=True, text=True, env=ENV)
    if check_rc is not None:
        assert p.returncode == check_rc, f"rc {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def summary(*args):
    return json.loads(run(*args, "--json", "-").stdout)


def trace(name, gpm=True, log=True):
    args = [TRACES / f"{name}.nvsmi.csv"]
    if gpm:
        args.append(TRACES / f"{name}.gpm.csv")
    if log:
        args += ["--log", TRACES / f"{name}.train.log"]
    return args


def ids(s):
    return [v["id"] for v in s["verdicts"]]


def verdict(s, vid):
    found = [v for v in s["verdicts"] if v["id"] == vid]
    assert found, f"no {vid} in {ids(s)}"
    return found[0]


def test_compute_bound_is_saturated():
    s = summary(*trace("compute_bound"))
    assert ids(s) == ["gpu_saturated"]
    v = verdict(s, "gpu_saturated")
    assert v["severity"] == "info" and v["gpu"] == 0
    assert v["evidence"]["busy_pct"] > 95
    assert v["thresholds"]["busy_pct"] == {"op": ">=", "value": 80, "name": "busy_util_pct"}
    assert 85 < v["evidence"]["sm_active_p50_pct"] < 95  # GPM merged from the .gpm.csv
    gpu = s["gpus"][0]
    assert gpu["name"] == "NVIDIA H200" and gpu["pci_bus_id"] == "00000000:00:06.0"
    assert gpu["memory_total_mib"] == 143771 and gpu["power_limit_w"] == 700
    assert gpu["stats"]["utilization.gpu [%]"]["p50"] == 100
    assert gpu["stats"]["memory.used [MiB]"]["max"] == 13391
    assert 9 < gpu["energy_wh"] < 12  # ~600 W for a minute plus idle
    steady = [p for p in s["phases"] if p["phase"] == "steady"][0]
    assert 55 < steady["duration_s"] < 65
    assert 470 < steady["stats"]["power.draw [W]"]["p50"] < 690  # README: ~480-690 W of 700 W
    assert s["epoch_source"] == "log" and len(s["epochs"]) == 1


def test_compute_bound_without_gpm_or_log_is_still_saturated():
    s = summary(*trace("compute_bound", gpm=False, log=False))
    assert ids(s) == ["gpu_saturated"]
    assert verdict(s, "gpu_saturated")["evidence"]["sm_active_p50_pct"] is None


def test_dataloader_bound_is_starved():
    s = summary(*trace("dataloader_bound"))
    v = verdict(s, "gpu_starved")
    assert v["severity"] == "critical"
    assert v["evidence"]["busy_pct"] < 10
    assert v["evidence"]["idle_share_pct"] > 80
    assert v["cause"] == "unknown"  # nvidia-smi alone has no CPU-side evidence
    assert v["evidence"]["missing"] == "host.csv (the job's CPU side)"
    assert "`gpuwatch run`" in v["suggestion"]
    assert v["evidence"]["speedup_max"] == pytest.approx(100 / v["evidence"]["busy_pct"], rel=1e-3)
    assert "gpu_saturated" not in ids(s)


def test_epochs_with_validation_has_expected_dips_not_starvation():
    s = summary(*trace("epochs_with_validation"))
    assert "gpu_saturated" in ids(s) and "expected_dips" in ids(s)
    assert "gpu_starved" not in ids(s)
    dips = verdict(s, "expected_dips")
    assert dips["severity"] == "info" and dips["evidence"]["aligned_with"] == "epoch boundaries"
    assert 3 <= dips["evidence"]["dips"] <= 4
    assert 3 < dips["evidence"]["dip_mean_s"] < 6  # README: 4 s validation + checkpoint
    assert s["epoch_source"] == "log"
    assert [e["epoch"] for e in s["epochs"]] == [1, 2, 3, 4]
    assert all(e["total"] == 4 and 17 < e["duration_s"] < 20 for e in s["epochs"])
    assert all(e["gpus"][0]["energy_wh"] > 1 for e in s["epochs"])


def test_regular_dips_without_the_log_are_not_called_validation():
    """Without the log nothing places validation at the dips: regular alone is what a periodic
    input stall looks like too, so no expected_dips and no epochs made up from the dips."""
    s = summary(*trace("epochs_with_validation", gpm=False, log=False))
    assert "expected_dips" not in ids(s) and "gpu_starved" in ids(s)
    assert s["epoch_source"] == "none" and s["epochs"] == []


def test_memory_leak_slope_and_time_to_oom():
    s = summary(*trace("memory_leak"))
    v = verdict(s, "memory_leak")
    ev = v["evidence"]
    assert 0.8 * 1024 < ev["slope_mib_per_s"] < 1.6 * 1024  # README: ~1 GiB/s
    assert ev["r2"] > 0.99
    assert 20 < ev["time_to_oom_s"] < 120  # 60 GiB left at ~1.3 GiB/s
    assert v["severity"] == "critical"
    assert ev["memory_end_mib"] > 80000  # README: to ~83 GB
    assert "gpu_saturated" not in ids(s)


def test_text_report_lists_verdicts_first():
    out = run(*trace("memory_leak")).stdout
    assert out.index("Verdicts") < out.index("GPU 0: NVIDIA H200")
    assert "critical  memory_leak" in out
    assert "\033[" not in out  # no colour when stdout is not a terminal


def test_public_fixtures_are_read():
    s = summary(FIXTURES / "netdata-tesla-p100.csv")
    gpu = s["gpus"][0]
    assert gpu["name"] == "Tesla P100-PCIE-16GB"
    assert gpu["uuid"] == "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6"
    assert gpu["stats"]["memory.free [MiB]"]["max"] == 16280
    assert gpu["stats"]["power.draw [W]"]["mean"] == 28.16
    assert "fan.speed [%]" not in gpu["stats"]  # [N/A]: absent, not 0
    assert s["inputs"][0]["untimed"] is True

    s = summary(FIXTURES / "nvidia-gpu-exporter-query.csv")
    assert [g["name"] for g in s["gpus"]] == ["NVIDIA GeForce RTX 2080 SUPER", "Some Other GPU"]
    assert [g["index"] for g in s["gpus"]] == [0, 1]
    assert [g["stats"]["memory.used [MiB]"]["max"] for g in s["gpus"]] == [575, 1234]
    assert [g["stats"]["fan.speed [%]"]["max"] for g in s["gpus"]] == [38, 50]


def make_run_dir(root, util, procs=3, job_cpu=190.0, epochs=True, host="node-a"):
    """A run directory as `gpuwatch run` writes it: 1 Hz rows, util[i] per second."""
    root.mkdir()
    t0 = 1796007900
    (root / "meta.json").write_text(json.dumps({
        "host": host, "devices": [{"index": 0, "name": "NVIDIA H200", "uuid": "GPU-0",
                                   "pci_bus_id": "00000000:00:06.0", "memory_total_mib": 143771,
                                   "power_limit_w": 700, "slowdown_temp_c": 89}]}))
    rows = [GPU_HEADER]
    for i, u in enumerate(util):
        rows.append(f"{rfc3339(t0 + i)}, 0, {u}, {u // 2}, 20000, 143771, 60, {100 + 5 * u:.2f}, "
                    f"700.00, 1980, 0x0000000000000000, P0, {0.9 * u:.1f}, 40.0, , 30.0")
    (root / "gpu.csv").write_text("\n".join(rows) + "\n")
    host_rows = ["timestamp, cpu.util [%], memory.used [MiB], job.cpu [%], job.rss [MiB], "
                 "job.processes"]
    host_rows += [f"{rfc3339(t0 + i)}, 40.0, 30000, {job_cpu}, 5000, {procs}"
                  for i in range(len(util))]
    (root / "host.csv").write_text("\n".join(host_rows) + "\n")
    (root / "processes.csv").write_text(
        "timestamp, index, pid, process_name, used_memory [MiB], in_job\n"
        f"{rfc3339(t0 + 5)}, 0, 4242, python3, 19000, 1\n")
    events = [{"timestamp": rfc3339(t0), "type": "job_start"}]
    if epochs:
        events += [{"timestamp": rfc3339(t0 + 10 + 40 * k), "type": "epoch", "epoch": k + 1,
                    "total": 3, "line": f"Epoch {k + 1}/3"} for k in range(3)]
    events.append({"timestamp": rfc3339(t0 + len(util)), "type": "job_exit", "exit_status": 0})
    (root / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return root


def starved_util(n=130):
    # 10 s start-up, then a short burst every 4 s: an input-bound job.
    return [0] * 10 + [90 if (i % 4 == 0) else 0 for i in range(n - 11)] + [90]


def test_run_dir_uses_host_csv_for_the_cause(tmp_path):
    d = make_run_dir(tmp_path / "run", starved_util())
    s = summary(d)
    v = verdict(s, "gpu_starved")
    assert v["cause"] == "input_pipeline"
    assert v["evidence"]["dataloader_workers"] == 2
    assert v["evidence"]["job_cpu_per_worker_pct"] == 95
    assert v["thresholds"]["job_cpu_per_worker_pct"]["value"] == 60
    assert "pin_memory=True" in v["suggestion"] and "persistent_workers=True" in v["suggestion"]
    assert s["gpus"][0]["source"] == "node-a" and s["gpus"][0]["slowdown_temp_c"] == 89
    assert s["epoch_source"] == "events" and [e["epoch"] for e in s["epochs"]] == [1, 2, 3]
    assert s["epochs"][-1]["end"] == rfc3339(1796007900 + 130)  # the last epoch ends at job_exit


def test_run_dir_single_busy_process_is_cpu_bound(tmp_path):
    d = make_run_dir(tmp_path / "run", starved_util(), procs=1, job_cpu=99.0)
    assert verdict(summary(d), "gpu_starved")["cause"] == "cpu_bound"


def test_two_nodes_make_one_report_with_imbalance(tmp_path):
    fast = make_run_dir(tmp_path / "a", [0] * 10 + [98] * 120, host="node-a")
    slow = make_run_dir(tmp_path / "b", [0] * 10 + [55, 65] * 60, host="node-b")
    s = summary(fast, slow)
    assert [g["source"] for g in s["gpus"]] == ["node-a", "node-b"]
    v = verdict(s, "multi_gpu_imbalance")
    assert v["source"] == "node-b" and v["gpu"] == 0
    assert 35 < v["evidence"]["gap_pct"] < 40
    out = run(fast, slow).stdout
    assert "node-b GPU 0" in out


def test_json_file_and_fail_on(tmp_path):
    out = tmp_path / "summary.json"
    p = run(*trace("dataloader_bound"), "--json", out, "--fail-on", "warning", check_rc=1)
    assert "Verdicts" in p.stdout and "--fail-on" in p.stderr
    assert json.loads(out.read_text())["verdicts"][0]["id"] == "gpu_starved"
    run(*trace("compute_bound"), "--fail-on", "critical", check_rc=0)
    run(*trace("compute_bound"), "--fail-on", "warning", check_rc=0)  # info only


def test_usage_errors_exit_2():
    assert "no input" in run(check_rc=2).stderr
    assert "--fail-on" in run(TRACES / "compute_bound.nvsmi.csv", "--fail-on", "info",
                               check_rc=2).stderr
    assert "unknown option" in run("--bogus", TRACES / "compute_bound.nvsmi.csv",
                                   check_rc=2).stderr
    assert "epoch regex" in run(*trace("compute_bound"), "--epoch-regex", "Epoch ([0-9]+",
                                check_rc=2).stderr
    p = subprocess.run([BIN, "report", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "--fail-on" in p.stdout


def test_unreadable_inputs_exit_1_naming_the_file(tmp_path):
    assert "no-such.csv" in run(tmp_path / "no-such.csv", check_rc=1).stderr
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert str(empty) in run(empty, check_rc=1).stderr
    headless = tmp_path / "headless.csv"
    headless.write_text("38, 12 %, 25.40 W\n")
    assert "--columns" in run(headless, check_rc=1).stderr


def test_bad_rows_are_skipped_and_counted(tmp_path):
    f = tmp_path / "log.csv"
    lines = ["timestamp, index, utilization.gpu [%], memory.used [MiB]"]
    lines += [f"{1796007900 + i}, 0, 95, 1000" for i in range(30)]
    lines.insert(5, "garbage row")
    lines.insert(9, f"{1796007950}, 0, 95")  # truncated
    f.write_text("\n".join(lines) + "\n")
    p = run(f, "--json", "-")
    s = json.loads(p.stdout)
    assert s["inputs"][0]["rows"] == 30
    assert s["inputs"][0]["rows_skipped"] == 2 and s["inputs"][0]["first_bad_line"] == 6
    assert "line 6" in p.stderr


def test_noheader_with_columns_and_custom_epoch_regex(tmp_path):
    f = tmp_path / "noheader.csv"
    f.write_text("".join(f"{1796007900 + i}, 0, {95 if i >= 5 else 0} %, 1000 MiB\n"
                         for i in range(60)))
    log = tmp_path / "train.log"
    log.write_text("".join(f"{1796007905 + 15 * k} round {k + 1} of 3\n" for k in range(3)))
    s = summary(f, "--columns", "timestamp,index,utilization.gpu,memory.used", "--log", log,
                "--epoch-regex", r"round (\d+) of (\d+)")
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["max"] == 95
    assert [(e["epoch"], e["total"]) for e in s["epochs"]] == [(1, 3), (2, 3), (3, 3)]

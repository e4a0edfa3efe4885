"""One statistics engine (src/stats): the end-of-run table shows the figures summary.json holds,
and the energy of the phases adds up to the whole, on a fake step scenario and on every real
recording under examples/recordings."""
import datetime
import json
import re
import subprocess

import pytest

from conftest import GW, SOURCE, gw, h200

REC = SOURCE / "examples" / "recordings"
IDLE = {"util_gpu": 0, "util_mem": 0, "mem_used_mib": 600, "temp_c": 38, "power_w": 76,
        "sm_clock_mhz": 345, "clocks_event_reasons": 1, "pstate": 0, "sm_active": 0,
        "sm_occupancy": 0, "tensor_active": 0, "dram_active": 0}
BUSY = {"util_gpu": 98, "util_mem": 40, "mem_used_mib": 20000, "temp_c": 70, "power_w": 650,
        "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0, "sm_active": 90,
        "sm_occupancy": 40, "tensor_active": 60, "dram_active": 30}


def step_scenario():
    """Idle, 1.5 s busy, idle (the issue's step, shortened)."""
    tl = [dict(IDLE, t=0), dict(IDLE, t=0.99), dict(BUSY, t=1.0), dict(BUSY, t=2.49),
          dict(IDLE, t=2.5)]
    return {"devices": [h200(timeline=tl)]}


def table_row(stderr, index):
    """The end-of-run table's cells for one GPU, by column name."""
    head = next(l for l in stderr.splitlines() if "util mean" in l)
    row = next(l for l in stderr.splitlines() if re.match(rf"\s*{index} ", l))
    assert len(head) <= 80 and len(row) <= 80
    cells = re.findall(r"(-|[\d.]+(?: (?:%|MiB|C|W|Wh))?)", row[4:])
    names = ["util_mean", "util_p95", "sm_mean", "mem_peak", "mem_pct", "temp_max",
             "power_mean", "power_max", "pct_limit", "energy"]
    assert len(cells) == len(names), row
    return {n: float("nan") if c == "-" else float(c.split()[0]) for n, c in zip(names, cells)}


def test_end_of_run_table_equals_summary_json(scenario, tmp_path):
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sleep", "3.5"], scenario(step_scenario()))
    assert r.returncode == 0, r.stderr
    t = table_row(r.stderr, 0)
    s = json.loads((out / "summary.json").read_text())
    g = s["gpus"][0]
    st = g["stats"]
    want = {
        "util_mean": round(st["utilization.gpu [%]"]["mean"]),
        "util_p95": round(st["utilization.gpu [%]"]["p95"]),
        "sm_mean": round(st["gpm.sm_active [%]"]["mean"], 1),
        "mem_peak": round(st["memory.used [MiB]"]["max"]),
        "temp_max": round(st["temperature.gpu"]["max"]),
        "power_mean": round(st["power.draw [W]"]["mean"]),
        "power_max": round(st["power.draw [W]"]["max"]),
        "energy": round(g["energy_wh"], 2),
        "mem_pct": round(st["memory.used [MiB]"]["max"] / g["memory_total_mib"] * 100),
        "pct_limit": round(st["power.draw [W]"]["max"] / g["power_limit_w"] * 100),
    }
    got = {k: t[k] for k in want}
    assert got == want, (r.stderr, g)
    # the step is in the figures: busy part of the time, idle the rest
    assert 20 < t["util_mean"] < 70 and t["util_p95"] == 98 and t["power_max"] == 650
    assert t["energy"] > 0
    # the report's phases add up to the whole
    phases = [p["energy_wh"] for p in s["phases"] if p["energy_wh"] is not None]
    assert sum(phases) == pytest.approx(g["energy_wh"], rel=1e-3)


def test_no_report_still_shows_figures(scenario, tmp_path):
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--no-report", "--", "sleep", "0.5"],
           scenario({"devices": [h200()]}))
    assert r.returncode == 0, r.stderr
    t = table_row(r.stderr, 0)
    assert t["power_max"] >= 76 and t["energy"] >= 0 and t["mem_peak"] >= 600
    assert not (out / "summary.json").exists() and not (out / "report.html").exists()


def test_table_without_gpu_keeps_the_job_line(scenario, tmp_path):
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sleep", "0.5"], scenario({"devices": []}))
    assert r.returncode == 0, r.stderr
    assert "only the CPU side was recorded" in r.stderr
    job = re.search(r"job: peak RSS (\d+) MiB, mean CPU (\d+) %.*up to (\d+) process", r.stderr)
    assert job and int(job.group(1)) > 0 and int(job.group(3)) >= 1, r.stderr


def gpu_csv(path, times_s):
    """A gpu.csv at 360 W (0.1 Wh a second) with rows at the given seconds."""
    t0 = datetime.datetime(2026, 11, 30, 3, 20, tzinfo=datetime.timezone.utc)
    lines = ["timestamp, index, utilization.gpu [%], power.draw [W]"]
    for t in times_s:
        ts = (t0 + datetime.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(f"{ts}, 0, 100, 360.00")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_unbridged_gap_makes_energy_partial(tmp_path):
    # 60 rows 1 s apart with a 10 s pause after row 29: not bridged, so 58 gaps of 1 s and the
    # last row's second count (5.9 Wh), and the figure says it is partial
    csv = gpu_csv(tmp_path / "gpu.csv", [i + (9 if i >= 30 else 0) for i in range(60)])
    g = report(csv)["gpus"][0]
    assert g["energy_partial"] is True
    assert g["energy_wh"] == pytest.approx(5.9, rel=1e-6)
    r = subprocess.run([GW, "report", str(csv)], capture_output=True, text=True, timeout=60)
    assert "energy is partial: gaps of more than 5 intervals were not bridged" in r.stdout
    # a 5 s pause is bridged: all 64 s count
    gpu_csv(csv, [i + (4 if i >= 30 else 0) for i in range(60)])
    g = report(csv)["gpus"][0]
    assert g["energy_partial"] is False and g["energy_wh"] == pytest.approx(6.4, rel=1e-6)
    r = subprocess.run([GW, "report", str(csv)], capture_output=True, text=True, timeout=60)
    assert "partial" not in r.stdout


def test_a_lost_gpu_s_partial_energy_says_why(tmp_path):
    # nvidia-smi's rows after the GPU fell off the bus read [GPU is lost]: its energy is partial
    # because it was lost, not because of gaps in the recording
    csv = gpu_csv(tmp_path / "gpu.csv", range(60))
    lines = csv.read_text().splitlines()
    lines[41:] = [l.rsplit(", ", 2)[0] + ", [GPU is lost], [GPU is lost]" for l in lines[41:]]
    csv.write_text("\n".join(lines) + "\n")
    r = subprocess.run([GW, "report", str(csv)], capture_output=True, text=True, timeout=60)
    assert "gpu_lost" in r.stdout, r.stdout
    assert "  energy is partial: the GPU was lost (see its verdict)\n" in r.stdout, r.stdout
    assert "gaps of more than 5" not in r.stdout
    g = report(csv)["gpus"][0]
    # 40 rows with power, 1 s apart, at 360 W: the 39 seconds between them, and the last value
    # held over the absent cells after it for five intervals (docs/report.md), as anywhere else
    assert g["energy_partial"] is True and g["energy_wh"] == pytest.approx(4.4, rel=1e-6)


def report(path):
    r = subprocess.run([GW, "report", str(path), "--json", "-"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# every run directory (a folder with a gpu.csv) and every nvidia-smi log under examples/recordings
RECORDINGS = sorted(p for p in REC.rglob("*")
                    if (p.is_dir() and (p / "gpu.csv").exists()) or p.name.endswith(".nvsmi.csv"))


def test_every_recording_is_listed():
    names = {p.name for p in RECORDINGS}
    assert {"compute_bound", "h200-resnet50-train", "h200-underfilled",
            "h200-resnet50-train.nvsmi.csv"} <= names
    assert len(RECORDINGS) >= 12


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: str(p.relative_to(REC)))
def test_phase_energy_adds_up_to_the_whole(path):
    s = report(path)
    for g in s["gpus"]:
        whole = g["energy_wh"]
        assert whole is not None and whole > 0, g
        parts = [p["energy_wh"] for p in s["phases"] if p["gpu"] == g["index"]
                 and p["energy_wh"] is not None]
        assert len(parts) >= 2
        assert sum(parts) == pytest.approx(whole, rel=0.005), (path, g["index"], parts, whole)
        assert all(0 <= p <= whole * 1.000001 for p in parts)  # a phase never exceeds the whole

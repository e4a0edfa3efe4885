"""gpu.csv's gpm.* cells describe the interval that ends at their row, like utilization.gpu: on a
step from idle to busy and back, SM activity changes in the same row as GPU-Util (+-1), and no
row 0.7 s or more past an edge shows the old SM activity. Against the fake NVML (a step
scenario) and on the real H200 recording of bench/h200/gpm_align.sh (examples/recordings/)."""
from conftest import SOURCE, gw, read_csv, rfc3339_to_s

import json

H200_STEP = SOURCE / "examples" / "recordings" / "h200-gpm-step"

IDLE = {"util_gpu": 0, "util_mem": 0, "mem_used_mib": 600, "temp_c": 38, "power_w": 76,
        "sm_clock_mhz": 345, "clocks_event_reasons": 1, "pstate": 0, "sm_active": 0.3,
        "sm_occupancy": 0.1, "tensor_active": 0, "dram_active": 0.2}
BUSY = {"util_gpu": 100, "util_mem": 40, "mem_used_mib": 20600, "temp_c": 70, "power_w": 600,
        "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0, "sm_active": 84.7,
        "sm_occupancy": 40, "tensor_active": 60, "dram_active": 30}
RISE, FALL = 2.0, 4.5  # scenario seconds


def num(cell):
    return float(cell) if cell != "" else None


def crossing(rows, t, after, rising):
    """Index of the first row at or after time `after` whose cell crosses 50 % in the edge's
    direction."""
    for i, r in enumerate(rows):
        v = num(r)
        if t[i] >= after and v is not None and ((v >= 50) if rising else (v < 50)):
            return i
    return None


def check_edges(rows, t, rise, fall, sm_busy, sm_idle):
    """rows: gpu.csv rows of one GPU; t: their times on the edges' clock."""
    util = [r["utilization.gpu [%]"] for r in rows]
    sm = [r["gpm.sm_active [%]"] for r in rows]
    for edge, rising in ((rise, True), (fall, False)):
        u = crossing(util, t, edge - 0.5, rising)
        s = crossing(sm, t, edge - 0.5, rising)
        assert u is not None and s is not None, (edge, u, s)
        assert abs(s - u) <= 1, (edge, u, s, util[u - 2:u + 3], sm[u - 2:u + 3])
    late = [(t[i], sm[i]) for i in range(len(rows))
            if rise + 0.7 <= t[i] <= fall - 0.3 and not num(sm[i]) >= sm_busy]
    late += [(t[i], sm[i]) for i in range(len(rows))
             if fall + 0.7 <= t[i] and not num(sm[i]) <= sm_idle]
    assert not late, late


def test_fake_step_sm_activity_follows_util(scenario, tmp_path):
    tl = [dict(t=0, **IDLE), dict(t=RISE, **IDLE), dict(t=RISE, **BUSY), dict(t=FALL, **BUSY),
          dict(t=FALL, **IDLE)]
    sc = scenario({"devices": [{"name": "NVIDIA H200", "timeline": tl}]})
    out = tmp_path / "rec"
    r = gw(["record", "-o", out, "-i", "0.2", "--duration", "6.5", "--no-report"], sc)
    assert r.returncode == 0, r.stderr
    start = rfc3339_to_s(json.loads((out / "meta.json").read_text())["start_time"])
    _, rows = read_csv(out / "gpu.csv")
    assert len(rows) >= 25, len(rows)
    # A row's scenario time is its time since the start plus 0 to 0.15 s (nvmlInit comes
    # shortly before the start time): both bounds must agree for a row to be judged.
    t = [rfc3339_to_s(r["timestamp"]) - start for r in rows]
    check_edges(rows, t, RISE, FALL - 0.15, 84.7, 0.3)
    # rows well inside each part hold exactly the scenario's value: the window ended at the row
    assert {r["gpm.sm_active [%]"] for r, x in zip(rows, t) if RISE + 0.7 <= x <= FALL - 0.5} \
        == {"84.70"}
    assert {r["gpm.sm_active [%]"] for r, x in zip(rows, t) if 0.5 <= x <= RISE - 0.5} \
        == {"0.30"}
    assert {r["gpm.sm_active [%]"] for r, x in zip(rows, t) if x >= FALL + 0.7} == {"0.30"}


def test_h200_step_recording_is_aligned():
    """A real bf16 matmul burst (bench/h200/step_job.py: idle 3 s, busy 5 s, idle 3 s), recorded
    on an H200 with `gpuwatch run -i 0.2`; the job printed the burst's edges."""
    log = (H200_STEP / "output.log").read_text().split()
    rise = float(log[log.index("burst_start") + 1])
    fall = float(log[log.index("burst_end") + 1])
    assert 4.9 <= fall - rise <= 5.5
    _, rows = read_csv(H200_STEP / "gpu.csv")
    rows = [r for r in rows if r["index"] == "0"]
    t = [rfc3339_to_s(r["timestamp"]) for r in rows]
    # busy: SM activity ~96 %; idle: 0 %
    check_edges(rows, t, rise, fall, 90, 1)

"""gpuwatch report on logs whose numbers cannot be believed as they stand (issue 15, items 6-10):
impossible values are dropped and counted per column with the sampler's bounds, verdicts need
enough samples, time going back is said and not counted, a missing column is not a zero, names
are made safe at the door, and no sentence contradicts its own numbers. Every input is written
here, small, by hand."""
import json
import os
import subprocess

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")


def report(*args, timeout=60):
    return subprocess.run([BIN, "report", *map(str, args)], capture_output=True, env=ENV,
                          timeout=timeout)


def ts(i, hour=14):
    """nvidia-smi's own timestamp form, i seconds after HH:00:00 (i may be negative)."""
    s = hour * 3600 + i
    return f"2026/11/05 {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.000"


def write(path, header, rows):
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def run_json(path, *extra):
    p = report(path, "--json", "-", *extra)
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(p.stdout)


def text(path, *extra):
    p = report(path, *extra)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode()


def ids(summary):
    return sorted(v["id"] for v in summary["verdicts"])


# ---- item 6: impossible numbers ---------------------------------------------------------------

IMPOSSIBLE_HEADER = ("timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
                     "temperature.gpu, power.draw [W], total_energy_consumption [mJ]")


def impossible_rows():
    rows = []
    for i in range(120):
        u, mem, temp, pw, mj = "90", "20000", "65", "300.00", str(1000000 + i * 300000)
        u = {10: "4294967295", 20: "808334905"}.get(i, u)
        mj = {30: "9223372036854775794", 40: "1.407e14"}.get(i, mj)
        temp = {50: "-273", 60: "65535"}.get(i, temp)
        pw = "-5.00" if i in (70, 71, 72) else pw
        mem = "90000" if i == 80 else mem
        rows.append(f"{ts(i)}, 0, {u}, {mem}, 81559, {temp}, {pw}, {mj}")
    return rows


def test_impossible_values_are_dropped_counted_and_said(tmp_path):
    csv = write(tmp_path / "impossible.csv", IMPOSSIBLE_HEADER, impossible_rows())
    s = run_json(csv)
    inp = s["inputs"][0]
    assert inp["rows"] == 120 and inp["rows_skipped"] == 0
    assert inp["impossible_dropped"] == {"utilization.gpu": 2, "memory.used": 1,
                                         "temperature.gpu": 2, "power.draw": 3,
                                         "total_energy_consumption": 2}
    st = s["gpus"][0]["stats"]
    assert st["utilization.gpu [%]"]["max"] == 90 and st["utilization.gpu [%]"]["mean"] == 90
    assert st["temperature.gpu"]["max"] == 65 and st["temperature.gpu"]["p5"] == 65
    assert st["power.draw [W]"]["p5"] == 300
    assert st["memory.used [MiB]"]["max"] == 20000
    # the counter runs at 300 W for 120 s: 10 Wh, not the sentinels' trillions
    assert abs(s["gpus"][0]["energy_wh"] - 10.0) < 0.01
    # 90000 of 81559 MiB was dropped: no "memory peaked at 110%"
    assert "memory_near_capacity" not in ids(s)
    out = text(csv)
    for line in ("    utilization.gpu: 2 impossible values dropped",
                 "    memory.used: 1 impossible value dropped",
                 "    temperature.gpu: 2 impossible values dropped",
                 "    power.draw: 3 impossible values dropped",
                 "    total_energy_consumption: 2 impossible values dropped"):
        assert line + "\n" in out, out
    assert "4294967295" not in out and "65535" not in out


def test_plausible_values_at_the_bounds_are_kept(tmp_path):
    """The edges of the bounds are real readings: 0 and 100 %, 0 W, 0 C are not dropped."""
    rows = [f"{ts(i)}, 0, {100 if i % 2 else 0}, 0, 81559, 0, 0.00, {i * 1000}" for i in range(30)]
    s = run_json(write(tmp_path / "edges.csv", IMPOSSIBLE_HEADER, rows))
    assert s["inputs"][0]["impossible_dropped"] == {}
    st = s["gpus"][0]["stats"]
    assert st["utilization.gpu [%]"]["max"] == 100 and st["utilization.gpu [%]"]["p5"] == 0
    assert st["temperature.gpu"]["max"] == 0


def test_the_sampler_drops_the_same_values(tmp_path):
    """The NVML side applies the same bounds: the fake NVML reports the sentinels of the file
    above, and `gpuwatch query` (the sampler) shows them as not available."""
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from conftest import gw, h200
    sc = tmp_path / "sc.json"
    point = {"t": 0, "util_gpu": 4294967295, "util_mem": 40, "mem_used_mib": 600,
             "temp_c": 65535, "power_w": 76, "sm_clock_mhz": 345}
    sc.write_text(json.dumps({"devices": [h200(timeline=[point])]}))
    q = gw(["query", "--query-gpu=utilization.gpu,utilization.memory,temperature.gpu,power.draw",
            "--format=csv,noheader"], sc)
    assert q.returncode == 0, q.stderr
    assert q.stdout.strip() == "[N/A], 40 %, [N/A], 76.00 W"


# ---- item 9: text from NVML and from files is sanitised at the door ----------------------------

BAD_NAME = b"NVIDIA \xff\xfe H200 \x1b[31mRED\x1b[0m\x07"


def test_names_read_from_a_file_are_sanitised(tmp_path):
    csv = tmp_path / "names.csv"
    rows = [b"timestamp, index, name, utilization.gpu [%]"]
    rows += [ts(i).encode() + b", 0, " + BAD_NAME + b", 90" for i in range(30)]
    csv.write_bytes(b"\n".join(rows) + b"\n")
    for args in ([], ["--json", "-"]):
        p = report(csv, *args)
        assert p.returncode == 0, p.stderr
        out = p.stdout.decode("utf-8")  # strict: raises on invalid UTF-8
        assert "\x1b" not in out and "\x07" not in out
    s = json.loads(report(csv, "--json", "-").stdout.decode("utf-8"))
    assert s["gpus"][0]["name"] == "NVIDIA \ufffd\ufffd H200 ?[31mRED?[0m?"
    html = tmp_path / "r.html"
    assert report(csv, "--html", html).returncode == 0
    assert b"\x1b" not in html.read_bytes()
    html.read_bytes().decode("utf-8")


def test_names_from_nvml_are_sanitised(tmp_path):
    """The fake NVML returns a name with escape sequences: check --json, query and meta.json (and
    the summary.json written from it) get it made safe."""
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from conftest import gw, h200
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps({"devices": [h200(name="NVIDIA \u001b[2J\u009b1mH200\u0007")]}))
    r = gw(["check", "--json"], sc)
    assert r.stdout, r.stderr
    out = json.loads(r.stdout)
    assert out["gpus"][0]["name"] == "NVIDIA ?[2J?1mH200?"
    q = gw(["query", "--query-gpu=name", "--format=csv,noheader"], sc)
    assert q.returncode == 0, q.stderr
    assert q.stdout.strip() == "NVIDIA ?[2J?1mH200?"
    d = tmp_path / "run"
    r = gw(["run", "-o", d, "--", "sleep", "1.5"], sc, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x1b" not in r.stderr
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    assert meta["devices"][0]["name"] == "NVIDIA ?[2J?1mH200?"
    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    assert summary["gpus"][0]["name"] == "NVIDIA ?[2J?1mH200?"


# ---- item 7: too little data for a verdict; time going back -------------------------------------

H_UMP = "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]"


def test_two_samples_give_no_verdict(tmp_path):
    rows = [f"{ts(0)}, 0, 100, 79000, 81559, 400", f"{ts(1)}, 0, 100, 80500, 81559, 400"]
    s = run_json(write(tmp_path / "two.csv", H_UMP, rows))
    assert ids(s) == []  # was critical memory_near_capacity (98.7 %) and would be saturated
    assert s["thresholds"]["min_steady_samples"] == 10
    assert s["thresholds"]["memory_min_samples"] == 5
    # the same numbers over enough samples do fire: the minimum is what held them back
    rows = [f"{ts(i)}, 0, 100, {79000 + 200 * i}, 81559, 400" for i in range(10)]
    s = run_json(write(tmp_path / "ten.csv", H_UMP, rows))
    assert "memory_near_capacity" in ids(s) and "gpu_saturated" not in ids(s)
    v = next(v for v in s["verdicts"] if v["id"] == "memory_near_capacity")
    assert v["severity"] == "critical" and v["evidence"]["peak_used_mib"] == 80800


def test_one_idle_reading_is_no_idle_stretch(tmp_path):
    """One 0 % reading at a 61 s interval weighs 61 s: more than idle_hold_s, but one sample."""
    rows = [f"{ts(61 * i)}, 0, {0 if i == 1 else 95}, 30000, 81559, 400" for i in range(12)]
    s = run_json(write(tmp_path / "one_idle.csv", H_UMP, rows))
    assert "idle_holding_memory" not in ids(s)
    assert s["thresholds"]["idle_hold_samples"] == 3
    # three idle readings in a row are a stretch
    rows = [f"{ts(61 * i)}, 0, {0 if i in (1, 2, 3) else 95}, 30000, 81559, 400" for i in range(12)]
    s = run_json(write(tmp_path / "three_idle.csv", H_UMP, rows))
    v = next(v for v in s["verdicts"] if v["id"] == "idle_holding_memory")
    assert v["evidence"]["idle_s"] == 183 and v["evidence"]["memory_held_mib"] == 30000


def test_time_going_back_is_said_and_not_counted(tmp_path):
    """60 rows from 10:00:00, then the clock is set back an hour and 60 more rows follow: 120 s
    of samples, not a 3600 s steady state."""
    rows = [f"{ts(i, 10)}, 0, 90, 30000, 81559, 400" for i in range(60)]
    rows += [f"{ts(i - 3600 + 60, 10)}, 0, 90, 30000, 81559, 400" for i in range(60)]
    csv = write(tmp_path / "back.csv", H_UMP, rows)
    s = run_json(csv)
    inp = s["inputs"][0]
    assert inp["time_back"] == 1 and inp["time_back_max_s"] == 3599
    g = s["gpus"][0]
    steady = next(p for p in s["phases"] if p["phase"] == "steady")
    assert abs(g["energy_wh"] - 400 * 120 / 3600) < 0.01
    assert g["energy_partial"] is False
    out = text(csv)
    assert "    time went back at line 62 (1 time, up to 3599 s): not counted\n" in out
    assert "steady 120.0 s" in out and "3600" not in out.split("Verdicts")[1]
    assert steady["duration_s"] == 120 and steady["rows"] == 120
    assert s["duration_s"] == 120


def test_starved_idle_share_is_of_the_work_time(tmp_path):
    """busy X % and idle Y % describe the same seconds: here X + Y = 100 exactly, also when every
    other row has no utilisation (a second query interleaved): the old share divided the idle
    time by all the time, utilisation or not."""
    def util(i):
        return "100" if i < 3 else "" if i % 2 else "100" if i % 4 == 0 else "0"
    rows = [f"{ts(i)}, 0, {util(i)}, 30000, 81559, 300" for i in range(121)]
    s = run_json(write(tmp_path / "starved.csv", H_UMP, rows))
    v = next(v for v in s["verdicts"] if v["id"] == "gpu_starved")
    busy, idle = v["evidence"]["busy_pct"], v["evidence"]["idle_share_pct"]
    assert abs(busy + idle - 100) < 1e-6, (busy, idle)
    assert 53 < busy < 54  # main said busy 53.2 %, idle 24 %: 23 % of the time was neither
    out = text(tmp_path / "starved.csv")
    assert f"idle {idle:.0f}%" in out and f"busy {busy:.1f}%" in out


# ---- item 8: missing is not zero -------------------------------------------------------------


def test_a_log_without_utilisation_is_not_a_gpu_that_never_worked(tmp_path):
    rows = [f"{ts(i)}, 0, 30000, 81559, 250" for i in range(120)]
    csv = write(tmp_path / "noutil.csv",
                "timestamp, index, memory.used [MiB], memory.total [MiB], power.draw [W]", rows)
    out = text(csv)
    assert "never worked" not in out
    assert "(utilisation not recorded)" in out
    assert "  none: utilisation not recorded, so busy and idle cannot be judged\n" in out
    s = run_json(csv)
    g = s["gpus"][0]
    assert g["worked"] is None  # unknown, not false
    assert abs(g["energy_wh"] - 250 * 120 / 3600) < 0.01
    assert g["stats"]["memory.used [MiB]"]["mean"] == 30000
    html = tmp_path / "r.html"
    assert report(csv, "--html", html).returncode == 0
    assert "<p>None: utilisation not recorded, so busy and idle cannot be judged.</p>" in \
        html.read_text()
    # MIG: the column is there, every cell "[Not Supported]": the same
    mig = write(tmp_path / "mig.csv", "timestamp, index, utilization.gpu [%], memory.used [MiB]",
                [f"{ts(i)}, 0, [Not Supported], 3000" for i in range(60)])
    assert "(utilisation not recorded)" in text(mig) and "never worked" not in text(mig)
    assert run_json(mig)["gpus"][0]["worked"] is None


def test_power_in_every_other_row_is_bridged(tmp_path):
    h = "timestamp, index, utilization.gpu [%], power.draw [W]"
    every = run_json(write(tmp_path / "every.csv", h,
                           [f"{ts(i)}, 0, 90, 300" for i in range(121)]))
    half = run_json(write(tmp_path / "half.csv", h,
                          [f"{ts(i)}, 0, 90, {'' if i % 2 else '300'}" for i in range(121)]))
    want = 300 * 121 / 3600  # 120 s between the rows and the last row's interval
    assert abs(every["gpus"][0]["energy_wh"] - want) < 1e-3
    assert abs(half["gpus"][0]["energy_wh"] - want) < 1e-3  # not half of it
    assert half["gpus"][0]["energy_partial"] is False


def test_capacity_from_used_plus_free_catches_a_near_oom(tmp_path):
    rows = []
    for i in range(160):
        used = 15000 + 50 * i if i < 100 else 20137
        rows.append(f"{ts(i)}, 0, 90, {used}, {20148 - used}")
    csv = write(tmp_path / "nototal.csv",
                "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.free [MiB]", rows)
    s = run_json(csv)
    v = next(v for v in s["verdicts"] if v["id"] == "memory_near_capacity")
    assert v["severity"] == "critical"
    assert v["evidence"]["peak_used_mib"] == 20137 and v["evidence"]["memory_total_mib"] == 20148
    assert s["gpus"][0]["memory_total_mib"] == 20148
    assert s["inputs"][0]["note"] == "memory.total taken as memory.used + memory.free"
    assert "memory peaked at 99.9% of the GPU (20137 of 20148 MiB)" in text(csv)


def test_the_desktop_after_the_job_does_not_keep_the_steady_state_open(tmp_path):
    """300 s of training at 95 % holding 30000 MiB, then 600 s of a desktop at 4-30 % with 900 MiB:
    the steady state is the 300 s of the job; the desktop is the tail."""
    desk = [4, 6, 12, 18, 25, 30, 8]
    rows = [f"{ts(i)}, 0, 95, 30000, 81559, 400" for i in range(300)]
    rows += [f"{ts(i)}, 0, {desk[i % 7]}, 900, 81559, 40" for i in range(300, 900)]
    csv = write(tmp_path / "desktop.csv", H_UMP, rows)
    s = run_json(csv)
    assert ids(s) == ["gpu_saturated"]  # was critical gpu_starved 41.5 % over 900 s
    v = s["verdicts"][0]
    assert v["evidence"]["busy_pct"] == 95 and v["evidence"]["work_s"] == 300
    out = text(csv)
    assert "phases: startup 0.0 s, steady 300.0 s, tail 600.0 s" in out
    assert s["thresholds"]["tail_release_pct"] == 25
    # a job that keeps its memory while it works at 4-30 % is still judged as a whole
    rows = [f"{ts(i)}, 0, 95, 30000, 81559, 400" for i in range(300)]
    rows += [f"{ts(i)}, 0, {desk[i % 7]}, 30000, 81559, 40" for i in range(300, 900)]
    s = run_json(write(tmp_path / "slow.csv", H_UMP, rows))
    assert "gpu_starved" in ids(s)


# ---- item 10: no sentence contradicts its own numbers -------------------------------------------


def test_idle_holding_names_the_stretch_holding_the_most_memory(tmp_path):
    """A 200 s idle stretch holding 2000 MiB, then a 90 s one holding 30000 MiB: the verdict is
    about the second (main named the longest, with its 2000 MiB)."""
    u, m = [], []
    for i in range(600):
        idle_a, idle_b = 100 <= i < 300, 400 <= i < 490
        u.append(0 if idle_a or idle_b else 95)
        m.append(2000 if idle_a else 30000)
    rows = [f"{ts(i)}, 0, {u[i]}, {m[i]}, 81559, 300" for i in range(600)]
    s = run_json(write(tmp_path / "hold.csv", H_UMP, rows))
    v = next(v for v in s["verdicts"] if v["id"] == "idle_holding_memory")
    assert v["evidence"]["memory_held_mib"] == 30000 and v["evidence"]["idle_s"] == 90
    assert v["evidence"]["stretches"] == 2
    assert v["start"] == "2026-11-05T14:06:40.000Z"
    assert "idle for 90 s while holding 30000 MiB" in text(tmp_path / "hold.csv")


def shapes(tmp_path):
    """Every input of this file's shapes, for the consistency checks."""
    out = [write(tmp_path / "impossible.csv", IMPOSSIBLE_HEADER, impossible_rows())]
    desk = [4, 6, 12, 18, 25, 30, 8]
    out.append(write(tmp_path / "desktop.csv", H_UMP,
                     [f"{ts(i)}, 0, 95, 30000, 81559, 400" for i in range(300)] +
                     [f"{ts(i)}, 0, {desk[i % 7]}, 900, 81559, 40" for i in range(300, 900)]))
    out.append(write(tmp_path / "back.csv", H_UMP,
                     [f"{ts(i, 10)}, 0, 90, 30000, 81559, 400" for i in range(60)] +
                     [f"{ts(i - 3540, 10)}, 0, 90, 30000, 81559, 400" for i in range(60)]))
    out.append(write(tmp_path / "gap.csv", H_UMP,  # a pause of 10 minutes in the recording
                     [f"{ts(i)}, 0, {30 if i % 3 else 95}, 30000, 81559, 400" for i in range(60)] +
                     [f"{ts(660 + i)}, 0, 0, 30000, 81559, 80" for i in range(120)]))
    out.append(write(tmp_path / "sixty.csv", H_UMP,
                     [f"{ts(60 * i)}, 0, {0 if i in (3, 4, 5) else 90}, 30000, 81559, 400"
                      for i in range(20)]))
    # never sustained work (issue 14, item 5): memory allocated then idle, with and without a
    # one-second blip of work, and a GPU lightly and steadily used (8 %) for a whole minute
    out.append(write(tmp_path / "alloc_idle.csv", H_UMP,
                     [f"{ts(i)}, 0, 0, {600 if i < 10 else 20000}, 81559, 80" for i in range(300)]))
    out.append(write(tmp_path / "alloc_blip.csv", H_UMP,
                     [f"{ts(i)}, 0, {50 if i == 12 else 0}, {600 if i < 10 else 20000}, 81559, 80"
                      for i in range(300)]))
    out.append(write(tmp_path / "light.csv", H_UMP,
                     [f"{ts(i)}, 0, 8, 3000, 81559, 90" for i in range(60)]))
    return out


def test_phases_add_up_to_the_record_and_numbers_agree_with_words(tmp_path):
    for csv in shapes(tmp_path):
        s = run_json(csv)
        phases = [p for p in s["phases"] if p["gpu"] == 0]
        total = sum(p["duration_s"] for p in phases)
        assert abs(total - s["duration_s"]) < 1e-6, (csv.name, total, s["duration_s"])
        assert sum(p["rows"] for p in phases) == s["gpus"][0]["rows"], csv.name
        assert phases[0]["start"] == s["start"] and phases[-1]["end"] == s["end"], csv.name
        for v in s["verdicts"]:
            assert s["start"] <= v["start"] <= v["end"] <= s["end"], (csv.name, v["id"])
            e = v["evidence"]
            if v["id"] == "gpu_starved":
                # a launch-bound GPU is never quiet: its idle samples (< 10 %) still work
                idle = e["quiet_share_pct"] if e.get("pattern") == "launch_bound" \
                    else e["idle_share_pct"]
                assert e["busy_pct"] + idle <= 100 + 1e-6, csv.name
                assert e["work_s"] <= s["duration_s"], csv.name
            if v["id"] == "idle_holding_memory":
                assert e["idle_s"] <= v["duration_s"] + 1e-6, csv.name
        t = s["gpus"][0]["time_s"]
        assert t["idle"] + t["busy"] <= s["duration_s"] + 1e-6, csv.name
        out = text(csv)
        head, times = out.splitlines()[:2]  # the header fits 80 columns: times on line 2
        assert head == f"gpuwatch report: 1 GPU, {s['duration_s']:.1f} s", (csv.name, head)
        assert times.endswith(f"to {s['end']}"), (csv.name, times)


def test_no_sustained_work_still_gets_the_verdicts_that_need_none(tmp_path):
    """Issue 14, item 5: memory allocated then idle is idle_holding_memory with or without a blip
    of work before; 8 % for a whole minute is starved (launch-bound), not expected dips."""
    by_name = {p.name: p for p in shapes(tmp_path)}
    for name, idle_s in (("alloc_idle.csv", 290), ("alloc_blip.csv", 287)):
        s = run_json(by_name[name])
        assert ids(s) == ["idle_holding_memory"], name
        v = s["verdicts"][0]
        assert v["evidence"]["idle_s"] == idle_s and v["evidence"]["memory_held_mib"] == 20000
    s = run_json(by_name["light.csv"])
    assert ids(s) == ["gpu_starved"]
    e = s["verdicts"][0]["evidence"]
    assert e["busy_pct"] == 8 and e["quiet_share_pct"] == 0 and e["pattern"] == "launch_bound"
    out = text(by_name["light.csv"])
    assert "GPU lightly and steadily used: busy 8.0% of the steady state (60 s)" in out
    assert "launch-bound" in out and "nan" not in out

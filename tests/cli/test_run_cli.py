"""`gpuwatch run` and `gpuwatch record` end to end against the fake NVML library."""
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import (FAKE, GW, PYTHON, events, gw, gw_env, h200, interp, poll, read_csv,
                      rfc3339_to_s, rows_on_disk, run_in_pty)


def test_values_follow_the_scenario(scenario, tmp_path):
    dev = h200(processes=[{"pid": "child", "name": "python3", "used_mib": 1234, "from_s": 0}])
    sc = scenario({"driver_version": "580.159.04", "devices": [dev]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.2", "--", PYTHON, "-c", "import time; time.sleep(3)"], sc)
    assert r.returncode == 0, r.stderr
    meta = json.loads((out / "meta.json").read_text())
    start = rfc3339_to_s(meta["start_time"])
    header, rows = read_csv(out / "gpu.csv")
    assert header[:16] == ["timestamp", "index", "utilization.gpu [%]", "utilization.memory [%]",
                           "memory.used [MiB]", "memory.total [MiB]", "temperature.gpu",
                           "power.draw [W]", "power.limit [W]", "clocks.current.sm [MHz]",
                           "clocks_event_reasons.active", "pstate", "gpm.sm_active [%]",
                           "gpm.sm_occupancy [%]", "gpm.tensor_active [%]", "gpm.dram_active [%]"]
    assert 12 <= len(rows) <= 20, len(rows)
    tl = dev["timeline"]
    # The row's scenario time is (row - start) + d, d in [0, 0.15] s (nvmlInit comes shortly
    # before meta.json's start time): allow the slope times that, plus integer rounding (and, for
    # power, 2 ms of timestamp truncation at 60 W/s).
    for row in rows:
        t = rfc3339_to_s(row["timestamp"]) - start
        for col, key, slope, tol in [("utilization.gpu [%]", "util_gpu", 10, 1.01),
                                     ("memory.used [MiB]", "mem_used_mib", 2000, 1.01),
                                     ("temperature.gpu", "temp_c", 4, 1.01),
                                     ("power.draw [W]", "power_w", 60, 0.15),
                                     ("clocks.current.sm [MHz]", "sm_clock_mhz", 163.5, 1.01)]:
            lo = interp(tl, key, t) - tol
            hi = interp(tl, key, t + 0.15) + tol
            assert lo <= float(row[col]) <= hi, (col, t, row[col], lo, hi)
        assert row["memory.total [MiB]"] == "143771"
        assert row["power.limit [W]"] == "700.00"
        assert row["pstate"] == "P0"
        # a bit mask holds the earlier point's value: 1 until t=10
        assert row["clocks_event_reasons.active"] == "0x0000000000000001"
    # GPM values arrive from the slow thread after its second sample (a window of max(interval,
    # 1 s)); they are averages over windows, so they lie within the scenario's range over the run.
    gpm = [float(r["gpm.sm_active [%]"]) for r in rows if r["gpm.sm_active [%]"] != ""]
    assert len(gpm) >= len(rows) - 1 / 0.2 - 3
    # bounded by the scenario at the last row (plus the 0.15 s of nvmlInit before start): on a
    # loaded machine the 3 s job can take longer than 3 s of scenario time
    t_end = max(rfc3339_to_s(r["timestamp"]) for r in rows) - start + 0.15
    assert all(0 <= v <= interp(tl, "sm_active", max(t_end, 3.5)) + 0.5 for v in gpm)
    assert gpm[-1] > 10
    # processes: the wrapped python is the "child" pid, in the job
    _, procs = read_csv(out / "processes.csv")
    assert procs, "no process rows"
    assert {p["in_job"] for p in procs} == {"1"}
    assert {p["used_memory [MiB]"] for p in procs} == {"1234"}
    assert procs[0]["process_name"].startswith("python")
    # host.csv: the job tree was followed
    _, host = read_csv(out / "host.csv")
    assert len(host) == len(rows)
    # (the final tick may come after the job exited, on a loaded machine: 0 processes, 0 MiB)
    assert all(h["job.processes"] == "1" for h in host[2:-1])
    assert host[-1]["job.processes"] in ("1", "0")
    alive = [h for h in host if h["job.processes"] == "1"]
    assert float(alive[-1]["job.rss [MiB]"]) > 1
    assert all(h["memory.used [MiB]"] != "" for h in host)


def test_absent_fields_are_empty_cells(scenario, tmp_path):
    sc = scenario({"devices": [h200(unsupported=["gpm", "power", "clocks_event_reasons"])]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sleep", "0.8"], sc)
    assert r.returncode == 0, r.stderr
    _, rows = read_csv(out / "gpu.csv")
    assert rows
    for row in rows:
        for col in ["power.draw [W]", "gpm.sm_active [%]", "gpm.sm_occupancy [%]",
                    "gpm.tensor_active [%]", "gpm.dram_active [%]",
                    "clocks_event_reasons.active"]:
            assert row[col] == "", (col, row[col])
        assert row["utilization.gpu [%]"] != ""
        assert row["temperature.gpu"] != ""


def test_processes_other_containers_and_unavailable_memory(scenario, tmp_path):
    dev = h200(processes=[{"pid": 4194000, "name": "ghost", "used_mib": None},
                          {"pid": "child", "name": "sh", "used_mib": 500}])
    sc = scenario({"devices": [dev]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.2", "--", "sleep", "1.6"], sc)
    assert r.returncode == 0, r.stderr
    _, procs = read_csv(out / "processes.csv")
    ghost = [p for p in procs if p["pid"] == "4194000"]
    assert ghost and all(p["process_name"] == "" and p["in_job"] == "0" and
                         p["used_memory [MiB]"] == "" for p in ghost)
    mine = [p for p in procs if p["pid"] != "4194000"]
    assert mine and all(p["in_job"] == "1" and p["used_memory [MiB]"] == "500" for p in mine)


def test_job_cpu_of_a_busy_process_tree(scenario, tmp_path):
    """The job's CPU % integrated over time equals the CPU time its processes report using,
    whatever else loads the machine."""
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    script = ("import multiprocessing as mp, time\n"
              "def spin(q):\n  t=time.time()\n  while time.time()-t<2.0: pass\n"
              "  q.put(time.process_time())\n"
              "if __name__=='__main__':\n"
              "  time.sleep(0.6)\n"
              "  q=mp.Queue(); ps=[mp.Process(target=spin, args=(q,)) for _ in range(2)]\n"
              "  [p.start() for p in ps]; cpu=sum(q.get() for _ in ps); [p.join() for p in ps]\n"
              "  time.sleep(0.6)\n"
              "  print('workers_cpu', cpu)\n")
    r = gw(["run", "-o", out, "-i", "0.1", "--", PYTHON, "-c", script], sc)
    assert r.returncode == 0, r.stderr
    workers_cpu = float(r.stdout.split("workers_cpu")[1])
    _, host = read_csv(out / "host.csv")
    procs = [int(h["job.processes"]) for h in host if h["job.processes"]]
    assert max(procs) >= 3  # the parent and 2 workers (plus multiprocessing's helpers)
    ts = [rfc3339_to_s(h["timestamp"]) for h in host]
    cpu_s = sum(float(h["job.cpu [%]"]) / 100 * (t1 - t0)
                for h, t0, t1 in zip(host[1:], ts, ts[1:]) if h["job.cpu [%]"])
    # the parent's own start-up CPU is included in cpu_s, so it may exceed the workers' a little
    assert workers_cpu * 0.8 <= cpu_s <= workers_cpu * 1.2 + 0.5, (cpu_s, workers_cpu)


@pytest.mark.parametrize("code", [0, 3, 42])
def test_exit_status_passthrough(scenario, tmp_path, code):
    sc = scenario({"devices": [h200()]})
    r = gw(["run", "-o", tmp_path / "run", "--", "sh", "-c", f"exit {code}"], sc)
    assert r.returncode == code
    meta = json.loads((tmp_path / "run" / "meta.json").read_text())
    assert meta["exit"]["code"] == code
    assert meta["end_time"] is not None


def test_job_killed_by_signal(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sh", "-c", "sleep 0.5; kill -9 $$"], sc)
    assert r.returncode == 128 + 9
    meta = json.loads((out / "meta.json").read_text())
    assert meta["exit"] == {"code": None, "signal": 9, "status": 137}
    ev = [e for e in events(out) if e["type"] == "job_exit"]
    assert len(ev) == 1 and ev[0]["signal"] == 9 and ev[0]["signal_name"] == "KILL"
    _, rows = read_csv(out / "gpu.csv")
    assert len(rows) >= 4


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signals_are_forwarded(scenario, tmp_path, sig):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    marker = tmp_path / "got"
    script = ("import signal, sys, time\n"
              f"def h(n, f):\n  open({str(marker)!r}, 'w').write(str(n)); sys.exit(7)\n"
              "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, h)\n"
              "print('ready', flush=True)\ntime.sleep(30)\n")
    p = subprocess.Popen([GW, "run", "-o", str(out), "-i", "0.1", "--", PYTHON, "-c", script],
                         env=gw_env(sc), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    p.send_signal(sig)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 7, err
    assert marker.read_text() == str(int(sig))
    assert json.loads((out / "meta.json").read_text())["exit"]["code"] == 7


def test_sigkill_leaves_readable_csv(scenario, tmp_path):
    sc = scenario({"devices": [h200(), h200(uuid="GPU-1", pci_bus_id="00000000:00:07.0")]})
    out = tmp_path / "run"
    p = subprocess.Popen([GW, "run", "-o", str(out), "-i", "0.05", "--", "sleep", "30"],
                         env=gw_env(sc), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # rows written while it runs: 2 s at 20 Hz on 2 GPUs, on disk before the kill
        seen = poll("80 rows in gpu.csv", lambda: (n := rows_on_disk(out / "gpu.csv")) >= 80 and n,
                    timeout=60)
    finally:
        # the wrapped sleep is in its own process group: find it before killing gpuwatch
        child = json.loads((out / "meta.json").read_text()).get("job_pid") \
            if (out / "meta.json").exists() else None
        p.kill()
        p.wait()
        if child:
            os.kill(int(child), signal.SIGKILL)
    for name in ["gpu.csv", "host.csv"]:
        text = (out / name).read_text()
        assert text.endswith("\n"), f"{name} ends in a partial row"
        header, rows = read_csv(out / name)  # asserts every row is whole
    _, rows = read_csv(out / "gpu.csv")
    assert len(rows) >= seen, (len(rows), seen)  # the kill lost nothing already written
    meta = json.loads((out / "meta.json").read_text())
    assert meta["end_time"] is None  # readable, and honest that the recording did not end


def test_full_disk_keeps_what_was_written(scenario, tmp_path):
    """A file that cannot grow (a full disk; here a file-size limit): one clear line, whole rows
    kept, the job runs to its end and its status is gpuwatch's. Whether the write that fails is
    a flush during the run or the last one at the end (on a loaded machine), it is reported."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))

    sc = scenario({"devices": [h200(), h200(uuid="GPU-1", pci_bus_id="00000000:00:07.0")]})
    out = tmp_path / "run"
    r = subprocess.run([GW, "run", "-o", str(out), "-i", "0.05", "--no-report", "--", "sh", "-c",
                        "sleep 2; exit 3"], env=gw_env(sc), capture_output=True, text=True,
                       timeout=60, preexec_fn=limit)
    assert r.returncode == 3, r.stderr
    lines = [l for l in r.stderr.splitlines() if "cannot write" in l]
    assert len(lines) == 1, r.stderr
    assert "gpu.csv" in lines[0] and "free space" in lines[0] and "job continues" in lines[0]
    text = (out / "gpu.csv").read_text()
    assert text.endswith("\n") and len(text) <= 6000
    _, rows = read_csv(out / "gpu.csv")  # every row whole
    assert len(rows) >= 10
    meta = json.loads((out / "meta.json").read_text())
    assert meta["exit"]["code"] == 3 and meta["end_time"] is not None


def test_full_disk_at_the_last_flush_is_reported(scenario, tmp_path):
    """Three ticks 0.3 s apart; processes.csv outgrows the file size limit: the failed write is
    reported once, what was written before stays whole, and the other files stop with it."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))  # meta.json fits

    procs = [{"pid": 4000000 + i, "name": "x", "used_mib": 100 + i} for i in range(40)]
    sc = scenario({"devices": [h200(processes=procs)]})
    out = tmp_path / "rec"
    r = subprocess.run([GW, "record", "-o", str(out), "-i", "0.3", "--duration", "0.8",
                        "--no-report"], env=gw_env(sc), capture_output=True, text=True,
                       timeout=60, preexec_fn=limit)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if "cannot write" in l]
    assert len(lines) == 1 and "processes.csv" in lines[0], r.stderr
    text = (out / "processes.csv").read_text()
    assert text.endswith("\n") and len(text) <= 1500
    _, procs = read_csv(out / "processes.csv")  # whole rows only
    _, rows = read_csv(out / "gpu.csv")
    # the files end together (issue 26): gpu.csv gets no row past the tick processes.csv failed on
    assert 1 <= len(rows) < 3
    assert rfc3339_to_s(rows[-1]["timestamp"]) - rfc3339_to_s(procs[-1]["timestamp"]) < 0.3
    meta = json.loads((out / "meta.json").read_text())
    assert meta["end_time"] is not None and meta["incomplete"]["reason"] == "write_error"
    assert "processes.csv" in meta["incomplete"]["detail"]


def test_gpu_lost_mid_run(scenario, tmp_path):
    sc = scenario({"devices": [h200(), h200(uuid="GPU-1", pci_bus_id="00000000:00:07.0",
                                            lost_after_s=1.0)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sleep", "2.5"], sc)
    assert r.returncode == 0, r.stderr
    assert "GPU 1 was lost" in r.stderr
    lost = [e for e in events(out) if e["type"] == "gpu_lost"]
    assert len(lost) == 1 and lost[0]["gpu"] == 1
    lost_at = rfc3339_to_s(lost[0]["timestamp"])
    _, rows = read_csv(out / "gpu.csv")
    g0 = [r for r in rows if r["index"] == "0"]
    g1 = [r for r in rows if r["index"] == "1"]
    assert len(g0) == len(g1) >= 20
    assert all(r["utilization.gpu [%]"] != "" for r in g0)  # GPU 0 kept recording
    after = [r for r in g1 if rfc3339_to_s(r["timestamp"]) >= lost_at]
    assert len(after) >= 10
    for r in after:
        assert all(v == "" for k, v in r.items() if k not in ("timestamp", "index")), r
    before = [r for r in g1 if rfc3339_to_s(r["timestamp"]) < lost_at - 0.3]
    assert before and all(r["utilization.gpu [%]"] != "" for r in before)


def test_existing_dir_is_refused_before_the_command_starts(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    marker = tmp_path / "started"
    r = gw(["run", "-o", out, "--", "touch", marker], sc)
    assert r.returncode == 125
    assert "already exists" in r.stderr and str(out) in r.stderr
    assert not marker.exists()
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_unwritable_dir(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    marker = tmp_path / "started"
    r = gw(["run", "-o", "/proc/gpuwatch-cannot-be-here", "--", "touch", marker], sc)
    assert r.returncode == 125
    assert "cannot create" in r.stderr and "-o" in r.stderr
    assert not marker.exists()


def test_no_nvml_library(tmp_path):
    env = gw_env(None, GPUWATCH_NVML_LIB="/nonexistent/libnvidia-ml.so.1")
    r = gw(["run", "-o", tmp_path / "run", "--", "true"], env=env)
    assert r.returncode == 125
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "GPUWATCH_NVML_LIB" in lines[0]
    assert not (tmp_path / "run").exists()
    r = gw(["record", "-o", tmp_path / "rec", "--duration", "1"], env=env)
    assert r.returncode == 1


@pytest.mark.parametrize("name,words", [("DRIVER_NOT_LOADED", "driver is not loaded"),
                                        ("LIB_RM_VERSION_MISMATCH", "reboot"),
                                        ("NO_PERMISSION", "/dev/nvidia")])
def test_init_errors(scenario, tmp_path, name, words):
    sc = scenario({"init_error": name, "devices": []})
    r = gw(["run", "-o", tmp_path / "run", "--", "true"], sc)
    assert r.returncode == 125
    assert name in r.stderr and words in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = gw(["record", "-o", tmp_path / "rec", "--duration", "1"], sc)
    assert r.returncode == 1 and name in r.stderr


@pytest.mark.parametrize("args,words", [
    (["run", "--bogus", "--", "true"], "unknown option"),
    (["run", "-i", "0.01", "--", "true"], "bad interval"),
    (["run", "-i", "soon", "--", "true"], "bad interval"),
    (["run"], "no command given"),
    (["record", "--duration", "x"], "bad duration"),
    (["record", "extra"], "takes no command"),
    (["frobnicate"], "unknown command"),
])
def test_usage_errors(scenario, args, words):
    sc = scenario({"devices": [h200()]})
    r = gw(args, sc)
    assert r.returncode == 2
    assert words in r.stderr


def test_command_not_found(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    r = gw(["run", "--", "no-such-command-for-gpuwatch"], sc, cwd=tmp_path)
    assert r.returncode == 127
    assert "command not found: no-such-command-for-gpuwatch" in r.stderr
    assert not (tmp_path / "runs").exists()


def test_record_duration_and_schedule(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "rec"
    r = gw(["record", "-o", out, "-i", "0.1", "--duration", "3"], sc)
    assert r.returncode == 0, r.stderr
    _, rows = read_csv(out / "gpu.csv")
    ts = [rfc3339_to_s(r["timestamp"]) for r in rows]
    assert 27 <= len(ts) <= 32, len(ts)
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    # The exact schedule is tested on a virtual clock (unit.test_sampler_clock); on a real clock
    # and a loaded machine, a tick may be late by a scheduling delay.
    assert max(gaps) < 0.3, max(gaps)
    # no drift: tick k is at start + k * 100 ms. A tick can be late, never early, so the grid's
    # origin is the earliest ts[k] - k * 100 ms (the first tick alone may be late on a loaded
    # machine); a drifting schedule leaves every later tick ever later behind that grid, so the
    # last five cannot all be late (one of them alone may be, on a loaded machine).
    origin = min(t - 0.1 * k for k, t in enumerate(ts))
    late = [t - (origin + 0.1 * k) for k, t in enumerate(ts)][-5:]
    assert min(late) < 0.05, late
    _, host = read_csv(out / "host.csv")
    assert all(h["job.cpu [%]"] == "" and h["job.processes"] == "" for h in host)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["mode"] == "record" and meta["exit"] is None and meta["end_reason"] == "duration"


def test_record_stops_on_sigint(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "rec"
    p = subprocess.Popen([GW, "record", "-o", str(out), "-i", "0.1"], env=gw_env(sc),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        poll("5 rows in gpu.csv", lambda: rows_on_disk(out / "gpu.csv") >= 5, timeout=60)
    finally:
        p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=10)
    assert p.returncode == 0, err
    _, rows = read_csv(out / "gpu.csv")
    assert len(rows) >= 5
    assert json.loads((out / "meta.json").read_text())["end_time"] is not None


def test_long_interval_takes_one_tick(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "rec"
    r = gw(["record", "-o", out, "-i", "1h", "--duration", "0.5"], sc)
    assert r.returncode == 0, r.stderr
    _, rows = read_csv(out / "gpu.csv")
    assert len(rows) == 1


def test_slow_reads_never_delay_ticks(scenario, tmp_path):
    dev = h200(latency_ms={"processes": 400, "energy": 300},
               processes=[{"pid": "child", "name": "sleep", "used_mib": 10}])
    sc = scenario({"devices": [dev]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sleep", "3"], sc)
    assert r.returncode == 0, r.stderr
    _, rows = read_csv(out / "gpu.csv")
    ts = [rfc3339_to_s(r["timestamp"]) for r in rows]
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    # a tick that waited for a slow read would come 0.4 s late (exactly: unit.test_sampler_clock)
    assert max(gaps) < 0.3, max(gaps)
    _, procs = read_csv(out / "processes.csv")
    assert procs  # the slow list still arrived


def test_output_log_env_and_summary(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sh", "-c",
            "echo to-stdout; echo to-stderr >&2; echo \"dir=$GPUWATCH_RUN_DIR\"; sleep 0.5"], sc)
    assert r.returncode == 0
    assert "to-stdout" in r.stdout and "to-stderr" in r.stderr
    log = (out / "output.log").read_text()
    assert "to-stdout" in log and "to-stderr" in log
    assert f"dir={out.resolve()}" in log
    # the end-of-run table on stderr
    assert "util mean" in r.stderr and "energy" in r.stderr
    row = [l for l in r.stderr.splitlines() if l.startswith("  0 ")]
    assert row and "143771" not in row[0] and "MiB" in row[0]
    assert "job: peak RSS" in r.stderr
    ev = [e["type"] for e in events(out)]
    assert ev[0] == "job_start" and ev[-1] == "job_exit"


def test_default_run_dir(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    r = gw(["run", "--", PYTHON, "-c", "pass"], sc, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    dirs = list((tmp_path / "runs").iterdir())
    assert len(dirs) == 1 and dirs[0].name.endswith("-python3"), dirs
    assert (dirs[0] / "gpu.csv").exists()


def test_under_a_terminal_the_command_gets_a_pty(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    code, buf = run_in_pty([GW, "run", "-o", str(out), "-i", "0.2", "--", PYTHON, "-c",
                            "import sys,os; print('tty', sys.stdout.isatty(), os.isatty(0))"],
                           gw_env(sc))
    assert code == 0, buf
    assert b"tty True True" in buf
    assert "tty True True" in (out / "output.log").read_text()


def test_pcie_nvlink_codec_and_process_shares_recorded(scenario, tmp_path):
    """The fields of issue 24 end to end: scenario keys -> gpu.csv and processes.csv; a second
    GPU without the keys has empty cells, never 0."""
    with_keys = h200(processes=[{"pid": "child", "used_mib": 500, "sm_util": 87, "mem_util": 9,
                                 "dec_util": 3}])
    for p in with_keys["timeline"]:
        p.update({"pcie_tx_mib_s": 1500, "pcie_rx_mib_s": 24000, "nvlink_tx_mib_s": 0,
                  "nvlink_rx_mib_s": 512, "enc_util": 0, "dec_util": 35})
    sc = scenario({"devices": [with_keys, h200(uuid="GPU-00000000-0000-0000-0000-000000000001",
                                                pci_bus_id="00000000:00:07.0")]})
    out = tmp_path / "run"
    r = gw(["run", "--no-report", "-o", out, "-i", "0.2", "--", PYTHON, "-c",
            "import time; time.sleep(1.5)"], sc)
    assert r.returncode == 0, r.stderr
    header, rows = read_csv(out / "gpu.csv")
    new = ["gpm.pcie_tx [MiB/s]", "gpm.pcie_rx [MiB/s]", "gpm.nvlink_tx [MiB/s]",
           "gpm.nvlink_rx [MiB/s]", "utilization.encoder [%]", "utilization.decoder [%]"]
    assert header[-6:] == new
    gpu0 = [row for row in rows if row["index"] == "0"]
    last = gpu0[-1]
    assert [last[c] for c in new] == ["1500.0", "24000.0", "0.0", "512.0", "0", "35"]
    assert all(row[c] == "" for row in rows if row["index"] == "1" for c in new)
    header, procs = read_csv(out / "processes.csv")
    assert header[-4:] == ["sm_util [%]", "mem_util [%]", "enc_util [%]", "dec_util [%]"]
    assert procs and all([p["sm_util [%]"], p["mem_util [%]"], p["enc_util [%]"],
                          p["dec_util [%]"]] == ["87", "9", "0", "3"] for p in procs)

"""`gpuwatch serve`: the values and labels it exposes, absent values, lost GPUs, per-process
memory, the self-metrics, proof that a scrape never calls NVML, and `run --listen`."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

from conftest import GW, SCENARIOS, gw, gw_env, machine_lock
from serve_helpers import MIB, Server, const_h200, parse, value

DCGM_LABELS = ("gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname",
               "DCGM_FI_DRIVER_VERSION")


def has_prof(p, _text):
    return p.get("DCGM_FI_PROF_SM_ACTIVE") is not None


def test_values_and_labels(scenario):
    devs = [const_h200(0), const_h200(1, temp=71, used_mib=1000)]
    path = scenario({"driver_version": "580.159.04", "devices": devs})
    with Server(path, ["-i", "0.2"]) as srv:
        text = srv.wait_for(has_prof, what="the GPM ratios")
        p = parse(text)
        for i, dev in enumerate(devs):
            series = [lab for lab, _ in p["DCGM_FI_DEV_GPU_TEMP"] if lab["gpu"] == str(i)]
            assert series == [{
                "gpu": str(i), "UUID": dev["uuid"], "pci_bus_id": dev["pci_bus_id"],
                "device": f"nvidia{i}", "modelName": "NVIDIA H200",
                "Hostname": socket.gethostname(), "DCGM_FI_DRIVER_VERSION": "580.159.04"}]
        exact = {"DCGM_FI_DEV_GPU_UTIL": 87, "DCGM_FI_DEV_MEM_COPY_UTIL": 35,
                 "DCGM_FI_DEV_FB_USED": 20480, "DCGM_FI_DEV_FB_FREE": 143771 - 20480,
                 "DCGM_FI_DEV_GPU_TEMP": 65, "DCGM_FI_DEV_POWER_USAGE": 512.5,
                 "DCGM_FI_DEV_SM_CLOCK": 1755, "DCGM_FI_DEV_MEM_CLOCK": 2619,
                 "DCGM_FI_DEV_POWER_MGMT_LIMIT": 700, "DCGM_FI_PROF_GR_ENGINE_ACTIVE": 0.87,
                 "DCGM_FI_PROF_SM_ACTIVE": 0.925, "DCGM_FI_PROF_SM_OCCUPANCY": 0.4,
                 "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": 0.6, "DCGM_FI_PROF_DRAM_ACTIVE": 0.3}
        for name, want in exact.items():
            got = value(p, name, gpu=0)
            assert got is not None and abs(got - want) < 1e-9, (name, got, want)
        assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=1) == 71
        assert value(p, "DCGM_FI_DEV_FB_USED", gpu=1) == 1000
        assert value(p, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", gpu=0) >= 0
        assert value(p, "gpuwatch_gpu_lost", gpu=0) == 0
        assert "DCGM_FI_DEV_XID_ERRORS" not in p  # no XID yet: absent, not 0
        # HELP and TYPE for every family, counters as counters.
        assert "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n" \
               "# TYPE DCGM_FI_DEV_FB_USED gauge\n" in text
        assert "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n" in text
        assert "# TYPE gpuwatch_scrapes_total counter\n" in text
        families = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")}
        assert families == {line.split()[2] for line in text.splitlines()
                            if line.startswith("# HELP")}
        assert set(p) <= families
        assert value(p, "gpuwatch_sample_interval_seconds") == 0.2
        assert 0 <= value(p, "gpuwatch_sample_age_seconds") < 60
        assert value(p, "gpuwatch_samples_total") >= 1
        assert value(p, "process_resident_memory_bytes") > 1e6
        assert "gpuwatch_job_resident_memory_bytes" not in p  # serve wraps no job
        # The counter of scrapes counts this one.
        n = value(p, "gpuwatch_scrapes_total")
        assert value(parse(srv.metrics()), "gpuwatch_scrapes_total") == n + 1
        assert srv.stop() == 0


def test_openmetrics_when_asked(scenario):
    path = scenario({"devices": [const_h200(0)]})
    with Server(path, ["-i", "0.2"]) as srv:
        srv.wait_for(has_prof)
        status, headers, body = srv.get(
            "/metrics", {"Accept": "application/openmetrics-text;version=1.0.0,"
                                   "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"})
        assert status == 200
        assert headers["content-type"] == \
            "application/openmetrics-text; version=1.0.0; charset=utf-8"
        assert body.endswith("\n# EOF\n") and body.count("# EOF") == 1
        # dcgm-exporter's counter keeps its name; our counters drop _total from the family name.
        assert "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\n" in body
        assert "\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" in body
        assert "# TYPE gpuwatch_scrapes counter\ngpuwatch_scrapes_total " in body
        assert value(parse(body.replace("# EOF\n", "")), "DCGM_FI_DEV_GPU_TEMP", gpu=0) == 65
        status, headers, body = srv.get("/metrics")
        assert headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert "# EOF" not in body


def test_absent_values_are_absent_series(scenario):
    dev = const_h200(0, unsupported=["power", "gpm"])
    del dev["timeline"][0]["mem_clock_mhz"]  # a key no point mentions: NOT_SUPPORTED
    path = scenario({"devices": [dev]})
    with Server(path, ["-i", "0.2"]) as srv:
        time.sleep(0.5)  # several GPM periods: a ratio would have appeared by now
        p = parse(srv.metrics())
        assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=0) == 65
        for name in ("DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_PROF_SM_ACTIVE",
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE"):
            assert name not in p, name
        assert "gpuwatch_nvml_errors_total" not in p  # unsupported is not an error


def test_nvml_errors_by_call(scenario):
    # Time frozen: both GPM samples carry the same time, GpmMetricsGet fails (INVALID_ARGUMENT).
    path = scenario({"devices": [const_h200(0)]})
    with Server(path, ["-i", "0.1"], env_extra={"FAKE_NVML_TIME_SCALE": 0}) as srv:
        text = srv.wait_for(lambda p, t: (value(p, "gpuwatch_nvml_errors_total",
                                                call="nvmlGpmMetricsGet") or 0) >= 2,
                            what="GPM errors")
        p = parse(text)
        assert "DCGM_FI_PROF_SM_ACTIVE" not in p
        assert [lab["call"] for lab, _ in p["gpuwatch_nvml_errors_total"]] == \
            ["nvmlGpmMetricsGet"]
        assert "# TYPE gpuwatch_nvml_errors_total counter" in text


def test_xid_events(scenario):
    """XID events from the NVML event watcher: the last number per GPU, and a count."""
    devs = [const_h200(0), const_h200(1, events=[{"t": 0.2, "type": "xid", "data": 13},
                                                 {"t": 0.4, "type": "xid", "data": 79}])]
    with Server(scenario({"devices": devs}), ["-i", "0.2"]) as srv:
        p = parse(srv.wait_for(lambda p, t: value(p, "gpuwatch_xid_events_total", gpu=1) == 2,
                               what="two XID events"))
        assert value(p, "DCGM_FI_DEV_XID_ERRORS", gpu=1) == 79
        assert value(p, "DCGM_FI_DEV_XID_ERRORS", gpu=0) is None  # none yet: absent
        assert value(p, "gpuwatch_xid_events_total", gpu=0) == 0  # watched: a real 0
        assert "# TYPE DCGM_FI_DEV_XID_ERRORS gauge" in srv.metrics()


def test_xid_unwatched(scenario):
    """No GPU supports events: the count is unknown, so absent, not 0."""
    devs = [const_h200(0, unsupported=["events"]), const_h200(1, unsupported=["events"])]
    with Server(scenario({"devices": devs}), ["-i", "0.2"]) as srv:
        p = parse(srv.wait_for(lambda p, t: "gpuwatch_gpu_lost" in p))
        assert "gpuwatch_xid_events_total" not in p and "DCGM_FI_DEV_XID_ERRORS" not in p


def test_lost_gpu(scenario):
    # 30 s into the scenario: GPU 1 was lost at 20 s, GPU 0 keeps training.
    with Server(SCENARIOS / "two_gpus_one_lost.json", ["-i", "0.2"],
                env_extra={"FAKE_NVML_TIME_OFFSET": 30}) as srv:
        p = parse(srv.wait_for(lambda p, t: "gpuwatch_gpu_lost" in p))
        assert value(p, "gpuwatch_gpu_lost", gpu=1) == 1
        assert value(p, "gpuwatch_gpu_lost", gpu=0) == 0
        assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=0) is not None
        for name, series in p.items():
            if name.startswith("DCGM_"):
                assert all(lab["gpu"] == "0" for lab, _ in series), name
        assert srv.stop() == 0
        assert "GPU 1 was lost" in srv.stderr()


def test_scrapes_never_call_nvml(scenario, tmp_path):
    """Two servers sampling once an hour, one scraped 300 times: the same NVML calls. (The GPUs
    support no events, so that the event watcher, which waits on NVML in 100 ms slices, is not
    running: every NVML call left is made by the sampler's schedule.)"""
    devs = [const_h200(i, unsupported=["events"]) for i in range(2)]
    path = scenario({"devices": devs})
    counts = []
    for scrapes in (0, 300):
        stats = tmp_path / f"stats{scrapes}.json"
        with Server(path, ["-i", "1h", "--per-process"],
                    env_extra={"FAKE_NVML_STATS": stats}) as srv:
            srv.wait_sample()
            for i in range(scrapes):
                body = srv.metrics("application/openmetrics-text" if i % 2 else None)
            if scrapes:
                p = parse(body)
                assert value(p, "gpuwatch_scrapes_total") == scrapes
                assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=1) == 65
            assert srv.stop() == 0
        counts.append(json.loads(stats.read_text())["calls"])
    assert counts[0]["nvmlDeviceGetTemperature"] >= 2  # the counts are real
    assert counts[0]["nvmlEventSetWait_v2"] == 0
    assert counts[0] == counts[1]


def test_per_process_memory(scenario):
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        me = os.getpid()
        comm = open(f"/proc/{me}/comm").read().strip()
        dev = const_h200(0, processes=[
            {"pid": me, "used_mib": 1000}, {"pid": sleeper.pid, "used_mib": 500},
            {"pid": 4194000, "used_mib": 30}, {"pid": os.getppid(), "used_mib": None,
                                               "type": "graphics"}])
        path = scenario({"devices": [dev]})
        with Server(path, ["-i", "0.2", "--per-process"]) as srv:
            p = parse(srv.wait_for(lambda p, t: "gpuwatch_process_memory_used_bytes" in p))
            got = {lab["process"]: v for lab, v in p["gpuwatch_process_memory_used_bytes"]}
            assert got == {comm: 1000 * MIB, "sleep": 500 * MIB, "unknown": 30 * MIB}
            assert all("cmdline" not in lab for lab, _ in p["gpuwatch_process_memory_used_bytes"])
            assert all(lab["UUID"] == dev["uuid"]
                       for lab, _ in p["gpuwatch_process_memory_used_bytes"])
        with Server(path, ["-i", "0.2", "--per-process", "--cmdline"]) as srv:
            p = parse(srv.wait_for(lambda p, t: "gpuwatch_process_memory_used_bytes" in p))
            cmd = {lab["process"]: lab.get("cmdline") for lab, _ in
                   p["gpuwatch_process_memory_used_bytes"]}
            assert cmd["sleep"] == "sleep 60"
            assert cmd["unknown"] is None
        with Server(path, ["-i", "0.2"]) as srv:
            time.sleep(0.5)
            assert "gpuwatch_process" not in srv.metrics()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_pages(scenario):
    path = scenario({"devices": [const_h200(0), const_h200(1)]})
    with Server(path, ["-i", "0.2"]) as srv:
        status, headers, body = srv.get("/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert 'href="/metrics"' in body and "2 NVIDIA GPUs" in body
        srv.wait_for(lambda p, t: "gpuwatch_sample_age_seconds" in p)
        status, _, body = srv.get("/healthz")
        assert status == 200 and body.startswith("ok: the last sample is")
        status, _, body = srv.get("/metrics?name[]=x")  # queries are ignored
        assert status == 200 and "DCGM_FI_DEV_GPU_TEMP" in body


def test_healthz_starting_then_stale(scenario):
    # Every utilization read takes 6.5 s: no sample at first, then one that is too old.
    dev = const_h200(0, latency_ms={"util": 6500})
    path = scenario({"devices": [dev]})
    with Server(path, ["-i", "0.05"]) as srv:
        status, _, body = srv.get("/healthz")
        assert (status, body) == (503, "starting: no sample yet\n")
        assert "DCGM_FI_DEV_GPU_TEMP" not in srv.metrics()
        deadline = time.monotonic() + 30
        while (status := srv.get("/healthz"))[0] == 503 and "starting" in status[2]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert status[0] == 503 and status[2].startswith("stale: the last sample is"), status
        assert srv.stop() == 0


def test_run_listen(scenario, tmp_path):
    """`gpuwatch run --listen` serves the job's GPUs while it runs; the job scrapes itself."""
    path = scenario({"devices": [const_h200(0, temp=77)]})
    out = tmp_path / "scrape.txt"
    job = ("import os, sys, time, urllib.request\n"
           "url = os.environ['GPUWATCH_METRICS_URL']\n"
           "for _ in range(200):\n"
           "    t = urllib.request.urlopen(url).read().decode()\n"
           "    if 'DCGM_FI_PROF_SM_ACTIVE' in t: break\n"
           "    time.sleep(0.05)\n"
           "open(sys.argv[2], 'w').write(t)\n")
    r = gw(["run", "-o", tmp_path / "run", "-i", "0.2", "--no-report", "--listen",
            "127.0.0.1:0", "--", sys.executable, "-c", job, "-", out], path)
    assert r.returncode == 0, r.stderr
    # port 0: the system's pick, said on stderr and given to the job as GPUWATCH_METRICS_URL
    port = int(re.search(r"serving metrics on http://127\.0\.0\.1:(\d+)/metrics", r.stderr)[1])
    assert port > 0
    p = parse(out.read_text())
    assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=0) == 77
    assert abs(value(p, "DCGM_FI_PROF_SM_ACTIVE", gpu=0) - 0.925) < 1e-9
    assert value(p, "gpuwatch_job_resident_memory_bytes") > 1e6  # the Python job's RSS
    assert (tmp_path / "run" / "gpu.csv").exists()
    with socket.socket() as s:  # gone with the job
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_run_listen_errors(scenario, tmp_path):
    path = scenario({"devices": [const_h200(0)]})
    r = gw(["run", "--listen", "localhost", "--", "true"], path)
    assert r.returncode == 2 and "--listen 'localhost': no port" in r.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = gw(["run", "-o", tmp_path / "r", "--listen", f"127.0.0.1:{port}", "--", "true"], path)
        assert r.returncode == 125, r.stderr
        assert f"cannot listen on 127.0.0.1:{port}: the address is already in use" in r.stderr
        assert not (tmp_path / "r").exists()  # nothing was created


def test_signals_stop_cleanly(scenario):
    path = scenario({"devices": [const_h200(0)]})
    for sig, name in ((signal.SIGTERM, "TERM"), (signal.SIGINT, "INT")):
        with Server(path, ["-i", "0.2"]) as srv:
            srv.metrics()
            assert srv.stop(sig) == 0
            assert f"gpuwatch: stopping ({name})" in srv.stderr()


def test_usage_and_runtime_errors(scenario):
    path = scenario({"devices": [const_h200(0)]})
    for args, msg in ((["--listen", "9400"], "--listen '9400': no port"),
                      (["--listen", "[::1]9400"], "must be followed by :PORT"),
                      (["-i", "0"], "-i"),
                      (["--cmdline"], "add --per-process"),
                      (["--max-connections", "0"], "--max-connections"),
                      (["--client-timeout", "0.5"], "--client-timeout"),
                      (["extra"], "serve takes no command")):
        r = gw(["serve"] + args, path, timeout=20)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr.splitlines()[0], (args, r.stderr)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = gw(["serve", "--listen", f"127.0.0.1:{port}"], path, timeout=20)
        assert r.returncode == 1
        assert r.stderr.count("\n") == 1 and "already in use" in r.stderr
        assert f"127.0.0.1:{port}" in r.stderr and "--listen HOST:PORT" in r.stderr
    r = gw(["serve", "--listen", "127.0.0.1:0"], SCENARIOS / "init_error_driver_not_loaded.json",
           timeout=20)
    assert r.returncode == 1 and "DRIVER_NOT_LOADED" in r.stderr
    r = gw(["serve", "--help"], path)
    assert r.returncode == 0 and "usage: gpuwatch serve" in r.stdout


def test_default_listen_is_loopback(scenario):
    """Without --listen, gpuwatch binds 127.0.0.1:9400 only (skipped if 9400 is taken here by
    something other than our tests: they take turns with it)."""
    path = scenario({"devices": [const_h200(0)]})
    with machine_lock("port-9400"):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", 9400)) == 0:
                import pytest
                pytest.skip("something already listens on 127.0.0.1:9400")
        proc = subprocess.Popen([GW, "serve"], env=gw_env(path), stderr=subprocess.PIPE,
                                text=True)
        try:
            line = proc.stderr.readline()
            assert "on http://127.0.0.1:9400/metrics" in line, line
            ss = subprocess.run(["ss", "-ltnH", "sport = :9400"], capture_output=True, text=True)
            if ss.returncode == 0:
                assert ss.stdout.split()[3] == "127.0.0.1:9400", ss.stdout
        finally:
            proc.terminate()
            assert proc.wait(20) == 0

"""`gpuwatch check` against the fake NVML: every item's states, the table, --json, and the Nagios
exit codes (0 ok, 1 warning, 2 critical, 3 unknown)."""
import json
import os
from pathlib import Path

import pytest

from conftest import gw, h200


def idle(**over):
    """An idle H200 at 35 C, nothing running."""
    tl = [{"t": 0, "util_gpu": 0, "util_mem": 0, "mem_used_mib": 0, "temp_c": 35, "power_w": 76,
           "sm_clock_mhz": 345, "clocks_event_reasons": 1, "pstate": 0}]
    point = over.pop("point", {})
    tl[0].update(point)
    return h200(timeline=tl, **over)


def check(scenario, devices, *args, **top):
    sc = scenario(dict(devices=devices, **top))
    r = gw(["check", "--json", *args], sc)
    out = json.loads(r.stdout) if r.stdout.strip() else None
    return r, out


def item(out, gpu, ident):
    return next(i for i in out["gpus"][gpu]["items"] if i["id"] == ident)


def test_healthy_gpu(scenario):
    r, out = check(scenario, [idle()])
    assert r.returncode == 0, r.stderr
    assert out["status"] == "ok" and out["exit_code"] == 0
    assert out["driver_version"] == "580.159.04"
    assert out["nvml_version"] == "12.580.159.04"
    assert out["cuda_driver_version"] == 13000
    g = out["gpus"][0]
    assert g["name"] == "NVIDIA H200" and g["pci_bus_id"] == "00000000:00:06.0"
    assert [i["id"] for i in g["items"]] == [
        "reachable", "idle_temperature", "memory_held", "throttle_reasons", "ecc_uncorrectable",
        "pending_repairs", "pcie_link", "nvml_latency"]
    assert {i["state"] for i in g["items"]} == {"ok"}
    assert item(out, 0, "idle_temperature")["value"] == 35
    assert item(out, 0, "throttle_reasons")["reason"] == "idle (0x1)"
    assert item(out, 0, "pcie_link")["reason"] == "gen 5 x16 of gen 5 x16"
    # the pending repairs item: the H200 remaps rows and does not retire pages
    assert item(out, 0, "pending_repairs")["reason"] == "no row remapping pending"


@pytest.mark.parametrize("temp,state,code", [(45, "ok", 0), (46, "warning", 1),
                                             (55, "warning", 1), (56, "critical", 2)])
def test_idle_temperature(scenario, temp, state, code):
    r, out = check(scenario, [idle(point={"temp_c": temp})])
    assert r.returncode == code
    assert item(out, 0, "idle_temperature")["state"] == state
    assert out["status"] == state


def test_idle_temperature_not_judged_on_a_busy_gpu(scenario):
    # 88 C while training is no cooling problem: the item is n/a, the GPU's status ok
    r, out = check(scenario, [idle(point={"temp_c": 88, "util_gpu": 97,
                                          "clocks_event_reasons": 0})])
    it = item(out, 0, "idle_temperature")
    assert (it["state"], it["value"]) == ("n/a", 88)
    assert it["reason"] == ("88 C, not judged: the GPU is working (GPU-Util 97 %); run check on "
                            "an idle GPU")
    assert r.returncode == 0 and out["status"] == "ok"
    r = gw(["check"], scenario({"devices": [idle(point={"temp_c": 88, "util_gpu": 97,
                                                        "clocks_event_reasons": 0})]}))
    assert "hot before training starts" not in r.stdout


@pytest.mark.parametrize("mask,state,words", [
    (0x4, "warning", "SW power cap"), (0x20, "warning", "SW thermal slowdown"),
    (0x8, "critical", "HW slowdown"), (0x40, "critical", "HW thermal slowdown"),
    (0x80, "critical", "HW power brake slowdown"), (0x10, "ok", "sync boost")])
def test_throttle_reasons(scenario, mask, state, words):
    r, out = check(scenario, [idle(point={"clocks_event_reasons": mask})])
    it = item(out, 0, "throttle_reasons")
    assert it["state"] == state
    assert it["reason"].startswith(f"{words} (0x{mask:x})")
    assert r.returncode == {"ok": 0, "warning": 1, "critical": 2}[state]


def test_memory_held_by_another_process(scenario):
    me = os.getpid()
    comm = Path(f"/proc/{me}/comm").read_text().strip()
    dev = idle(point={"mem_used_mib": 20000},
               processes=[{"pid": me, "name": "trainer", "used_mib": 19500},
                          {"pid": 4194000, "name": "ghost", "used_mib": 500}])
    r, out = check(scenario, [dev])
    assert r.returncode == 1
    it = item(out, 0, "memory_held")
    assert it["state"] == "warning"
    assert it["value"] == 20000
    # each process's memory beside its pid, never after a parenthesis (issue 27)
    assert it["reason"].startswith(f"20000 of 143771 MiB used by pid {me} {comm} (19500 MiB), "
                                   "pid 4194000 (500 MiB; name hidden: another PID namespace)")
    assert out["gpus"][0]["processes"] == [
        {"pid": me, "name": comm, "used_mib": 19500, "type": "compute"},
        {"pid": 4194000, "name": None, "used_mib": 500, "type": "compute"}]
    # more than half of the memory held by others is critical
    r, out = check(scenario, [idle(point={"mem_used_mib": 80000})])
    assert r.returncode == 2
    assert item(out, 0, "memory_held")["state"] == "critical"


@pytest.mark.parametrize("dev,ident,state", [
    ({"point": {"ecc_uncorrected": 1}}, "ecc_uncorrectable", "critical"),
    ({"unsupported": ["ecc"]}, "ecc_uncorrectable", "n/a"),
    ({"retired_pages_pending": True}, "pending_repairs", "warning"),
    ({"remapped_rows_pending": True}, "pending_repairs", "warning"),
    ({"unsupported": ["remapped_rows"]}, "pending_repairs", "n/a"),
    ({"pcie_link_width": 8}, "pcie_link", "warning"),
    ({"pcie_link_gen": 1}, "pcie_link", "ok"),  # idle: power saving
    ({"pcie_link_gen": 3, "point": {"util_gpu": 90, "clocks_event_reasons": 0}}, "pcie_link",
     "warning"),
    ({"unsupported": ["pcie"]}, "pcie_link", "n/a"),
])
def test_device_items(scenario, dev, ident, state):
    r, out = check(scenario, [idle(**dev)])
    assert item(out, 0, ident)["state"] == state, item(out, 0, ident)
    assert r.returncode == {"ok": 0, "n/a": 0, "warning": 1, "critical": 2}[state]


@pytest.mark.parametrize("ms,state,code", [(60, "warning", 1), (300, "critical", 2)])
def test_slow_nvml(scenario, ms, state, code):
    # two process lists (compute and graphics), each one call when nothing runs
    r, out = check(scenario, [idle(latency_ms={"processes": ms})])
    assert r.returncode == code
    it = item(out, 0, "nvml_latency")
    assert it["state"] == state
    assert 2 * ms <= it["value"] < 2 * ms + 400
    assert "slowest: process list" in it["reason"]


def test_lost_gpu_is_critical_and_the_other_is_checked(scenario):
    r, out = check(scenario, [idle(), idle(uuid="GPU-1", pci_bus_id="00000000:00:07.0",
                                           lost_after_s=0)])
    assert r.returncode == 2
    assert out["gpus"][0]["status"] == "ok"
    g1 = out["gpus"][1]
    assert g1["status"] == "critical"
    assert [i["id"] for i in g1["items"]] == ["reachable"]
    assert g1["items"][0]["reason"].startswith("no: nvmlDeviceGetHandleByIndex failed")


def test_unknown_when_nvml_cannot_be_used(scenario):
    r, out = check(scenario, [], init_error="DRIVER_NOT_LOADED")
    assert r.returncode == 3
    assert out["status"] == "unknown" and out["exit_code"] == 3
    assert "DRIVER_NOT_LOADED" in out["error"]
    assert r.stderr.startswith("gpuwatch check: NVML initialisation failed (DRIVER_NOT_LOADED)")
    r = gw(["check"], scenario({"devices": []}))
    assert r.returncode == 3
    assert "status: unknown (NVML reports no GPU) (exit 3)" in r.stdout


def test_table(scenario):
    sc = scenario({"devices": [idle(point={"temp_c": 50}),
                               idle(uuid="GPU-1", pci_bus_id="00000000:00:07.0")]})
    r = gw(["check"], sc)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0] == "driver 580.159.04, NVML 12.580.159.04, CUDA 13.0, 2 GPUs"
    # the UUID on its own line: every line fits 80 columns in a pipe too
    assert lines[2] == "GPU 0  NVIDIA H200  00000000:00:06.0  warning"
    assert lines[3] == "  GPU-00000000-0000-0000-0000-000000000000"
    assert max(len(line) for line in lines) <= 80
    assert lines[5].startswith("  idle temperature   warning  50 C: hot before training starts")
    assert lines[-1] == "status: warning — 1 ok, 1 warning, 0 critical (exit 1)"
    assert "\033[" not in r.stdout  # NO_COLOR


def test_thresholds_from_configuration(scenario, tmp_path):
    ini = tmp_path / "g.ini"
    ini.write_text("[check]\nidle_temp_warning = 60\nidle_temp_critical = 70\n")
    r, out = check(scenario, [idle(point={"temp_c": 50})], "--config", ini)
    assert r.returncode == 0
    assert item(out, 0, "idle_temperature")["reason"] == \
        "50 C (warning above 60 C, critical above 70 C)"
    r, out = check(scenario, [idle(point={"temp_c": 50})], "--config", ini,
                   "--set", "check.idle_temp_critical=49")
    assert r.returncode == 3  # critical below warning: a bad configuration
    assert "[check]: a critical threshold lies below its warning threshold" in r.stderr


@pytest.mark.parametrize("args,msg", [
    (["--bogus"], "gpuwatch check: unknown option '--bogus'"),
    (["extra"], "gpuwatch check: unexpected argument 'extra'"),
    (["--set", "check.idle_temp_warning=hot"], "[check] idle_temp_warning: bad value 'hot'"),
    (["--config", "/nonexistent/g.ini"], "cannot read the configuration file /nonexistent/g.ini")])
def test_usage_errors_are_unknown(scenario, args, msg):
    r = gw(["check", *args], scenario({"devices": [idle()]}))
    assert r.returncode == 3
    assert msg in r.stderr

"""`gpuwatch query`: nvidia-smi's --query-gpu syntax and output, end to end against the fake NVML."""
import json
import os
import re
import signal
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import GW, SCENARIOS, DATA, SOURCE, gw, gw_env

ALL = ("timestamp,driver_version,count,name,uuid,pci.bus_id,index,pcie.link.gen.current,"
       "pcie.link.gen.gpucurrent,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,"
       "fan.speed,pstate,clocks_event_reasons.active,clocks_event_reasons.gpu_idle,"
       "clocks_event_reasons.applications_clocks_setting,clocks_event_reasons.sw_power_cap,"
       "clocks_event_reasons.hw_slowdown,clocks_event_reasons.hw_thermal_slowdown,"
       "clocks_event_reasons.hw_power_brake_slowdown,clocks_event_reasons.sw_thermal_slowdown,"
       "clocks_event_reasons.sync_boost,memory.total,memory.reserved,memory.used,memory.free,"
       "utilization.gpu,utilization.memory,ecc.errors.uncorrected.volatile.total,temperature.gpu,"
       "temperature.memory,power.draw,power.limit,enforced.power.limit,clocks.current.graphics,"
       "clocks.current.sm,clocks.current.memory,clocks.max.sm,clocks.max.memory,gpm.sm_active,"
       "gpm.sm_occupancy,gpm.tensor_active,gpm.dram_active")

HEADER = ("timestamp, driver_version, count, name, uuid, pci.bus_id, index, pcie.link.gen.current, "
          "pcie.link.gen.gpucurrent, pcie.link.gen.max, pcie.link.width.current, "
          "pcie.link.width.max, fan.speed [%], pstate, clocks_event_reasons.active, "
          "clocks_event_reasons.gpu_idle, clocks_event_reasons.applications_clocks_setting, "
          "clocks_event_reasons.sw_power_cap, clocks_event_reasons.hw_slowdown, "
          "clocks_event_reasons.hw_thermal_slowdown, clocks_event_reasons.hw_power_brake_slowdown, "
          "clocks_event_reasons.sw_thermal_slowdown, clocks_event_reasons.sync_boost, "
          "memory.total [MiB], memory.reserved [MiB], memory.used [MiB], memory.free [MiB], "
          "utilization.gpu [%], utilization.memory [%], ecc.errors.uncorrected.volatile.total, "
          "temperature.gpu, temperature.memory, power.draw [W], power.limit [W], "
          "enforced.power.limit [W], clocks.current.graphics [MHz], clocks.current.sm [MHz], "
          "clocks.current.memory [MHz], clocks.max.sm [MHz], clocks.max.memory [MHz], "
          "gpm.sm_active [%], gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%]")

UUID = "GPU-3f2a9c1e-7b44-4d0a-9e61-0c5d2b8a1f00"


def full_device(**over):
    """An H200 with a constant value for every field (constant, so GPM averages are exact).
    Used memory is not a whole number of MiB: nvidia-smi rounds it up."""
    dev = {"name": "NVIDIA H200", "uuid": UUID, "pci_bus_id": "00000000:07:00.0",
           "memory_total_mib": 143771, "memory_reserved_mib": 615, "power_limit_w": 700,
           "max_sm_clock_mhz": 1980, "max_mem_clock_mhz": 3201, "pcie_link_gen": 4,
           "pcie_link_gen_max": 5, "pcie_link_width": 8, "pcie_link_width_max": 16,
           "timeline": [{"t": 0, "util_gpu": 98, "util_mem": 40, "mem_used_mib": 19999.2,
                         "temp_c": 70, "mem_temp_c": 65, "power_w": 650.004, "sm_clock_mhz": 1755,
                         "gr_clock_mhz": 1740, "mem_clock_mhz": 3201,
                         "clocks_event_reasons": 0xC5, "pstate": 2, "fan_pct": 30,
                         "ecc_uncorrected": 2, "sm_active": 91.6049, "sm_occupancy": 53.3,
                         "tensor_active": 14, "dram_active": 47.126}]}
    dev.update(over)
    return dev


# nvidia-smi's text for the values above, field by field (with units, then without).
EXPECTED = [("580.159.04",), ("1",), ("NVIDIA H200",), (UUID,), ("00000000:07:00.0",), ("0",),
            ("4",), ("4",), ("5",), ("8",), ("16",), ("30 %", "30"), ("P2",),
            ("0x00000000000000C5",), ("Active",), ("Not Active",), ("Active",), ("Not Active",),
            ("Active",), ("Active",), ("Not Active",), ("Not Active",),
            ("143771 MiB", "143771"), ("615 MiB", "615"), ("20000 MiB", "20000"),
            ("123157 MiB", "123157"), ("98 %", "98"), ("40 %", "40"), ("2",), ("70",), ("65",),
            ("650.00 W", "650.00"), ("700.00 W", "700.00"), ("700.00 W", "700.00"),
            ("1740 MHz", "1740"), ("1755 MHz", "1755"), ("3201 MHz", "3201"),
            ("1980 MHz", "1980"), ("3201 MHz", "3201"), ("91.60 %", "91.60"),
            ("53.30 %", "53.30"), ("14.00 %", "14.00"), ("47.13 %", "47.13")]

TS = re.compile(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}$")


def query(args, sc, **env):
    return subprocess.run([GW, "query"] + [str(a) for a in args], env=gw_env(sc, **env),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("nounits", [False, True])
def test_every_field_formats_like_nvidia_smi(scenario, nounits):
    sc = scenario({"devices": [full_device()]})
    fmt = "csv,nounits" if nounits else "csv"
    r = query([f"--query-gpu={ALL}", f"--format={fmt}"], sc)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0] == HEADER  # units stay in the header with nounits, as in nvidia-smi
    assert lines[2:] == [""]
    cells = lines[1].split(", ")
    assert TS.match(cells[0]), cells[0]
    want = [e[1] if nounits and len(e) > 1 else e[0] for e in EXPECTED]
    assert cells[1:] == want


def test_absent_values(scenario):
    everything = ["util", "memory", "temp", "power", "power_limit", "clocks",
                  "clocks_event_reasons", "pstate", "fan", "pcie", "ecc", "gpm"]
    dev = full_device(unsupported=everything)
    dev["timeline"][0].pop("mem_temp_c")
    r = query([f"--query-gpu={ALL}", "--format=csv,noheader"], scenario({"devices": [dev]}))
    assert r.returncode == 0, r.stderr
    cells = r.stdout.rstrip("\n").split(", ")
    static = cells[:7]  # timestamp, driver, count, name, uuid, bus id, index
    assert static[1:] == ["580.159.04", "1", "NVIDIA H200", UUID, "00000000:07:00.0", "0"]
    names = ALL.split(",")[7:]
    for name, cell in zip(names, cells[7:]):
        want = "N/A" if name == "temperature.memory" else "[N/A]"  # nvidia-smi's own quirk
        assert cell == want, name


def test_mig_parent_has_no_utilization():
    r = query(["--query-gpu=index,utilization.gpu,utilization.memory,memory.used",
               "--format=csv,noheader"], SCENARIOS / "h200_mig.json")
    assert r.stdout == "0, [N/A], [N/A], 20600 MiB\n"


def test_header_is_byte_for_byte_nvidia_smis():
    """The same field list as a real nvidia-smi 580 recording on an H200 (aliases included)."""
    nvsmi = (SOURCE / "examples/recordings/h200-resnet50-train.nvsmi.csv").read_text().splitlines()
    fields = ("timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,"
              "temperature.gpu,power.draw,power.limit,clocks.sm,clocks_event_reasons.active,pstate")
    r = query([f"--query-gpu={fields}", "--format=csv"], SCENARIOS / "h200_training.json")
    ours = r.stdout.splitlines()
    assert ours[0] == nvsmi[0]

    def shape(line):  # each cell with its digits abstracted: "80.45 W" -> "N.N W"
        return [re.sub(r"\d+", "N", c) for c in line.split(", ")]
    assert shape(ours[1]) in [shape(line) for line in nvsmi[1:]]


def test_traces_header():
    trace = DATA / "traces" / "compute_bound.nvsmi.csv"
    fields = ("timestamp,name,pci.bus_id,utilization.gpu,utilization.memory,memory.used,"
              "memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,"
              "clocks_event_reasons.active,pstate")
    r = query([f"--query-gpu={fields}", "--format=csv"], SCENARIOS / "h200_training.json")
    assert r.stdout.splitlines()[0] == trace.read_text().splitlines()[0]


def test_unknown_field_and_usage_errors(scenario):
    sc = scenario({"devices": [full_device()]})
    r = query(["--query-gpu=index,clocks.smm", "--format=csv"], sc)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith('Field "clocks.smm" is not a valid field to query. '
                               'Did you mean "clocks.sm"?')
    for args in (["--format=csv"], ["--query-gpu=index"], ["--query-gpu=index", "--format=json"],
                 ["--query-gpu=index", "--format=noheader"], ["--query-gpu=index", "--format=csv",
                                                              "-lms", "10"],
                 ["--query-gpu=index", "--format=csv", "-l", "0"], ["--query-gpu=index",
                                                                   "--format=csv", "--bogus"],
                 ["--query-gpu=index", "--format=csv", "-i"]):
        r = query(args, sc)
        assert r.returncode == 2, args
        assert r.stdout == "", args
        assert r.stderr, args


def test_help_query_gpu_lists_every_field(scenario):
    r = query(["--help-query-gpu"], None)
    assert r.returncode == 0
    assert r.stdout.startswith('List of valid properties to query for the switch "--query-gpu":')
    for name in ALL.split(","):
        assert f'\n"{name}"' in r.stdout, name
    assert '"clocks.current.sm" or "clocks.sm"' in r.stdout


def three_gpus():
    return {"devices": [full_device(uuid=f"GPU-{i}0000000-0000-0000-0000-000000000000",
                                    pci_bus_id=f"00000000:{i + 6:02X}:00.0") for i in range(3)]}


def test_select_gpus(scenario):
    sc = scenario(three_gpus())
    q = ["--query-gpu=index,pci.bus_id", "--format=csv,noheader"]
    assert query(q + ["-i", "2,0"], sc).stdout == "2, 00000000:08:00.0\n0, 00000000:06:00.0\n"
    assert query(q + ["--id=gpu-10000000-0000-0000-0000-000000000000"], sc).stdout.startswith("1,")
    assert query(q + ["-i", "7:00.0"], sc).stdout == "1, 00000000:07:00.0\n"
    assert query(q + ["--id", "00000000:08:00.0,0"], sc).stdout.splitlines() == [
        "2, 00000000:08:00.0", "0, 00000000:06:00.0"]
    r = query(q + ["-i", "3"], sc)
    assert r.returncode == 2
    assert "no GPU matches -i '3': this machine has 3 GPUs (indexes 0-2)" in r.stderr


def test_output_file(scenario, tmp_path):
    out = tmp_path / "q.csv"
    r = query(["--query-gpu=index,memory.used", "--format=csv", "-f", out],
              scenario(three_gpus()))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert out.read_text() == ("index, memory.used [MiB]\n0, 20000 MiB\n1, 20000 MiB\n"
                               "2, 20000 MiB\n")
    r = query(["--query-gpu=index", "--format=csv", "-f", tmp_path / "no/such/dir/x.csv"],
              scenario(three_gpus()))
    assert r.returncode == 1
    assert "cannot write" in r.stderr


def run_loop(args, sc, seconds, sig=signal.SIGINT, **env):
    p = subprocess.Popen([GW, "query"] + [str(a) for a in args], env=gw_env(sc, **env),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    p.send_signal(sig)
    out, err = p.communicate(timeout=10)
    return p.returncode, out, err


def test_loop_ms_rows_over_a_fixed_time(scenario):
    sc = scenario({"devices": [full_device(), full_device(uuid="GPU-2", pci_bus_id="0:8:0.0")]})
    rc, out, err = run_loop(["--query-gpu=timestamp,index,utilization.gpu", "--format=csv",
                             "-lms", "100"], sc, 2.0)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "timestamp, index, utilization.gpu [%]"
    assert all(not ln.startswith("timestamp") for ln in lines[1:])  # one header only
    rows = [ln.split(", ") for ln in lines[1:]]
    per_gpu = [sum(1 for r in rows if r[1] == i) for i in ("0", "1")]
    # 2 s at 10 Hz is about 20 rows per GPU: a loose bound, not a timing assertion
    assert 8 <= per_gpu[0] <= 30 and per_gpu[0] == per_gpu[1], per_gpu
    stamps = [datetime.strptime(r[0], "%Y/%m/%d %H:%M:%S.%f") for r in rows]
    assert stamps == sorted(stamps)
    assert all(r[2] == "98 %" for r in rows)


def test_loop_seconds_to_a_file_until_sigterm(scenario, tmp_path):
    out = tmp_path / "l.csv"
    rc, stdout, err = run_loop(["--query-gpu=index,power.draw", "--format=csv,noheader",
                                "-l", "1", "-f", out], scenario({"devices": [full_device()]}),
                               1.5, signal.SIGTERM)
    assert rc == 0, err
    assert stdout == ""
    assert out.read_text().splitlines() in (["0, 650.00 W"] * 2, ["0, 650.00 W"] * 3)


def test_static_values_are_read_once(scenario, tmp_path):
    stats = tmp_path / "stats.json"
    rc, out, err = run_loop(["--query-gpu=clocks.max.sm,clocks.max.memory,pcie.link.gen.max,"
                             "power.limit,clocks.sm", "--format=csv,noheader", "-lms", "100"],
                            scenario({"devices": [full_device()]}), 1.5,
                            FAKE_NVML_STATS=stats)
    assert rc == 0, err
    rows = out.splitlines()
    assert len(rows) >= 5 and set(rows) == {"1980 MHz, 3201 MHz, 5, 700.00 W, 1755 MHz"}
    calls = json.loads(stats.read_text())["calls"]
    assert calls["nvmlDeviceGetMaxClockInfo"] == 2  # 1.4 ms each on an H200: once per clock
    assert calls["nvmlDeviceGetMaxPcieLinkGeneration"] == 1
    assert calls["nvmlDeviceGetClockInfo"] >= len(rows)  # the current clock, every tick
    # the power limit (163 us a call) comes from the slow thread, about once a second
    assert calls["nvmlDeviceGetPowerManagementLimit"] <= 4
    # a one-shot query asks NVML for nothing it does not print
    r = query(["--query-gpu=index,name", "--format=csv"], scenario({"devices": [full_device()]}),
              FAKE_NVML_STATS=stats)
    calls = json.loads(stats.read_text())["calls"]
    for name in ("nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetPowerManagementLimit",
                 "nvmlGpmQueryDeviceSupport", "nvmlDeviceGetMigMode",
                 "nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetUtilizationRates",
                 "nvmlDeviceGetMemoryInfo_v2"):
        assert calls[name] == 0, name


def test_timestamps_are_local_time(scenario):
    r = query(["--query-gpu=timestamp", "--format=csv,noheader"],
              scenario({"devices": [full_device()]}), TZ="Asia/Kolkata")
    ts = datetime.strptime(r.stdout.strip(), "%Y/%m/%d %H:%M:%S.%f")
    now = datetime.now(timezone(timedelta(hours=5, minutes=30))).replace(tzinfo=None)
    assert abs((now - ts).total_seconds()) < 30


def test_reader_going_away_is_not_an_error(scenario):
    p = subprocess.Popen([GW, "query", "--query-gpu=index", "--format=csv", "-lms", "50"],
                         env=gw_env(scenario({"devices": [full_device()]})),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = [p.stdout.readline() for _ in range(3)]
    assert head == [b"index\n", b"0\n", b"0\n"]
    p.stdout.close()
    assert p.wait(timeout=10) == 0
    assert p.stderr.read() == b""


def test_no_gpu_and_no_driver(scenario):
    r = query(["--query-gpu=index", "--format=csv"], scenario({"devices": []}))
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("No devices were found")
    r = query(["--query-gpu=index", "--format=csv"],
              SCENARIOS / "init_error_driver_not_loaded.json")
    assert r.returncode == 1
    assert "DRIVER_NOT_LOADED" in r.stderr

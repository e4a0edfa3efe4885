"""Alert rules in `gpuwatch run` / `gpuwatch record` against the fake NVML: every threshold
crossed, thresholds only touched or crossed for less than their duration (no alert), hysteresis,
XID / ECC events, hooks (environment, timeout), and bad configuration files. Durations are
shortened through configuration files so that the tests take seconds."""
import json
import os
import signal
from pathlib import Path

import pytest

from conftest import PYTHON, events, gw, h200, read_csv, rfc3339_to_s


def dev(points, **over):
    """A device whose timeline is the given points over a quiet base."""
    base = {"t": 0, "util_gpu": 50, "util_mem": 10, "mem_used_mib": 1000, "temp_c": 60,
            "power_w": 300, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0}
    tl = [dict(base, **points[0])] + points[1:]
    return h200(timeline=tl, **over)


def alerts(run_dir, type_="alert"):
    return [e for e in events(run_dir) if e["type"] == type_]


def by_rule(evs):
    out = {}
    for e in evs:
        out.setdefault(e["rule"], []).append(e)
    return out


def run(scenario_path, tmp_path, ini=None, args=(), cmd=("sleep", "3"), interval="0.1", **env):
    out = tmp_path / "run"
    extra = []
    if ini is not None:
        p = tmp_path / "alerts.ini"
        p.write_text(ini)
        extra = ["--config", p]
    from conftest import gw_env
    r = gw(["run", "-o", out, "-i", interval, "--no-report", *extra, *args, "--", *cmd],
           env=gw_env(scenario_path, **env), timeout=120)
    return r, out


FAST = """
[temp_critical]
duration = 1s
[memory_critical]
trend_window = 2s
[xid]
clear_duration = 1s
[ecc_double_bit]
clear_duration = 1s
"""


def test_every_gpu_threshold_crossed(scenario, tmp_path):
    gpu0 = dev([{"t": 0, "temp_c": 70, "mem_used_mib": 100000},
                {"t": 1, "temp_c": 90, "mem_used_mib": 142000},
                {"t": 3, "temp_c": 90, "mem_used_mib": 142000},
                {"t": 3.5, "temp_c": 60, "mem_used_mib": 1000}],
               events=[{"t": 0.5, "type": "xid", "data": 79},
                       {"t": 0.7, "type": "double_bit_ecc"}])
    gpu1 = dev([{"t": 0}], uuid="GPU-1", pci_bus_id="00000000:00:07.0", lost_after_s=1)
    sc = scenario({"devices": [gpu0, gpu1]})
    r, out = run(sc, tmp_path, FAST, cmd=("sleep", "5"))
    assert r.returncode == 0, r.stderr
    fired = by_rule(alerts(out))
    resolved = by_rule(alerts(out, "alert_resolved"))
    assert sorted(fired) == ["ecc_double_bit", "gpu_lost", "memory_critical", "memory_warning",
                             "temp_critical", "temp_warning", "xid"]
    assert all(len(v) == 1 for v in fired.values()), fired  # each fires once
    t = fired["temp_warning"][0]
    assert t["gpu"] == 0 and t["severity"] == "warning" and t["metric"] == "temperature"
    assert t["threshold"] == 80 and t["clear"] == 77 and 80 < t["value"] <= 90
    c = fired["temp_critical"][0]
    assert c["severity"] == "critical" and c["threshold"] == 83 and c["duration_s"] >= 1
    m = fired["memory_critical"][0]
    # the report's levels (memory_near_capacity): above 98 % critical, above 92 % a warning; at
    # or above: a late tick on a loaded machine can read the ramp right at 98 %
    assert m["threshold"] == 98 and m["value"] >= 98 and m["severity"] == "critical"
    assert m["message"].endswith("above 98 %")
    assert fired["memory_warning"][0]["threshold"] == 92
    x = fired["xid"][0]
    assert x["gpu"] == 0 and x["value"] == 79 and x["threshold"] is None
    assert fired["gpu_lost"][0]["gpu"] == 1
    # the NVML events themselves, exactly as the watcher emits them
    raw = [{k: v for k, v in e.items() if k != "timestamp"} for e in events(out)
           if e["type"] in ("xid", "ecc_double_bit")]
    assert raw == [{"type": "xid", "gpu": 0, "xid": 79}, {"type": "ecc_double_bit", "gpu": 0}]
    # everything on GPU 0 resolves once (the lost GPU never comes back)
    assert sorted(resolved) == ["ecc_double_bit", "memory_critical", "memory_warning",
                                "temp_critical", "temp_warning", "xid"]
    assert all(len(v) == 1 for v in resolved.values()), resolved
    assert resolved["temp_warning"][0]["value"] <= 77
    assert resolved["xid"][0]["events"] == 1
    # one line on stderr for each
    err = r.stderr.splitlines()
    assert sum(l.startswith("gpuwatch: ALERT ") for l in err) == 7
    assert sum(l.startswith("gpuwatch: resolved ") for l in err) == 6
    assert "gpuwatch: ALERT critical gpu_lost: GPU 1 lost" in err
    assert "gpuwatch: ALERT critical xid: GPU 0 XID 79" in err


def test_touching_thresholds_fires_nothing(scenario, tmp_path):
    # exactly 80 C and exactly 92 % memory (92000 of 100000 MiB): not above either
    gpu = dev([{"t": 0, "temp_c": 80, "mem_used_mib": 92000}], memory_total_mib=100000)
    r, out = run(scenario({"devices": [gpu]}), tmp_path, FAST, cmd=("sleep", "2"))
    assert r.returncode == 0, r.stderr
    assert alerts(out) == []
    assert "ALERT" not in r.stderr


def test_crossing_for_less_than_the_duration(scenario, tmp_path):
    # 86 C for about 1 s, while temp_critical needs 3 s: only the warning (no duration) fires
    gpu = dev([{"t": 0, "temp_c": 70}, {"t": 0.5, "temp_c": 86}, {"t": 1.5, "temp_c": 86},
               {"t": 1.6, "temp_c": 70}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, "[temp_critical]\nduration = 3s\n",
                 cmd=("sleep", "4"))
    assert r.returncode == 0, r.stderr
    fired = by_rule(alerts(out))
    assert list(fired) == ["temp_warning"]


def test_memory_plateau_is_not_critical(scenario, tmp_path):
    # a caching allocator settled at 95 %: a warning, not critical (the report says the same)
    gpu = dev([{"t": 0, "mem_used_mib": 95000}], memory_total_mib=100000)
    r, out = run(scenario({"devices": [gpu]}), tmp_path, FAST, cmd=("sleep", "3"))
    assert r.returncode == 0, r.stderr
    assert list(by_rule(alerts(out))) == ["memory_warning"]


@pytest.mark.parametrize("used_mib,severity", [(95000, "warning"), (99000, "critical")])
def test_live_alert_and_report_give_memory_one_severity(scenario, tmp_path, used_mib, severity):
    """92 % once fired a critical alert while the report called it a warning; both now judge
    memory at the levels of util/gw_severity.h (docs/alerts.md, "One scale, one set of levels")."""
    gpu = dev([{"t": 0, "mem_used_mib": used_mib}], memory_total_mib=100000)
    r, out = run(scenario({"devices": [gpu]}), tmp_path, cmd=("sleep", "2"))
    assert r.returncode == 0, r.stderr
    live = max((a["severity"] for a in alerts(out)), key=["warning", "critical"].index)
    p = gw(["report", out, "--json", tmp_path / "s.json"])
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    near = [v for v in s["verdicts"] if v["id"] == "memory_near_capacity"]
    assert len(near) == 1 and near[0]["severity"] == live == severity
    threshold = near[0]["thresholds"]["peak_pct"]
    assert threshold["value"] == max(a["threshold"] for a in alerts(out))


def test_hysteresis(scenario, tmp_path):
    # 79 <-> 82 C every 0.3 s around the 80 C threshold, then down to 70: one alert, one resolve
    pts = [{"t": 0, "temp_c": 70}]
    for k in range(12):
        pts.append({"t": 0.3 + 0.3 * k, "temp_c": 82 if k % 2 == 0 else 79})
    pts.append({"t": 4.0, "temp_c": 79})
    pts.append({"t": 4.1, "temp_c": 70})
    r, out = run(scenario({"devices": [dev(pts)]}), tmp_path, None, cmd=("sleep", "5"))
    assert r.returncode == 0, r.stderr
    assert len(alerts(out)) == 1
    res = alerts(out, "alert_resolved")
    assert len(res) == 1 and res[0]["rule"] == "temp_warning"
    assert res[0]["value"] <= 77 and res[0]["peak"] >= 81
    assert rfc3339_to_s(res[0]["timestamp"]) - rfc3339_to_s(alerts(out)[0]["timestamp"]) > 3


JOB = """
[job_memory_warning]
threshold = 150
clear = 100
warmup = 0.5s
[job_memory_critical]
threshold = 300
clear = 250
warmup = 0.5s
trend_window = 4s
"""

# The trend window (4 s) is much longer than the step's allocation takes even on a loaded
# machine (a 400 MiB memset sampled over several ticks must still read as a step, not a line);
# the growth lasts longer than the window.
GROW = ("import time\nkeep = []\ntime.sleep(1.0)\n"
        "for i in range(32):\n    keep.append(b'x' * (20 << 20)); time.sleep(0.15)\n"
        "time.sleep(1.0)\n")
# A step of 400 MiB in one system call, however loaded the machine: the pages are filled in a
# memfd first (not in the job's RSS until mapped), then mapped at once with MAP_POPULATE. A
# memset of 400 MiB on a loaded 2-core machine took 3 s and read as linear growth.
STEP = ("import mmap, os, time\nfd = os.memfd_create('step')\nchunk = b'x' * (1 << 20)\n"
        "for i in range(400):\n    os.write(fd, chunk)\n"
        "time.sleep(1.5)\n"
        "m = mmap.mmap(fd, 400 << 20, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE)\n"
        "time.sleep(2.5)\n")


def test_job_memory_growing_linearly(scenario, tmp_path):
    r, out = run(scenario({"devices": [dev([{"t": 0}])]}), tmp_path, JOB,
                 cmd=(PYTHON, "-c", GROW))
    assert r.returncode == 0, r.stderr
    fired = by_rule(alerts(out))
    assert sorted(fired) == ["job_memory_critical", "job_memory_warning"]
    w, c = fired["job_memory_warning"][0], fired["job_memory_critical"][0]
    assert w["gpu"] is None and w["metric"] == "job_rss_growth" and w["value"] > 150
    assert c["value"] > 300 and c["message"].endswith("and growing linearly")


def test_job_memory_step_is_only_a_warning(scenario, tmp_path):
    r, out = run(scenario({"devices": [dev([{"t": 0}])]}), tmp_path, JOB,
                 cmd=(PYTHON, "-c", STEP))
    assert r.returncode == 0, r.stderr
    fired = by_rule(alerts(out))
    assert list(fired) == ["job_memory_warning"]
    assert fired["job_memory_warning"][0]["value"] > 150


def test_slow_sample(scenario, tmp_path):
    gpu = dev([{"t": 0}], latency_ms={"temp": 120})
    r, out = run(scenario({"devices": [gpu]}), tmp_path,
                 "[slow_sample]\nthreshold = 100\nclear = 50\nduration = 0.5s\n", interval="0.3",
                 cmd=("sleep", "1.5"))
    assert r.returncode == 0, r.stderr
    a = by_rule(alerts(out))["slow_sample"][0]
    assert a["gpu"] is None and 100 < a["value"] < 1000 and a["threshold"] == 100


def hook_script(tmp_path, body):
    p = tmp_path / "hook.py"
    p.write_text("import os, sys\n" + body)
    return p


def test_hook_receives_the_alert(scenario, tmp_path):
    log = tmp_path / "hook.log"
    hook = hook_script(tmp_path, f"""
with open({str(log)!r}, 'a') as f:
    env = {{k: v for k, v in os.environ.items() if k.startswith('GPUWATCH_')}}
    f.write(repr((sys.argv[1:], env)) + '\\n')
""")
    gpu = dev([{"t": 0, "temp_c": 70}, {"t": 0.5, "temp_c": 85}, {"t": 1.5, "temp_c": 85},
               {"t": 2, "temp_c": 60}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, None,
                 args=["--on-alert", PYTHON, hook, "one", "two words", ";"], cmd=("sleep", "3"))
    assert r.returncode == 0, r.stderr
    calls = [eval(line) for line in log.read_text().splitlines()]
    assert [c[1]["GPUWATCH_STATE"] for c in calls] == ["firing", "resolved"]
    argv, env = calls[0]
    assert argv == ["one", "two words"]
    assert env["GPUWATCH_ALERT"] == "temp_warning"
    assert env["GPUWATCH_SEVERITY"] == "warning"
    assert env["GPUWATCH_GPU"] == "0"
    assert env["GPUWATCH_THRESHOLD"] == "80"
    assert 80 < float(env["GPUWATCH_VALUE"]) <= 85
    assert env["GPUWATCH_METRIC"] == "temperature"
    assert env["GPUWATCH_RUN_DIR"] == str(out.resolve())
    fired = alerts(out)[0]
    assert env["GPUWATCH_VALUE"] == str(fired["value"]) or \
        float(env["GPUWATCH_VALUE"]) == fired["value"]
    assert env["GPUWATCH_MESSAGE"] == fired["message"]
    assert env["GPUWATCH_TIMESTAMP"] == fired["timestamp"]


def test_hook_without_arguments(scenario, tmp_path):
    log = tmp_path / "hook.log"
    hook = tmp_path / "notify"
    hook.write_text(f"#!/bin/sh\necho \"$# $GPUWATCH_STATE $GPUWATCH_ALERT\" >> {log}\n")
    hook.chmod(0o755)
    # hot for 1.5 s: on a loaded machine the first tick can come half a second late, and a
    # 0.5 s spike was then never seen (the hook never ran)
    gpu = dev([{"t": 0, "temp_c": 70}, {"t": 0.5, "temp_c": 85}, {"t": 2.0, "temp_c": 60}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, None, args=[f"--on-alert={hook}"],
                 cmd=("sleep", "3"))
    assert r.returncode == 0, r.stderr
    assert log.read_text().splitlines() == ["0 firing temp_warning", "0 resolved temp_warning"]


def test_hanging_hook_is_killed_and_sampling_goes_on(scenario, tmp_path):
    pids = tmp_path / "pids"
    hook = hook_script(tmp_path, f"""
with open({str(pids)!r}, 'a') as f:
    f.write(str(os.getpid()) + '\\n')
import time
time.sleep(100)
""")
    gpu = dev([{"t": 0, "temp_c": 85}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, None, interval="0.2",
                 args=["--on-alert", PYTHON, hook, ";", "--on-alert-timeout", "1"],
                 cmd=("sleep", "4"))
    assert r.returncode == 0, r.stderr
    assert ("gpuwatch: alert hook " + PYTHON + " for temp_warning (firing) still ran after 1 s: "
            "killed") in r.stderr
    hook_pids = [int(p) for p in pids.read_text().split()]
    assert len(hook_pids) == 1
    for p in hook_pids:
        assert not Path(f"/proc/{p}").exists() or \
            Path(f"/proc/{p}/stat").read_text().split(") ")[1][0] == "Z"
    # sampling went on at its interval while the hook hung: rows 0.2 s apart, never a gap as
    # long as the hook's 1 s (a tick that waited for the hook would leave one)
    _, rows = read_csv(out / "gpu.csv")
    ts = [rfc3339_to_s(row["timestamp"]) for row in rows]
    assert len(ts) >= 15
    assert max(b - a for a, b in zip(ts, ts[1:])) < 0.9
    gaps = sorted(b - a for a, b in zip(ts, ts[1:]))
    assert 0.19 <= gaps[len(gaps) // 2] <= 0.21  # the median spacing is the interval
    # the hook is not part of the job: the job is one `sleep`
    _, host = read_csv(out / "host.csv")
    assert {h["job.processes"] for h in host[1:]} == {"1"}


def test_record_judges_rules_too(scenario, tmp_path):
    gpu = dev([{"t": 0, "temp_c": 90}])
    out = tmp_path / "rec"
    r = gw(["record", "-o", out, "-i", "0.1", "--duration", "1", "--no-report"],
           scenario({"devices": [gpu]}))
    assert r.returncode == 0, r.stderr
    assert [a["rule"] for a in alerts(out)] == ["temp_warning"]


def test_no_alerts_flag(scenario, tmp_path):
    gpu = dev([{"t": 0, "temp_c": 90}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, None, args=["--no-alerts"],
                 cmd=("sleep", "1"))
    assert r.returncode == 0, r.stderr
    assert alerts(out) == []


def test_set_overrides_the_file(scenario, tmp_path):
    gpu = dev([{"t": 0, "temp_c": 75}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, "[temp_warning]\nthreshold = 90\n",
                 args=["--set", "temp_warning.threshold=70", "--set", "temp_warning.clear=65"],
                 cmd=("sleep", "1"))
    assert r.returncode == 0, r.stderr
    assert [(a["rule"], a["threshold"]) for a in alerts(out)] == [("temp_warning", 70)]


@pytest.mark.parametrize("ini,line,reason", [
    ("[temp_warning]\nthreshold = hot\n", 2, "[temp_warning] threshold: bad value 'hot'"),
    ("[alerts]\nenabled = true\n\n[temp_warnin]\nthreshold = 80\n", 5,
     "[temp_warnin]: no metric"),
    ("[memory_warning]\nclear = 95\n", 2, "clear 95 is above threshold 92"),
    ("[check]\n[xid]\nthreshold = 3\n", 3, "xid is an event"),
    ("[hook]\ncommand = /nonexistent/notify\n", 2, "alert hook: command not found"),
    ("[temp_warning]\nthreshold: 80\nduration 3\n", 3, "not a [section], KEY = VALUE"),
])
@pytest.mark.parametrize("cmd", ["run", "record"])
def test_bad_configuration_starts_nothing(scenario, tmp_path, ini, line, reason, cmd):
    p = tmp_path / "bad.ini"
    p.write_text(ini)
    out = tmp_path / "out"
    args = [cmd, "-o", out, "--config", p]
    args += ["--", "sleep", "0"] if cmd == "run" else ["--duration", "1"]
    r = gw(args, scenario({"devices": [dev([{"t": 0}])]}))
    assert r.returncode == 2
    assert r.stderr.startswith(f"gpuwatch {cmd}: {p}:{line}: ")
    assert reason in r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("args,msg", [
    (["--on-alert", "notify"], "--on-alert notify: end the hook's arguments with ';'"),
    (["--on-alert", "/nonexistent/x", ";"], "--on-alert: alert hook: command not found"),
    (["--set", "temp_warning=3"], "--set temp_warning=3: give SECTION.KEY=VALUE"),
    (["--on-alert-timeout", "soon"], "bad duration 'soon' for --on-alert-timeout"),
    (["--config", "/nonexistent/g.ini"], "cannot read the configuration file /nonexistent/g.ini"),
])
def test_bad_alert_flags(scenario, tmp_path, args, msg):
    out = tmp_path / "out"
    r = gw(["run", "-o", out, *args, "--", "sleep", "0"], scenario({"devices": [dev([{"t": 0}])]}))
    assert r.returncode == 2
    assert msg in r.stderr
    assert not out.exists()


def test_user_configuration_is_read(scenario, tmp_path):
    xdg = tmp_path / "xdg"
    (xdg / "gpuwatch").mkdir(parents=True)
    (xdg / "gpuwatch" / "gpuwatch.ini").write_text("[temp_warning]\nthreshold = 50\nclear = 40\n")
    gpu = dev([{"t": 0, "temp_c": 60}])
    r, out = run(scenario({"devices": [gpu]}), tmp_path, None, cmd=("sleep", "1"),
                 XDG_CONFIG_HOME=xdg)
    assert r.returncode == 0, r.stderr
    assert [(a["rule"], a["threshold"]) for a in alerts(out)] == [("temp_warning", 50)]

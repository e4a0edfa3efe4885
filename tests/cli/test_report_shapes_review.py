"""Issue 15 new-user review: shapes of real logs that were misread or refused with the wrong
reason (docs/report.md "Accepted shapes"). Inputs are written here."""
import json
import os
import subprocess

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")


def run(*args):
    return subprocess.run([BIN, "report", *map(str, args)], capture_output=True, text=True, env=ENV)


def stamp(i):
    return f"2025/06/01 10:{i // 60:02d}:{i % 60:02d}.000"


def test_home_made_name_never_overrides_the_real_column(tmp_path):
    # utilization.gpu and a home-made gpu_util side by side: the real column is read, the other
    # one is listed as ignored (it overwrote the real one: 10 % instead of 90 %).
    f = tmp_path / "both.csv"
    f.write_text("timestamp,utilization.gpu [%],gpu_util,memory.used [MiB],mem_used\n" +
                 "".join(f"{stamp(i)},90,10,5000,7\n" for i in range(30)))
    p = run(f, "--json", "-")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    st = s["gpus"][0]["stats"]
    assert st["utilization.gpu [%]"]["p50"] == 90
    assert st["memory.used [MiB]"]["max"] == 5000
    note = s["inputs"][0]["note"]
    assert "columns ignored: gpu_util, mem_used" in note
    assert "->" not in note
    assert not any(v["id"] == "gpu_starved" for v in s["verdicts"])
    # two home-made names for one value: the first is read
    f.write_text("time,gpu_util,util\n" + "".join(f"{stamp(i)},95,5\n" for i in range(30)))
    s = json.loads(run(f, "--json", "-").stdout)
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["p50"] == 95
    assert "columns ignored: util" in s["inputs"][0]["note"]
    assert "gpu_util -> utilization.gpu" in s["inputs"][0]["note"]

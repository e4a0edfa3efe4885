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


def test_gpus_without_timestamp_or_id(tmp_path):
    # rows of two GPU models, no timestamp and no index: refused, not merged into one GPU
    f = tmp_path / "mixed.csv"
    rows = ["name, utilization.gpu [%], memory.total [MiB]"]
    for _ in range(20):
        rows += ["NVIDIA A100-SXM4-40GB, 95, 40960", "Tesla T4, 0, 15360"]
    f.write_text("\n".join(rows) + "\n")
    p = run(f)
    assert p.returncode == 1
    err = p.stderr.strip().splitlines()
    assert len(err) == 1, err
    assert "line 3 names another GPU (name or memory.total)" in err[0]
    assert "add timestamp,index to the --query-gpu list" in err[0]
    # the same without name and memory.total cannot be told apart: taken as one GPU, and said
    f.write_text("utilization.gpu [%]\n" + "95\n3\n" * 20)
    s = json.loads(run(f, "--json", "-").stdout)
    assert len(s["gpus"]) == 1
    assert "every row taken as one GPU's" in s["inputs"][0]["note"]


def test_dmon_sentinels_are_not_busy(tmp_path):
    # a 4294967295 sm cell read "GPU busy 1431655825.0%"
    f = tmp_path / "dmon.txt"
    lines = ["# gpu   pwr gtemp mtemp    sm   mem", "# Idx     W     C     C     %     %"]
    for i in range(30):
        sm = "4294967295" if i % 3 == 0 else "90"
        pwr = "65535" if i % 5 == 0 else "250"
        lines.append(f"    0   {pwr}    60     -    {sm}    40")
    f.write_text("\n".join(lines) + "\n")
    p = run(f, "--json", "-")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    st = s["gpus"][0]["stats"]
    assert st["utilization.gpu [%]"]["max"] == 90
    assert st["power.draw [W]"]["max"] == 250
    assert s["inputs"][0]["impossible_dropped"] == {"utilization.gpu": 10, "power.draw": 6}
    assert abs(s["gpus"][0]["energy_wh"] - 250 * 30 / 3600) < 1e-3  # 2.08 Wh, not 102
    out = run(f).stdout
    assert "utilization.gpu: 10 impossible values dropped" in out
    assert "4294967295" not in out and "65535" not in out


def test_energy_counter_sentinel_and_power_every_other_row(tmp_path):
    f = tmp_path / "energy.csv"
    rows = ["timestamp, utilization.gpu [%], power.draw [W], total_energy_consumption [mJ]"]
    for i in range(40):
        e = 4294967295 if i == 12 else 1000000 + i * 300000
        rows.append(f"{stamp(i)}, 90, 300, {e}")
    f.write_text("\n".join(rows) + "\n")
    s = json.loads(run(f, "--json", "-").stdout)
    assert abs(s["gpus"][0]["energy_wh"] - 40 * 300 / 3600) < 1e-3  # it said 1195 Wh
    rows = ["timestamp, utilization.gpu [%], power.draw [W]"]
    rows += [f"{stamp(i)}, 95, {'300' if i % 2 == 0 else '[N/A]'}" for i in range(60)]
    f.write_text("\n".join(rows) + "\n")
    s = json.loads(run(f, "--json", "-").stdout)
    assert abs(s["gpus"][0]["energy_wh"] - 5.0) < 1e-3  # 4.83, "partial"
    assert s["gpus"][0]["energy_partial"] is False


def test_text_lines_fit_80_columns(tmp_path):
    # three GPUs without ids, one starved, one never working: evidence, suggestions, phases and
    # time lines were 95-320 columns; an evidence item is never cut
    f = tmp_path / "three.csv"
    rows = ["timestamp, utilization.gpu [%], memory.used [MiB]"]
    for i in range(40):
        rows += [f"{stamp(i)}, 91, 30000", f"{stamp(i)}, 0, 12000", f"{stamp(i)}, 50, 5000"]
    f.write_text("\n".join(rows) + "\n")
    p = subprocess.run([os.path.abspath(BIN), "report", "-v", "three.csv"], capture_output=True,
                       text=True, env=ENV, cwd=tmp_path)  # a short path: it is in two lines
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    heads = ("info", "warning", "critical", "gpuwatch report:")
    long = [l for l in lines if len(l) > 80 and not l.startswith(heads)]
    assert not long, long
    assert "          evidence: busy_pct=50 (< 80), idle_share_pct=0, work_s=40, bursts=1," in lines
    assert "  phases: startup 0.0 s, steady 40.0 s, tail 0.0 s (the GPU never worked);" in lines
    assert "    40 rows every 1.00 s" in lines
    # critical only below 50: a steady 50 % is a warning (it read "50 (< 50)")
    v = next(l for l in lines if "gpu_starved" in l)
    assert v.startswith("warning"), v


def test_absent_index_cell_is_no_new_gpu(tmp_path):
    # an [N/A] index made a second GPU of one row
    f = tmp_path / "na.csv"
    rows = ["timestamp, index, utilization.gpu [%]"]
    rows += [f"{stamp(i)}, {'[N/A]' if i == 7 else 0}, 90" for i in range(30)]
    f.write_text("\n".join(rows) + "\n")
    s = json.loads(run(f, "--json", "-").stdout)
    assert [g["index"] for g in s["gpus"]] == [0]
    assert s["inputs"][0]["rows"] == 29
    assert s["inputs"][0]["rows_skipped"] == 1 and s["inputs"][0]["first_bad_line"] == 9


def test_dmon_text_fits_80_columns(tmp_path):
    # dmon without Date/Time: the "no timestamp column" line and clocks.current.graphics [MHz]
    # (29 characters, one more than the table's name column) were 81-88 columns
    f = tmp_path / "d.txt"
    lines = ["# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk"]
    lines += ["    0   310    61     -    97    40     0     0  2619  1980"] * 30
    f.write_text("\n".join(lines) + "\n")
    p = subprocess.run([os.path.abspath(BIN), "report", "d.txt"], capture_output=True,
                       text=True, env=ENV, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    long = [l for l in lines if len(l) > 80 and not l.startswith(("info", "gpuwatch report:"))]
    assert not long, long
    assert "    no timestamp column: rows placed at a fixed interval" in lines
    i = lines.index("  clocks.current.graphics [MHz]")
    assert lines[i + 1].split() == ["1980"] * 5


def test_html_of_a_dateless_log_never_says_1970(tmp_path):
    # elapsed seconds: the text said "date unknown, +0.0 s", the page "1970-01-01T00:00:00.000Z"
    f = tmp_path / "elapsed.csv"
    f.write_text("elapsed_s,utilization.gpu,memory.used\n" +
                 "".join(f"{i * 0.5:.1f},90,1000\n" for i in range(30)))
    html = tmp_path / "r.html"
    p = run(f, "--html", html)
    assert p.returncode == 0, p.stderr
    page = html.read_text()
    assert "1970" not in page
    assert '<p class="meta">1 GPU, date unknown, +0.0 s to +15.0 s (15.0 s)</p>' in page
    assert '"dateless":true' in page
    src = os.environ.get("GPUWATCH_SOURCE")
    if not src or subprocess.run(["which", "node"], capture_output=True).returncode:
        return  # the browser half needs node and chromium (cli.test_html_report has them)
    shot = tmp_path / "shot.png"  # its time axis reads +0.0 s ... +15.0 s
    b = subprocess.run(["node", os.path.join(src, "tests/browser/check_report.mjs"), str(html),
                        str(shot), "1200"], capture_output=True, text=True, timeout=120)
    assert b.returncode == 0, b.stderr[-2000:]
    r = json.loads(b.stdout)
    assert r["pageErrors"] == [] and r["console"] == [], r
    assert r["charts"] and all(c["gridPoints"] == 30 for c in r["charts"]), r["charts"]

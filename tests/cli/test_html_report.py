"""The HTML report in headless Chromium (Debian's chromium, driven by playwright-core from npm via
tests/browser/check_report.mjs): a fake `gpuwatch run`, the shared traces and a long generated run
load with no console message, no page error and no network request, and every chart has the
series and point counts its inputs give. Screenshots go to build/screenshots/."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, DATA, SOURCE, gw, h200, read_csv

sys.path.insert(0, str(Path(__file__).parent))
import longrun  # noqa: E402

TRACES = DATA / "traces"
SHOTS = BUILD / "screenshots"
ENV_UTC = dict(os.environ, TZ="UTC", NO_COLOR="1")


def browse(html, name, width=1400):
    """Opens html in headless Chromium; returns what check_report.mjs saw."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"{name}.png"
    p = subprocess.run(["node", str(SOURCE / "tests/browser/check_report.mjs"), str(html),
                        str(shot), str(width)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"browser failed: {p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    r = json.loads(p.stdout)
    assert r["console"] == [], r["console"]
    assert r["pageErrors"] == [], r["pageErrors"]
    assert r["requests"] == [], r["requests"]  # nothing fetched: the file is self-contained
    assert shot.stat().st_size > 20000  # a screenshot of a real page, not a blank one
    return r


def chart(r, cid):
    found = [c for c in r["charts"] if c["id"] == cid]
    assert found, f"no chart {cid} in {[c['id'] for c in r['charts']]}"
    return found[0]


def series(c):
    return {s["label"]: s for s in c["series"]}


def cells(rows, column, index=None):
    """(present, absent) cell counts of a column of our CSV rows (of one GPU index)."""
    vals = [r[column] for r in rows if index is None or r["index"] == str(index)]
    return sum(v != "" for v in vals), sum(v == "" for v in vals)


def test_fake_run_writes_a_self_contained_report(scenario, tmp_path):
    timeline1 = [dict(p) for p in h200()["timeline"]]
    timeline1[0]["clocks_event_reasons"] = 4  # GPU 1 power-capped (masks hold until the next point)
    gpus = [h200(processes=[{"pid": "child", "name": "python3", "used_mib": 5000, "from_s": 0}]),
            h200(uuid="GPU-00000000-0000-0000-0000-000000000001",
                 pci_bus_id="00000000:00:07.0", timeline=timeline1)]
    sc = scenario({"devices": gpus})
    out = tmp_path / "run"
    script = ("import time\nfor e in (1, 2, 3):\n    print(f'Epoch {e}/3', flush=True)\n"
              "    time.sleep(0.7)\n")
    # the job's process holds GPU 0 only: --scope node keeps GPU 1 in the report (issue 17)
    r = gw(["run", "-o", out, "-i", "0.1", "--scope", "node", "--", sys.executable, "-c", script],
           sc)
    assert r.returncode == 0, r.stderr
    html = out / "report.html"
    assert html.exists()
    text = html.read_text()
    assert "<h2 id=\"verdicts\">" in text and "<h2 id=\"summary\">" in text
    assert text.index("id=\"summary\"") < text.index("id=\"gw-charts\"")  # tables above charts
    res = browse(html, "fake-run")
    _, gpu = read_csv(out / "gpu.csv")
    _, host = read_csv(out / "host.csv")
    _, procs = read_csv(out / "processes.csv")
    assert [c["id"] for c in res["charts"]] == ["util", "memory", "temp", "power", "clock",
                                                "host", "roles", "procs"]
    util = series(chart(res, "util"))
    assert sorted(util) == sorted(f"GPU {g} {m}" for g in (0, 1)
                                  for m in ("GPU-Util", "SM active", "tensor active"))
    for g in (0, 1):
        u = util[f"GPU {g} GPU-Util"]
        assert (u["points"], u["gaps"]) == cells(gpu, "utilization.gpu [%]", g)
        sm = util[f"GPU {g} SM active"]
        assert (sm["points"], sm["gaps"]) == cells(gpu, "gpm.sm_active [%]", g)
        assert sm["max"] <= 90
    mem = series(chart(res, "memory"))
    assert sorted(mem) == ["GPU 0", "GPU 1", "total (all GPUs)"]
    assert mem["GPU 0"]["points"] == cells(gpu, "memory.used [MiB]", 0)[0]
    assert abs(mem["total (all GPUs)"]["max"] - 143771 / 1024) < 0.01
    assert sorted(series(chart(res, "temp"))) == ["GPU 0", "GPU 1", "slowdown (all GPUs)"]
    assert series(chart(res, "temp"))["slowdown (all GPUs)"]["max"] == 89
    assert series(chart(res, "power"))["limit (all GPUs)"]["max"] == 700
    assert sorted(series(chart(res, "clock"))) == ["GPU 0", "GPU 1"]
    hc = series(chart(res, "host"))
    # the job's CPU with its roles beside it (issue 13): the wrapped command holds the fake GPU,
    # it has no workers (no trace), and the host's iowait
    assert sorted(hc) == ["host iowait CPU", "job CPU", "job RSS", "training process CPU"]
    # CPU by role (issue 27): each role's busiest process against the one-core line it is
    # judged by (cpu_bound, input_pipeline); no workers here
    roles = series(chart(res, "roles"))
    assert sorted(roles) == ["one core", "training process (busiest)"]
    assert roles["one core"]["min"] == roles["one core"]["max"] == 100
    assert roles["training process (busiest)"]["points"] == \
        cells(host, "job.train.cpu_max [%]")[0]
    assert hc["job CPU"]["points"] == cells(host, "job.cpu [%]")[0]
    assert hc["training process CPU"]["points"] == cells(host, "job.train.cpu [%]")[0]
    pc = chart(res, "procs")
    pid = procs[0]["pid"]
    assert [s["label"] for s in pc["series"]] == [f"GPU 0 python3 ({pid})"]
    assert pc["series"][0]["points"] == len(procs)
    assert abs(pc["series"][0]["max"] - 5000 / 1024) < 0.01
    data = json.loads(text.split('id="gw-data">', 1)[1].split("</script>", 1)[0])
    assert [e["label"] for e in data["epochs"]] == ["epoch 1/3", "epoch 2/3", "epoch 3/3"]
    assert {b[0] for b in data["bands"]} == {1} and {b[1] for b in data["bands"]} == {0}
    assert res["legend"] >= 20  # uPlot legends: one entry per series (and the time)


def test_shared_trace_with_gpm_and_log(tmp_path):
    html = tmp_path / "r.html"
    p = subprocess.run([str(BUILD / "gpuwatch"), "report",
                        TRACES / "epochs_with_validation.nvsmi.csv",
                        TRACES / "epochs_with_validation.gpm.csv",
                        "--log", TRACES / "epochs_with_validation.train.log", "--html", html],
                       capture_output=True, text=True, env=ENV_UTC)
    assert p.returncode == 0, p.stderr
    assert "Verdicts" in p.stdout  # the text report still goes to stdout
    res = browse(html, "epochs_with_validation")
    rows = [l for l in (TRACES / "epochs_with_validation.nvsmi.csv").read_text().splitlines()
            if l and not l.startswith("timestamp")]
    util = series(chart(res, "util"))
    assert util["GPU 0 GPU-Util"]["points"] == len(rows) == 455
    assert util["GPU 0 GPU-Util"]["max"] == 100 and util["GPU 0 GPU-Util"]["gaps"] == 0
    assert util["GPU 0 SM active"]["points"] > 400  # merged from the GPM file
    # the log's "train step 20" lines are a step counter: its rate is charted (issue 23)
    assert [c["id"] for c in res["charts"]] == ["util", "steps", "memory", "temp", "power",
                                                "clock"]
    data = json.loads(html.read_text().split('id="gw-data">', 1)[1].split("</script>", 1)[0])
    assert [e["label"] for e in data["epochs"]] == [f"epoch {i}/4" for i in range(1, 5)]
    rates = [v for v in data["charts"][1]["series"][0]["v"] if v is not None]
    assert rates and all(17 < v < 20 for v in rates)  # 20 steps every 1.09 s
    assert [v["id"] for v in data["verdicts"]] == ["gpu_saturated", "expected_dips"]


def test_long_run_is_decimated_and_keeps_spikes(tmp_path):
    run = tmp_path / "long"
    ticks = longrun.generate(str(run), gpus=6, hours=1, hz=10)
    html = tmp_path / "long.html"
    p = subprocess.run([str(BUILD / "gpuwatch"), "report", run, "--html", html],
                       capture_output=True, text=True, env=ENV_UTC)
    assert p.returncode == 0, p.stderr
    res = browse(html, "long-run")
    for c in res["charts"]:
        assert c["binned"] and c["gridPoints"] == 3200, c["id"]  # 1600 columns x 2
        for s in c["series"]:
            assert s["points"] <= 3200
    power = series(chart(res, "power"))
    assert power["GPU 3"]["max"] == longrun.SPIKE_POWER_W  # one sample in 36,000
    assert power["GPU 0"]["max"] < 605
    util = series(chart(res, "util"))
    # the one-sample dip to 0 of GPU 5: one more point at 0 than the start-up gives the others
    assert util["GPU 5 GPU-Util"]["min"] == util["GPU 4 GPU-Util"]["min"] == 0
    assert util["GPU 5 GPU-Util"]["atMin"] == util["GPU 4 GPU-Util"]["atMin"] + 1
    assert ticks == 36000
    assert html.stat().st_size < 1_500_000


def test_html_option_errors(tmp_path):
    nvsmi = TRACES / "compute_bound.nvsmi.csv"
    p = subprocess.run([str(BUILD / "gpuwatch"), "report", nvsmi, "--json", "-", "--html", "-"],
                       capture_output=True, text=True, env=ENV_UTC)
    assert p.returncode == 2 and "both want stdout" in p.stderr
    p = subprocess.run([str(BUILD / "gpuwatch"), "report", nvsmi, "--html",
                        tmp_path / "no" / "such" / "dir.html"], capture_output=True, text=True,
                       env=ENV_UTC)
    assert p.returncode == 1 and "cannot write" in p.stderr and "dir.html" in p.stderr
    p = subprocess.run([str(BUILD / "gpuwatch"), "report", nvsmi, "--html", "-"],
                       capture_output=True, text=True, env=ENV_UTC)
    assert p.returncode == 0 and p.stdout.startswith("<!DOCTYPE html>")
    assert "Verdicts\n" not in p.stdout  # the page replaces the text on stdout

"""gpuwatch compare (and report --compare) on real H200 recordings (examples/recordings): the
figures are those of each run's own report, the ratio is B/A, and a difference is called beyond
the noise only when it exceeds the spread between the runs' epochs (docs/compare.md)."""
import json
import math
import shutil
import subprocess

import pytest

from conftest import GW, SOURCE

REC = SOURCE / "examples" / "recordings"
W1 = REC / "h200-causes" / "yolo_w1b64"
W8 = REC / "h200-causes" / "yolo_w8b64"
YOLO3 = REC / "h200-yolov9-3epochs"


def gw(*args, ok=True):
    r = subprocess.run([GW, *map(str, args)], capture_output=True, text=True, timeout=120)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def compare_json(*runs):
    return json.loads(gw("compare", *runs, "--json", "-").stdout)


def report_json(run):
    return json.loads(gw("report", run, "--json", "-").stdout)


def test_workers_1_vs_8_takes_each_runs_own_figures():
    c = compare_json(W1, W8)
    a, b = c["runs"]
    assert (a["name"], b["name"]) == ("yolo_w1b64", "yolo_w8b64")
    assert a["verdict"] == {"id": "gpu_starved", "severity": "critical", "cause": "input_pipeline"}
    assert b["verdict"] == {"id": "gpu_starved", "severity": "warning", "cause": "cpu_bound"}
    for run, cmp in ((W1, a), (W8, b)):
        starved = [v for v in report_json(run)["verdicts"] if v["id"] == "gpu_starved"][0]
        assert cmp["metrics"]["gpu_busy_pct"]["value"] == pytest.approx(
            starved["evidence"]["busy_pct"], abs=0.05)
    assert a["metrics"]["gpu_busy_pct"]["value"] == pytest.approx(39.4, abs=0.05)
    assert b["metrics"]["gpu_busy_pct"]["value"] == pytest.approx(56.7, abs=0.05)
    assert a["metrics"]["peak_memory_mib"]["value"] == 30297
    assert b["metrics"]["peak_memory_mib"]["value"] == 30353
    # no epochs in these recordings: no steps/s, and the noise comes from fifths of the steady state
    assert a["metrics"]["steps_per_s"]["value"] is None
    assert a["metrics"]["gpu_busy_pct"]["spread_from"] == "steady_state_fifths"
    assert a["metrics"]["gpu_busy_pct"]["parts"] == 5
    m = c["comparisons"][0]["metrics"]
    assert m["gpu_busy_pct"]["ratio"] == pytest.approx(56.7 / 39.4, abs=0.01)
    assert m["steps_per_s"] == {"ratio": None, "beyond_noise": None}
    assert m["peak_memory_mib"]["beyond_noise"] is None  # no spread to judge it by
    # a data wait share only comes from in-job data, which these runs do not have
    assert a["metrics"]["data_wait_pct"]["value"] is None


def test_text_fits_80_columns_and_says_what_is_missing():
    out = gw("compare", W1, W8).stdout
    assert all(len(l) <= 80 for l in out.splitlines()), out
    assert "  A  yolo_w1b64: 112 s, 1 GPU, no epochs" in out
    assert "GPU busy [%]" in out and "1.44x" in out
    assert "critical  gpu_starved, cause input_pipeline" in out
    assert "need 2 epochs or more" in out
    assert "Data wait needs the in-job data" in out


def test_report_compare_is_compare():
    assert gw("report", "--compare", W1, W8).stdout == gw("compare", W1, W8).stdout


def test_same_run_twice_is_within_the_noise():
    c = compare_json(YOLO3, YOLO3)
    a = c["runs"][0]
    # two runs of one name are named by their paths
    assert a["name"] == str(YOLO3)
    epochs = report_json(YOLO3)["epochs"]
    sps = [e["steps_per_s"] for e in epochs]
    assert a["epochs"] == 3
    assert a["metrics"]["steps_per_s"]["value"] == pytest.approx(sum(sps) / 3, abs=0.001)
    mean = sum(sps) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in sps) / 3)  # the engine's (numpy.std's) sd
    assert a["metrics"]["steps_per_s"]["spread_pct"] == pytest.approx(100 * sd / mean, abs=0.01)
    assert a["metrics"]["steps_per_s"]["spread_from"] == "epochs"
    wh = [e["gpus"][0]["energy_wh"] for e in epochs]
    assert a["metrics"]["energy_per_epoch_wh"]["value"] == pytest.approx(sum(wh) / 3, abs=0.001)
    per_step = [w * 3600 / e["steps"] for w, e in zip(wh, epochs)]
    assert a["metrics"]["energy_per_step_j"]["value"] == pytest.approx(sum(per_step) / 3, rel=1e-3)
    for key, m in c["comparisons"][0]["metrics"].items():
        if m["ratio"] is not None:
            assert m["ratio"] == 1, key
            assert m["beyond_noise"] in (False, None), key


def test_halved_gpu_util_is_beyond_the_noise(tmp_path):
    """The same run with utilization.gpu halved: the busy share halves, beyond the spread of its
    epochs; steps/s (the job's own bars) does not move."""
    half = tmp_path / "half"
    shutil.copytree(YOLO3, half)
    lines = (half / "gpu.csv").read_text().splitlines()
    head = [h.strip() for h in lines[0].split(",")]
    k = head.index("utilization.gpu [%]")
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        if cells[k].strip():
            cells[k] = " " + str(int(cells[k]) // 2)
        out.append(",".join(cells))
    (half / "gpu.csv").write_text("\n".join(out) + "\n")
    c = compare_json(YOLO3, half)
    m = c["comparisons"][0]["metrics"]
    assert m["gpu_busy_pct"]["ratio"] == pytest.approx(0.5, abs=0.03)
    assert m["gpu_busy_pct"]["beyond_noise"] is True
    assert m["steps_per_s"]["ratio"] == 1 and m["steps_per_s"]["beyond_noise"] is False
    text = gw("compare", YOLO3, half).stdout
    assert "B against A, beyond the noise:\n  GPU busy [%]" in text
    assert "worse)" in text.split("GPU busy [%]")[-1].splitlines()[0]


def test_html_overlays_runs_on_a_relative_axis(tmp_path):
    html = gw("compare", W1, W8, "--html", "-").stdout
    data = json.loads(html.split('id="gw-data">')[1].split("</script>")[0])
    assert data["relative"] is True and data["t0"] == 0
    assert [g["label"] for g in data["gpus"]] == ["A yolo_w1b64", "B yolo_w8b64"]
    util = [c for c in data["charts"] if c["id"] == "util"][0]
    assert [s["label"] for s in util["series"]] == ["A yolo_w1b64", "B yolo_w8b64"]
    assert [s["gpu"] for s in util["series"]] == [0, 1]
    # the axis runs from each run's start to the longer run's end (111.6 s)
    assert 110000 < sum(util["x"]) <= 111700
    assert "<th>B/A</th>" in html


@pytest.mark.parametrize("args,rc,msg", [
    ([W1], 2, "give 2 to 26 runs"),
    ([W1, "/nonexistent/run"], 1, "/nonexistent/run"),
    ([W1, W8, "--json", "-", "--html", "-"], 2, "both want stdout"),
    ([W1, W8, "--bogus"], 2, "unknown option '--bogus'"),
])
def test_bad_input_is_one_line(args, rc, msg):
    r = gw("compare", *args, ok=False)
    assert r.returncode == rc and msg in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_html_in_chromium(tmp_path):
    """The page loads offline in headless Chromium with one line per run on every chart."""
    from test_html_report import browse, chart, series
    html = tmp_path / "compare.html"
    gw("compare", W1, W8, "--html", html)
    r = browse(html, "compare-yolo-workers", width=1200)
    for cid in ("util", "sm", "power", "memory"):
        s = series(chart(r, cid))
        assert set(s) == {"A yolo_w1b64", "B yolo_w8b64"}, cid
    util = series(chart(r, "util"))
    assert util["A yolo_w1b64"]["points"] == 558 and util["B yolo_w8b64"]["points"] == 314


INPROC = SOURCE / "tests" / "data" / "inproc"


def test_real_h200_workers_with_in_job_data():
    """22py's YOLOv9 runs on an H200 with the in-job data: 1 and 8 DataLoader workers, 2 epochs
    each (the training loader's passes). Every figure is the run's own report's."""
    a_dir, b_dir = INPROC / "h200_yolo_w1b64", INPROC / "h200_yolo_w8b64"
    c = compare_json(a_dir, b_dir)
    for run, cmp in zip((a_dir, b_dir), c["runs"]):
        rep = report_json(run)
        ip = rep["inproc"]
        mt = cmp["metrics"]
        assert cmp["epochs"] == len(rep["epochs"]) == 2
        assert mt["data_wait_pct"]["value"] == pytest.approx(ip["data_wait_share_pct"], abs=0.01)
        waits = [e["data_wait_share_pct"] for e in ip["epochs"]]
        mean = sum(waits) / len(waits)
        sd = math.sqrt(sum((w - mean) ** 2 for w in waits) / len(waits))
        assert mt["data_wait_pct"]["spread_pct"] == pytest.approx(100 * sd / mean, abs=0.05)
        sps = [e["steps_per_s"] for e in rep["epochs"]]
        assert mt["steps_per_s"]["value"] == pytest.approx(sum(sps) / len(sps), abs=0.001)
    m = c["comparisons"][0]["metrics"]
    assert m["steps_per_s"]["ratio"] == pytest.approx(2.07, abs=0.01)
    assert m["steps_per_s"]["beyond_noise"] is True
    assert m["data_wait_pct"]["ratio"] == pytest.approx(8.81 / 63.0, abs=0.005)
    assert m["data_wait_pct"]["beyond_noise"] is True
    assert [r["verdict"]["cause"] for r in c["runs"]] == ["input_pipeline", "cpu_bound"]
    text = gw("compare", a_dir, b_dir).stdout
    # one number of decimals for a quantity across the runs (issue 27): 0.923 beside 1.91
    # prints 0.92, 8.81 beside 63.0 prints 8.8, and the spreads 19 % and 8.9 % print 19 and 9
    assert "  steps/s 0.92 -> 1.91 (2.07x, better)" in text
    assert "  data wait [%] 63.0 -> 8.8 (0.14x, better)" in text
    table = text.split("\nverdict (")[0].splitlines()
    rows = {line[:20].strip(): line[20:].split() for line in table}
    assert rows["steps/s"] == ["0.92", "±32%", "1.91", "±21%", "2.07x*"]
    assert rows["energy/epoch [Wh]"] == ["2.41", "±19%", "1.54", "±9%", "0.64x*"]
    assert "Data wait needs" not in text


def test_data_wait_on_the_fake_gpu_runs():
    c = compare_json(INPROC / "real_input_bound", INPROC / "real_main_bound")
    a, b = (r["metrics"]["data_wait_pct"]["value"] for r in c["runs"])
    assert a > 85 and b < 15  # what 22py's job was made to do (~90 % and ~10 %)

"""The job's own phases from what it prints, replayed with its redraws through `gpuwatch run` on the
fake NVML (issue 14): epochs, validation_s and steps_per_s as the bars printed them; output.idx
lets the report read the output again, with an --epoch-regex given only afterwards."""
import json
import re
import sys

import pytest

from conftest import GW, PYTHON, SOURCE, gw, gw_env, h200

sys.path.insert(0, str(SOURCE / "tests" / "cli"))
from progress_fixtures import EXPECT  # noqa: E402

REPLAY = SOURCE / "tests" / "cli" / "replay_output.py"


def record(scenario, tmp_path, *cmd, opts=()):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", *opts, "--", *cmd], sc, timeout=120)
    assert r.returncode == 0, r.stderr
    return out, sc


def epochs(summary):
    return [(e["epoch"], e["total"], e.get("steps"), e.get("steps_per_s"), e.get("validation_s"))
            for e in summary["epochs"]]


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_replayed_output_gives_the_bars_figures(scenario, tmp_path, name):
    run, _ = record(scenario, tmp_path, PYTHON, REPLAY, name)
    s = json.loads((run / "summary.json").read_text())
    assert s["epoch_source"] == "output"
    got = epochs(s)
    assert len(got) == len(EXPECT[name]), got
    for g, want in zip(got, EXPECT[name]):
        assert g[:3] == want[:3], (g, want)
        for k in (3, 4):  # exact where the bars print their own times, else only present
            if want[k] is None:
                assert g[k] is None or g[k] > 0, (g, want)
            else:
                assert g[k] == want[k], (g, want)
    for e in s["epochs"]:
        assert e["duration_s"] >= 0 and e["start"] <= e["end"]
    # the live epoch events agree with the report on which epochs there were (Hugging Face's
    # epochs are only known at the end: its bar counts all steps)
    if name != "hf_trainer":
        ev = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
        assert [e["epoch"] for e in ev if e["type"] == "epoch"] == [w[0] for w in EXPECT[name]]


def test_stderr_bars_and_the_text_report(scenario, tmp_path):
    run, sc = record(scenario, tmp_path, PYTHON, REPLAY, "yolov9", "--stderr")
    idx = (run / "output.idx").read_text().splitlines()
    assert idx[0].startswith("# gpuwatch output index 1")
    offsets = [int(line.split()[0]) for line in idx[1:]]
    assert offsets[0] == 0 and offsets == sorted(offsets)
    assert offsets[-1] < (run / "output.log").stat().st_size
    r = gw(["report", run], sc)
    assert r.returncode == 0, r.stderr
    # one table of the epochs: the time before the first and after the last as rows of it
    section = r.stdout.split("\nEpochs (from output)")[1].split("\n\n")[0]
    lines = section.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["epoch", "start"])
    # (the GPU's busy share in a part needs a sample inside it: the replay's parts are short)
    assert lines[head].split()[:7] == ["epoch", "start", "total", "train", "val", "count", "/s"]
    assert lines[head].split()[-1] == "Wh"
    rows = [line.split() for line in lines[head + 1:] if not line.startswith("  checkpoint")]
    # (start-up and after are rows only when they hold a sample: this replay takes 0.3 s)
    names = [x[0] for x in rows]
    assert [n for n in names if n not in ("start-up", "after")] == ["1/3", "2/3", "3/3"]
    assert names == sorted(names, key=["start-up", "1/3", "2/3", "3/3", "after"].index)
    epochs = [x for x in rows if x[0] not in ("start-up", "after")]
    # validation seconds, steps and steps/s as the bars printed them
    assert [(x[0], x[4], x[5], x[6]) for x in epochs] == [
        ("1/3", "3", "8", "2"), ("2/3", "1", "8", "4"), ("3/3", "2", "8", "1")]
    assert "checkpoint saves inside the epochs: 2," in section
    assert "Epoch phases" not in r.stdout and "Job phases" not in r.stdout
    assert "nan" not in r.stdout.lower()
    assert all(len(line) <= 80 for line in section.splitlines())
    assert all(len(line) <= 80 for line in section.splitlines())


def test_mentions_make_no_epoch(scenario, tmp_path):
    lines = ["Epoch 1/2", "Saving checkpoint runs/exp/epoch_3.pt",
             "Best results observed at epoch 57, best model saved as best.pt.",
             "saving model checkpoint epoch 9", "Epoch 2/2"]
    script = "import time\nfor l in %r:\n    print(l, flush=True)\n    time.sleep(0.01)\n" % lines
    run, sc = record(scenario, tmp_path, PYTHON, "-c", script)
    s = json.loads((run / "summary.json").read_text())
    assert [e["epoch"] for e in s["epochs"]] == [1, 2]


def test_epoch_regex_after_the_run(scenario, tmp_path):
    """A pattern forgotten at the start can be given to the report: output.idx keeps the times."""
    script = ("import time\nfor r in (1, 2, 3):\n    print(f'round {r} of 3', flush=True)\n"
              "    time.sleep(0.05)\n")
    run, sc = record(scenario, tmp_path, PYTHON, "-c", script)
    s = json.loads((run / "summary.json").read_text())
    assert s["epochs"] == [] and s["epoch_source"] == "none"
    r = gw(["report", run, "--json", "-", "--epoch-regex", "round ([0-9]+) of ([0-9]+)"], sc)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["epoch_source"] == "output"
    assert [(e["epoch"], e["total"]) for e in s["epochs"]] == [(1, 3), (2, 3), (3, 3)]
    # the output and its index also go in as --log (its lines start with no time)
    r = gw(["report", run / "gpu.csv", "--log", run / "output.log", "--json", "-",
            "--epoch-regex", "round ([0-9]+)"], sc)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["epoch_source"] == "log" and [e["epoch"] for e in s["epochs"]] == [1, 2, 3]


def test_run_with_epoch_regex_is_read_back_with_it(scenario, tmp_path):
    script = ("import time\nfor r in (1, 2):\n    print(f'round {r}', flush=True)\n"
              "    print(f'Epoch {r + 5}/9', flush=True)\n    time.sleep(0.05)\n")
    run, sc = record(scenario, tmp_path, PYTHON, "-c", script,
                     opts=("--epoch-regex", "^round ([0-9]+)"))
    assert "# epoch-regex: ^round ([0-9]+)" in (run / "output.idx").read_text()
    s = json.loads((run / "summary.json").read_text())
    assert [e["epoch"] for e in s["epochs"]] == [1, 2]


def test_epoch_regex_on_a_run_without_index_says_why(scenario, tmp_path):
    run, sc = record(scenario, tmp_path, PYTHON, "-c", "print('round 1')")
    (run / "output.idx").unlink()
    r = gw(["report", run, "--epoch-regex", "round ([0-9]+)"], sc)
    assert r.returncode == 0, r.stderr
    assert "--epoch-regex cannot re-read this run: it has no output.idx" in r.stdout


def test_periodic_input_stall_is_not_validation(tmp_path):
    """The issue's 1 Hz log: idle 3 s of every 5 s for ten minutes, with a training log of
    checkpoint names and an early-stopping line: no epoch, no expected_dips, a starved GPU."""
    t0 = 1_800_000_000
    rows = ["timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]"]
    for k in range(600):
        busy = k % 5 < 2
        rows.append(f"{t0 + k}, 0, {98 if busy else 0}, 20000, {600 if busy else 90}")
    csv = tmp_path / "gpu.csv"
    csv.write_text("\n".join(rows) + "\n")
    log = tmp_path / "train.log"
    log.write_text(f"{t0 + 100} saving checkpoint epoch_3.pt\n"
                   f"{t0 + 200} Saving checkpoint to ckpt/epoch4.pt\n"
                   f"{t0 + 590} Stopping training early as no improvement observed in last 50 "
                   "epochs. Best results observed at epoch 57, best model saved as best.pt.\n")
    r = gw(["report", csv, "--log", log, "--json", "-"])
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["epochs"] == [] and s["epoch_source"] == "none"
    got = {v["id"] for v in s["verdicts"]}
    assert "expected_dips" not in got and "gpu_starved" in got
    assert all("nan" not in v["message"].lower() for v in s["verdicts"])


def test_real_yolov9_run_against_its_own_bars():
    """A real YOLOv9 train_dual.py run (3 epochs, yolov9-s, 8 workers, batch 64) on one H200 under
    gpuwatch run: the report's figures against what the bars printed. The bars' clocks print
    whole seconds ('38/38 00:20', '2/2 00:01'), so the figures lie within that second."""
    run = SOURCE / "examples" / "recordings" / "h200-yolov9-3epochs"
    r = gw(["report", run, "--json", "-"])
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["epoch_source"] == "output"
    train_clock = [20, 16, 15]  # the training bars' last draws: 38/38 00:20, 00:16, 00:15
    val_clock = [1, 0, 0]  # the validation bars': 2/2 00:01, 00:00, 00:00
    assert [(e["epoch"], e["total"], e["steps"]) for e in s["epochs"]] == [
        (1, 3, 38), (2, 3, 38), (3, 3, 38)]
    for e, tc, vc in zip(s["epochs"], train_clock, val_clock):
        assert 38 / (tc + 1) < e["steps_per_s"] <= 38 / tc, e
        assert vc <= e["validation_s"] < vc + 1, e
        g = e["gpus"][0]
        assert g["train_util_mean_pct"] > g["validation_util_mean_pct"] >= 0
    # the last epoch ends with its own validation, not with the final evaluation of best.pt
    assert s["epochs"][2]["duration_s"] < 18  # 16.2 s; with the final evaluation 19.8 s
    log = (run / "output.log").read_text(errors="replace")
    assert log.count("mAP50-95:   0%") == 4  # three epochs' validations and the final one
    # the job's phases: the data sets' "Scanning ..." bars (train: and val:) prepare data, they
    # are no training of 2400 steps at 29268 steps/s and no evaluation
    ph = s["job_phases"]
    assert [(p["kind"], p.get("steps")) for p in ph if p["kind"] == "train"] == [("train", 38)] * 3
    assert [p["kind"] for p in ph][:2] == ["train", "eval"]
    assert not any("Scanning" in p.get("named_by", "") for p in ph)


def test_real_yolov9_epoch_table_in_text():
    """The text report's one epoch table on the real YOLOv9 run: each epoch's time, training and
    validation seconds, steps, steps/s, GPU busy and energy, with the start-up before the first
    epoch and the work after the last as rows of the same table (issue 27: three overlapping
    tables before), and the same figures as summary.json."""
    run = SOURCE / "examples" / "recordings" / "h200-yolov9-3epochs"
    r = gw(["report", run])
    assert r.returncode == 0, r.stderr
    sec = r.stdout.split("\nEpochs (from output)\n")[1].split("\n\n")[0]
    assert "Epoch phases" not in r.stdout and "Job phases" not in r.stdout
    assert "found: epochs from progress bar descriptions" in sec
    rows = {line.split()[0]: line.split() for line in sec.splitlines()
            if line.startswith("  ") and line.split()[0] in ("start-up", "1/3", "2/3", "3/3",
                                                              "after")}
    assert rows["1/3"] == ["1/3", "19.3", "24.4", "20.4", "1.92", "38", "1.86", "46.7", "52.1",
                           "31.7", "1.51"]
    # one number of decimals per column: 0.798 s and 0.732 s of validation print as 0.80, 0.73
    assert rows["2/3"][4] == "0.80" and rows["3/3"][4] == "0.73"
    assert rows["start-up"] == ["start-up", "0.0", "19.3", "0.2", "0.44"]
    assert rows["after"] == ["after", "78.8", "6.8", "10.1", "0.26"]
    # the rows tile the record: 85.5 s, and the energy adds up to the GPU's 4.72 Wh
    assert sum(float(rows[k][2]) for k in rows) == pytest.approx(85.5, abs=0.15)
    assert sum(float(rows[k][-1]) for k in rows) == pytest.approx(4.72, abs=0.02)
    assert all(len(line) <= 80 for line in sec.splitlines())
    s = json.loads(gw(["report", run, "--json", "-"]).stdout)
    assert round(s["epochs"][0]["gpus"][0]["util_mean_pct"], 1) == 46.7
    # the HTML report: the same one table, the job's phases not repeated beside it
    r = gw(["report", run, "--html", "-"])
    page = r.stdout
    table = page[page.index('id="epochs"'):]
    table = table[:table.index("</table>")]
    cells = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in table.split("<tr")[2:]]
    assert [c[0] for c in cells] == ["start-up", "1/3", "2/3", "3/3", "after"]
    assert cells[1][2:] == ["24.4 s", "20.4 s", "1.92 s", "38", "1.86", "46.7 %", "52.1 %",
                            "31.7 %", "1.51 Wh"]
    assert cells[2][4] == "0.80 s"
    assert 'id="job-phases"' not in page


def test_step_rate_chart_next_to_gpu_util(tmp_path):
    """The HTML report shows the job's steps per second on the time axis, after GPU-Util."""
    run = SOURCE / "examples" / "recordings" / "h200-yolov9-3epochs"
    html = tmp_path / "r.html"
    r = gw(["report", run, "--html", html])
    assert r.returncode == 0, r.stderr
    data = json.loads(html.read_text().split('id="gw-data">', 1)[1].split("</script>", 1)[0])
    ids = [c["id"] for c in data["charts"]]
    assert ids[:2] == ["util", "steps"]
    steps = data["charts"][1]["series"]
    assert [s["metric"] for s in steps] == ["steps"]
    rates = [v for v in steps[0]["v"] if v is not None]
    assert len(rates) >= 30  # about one a second over 3 x 15-20 s of training
    assert 1.5 < sorted(rates)[len(rates) // 2] < 3.5  # the bars: 38 steps in 15-20 s
    # a recording without bars has no such chart
    r = gw(["report", SOURCE / "examples" / "recordings" / "h200-underfilled", "--html", html])
    data = json.loads(html.read_text().split('id="gw-data">', 1)[1].split("</script>", 1)[0])
    assert "steps" not in [c["id"] for c in data["charts"]]


def test_real_torchvision_output_replayed(scenario, tmp_path):
    """examples/train_torchvision.py's own output from the H200 (examples/recordings/h200-causes/
    tv_gpu): "Epoch 1/2" lines and plain "  step 10/120 loss ..." lines, replayed with a pause
    before each line: 2 epochs of 120 steps (the step lines are a bar without a clock)."""
    real = SOURCE / "examples" / "recordings" / "h200-causes" / "tv_gpu" / "output.log"
    script = tmp_path / "replay_real.py"
    script.write_text(
        "import sys, time\n"
        "for line in open(sys.argv[1]):\n"
        "    time.sleep(0.03 if line.startswith('  step') else 0.3)\n"
        "    sys.stdout.write(line)\n"
        "    sys.stdout.flush()\n")
    run, _ = record(scenario, tmp_path, PYTHON, script, real)
    s = json.loads((run / "summary.json").read_text())
    assert s["epoch_source"] == "output"
    got = epochs(s)
    assert [g[:3] for g in got] == [(1, 2, 120), (2, 2, 120)], got
    assert all(g[3] is not None and g[3] > 0 for g in got), got

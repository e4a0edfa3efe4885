"""The in-job data (RUN/python, docs/inproc.md) in `gpuwatch report`: the text section, summary.json's
"inproc" block, report.html's flame graphs, the gpu_starved cause and its bounded suggestions, and
the epochs from the training DataLoader's passes. tests/data/inproc/* are real H200 recordings
(examples/recordings/h200-causes) with hand-made python/ directories (handmade.py)."""
import json
import os
import re
import shutil
import subprocess
import xml.dom.minidom

import pytest

from conftest import GW, SOURCE

DATA = SOURCE / "tests" / "data" / "inproc"
REC = SOURCE / "examples" / "recordings" / "h200-causes"


def report(run, *extra):
    r = subprocess.run([GW, "report", str(run), "--json", "-", *extra], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def text(run):
    r = subprocess.run([GW, "report", str(run)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def starved(s):
    got = [v for v in s["verdicts"] if v["id"] == "gpu_starved"]
    assert len(got) == 1
    return got[0]


def section(out):
    """The "Inside the job" section of a text report."""
    start = out.index("\nInside the job")
    rest = out[start + 1:]
    end = rest.find("\n\n")
    return rest if end < 0 else rest[:end]


def test_input_bound_job():
    s = report(DATA / "yolo_input")
    ip = s["inproc"]
    assert ip["present"] and ip["why"] is None
    assert ip["training_loader"]["loader"] == 0 and ip["validation_loader"]["loader"] == 1
    assert ip["training_loader"]["num_workers"] == 1
    assert ip["training_loader"]["persistent_workers"] is False
    # (14.5 + 14.0) s waiting of (14.5 + 9.3 + 14.0 + 9.6) s
    assert ip["data_wait_share_pct"] == pytest.approx(100 * 28.5 / 47.4, abs=0.01)
    assert ip["input_speedup_max"] == pytest.approx(47.4 / 18.9, abs=0.001)
    assert [e["bound"] for e in ip["epochs"]] == ["input", "input"]
    assert [e["data_wait_share_pct"] for e in ip["epochs"]] == pytest.approx(
        [100 * 14.5 / 23.8, 100 * 14.0 / 23.6], abs=0.01)
    assert ip["bound"] == "input" and not ip["bound_changes"]
    main = ip["roles"]["main"]
    assert main["samples"] == 2400 and main["idle_samples"] == 1400
    assert main["top_self"][0]["function"] == "utils/loss_tal_dual.py:build_targets"
    assert main["top_self"][0]["self_pct"] == pytest.approx(34.0)
    worker = ip["roles"]["worker"]
    assert worker["top_self"][0]["function"] == "utils/dataloaders.py:load_image"
    assert worker["top_self"][0]["self_pct"] == pytest.approx(48.0)
    assert ip["read"]["torn_lines"] == 1  # the last line of 600.jsonl is cut
    assert [e["validation_data_wait_share_pct"] for e in ip["epochs"]] == [60, 60]  # 0.9/1.5
    assert [t["steps"] for t in ip["timeline"]] == [10, 10, 9, 9, 10, 10, 9, 9]
    # the epochs are the training loader's passes, exactly
    assert s["epoch_source"] == "python"
    assert [e["steps"] for e in s["epochs"]] == [38, 38]
    # and training starts with the first pass, though the GPU was hardly busy then (without the
    # in-job data the GPU's own detection put the steady state 26 s later)
    steady = [p for p in s["phases"] if p["phase"] == "steady"][0]
    assert steady["start"][:21] == s["epochs"][0]["start"][:21]
    assert steady["duration_s"] == pytest.approx(50.4, abs=0.3)
    v = starved(s)
    ev = v["evidence"]
    assert v["cause"] == "input_pipeline"
    assert ev["python_data_wait_share_pct"] == pytest.approx(60.13, abs=0.01)
    assert ev["python_worker_hot_function"] == "dataloaders.py:load_image"
    sugg = v["suggestion"]
    assert "num_workers=1, batch_size=64, pin_memory=True" in sugg
    assert "at most 2.51x faster" in sugg
    assert "Raise num_workers from 1 towards 15 (the job may use 16 cores)" in sugg
    assert "cv2.setNumThreads(0)" in sugg  # cv2 runs 8 threads in the worker
    assert "persistent_workers=True saves the 2.9 s each epoch after the first" in sugg
    assert "pin_memory=True." not in sugg  # already set
    assert "dataloaders.py:load_image 48%" in v["message"]


def test_main_bound_job_asks_for_no_workers():
    s = report(DATA / "yolo_main")
    ip = s["inproc"]
    assert ip["bound"] == "main"
    assert ip["input_speedup_max"] == pytest.approx(44.4 / 41.9, abs=0.001)
    v = starved(s)
    assert v["cause"] == "cpu_bound"
    sugg = v["suggestion"]
    assert "at most 1.06x faster" in sugg
    assert "More DataLoader workers cannot help past that" in sugg
    assert "Raise num_workers" not in sugg
    assert "loss_tal_dual.py:build_targets 36%" in sugg
    assert "Use AMP" in sugg  # autocast_used: false
    assert "batch_size=64" in sugg
    assert "cudnn.benchmark" not in sugg  # already True
    # the allocator grew at every epoch end: 2.0, 2.6, 3.3 GiB
    mem = ip["memory"]
    assert mem["leak"] and mem["leak_epochs"] == 3
    assert mem["leak_bytes"] == int(3.3 * 2**30) - int(2.0 * 2**30)


def test_amp_not_asked_when_autocast_is_used(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(DATA / "yolo_main", run)
    p = run / "python" / "600.jsonl"
    p.write_text(p.read_text().replace('"autocast_used": false', '"autocast_used": true')
                 .replace('"torch_compile_used": false', '"torch_compile_used": true'))
    sugg = starved(report(run))["suggestion"]
    assert "AMP" not in sugg and "torch.compile" not in sugg
    assert "More DataLoader workers cannot help past that" in sugg


def test_cause_changes_between_epochs():
    s = report(DATA / "yolo_changes")
    ip = s["inproc"]
    assert ip["bound_changes"] and ip["bound"] == "mixed"
    assert [e["bound"] for e in ip["epochs"]] == ["input", "main"]
    v = starved(s)
    assert "per epoch: 1 input 62%, 2 main 6%" in v["message"]
    assert "The cause changes between epochs" in v["suggestion"]
    # each epoch's own bound: 1 / (1 - 15/24) and 1 / (1 - 1.5/23.7)
    assert "1 input 62% (<= 2.67x), 2 main 6% (<= 1.07x)" in v["suggestion"]
    # both halves: input work for epoch 1, step work for epoch 2
    assert "Raise num_workers from 2" in v["suggestion"]
    assert "Use AMP" in v["suggestion"]


def test_text_section_fits_80_columns():
    for name in ["yolo_input", "yolo_main", "yolo_changes"]:
        sec = section(text(DATA / name))
        assert "data wait of the training loop, per epoch" in sec
        wide = [x for x in sec.splitlines() if len(x) > 80]
        assert not wide, wide
    sec = section(text(DATA / "yolo_input"))
    assert re.search(r"^    1 +38 +1\.58 +14\.5 +9\.3 +60\.9 +3\.1 input +1\.6$", sec, re.M), sec
    assert "34.0  utils/loss_tal_dual.py:build_targets" in sec  # one decimal down the column
    assert "1 torn last line" in sec


def test_whole_report_has_no_trailing_blanks():
    """The in-job suggestion is built sentence by sentence, each followed by a space: none may
    be left at the end of a printed line (a real H200 run, the whole text report)."""
    for name in ["h200_yolo_w1b64", "h200_tv_main_w4b16"]:
        out = text(DATA / name)
        assert "try: In-job data" in out or "try: The GPU is never left waiting" in out
        blank = [x for x in out.splitlines() if x != x.rstrip()]
        assert not blank, (name, blank)


def test_html_flame_graphs(tmp_path):
    out = tmp_path / "r.html"
    r = subprocess.run([GW, "report", str(DATA / "yolo_input"), "--html", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert 'id="inproc"' in html
    assert ("Settings of the training process: torch threads 8 (interop 8; in a worker 8), cv2 "
            "threads 8 (in a worker 8), autocast no, torch.compile no, cudnn.benchmark yes, "
            "cores 16") in html
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(svgs) == 3  # the data wait over time; flame graphs of training process, workers
    for svg in svgs:
        xml.dom.minidom.parseString(svg)  # well-formed, self-contained
    assert "src=" not in "".join(svgs) and "href=" not in "".join(svgs)
    # 2 passes of 4 "steps" records, each at its pass's share
    bars = re.findall(r"<title>epoch (\d): (\d+) steps, data wait ([\d.]+)%</title>", svgs[0])
    assert [b[0] for b in bars] == ["1"] * 4 + ["2"] * 4
    assert sum(int(b[1]) for b in bars) == 76
    assert {b[2] for b in bars} == {"60.9", "59.3"}
    # every stack starts in train_dual.py's <module>: one box of all 2400 samples, lines merged
    titles = re.findall(r"<title>([^<]*)</title>", svgs[1])
    assert "&lt;module&gt; (train_dual.py) - 2400 samples, 100%" in titles
    assert "load_image (utils/dataloaders.py) - 960 samples, 45.71%" in re.findall(
        r"<title>([^<]*)</title>", svgs[2])


def test_no_python_dir_says_why(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(REC / "yolo_w1b64", run)
    (run / "summary.json").unlink()
    s = report(run)
    assert s["inproc"] == {"present": False, "why": s["inproc"]["why"]}
    assert "no python/ in the run directory" in s["inproc"]["why"]
    assert s["epoch_source"] != "python"
    assert not any(k.startswith("python_") for k in starved(s)["evidence"])
    out = text(run)
    lines = [x for x in out.splitlines() if x.startswith("Inside the job")]
    assert lines == ["Inside the job: no in-job data (no python/ in the run directory: not a "
                     "Python job, python -I/-S, or recorded by an older gpuwatch)"[:len(lines[0])]]
    meta = json.loads((run / "meta.json").read_text())
    meta["python_instrumentation"] = "off (--no-python)"
    (run / "meta.json").write_text(json.dumps(meta))
    assert report(run)["inproc"]["why"] == "Python instrumentation was off (--no-python)"
    meta["python_instrumentation"] = "on"  # on, yet no Python process wrote anything
    (run / "meta.json").write_text(json.dumps(meta))
    assert "no Python process of the job loaded" in report(run)["inproc"]["why"]


def test_hostile_python_dir(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(DATA / "yolo_input", run)
    py = run / "python"
    (py / "900.jsonl").write_bytes(b"\x00\xff{not json\n" * 50 + b'{"t": 1e400, "kind": "pass"}\n'
                                   + b'{"t": 1796138500, "kind": "steps", "loader": 0, "pass": 0, '
                                   b'"t0": 1796138400, "t1": 1796138500, "steps": -5, '
                                   b'"wait_s": 1, "between_s": 1}\n')
    (py / "900.stacks").write_text(";".join(["f (x.py:1)"] * 20000) + " 3\nnocount\n")
    (py / "901.jsonl").mkdir()
    (py / "902.stacks").write_bytes(b"\x1b[31mred (a.py:1) 4\n")
    with open(py / "600.jsonl", "a") as f:  # after the torn line: a line of its own
        f.write('\n{"t": 1796138460, "kind": "warning", "hook": "memory", "message": "boom"}\n')
    s = report(run)
    rd = s["inproc"]["read"]
    assert rd["absurd_records"] == 2 and rd["bad_stack_lines"] == 1
    assert s["inproc"]["data_wait_share_pct"] == pytest.approx(60.13, abs=0.01)  # unchanged
    assert rd["warnings"] == 1 and rd["first_warning"] == "memory: boom"
    assert rd["bad_lines"] + rd["torn_lines"] == 51  # the torn line is now followed by others
    out = text(run)
    assert "\x1b" not in out
    html = tmp_path / "r.html"
    assert subprocess.run([GW, "report", str(run), "--html", str(html)], capture_output=True,
                          timeout=60).returncode == 0


def raw(run):
    """The real sample's records, read here independently of gpuwatch."""
    recs = {}
    for p in (run / "python").glob("*.jsonl"):
        recs[int(p.stem)] = [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    return recs


def role_of(recs, pid):
    return [r for r in recs[pid] if r["kind"] == "process"][-1]["role"]


def leaf_shares(run, recs, role):
    """Self share of each function ("file:qualname") over the role's samples that are neither
    idle in a wait (leaf in selectors/threading/queues/connection/...) nor importing."""
    waits = ("selectors.py", "threading.py", "queues.py", "queue.py", "connection.py",
             "synchronize.py", "popen_fork.py")
    counts, busy = {}, 0
    for pid in recs:
        if role_of(recs, pid) != role or not (run / "python" / f"{pid}.stacks").exists():
            continue
        for line in (run / "python" / f"{pid}.stacks").read_text().splitlines():
            stack, n = line.rsplit(" ", 1)
            frames = stack.split(";")
            fn, loc = frames[-1].rsplit(" (", 1)
            f = loc[:-1].rsplit(":", 1)[0]
            if f.split("/")[-1] in waits or "(<frozen importlib." in stack:
                continue
            busy += int(n)
            counts[f + ":" + fn] = counts.get(f + ":" + fn, 0) + int(n)
    return {k: 100 * v / busy for k, v in counts.items()}


@pytest.mark.parametrize("name,bound", [("real_input_bound", "input"),
                                        ("real_main_bound", "main")])
def test_real_samples_match_their_records(name, bound):
    """Real run directories of 22py's instrumentation (CPU torch, fake NVML): every figure the
    report gives equals what the raw records say."""
    run = DATA / name
    recs = raw(run)
    main = [pid for pid in recs if role_of(recs, pid) == "main"]
    assert len(main) == 1
    passes = [r for r in recs[main[0]] if r["kind"] == "pass" and r["loader"] == 0]
    wait = sum(r["wait_s"] for r in passes)
    between = sum(r["between_s"] for r in passes)
    ip = report(run)["inproc"]
    assert ip["steps"] == sum(r["steps"] for r in passes)
    assert ip["data_wait_share_pct"] == pytest.approx(100 * wait / (wait + between), abs=0.01)
    assert ip["input_speedup_max"] == pytest.approx((wait + between) / between, abs=0.001)
    assert ip["bound"] == bound
    assert len(ip["epochs"]) == len(passes)
    for role in ("main", "worker"):
        want = leaf_shares(run, recs, role)
        top = ip["roles"][role]["top_self"][0]
        assert top["self_pct"] == pytest.approx(max(want.values()), abs=0.01)
        assert want[top["function"]] == pytest.approx(top["self_pct"], abs=0.01)
    settings = [r for r in recs[main[0]] if r["kind"] == "settings"][-1]
    assert ip["settings"]["training"]["autocast_used"] == settings["autocast_used"]
    assert ip["read"]["bad_lines"] == 0 and ip["read"]["absurd_records"] == 0
    sec = section(text(run))
    assert not [x for x in sec.splitlines() if len(x) > 80]


def test_wait_that_is_the_training_process_own_work(tmp_path):
    """Inside __next__ the training process mostly works (rebuilding batches it receives) rather
    than idling for a worker: the suggestion says more workers cannot shorten that part."""
    run = tmp_path / "run"
    shutil.copytree(DATA / "yolo_input", run)
    p = run / "python" / "600.stacks"
    lines = p.read_text().splitlines()
    wait = [x for x in lines if x.endswith("select (selectors.py:416) 1400")]
    assert len(wait) == 1
    head = wait[0].split(";get (queues.py:113)")[0]
    lines.remove(wait[0])
    lines += [wait[0][:-4] + "350",
              head + ";rebuild_storage_fd (site-packages/torch/multiprocessing/reductions.py:304)"
                     " 1050"]
    p.write_text("\n".join(lines) + "\n")
    s = report(run)
    main = s["inproc"]["roles"]["main"]
    assert main["in_dataloader_next_samples"] == 1400
    assert main["in_dataloader_next_idle_samples"] == 350
    v = starved(s)
    assert v["evidence"]["python_wait_own_work_pct"] == 75
    assert "But the training process itself works 75% of the time it waits" in v["suggestion"]
    assert "75% of that idle" not in text(run) and "25% of that idle" in text(run)


def leak_run(tmp_path, allocated_gib, reserved_gib):
    """A run directory around the real memory_leak trace (nvidia-smi CSV as gpu.csv, times in UTC)
    with in-job allocator records: allocated and reserved at each of its 4 passes' ends."""
    run = tmp_path / "run"
    (run / "python").mkdir(parents=True)
    shutil.copy(SOURCE / "tests" / "data" / "traces" / "memory_leak.nvsmi.csv", run / "gpu.csv")
    (run / "meta.json").write_text('{"host": "vm", "python_instrumentation": "on"}\n')
    t0 = 1796008860.0  # 2026-11-30T03:21:00Z, inside the trace
    recs = [{"t": t0 - 60, "kind": "process", "pid": 100, "role": "main"},
            {"t": t0 - 60, "kind": "loader", "loader": 0, "batches": 50}]
    for k, (al, rs) in enumerate(zip(allocated_gib, reserved_gib)):
        a, b = t0 - 50 + 12 * k, t0 - 50 + 12 * k + 11
        recs.append({"t": b, "kind": "pass", "loader": 0, "pass": k, "t_start": a, "t_end": b,
                     "steps": 50, "wait_s": 1, "between_s": 10, "complete": True})
        recs.append({"t": b + 0.1, "kind": "memory", "device": 0, "allocated_bytes": al * 2**30,
                     "reserved_bytes": rs * 2**30, "max_allocated_bytes": al * 2**30})
    (run / "python" / "100.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    r = subprocess.run([GW, "report", str(run), "--json", "-"], capture_output=True, text=True,
                       timeout=60, env={**os.environ, "TZ": "UTC"})
    assert r.returncode == 0, r.stderr
    got = [v for v in json.loads(r.stdout)["verdicts"] if v["id"] == "memory_leak"]
    assert len(got) == 1, r.stdout[:2000]
    return got[0]


def test_leak_outside_tensors(tmp_path):
    v = leak_run(tmp_path, [2, 2, 2, 2], [4, 20, 40, 60])
    assert v["evidence"]["python_allocator_leak"] == "no"
    assert "torch allocator (in-job): allocated 2 -> 2 GiB, reserved 4 -> 60 GiB" in v["message"]
    assert v["suggestion"].startswith("Tensors do not leak")
    assert "expandable_segments" in v["suggestion"]
    assert ".item()" not in v["suggestion"]  # no advice its evidence contradicts


def test_leak_in_tensors(tmp_path):
    v = leak_run(tmp_path, [2, 12, 30, 50], [4, 20, 40, 60])
    assert v["evidence"]["python_allocator_leak"] == "yes"
    assert v["evidence"]["python_allocated_last_gib"] == 50
    assert "tensors kept across steps" in v["suggestion"]


def test_job_without_torch_has_stacks_only(tmp_path):
    """A Python job without torch: no DataLoader, no allocator; its stacks are still reported."""
    run = tmp_path / "run"
    shutil.copytree(REC / "yolo_w1b64", run)
    (run / "summary.json").unlink()
    (run / "python").mkdir()
    (run / "python" / "77.jsonl").write_text(
        '{"t": 1796138460, "kind": "process", "pid": 77, "role": "main", "torch": null}\n'
        '{"t": 1796138470, "kind": "stacks", "samples": 100, "interval_s": 0.01, '
        '"sampler_cpu_s": 0.05}\n')
    (run / "python" / "77.stacks").write_text("<module> (job.py:1);work (job.py:3) 80\n"
                                             "<module> (job.py:1);sleep_a_bit (job.py:9) 20\n")
    s = report(run)
    ip = s["inproc"]
    assert ip["present"] and ip["why"] == "no DataLoader was iterated in the job's Python processes"
    assert ip["training_loader"] is None and ip["epochs"] == [] and ip["steps"] == 0
    assert ip["roles"]["main"]["top_self"][0] == {"function": "job.py:work", "self_pct": 80,
                                                  "inclusive_pct": 80}
    assert ip["memory"]["records"] == 0
    assert s["epoch_source"] != "python"
    v = starved(s)
    assert v["cause"] == "input_pipeline"  # host.csv's word stands
    assert v["evidence"]["python_missing"] == ip["why"]
    sec = section(text(run))
    assert "no step timing: no DataLoader was iterated" in sec
    # waiting for multiprocessing's forkserver to start a worker is idle, not work
    with open(run / "python" / "77.stacks", "a") as f:
        f.write("<module> (job.py:1);connect_to_new_process (forkserver.py:59);"
                "read_signed (forkserver.py:317) 100\n")
    main = report(run)["inproc"]["roles"]["main"]
    assert main["samples"] == 200 and main["idle_samples"] == 100
    assert "80.0  job.py:work" in sec
    # no DataLoader: its process is the job's main process, not a training one
    assert "  where: main process 80% in job.py:work, 20% in job.py:sleep_a_bit" in sec
    assert "  main process (1 process, 100 samples" in sec
    assert "training process" not in sec
    assert "GPU memory (torch allocator): not recorded" in sec


def test_job_killed_before_its_first_steps_were_written(tmp_path):
    """SIGTERM 3 s into a job: its loader record is written (at the first pass) but the steps
    (flushed every 2 s) never were. The report must not say that no DataLoader was iterated."""
    run = tmp_path / "run"
    shutil.copytree(REC / "yolo_w1b64", run)
    (run / "summary.json").unlink()
    (run / "python").mkdir()
    (run / "python" / "77.jsonl").write_text(
        '{"t": 1796138460, "kind": "process", "pid": 77, "role": "main", "torch": "2.5"}\n'
        '{"t": 1796138461, "kind": "loader", "loader": 0, "class": "DataLoader", '
        '"num_workers": 2, "batch_size": 4, "dataset": "DS", "created_at": "sig.py:4"}\n')
    ip = report(run)["inproc"]
    assert ip["why"] == ("a DataLoader was iterated (pid 77, loader 0, sig.py:4) but no step was "
                         "recorded: the process was killed (a signal, os._exit) before its "
                         "first records of steps (every 2 s)")
    with open(run / "python" / "77.jsonl", "a") as f:  # it exited, yet no step: lost
        f.write('{"t": 1796138470, "kind": "exit"}\n')
    assert report(run)["inproc"]["why"].endswith("no step was recorded: its records were lost")
    sec = section(text(run))
    assert "no step timing: a DataLoader was iterated (pid 77, loader 0, sig.py:4)" in sec
    assert max(len(x) for x in sec.splitlines()) <= 80


def loaders_run(tmp_path, made):
    """A run whose job iterates loaders made at [(created_at, t_start, t_end, steps, wait_s)], one
    pass each, with a "steps" record per pass."""
    run = tmp_path / "run"
    shutil.copytree(REC / "yolo_w1b64", run)
    (run / "summary.json").unlink()
    (run / "python").mkdir()
    t = 1796138455
    recs = [{"t": t, "kind": "process", "pid": 77, "role": "main", "torch": "2.5"}]
    for i, (at, t0, t1, steps, wait) in enumerate(made):
        recs.append({"t": t0, "kind": "loader", "loader": i, "class": "DataLoader",
                     "num_workers": 2, "batch_size": 4, "batches": steps, "dataset": "DS",
                     "created_at": at})
        iv = {"loader": i, "pass": 0, "steps": steps, "wait_s": wait, "between_s": t1 - t0 - wait}
        recs.append(dict(iv, t=t1, kind="steps", t0=t0, t1=t1))
        recs.append(dict(iv, t=t1, kind="pass", t_start=t0, t_end=t1, first_wait_s=0.5,
                         complete=True))
    recs.append({"t": t + 60, "kind": "exit"})
    (run / "python" / "77.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return run


def test_a_loader_made_anew_for_each_epoch_is_one_loader(tmp_path):
    """`for epoch ...: loader = DataLoader(...)` (and Lightning's reload_dataloaders_every_n_epochs)
    makes a new DataLoader object per epoch: still one training loader of 3 epochs, not a
    1-epoch training loader and a "validation" one."""
    t = 1796138460
    run = loaders_run(tmp_path, [("train.py:9", t, t + 10, 20, 6),
                                 ("train.py:9", t + 11, t + 21, 20, 4),
                                 ("train.py:9", t + 22, t + 32, 20, 2)])
    s = report(run)
    ip = s["inproc"]
    assert ip["validation_loader"] is None
    assert ip["steps"] == 60 and [e["steps"] for e in ip["epochs"]] == [20, 20, 20]
    assert [e["data_wait_share_pct"] for e in ip["epochs"]] == [60, 40, 20]
    assert ip["data_wait_share_pct"] == 40
    assert [x["epoch"] for x in ip["timeline"]] == [1, 2, 3]
    assert [e["steps"] for e in s["epochs"]] == [20, 20, 20]
    sec = section(text(run))
    assert " ".join(sec.split()).count(
        "the most steps (60 in 3 passes, a new DataLoader for each: 3 made at train.py:9)") == 1
    # made at one place (a helper) but used side by side: two loaders, training and validation
    run2 = loaders_run(tmp_path / "b", [("data.py:5", t, t + 30, 60, 12),
                                        ("data.py:5", t + 10, t + 12, 20, 1)])
    ip = report(run2)["inproc"]
    assert ip["training_loader"]["loader"] == 0 and ip["validation_loader"]["loader"] == 1
    assert ip["steps"] == 60


def test_a_new_iterator_for_each_step_has_no_wait_share(tmp_path):
    """`x, y = next(iter(loader))` at each step: every pass is one batch and ends before the
    loop's work, so no time between batches is recorded. Not "100% waiting for data" (nor an
    "at most -x faster" bound, nor 12 one-step epochs): the report says what it cannot tell."""
    run = loaders_run(tmp_path, [("train.py:9", 1796138460, 1796138470, 12, 4)])
    py = run / "python" / "77.jsonl"
    recs = [json.loads(x) for x in py.read_text().splitlines()]
    recs = [r for r in recs if r["kind"] not in ("pass", "steps")]
    for i in range(12):
        t0 = 1796138460 + i
        iv = {"loader": 0, "pass": i, "steps": 1, "wait_s": 0.3, "between_s": 0}
        recs.insert(-1, dict(iv, t=t0 + 0.3, kind="steps", t0=t0, t1=t0 + 0.3))
        recs.insert(-1, dict(iv, t=t0 + 0.3, kind="pass", t_start=t0, t_end=t0 + 0.3,
                             first_wait_s=0.3, complete=False))
    py.write_text("".join(json.dumps(r) + "\n" for r in recs))
    s = report(run)
    ip = s["inproc"]
    assert ip["why"].startswith("no time between batches recorded: each of the 12 passes over "
                                "loader 0 ended after its first batch")
    assert ip["data_wait_share_pct"] is None and ip["input_speedup_max"] is None
    assert ip["bound"] == "unknown"
    assert [e["data_wait_share_pct"] for e in ip["epochs"]] == [None] * 12
    assert s["epoch_source"] != "python"
    assert "python_data_wait_share_pct" not in starved(s)["evidence"]
    sec = section(text(run))
    assert "100%" not in sec and "-x" not in sec and "no step timing: no time between" in sec


@pytest.mark.parametrize("name", ["yolo_input", "yolo_changes"])
def test_text_section_golden(name):
    """The whole "Inside the job" section, pinned (tests/cli/golden/inproc_NAME.txt; run with
    GW_UPDATE_GOLDEN=1 to rewrite after a deliberate change). Every line fits 80 columns."""
    sec = section(text(DATA / name)) + "\n"
    assert max(len(x) for x in sec.splitlines()) <= 80
    path = SOURCE / "tests" / "cli" / "golden" / f"inproc_{name}.txt"
    if os.environ.get("GW_UPDATE_GOLDEN"):
        path.write_text(sec)
    assert sec == path.read_text(), f"{path.name} differs: GW_UPDATE_GOLDEN=1 rewrites it"


H200 = {"w1": DATA / "h200_yolo_w1b64", "w8": DATA / "h200_yolo_w8b64"}


def test_h200_yolo_one_worker_input_bound():
    """Real YOLOv9 train_dual.py on the H200 (22py's instrumentation, torch 2.11, Python 3.12):
    one DataLoader worker."""
    s = report(H200["w1"])
    ip = s["inproc"]
    recs = raw(H200["w1"])
    main = [p for p in recs if role_of(recs, p) == "main"
            and any(r["kind"] == "pass" for r in recs[p])]
    assert ip["training_pid"] == main[0]
    passes = [r for r in recs[main[0]] if r["kind"] == "pass" and r["loader"] == 0]
    assert [e["data_wait_share_pct"] for e in ip["epochs"]] == pytest.approx(
        [100 * r["wait_s"] / (r["wait_s"] + r["between_s"]) for r in passes], abs=0.01)
    assert ip["bound"] == "input" and ip["training_loader"]["num_workers"] == 1
    assert ip["validation_loader"]["loader"] == 1
    v = starved(s)
    assert v["cause"] == "input_pipeline"
    assert v["evidence"]["python_worker_hot_function"] == "general.py:imread"
    assert "Raise num_workers from 1 towards 15" in v["suggestion"]
    assert "cv2.setNumThreads" not in v["suggestion"]  # cv2 runs 1 thread in the workers
    assert "AMP" not in v["suggestion"]  # and autocast is used
    # the headline's gain is the suggestion's bound (the loop's data wait), not the GPU's idle
    bound = f"{v['evidence']['python_input_speedup_max']:.1f}x"
    assert f"a faster input pipeline could make training up to {bound} faster" in v["message"]
    assert f"at most {bound} faster" in v["suggestion"]
    assert v["evidence"]["speedup_max"] > v["evidence"]["python_input_speedup_max"]


def test_h200_yolo_eight_workers_main_bound_and_the_bound_held():
    """The same job with 8 workers: the training process is the bound now, and the gain the
    1-worker run predicted for more workers (1 / (1 - its epoch-2 data wait)) bounds what 8
    workers measured (epoch 2: no worker start-up in its first epoch's numbers)."""
    s1, s8 = report(H200["w1"]), report(H200["w8"])
    ip8 = s8["inproc"]
    assert ip8["bound"] == "main" and ip8["training_loader"]["num_workers"] == 8
    v = starved(s8)
    assert v["cause"] == "cpu_bound"
    assert "More DataLoader workers cannot help past that" in v["suggestion"]
    assert "Raise num_workers" not in v["suggestion"]
    assert "Use AMP" not in v["suggestion"]  # autocast is used
    assert "cudnn.benchmark=True" in v["suggestion"]  # it is False
    e1, e8 = s1["inproc"]["epochs"][1], ip8["epochs"][1]
    predicted = 100 / (100 - e1["data_wait_share_pct"])
    measured = e8["steps_per_s"] / e1["steps_per_s"]
    assert predicted == pytest.approx(2.1, abs=0.05) and measured == pytest.approx(1.9, abs=0.05)
    assert 0.8 * predicted <= measured <= predicted


def test_two_run_directories_each_gpu_judged_by_its_own_job():
    """`report DIR DIR`: the in-job data of the first run does not decide the other run's GPU."""
    r = subprocess.run([GW, "report", str(H200["w1"]), str(H200["w8"]), "--json", "-"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["inproc"]["input"].endswith("h200_yolo_w1b64/gpu.csv")
    got = {v["evidence"].get("python_bound"): v["cause"] for v in s["verdicts"]
           if v["id"] == "gpu_starved"}
    # w1 by its in-job data, w8 by its own host.csv (no python_* evidence from w1's data)
    assert got == {"input": "input_pipeline", None: "cpu_bound"}


def test_two_ranks(tmp_path):
    """torchrun: two training processes with their own data; rank 0 is the one analysed (though
    rank 1 ran more steps), and each rank's data wait is listed."""
    run = tmp_path / "run"
    shutil.copytree(DATA / "yolo_input", run)
    p = run / "python" / "600.jsonl"
    p.write_text(p.read_text().replace('"rank": null', '"rank": 0')
                 .replace('"world_size": null', '"world_size": 2'))
    t = json.loads(p.read_text().splitlines()[0])["t"]
    (run / "python" / "601.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"t": t, "kind": "process", "pid": 601, "role": "main", "rank": 1, "world_size": 2},
        {"t": t, "kind": "loader", "loader": 0, "num_workers": 1, "batch_size": 64},
        {"t": t + 30, "kind": "pass", "loader": 0, "pass": 0, "t_start": t + 10, "t_end": t + 30,
         "steps": 100, "wait_s": 5, "between_s": 15, "complete": True}]))
    s = report(run)
    ip = s["inproc"]
    assert ip["training_pid"] == 600 and ip["processes"]["main"] == 2
    assert [(r["rank"], r["steps"], r["data_wait_share_pct"]) for r in ip["ranks"]] == [
        (0, 76, pytest.approx(60.13, abs=0.01)), (1, 100, 25)]
    sec = section(text(run))
    assert "data wait per training process: rank 0 60.1% (76 steps), rank 1 25% (100" in sec
    assert "rank 0 of 2" in sec


TV = {"in": DATA / "h200_tv_in_w1", "main": DATA / "h200_tv_main_w4b16"}


def test_h200_torchvision_input_bound_gain_capped_by_the_gpu():
    """Real torchvision example on the H200, 1 worker: the loop waited ~93 %, so without the
    wait it would run ~15x faster, but the GPU (busy ~12 %) saturates first: the headline's gain
    and the suggestion's bound are the same, smaller figure."""
    v = starved(report(TV["in"]))
    ev = v["evidence"]
    assert v["cause"] == "input_pipeline" and ev["python_bound"] == "input"
    gpu = 100 / ev["busy_pct"]
    assert ev["python_input_speedup_max"] > gpu  # the GPU is the tighter bound here
    assert ev["python_input_gain_max"] == pytest.approx(gpu, rel=1e-3)  # JSON keeps 4 digits
    assert f"could make training up to {gpu:.1f}x faster" in v["message"]
    assert f"at most {gpu:.2f}x faster (the GPU, busy" in v["suggestion"]
    assert "Raise num_workers from 1 towards 15" in v["suggestion"]


def test_h200_torchvision_launch_bound_keeps_the_in_job_suggestion():
    """The same example main-bound (64-pixel images, batch 16, 4 workers): the GPU is lightly and
    steadily used (launch-bound); the suggestion says so and keeps what the in-job data knows:
    the settings, the 1 % data wait's bound and the step's hot functions. The intervention run
    with 8 workers (examples/recordings/h200-inproc/cases2-tvmain.tgz) trained at 0.99x, within
    the bound; batch 64 gave 3.9x the images/s."""
    v = starved(report(TV["main"]))
    ev = v["evidence"]
    assert v["cause"] == "cpu_bound" and ev["pattern"] == "launch_bound"
    assert ev["python_data_wait_share_pct"] < 5 and ev["python_batch_size"] == 16
    assert "a GPU kept busy could make training up to" in v["message"]
    assert "removing this wait" not in v["message"]
    assert v["suggestion"].startswith("The GPU is never left waiting")
    assert "batch_size=16" in v["suggestion"]
    assert f"at most {ev['python_input_speedup_max']:.2f}x faster" in v["suggestion"]
    assert "More DataLoader workers cannot help past that" in v["suggestion"]
    assert "A larger batch than batch_size=16" in v["suggestion"]

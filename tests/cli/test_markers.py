"""Markers: `gpuwatch mark` and python/gpuwatch.py, inside `gpuwatch run` (fake NVML) and
outside it; many writers at once never tear a line; the report's epochs, marks and summary.json."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import GW, PYTHON, SOURCE, events, gw, gw_env, h200, run_in_pty

PYDIR = str(SOURCE / "python")


def marks(run_dir):
    return [e for e in events(run_dir) if e["type"] == "mark"]


def run_env(sc, **extra):
    env = gw_env(sc, **extra)
    env["PYTHONPATH"] = PYDIR
    env["PATH"] = str(Path(GW).parent) + os.pathsep + env["PATH"]  # `gpuwatch mark` in scripts
    return env


def test_shell_marks_in_a_run(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    out = tmp_path / "run"
    script = ("gpuwatch mark start --field lr=0.01 --field model=resnet50 --field amp=true\n"
              "for e in 1 2 3; do gpuwatch mark epoch -f n=$e -f total=3; sleep 0.3; done\n"
              "echo pid=$$\n")
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sh", "-c", script], env=run_env(sc))
    assert r.returncode == 0, r.stderr
    m = marks(out)
    assert [x["text"] for x in m] == ["start", "epoch", "epoch", "epoch"]
    assert m[0]["fields"] == {"lr": 0.01, "model": "resnet50", "amp": True}
    assert [x["fields"] for x in m[1:]] == [{"n": n, "total": 3} for n in (1, 2, 3)]
    shell_pid = int((out / "output.log").read_text().split("pid=")[1])
    assert {x["pid"] for x in m} == {shell_pid}  # the process that ran `gpuwatch mark`
    summary = json.loads((out / "summary.json").read_text())
    assert summary["epoch_source"] == "marks"
    assert [(e["epoch"], e["total"]) for e in summary["epochs"]] == [(1, 3), (2, 3), (3, 3)]
    assert summary["marks_total"] == 4
    assert summary["marks"][0]["fields"] == {"lr": 0.01, "model": "resnet50", "amp": "true"}
    rep = gw(["report", out])
    assert "Epochs (from marks)" in rep.stdout
    # the line is wider than 80 columns: its fields go on under it in a pipe too
    assert "start lr=0.01 model=resnet50 amp=true" in " ".join(rep.stdout.split())
    assert max(map(len, rep.stdout.split("\nMarks (")[1].splitlines())) <= 80
    assert rep.stdout.count("epoch                n=") == 3
    # report.html draws the marks that are no epoch (issue 27: marker texts were not drawn)
    html = (out / "report.html").read_text()
    data = json.loads(html.split('id="gw-data">')[1].split("</script>")[0])
    assert [m["label"] for m in data["marks"]] == ["start"]
    # (the job's first mark may come within a tick of the first sample, on either side of it)
    assert data["t0"] / 1000 - 1 <= data["marks"][0]["t"] <= data["t0"] / 1000 + 5
    from test_html_report import browse
    browse(out / "report.html", "marks")  # drawn without a script error


FAKE_TORCH = '''
class _Cuda:
    def is_available(self): return True
    def current_device(self): return 0
    def memory_allocated(self, d): return 3 * 2**30
    def memory_reserved(self, d): return 4 * 2**30 + 2**19
    def max_memory_allocated(self, d): return 5 * 2**30
cuda = _Cuda()
'''


def test_python_module_in_a_run(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    fake = tmp_path / "fake_torch"
    fake.mkdir()
    (fake / "torch.py").write_text(FAKE_TORCH)
    out = tmp_path / "run"
    script = ("import math, os, gpuwatch\n"
              "assert gpuwatch.enabled()\n"
              "assert gpuwatch.mark('epoch', n=1, total=2, lr=1e-3, name='warm up', ok=False, "
              "none=None, bad=math.nan, text='a field named text')\n"
              "assert gpuwatch.mark_memory(step=10)\n"
              "print('pid', os.getpid())\n")
    env = run_env(sc)
    env["PYTHONPATH"] = PYDIR + os.pathsep + str(fake)
    r = gw(["run", "-o", out, "-i", "0.1", "--", PYTHON, "-c", script], env=env)
    assert r.returncode == 0, r.stderr
    m = marks(out)
    pid = int((out / "output.log").read_text().split()[1])
    assert m[0]["text"] == "epoch" and m[0]["pid"] == pid
    assert m[0]["fields"] == {"n": 1, "total": 2, "lr": 0.001, "name": "warm up", "ok": False,
                              "none": None, "bad": None, "text": "a field named text"}
    assert m[1]["text"] == "memory"
    assert m[1]["fields"] == {"allocated_mib": 3072.0, "reserved_mib": 4096.5,
                              "max_allocated_mib": 5120.0, "device": 0, "step": 10}
    # the timestamp is RFC 3339 with milliseconds, like gpuwatch's own
    assert len(m[0]["timestamp"]) == 24 and m[0]["timestamp"].endswith("Z")


def test_mark_memory_without_torch_is_a_no_op(tmp_path):
    (tmp_path / "events.jsonl").write_text("")
    code = ("import sys; sys.modules['torch'] = None\n"  # import torch raises ImportError
            "import gpuwatch\nprint(gpuwatch.mark_memory())\n")
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=PYDIR, GPUWATCH_RUN_DIR=str(tmp_path)))
    assert r.stdout.strip() == "False" and r.stderr == ""
    assert (tmp_path / "events.jsonl").read_text() == ""


WRITER = '''
import sys, threading, gpuwatch
proc = int(sys.argv[1])
def work(thread):
    for i in range(50):
        big = "x" * (9000 if i % 2 else 100)   # odd marks are longer than a pipe buffer (4 KiB)
        assert gpuwatch.mark("step", proc=proc, thread=thread, i=i, pad=big)
ts = [threading.Thread(target=work, args=(t,)) for t in range(4)]
for t in ts: t.start()
for t in ts: t.join()
'''


def test_concurrent_writers_never_tear_a_line(scenario, tmp_path):
    sc = scenario({"devices": [h200()]})
    (tmp_path / "writer.py").write_text(WRITER)
    out = tmp_path / "run"
    script = (f"for p in 0 1 2 3 4 5; do {PYTHON} {tmp_path}/writer.py $p & done\n"
              "for i in $(seq 30); do gpuwatch mark shell -f i=$i -f pad=$(printf 'y%.0s' "
              "$(seq 5000)) & done\n"
              "wait\n")
    r = gw(["run", "-o", out, "-i", "0.1", "--", "bash", "-c", script], env=run_env(sc),
           timeout=120)
    assert r.returncode == 0, r.stderr
    lines = (out / "events.jsonl").read_text().split("\n")
    assert lines[-1] == ""
    parsed = [json.loads(line) for line in lines[:-1]]  # every line is whole JSON
    steps = [e for e in parsed if e["type"] == "mark" and e["text"] == "step"]
    assert len(steps) == 6 * 4 * 50
    assert {(e["fields"]["proc"], e["fields"]["thread"], e["fields"]["i"]) for e in steps} == {
        (p, t, i) for p in range(6) for t in range(4) for i in range(50)}
    assert all(len(e["fields"]["pad"]) == (9000 if e["fields"]["i"] % 2 else 100) for e in steps)
    shell = [e for e in parsed if e["type"] == "mark" and e["text"] == "shell"]
    assert sorted(e["fields"]["i"] for e in shell) == list(range(1, 31))
    assert all(e["fields"]["pad"] == "y" * 5000 for e in shell)
    assert (out / "summary.json").exists(), r.stderr  # (once, under ASan on a loaded machine)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["marks_total"] == 6 * 4 * 50 + 30 and len(summary["marks"]) == 1000


def test_outside_a_run(tmp_path):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    env.pop("GPUWATCH_RUN_DIR", None)
    r = subprocess.run([GW, "mark", "epoch", "--field", "n=1"], capture_output=True, text=True,
                       env=env)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")  # quiet when not at a terminal
    # a stale GPUWATCH_RUN_DIR (a directory without events.jsonl) is no run: nothing is created
    stale = tmp_path / "stale"
    stale.mkdir()
    r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True,
                       env=dict(env, GPUWATCH_RUN_DIR=str(stale)))
    assert r.returncode == 0 and list(stale.iterdir()) == []
    code = ("import gpuwatch\n"
            "print(gpuwatch.enabled(), gpuwatch.mark('a'), gpuwatch.mark('b', n=2))\n")
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env)
    assert r.stdout.strip() == "False False False"
    assert r.stderr.count("gpuwatch: not inside `gpuwatch run`") == 1  # once per process


def test_outside_a_run_at_a_terminal_says_so(tmp_path):
    env = dict(os.environ)
    env.pop("GPUWATCH_RUN_DIR", None)
    code, buf = run_in_pty([GW, "mark", "epoch"], env)
    assert code == 0
    assert b"gpuwatch mark: not inside `gpuwatch run`" in buf


def test_unwritable_events_file_is_an_error(tmp_path):
    (tmp_path / "events.jsonl").mkdir()  # exists, but no line can be appended to it
    r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True,
                       env=dict(os.environ, GPUWATCH_RUN_DIR=str(tmp_path)))
    assert r.returncode == 1 and "events.jsonl" in r.stderr
    code = "import gpuwatch\nprint(gpuwatch.mark('a'), gpuwatch.mark('b'))\n"
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=PYDIR, GPUWATCH_RUN_DIR=str(tmp_path)))
    assert r.returncode == 0 and r.stdout.strip() == "False False"  # training goes on
    assert r.stderr.count("gpuwatch: cannot") == 1  # once per process
    # neither gpuwatch mark nor the module follows a link (another user could plant one to a
    # file of yours: the module followed it, issue 26)
    full = tmp_path / "full"
    full.mkdir()
    (full / "events.jsonl").symlink_to("/dev/full")
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=PYDIR, GPUWATCH_RUN_DIR=str(full)))
    assert r.stdout.strip() == "False False"
    assert "symbolic link, not followed" in r.stderr, r.stderr
    r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True,
                       env=dict(os.environ, GPUWATCH_RUN_DIR=str(full)))
    assert r.returncode == 1 and "symbolic link" in r.stderr and "not followed" in r.stderr
    # a full disk (a file-size limit here): a line cut short is taken back, by both
    (full / "events.jsonl").unlink()
    (full / "events.jsonl").write_text("{}\n" * 50)
    import resource
    import signal

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
    r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True,
                       env=dict(os.environ, GPUWATCH_RUN_DIR=str(full)), preexec_fn=limit)
    assert r.returncode == 1 and "File too large" in r.stderr
    assert (full / "events.jsonl").read_text() == "{}\n" * 50  # nothing partial appended
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, preexec_fn=limit,
                       env=dict(os.environ, PYTHONPATH=PYDIR, GPUWATCH_RUN_DIR=str(full)))
    assert r.stdout.strip() == "False False" and "File too large" in r.stderr, r.stderr
    assert (full / "events.jsonl").read_text() == "{}\n" * 50


@pytest.mark.parametrize("kind", ["fifo", "/dev/null"])
def test_a_fifo_or_device_as_events_file_never_blocks_marking(tmp_path, kind):
    """A FIFO planted as events.jsonl blocked `gpuwatch mark` and gpuwatch.mark() forever
    ("marking never stops training" broken); a device was written. Both are refused at once."""
    ev = tmp_path / "events.jsonl"
    if kind == "fifo":
        os.mkfifo(ev)
    else:
        ev.symlink_to(kind)
    r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True, timeout=20,
                       env=dict(os.environ, GPUWATCH_RUN_DIR=str(tmp_path)))
    assert r.returncode == 1, r.stderr
    if kind == "fifo":
        assert r.stderr == (f"gpuwatch mark: cannot open {ev}: it is not a regular file (a FIFO "
                            "or device; another user may have planted it): remove it\n")
    code = "import gpuwatch\nprint(gpuwatch.mark('a'), gpuwatch.mark('b'))\n"
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=20,
                       env=dict(os.environ, PYTHONPATH=PYDIR, GPUWATCH_RUN_DIR=str(tmp_path)))
    assert r.returncode == 0 and r.stdout.strip() == "False False"  # training goes on
    assert r.stderr.count("gpuwatch: cannot open") == 1, r.stderr


@pytest.mark.parametrize("args,words", [
    ([], "no TEXT given"),
    (["a", "b"], "more than one TEXT"),
    (["a", "--field", "nokey"], "bad field 'nokey'"),
    (["a", "--bogus"], "unknown option '--bogus'"),
])
def test_mark_usage(args, words):
    r = subprocess.run([GW, "mark"] + args, capture_output=True, text=True)
    assert r.returncode == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.stderr


LIGHTNING_DRIVER = '''
import sys, types
sys.path.insert(0, sys.argv[1])
from markers_lightning import gpuwatch_callback
cb = gpuwatch_callback(every_n_steps=2)
t = types.SimpleNamespace(current_epoch=0, max_epochs=2, global_step=0, sanity_checking=True)
cb.on_validation_epoch_start(t, None)          # Lightning's sanity check: not marked
t.sanity_checking = False
for epoch in range(2):
    t.current_epoch = epoch
    cb.on_train_epoch_start(t, None)
    for _ in range(3):
        t.global_step += 1
        cb.on_train_batch_end(t, None, {"loss": 0.5}, None, 0)
    cb.on_validation_epoch_start(t, None)
    cb.on_validation_epoch_end(t, None)
cb.on_fit_end(t, None)
'''


def test_lightning_callback(tmp_path):
    """examples/markers_lightning.py against a stand-in lightning package (a Callback base)."""
    (tmp_path / "lightning" / "pytorch").mkdir(parents=True)
    (tmp_path / "lightning" / "__init__.py").write_text("")
    (tmp_path / "lightning" / "pytorch" / "__init__.py").write_text("class Callback:\n  pass\n")
    (tmp_path / "events.jsonl").write_text("")
    r = subprocess.run([PYTHON, "-c", LIGHTNING_DRIVER, str(SOURCE / "examples")],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=f"{PYDIR}{os.pathsep}{tmp_path}",
                                GPUWATCH_RUN_DIR=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    got = [(e["text"], e["fields"]) for e in marks(tmp_path)]
    assert got == [("epoch", {"n": 1, "total": 2}), ("step", {"n": 2, "loss": 0.5}),
                   ("validation", {"epoch": 1}), ("validation_end", {"epoch": 1}),
                   ("epoch", {"n": 2, "total": 2}), ("step", {"n": 4, "loss": 0.5}),
                   ("step", {"n": 6, "loss": 0.5}), ("validation", {"epoch": 2}),
                   ("validation_end", {"epoch": 2})]


def test_a_hard_link_or_another_users_events_file_is_not_marked(tmp_path):
    """O_NOFOLLOW does not see a hard link planted as events.jsonl (a name for a file of yours
    elsewhere), nor a file the owner of a sticky parent put in a swapped run directory: both
    `gpuwatch mark` and the module refuse them, leaving the file as it was."""
    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    run = tmp_path / "run"
    run.mkdir()
    os.link(victim, run / "events.jsonl")
    env = dict(os.environ, PYTHONPATH=PYDIR, GPUWATCH_RUN_DIR=str(run))
    r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "has other names (2 links)" in r.stderr, r.stderr
    code = "import gpuwatch\nprint(gpuwatch.mark('a'))\n"
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env)
    assert r.stdout.strip() == "False" and "(2 links)" in r.stderr, r.stderr
    assert victim.read_text() == "secret\n"
    if os.geteuid() == 0:  # a file of another user (root may make one)
        (run / "events.jsonl").unlink()
        (run / "events.jsonl").write_text("")
        os.chown(run / "events.jsonl", 4242, 4242)
        r = subprocess.run([GW, "mark", "epoch"], capture_output=True, text=True, env=env)
        assert r.returncode == 1 and "another user (uid 4242)" in r.stderr, r.stderr
        r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env)
        assert r.stdout.strip() == "False" and "uid 4242" in r.stderr, r.stderr
        assert (run / "events.jsonl").read_text() == ""


def test_epochs_of_six_gpus_fit_80_columns(scenario, tmp_path):
    """Six GPUs marked with epochs: the one epoch table gives the GPUs' mean busy share and their
    summed energy, then each GPU's in tables of four GPUs at most, every line within 80
    columns (issue 27: one epoch table; the old one grew 22 columns a GPU)."""
    devs = [h200(uuid=f"GPU-{i}", pci_bus_id=f"00000000:00:0{i}.0") for i in range(6)]
    sc = scenario({"devices": devs})
    out = tmp_path / "run"
    script = "for e in 1 2 3; do gpuwatch mark epoch -f n=$e -f total=3; sleep 0.4; done\n"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sh", "-c", script], env=run_env(sc))
    assert r.returncode == 0, r.stderr
    rep = gw(["report", out]).stdout
    sec = rep.split("\nEpochs (from marks)\n")[1].split("\n\n")[0]
    assert all(len(line) <= 80 for line in sec.splitlines()), sec
    assert "GPU busy: the mean of the 6 GPUs, energy: their sum (each GPU below)" in sec
    lines = sec.splitlines()
    heads = [i for i, line in enumerate(lines) if line.split()[:2] == ["epoch", "busy"]]
    assert len(heads) == 2  # GPUs 0-3, then 4-5
    assert lines[heads[0] - 1].split() == ["GPU", "0", "GPU", "1", "GPU", "2", "GPU", "3"]
    assert lines[heads[1] - 1].split() == ["GPU", "4", "GPU", "5"]
    rows = [line.split() for line in lines[heads[0] + 1:heads[0] + 4]]
    assert [x[0] for x in rows] == ["1/3", "2/3", "3/3"]
    # the main table's energy of an epoch is the sum of the GPUs' (to the printed decimals)
    main = {line.split()[0]: line.split() for line in lines[:heads[0] - 2]
            if line[2:5] in ("1/3", "2/3")}
    per_gpu = [float(v) for v in rows[0][2::2]] + [
        float(v) for v in lines[heads[1] + 1].split()[2::2]]
    assert float(main["1/3"][-1]) == pytest.approx(sum(per_gpu), abs=0.02)

"""In-job data (docs/inproc.md): `gpuwatch run` puts python/inject/sitecustomize.py first on the
job's PYTHONPATH; it times the job's own DataLoaders, reads its settings and samples its Python
stacks into RUN/python/PID.jsonl and PID.stacks, without ever breaking the job.

Every job here is real: Debian's CPU python3-torch trains tests/cli/inproc_job.py, whose workers
and loop burn the CPU time its arguments say, so the wait shares asserted come from the measured
records, not from fixtures."""
import json
import os
import platform
import re
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, SCENARIOS, SOURCE, gw, gw_env

JOB = SOURCE / "tests" / "cli" / "inproc_job.py"
STUB = SOURCE / "tests" / "cli" / "inproc_stub"  # cv2.py: getNumThreads/setNumThreads
INJECT = (SOURCE / "python" / "inject").resolve()


def have_torch():
    return subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode == 0


needs_torch = pytest.mark.skipif(
    not have_torch() and not os.environ.get("CI"),
    reason="python3-torch is not installed (scripts/deps.sh --test installs it; CI fails here)")


def run(tmp_path, cmd, *flags, name="run", env_extra=None, timeout=120, cwd=None):
    env = gw_env(SCENARIOS / "h200_training.json", **(env_extra or {}))
    out = tmp_path / name
    r = gw(["run", "--no-report", "-i", "0.5", "-o", out] + list(flags) + ["--"] + cmd,
           env=env, timeout=timeout, cwd=cwd or tmp_path)
    return r, out


def records(run_dir):
    """{pid: [records]} of RUN/python/*.jsonl."""
    out = {}
    for p in sorted((run_dir / "python").glob("*.jsonl")):
        out[int(p.stem)] = [json.loads(line) for line in p.read_text().splitlines()]
    return out


def last(recs, kind):
    found = [r for r in recs if r["kind"] == kind]
    return found[-1] if found else None


def by_role(recs_by_pid, role):
    return {pid: recs for pid, recs in recs_by_pid.items() if last(recs, "process")["role"] == role}


def stacks(run_dir, pid):
    """[(frames, count)] of RUN/python/PID.stacks (count after the last space)."""
    out = []
    for line in (run_dir / "python" / ("%d.stacks" % pid)).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        out.append((stack.split(";"), int(n)))
    return out


def line_of(path, text):
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(text)


def torch_version():
    return subprocess.run([PYTHON, "-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True).stdout.strip()


def share_waiting(p):
    return p["wait_s"] / (p["wait_s"] + p["between_s"])


def check_steps_add_up(recs, p):
    """A pass's "steps" interval records add up to its "pass" record."""
    iv = [r for r in recs if r["kind"] == "steps" and r["loader"] == p["loader"]
          and r["pass"] == p["pass"]]
    assert sum(r["steps"] for r in iv) == p["steps"]
    assert sum(r["wait_s"] for r in iv) == pytest.approx(p["wait_s"], abs=1e-4)
    assert sum(r["between_s"] for r in iv) == pytest.approx(p["between_s"], abs=1e-4)


@needs_torch
def test_input_bound_job_waits_for_its_fork_worker(tmp_path):
    r, d = run(tmp_path, [PYTHON, JOB, "--workers", "1", "--batches", "30", "--item-ms", "6",
                          "--step-ms", "1", "--epochs", "2", "--val", "--fake-cuda",
                          "--cv2-worker-threads", "0"], env_extra={"PYTHONPATH": STUB})
    assert r.returncode == 0, r.stderr
    assert json.loads((d / "meta.json").read_text())["python_instrumentation"] == "on"
    recs = records(d)
    mains, workers = by_role(recs, "main"), by_role(recs, "worker")
    assert len(mains) == 1
    (mpid, m), = mains.items()
    proc = last(m, "process")
    assert proc["python"] == platform.python_version()
    assert proc["torch"] == torch_version()
    assert proc["rank"] is None and proc["start_method"] is None

    loaders = {x["loader"]: x for x in m if x["kind"] == "loader"}
    assert loaders[0]["num_workers"] == 1 and loaders[0]["batch_size"] == 4
    assert loaders[0]["dataset"] == "Items" and loaders[0]["sampler"] == "SequentialSampler"
    assert loaders[0]["batches"] == 30 and loaders[0]["start_method"] == "fork"
    assert loaders[0]["created_at"] == "inproc_job.py:%d" % line_of(JOB, "train = DataLoader(")
    assert loaders[1]["num_workers"] == 0 and loaders[1]["batches"] == 4

    passes = [x for x in m if x["kind"] == "pass"]
    train = [p for p in passes if p["loader"] == 0]
    assert [p["pass"] for p in train] == [0, 1]
    for p in train:
        assert p["steps"] == 30 and p["complete"] is True
        assert p["first_wait_s"] <= p["wait_s"]
        assert p["t_start"] < p["t_end"]
        # 24 ms of worker time a batch against 1 ms of loop: the loop mostly waits
        assert share_waiting(p) > 0.6, p
        check_steps_add_up(m, p)
    assert [p["steps"] for p in passes if p["loader"] == 1] == [4, 4]

    # one worker per epoch (not persistent), forked, with its own settings
    assert len(workers) == 2
    for wrecs in workers.values():
        wp = last(wrecs, "process")
        assert wp["worker_id"] == 0 and wp["start_method"] == "fork" and wp["ppid"] == mpid
        ws = last(wrecs, "settings")
        assert ws["cv2_num_threads"] == 0 and ws["torch_num_threads"] == 1
        assert last(wrecs, "exit") is not None  # written although multiprocessing os._exit()s
    assert last(m, "settings")["cv2_num_threads"] == 8
    mem = last(m, "memory")
    assert (mem["device"], mem["allocated_bytes"], mem["reserved_bytes"],
            mem["max_allocated_bytes"]) == (0, 3 * 2**30, 5 * 2**30, 4 * 2**30)

    # stacks: the workers decode, from torch's worker loop down; the loop waits inside __next__
    for wpid in workers:
        st = stacks(d, wpid)
        # from torch's worker loop down (before it starts: from multiprocessing's _bootstrap)
        # (and between fork and _bootstrap, on a loaded machine: from popen_fork's _launch)
        assert all(frames[0].startswith(("_worker_loop (torch/utils/data/_utils/worker.py:",
                                         "BaseProcess._bootstrap (process.py:",
                                         "Popen._launch (popen_fork.py:"))
                   for frames, _ in st)
        loop = sum(n for frames, n in st if frames[0].startswith("_worker_loop ("))
        assert loop > 0.5 * sum(n for _, n in st)
        busy = sum(n for frames, n in st if any(f.startswith("decode_and_augment (") for f in frames))
        assert busy > 0.5 * sum(n for _, n in st)
    st = stacks(d, mpid)
    assert sum(n for _, n in st) == last(m, "stacks")["samples"]
    waiting = sum(n for frames, n in st if any("DataLoaderIter.__next__" in f for f in frames))
    working = sum(n for frames, n in st if any(f.startswith("train_step (") for f in frames))
    assert waiting > working
    assert not any("_gpuwatch" in f for frames, _ in st for f in frames)
    assert last(m, "stacks")["sampler_cpu_s"] >= 0 and last(m, "stacks")["interval_s"] == 0.01


@needs_torch
def test_main_bound_job_with_persistent_workers_autocast(tmp_path):
    r, d = run(tmp_path, [PYTHON, JOB, "--workers", "2", "--batches", "30", "--item-ms", "0.3",
                          "--step-ms", "30", "--epochs", "2", "--persistent", "--autocast"])
    assert r.returncode == 0, r.stderr
    recs = records(d)
    (mpid, m), = by_role(recs, "main").items()
    assert len(by_role(recs, "worker")) == 2  # persistent: the same two for both epochs
    assert sorted(last(w, "process")["worker_id"] for w in by_role(recs, "worker").values()) == [0, 1]
    train = [p for p in m if p["kind"] == "pass"]
    assert [p["steps"] for p in train] == [30, 30]
    for p in train:
        # 30 ms of loop a batch, 1.2 ms of worker time: the loop seldom waits once the workers
        # are up (their start-up, first_wait_s, took 0.2 s of a pass on a loaded machine, and
        # a machine at a load of 8 on 2 cores left the workers waiting for a core: 31 %)
        steady_wait = p["wait_s"] - p["first_wait_s"]
        assert steady_wait / (steady_wait + p["between_s"]) < 0.5, p
        check_steps_add_up(m, p)
    s = last(m, "settings")
    assert s["autocast_used"] is True and s["autocast_dtype"] == "bfloat16"
    assert s["torch_compile_used"] is False and s["affinity_cores"] == len(os.sched_getaffinity(0))
    assert s["os_cpu_count"] == os.cpu_count()
    assert last(m, "memory") is None  # CPU torch: CUDA never initialised, never by us either
    st = stacks(d, mpid)
    working = sum(n for frames, n in st if any(f.startswith("train_step (") for f in frames))
    waiting = sum(n for frames, n in st if any("DataLoaderIter.__next__" in f for f in frames))
    assert working > 2 * waiting  # (the rest: importing torch)


@needs_torch
def test_spawn_workers_are_sampled_too(tmp_path):
    r, d = run(tmp_path, [PYTHON, JOB, "--workers", "2", "--batches", "8", "--item-ms", "20",
                          "--epochs", "1", "--start-method", "spawn"])
    assert r.returncode == 0, r.stderr
    recs = records(d)
    (mpid, m), = by_role(recs, "main").items()
    assert last(m, "loader")["start_method"] == "spawn"
    workers = by_role(recs, "worker")
    assert len(workers) == 2
    for wpid, w in workers.items():
        assert last(w, "process")["start_method"] == "spawn"
        st = stacks(d, wpid)
        # the work, from torch's worker loop down; and spawn's start-up (importing the job's
        # main module and torch again) from spawn_main down
        assert any(frames[0].startswith("_worker_loop (") and
                   frames[-1].startswith(("decode_and_augment (", "burn (")) for frames, _ in st)
        assert any(frames[1].startswith("spawn_main (spawn.py:") for frames, _ in st)
        assert not any("main (inproc_job.py" in f for frames, _ in st for f in frames)


@needs_torch
def test_64_forked_workers(tmp_path):
    r, d = run(tmp_path, [PYTHON, JOB, "--workers", "64", "--batches", "64", "--batch-size", "1",
                          "--item-ms", "0", "--step-ms", "0", "--epochs", "1"])
    assert r.returncode == 0, r.stderr
    recs = records(d)
    workers = by_role(recs, "worker")
    assert sorted(last(w, "process")["worker_id"] for w in workers.values()) == list(range(64))
    (mpid, m), = by_role(recs, "main").items()
    assert [(p["steps"], p["complete"]) for p in m if p["kind"] == "pass"] == [(64, True)]


@needs_torch
def test_job_that_exits_mid_step(tmp_path):
    r, d = run(tmp_path, [PYTHON, JOB, "--workers", "1", "--batches", "20", "--exit-at-step", "5",
                          "--epochs", "1"])
    assert r.returncode == 3  # the job's own status
    assert "exiting mid-step 5" in (d / "output.log").read_text()
    (mpid, m), = by_role(records(d), "main").items()
    p, = [x for x in m if x["kind"] == "pass"]
    assert (p["steps"], p["complete"]) == (6, False)  # the 6th batch was returned, then exit
    assert m[-1]["kind"] == "exit"


def test_a_process_killed_at_once_is_still_counted(tmp_path):
    """A worker killed in its first seconds (the OOM killer, Pool.terminate's SIGTERM) has its
    process record written: the report counts every process that ran."""
    job = tmp_path / "killed.py"
    job.write_text(
        "import os, signal, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print('child killed', os.WTERMSIG(status))\n")
    r, d = run(tmp_path, [PYTHON, job])
    assert r.returncode == 0, r.stderr
    assert "child killed 9" in (d / "output.log").read_text()
    recs = records(d)
    assert len(recs) == 2
    child = [m for m in recs.values() if last(m, "exit") is None]
    assert len(child) == 1 and last(child[0], "process")["role"] == "other"
    assert last(child[0], "settings")["os_cpu_count"] == os.cpu_count()


@needs_torch
def test_a_fork_worker_that_dies_at_once_is_a_worker(tmp_path):
    """A DataLoader worker that dies in its first batch (os._exit in a C extension, the OOM
    killer) is counted as a DataLoader worker, not as an "other" process."""
    job = tmp_path / "dies.py"
    job.write_text(
        "import os, torch\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "class D(Dataset):\n"
        "    def __len__(self): return 8\n"
        "    def __getitem__(self, i): os._exit(3)\n"
        "try:\n"
        "    next(iter(DataLoader(D(), num_workers=1, multiprocessing_context='fork')))\n"
        "except RuntimeError as e:\n"
        "    print('caught', 'exited unexpectedly' in str(e))\n")
    r, d = run(tmp_path, [PYTHON, job])
    assert r.returncode == 0, r.stderr
    assert "caught True" in (d / "output.log").read_text()
    recs = records(d)
    assert len(recs) == 2
    (wpid, w), = by_role(recs, "worker").items()
    assert last(w, "process")["start_method"] == "fork" and last(w, "exit") is None


def test_a_job_that_closes_every_descriptor_gets_no_records_in_its_files(tmp_path):
    """python-daemon and os.closerange close every descriptor; the job's next files take their
    numbers. None of our records may land in them, and ours go on."""
    job = tmp_path / "closer.py"
    job.write_text(
        "import os, sys, time\n"
        "time.sleep(2.6)  # our first records are written (every 2 s)\n"
        "os.closerange(3, 1024)\n"
        "fds = [os.open(os.path.join(sys.argv[1], str(i)), os.O_WRONLY | os.O_CREAT)\n"
        "       for i in range(40)]\n"
        "time.sleep(2.6)\n"
        "print('ok')\n")
    files = tmp_path / "files"
    files.mkdir()
    r, d = run(tmp_path, [PYTHON, job, files])
    assert r.returncode == 0, r.stderr
    assert "ok" in (d / "output.log").read_text()
    assert sorted(p.name for p in files.iterdir() if p.stat().st_size) == []
    (pid, m), = records(d).items()
    assert m[-1]["kind"] == "exit" and last(m, "stacks")["samples"] > 30  # >= 10 Hz for 5 s


def test_own_sitecustomize_still_runs_job_without_torch(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text(
        "import os\nMARK = 'theirs'\nopen(os.environ['MARK_FILE'], 'w').write('ran')\n")
    job = tmp_path / "crunch.py"
    job.write_text(
        "import sys, time, sitecustomize\n"
        "def crunch():\n"
        "    end = time.time() + 1.0\n"
        "    while time.time() < end:\n"
        "        sum(range(1000))\n"
        "crunch()\n"
        "print('theirs:', sitecustomize.MARK, 'torch' in sys.modules)\n")
    r, d = run(tmp_path, [PYTHON, job], env_extra={"PYTHONPATH": theirs,
                                                  "MARK_FILE": tmp_path / "mark", "RANK": 3,
                                                  "LOCAL_RANK": 1, "WORLD_SIZE": 4})
    assert r.returncode == 0, r.stderr
    assert "theirs: theirs False" in (d / "output.log").read_text()
    assert (tmp_path / "mark").read_text() == "ran"
    recs = records(d)
    (pid, m), = recs.items()
    proc = last(m, "process")
    assert proc["role"] == "main" and proc["torch"] is None
    assert (proc["rank"], proc["local_rank"], proc["world_size"]) == (3, 1, 4)  # a torchrun rank
    assert last(m, "loader") is None and last(m, "settings")["torch_num_threads"] is None
    st = stacks(d, pid)
    assert sum(n for frames, n in st if any(f.startswith("crunch (crunch.py:2)") for f in frames)) \
        > 0.5 * sum(n for _, n in st)


@pytest.mark.parametrize("user_site", [True, False])
def test_a_job_that_puts_its_own_sitecustomize_first(tmp_path, user_site):
    """YOLOv9's launcher does `PYTHONPATH=py-shims:$PYTHONPATH`: its sitecustomize hides
    gpuwatch's (Python imports the first). gpuwatch's usercustomize, which site imports next
    where the user site is enabled, starts the in-job data then and chain-loads the job's own
    usercustomize; under -s (no user site) the job runs unchanged, without data."""
    theirs = tmp_path / "shims"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("MARK = 'their site'\n")
    later = tmp_path / "later"  # after gpuwatch's on the path: ours runs it
    later.mkdir()
    (later / "usercustomize.py").write_text("MARK = 'their user'\n")
    job = tmp_path / "crunch.py"
    job.write_text(
        "import sys, time, sitecustomize\n"
        "def crunch():\n"
        "    end = time.time() + 0.8\n"
        "    while time.time() < end:\n"
        "        sum(range(1000))\n"
        "crunch()\n"
        "user = sys.modules.get('usercustomize')\n"
        "print('job:', sitecustomize.MARK, '/', getattr(user, 'MARK', 'no user site'))\n")
    flag = "" if user_site else "-s "
    launcher = 'PYTHONPATH="%s:$PYTHONPATH:%s" exec "%s" %s"%s"' % (theirs, later, PYTHON, flag,
                                                                  job)
    r, d = run(tmp_path, ["sh", "-c", launcher])
    assert r.returncode == 0, r.stderr
    their_user = "their user" if user_site else "no user site"
    assert "job: their site / %s" % their_user in (d / "output.log").read_text()
    if not user_site:
        assert not (d / "python").exists()
        return
    (pid, m), = records(d).items()
    assert last(m, "process")["role"] == "main"
    st = stacks(d, pid)
    assert sum(n for frames, n in st if any(f.startswith("crunch (crunch.py:2)") for f in frames)) \
        > 0.5 * sum(n for _, n in st)


def test_the_system_sitecustomize_is_chain_loaded(tmp_path):
    code = "import sitecustomize; print('SC', sitecustomize.__file__)"
    plain = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    r, d = run(tmp_path, [PYTHON, "-c", code])
    assert r.returncode == 0, r.stderr
    out = (d / "output.log").read_text()
    if plain.returncode == 0:  # Debian's /usr/lib/python3.X/sitecustomize.py: the same module
        assert plain.stdout.strip() in out
    else:  # none on this Python: the job sees none either
        assert "ModuleNotFoundError" in out
    assert (d / "python").is_dir()


@pytest.mark.parametrize("flag", ["-I", "-S", "-E"])
def test_isolated_python_runs_unchanged(tmp_path, flag):
    r, d = run(tmp_path, [PYTHON, flag, "-c", "import sys; print('plain', sys.flags.no_site)"])
    assert r.returncode == 0, r.stderr
    assert "plain %d" % (flag == "-S") in (d / "output.log").read_text()
    assert not (d / "python").exists()  # nothing of ours ran: the report says why
    assert json.loads((d / "meta.json").read_text())["python_instrumentation"] == "on"


def test_non_python_job_gets_nothing(tmp_path):
    r, d = run(tmp_path, ["sh", "-c", "echo hello"])
    assert r.returncode == 0 and "hello" in (d / "output.log").read_text()
    assert not (d / "python").exists()


def test_pythonpath_first_and_off_switches(tmp_path):
    show = ["sh", "-c", 'echo "PP=$PYTHONPATH"']
    r, d = run(tmp_path, show, name="on", env_extra={"PYTHONPATH": "/their/dir"})
    first, rest = re.search(r"PP=(\S*)", (d / "output.log").read_text()).group(1).split(":", 1)
    assert rest == "/their/dir"
    assert (Path(first) / "sitecustomize.py").is_file() and \
        (Path(first) / "_gpuwatch_inproc.py").is_file()
    conf = tmp_path / "gw.ini"
    conf.write_text("[run]\npython = false\n")
    cases = [("flag", ["--no-python"], {}, "off (--no-python)"),
             ("env", [], {"GPUWATCH_PYTHON": "0"}, "off (GPUWATCH_PYTHON=0)"),
             ("conf", ["--config", conf], {}, "off ([run] python = false)")]
    for name, flags, env, state in cases:
        env["PYTHONPATH"] = "/their/dir"
        r, d = run(tmp_path, show, *flags, name=name, env_extra=env)
        assert r.returncode == 0, r.stderr
        lines = [x.strip() for x in (d / "output.log").read_text().splitlines()]
        assert "PP=/their/dir" in lines
        assert json.loads((d / "meta.json").read_text())["python_instrumentation"] == state
    conf.write_text("[run]\npython = maybe\n")
    r, d = run(tmp_path, show, "--config", conf, name="bad")
    assert r.returncode == 2
    assert "[run] python: bad value 'maybe' (give true or false)" in r.stderr


def test_record_has_no_python_switch(tmp_path):
    r = gw(["record", "--no-python", "-d", "1"], SCENARIOS / "h200_training.json")
    assert r.returncode == 2 and "--no-python is for `gpuwatch run`" in r.stderr


def test_a_failing_hook_warns_once_and_the_job_goes_on(tmp_path):
    job = ("import sys, time\n"
           "sys._current_frames = lambda: 1 / 0\n"  # what the stack sampler relies on
           "time.sleep(1.0)\n"
           "print('job done')\n")
    r, d = run(tmp_path, [PYTHON, "-c", job])
    assert r.returncode == 0 and "job done" in (d / "output.log").read_text()
    (pid, m), = records(d).items()
    warns = [x for x in m if x["kind"] == "warning"]
    assert [(w["hook"], w["message"]) for w in warns] == \
        [("stacks", "ZeroDivisionError: division by zero")]
    ev = [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]
    pw = [e for e in ev if e["type"] == "python_warning"]
    assert len(pw) == 1 and pw[0]["hook"] == "stacks" and pw[0]["pid"] == pid
    assert "ZeroDivisionError" in pw[0]["message"]


def test_unwritable_run_directory(tmp_path):
    """The job cannot create RUN/python (another user, as a read-only directory would be): it
    runs unchanged, and nothing is written."""
    code = "import time; [sum(range(100)) for _ in range(20000)]; time.sleep(0.3); print('fine')"
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PYTHON, "-c", code]
    else:
        cmd = ["sh", "-c", 'chmod a-w "$GPUWATCH_RUN_DIR" && exec "$0" -c "$1"', PYTHON, code]
    r, d = run(tmp_path, cmd, cwd="/")
    if os.geteuid() != 0:
        os.chmod(d, 0o755)
    assert r.returncode == 0, r.stderr
    out = (d / "output.log").read_text()
    assert "fine" in out and "Traceback" not in out
    assert not (d / "python").exists()
    assert "python_warning" not in (d / "events.jsonl").read_text()


def test_the_sampler_keeps_to_its_cpu_budget(tmp_path):
    """A sampler whose own CPU is over GPUWATCH_PYTHON_CPU_PCT samples less often in proportion
    (each sample takes the GIL from the job), never faster than GPUWATCH_PYTHON_HZ nor slower
    than 10 Hz, and keeps its rate for changes under 20 %; 0 turns the budget off."""
    job = ("import json, _gpuwatch_inproc as g\n"
           "p = g._proc\n"
           "p.stopping = True\n"
           "p.thread.join()\n"
           "print(json.dumps([p.cpu_budget,\n"
           "    p.within_budget(0.01, 0.05, 5.0),\n"    # 1 % of a core at 100 Hz: 4x slower
           "    p.within_budget(0.04, 0.011, 5.0),\n"   # 0.22 %: within 20 %, kept
           "    p.within_budget(0.04, 0.001, 5.0),\n"   # cheap again: back up, to 100 Hz at most
           "    p.within_budget(0.01, 1.0, 5.0),\n"     # 20 %: 10 Hz at the slowest
           "    p.interval_used]))\n")
    env = dict(os.environ, PYTHONPATH=str(INJECT), GPUWATCH_RUN_DIR=str(tmp_path))
    env.pop("GPUWATCH_PYTHON_CPU_PCT", None)
    out = subprocess.run([PYTHON, "-c", job], env=env, capture_output=True, text=True,
                         check=True).stdout
    budget, slower, kept, back, slowest, used = json.loads(out)
    assert budget == 0.0025
    assert abs(slower - 0.04) < 1e-9 and kept == 0.04 and back == 0.01 and slowest == 0.1
    assert used == 0.1  # what the next "stacks" record says (interval_used_s)
    env["GPUWATCH_PYTHON_CPU_PCT"] = "0"
    out = subprocess.run([PYTHON, "-c", "import _gpuwatch_inproc as g; print(g._proc.cpu_budget)"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert float(out) == 0.0  # and run() then never calls within_budget: always 1/HZ

"""The in-job instrumentation (python/inject, docs/inproc.md) on every Python it promises: 3.8 to
3.13. The sources must parse with 3.8's grammar, and a job run under each interpreter this machine
has (Debian's python3 always; more where pyenv or GPUWATCH_TEST_PYTHONS, a colon-separated list,
provide them) must leave its records and stacks: the main process and a forked child, each with
its interpreter's version, the job's own function hottest, the child's parent the main process."""
import ast
import glob
import json
import os
import subprocess

import pytest

from conftest import PYTHON, SCENARIOS, SOURCE, gw, gw_env

INJECT = SOURCE / "python" / "inject"

JOB = '''\
import multiprocessing as mp
import sys
import time


def crunch(seconds):
    end = time.time() + seconds
    while time.time() < end:
        sum(range(1000))


def child():
    crunch(0.8)


if __name__ == "__main__":
    p = mp.get_context("fork").Process(target=child)
    p.start()
    crunch(1.0)
    p.join()
    print("done %d.%d.%d exit %s" % (sys.version_info[:3] + (p.exitcode,)))
'''


def interpreters():
    found = {os.path.realpath(PYTHON): PYTHON}
    extra = [p for p in os.environ.get("GPUWATCH_TEST_PYTHONS", "").split(":") if p]
    home = os.path.expanduser("~/.pyenv/versions")
    for minor in range(8, 14):
        extra += sorted(glob.glob(os.path.join(home, "3.%d.*" % minor, "bin", "python3")))[-1:]
    for p in extra:
        if os.access(p, os.X_OK):
            found.setdefault(os.path.realpath(p), p)
    return sorted(found.values())


@pytest.mark.parametrize("name", sorted(p.name for p in INJECT.glob("*.py")))
def test_sources_parse_as_python_3_8(name):
    src = (INJECT / name).read_text()
    ast.parse(src, filename=name, feature_version=(3, 8))  # raises on 3.9+ syntax


def test_sources_parse_rejects_newer_syntax():
    """The check above can fail: a 3.10 match statement does not parse as 3.8."""
    with pytest.raises(SyntaxError):
        ast.parse("match x:\n    case 1:\n        pass\n", feature_version=(3, 8))


@pytest.mark.parametrize("python", interpreters())
def test_job_records_under_each_python(tmp_path, python):
    version = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    job = tmp_path / "job.py"
    job.write_text(JOB)
    out = tmp_path / "run"
    r = gw(["run", "--no-report", "-i", "0.5", "-o", out, "--", python, job],
           env=gw_env(SCENARIOS / "h200_training.json"), timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "done %s exit 0" % version in (out / "output.log").read_text()
    procs = {}
    for path in (out / "python").glob("*.jsonl"):
        recs = [json.loads(line) for line in path.read_text().splitlines()]
        procs[int(path.stem)] = [x for x in recs if x["kind"] == "process"][-1]
        assert recs[-1]["kind"] == "exit"  # both ended their records, the fork's os._exit too
    assert sorted(p["role"] for p in procs.values()) == ["main", "other"]
    (main_pid,) = [pid for pid, p in procs.items() if p["role"] == "main"]
    (child_pid,) = [pid for pid, p in procs.items() if p["role"] == "other"]
    assert {p["python"] for p in procs.values()} == {version}
    assert procs[child_pid]["ppid"] == main_pid and procs[child_pid]["start_method"] == "fork"
    for pid, leaf_caller in ((main_pid, "<module> (job.py:1)"), (child_pid, "child (job.py:12)")):
        counts = {}
        for line in (out / "python" / ("%d.stacks" % pid)).read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            counts[stack] = counts.get(stack, 0) + int(n)
        total = sum(counts.values())
        hot = sum(n for s, n in counts.items()
                  if s.endswith(leaf_caller + ";crunch (job.py:6)"))
        assert total >= 5 and hot > 0.6 * total, (pid, counts)

"""deploy/slurm's Prolog and Epilog run directly, with the variables slurmd gives them (the real
Slurm run is tests/cli/test_slurm.py): jobs sharing a GPU, GPU ranges, jobs without GPUs, and
failures that must not fail the script (a failing Prolog drains the node)."""
import json
import os
import shutil
import subprocess
import time

import pytest

from pathlib import Path

from conftest import FAKE, GW, SOURCE
from serve_helpers import const_h200

SLURM = SOURCE / "deploy" / "slurm"


@pytest.fixture
def site(tmp_path):
    sc = tmp_path / "scenario.json"
    sc.write_text(json.dumps({"devices": [const_h200(i) for i in range(3)]}))
    conf = tmp_path / "gpuwatch-slurm.conf"
    conf.write_text(f"GPUWATCH={GW}\nRUN_DIR={tmp_path / 'runs'}\nJOBS_DIR={tmp_path / 'jobs'}\n"
                    f"MAP_DIR={tmp_path / 'map'}\nSTATE_DIR={tmp_path / 'rec'}\nINTERVAL=0.1\n"
                    f"LOG_FILE={tmp_path / 'log'}\n")
    env = {"PATH": os.environ["PATH"], "GPUWATCH_SLURM_CONF": str(conf),
           "GPUWATCH_NVML_LIB": FAKE, "FAKE_NVML_SCENARIO": str(sc),
           "SLURMD_NODENAME": "n1"}
    yield tmp_path, env
    stop_recorders(tmp_path / "rec")


def stop_recorders(state_dir):
    """Kills the recorders a failed test left running (the Epilog stops them otherwise)."""
    for f in state_dir.glob("*") if state_dir.is_dir() else []:
        pid = int(f.read_text().split()[0])
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as c:
                if b"record" in c.read():
                    os.kill(pid, 9)
        except (OSError, ValueError):
            pass


def script(name, env, **slurm):
    r = subprocess.run([SLURM / f"gpuwatch-{name}"], env=dict(env, **slurm),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def recording(tmp, job, timeout=60):
    """Waits until the job's recorder has written rows (a job ending before its recorder started
    leaves no summary, as the Epilog logs); returns its run directory."""
    run = Path((tmp / "rec" / job).read_text().split()[1])
    deadline = time.monotonic() + timeout
    while not (run / "gpu.csv").exists() or len((run / "gpu.csv").read_text().splitlines()) < 4:
        assert time.monotonic() < deadline, f"{run} has no rows"
        time.sleep(0.05)
    return run


def test_shellcheck_clean():
    sc = shutil.which("shellcheck")
    if not sc:
        pytest.skip("shellcheck is not installed")
    r = subprocess.run([sc, "-x", "gpuwatch-prolog", "gpuwatch-epilog"], cwd=SLURM,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout


def test_two_jobs_share_a_gpu(site):
    tmp, env = site
    script("prolog", env, SLURM_JOB_ID="10", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0-1")
    script("prolog", env, SLURM_JOB_ID="11", SLURM_JOB_USER="bob", SLURM_JOB_GPUS="1,2")
    m = tmp / "map"
    assert [(m / g).read_text() for g in "012"] == ["10\n", "10\n11\n", "11\n"]
    assert (m / ".jobs" / "11").read_text() == "user=bob\n"
    assert oct(os.stat(m).st_mode & 0o777) == "0o755"
    recording(tmp, "10")
    recording(tmp, "11")
    script("epilog", env, SLURM_JOB_ID="10", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0-1")
    assert not (m / "0").exists() and not (m / ".jobs" / "10").exists()
    assert [(m / g).read_text() for g in "12"] == ["11\n", "11\n"]
    assert json.loads((tmp / "jobs" / "10.json").read_text())["gpus"]
    script("epilog", env, SLURM_JOB_ID="11", SLURM_JOB_USER="bob", SLURM_JOB_GPUS="1,2")
    assert sorted(p.name for p in m.iterdir()) == [".jobs", ".lock"]
    assert sorted(p.name for p in (tmp / "jobs").iterdir()) == ["10.json", "11.json"]
    assert not list((tmp / "rec").iterdir())
    # a second run of job 10 (requeued: same id) keeps the first recording
    script("prolog", env, SLURM_JOB_ID="10", SLURM_JOB_USER="ann", CUDA_VISIBLE_DEVICES="2")
    assert (tmp / "rec" / "10").read_text().split()[1] == str(tmp / "runs" / "10.1")
    recording(tmp, "10")
    script("epilog", env, SLURM_JOB_ID="10", SLURM_JOB_USER="ann", CUDA_VISIBLE_DEVICES="2")
    assert (tmp / "runs" / "10.1" / "meta.json").exists()
    # and its summary does not replace the first run's (the only record with DELETE_RUN_DIR)
    assert sorted(p.name for p in (tmp / "jobs").iterdir()) == ["10.1.json", "10.json", "11.json"]
    assert json.loads((tmp / "jobs" / "10.1.json").read_text())["job"]["gpus"] == [2]
    assert json.loads((tmp / "jobs" / "10.json").read_text())["job"]["gpus"] == [0, 1]


def test_no_gpus_and_no_binary_exit_0(site):
    tmp, env = site
    script("prolog", env, SLURM_JOB_ID="20", SLURM_JOB_USER="ann")
    script("epilog", env, SLURM_JOB_ID="20", SLURM_JOB_USER="ann")
    assert not (tmp / "jobs").exists() and not (tmp / "runs").exists()
    log = (tmp / "log").read_text()
    assert "prolog job 20 on n1: no GPUs allocated" in log
    conf = tmp / "gpuwatch-slurm.conf"
    conf.write_text(conf.read_text().replace(f"GPUWATCH={GW}", "GPUWATCH=/nonexistent/gpuwatch"))
    script("prolog", env, SLURM_JOB_ID="21", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0")
    assert (tmp / "map" / "0").read_text() == "21\n"  # the mapping does not need the recorder
    script("epilog", env, SLURM_JOB_ID="21", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0")
    assert not (tmp / "map" / "0").exists()
    log = (tmp / "log").read_text()
    assert "/nonexistent/gpuwatch is not an executable: not recorded" in log
    script("prolog", env)  # not from slurmd
    assert "no SLURM_JOB_ID" in (tmp / "log").read_text()


def job_gpus(run):
    return json.loads((run / "meta.json").read_text())["job"]


def test_odd_job_ids_name_no_file(site):
    """SLURM_JOB_ID names files in MAP_DIR, STATE_DIR and RUN_DIR: anything but a number is
    refused (a traversal such as ../../etc/x must not write outside them)."""
    tmp, env = site
    for bad in ("../../evil", "1 2", "12/3", "1" * 21, "-5"):
        script("prolog", env, SLURM_JOB_ID=bad, SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0")
        script("epilog", env, SLURM_JOB_ID=bad, SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0")
    assert not (tmp / "map").exists() and not (tmp / "rec").exists()
    assert not (tmp / "runs").exists() and not (tmp.parent / "evil").exists()
    log = (tmp / "log").read_text()
    assert log.count("SLURM_JOB_ID is not a number of at most 20 digits: nothing done") == 10
    assert "prolog job ..?..?evil on n1" in log


def test_gpu_device_ordinal_and_bad_indices(site):
    """GPU_DEVICE_ORDINAL holds NVML indices: the recorder is scoped to them (not read as CUDA
    indices of unknown order, which left every GPU judged); '..' or '-1' name no mapping file."""
    tmp, env = site
    script("prolog", env, SLURM_JOB_ID="30", SLURM_JOB_USER="ann", GPU_DEVICE_ORDINAL="2,..,-1")
    assert sorted(p.name for p in (tmp / "map").iterdir()) == [".jobs", ".lock", "2"]
    log = (tmp / "log").read_text()
    assert "GPU '..' is not an index" in log and "GPU '-1' is not an index" in log
    run = recording(tmp, "30")
    job = job_gpus(run)
    assert (job["gpus"], job["gpus_source"]) == ([2], "SLURM_JOB_GPUS"), job
    script("epilog", env, SLURM_JOB_ID="30", SLURM_JOB_USER="ann")
    assert sorted(p.name for p in (tmp / "map").iterdir()) == [".jobs", ".lock"]
    # what gres gives the Prolog: both variables, with the node's indices; the recorder takes
    # SLURM_JOB_GPUS without a note about CUDA's device order (CUDA_VISIBLE_DEVICES is not passed)
    # (and slurmd in a container whose runtime set NVIDIA_VISIBLE_DEVICES=all)
    script("prolog", env, SLURM_JOB_ID="31", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0,2",
           CUDA_VISIBLE_DEVICES="0,2", NVIDIA_VISIBLE_DEVICES="all")
    job = job_gpus(recording(tmp, "31"))
    assert (job["gpus"], job["gpus_source"], job.get("gpus_note")) == \
        ([0, 2], "SLURM_JOB_GPUS", None), job
    script("epilog", env, SLURM_JOB_ID="31", SLURM_JOB_USER="ann")


def test_full_mapping_dir_keeps_other_jobs_ids(site):
    """The Epilog rewrites a mapping file through FILE.tmp; when that write fails (a full
    tmpfs: here FILE.tmp is a link to /dev/full) the other jobs' ids stay and the line is
    logged, instead of the file being deleted."""
    tmp, env = site
    conf = tmp / "gpuwatch-slurm.conf"
    conf.write_text(conf.read_text().replace(f"GPUWATCH={GW}", "GPUWATCH=/nonexistent/gpuwatch"))
    script("prolog", env, SLURM_JOB_ID="40", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="1")
    script("prolog", env, SLURM_JOB_ID="41", SLURM_JOB_USER="bob", SLURM_JOB_GPUS="1")
    m = tmp / "map"
    (m / "1.tmp").symlink_to("/dev/full")
    script("epilog", env, SLURM_JOB_ID="40", SLURM_JOB_USER="ann")
    assert (m / "1").read_text() == "40\n41\n"
    assert "cannot rewrite" in (tmp / "log").read_text()
    assert not (m / "1.tmp").exists()
    script("epilog", env, SLURM_JOB_ID="40", SLURM_JOB_USER="ann")
    assert (m / "1").read_text() == "41\n"


def test_unwritable_state_dir_leaves_no_recorder(site):
    """Without its STATE_DIR file the Epilog could never stop the recorder: none is started."""
    tmp, env = site
    (tmp / "rec").write_text("a file where the directory should be\n")
    conf = tmp / "gpuwatch-slurm.conf"
    conf.write_text(conf.read_text() + f"STATE_DIR={tmp / 'rec' / 'sub'}\n")
    script("prolog", env, SLURM_JOB_ID="50", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0")
    assert "cannot write" in (tmp / "log").read_text()
    assert "not recorded" in (tmp / "log").read_text()
    assert not (tmp / "runs").exists()
    assert (tmp / "map" / "0").read_text() == "50\n"
    (tmp / "map").rename(tmp / "map.old")
    (tmp / "map").write_text("not a directory\n")
    script("prolog", env, SLURM_JOB_ID="51", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0")
    assert "cannot write the mapping directory" in (tmp / "log").read_text()


def test_last_line_without_newline_keeps_both_ids(site):
    """A mapping file whose last line lost its newline (edited by hand, as the troubleshooting
    table asks): the Prolog's id goes on a line of its own, not glued to the other job's."""
    tmp, env = site
    conf = tmp / "gpuwatch-slurm.conf"
    conf.write_text(conf.read_text().replace(f"GPUWATCH={GW}", "GPUWATCH=/nonexistent/gpuwatch"))
    (tmp / "map").mkdir()
    (tmp / "map" / "1").write_text("7")
    script("prolog", env, SLURM_JOB_ID="8", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="1")
    assert (tmp / "map" / "1").read_text() == "7\n8\n"
    script("epilog", env, SLURM_JOB_ID="8", SLURM_JOB_USER="ann")
    assert (tmp / "map" / "1").read_text() == "7\n"


def test_user_file_is_written_before_the_mapping_files(site):
    """serve may read MAP_DIR between the Prolog's writes: the job's user must be there when its
    GPU's file names it (else gpuwatch_job_info has no user for that scrape and the recording
    rule's count by (hpc_job, user) splits the job). BASH_ENV hooks mv, which the Prolog runs
    only for .jobs/JOB, to list MAP_DIR at that moment."""
    tmp, env = site
    conf = tmp / "gpuwatch-slurm.conf"
    conf.write_text(conf.read_text().replace(f"GPUWATCH={GW}", "GPUWATCH=/nonexistent/gpuwatch"))
    hook = tmp / "hook.sh"
    hook.write_text(f'mv() {{ ls "$MAP_DIR" >>{tmp / "seen"}; command mv "$@"; }}\n')
    script("prolog", env, BASH_ENV=str(hook), SLURM_JOB_ID="70", SLURM_JOB_USER="ann",
           SLURM_JOB_GPUS="1")
    assert (tmp / "seen").read_text().split() == []  # no GPU file yet
    assert (tmp / "map" / "1").read_text() == "70\n"
    assert (tmp / "map" / ".jobs" / "70").read_text() == "user=ann\n"


def test_odd_node_names_and_a_star_name_no_file(site):
    """With RUN_NAME=%j.%n the node name was not checked: SLURMD_NODENAME=../../x put the run
    outside RUN_DIR (and the Epilog chowned it to the user); SLURM_JOB_GPUS='*' was globbed in
    slurmd's directory, each file there taken for a GPU (issue 26 item 7)."""
    tmp, env = site
    conf = tmp / "gpuwatch-slurm.conf"
    conf.write_text(conf.read_text() + "RUN_NAME=%j.%n\n")
    for bad in ("../../x", "-n1", ".hidden", "a/b", "n1 n2"):
        script("prolog", env, SLURM_JOB_ID="40", SLURM_JOB_USER="ann", SLURM_JOB_GPUS="0",
               SLURMD_NODENAME=bad)
        script("epilog", env, SLURM_JOB_ID="40", SLURM_JOB_USER="ann", SLURMD_NODENAME=bad)
    assert not (tmp / "runs").exists() and not (tmp.parent / "x").exists()
    assert not (tmp / "x").exists() and not (tmp / "map").exists()
    log = (tmp / "log").read_text()
    assert log.count("the node name (SLURMD_NODENAME) is not a host name: nothing done") == 10
    assert "prolog job 40 on ..?..?x:" in log
    slurmd_dir = tmp / "spool"
    slurmd_dir.mkdir()
    (slurmd_dir / "1").write_text("")  # a file slurmd's directory happens to hold
    r = subprocess.run([SLURM / "gpuwatch-prolog"], cwd=slurmd_dir, capture_output=True,
                       text=True, timeout=120,
                       env=dict(env, SLURM_JOB_ID="41", SLURM_JOB_USER="ann",
                                SLURM_JOB_GPUS="*"))
    assert r.returncode == 0, r.stderr
    assert not (tmp / "map" / "1").exists()
    assert "GPU '?' is not an index" in (tmp / "log").read_text()
    script("epilog", env, SLURM_JOB_ID="41", SLURM_JOB_USER="ann")


def test_epilog_chown_takes_the_user_as_a_name(site):
    """chown without `--`: a SLURM_JOB_USER starting with '-' was read as an option."""
    text = (SLURM / "gpuwatch-epilog").read_text()
    assert 'chown -R -- "$SLURM_JOB_USER"' in text
    assert 'chown -R "$SLURM_JOB_USER"' not in text

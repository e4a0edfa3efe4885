"""The run directory under attack and under a full disk (issue 12, items 3, 6 and 8): links planted
by another user are never followed, a parent another user could swap is refused, files appear
whole or not at all, the verdicts are printed whatever the report writes do, meta.json and
`gpuwatch report` say when a recording is incomplete, and every file has the same mode."""
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import GW, gw, gw_env, h200, read_csv

ATTACKER = "gwattacker"


def flat(util):
    point = {"t": 0, "util_gpu": util, "util_mem": 0, "mem_used_mib": 20000, "temp_c": 40,
             "power_w": 300, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0,
             "sm_active": util, "sm_occupancy": 0, "tensor_active": 0, "dram_active": 0}
    return h200(timeline=[point])


def limited(nbytes):
    """preexec_fn: every file gpuwatch writes may grow to nbytes (a full disk, per file)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return limit


def leftovers(run_dir):
    """Temporary files left in a run directory (names starting with a dot)."""
    return [p.name for p in Path(run_dir).iterdir() if p.name.startswith(".")]


@pytest.fixture
def open_tmp():
    """A directory every user may traverse (pytest's tmp_path is private to root)."""
    d = Path(tempfile.mkdtemp(prefix="gwsafety-", dir="/tmp"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def attacker_ids():
    """uid and gid of a second, unprivileged user, created when absent."""
    if os.geteuid() != 0:
        pytest.skip("a second user can only be made and used as root (CI runs as root)")
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is missing: cannot act as a second user")
    if subprocess.run(["id", "-u", ATTACKER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        ATTACKER], check=True, capture_output=True)
    uid = int(subprocess.run(["id", "-u", ATTACKER], capture_output=True, text=True).stdout)
    gid = int(subprocess.run(["id", "-g", ATTACKER], capture_output=True, text=True).stdout)
    return uid, gid


def as_attacker(uid, gid, script, cwd):
    subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "sh", "-ec", script], cwd=cwd, check=True)


def test_second_user_cannot_redirect_the_files(scenario, open_tmp):
    uid, gid = attacker_ids()
    sc = scenario({"devices": [flat(90)]})
    secret = open_tmp / "secret"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    att = open_tmp / "att"
    att.mkdir()
    os.chown(att, uid, gid)
    # The attacker prepares what a swap would put in place: a run directory full of links to
    # the root-only file, and a runs/ of their own for the default name.
    names = ["meta.json", "summary.json", "report.html", "gpu.csv", "host.csv",
             "processes.csv", "events.jsonl", "output.log"]
    links = " ".join(f"ln -s {secret} pre/{n};" for n in names if n != "gpu.csv")
    (open_tmp / "gpu.csv").write_text("timestamp, index, utilization.gpu [%]\n"
                                      "2026-11-30T03:20:00.000Z, 0, 50\n"
                                      "2026-11-30T03:20:01.000Z, 0, 60\n")
    as_attacker(uid, gid, f"mkdir pre runs; {links} cp {open_tmp}/gpu.csv pre/gpu.csv", att)

    # 1. a run directory in the attacker's directory is refused, nothing is made or started
    marker = open_tmp / "started"
    r = gw(["run", "-o", att / "run", "--", "touch", marker], sc)
    assert r.returncode == 125, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"belongs to {ATTACKER} (uid {uid})" in lines[0], lines[0]
    assert "choose a directory you own" in lines[0]
    assert not marker.exists() and not (att / "run").exists()
    # the default runs/ in a directory where the attacker made it: refused as well
    r = gw(["record", "--duration", "0.3"], sc, cwd=att)
    assert r.returncode == 1 and f"belongs to {ATTACKER}" in r.stderr, r.stderr
    assert list((att / "runs").iterdir()) == []

    # 2. writing the report into the attacker's directory replaces their links, never follows
    r = gw(["report", att / "pre", "--json", att / "pre" / "summary.json",
            "--html", att / "pre" / "report.html"], sc)
    assert r.returncode == 0, r.stderr
    assert secret.read_text() == "root only\n"
    for n in ("summary.json", "report.html"):
        st = (att / "pre" / n).lstat()
        assert stat.S_ISREG(st.st_mode) and st.st_uid == 0, n
    assert json.loads((att / "pre" / "summary.json").read_text())["gpus"][0]["index"] == 0
    assert leftovers(att / "pre") == []


def test_run_dir_swapped_while_recording(scenario, tmp_path):
    """What a swap would do, done by the job itself: gpuwatch keeps writing into the directory it
    made (by descriptor), follows none of the links, and does not analyse the replacement."""
    sc = scenario({"devices": [flat(90)]})
    secret = tmp_path / "secret"
    secret.write_text("root only\n")
    run, moved = tmp_path / "run", tmp_path / "moved"
    links = " ".join(f"ln -s {secret} {run}/{n};" for n in
                     ("meta.json", "summary.json", "report.html", ".meta.json.tmp"))
    r = gw(["run", "-o", run, "-i", "0.1", "--", "sh", "-c",
            f"sleep 0.3; mv {run} {moved}; mkdir {run}; {links} sleep 0.5"], sc)
    assert r.returncode == 0, r.stderr
    assert secret.read_text() == "root only\n"
    assert "was moved or replaced while recording" in r.stderr
    assert all(p.is_symlink() for p in run.iterdir())
    meta = json.loads((moved / "meta.json").read_text())
    assert meta["complete"] is True and meta["exit"]["code"] == 0
    _, rows = read_csv(moved / "gpu.csv")
    assert len(rows) >= 5  # rows kept coming after the swap


def test_report_writes_are_whole_or_absent_and_verdicts_print(scenario, tmp_path):
    """A disk that fills while the report is written (here a 4 KiB file-size limit: summary.json
    and report.html do not fit) keeps no partial file, says so once with the command that writes
    them again, and the verdict lines are still printed."""
    sc = scenario({"devices": [flat(90)]})
    out = tmp_path / "run"
    r = subprocess.run([GW, "run", "-o", str(out), "-i", "0.1", "--", "sh", "-c",
                        "sleep 0.5; exit 3"], env=gw_env(sc), capture_output=True, text=True,
                       timeout=60, preexec_fn=limited(4096))
    assert r.returncode == 3, r.stderr
    assert [l for l in r.stderr.splitlines() if "job_failed" in l and "status 3" in l], r.stderr
    bad = [l for l in r.stderr.splitlines() if "cannot write" in l]
    assert len(bad) == 1, r.stderr
    assert "summary.json or report.html" in bad[0] and "File too large" in bad[0]
    assert f"gpuwatch report {out} --json {out}/summary.json --html {out}/report.html" in bad[0]
    assert not (out / "summary.json").exists() and not (out / "report.html").exists()
    assert leftovers(out) == []
    assert json.loads((out / "meta.json").read_text())["complete"] is True
    # the command it names works once there is room
    r = gw(["report", out, "--json", out / "summary.json", "--html", out / "report.html"], sc)
    assert r.returncode == 0, r.stderr
    assert any(v["id"] == "job_failed"
               for v in json.loads((out / "summary.json").read_text())["verdicts"])


def test_report_html_too_big_keeps_summary(scenario, tmp_path):
    sc = scenario({"devices": [flat(90)]})
    out = tmp_path / "run"
    r = subprocess.run([GW, "run", "-o", str(out), "-i", "0.1", "--", "sleep", "0.5"],
                       env=gw_env(sc), capture_output=True, text=True, timeout=60,
                       preexec_fn=limited(40000))
    assert r.returncode == 0, r.stderr
    bad = [l for l in r.stderr.splitlines() if "cannot write" in l]
    assert len(bad) == 1 and f"{out}/report.html" in bad[0], r.stderr
    assert "File too large; nothing partial was kept" in bad[0]
    assert f"then run `gpuwatch report {out} --html {out}/report.html`" in bad[0]
    assert not (out / "report.html").exists() and leftovers(out) == []
    assert json.loads((out / "summary.json").read_text())["gpus"][0]["index"] == 0
    assert "recording saved in" in r.stderr


def test_full_disk_while_recording_marks_meta_and_report(scenario, tmp_path):
    sc = scenario({"devices": [flat(90), h200(uuid="GPU-1", pci_bus_id="00000000:00:07.0")]})
    out = tmp_path / "run"
    r = subprocess.run([GW, "run", "-o", str(out), "-i", "0.05", "--no-report", "--", "sh", "-c",
                        "sleep 1.5"], env=gw_env(sc), capture_output=True, text=True,
                       timeout=60, preexec_fn=limited(6000))
    assert r.returncode == 0, r.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["complete"] is False
    assert meta["incomplete"]["reason"] == "write_error"
    assert meta["incomplete"]["detail"] == "ended early: gpu.csv: File too large"
    assert meta["end_time"] is not None and meta["exit"]["code"] == 0  # spec fields unchanged
    # every CSV file ends when the first could not be written, within a tick (host.csv went on
    # until its own limit, issue 26 item 5)
    last = {name: (out / name).read_text().splitlines()[-1].split(",")[0]
            for name in ("gpu.csv", "host.csv")}
    assert abs(gw_time(last["host.csv"]) - gw_time(last["gpu.csv"])) <= 0.2, last
    r = gw(["report", out])
    assert r.returncode == 0, r.stderr
    assert "  incomplete: ended early: gpu.csv: File too large\n" in r.stdout
    r = gw(["report", out, "--json", "-"])
    inp = json.loads(r.stdout)["inputs"][0]
    assert inp["complete"] is False and inp["incomplete"] == "ended early: gpu.csv: File too large"


def test_full_disk_at_start_leaves_no_directory(scenario, tmp_path):
    sc = scenario({"devices": [flat(90)]})
    out = tmp_path / "run"
    marker = tmp_path / "started"
    r = subprocess.run([GW, "run", "-o", str(out), "--", "touch", str(marker)], env=gw_env(sc),
                       capture_output=True, text=True, timeout=60, preexec_fn=limited(200))
    assert r.returncode == 125, r.stderr
    assert "gpu.csv" in r.stderr and "File too large" in r.stderr
    assert f"{out} was removed, so the same -o DIR works again" in r.stderr
    assert not out.exists() and not marker.exists()
    r = gw(["run", "-o", out, "--no-report", "--", "touch", marker], sc)  # the retry works
    assert r.returncode == 0, r.stderr
    assert marker.exists() and (out / "gpu.csv").exists()


def test_killed_recorder_is_reported_incomplete(scenario, tmp_path):
    sc = scenario({"devices": [flat(90)]})
    out = tmp_path / "rec"
    p = subprocess.Popen([GW, "record", "-o", str(out), "-i", "0.1"], env=gw_env(sc),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:  # wait for rows on disk, not for a time
            gpu = out / "gpu.csv"
            if gpu.exists() and len(gpu.read_text().splitlines()) >= 4:
                break
            time.sleep(0.1)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["complete"] is False and meta["incomplete"]["reason"] == "recording"
    want = "gpuwatch was killed or is still recording (meta.json has no end)"
    r = gw(["report", out, "--html", tmp_path / "r.html"])
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if "incomplete" in l]
    assert lines == [f"  incomplete: {want}"], r.stdout
    assert all(len(l) <= 80 for l in lines)
    assert f"<strong>Incomplete recording:</strong> {want}" in (tmp_path / "r.html").read_text()
    inp = json.loads(gw(["report", out, "--json", "-"]).stdout)["inputs"][0]
    assert inp["complete"] is False and inp["incomplete"] == want
    # a recording of the old format (no "complete"): the missing end_time says the same
    del meta["complete"], meta["incomplete"]
    (out / "meta.json").write_text(json.dumps(meta))
    assert f"  incomplete: {want}\n" in gw(["report", out]).stdout


def test_complete_recording_says_nothing(scenario, tmp_path):
    sc = scenario({"devices": [flat(90)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", "--", "sleep", "0.3"], sc)
    assert r.returncode == 0, r.stderr
    assert "incomplete" not in gw(["report", out]).stdout
    inp = json.loads((out / "summary.json").read_text())["inputs"][0]
    assert inp["complete"] is True and inp["incomplete"] is None
    assert "Incomplete recording" not in (out / "report.html").read_text()
    # inputs that are not run directories: unknown
    inp = json.loads(gw(["report", out / "gpu.csv", "--json", "-"]).stdout)["inputs"][0]
    assert inp["complete"] is None


def test_every_file_0644_under_umask_000(scenario, tmp_path):
    sc = scenario({"devices": [flat(90)]})
    out = tmp_path / "run"
    r = subprocess.run([GW, "run", "-o", str(out), "-i", "0.1", "--", "sleep", "0.3"],
                       env=gw_env(sc), capture_output=True, text=True, timeout=60,
                       preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0, r.stderr
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()}
    assert set(modes) >= {"meta.json", "summary.json", "report.html", "gpu.csv", "host.csv",
                          "processes.csv", "events.jsonl", "output.log"}, modes
    assert set(modes.values()) == {0o644}, modes
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    r = subprocess.run([GW, "report", str(out), "--json", str(tmp_path / "s.json"), "--html",
                        str(tmp_path / "r.html")], env=gw_env(sc), capture_output=True,
                       text=True, timeout=60, preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE((tmp_path / "s.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "r.html").stat().st_mode) == 0o644


def gw_time(ts):
    """An RFC 3339 UTC time of ours (2026-12-02T00:45:21.947Z) in seconds."""
    import datetime
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


@pytest.fixture
def tiny_disk():
    """A 96 KiB tmpfs: a disk that really fills (ENOSPC for every file, not one file's limit)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    d = Path(tempfile.mkdtemp(prefix="gwfull-", dir="/tmp"))
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(d)],
                      capture_output=True).returncode != 0:
        d.rmdir()
        pytest.skip("cannot mount a tmpfs here (a container without CAP_SYS_ADMIN)")
    yield d
    subprocess.run(["umount", str(d)], capture_output=True)
    shutil.rmtree(d, ignore_errors=True)


# Fills the disk ($1/filler), then marks 8 KB markers (the write is cut short) and waits until
# gpu.csv has no room either.
FILL_JOB = ('echo "Epoch 1/5"; sleep 0.3; head -c 400000 /dev/zero > "$1/filler" 2>/dev/null; '
            'for i in 2 3 4 5; do echo "Epoch $i/5"; '
            'gpuwatch mark "$(head -c 8000 /dev/zero | tr "\\0" x)"; done; sleep 2; exit 3')


def test_full_disk_keeps_events_whole_and_says_so_in_meta(scenario, tiny_disk):
    """A really full disk (issue 26 item 5): a short write left a partial events.jsonl line that
    the next event (the job's exit) was glued to, and meta.json kept saying "recording" (no room
    for a new one). Now a cut line is taken back, so every line is whole and the exit is there,
    and meta.json, overwritten in the room it keeps, names the write error."""
    sc = scenario({"devices": [h200()]})
    out = tiny_disk / "run"
    env = gw_env(sc, PATH=f"{Path(GW).parent}:{os.environ['PATH']}")
    r = subprocess.run([GW, "run", "-o", str(out), "-i", "0.05", "--no-report", "--", "sh", "-c",
                        FILL_JOB, "sh", str(tiny_disk)], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 3, r.stderr
    assert (f"gpuwatch mark: cannot write {out}/events.jsonl: No space left on device; the "
            "marker was not recorded") in r.stderr, r.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events][-1] == "job_exit" and events[-1]["code"] == 3, events
    assert not [e for e in events if e["type"] == "mark"]  # none half there
    meta = json.loads((out / "meta.json").read_text())
    assert meta["complete"] is False and meta["incomplete"]["reason"] == "write_error", meta
    detail = meta["incomplete"]["detail"]
    assert "gpu.csv: No space left on device" in detail, detail
    assert meta["exit"]["code"] == 3 and meta["end_time"] is not None
    r = gw(["report", out])
    assert r.returncode == 0, r.stderr
    assert f"  incomplete: {detail}\n" in r.stdout
    assert "job_failed" in r.stdout and "exited with status 3" in r.stdout

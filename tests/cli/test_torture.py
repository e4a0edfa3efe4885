"""Regressions found by the torture pass after issue 12's fixes (hostile numbers, planted links,
full disks, odd hooks and INI files): each test is one defect that pass found."""
import calendar
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PYTHON, alive, gw_env, h200, wait_for

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")
HEADER = ("timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
          "power.draw [W], power.limit [W]")


def gw(*args, timeout=60, **kw):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, env=ENV,
                          timeout=timeout, **kw)


def ts(i):
    return f"2026-11-30T03:{i // 60:02d}:{i % 60:02d}.000Z"


def near_capacity_csv(path):
    """An H200 at 141000 of 143771 MiB for 279 s: memory_near_capacity."""
    rows = [HEADER] + [f"{ts(i)}, 0, 99, {141000 if i > 20 else 1000}, 143771, 600, 700"
                       for i in range(300)]
    path.write_text("\n".join(rows) + "\n")


def test_html_evidence_numbers_are_plain(tmp_path):
    """The HTML page wrote a verdict's evidence with 4 significant digits: an H200's memory was
    'peak_used_mib=1.41e+05, memory_total_mib=1.438e+05'. Now as in the text report."""
    csv, html = tmp_path / "near.csv", tmp_path / "r.html"
    near_capacity_csv(csv)
    p = gw("report", csv, "--html", html)
    assert p.returncode == 0, p.stderr
    want = "peak_used_mib=141000, memory_total_mib=143771, time_above_s=279"
    assert want in re.sub(r",\n +", ", ", p.stdout)  # evidence items wrap at 80 columns
    ev = re.findall(r'<div class="detail">evidence: ([^<]*)</div>', html.read_text())
    near = [e for e in ev if e.startswith("peak_pct=")]
    assert near == ["peak_pct=98.1 (&gt; 98), " + want], ev


def test_idle_gpu_with_epochs_has_no_expected_dips(tmp_path):
    """A GPU idle for the whole run (a CPU-only job, util 0 or -0 in every row) with epoch lines in
    the log: the steady state was one 'dip', and expected_dips said 'the GPU is busy nan% in
    between' in the text and the HTML page."""
    csv, log, html = tmp_path / "idle.csv", tmp_path / "train.log", tmp_path / "r.html"
    rows = [HEADER] + [f"{ts(i)}, 0, {'-0' if i % 2 else '0'}, 30000, 143771, 80, 700"
                       for i in range(300)]
    csv.write_text("\n".join(rows) + "\n")
    t0 = calendar.timegm((2026, 11, 30, 3, 0, 0))
    log.write_text("".join(f"{t0 + 30 * k} Epoch {k}/9\n" for k in range(1, 10)))
    p = gw("report", csv, "--log", log, "--html", html, "--json", tmp_path / "s.json")
    assert p.returncode == 0, p.stderr
    # the last epoch's line is the log's last: it ran to the end of the record (30 s), not 0 s
    assert re.search(r"\n  9/9 +270 +30 ", p.stdout), p.stdout
    assert "\n  after " not in p.stdout, p.stdout
    assert "expected_dips" not in p.stdout, p.stdout
    for out in (p.stdout, html.read_text()):
        assert not re.search(r"\bnan\b|\binf\b", out)


def test_absurd_temperatures_are_dropped_at_read(tmp_path):
    """temperature.gpu had no plausible range (only the 1e15 bound): 1e15 C on every row made a
    thermal_throttling verdict with temp_max_c=1e+15. Now -273..1000 C, like the other units."""
    csv, j = tmp_path / "hot.csv", tmp_path / "s.json"
    head = HEADER + ", temperature.gpu, clocks_event_reasons.active"
    rows = [head]
    for i in range(120):
        rows.append(f"{ts(i)}, 0, 99, 30000, 143771, 600, 700, 1e15, 0x0000000000000040")
        bad = {10: "-1e15", 11: "1001", 12: "-274"}.get(i, str(60 + i % 20))
        rows.append(f"{ts(i)}, 1, 99, 30000, 143771, 600, 700, {bad}, 0x0000000000000000")
    csv.write_text("\n".join(rows) + "\n")
    p = gw("report", csv, "--json", j)
    assert p.returncode == 0, p.stderr
    s = json.loads(j.read_text())
    g0, g1 = (next(g for g in s["gpus"] if g["index"] == k) for k in (0, 1))
    assert g0["stats"].get("temperature.gpu") is None
    t1 = g1["stats"]["temperature.gpu"]
    assert (t1["min"], t1["max"], t1["n"]) == (60, 79, 117)
    for v in s["verdicts"]:
        assert v["evidence"].get("temp_max_c") is None or v["evidence"]["temp_max_c"] <= 1000, v
    assert "1e+15" not in p.stdout and "1000000000000000" not in p.stdout


def run_dir_copy(tmp_path):
    """A small run directory (gpu.csv, meta.json, events.jsonl, output.log) written by hand."""
    d = tmp_path / "run"
    d.mkdir()
    rows = [HEADER] + [f"{ts(i)}, 0, 90, 30000, 143771, 600, 700" for i in range(30)]
    (d / "gpu.csv").write_text("\n".join(rows) + "\n")
    (d / "meta.json").write_text('{"mode": "run", "host": "n1", "complete": true}')
    (d / "events.jsonl").write_text('{"timestamp": "2026-11-30T03:00:01.000Z", "type": "epoch", '
                                    '"epoch": 1, "total": 2, "line": "Epoch 1/2"}\n')
    (d / "output.log").write_text("Epoch 1/2\n")
    return d


@pytest.mark.parametrize("name,kind", [("events.jsonl", "fifo"), ("gpu.csv", "fifo"),
                                       ("meta.json", "fifo"), ("host.csv", "fifo"),
                                       ("output.log", "/dev/zero"), ("processes.csv", "dir")])
def test_fifo_or_device_in_a_run_dir_is_an_error_not_a_hang(tmp_path, name, kind):
    """A run directory of another user with a FIFO planted as events.jsonl (or any file): the
    report opened it and blocked forever; /dev/zero as output.log never ends. Now one line naming
    the file, exit 1, at once."""
    d = run_dir_copy(tmp_path)
    p = d / name
    keep = p.read_bytes() if p.exists() else None
    if p.exists():
        p.unlink()
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "dir":
        p.mkdir()
    else:
        p.symlink_to(kind)
    r = gw("report", d, timeout=20)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines == [f"gpuwatch: report: {d}/{name} is not a regular file (a FIFO, device or "
                     "directory): remove it (gpuwatch writes only regular files in a run "
                     "directory)"], r.stderr
    p.unlink() if kind != "dir" else p.rmdir()
    if keep is not None:
        p.write_bytes(keep)  # the same directory without the planted file is read
    r = gw("report", d, timeout=20)
    assert r.returncode == 0 and "input " + str(d / "gpu.csv") in r.stdout, r.stderr


def test_symlinked_run_dir_files_are_still_read(tmp_path):
    """Links to regular files are followed (a run directory assembled with ln -s)."""
    d = run_dir_copy(tmp_path)
    (d / "gpu.csv").rename(tmp_path / "elsewhere.csv")
    (d / "gpu.csv").symlink_to(tmp_path / "elsewhere.csv")
    r = gw("report", d, "--json", "-")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["inputs"][0]["rows"] == 30


CHECKPOINT_JOB = """
import os, signal, sys, time
out = sys.argv[1]
me = os.getppid()
kids = open("/proc/%d/task/%d/children" % (me, me)).read().split()
guard = [k for k in kids if open("/proc/%s/comm" % k).read().strip() == "gpuwatch-guard"]
def on_term(sig, frame):
    print("SIGTERM: saving checkpoint...", flush=True)   # gpuwatch is gone: nobody reads this
    print("x" * 200000, flush=True)                     # more than a pipe holds
    time.sleep(0.3)
    open(out + ".ckpt", "w").write("saved")
    print("checkpoint saved", file=sys.stderr, flush=True)
    sys.exit(143)
signal.signal(signal.SIGTERM, on_term)
open(out + ".pids", "w").write("%d %s" % (os.getpid(), " ".join(guard)))
while True:
    print("step", flush=True)
    time.sleep(0.05)
"""


def test_job_printing_in_its_sigterm_handler_saves_its_checkpoint(tmp_path):
    """gpuwatch SIGKILLed: the guard gives the job SIGTERM (docs/run-directory.md), but the job's
    output pipe had no reader left, so the first line its handler printed ('saving checkpoint')
    killed it (BrokenPipeError; SIGPIPE in C) and the checkpoint was never written. The guard now
    reads and drops the job's output after gpuwatch died, then exits when the job is gone."""
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps({"devices": [h200()]}))
    job, base = tmp_path / "job.py", tmp_path / "fate"
    job.write_text(CHECKPOINT_JOB)
    p = subprocess.Popen([BIN, "run", "-o", str(tmp_path / "run"), "-i", "0.1", "--no-report",
                          "--", PYTHON, str(job), str(base)], env=gw_env(sc),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    pids = Path(str(base) + ".pids")
    try:
        assert wait_for(pids.exists)
        time.sleep(0.3)
    finally:
        p.kill()
        p.wait(timeout=30)
    job_pid, guard_pid = (int(x) for x in pids.read_text().split())
    ckpt = Path(str(base) + ".ckpt")
    assert wait_for(lambda: ckpt.exists() and ckpt.read_text() == "saved")
    assert wait_for(lambda: not alive(job_pid))
    assert wait_for(lambda: not alive(guard_pid))  # the job's end is the guard's


def test_escape_sequences_in_an_ini_file_do_not_reach_the_terminal(tmp_path):
    """A gpuwatch.ini value, key or section with an escape sequence was quoted raw in the error
    ('bad value '\\x1b]0;pwned\\x07...''): every error message writes control bytes as '?'."""
    cases = {b"[temp_warning]\nthreshold = \x1b]0;pwned\x07\x1b[2J\n":
             "2: [temp_warning] threshold: bad value '?]0;pwned??[2J' (give a number in the "
             "metric's unit)",
             b"[\x1b[31mx]\nthreshold = 80\n":
             "2: [?[31mx]: a rule's name is lower-case letters, digits and '_' (at most 39)"}
    for n, (text, want) in enumerate(cases.items()):
        ini = tmp_path / f"bad{n}.ini"
        ini.write_bytes(text)
        r = subprocess.run([BIN, "run", "--config", str(ini), "-o", str(tmp_path / "run"), "--",
                            "true"], capture_output=True, env=gw_env(), timeout=60)
        assert r.returncode == 2
        assert r.stderr.decode() == f"gpuwatch run: {ini}:{want}\n"
        assert not (tmp_path / "run").exists()


def test_escape_sequences_in_a_recording_do_not_reach_the_terminal(tmp_path):
    """meta.json's host and GPU name, a CSV's name column, events and process names are printed
    by the report: an escape sequence planted there reached the terminal raw. Control bytes read
    from a file are '?' in every output."""
    d = run_dir_copy(tmp_path)
    (d / "meta.json").write_text(json.dumps({
        "mode": "run", "host": "\x1b]0;HOST\x07", "complete": True,
        "devices": [{"index": 0, "name": "NV\x1b[31mRED", "uuid": "GPU-\x1b[2J",
                     "pci_bus_id": "00000000:00:06.0", "memory_total_mib": 143771}]}))
    (d / "processes.csv").write_text(
        "timestamp, index, pid, process_name, used_memory [MiB], in_job\n" + "".join(
            f"{ts(i)}, 0, 77, evil\x1b[8m, 30000, 0\n" for i in range(30)))
    csv = tmp_path / "smi.csv"
    csv.write_text("timestamp, index, name, utilization.gpu [%]\n" + "".join(
        f"{ts(i)}, 0, H\x1b[5m200, 50\n" for i in range(30)))
    r = subprocess.run([BIN, "report", str(d), str(csv)], capture_output=True, env=ENV,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert "NV?[31mRED" in out and "[?]0;HOST?]" in out and "H?[5m200" in out, out
    j = subprocess.run([BIN, "report", str(d), "--json", "-"], capture_output=True, env=ENV,
                       timeout=60)
    s = json.loads(j.stdout)
    assert s["gpus"][0]["name"] == "NV?[31mRED"
    for stream in (r.stdout, r.stderr, j.stdout, j.stderr):
        assert not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", stream)


def test_report_killed_while_writing_leaves_no_partial_file(tmp_path):
    """summary.json and report.html are written to a temporary file and renamed: a report killed
    (SIGKILL, OOM) while writing left '.report.html.xxxxxx' and '.summary.json.xxxxxx' behind, 11
    of 25 kills, each as large as the report. Now the file has no name until it is whole; only a
    kill in the moment between naming it and renaming it over the old one (Linux cannot link over
    a name) can leave a whole copy, and the next report removes it."""
    import random
    import signal
    d = run_dir_copy(tmp_path)
    rng = random.Random(3)
    for _ in range(15):
        p = subprocess.Popen([BIN, "report", str(d), "--json", str(d / "summary.json"),
                              "--html", str(d / "report.html")], env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, 0.05))
        p.send_signal(signal.SIGKILL)
        p.wait()
        for f in d.iterdir():  # a leftover, if any, is a whole file, never a part of one
            if f.name.startswith(".summary.json."):
                assert json.loads(f.read_text())["inputs"][0]["rows"] == 30
            elif f.name.startswith(".report.html."):
                assert f.read_text().rstrip().endswith("</html>")
            else:
                assert not f.name.startswith("."), f.name
    r = gw("report", d, "--json", d / "summary.json", "--html", d / "report.html")
    assert r.returncode == 0, r.stderr
    assert json.loads((d / "summary.json").read_text())["inputs"][0]["rows"] == 30
    assert (d / "report.html").read_text().rstrip().endswith("</html>")
    assert [f.name for f in d.iterdir() if f.name.startswith(".")] == []


def test_a_killed_writers_leftover_is_removed_by_the_next_write(tmp_path):
    """The leftover of a writer killed between naming and renaming (made here by hand, older
    than the next report) is removed by the next write of the same file; a file of another
    name, a younger one and a symbolic link of that shape are not touched."""
    d = run_dir_copy(tmp_path)
    stale = d / ".summary.json.k1ll3d"
    stale.write_text("{}")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    other = d / ".summary.json.keep"  # not six characters: not ours
    other.write_text("x")
    os.utime(other, (time.time() - 60, time.time() - 60))
    target = tmp_path / "elsewhere"
    target.write_text("y")
    link = d / ".summary.json.l1nk00"
    link.symlink_to(target)
    r = gw("report", d, "--json", d / "summary.json")
    assert r.returncode == 0, r.stderr
    assert not stale.exists()
    assert other.read_text() == "x" and link.is_symlink() and target.read_text() == "y"
    assert json.loads((d / "summary.json").read_text())["inputs"][0]["rows"] == 30


@pytest.mark.parametrize("bom", [False, True])
def test_csv_from_a_pipe_or_with_a_byte_order_mark_is_read(tmp_path, bom):
    """`gpuwatch report <(nvidia-smi ...)` or `... | gpuwatch report /dev/stdin`: the reader
    looked at the first line to tell a GPM CSV and rewound, which a pipe cannot do, so the header
    was lost and the file refused as 'the first line is not a header'. A UTF-8 byte order mark (a
    CSV saved on Windows) was refused the same way."""
    rows = [HEADER] + [f"{ts(i)}, 0, 90, 30000, 143771, 600, 700" for i in range(40)]
    data = ("\ufeff" if bom else "") + "\n".join(rows) + "\n"
    (tmp_path / "f.csv").write_text(data)
    for args, stdin in ((["/dev/stdin"], data), ([str(tmp_path / "f.csv")], None)):
        r = subprocess.run([BIN, "report", *args, "--json", "-"], input=stdin, text=True,
                           capture_output=True, env=ENV, timeout=60)
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert s["inputs"][0]["rows"] == 40 and s["inputs"][0]["rows_skipped"] == 0
        assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["mean"] == 90
    r = subprocess.run([BIN, "report", "/dev/stdin"], input="\ufeff" if bom else "", text=True,
                       capture_output=True, env=ENV, timeout=60)
    assert r.returncode == 1 and r.stderr == "gpuwatch: report: /dev/stdin: the file is empty\n"


def test_a_marker_with_thousands_of_fields_keeps_its_first_64(tmp_path):
    """A marker (gpuwatch mark, python/gpuwatch.py) with 40,000 fields took the report 9 s
    (each field was looked for among those read before: quadratic), 100,000 several minutes.
    The reader keeps a marker's first 64 fields (docs/markers.md)."""
    d = run_dir_copy(tmp_path)
    mark = {"timestamp": "2026-11-30T03:00:05.000Z", "type": "mark", "text": "dump",
            "fields": {f"k{i}": i for i in range(20000)}}
    with open(d / "events.jsonl", "a") as f:
        f.write(json.dumps(mark) + "\n")
    r = gw("report", d, "--json", "-")
    assert r.returncode == 0, r.stderr
    marks = json.loads(r.stdout)["marks"]
    assert [m["text"] for m in marks] == ["dump"]
    assert marks[0]["fields"] == {f"k{i}": i for i in range(64)}


def limited(nbytes):
    """preexec_fn: every file written may grow to nbytes (ulimit -f)."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return limit


def test_report_and_plot_under_a_file_size_limit_say_so(tmp_path):
    """Under `ulimit -f`, `gpuwatch report --json FILE` and `gpuwatch plot` died of SIGXFSZ
    (exit -25, not a word; plot left a cut PNG): only `run` ignored the signal. Now the write
    fails with EFBIG like on a full disk: one line per file, exit 1, nothing partial, and the
    report's text is still printed."""
    d = run_dir_copy(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([BIN, "report", str(d), "--json", str(out / "s.json"), "--html",
                        str(out / "r.html")], capture_output=True, text=True, env=ENV,
                       timeout=60, preexec_fn=limited(2000))
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stdout.startswith("gpuwatch report: 1 GPU,")
    assert r.stderr.splitlines() == [
        f"gpuwatch: report: cannot write {out}/{n}: File too large; the partial file was "
        "removed: free some space or choose another place" for n in ("s.json", "r.html")]
    for ext in ("png", "svg"):
        r = subprocess.run([BIN, "plot", str(d), "-o", str(out / f"p.{ext}")],
                           capture_output=True, text=True, env=ENV, timeout=60,
                           preexec_fn=limited(1000))
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert r.stderr == (f"gpuwatch: plot: cannot write {out}/p.{ext}: File too large; "
                            "nothing partial was kept: free some space or choose a writable "
                            "path\n")
    assert list(out.iterdir()) == []


def test_plot_and_query_do_not_write_through_another_users_link(tmp_path):
    """`gpuwatch plot -o FILE` let cairo open FILE (and `query -f FILE` fopen'd it): another user's symbolic link there was
    followed and the file it points to (root's) overwritten with the PNG, as report's --html did
    before issue 12. The plot is now written like the report's files."""
    import shutil
    import stat as st
    import tempfile
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to act as a second user")
    user = "gwattacker"
    if subprocess.run(["id", "-u", user], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", user], check=True, capture_output=True)
    uid = int(subprocess.run(["id", "-u", user], capture_output=True, text=True).stdout)
    gid = int(subprocess.run(["id", "-g", user], capture_output=True, text=True).stdout)
    top = Path(tempfile.mkdtemp(prefix="gwtorture-", dir="/tmp"))
    try:
        top.chmod(0o755)
        secret = top / "secret"
        secret.write_text("root only\n")
        secret.chmod(0o600)
        att = top / "att"
        att.mkdir()
        os.chown(att, uid, gid)
        subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "sh",
                        "-ec", f"ln -s {secret} p.png; ln -s {secret} p.svg"], cwd=att,
                       check=True)
        d = run_dir_copy(tmp_path)
        for n in ("p.png", "p.svg"):
            r = gw("plot", d, "-o", att / n)
            assert r.returncode == 0, r.stderr
            lst = (att / n).lstat()
            assert st.S_ISREG(lst.st_mode) and lst.st_uid == 0
        assert secret.read_text() == "root only\n"
        assert (att / "p.png").read_bytes().startswith(b"\x89PNG")
        assert b"<svg" in (att / "p.svg").read_bytes()[:200]
        # query -f FILE (a log written as it goes, nvidia-smi's -f): refused, never followed
        subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "sh",
                        "-ec", f"ln -s {secret} q.csv"], cwd=att, check=True)
        sc = tmp_path / "sc.json"
        sc.write_text(json.dumps({"devices": [h200()]}))
        r = subprocess.run([BIN, "query", "--query-gpu=index,name", "--format=csv", "-f",
                            str(att / "q.csv")], capture_output=True, text=True,
                           env=gw_env(sc), timeout=60)
        assert r.returncode == 1
        assert r.stderr == (f"gpuwatch query: cannot write {att}/q.csv: it is another user's "
                            "symbolic link (-f FILE): choose a path of yours\n")
        assert secret.read_text() == "root only\n"
        mine = tmp_path / "mine.csv"
        (tmp_path / "link.csv").symlink_to(mine)  # your own link is followed
        r = subprocess.run([BIN, "query", "--query-gpu=index,name", "--format=csv", "-f",
                            str(tmp_path / "link.csv")], capture_output=True, text=True,
                           env=gw_env(sc), timeout=60)
        assert r.returncode == 0, r.stderr
        assert mine.read_text() == "index, name\n0, NVIDIA H200\n"
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_absurd_marker_numbers_are_null_in_summary_json(tmp_path):
    """`gpuwatch mark x -f n=1e308` records a number; summary.json's marks wrote it as 1e+308
    (the text report already showed it absent): every number of summary.json is bounded."""
    d = run_dir_copy(tmp_path)
    with open(d / "events.jsonl", "a") as f:
        f.write('{"timestamp": "2026-11-30T03:00:05.000Z", "type": "mark", "text": "m", '
                '"fields": {"n": 1e308, "neg": -1e16, "ok": 12.5, "s": "1e308"}}\n')
    r = gw("report", d, "--json", "-")
    assert r.returncode == 0, r.stderr
    marks = json.loads(r.stdout)["marks"]
    assert marks[0]["fields"] == {"n": None, "neg": None, "ok": 12.5, "s": "1e308"}


# --- issue 26: escape sequences and special files (torture pass on b47a484) ---

ESC_JOB = r"""
import sys
w = sys.stdout.buffer.write
w(b"Epoch 1/2\n\x1b]0;junk title never ended\nloading data\n")
w(b"step 5 \xc2\x9b31m C1 and bad \xff\xfe bytes and \xe2\x80\xaeevil\n")
sys.stdout.flush()
print("Traceback (most recent call last):", file=sys.stderr)
print("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", file=sys.stderr)
sys.exit(1)
"""

# what must never reach a terminal: C0 controls but \t \n, DEL, C1 (as UTF-8), bidi controls,
# bytes that are not UTF-8
UNSAFE = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|"
                    rb"\xe2\x81[\xa6-\xa9]|[\xf8-\xff]")


def test_a_stray_osc_hides_no_later_line_and_an_oom_is_found(tmp_path):
    """One ESC ] that never ended hid every later line of the job's output from `log` and the
    report, so an OOM crash was reported as job_failed on a junk line. A line end now ends any
    escape sequence; C1 controls, bidi overrides and invalid UTF-8 are made safe."""
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps({"devices": [h200()]}))
    job, out = tmp_path / "job.py", tmp_path / "run"
    job.write_text(ESC_JOB)
    r = subprocess.run([BIN, "run", "-o", str(out), "-i", "0.1", "--no-report", "--", PYTHON,
                        str(job)], env=gw_env(sc), capture_output=True, timeout=60)
    assert r.returncode == 1, r.stderr
    log = subprocess.run([BIN, "log", str(out)], capture_output=True, env=ENV, timeout=60)
    assert log.returncode == 0, log.stderr
    lines = [ln.split("  ", 1)[1] for ln in log.stdout.decode().splitlines()]
    assert "loading data" in lines, lines
    assert "step 5 ?31m C1 and bad \ufffd\ufffd bytes and ?evil" in lines, lines
    assert "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" in lines
    rep = subprocess.run([BIN, "report", str(out)], capture_output=True, env=ENV, timeout=60)
    assert rep.returncode == 0, rep.stderr
    # the finding under its verdict's line (issue 27: the first screen)
    assert re.search(rb"critical +oom_crash +GPU 0\n +out of GPU memory: tried to allocate "
                     rb"2\.0 GiB", rep.stdout), rep.stdout
    assert b"job_failed" not in rep.stdout
    for stream in (log.stdout, rep.stdout):
        assert not UNSAFE.search(stream), stream


def test_marker_keys_and_texts_do_not_reach_the_terminal(tmp_path):
    """`gpuwatch mark step -f $'\\e]0;PWNED\\a=1'` then `gpuwatch report RUN` retitled the
    terminal: marker keys were printed raw, and C1 controls passed in texts and values."""
    d = run_dir_copy(tmp_path)
    env = dict(ENV, GPUWATCH_RUN_DIR=str(d))
    r = subprocess.run([BIN, "mark", b"step\xc2\x9b2J", "-f", b"\x1b]0;PWNED\x07=1", "-f",
                        b"k\xe2\x80\xae=v\xc2\x9d"], env=env, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rep = subprocess.run([BIN, "report", str(d)], capture_output=True, env=ENV, timeout=60)
    assert rep.returncode == 0, rep.stderr
    assert b"step?2J" in rep.stdout and b"?]0;PWNED?=1 k?=v?" in rep.stdout, rep.stdout
    j = subprocess.run([BIN, "report", str(d), "--json", "-"], capture_output=True, env=ENV,
                       timeout=60)
    for stream in (rep.stdout, rep.stderr, j.stdout):
        assert not UNSAFE.search(stream), stream


def plant(p, kind):
    """Replaces p with a FIFO or a link to a device."""
    if p.exists() or p.is_symlink():
        p.unlink()
    if kind == "fifo":
        os.mkfifo(p)
    else:
        p.symlink_to(kind)


@pytest.mark.parametrize("name,kind", [("output.idx", "fifo"), ("output.idx", "/dev/zero"),
                                       ("output.log", "fifo"), ("output.log", "/dev/zero")])
def test_output_files_that_are_not_regular_are_an_error_in_report_and_log(tmp_path, name, kind):
    """output.idx was not checked: `report` blocked forever on a FIFO and grew to 3 GB on a link
    to /dev/zero; `gpuwatch log` checked neither output.log nor output.idx. Now one line naming
    the file and the fix, exit 1, at once, for both."""
    d = run_dir_copy(tmp_path)
    (d / "output.idx").write_text("# gpuwatch output index v1\n0 1764471601000\n")
    plant(d / name, kind)
    want = (f"{d}/{name} is not a regular file (a FIFO, device or directory): remove it "
            "(gpuwatch writes only regular files in a run directory)")
    r = gw("report", d, timeout=20)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [f"gpuwatch: report: {want}"], r.stderr
    r = gw("log", d, timeout=20)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [f"gpuwatch log: {want}"], r.stderr


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom"])
def test_config_that_is_not_a_regular_file_is_an_error(tmp_path, kind):
    """`--config` on a FIFO or a device hung; now one line, before anything starts: exit 2 for
    `run` (a usage error), 3 for `check` (unknown, its Nagios convention)."""
    ini = tmp_path / "gpuwatch.ini"
    plant(ini, kind)
    msg = (f"cannot read the configuration file {ini}: it is not a regular file (a FIFO, device "
           "or directory): give the path of an INI file\n")
    r = subprocess.run([BIN, "run", "--config", str(ini), "-o", str(tmp_path / "run"), "--",
                        "true"], capture_output=True, text=True, env=gw_env(), timeout=20)
    assert (r.returncode, r.stderr) == (2, "gpuwatch run: " + msg)
    assert not (tmp_path / "run").exists()
    r = subprocess.run([BIN, "check", "--config", str(ini)], capture_output=True, text=True,
                       env=gw_env(), timeout=20)
    assert (r.returncode, r.stderr) == (3, "gpuwatch check: " + msg)


def test_an_unreachable_home_does_not_stop_run_or_check(tmp_path):
    """A HOME that is a file, or that this user may not search, stopped `run` and `check` at
    the user configuration file (issue 26 item 8); it is absent now, as a missing one is."""
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps({"devices": [h200()]}))
    env = gw_env(sc, HOME="/etc/passwd")
    env.pop("XDG_CONFIG_HOME")
    r = subprocess.run([BIN, "check"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "configuration" not in r.stderr
    r = subprocess.run([BIN, "run", "-o", str(tmp_path / "run"), "--no-report", "--", "true"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "run" / "gpu.csv").exists()
    # a file that is there but unreadable is still an error (as root: a directory in its place)
    home = tmp_path / "home"
    (home / ".config" / "gpuwatch" / "gpuwatch.ini").mkdir(parents=True)
    r = subprocess.run([BIN, "check"], capture_output=True, text=True, timeout=60,
                       env=dict(env, HOME=str(home)))
    assert r.returncode == 3 and "is not a regular file" in r.stderr, r.stderr

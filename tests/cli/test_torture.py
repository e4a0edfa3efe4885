"""Regressions found by the torture pass after issue 12's fixes (hostile numbers, planted links,
full disks, odd hooks and INI files): each test is one defect that pass found."""
import calendar
import os
import re
import subprocess

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
    assert want in p.stdout
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
    assert "\n  9/9       2026-11-30T03:04:30.000Z" in p.stdout, p.stdout
    assert "expected_dips" not in p.stdout, p.stdout
    for out in (p.stdout, html.read_text()):
        assert not re.search(r"\bnan\b|\binf\b", out)

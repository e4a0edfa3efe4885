"""The text report's first screen (issue 27, item 2): each verdict's finding and its one
suggestion come first, GPUs sharing a verdict are one block, the evidence follows under
"Evidence"; every line fits 80 columns in a pipe and the terminal's width on one.
tests/cli/golden/report_yolo_w1b64_80x24.txt is the first 24 lines of a real H200 report; run
with GW_UPDATE_GOLDEN=1 to rewrite it after a deliberate change (say why in the commit)."""
import fcntl
import os
import pty
import select
import struct
import termios
import time
from pathlib import Path

from conftest import GW, SOURCE, gw

GOLDEN = Path(__file__).parent / "golden"
# relative paths, as the README shows them: a path longer than a line is never cut (the only
# lines allowed past the width)
W1 = "examples/recordings/h200-causes/yolo_w1b64"


def four_gpus(path):
    """Four GPUs lightly and steadily used alike: one gpu_starved each."""
    rows = ["timestamp, index, utilization.gpu [%], memory.used [MiB]"]
    for s in range(120):
        for g in range(4):
            rows.append(f"2026/11/05 14:{s // 60:02d}:{s % 60:02d}.000, {g}, "
                        f"{30 if (s // 2) % 2 == 0 else 60} %, 20000 MiB")
    path.write_text("\n".join(rows) + "\n")
    return path


def in_pty(argv, cols, rows=24, timeout=30):
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(SOURCE)
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execve(argv[0], argv, dict(os.environ, NO_COLOR="1"))
    buf, deadline = b"", time.time() + timeout
    while time.time() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return buf.decode().replace("\r\n", "\n")


def test_first_screen_is_finding_then_suggestion_then_evidence():
    out = gw(["report", W1], cwd=SOURCE).stdout
    lines = out.splitlines()
    assert lines[:2] == ["gpuwatch report: 1 GPU, 111.6 s",
                         "  2026-12-01T15:20:50.895Z to 2026-12-01T15:22:42.495Z"]
    first = "\n".join(lines[:24])
    assert "critical  gpu_starved  GPU 0\n  GPU busy 39.4% of the steady state" in first
    assert "\n  try: The input pipeline cannot keep up" in first
    assert first.index("try:") < first.index("  input ") < out.index("\nEvidence\n")
    assert out.index("\nEvidence\n") < out.index("evidence: busy_pct=39.4") < out.index("\nGPU 0:")
    assert max(map(len, lines)) <= 80
    check = GOLDEN / "report_yolo_w1b64_80x24.txt"
    if os.environ.get("GW_UPDATE_GOLDEN"):
        check.write_text(first + "\n")
    assert first + "\n" == check.read_text(), "differs: GW_UPDATE_GOLDEN=1 rewrites it"


def test_gpus_sharing_a_verdict_are_one_block(tmp_path):
    four_gpus(tmp_path / "four.csv")
    out = gw(["report", "four.csv"], cwd=tmp_path).stdout
    verdicts = out[out.index("Verdicts"):out.index("  input ")]
    assert verdicts.count("gpu_starved") == 1 and "critical  gpu_starved  GPUs 0-3\n" in verdicts
    assert "  GPU 0 (the others' numbers under Evidence): GPU lightly and steadily used" \
        in verdicts
    assert verdicts.count("try:") == 1
    evidence = out[out.index("\nEvidence\n"):]
    for g in range(4):  # every GPU keeps its own numbers
        assert f"critical  gpu_starved          GPU {g}\n" in evidence
    assert max(map(len, out.splitlines())) <= 80


def test_a_wide_terminal_gets_long_lines_a_narrow_one_short():
    wide = in_pty([GW, "report", W1], cols=200)
    message = [ln for ln in wide.splitlines() if ln.startswith("  GPU busy 39.4%")][0]
    assert 80 < len(message) <= 200, message  # not cut at 80 on a 200-column terminal
    # the report's own wrapped lines too (issue 27: evidence, "time (whole record):" and the
    # in-job section broke at 80 on a 200-column terminal)
    ev = [ln for ln in wide.splitlines() if ln.startswith("          evidence: busy_pct=39.4")][0]
    assert 150 < len(ev) <= 200, ev
    times = [ln for ln in wide.splitlines() if ln.startswith("  time (whole record):")][0]
    assert times.endswith("thermal_slowdown 0.0 s"), times  # one line
    inside = [ln for ln in wide.splitlines() if ln.startswith("Inside the job: no in-job")][0]
    assert inside.endswith("recorded by an older gpuwatch)"), inside
    narrow = in_pty([GW, "report", W1], cols=60)
    assert "  GPU busy 39.4%" in narrow
    lines = narrow.splitlines()
    # a path is never cut: "input PATH:" is the only line allowed past 60
    assert max(len(ln) for ln in lines if not ln.startswith("  input ")) <= 60


def test_evidence_short_by_default_every_figure_with_v():
    """Without -v the Evidence section lists of a verdict of more than 8 figures those compared
    with a threshold, its cause and how many more there are; -v (--evidence) lists them all;
    a short list (epochs_with_validation's 5 and 6 figures) is shown whole either way."""
    short = gw(["report", SOURCE / W1]).stdout
    ev = short[short.index("\nEvidence\n"):short.index("\nGPU 0:")]
    assert " ".join(ev.split()).endswith(
        "evidence: busy_pct=39.4 (< 80), busy_pct_critical=39.4 (< 50), "
        "workers_saturated_share_pct=85 (> 50), cause=input_pipeline, (23 more with -v)")
    for flag in ("-v", "--evidence"):
        full = gw(["report", flag, SOURCE / W1]).stdout
        ev = full[full.index("\nEvidence\n"):full.index("\nGPU 0:")]
        assert "more with -v" not in ev
        assert "idle_share_pct=33.9, work_s=24.2, bursts=30, burst_mean_s=0.533," in ev
        assert ev.count("=") == 27  # the 4 of the short form and the 23 more
        # the rest of the report is the same
        assert full.replace(ev, "") == short.replace(short[short.index("\nEvidence\n"):
                                                            short.index("\nGPU 0:")], "")
    data = SOURCE / "tests" / "data" / "traces"
    args = ["report", data / "epochs_with_validation.nvsmi.csv", "--log",
            data / "epochs_with_validation.train.log"]
    short, full = gw(args).stdout, gw(args + ["-v"]).stdout
    assert short == full and "more with -v" not in short
    assert "aligned_with=epoch boundaries" in " ".join(short.split())


def test_a_very_short_run_still_ends_with_a_verdict_line(tmp_path):
    """Issue 27, 7: `gpuwatch run -- true` ended with the table and no verdict line at all."""
    from conftest import SCENARIOS, gw_env
    env = gw_env(SCENARIOS / "h200_training.json")
    r = gw(["run", "-o", tmp_path / "r", "--", "true"], env=env)
    assert r.returncode == 0, r.stderr
    assert "no verdict: no GPU worked (utilization.gpu below work_util_pct throughout)\n" \
        in r.stderr
    assert r.stderr.index("no verdict:") < r.stderr.index("recording saved in")

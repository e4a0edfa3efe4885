"""Small things a user notices in the first minute (issue 16, item 3): a usage error is one line
that says how to get help; plot says what it wrote; paths the user typed print without "//";
plurals; gpuwatch's own lines start on a fresh line when the job's output did not end one."""
import re

import pytest

from conftest import GW, SCENARIOS, SOURCE, gw, gw_env, run_in_pty

H200 = SCENARIOS / "h200_training.json"
REC = SOURCE / "examples" / "recordings" / "h200-gpm-step"


@pytest.mark.parametrize("args,help_cmd", [
    (["run", "--bogus"], "gpuwatch run --help"),
    (["run"], "gpuwatch run --help"),
    (["record", "--bogus"], "gpuwatch record --help"),
    (["record", "true"], "gpuwatch record --help"),
    (["query", "--bogus"], "gpuwatch query --help"),
    (["query"], "gpuwatch query --help"),
    (["--bogus"], "gpuwatch --help"),
    (["mark"], "gpuwatch mark --help"),
    (["serve", "--bogus"], "gpuwatch serve --help"),
    (["check", "--bogus"], "gpuwatch check --help"),
    (["plot"], "gpuwatch plot --help"),
    (["plot", "--bogus"], "gpuwatch plot --help"),
    (["report"], "gpuwatch report --help"),
    (["report", "--bogus"], "gpuwatch report --help"),
])
def test_usage_error_is_one_line(args, help_cmd):
    r = gw(args, H200)
    assert r.returncode in (2, 3), r.stderr  # check's usage errors are 3 (docs/check.md)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("gpuwatch") and lines[0].endswith(help_cmd)
    assert "usage:" not in r.stderr and r.stdout == ""


def test_plot_says_what_it_wrote(tmp_path):
    out = tmp_path / "x.svg"
    r = gw(["plot", str(REC) + "/", "-o", f"{tmp_path}//x.svg", "--metrics", "util,power"])
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"gpuwatch: plot: wrote {out} (SVG, 1200 x 400 px, 1 panel)\n"
    assert out.stat().st_size > 1000


def test_input_paths_print_without_double_slashes():
    r = gw(["report", str(REC) + "//"])
    assert r.returncode == 0, r.stderr
    assert "//" not in r.stdout
    # (a long checkout path wraps the line at 80 columns: read it with its words rejoined)
    assert f"input {REC}/gpu.csv: 91 rows" in " ".join(r.stdout.split())


def test_run_dir_and_sample_count_read_right(tmp_path):
    r = gw(["run", "--no-report", "-o", f"{tmp_path}//run/", "--", "true"], H200)
    assert r.returncode == 0, r.stderr
    assert f"recording saved in {tmp_path}/run\n" in r.stderr
    m = re.search(r"gpuwatch: (\d+) (samples?) over", r.stderr)
    assert m and m.group(2) == ("sample" if m.group(1) == "1" else "samples"), r.stderr
    assert "//" not in r.stderr


def test_own_lines_start_on_a_fresh_line(tmp_path):
    # a progress bar never ends its line: gpuwatch's next line must not be glued onto it
    env = gw_env(H200)
    rc, out = run_in_pty([GW, "run", "--no-report", "-o", str(tmp_path / "a"), "--", "printf",
                          "epoch 1 0.6s<2.9s"], env)
    assert rc == 0, out
    assert b"2.9sgpuwatch" not in out
    assert re.search(rb"0\.6s<2\.9s\r+\ngpuwatch: \d+ samples? over", out), out
    # output that ends its line gets no blank line
    rc, out = run_in_pty([GW, "run", "--no-report", "-o", str(tmp_path / "b"), "--", "printf",
                          "epoch 1 done\\n"], env)
    assert rc == 0, out
    assert re.search(rb"epoch 1 done\r+\ngpuwatch: \d+ samples? over", out), out


def test_record_prints_a_status_line_on_sigusr1(tmp_path):
    import signal
    import subprocess
    import time
    out = tmp_path / "rec"
    p = subprocess.Popen([GW, "record", "-i", "0.1", "-o", str(out)], env=gw_env(H200),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    assert first.startswith("gpuwatch: recording 1 GPU"), first
    while not (out / "gpu.csv").exists() or len((out / "gpu.csv").read_text().splitlines()) < 4:
        time.sleep(0.05)  # at least three samples are in
    p.send_signal(signal.SIGUSR1)
    status = p.stderr.readline()
    p.send_signal(signal.SIGINT)
    rest = p.communicate(timeout=30)[1]
    assert p.returncode == 0, rest
    m = re.fullmatch(r"gpuwatch: recording: (\d+) samples over 0:00:(\d\d), (\d+\.\d) MiB in "
                     + re.escape(str(out)) + "\n", status)
    assert m, status
    assert int(m.group(1)) >= 3
    assert "recording saved in" in rest  # SIGUSR1 did not stop it


def test_an_alert_is_not_glued_onto_a_progress_bar(tmp_path):
    # the bar is printed at once and never ended; the alert fires 2 s later, while it stands
    rc, out = run_in_pty([GW, "run", "--no-report", "-i", "0.1", "-o", str(tmp_path / "r"),
                          "--set", "temp_warning.threshold=20", "--set",
                          "temp_warning.duration=2", "--", "sh", "-c",
                          "printf %s 'epoch 1  40%|####      | 0.6s<2.9s'; sleep 4; echo"],
                         gw_env(H200))
    assert rc == 0, out
    assert b"2.9sgpuwatch" not in out
    assert re.search(rb"0\.6s<2\.9s\r+\ngpuwatch: ALERT warning temp_warning: GPU 0 ", out), out

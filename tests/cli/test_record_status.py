"""`gpuwatch record` on a terminal (issue 27, item 4): a status line from the first second that says
how to stop, rewritten in place; a pipe gets none (test_plain_output.py)."""
import os
import pty
import select
import signal
import time

from conftest import GW, SCENARIOS, gw_env


def test_record_status_line_from_the_first_second(tmp_path):
    env = gw_env(SCENARIOS / "h200_training.json")
    out = tmp_path / "rec"
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(GW, [GW, "record", "-i", "0.2", "-o", str(out)], env)
    buf, t0, seen = b"", time.time(), None
    while time.time() - t0 < 10 and seen is None:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                buf += os.read(fd, 65536)
            except OSError:  # it exited: the assertions below say why
                break
            if b"Ctrl-C to stop" in buf:
                seen = time.time() - t0
    os.kill(pid, signal.SIGINT)
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    _, st = os.waitpid(pid, 0)
    os.close(fd)
    text = buf.decode(errors="replace")
    assert os.waitstatus_to_exitcode(st) == 0, text
    assert seen is not None and seen < 3, text  # not after a minute
    line = text.split("gpuwatch: recording: ")[1]
    assert line.startswith(("0 samples over 0:00:0", "1 sample over 0:00:0")) or \
        " samples over 0:00:0" in line.split("\r")[0], text
    assert "\r" in text and "\x1b[K" in text  # rewritten in place, not a new line a second
    assert "recording saved in" in text


def test_run_on_a_terminal_says_how_to_stop(tmp_path):
    from conftest import run_in_pty
    env = gw_env(SCENARIOS / "h200_training.json")
    rc, out = run_in_pty([GW, "run", "--no-report", "-o", str(tmp_path / "r"), "--", "true"], env)
    assert rc == 0, out
    text = out.decode()
    assert "gpuwatch: Ctrl-C stops the command; the report follows its end" in text
    assert text.index("gpuwatch: recording 1 GPU") < text.index("Ctrl-C stops")

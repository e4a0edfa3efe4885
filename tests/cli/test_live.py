"""`gpuwatch` with no command: the live view, end to end against the fake NVML library.

Snapshot tests compare everything after the header line (host name and clock) with the files in
tests/cli/golden/; run with GW_UPDATE_GOLDEN=1 to rewrite them after a deliberate change."""
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import time
import fcntl
import termios
from pathlib import Path

import pytest

from conftest import GW, SCENARIOS, gw, gw_env, poll

GOLDEN = Path(__file__).parent / "golden"
MISSING_PID = 4242424  # above Linux's largest pid_max (4194304): never in /proc


def steady(i, **over):
    """A GPU whose values do not change over time (so GPM averages are exact)."""
    point = {"t": 0, "util_gpu": (i * 37) % 101, "util_mem": (i * 11) % 60,
             "mem_used_mib": 1000 * i + 617, "temp_c": 30 + (i * 7) % 60,
             "power_w": 75 + (i * 41) % 620, "sm_clock_mhz": 1980, "clocks_event_reasons": 0,
             "pstate": 0, "sm_active": (i * 23) % 100, "sm_occupancy": 10, "tensor_active": 5,
             "dram_active": 3}
    dev = {"uuid": f"GPU-{i:08d}-0000-0000-0000-000000000000",
           "pci_bus_id": f"00000000:{i + 1:02X}:00.0", "timeline": [point]}
    dev.update(over)
    return dev


def body(text):
    """The view without its header line (host name, wall clock)."""
    return text.split("\n", 1)[1]


def check_golden(name, text):
    path = GOLDEN / name
    if os.environ.get("GW_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs: GW_UPDATE_GOLDEN=1 rewrites it"


def live(args, sc, **env):
    e = gw_env(sc, **{"COLUMNS": 100, **env})
    return subprocess.run([GW] + [str(a) for a in args], env=e, capture_output=True, timeout=60)


@pytest.mark.parametrize("n", [1, 2, 16])
def test_snapshot(scenario, n):
    procs = [{"pid": MISSING_PID + k, "used_mib": 600 + 10 * k} for k in range(2)]
    devs = [steady(i, processes=procs if i % 2 == 0 else []) for i in range(n)]
    if n > 1:
        devs[1]["unsupported"] = ["gpm", "power"]  # absent values read n/a, never 0
    r = live([], scenario({"devices": devs}))
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    head = text.split("\n")[0]
    assert head.split()[-2:] == ["driver", "580.159.04"]
    assert "\x1b" not in text  # not a terminal: no colour
    check_golden(f"live_{n}gpu.txt", body(text))
    assert len(body(text).splitlines()) == n + 2 * len(range(0, n, 2))


def test_snapshot_json_matches_the_scenario(scenario):
    devs = [steady(i) for i in range(2)]
    devs[0]["processes"] = [{"pid": MISSING_PID, "used_mib": None}]
    devs[1]["unsupported"] = ["gpm"]
    r = live(["--json"], scenario({"devices": devs}))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert r.stdout.decode().count("\n") == 1
    assert doc["driver_version"] == "580.159.04"
    g0, g1 = doc["gpus"]
    p = devs[0]["timeline"][0]
    assert g0["temperature_c"] == p["temp_c"]
    assert g0["utilization_gpu_pct"] == p["util_gpu"]
    assert g0["memory_used_mib"] == p["mem_used_mib"]
    assert g0["memory_total_mib"] == 143771
    assert g0["power_draw_w"] == p["power_w"]
    assert g0["power_limit_w"] == 700
    assert g0["sm_active_pct"] == p["sm_active"]  # GPM after the 150 ms priming window
    assert g0["slowdown_temp_c"] == 89
    assert g0["processes"] == [{"pid": MISSING_PID, "visible": False, "uid": None, "user": None,
                                "name": None, "command": None, "type": "compute",
                                "memory_used_mib": None}]
    assert g1["sm_active_pct"] is None and g1["tensor_active_pct"] is None
    assert g1["uuid"] == devs[1]["uuid"] and g1["pci_bus_id"] == devs[1]["pci_bus_id"]


def test_colour(scenario):
    sc = scenario({"devices": [steady(3, slowdown_temp_c=60)]})  # 51 C: within 15 C: yellow
    plain = live([], sc).stdout
    assert b"\x1b" not in plain
    forced = live(["--color", "always"], sc).stdout
    assert b"\x1b[33m51\xc2\xb0C\x1b[0m" in forced
    assert b"\x1b[1mNVIDIA H200\x1b[0m" in forced
    # --color always wins over NO_COLOR (gw_env sets it), --color never over a terminal
    never = live(["--color", "never"], sc).stdout
    assert body(never.decode()) == body(plain.decode())  # (the header's clock may have ticked)
    # on a terminal: colour unless NO_COLOR is set (and not empty)
    assert b"\x1b[33m51" in run_in_pty([GW], sc, NO_COLOR="")
    assert b"\x1b[33m" not in run_in_pty([GW], sc, NO_COLOR="1")


def pty_spawn(argv, env, rows=40, cols=100):
    """Starts argv on a new pseudo-terminal of rows x cols; returns (pid, master fd)."""
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execve(argv[0], argv, env)
    return pid, fd


def run_in_pty(argv, sc, cols=100, rows=40, **env):
    """Runs argv on a pseudo-terminal to its end; returns everything it wrote."""
    pid, fd = pty_spawn(argv, gw_env(sc, **env), rows, cols)
    out = b""
    while True:
        try:
            r, _, _ = select.select([fd], [], [], 10)
            chunk = os.read(fd, 65536) if r else b""
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out


def test_mig_devices_under_their_parent():
    r = live([], SCENARIOS / "h200_mig.json")
    assert r.returncode == 0, r.stderr
    lines = body(r.stdout.decode()).splitlines()
    assert lines[0].startswith("[0] NVIDIA H200 | 44\u00b0C | n/a | 20600 / 143771 MiB | 310 / 700 W")
    assert lines[1] == "    MIG 0  NVIDIA H200 MIG 3g.71gb  20480 / 71424 MiB"
    assert lines[2] == "    MIG 1  NVIDIA H200 MIG 1g.18gb  0 / 16384 MiB"
    doc = json.loads(live(["--json"], SCENARIOS / "h200_mig.json").stdout)
    migs = doc["gpus"][0]["mig_devices"]
    assert [m["uuid"] for m in migs] == ["MIG-0b6f2c1a-5d3e-5f7a-9b8c-1d2e3f4a5b6c",
                                         "MIG-7e8f9a0b-1c2d-5e3f-8a4b-5c6d7e8f9a0b"]
    assert doc["gpus"][0]["utilization_gpu_pct"] is None


def spawn(argv, **kw):
    """Starts argv; returns once /proc/PID/cmdline is argv's (Popen returns after the exec, so
    at once: this says what the tests rely on)."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    want = b"".join(os.fsencode(a) + b"\0" for a in argv)
    poll(f"the exec of {argv[0]!r}", lambda: Path(f"/proc/{p.pid}/cmdline").read_bytes() == want,
         timeout=20, every=0.02)
    return p


def test_missing_pid_and_unresolvable_uid(scenario):
    if os.geteuid() != 0:
        pytest.skip("needs root to start a process under a uid without a name "
                    "(tests/unit/test_procinfo.c covers it with a fake /proc)")
    uid = 4000123
    sleeper = spawn(["sleep", "60"], preexec_fn=lambda: os.setuid(uid))
    try:
        sc = scenario({"devices": [steady(0, processes=[
            {"pid": sleeper.pid, "used_mib": 100}, {"pid": MISSING_PID, "used_mib": 200}])]})
        lines = body(live([], sc).stdout.decode()).splitlines()
        assert lines[1].split() == [str(uid), str(sleeper.pid), "sleep", "60", "100", "MiB"]
        assert lines[2].split() == ["-", str(MISSING_PID), "(another", "container)", "200", "MiB"]
        doc = json.loads(live(["--json"], sc).stdout)
        procs = doc["gpus"][0]["processes"]
        assert procs[0]["uid"] == uid and procs[0]["user"] == str(uid)
        assert procs[0]["command"] == "sleep 60" and procs[0]["name"] == "sleep"
        assert procs[1]["visible"] is False and procs[1]["command"] is None
    finally:
        sleeper.kill()
        sleeper.wait()


def test_long_and_non_utf8_command_lines(scenario):
    long_arg = "--" + "x" * 3000
    weird = b"caf\xc3\xa9\xff\xfe\x1b[31mred"
    p1 = spawn([sys.executable, "-c", "import time; time.sleep(60)", long_arg])
    p2 = spawn([sys.executable.encode(), b"-c", b"import time; time.sleep(60)", weird])
    try:
        sc = scenario({"devices": [steady(0, processes=[
            {"pid": p1.pid, "used_mib": 1}, {"pid": p2.pid, "used_mib": 2}])]})
        for cols in (60, 100, 200):
            out = live([], sc, COLUMNS=cols).stdout
            text = out.decode("utf-8")  # strict: the view is valid UTF-8
            assert "\x1b" not in text  # the escape in argv cannot reach the terminal
            lines = body(text).splitlines()
            assert all(len(line) <= cols for line in lines), lines
            assert lines[1].endswith("...  1 MiB")
            if cols >= 100:
                assert "x" * 10 in lines[1]
        wide = body(live([], sc, COLUMNS=200).stdout.decode()).splitlines()[2]
        assert "import time; time.sleep(60) caf\u00e9\ufffd\ufffd?[31mred" in wide
        doc = json.loads(live(["--json"], sc).stdout)
        cmd = [p["command"] for p in doc["gpus"][0]["processes"]]
        assert cmd[0].endswith("x" * 100) and len(cmd[0]) <= 4096  # full, up to 4 KiB
        assert cmd[1].endswith("caf\u00e9\ufffd\ufffd?[31mred")
    finally:
        for p in (p1, p2):
            p.kill()
            p.wait()


def test_pipe_without_columns_fits_80(scenario):
    """Into a pipe with no COLUMNS the view is 80 columns wide, plain output's width: the
    command line is cut, the memory column ends each process line."""
    p = spawn([sys.executable, "-c", "import time; time.sleep(60)", "--" + "x" * 300])
    try:
        sc = scenario({"devices": [steady(0, processes=[
            {"pid": p.pid, "used_mib": 7}, {"pid": MISSING_PID, "used_mib": 8}])]})
        env = gw_env(sc)
        env.pop("COLUMNS", None)
        r = subprocess.run([GW], env=env, capture_output=True, timeout=60)
        lines = body(r.stdout.decode()).splitlines()
        assert r.returncode == 0 and len(lines) == 3, r
        assert max(len(line) for line in lines) == 80, lines
        assert lines[1].endswith("...  7 MiB") and lines[2].endswith("  8 MiB"), lines
    finally:
        p.kill()
        p.wait()


def test_no_gpu(scenario):
    sc = scenario({"devices": []})
    r = live([], sc)
    assert r.returncode == 1
    assert r.stdout == b""
    assert b"no NVIDIA GPU found" in r.stderr
    r = live(["--json"], sc)
    assert r.returncode == 0
    assert json.loads(r.stdout)["gpus"] == []


def test_nvml_errors_and_usage(scenario):
    r = live([], SCENARIOS / "init_error_driver_not_loaded.json")
    assert r.returncode == 1
    assert b"DRIVER_NOT_LOADED" in r.stderr
    sc = scenario({"devices": [steady(0)]})
    for args in (["-i", "0"], ["-i", "x"], ["--color", "pink"], ["--count", "2"], ["--bogus"],
                 ["-i", "1", "extra"]):
        r = live(args, sc)
        assert r.returncode == 2, args
        assert r.stdout == b""
        assert r.stderr.count(b"\n") == 1 and b"see gpuwatch --help" in r.stderr, r.stderr
    assert b"unknown option '--bogus'" in live(["--bogus"], sc).stderr


def test_refresh_into_a_pipe(scenario):
    sc = scenario({"devices": [steady(0), steady(1)]})
    r = live(["-i", "0.1", "--count", "3"], sc)
    assert r.returncode == 0, r.stderr
    frames = r.stdout.decode().split("\n\n")
    assert len(frames) == 3
    assert all(body(f).startswith("[0] NVIDIA H200") for f in frames)
    assert b"\x1b" not in r.stdout  # no cursor movement on a pipe
    r = live(["-i", "0.1", "--count", "3", "--json"], sc)
    docs = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert len(docs) == 3 and all(len(d["gpus"]) == 2 for d in docs)


def read_for(fd, seconds):
    out = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_refresh_in_place_and_restore_the_terminal(scenario, sig):
    sc = scenario({"devices": [steady(i, processes=[{"pid": MISSING_PID, "used_mib": 5}])
                               for i in range(2)]})
    pid, fd = pty_spawn([GW, "-i", "0.2", "--compact"], gw_env(sc, NO_COLOR=""), 30, 100)
    first = read_for(fd, 1.0)
    assert first.startswith(b"\x1b[?1049h\x1b[?25l")  # alternate screen, cursor hidden
    assert first.count(b"\x1b[H") >= 3  # redrawn in place, no scrolling
    assert b"\x1b[K\r\n" in first and b"\x1b[J" in first  # stale text cleared, not the screen
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 50, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    resized = read_for(fd, 0.15)  # redrawn at once, before the next refresh
    frame = resized.split(b"\x1b[H")[-1]
    plain = frame.replace(b"\x1b[K", b"").replace(b"\x1b[J", b"")
    for line in plain.decode().replace("\r", "").split("\n"):
        assert len(strip_ansi(line)) <= 50, line
    os.kill(pid, sig)
    rest = read_for(fd, 1.0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"\x1b[?25h\x1b[?1049l" in rest  # cursor back, normal screen back
    tail = rest.split(b"\x1b[?1049l")[-1].decode().replace("\r", "")
    assert "[0] NVIDIA H200" in strip_ansi(tail)  # the last view stays on the normal screen
    assert "\x1b[H" not in tail


def strip_ansi(s):
    import re
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", s)


def test_many_lines_are_clipped_to_the_terminal(scenario):
    sc = scenario({"devices": [steady(i) for i in range(16)]})
    out = run_in_pty([GW], sc, rows=10, cols=100)
    # a one-shot view is not clipped (it scrolls like any output)...
    assert out.count(b"NVIDIA H200") == 16
    pid, fd = pty_spawn([GW, "-i", "0.5", "--compact"], gw_env(sc), 10, 100)
    frame = read_for(fd, 0.8).split(b"\x1b[H")[1]
    os.kill(pid, signal.SIGTERM)
    read_for(fd, 0.5)
    os.waitpid(pid, 0)
    # ... but a refreshing one fits the screen: 9 lines, the last says what was left out
    lines = frame.split(b"\r\n")
    assert len([ln for ln in lines if ln.endswith(b"\x1b[K")]) == 9
    assert lines[8] == b"... 9 more lines: enlarge the terminal\x1b[K"
    assert lines[7].startswith(b" [6] NVIDIA H200")

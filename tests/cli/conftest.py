"""Shared fixtures for gpuwatch's command-line tests (pytest, Debian's python3-pytest).

Every test runs build/gpuwatch against the fake NVML library playing a JSON scenario
(docs/fake-nvml.md); paths come from the environment ctest sets (cmake/tests.cmake)."""
import contextlib
import csv
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("GPUWATCH_SOURCE", Path(__file__).resolve().parents[2]))
BUILD = Path(os.environ.get("GPUWATCH_BUILD", SOURCE / "build"))
GW = os.environ.get("GPUWATCH_BIN", str(BUILD / "gpuwatch"))
FAKE = os.environ.get("GPUWATCH_FAKE_NVML", str(BUILD / "fake-nvml" / "libnvidia-ml.so.1"))
# Real recordings and public nvidia-smi output, vendored with their provenance (tests/data/README.md).
DATA = SOURCE / "tests" / "data"
SCENARIOS = SOURCE / "tests" / "scenarios"
PYTHON = sys.executable


def h200(**over):
    """One H200 device entry in the scenario format, with a simple two-point timeline."""
    dev = {
        "name": "NVIDIA H200",
        "uuid": "GPU-00000000-0000-0000-0000-000000000000",
        "pci_bus_id": "00000000:00:06.0",
        "memory_total_mib": 143771,
        "power_limit_w": 700,
        "slowdown_temp_c": 89,
        "max_sm_clock_mhz": 1980,
        "timeline": [
            {"t": 0, "util_gpu": 0, "util_mem": 0, "mem_used_mib": 600, "temp_c": 38,
             "power_w": 76, "sm_clock_mhz": 345, "clocks_event_reasons": 1, "pstate": 0,
             "sm_active": 0, "sm_occupancy": 0, "tensor_active": 0, "dram_active": 0},
            {"t": 10, "util_gpu": 100, "util_mem": 40, "mem_used_mib": 20600, "temp_c": 78,
             "power_w": 676, "sm_clock_mhz": 1980, "clocks_event_reasons": 0, "pstate": 0,
             "sm_active": 90, "sm_occupancy": 40, "tensor_active": 60, "dram_active": 30},
        ],
    }
    dev.update(over)
    return dev


@pytest.fixture
def scenario(tmp_path):
    """Writes a scenario dict to a file and returns its path."""
    def write(obj, name="scenario.json"):
        p = tmp_path / name
        p.write_text(json.dumps(obj))
        return p
    return write


def gw_env(scenario_path=None, **extra):
    env = dict(os.environ)
    env["GPUWATCH_NVML_LIB"] = FAKE
    env["NO_COLOR"] = "1"
    # hermetic: no gpuwatch.ini of this machine or user (docs/alerts.md)
    env["GPUWATCH_SYSTEM_CONFIG"] = "/nonexistent/gpuwatch.ini"
    env["XDG_CONFIG_HOME"] = "/nonexistent"
    if scenario_path is not None:
        env["FAKE_NVML_SCENARIO"] = str(scenario_path)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def gw(args, scenario_path=None, timeout=60, cwd=None, env=None, **kw):
    """Runs gpuwatch to completion and returns the CompletedProcess (text mode)."""
    return subprocess.run([GW] + [str(a) for a in args], env=env or gw_env(scenario_path),
                          capture_output=True, text=True, timeout=timeout, cwd=cwd, **kw)


def read_csv(path):
    """Reads one of our CSV files: ', ' separated, header first. Returns (header, rows)."""
    lines = Path(path).read_text().splitlines()
    header = lines[0].split(", ")
    rows = [dict(zip(header, line.split(", "))) for line in lines[1:]]
    for line in lines[1:]:
        assert len(line.split(", ")) == len(header), f"ragged row in {path}: {line!r}"
    return header, rows


def rows_on_disk(path):
    """Whole rows (header left out) in one of our CSV files now, 0 before it exists: for waiting
    on a recording's progress instead of a time."""
    try:
        return max(Path(path).read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def interp(timeline, key, t):
    """The scenario's value of key at time t (linear between points, held outside)."""
    pts = [(p["t"], p[key]) for p in timeline if key in p]
    if t <= pts[0][0]:
        return pts[0][1]
    for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return pts[-1][1]


# gpu.csv's header as `gpuwatch run` writes it, for the run directories tests make.
GPU_HEADER = ("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
              "memory.total [MiB], temperature.gpu, power.draw [W], power.limit [W], "
              "clocks.current.sm [MHz], clocks_event_reasons.active, pstate, gpm.sm_active [%], "
              "gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%]")


def rfc3339(t):
    """t (seconds since the epoch) as gpuwatch writes times: RFC 3339, UTC, milliseconds."""
    import datetime
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def rfc3339_to_s(ts):
    from datetime import datetime, timezone
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


def events(run_dir):
    p = Path(run_dir) / "events.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


def run_in_pty(argv, env, timeout=20, cwd=None):
    """Runs argv (in cwd, when given) with a pseudo-terminal as stdin, stdout and stderr; returns
    (exit status, the bytes it wrote)."""
    import pty
    import select
    pid, fd = pty.fork()
    if pid == 0:
        if cwd:
            os.chdir(cwd)
        os.execve(argv[0], argv, env)
    buf = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    _, st = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(st), buf


def alive(pid):
    """True while pid runs (a zombie has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(") ", 1)[1][0] != "Z"


def poll(what, fn, timeout=60, logs=lambda: "", every=0.2):
    """Calls fn until it returns something true and returns that; after timeout seconds, fails
    naming what was awaited, with logs() (the daemons' output) to say why."""
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{logs()}")
        time.sleep(every)


def free_ports(n=1):
    """n distinct TCP ports free on 127.0.0.1 now, for daemons that take their port from a
    configuration file (all held while choosing, so none repeats). They are picked below the
    kernel's ephemeral range: a port taken from that range with bind(0) and released can be
    handed to another test's port-0 listener or connection before the daemon binds it."""
    low = 32768
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    pick = random.Random()
    socks = []
    try:
        while len(socks) < n:
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", pick.randrange(10000, max(low, 10001 + n))))
            except OSError:
                s.close()
                continue
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@contextlib.contextmanager
def machine_lock(name):
    """Holds an exclusive lock named name across every test process of this machine, for a test
    that needs something fixed: scripts/test.sh runs both builds' tests at once, so two tests
    that bind the default port 9400 (say) would take it from each other."""
    import fcntl
    import tempfile
    with open(Path(tempfile.gettempdir()) / f"gpuwatch-test-{name}-{os.getuid()}.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def wait_for(cond, limit_s=20.0):
    """Polls cond until it holds or limit_s passes (a bound on waiting, not an assertion)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()

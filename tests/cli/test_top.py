"""`gpuwatch top` driven through tmux (send-keys, capture-pane) on fake NVML scenarios: history
fills, throttle reasons named, the low-SM flag, sort/filter/select, signal confirmation on a
child we started, resize, NO_COLOR, Ctrl-C / Ctrl-Z, `gpuwatch -i`, and two `gpuwatch serve`
hosts with one killed. tmux comes from scripts/deps.sh --test."""
import os
import re
import shlex
import shutil
import subprocess
import time

import pytest

from conftest import GW, gw_env, h200
from serve_helpers import Server, const_h200

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None,
                                reason="tmux missing: scripts/deps.sh --test installs it")

CHART = "░█▁▂▃▄▅▆▇"


class Tmux:
    """An interactive bash in a detached tmux session of its own server (-L), rows x cols."""

    def __init__(self, cols=80, rows=24):
        self.sock = f"gwtop-{os.getpid()}-{time.monotonic_ns()}"
        self.run("new-session", "-d", "-s", "t", "-x", str(cols), "-y", str(rows),
                 "bash --norc --noprofile")
        self.run("set-option", "-t", "t", "status", "off")

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.sock] + list(args), check=True,
                              capture_output=True, text=True).stdout

    def start(self, argv, env, echo=True):
        """Types `env ... argv; echo EXIT=$?` into the shell."""
        keep = {k: v for k, v in env.items() if k in ("GPUWATCH_NVML_LIB", "FAKE_NVML_SCENARIO",
                                                       "NO_COLOR", "LANG", "LC_ALL", "TERM")}
        line = " ".join(["env"] + [shlex.quote(f"{k}={v}") for k, v in keep.items()] +
                        [shlex.quote(str(a)) for a in argv]) + ("; echo EXIT=$?" if echo else "")
        self.keys(line, "Enter")

    def keys(self, *keys):
        self.run("send-keys", "-t", "t", *keys)

    def literal(self, text):
        self.run("send-keys", "-t", "t", "-l", text)

    def screen(self, escapes=False):
        return self.run("capture-pane", "-p", "-t", "t", *(["-e"] if escapes else []))

    def wait(self, pred, timeout=20, what="the screen"):
        deadline = time.monotonic() + timeout
        while True:
            s = self.screen()
            if pred(s):
                return s
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{s}")
            time.sleep(0.1)

    def wait_text(self, text, timeout=20):
        return self.wait(lambda s: text in s, timeout, repr(text))

    def resize(self, cols, rows):
        self.run("resize-window", "-t", "t", "-x", str(cols), "-y", str(rows))

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)


@pytest.fixture
def tmux():
    sessions = []

    def make(cols=80, rows=24):
        t = Tmux(cols, rows)
        sessions.append(t)
        return t
    yield make
    for t in sessions:
        t.close()


def top_env(sc, **extra):
    return gw_env(sc, LANG="C.UTF-8", LC_ALL="C.UTF-8", **extra)


def throttled(**over):
    """An H200 at 98 % GPU-Util but 3 % SM activity, power-capped and thermally slowed."""
    return h200(timeline=[{"t": 0, "util_gpu": 98, "util_mem": 20, "mem_used_mib": 20000,
                           "temp_c": 88, "power_w": 699, "sm_clock_mhz": 1200,
                           "clocks_event_reasons": 0x4 | 0x40, "pstate": 0, "sm_active": 3,
                           "sm_occupancy": 1, "tensor_active": 0, "dram_active": 1}], **over)


def chart_cells(screen):
    return sum(screen.count(c) for c in CHART)


def test_history_fills_throttle_reasons_and_low_sm(tmux, scenario):
    sc = scenario({"devices": [throttled()]})
    t = tmux()
    t.start([GW, "top", "-i", "0.1"], top_env(sc))
    first = t.wait_text("throttle: power cap, HW thermal")
    assert "SM clock 1200/1980 MHz" in first
    assert re.search(r"\[0\] NVIDIA H200 +Util +98% +SM +3%", first)
    assert "! LOW SM: Util 98% but SM activity 3%" in first
    assert "Mem 19.5/140 GiB" in first and "699/700 W" in first and "88C" in first
    # the charts fill from the right as ticks arrive
    n1 = chart_cells(first)
    later = t.wait(lambda s: chart_cells(s) > n1 + 20, what="the history to grow")
    assert "Util░ SM█ last 60 s" in later
    assert "Power 100% of limit" in later
    for line in later.splitlines():
        assert len(line) <= 80
    t.keys("q")
    done = t.wait_text("EXIT=0")
    assert "every 0.1 s" not in done and "throttle:" not in done  # the normal screen is back


def test_no_low_sm_flag_and_idle_reason(tmux, scenario):
    dev = h200(timeline=[{"t": 0, "util_gpu": 95, "util_mem": 20, "mem_used_mib": 20000,
                          "temp_c": 60, "power_w": 400, "sm_clock_mhz": 1980,
                          "clocks_event_reasons": 0, "pstate": 0, "sm_active": 85,
                          "sm_occupancy": 40, "tensor_active": 50, "dram_active": 30}])
    sc = scenario({"devices": [dev]})
    t = tmux()
    t.start([GW, "top", "-i", "0.2"], top_env(sc))
    s = t.wait_text("throttle: none")
    assert "LOW SM" not in s
    t.keys("q")
    t.wait_text("EXIT=0")


@pytest.fixture
def sleepers():
    # by its full path: the COMMAND column shows the program without its directory
    procs = [subprocess.Popen([shutil.which("sleep"), str(300 + i)]) for i in range(3)]
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def with_processes(pids_mib):
    return throttled(processes=[{"pid": pid, "name": "sleep", "used_mib": mib, "from_s": 0,
                                 "to_s": 3600} for pid, mib in pids_mib])


def rows(screen):
    """The process rows: (pid, command) in screen order."""
    out = []
    for line in screen.splitlines():
        m = re.match(r"\s*(\d+) \S+ +\d+ +\S+MiB .* (sleep \d+)", line)
        if m:
            out.append((int(m.group(1)), m.group(2)))
    return out


def test_processes_sort_filter_select(tmux, scenario, sleepers):
    a, b, c = sleepers
    sc = scenario({"devices": [with_processes([(a.pid, 1000), (b.pid, 3000), (c.pid, 2000)])]})
    t = tmux()
    t.start([GW, "top", "-i", "0.2"], top_env(sc))
    s = t.wait(lambda s: len(rows(s)) == 3 and "h help" in s,
               what="three processes and the status line")
    # by GPU memory, largest first
    assert rows(s) == [(b.pid, "sleep 301"), (c.pid, "sleep 302"), (a.pid, "sleep 300")]
    assert "PID USER     GPU  GPU-MEM  CPU% HOST-MEM     TIME ROLE   RUN COMMAND" in s
    assert re.search(rf"{b.pid} \S+ +0  3000MiB .* train  -   sleep 301", s)
    assert "sort: gpu-mem" in s
    # the status line: the keys that fit in 80 columns, whole
    status = s.rstrip("\n").splitlines()[-1]
    assert status == "sort: gpu-mem | s sort  r reverse  t tree  / filter  T/K/I signal  h help"
    t.keys("r")
    s = t.wait_text("sort: gpu-mem (reversed)")
    assert [p for p, _ in rows(s)] == [a.pid, c.pid, b.pid]
    t.keys("t")
    s = t.wait_text("sort: gpu-mem (reversed), tree | h: help, keys")
    t.keys("t")
    t.wait_text("sort: gpu-mem (reversed) | h: help, keys")
    t.keys("r", "s", "s", "s", "s")  # cpu, host-mem, time, pid
    s = t.wait_text("sort: pid")
    assert [p for p, _ in rows(s)] == sorted([a.pid, b.pid, c.pid])
    # filter by command
    t.keys("/")
    t.literal("sleep 302")
    t.keys("Enter")
    s = t.wait(lambda s: len(rows(s)) == 1 and "filter: sleep 302" in s, what="the filter")
    assert rows(s) == [(c.pid, "sleep 302")]
    t.keys("Escape")
    t.wait(lambda s: len(rows(s)) == 3, what="the filter cleared")
    # select the second row and ask for SIGTERM: the prompt names it; n sends nothing
    t.keys("g", "j", "T")
    s = t.wait_text("? y/n")
    second = sorted([a.pid, b.pid, c.pid])[1]
    assert f"Send SIGTERM to {second} (sleep 30" in s
    t.keys("n")
    t.wait_text("not sent")
    assert all(p.poll() is None for p in sleepers)
    t.keys("q")
    t.wait_text("EXIT=0")


def test_signal_after_confirmation(tmux, scenario, sleepers):
    victim = sleepers[0]
    sc = scenario({"devices": [with_processes([(victim.pid, 1000)])]})
    t = tmux()
    t.start([GW, "top", "-i", "0.2"], top_env(sc))
    t.wait(lambda s: len(rows(s)) == 1, what="the process")
    t.keys("T")
    t.wait_text(f"Send SIGTERM to {victim.pid} (sleep 300)? y/n")
    assert victim.poll() is None
    t.keys("y")
    t.wait_text(f"sent SIGTERM to {victim.pid}")
    assert victim.wait(10) == -15
    assert sleepers[1].poll() is None
    t.keys("q")
    t.wait_text("EXIT=0")


def test_resize_wider_and_back_to_80x24(tmux, scenario, sleepers):
    sc = scenario({"devices": [throttled(processes=[
        {"pid": sleepers[0].pid, "name": "sleep", "used_mib": 100}]), h200(uuid="GPU-1")]})
    t = tmux(80, 24)
    t.start([GW, "top", "-i", "0.2"], top_env(sc))
    small = t.wait(lambda s: len(rows(s)) == 1, what="the first frame")
    t.resize(160, 50)
    # the whole frame: a capture can come while ncurses is still writing the new one
    wide = t.wait(lambda s: any(len(ln) > 100 for ln in s.splitlines()) and
                  "RUN".ljust(16) + " COMMAND" in s and len(rows(s)) == 1, what="a wide frame")
    assert max(len(ln) for ln in wide.splitlines()) <= 160
    assert len(wide.splitlines()) == 50
    # the charts are wider and taller; the run column is wide enough for a name
    baseline = max(ln.count("·") + sum(ln.count(c) for c in CHART) for ln in wide.splitlines())
    assert baseline > 100
    assert "RUN".ljust(16) + " COMMAND" in wide
    t.resize(80, 24)
    back = t.wait(lambda s: max(len(ln) for ln in s.splitlines()) <= 80 and len(rows(s)) == 1,
                  what="80 columns again")
    assert back.count("[0] NVIDIA H200") == 1 and "[1] NVIDIA H200" in back
    assert "PID USER" in back
    assert len(small.splitlines()) == 24
    t.keys("q")
    t.wait_text("EXIT=0")


def test_no_color_and_monochrome(tmux, scenario):
    sc = scenario({"devices": [throttled()]})
    t = tmux()
    t.start([GW, "top", "-i", "0.2"], top_env(sc, NO_COLOR="", TERM="tmux-256color"))
    t.wait_text("throttle:")
    colored = t.screen(escapes=True)
    assert re.search(r"\x1b\[(3[0-7]|4[0-7]|38;5)", colored)  # colours
    t.keys("q")
    t.wait_text("EXIT=0")
    for env in ({"NO_COLOR": "1", "TERM": "tmux-256color"}, {"NO_COLOR": "", "TERM": "vt100"}):
        t.keys("clear", "Enter")
        t.start([GW, "top", "-i", "0.2"], top_env(sc, **env))
        t.wait_text("throttle:")
        plain = t.screen(escapes=True)
        assert not re.search(r"\x1b\[(3[0-7]|4[0-7]|38;5)", plain), env
        assert "\x1b[7m" in plain  # headers and the flag in reverse video instead
        t.keys("q")
        t.wait(lambda s: s.rstrip().endswith("#") and "EXIT=0" in s.split("throttle:")[-1])


def test_ctrl_c_and_ctrl_z_restore_the_terminal(tmux, scenario):
    sc = scenario({"devices": [throttled()]})
    t = tmux()
    t.start([GW, "top", "-i", "0.2"], top_env(sc), echo=False)
    t.wait_text("throttle:")
    t.keys("C-z")
    stopped = t.wait_text("Stopped")
    assert "throttle:" not in stopped  # the shell's screen, not the view
    t.keys("fg", "Enter")
    t.wait_text("throttle:")
    t.keys("C-c")
    t.wait(lambda s: "throttle:" not in s, what="the shell's screen")
    t.keys("echo EXIT=$?", "Enter")
    done = t.wait_text("EXIT=0")
    assert "throttle:" not in done


def test_dash_i_opens_top_on_a_terminal(tmux, scenario):
    sc = scenario({"devices": [throttled()]})
    t = tmux()
    t.start([GW, "-i", "0.2"], top_env(sc))
    s = t.wait_text("throttle: power cap")
    assert "gpuwatch top" in s
    t.keys("q")
    t.wait_text("EXIT=0")
    # --compact keeps the in-place view; a pipe keeps it too (tests/cli/test_live.py)
    t.keys("clear", "Enter")
    t.start([GW, "-i", "0.2", "--compact"], top_env(sc))
    s = t.wait_text("NVIDIA H200")
    assert "gpuwatch top" not in s and "throttle:" not in s
    t.keys("C-c")
    t.wait_text("EXIT=0")


def test_top_needs_a_terminal_and_checks_hosts(scenario):
    sc = scenario({"devices": [throttled()]})
    r = subprocess.run([GW, "top", "--help"], env=gw_env(sc), capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0 and "--hosts LIST" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    r = subprocess.run([GW, "top"], env=gw_env(sc), capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=30)
    assert r.returncode == 1
    assert r.stderr.startswith("gpuwatch top: needs a terminal")
    assert len(r.stderr.splitlines()) == 1
    for args, msg in ((["--hosts", "node1"], "is not HOST:PORT"),
                      (["-i", "0"], "-i"), (["--bogus"], "unknown option '--bogus'"),
                      (["extra"], "no arguments")):
        r = subprocess.run([GW, "top"] + args, env=gw_env(sc), capture_output=True, text=True,
                           timeout=30)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr, (args, r.stderr)


def test_two_hosts_one_killed_goes_stale(tmux, scenario):
    sc = scenario({"devices": [const_h200(0), const_h200(1, used_mib=40960)]})
    with Server(sc) as s1, Server(sc) as s2:
        s1.wait_sample()
        s2.wait_sample()
        t = tmux()
        hosts = f"{s1.addr},{s2.addr}"
        t.start([GW, "top", "--hosts", hosts, "-i", "0.2", "--timeout", "0.5"], top_env(sc))
        # (SM activity needs two GPM samples: it comes with a later scrape)
        # SM activity 92.5 %: shown 92 or 93 as the GPM window's arithmetic rounds it
        s = t.wait(lambda s: s.count(" ok") >= 4 and len(re.findall(r"\b9[23]%", s)) >= 4,
                   what="both hosts")
        assert "2 hosts" in s
        line = next(ln for ln in s.splitlines() if ln.startswith(s1.addr))
        assert re.search(r" 0 H200 +87% +9[23]% +20.0/140 +512/700 +65C ok$", line), line
        assert re.search(r"^ +1 H200 +87% +9[23]% +40.0/140 +512/700 +65C ok$", s, re.M)
        for ln in s.splitlines():
            assert len(ln) <= 80
        s2.proc.kill()
        s2.proc.wait()
        # (a request cut by the kill may fail otherwise first; the next one is refused)
        s = t.wait_text("(Connection refused)")
        dead = [ln for ln in s.splitlines() if "STALE" in ln]
        assert any("STALE: no answer for" in ln and "Connection refused" in ln for ln in dead), s
        # its GPUs stay on screen with their last values, marked
        assert sum(ln.rstrip().endswith("STALE") for ln in dead) == 2, s
        alive = next(ln for ln in s.splitlines() if ln.startswith(s1.addr))
        assert alive.rstrip().endswith("ok")
        t.keys("q")
        t.wait_text("EXIT=0")


def test_ascii_charts_without_a_utf8_locale(tmux, scenario):
    sc = scenario({"devices": [throttled()]})
    t = tmux()
    t.start([GW, "top", "-i", "0.1"], gw_env(sc, LANG="C", LC_ALL="C"))
    s = t.wait(lambda s: "throttle:" in s and s.count(":") > 40, what="ASCII charts")
    assert "Util: SM# last 60 s" in s
    assert not any(c in s for c in CHART + "·")
    t.keys("q")
    t.wait_text("EXIT=0")


def test_more_gpus_than_rows(tmux, scenario):
    sc = scenario({"devices": [h200(uuid=f"GPU-{i}") for i in range(16)]})
    t = tmux(80, 24)
    t.start([GW, "top", "-i", "0.2"], top_env(sc))
    s = t.wait_text("more GPUs: enlarge the terminal")
    shown = len(re.findall(r"^\[\d+\] NVIDIA H200", s, re.M))
    assert 0 < shown < 16
    assert f"... {16 - shown} more GPUs: enlarge the terminal" in s
    assert "PID USER" in s and "no GPU process" in s  # the process table keeps its rows
    t.keys("q")
    t.wait_text("EXIT=0")


def test_eight_gpus_get_a_line_of_history_each(tmux, scenario):
    """Too few rows for full charts under every GPU but room for one line each: GPU-Util's
    history as a line of eighths under each GPU."""
    sc = scenario({"devices": [h200(uuid=f"GPU-{i}") for i in range(8)]})
    t = tmux(120, 40)
    t.start([GW, "top", "-i", "0.1"], top_env(sc))
    s = t.wait(lambda s: len(re.findall(r"^util [·▁▂▃▄▅▆▇█ ]*[▁▂▃▄▅▆▇█]", s, re.M)) == 8,
               what="a filled history line under each of 8 GPUs")
    lines = s.splitlines()
    for i in range(8):
        at = next(k for k, line in enumerate(lines) if line.startswith(f"[{i}] NVIDIA H200"))
        assert lines[at + 2].startswith("util ")  # values, clocks, then its history
    assert "last 5 min" not in s and "more GPU" not in s
    t.keys("q")
    t.wait_text("EXIT=0")


@pytest.fixture
def trainer(tmp_path):
    """A 'trainer' started with GPUWATCH_RUN_DIR (as `gpuwatch run` starts a job) and its child:
    (parent pid, child pid)."""
    env = dict(os.environ, GPUWATCH_RUN_DIR=str(tmp_path / "run-resnet"))
    p = subprocess.Popen(["sh", "-c", "sleep 311 & wait"], env=env)
    deadline = time.monotonic() + 10
    child = None
    while child is None and time.monotonic() < deadline:
        kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
        child = int(kids[0]) if kids else None
        time.sleep(0.02)
    assert child, "the trainer did not start its child"
    yield p.pid, child
    os.kill(child, 9)
    p.wait()


def test_role_recorded_run_and_tree(tmux, scenario, trainer):
    parent, child = trainer
    sc = scenario({"devices": [with_processes([(child, 5000), (parent, 100)])]})
    t = tmux(120, 30)
    t.start([GW, "top", "-i", "0.2"], top_env(sc))
    s = t.wait(lambda s: "sleep 311" in s and "sh -c" in s, what="both processes")
    lines = {int(ln.split()[0]): ln for ln in s.splitlines() if re.match(r"\s*\d+ ", ln)}
    assert re.search(r" worker run-resnet +sleep 311$", lines[child].rstrip()), lines[child]
    assert re.search(r" train  run-resnet +sh -c sleep 311 & wait$", lines[parent].rstrip())
    # sorted by GPU memory the child comes first; in tree mode it goes under its parent
    assert s.index("sleep 311\n") < s.index("sh -c")
    t.keys("t")
    s = t.wait_text("sort: gpu-mem, tree")
    assert re.search(r"sh -c sleep 311 & wait\n.* worker run-resnet +  └ sleep 311", s), s
    t.keys("q")
    t.wait_text("EXIT=0")


class HostileMetrics:
    """Two loopback /metrics hosts: one with 40 GPUs and a bidi override in its model name, one
    answering 3 MiB (issue 26 item 8 and 3)."""

    def __init__(self):
        import http.server
        import threading
        many = "".join(f'DCGM_FI_DEV_GPU_UTIL{{gpu="{i}",modelName="H\u202e002",'
                       f'Hostname="big"}} 50\n' for i in range(40)).encode()
        huge = b"# " + b"x" * (3 << 20) + b"\n" + many

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = huge if self.server.server_address[1] == HostileMetrics.huge_port \
                    else many
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        self.servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
                        for _ in range(2)]
        HostileMetrics.huge_port = self.servers[1].server_address[1]
        for s in self.servers:
            threading.Thread(target=s.serve_forever, daemon=True).start()
        self.addrs = [f"127.0.0.1:{s.server_address[1]}" for s in self.servers]

    def close(self):
        for s in self.servers:
            s.shutdown()
            s.server_close()


def test_hosts_with_many_gpus_or_huge_answers_are_said(tmux, scenario):
    """top --hosts showed 16 of a host's 40 GPUs without a word, kept 16 MiB answers (729 MB for
    32 hosts) and passed bidi overrides to the screen. Now the rest is counted on a line, an
    answer over 2 MiB is an error of that host, and U+202E is '?'."""
    sc = scenario({"devices": [const_h200(0)]})
    hosts = HostileMetrics()
    try:
        t = tmux(80, 40)
        t.start([GW, "top", "--hosts", ",".join(hosts.addrs), "-i", "0.3", "--timeout", "2"],
                top_env(sc))
        s = t.wait_text("more GPUs of this host not shown", timeout=30)
        assert "... 24 more GPUs of this host not shown (top shows 16)" in s, s
        assert "H?002" in s and "\u202e" not in s, s
        s = t.wait_text("answer larger than 2 MiB", timeout=30)
        assert f"{hosts.addrs[1]} STALE: answer larger than 2 MiB" in s, s
        t.keys("q")
        t.wait_text("EXIT=0")
    finally:
        hosts.close()

"""Did-you-mean for mistyped commands and long options, and the pager of `gpuwatch help` on a
terminal (issue 27, item 4; src/cli/hints.c)."""
import subprocess

import pytest

from conftest import GW, SOURCE, gw_env, run_in_pty


def gw(*args):
    return subprocess.run([GW, *args], capture_output=True, text=True, timeout=30,
                          env=gw_env())


@pytest.mark.parametrize("args,line", [
    (["qurey"], "gpuwatch: unknown command 'qurey': did you mean query?"),
    (["reprot", "x"], "gpuwatch: unknown command 'reprot': did you mean report?"),
    (["rep"], "gpuwatch: unknown command 'rep': did you mean report?"),
    (["report", "--jsn", "-", "x"],
     "gpuwatch: report: unknown option '--jsn': did you mean --json?"),
    (["run", "--intervall", "1", "--", "true"],
     "gpuwatch: run: unknown option '--intervall': did you mean --interval?"),
    (["--intervall", "1"], "gpuwatch: unknown option '--intervall': did you mean --interval?"),
    (["report", "--fial-on=warning", "x"],
     "gpuwatch: report: unknown option '--fial-on': did you mean --fail-on?"),
    (["compare", "a", "b", "--hmtl", "x"],
     "gpuwatch: compare: unknown option '--hmtl': did you mean --html?"),
])
def test_did_you_mean(args, line):
    r = gw(*args)
    assert r.returncode == 2 and r.stderr == line + "\n", r.stderr


def test_no_hint_where_none_is_close_or_the_option_is_the_jobs():
    r = gw("frobnicate")
    assert r.returncode == 2 and "did you mean" not in r.stderr
    assert "run `gpuwatch --help` for the list" in r.stderr
    r = gw("report", "--zzzzzz", "x")
    assert r.returncode == 2 and r.stderr == \
        "gpuwatch: report: unknown option '--zzzzzz': see gpuwatch report --help\n"
    # the command's own options after its name are the command's: not checked
    r = gw("run", "--no-report", "-o", "/nonexistent/x/y", "--", "true", "--intervall")
    assert "did you mean" not in r.stderr
    # getopt_long takes an unambiguous prefix: no hint for it
    r = subprocess.run([GW, "report", "--jso", "-",
                        "examples/recordings/h200-causes/yolo_w1b64"],
                       capture_output=True, text=True, cwd=SOURCE, env=gw_env())
    assert r.returncode == 0 and r.stdout.startswith("{"), r.stderr


def test_help_goes_through_the_pager_on_a_terminal_only():
    env = gw_env(PAGER="sed s/^/paged:/")
    rc, out = run_in_pty([GW, "help", "run"], env)
    text = out.decode()
    assert rc == 0 and "paged:NAME\n" in text.replace("\r", ""), text[:300]
    assert all(l.startswith("paged:") for l in text.replace("\r", "").splitlines() if l)
    r = subprocess.run([GW, "help", "run"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "paged:" not in r.stdout
    assert "gpuwatch-run - run a command" in r.stdout
    # PAGER=cat (or empty): no pager
    rc, out = run_in_pty([GW, "help", "run"], gw_env(PAGER="cat"))
    assert rc == 0 and b"paged:" not in out and b"gpuwatch-run - run a command" in out
    # a pager that cannot be started: the text still comes
    rc, out = run_in_pty([GW, "help", "run"], gw_env(PAGER="/nonexistent/pager"))
    assert rc == 0 and b"gpuwatch-run - run a command" in out

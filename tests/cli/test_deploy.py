"""deploy/: the example Prometheus configuration and alert rules pass promtool (the rules' own
unit tests included), and the systemd unit passes systemd-analyze."""
import shutil
import subprocess

import pytest

from conftest import GW, SOURCE

DEPLOY = SOURCE / "deploy"


def promtool(*args):
    binary = shutil.which("promtool")
    assert binary, "promtool is missing: run scripts/deps.sh (Debian package prometheus)"
    return subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120)


def test_config_and_rules_are_valid():
    r = promtool("check", "config", DEPLOY / "prometheus" / "prometheus.yml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS: 11 rules found" in r.stdout


def test_alert_rules_unit_tests():
    r = promtool("test", "rules", DEPLOY / "prometheus" / "gpuwatch-rules.test.yml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS" in r.stdout


def test_systemd_unit(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed")
    unit = (DEPLOY / "systemd" / "gpuwatch.service").read_text()
    assert "DynamicUser=yes" in unit and "ExecStart=/usr/local/bin/gpuwatch serve" in unit
    # Loopback unless the administrator opens it (issue 12): the only ExecStart line that is not
    # a comment listens on 127.0.0.1.
    execs = [ln for ln in unit.splitlines() if ln.startswith("ExecStart=")]
    assert execs == ["ExecStart=/usr/local/bin/gpuwatch serve --listen 127.0.0.1:9400 "
                     "--interval 1"], execs
    local = tmp_path / "gpuwatch.service"
    local.write_text(unit.replace("/usr/local/bin/gpuwatch", GW))
    # --man=no: Documentation=man:gpuwatch-serve(1) is not installed here (test_package checks it)
    r = subprocess.run([analyze, "verify", "--man=no", str(local)], capture_output=True, text=True,
                       timeout=60)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr

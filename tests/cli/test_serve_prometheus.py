"""A real Prometheus (Debian's) scrapes two `gpuwatch serve` "nodes" on loopback, each playing its
own fake scenario, and evaluates deploy/prometheus/gpuwatch-rules.yml: the series arrive with the
right values and labels, and the overheating node fires the temperature alert."""
import json
import re
import shutil
import socket
import subprocess
import urllib.parse
import urllib.request

from conftest import SOURCE, poll
from serve_helpers import Server, const_h200

RULES = SOURCE / "deploy" / "prometheus" / "gpuwatch-rules.yml"


class Prometheus:
    def __init__(self, tmp_path, targets):
        binary = shutil.which("prometheus")
        assert binary, "prometheus is missing: run scripts/deps.sh (Debian package prometheus)"
        cfg = tmp_path / "prometheus.yml"
        cfg.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n  - {RULES}\n"
            "scrape_configs:\n  - job_name: gpuwatch\n    static_configs:\n"
            f"      - targets: {json.dumps(targets)}\n")
        self.log_path = tmp_path / "prometheus.log"
        self.log = open(self.log_path, "w")
        # port 0: Prometheus logs the address it really bound ("Listening on" address=...)
        self.proc = subprocess.Popen(
            [binary, f"--config.file={cfg}", f"--storage.tsdb.path={tmp_path / 'data'}",
             "--web.listen-address=127.0.0.1:0", "--log.level=info"],
            stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self.port = int(poll("Prometheus's listening address", self._bound, 60, self.logs))
            poll("Prometheus ready", self._ready, 60, self.logs, every=0.1)
        except BaseException:
            self.stop()
            raise

    def _bound(self):
        m = re.search(r'msg="Listening on" address=127\.0\.0\.1:(\d+)', self.logs())
        if m is None and self.proc.poll() is not None:
            raise AssertionError("prometheus exited:\n" + self.logs())
        return m and m[1]

    def _ready(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2):
                return True
        except OSError:
            return False

    def logs(self):
        return self.log_path.read_text()  # its own reading position: Prometheus writes at ours

    def api(self, path, **params):
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        assert body["status"] == "success", body
        return body["data"]

    def query(self, q):
        return [(s["metric"], float(s["value"][1])) for s in self.api("query", query=q)["result"]]

    def wait(self, what, fn, timeout=90):
        """Polls fn() until it returns something true; returns it."""
        return poll(what, fn, timeout, self.logs, every=0.25)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def test_prometheus_scrapes_two_nodes(scenario, tmp_path):
    # Node A: two cool GPUs, GPU 1 holding 94 % of its memory. Node B: one GPU at 90 C, which
    # reports XID 79 three seconds in.
    cool = scenario({"driver_version": "580.159.04",
                     "devices": [const_h200(0, temp=45), const_h200(1, temp=52, used_mib=135000)]},
                    "cool.json")
    hot_dev = const_h200(0, temp=90, uuid="GPU-0b0b0000-0000-0000-0000-000000000000",
                         events=[{"t": 3, "type": "xid", "data": 79}])
    hot = scenario({"driver_version": "580.159.04", "devices": [hot_dev]}, "hot.json")
    with Server(cool, ["-i", "0.5"]) as a, Server(hot, ["-i", "0.5"]) as b:
        prom = Prometheus(tmp_path, [a.addr, b.addr])
        try:
            check_series(prom, a.addr, b.addr, hot_dev)
            check_alerts(prom, a.addr, b.addr)
        finally:
            prom.stop()
        assert a.stop() == 0 and b.stop() == 0


def check_series(prom, a, b, hot_dev):
    up = prom.wait("both targets up", lambda: (r := prom.query('up{job="gpuwatch"}')) and
                   len(r) == 2 and all(v == 1 for _, v in r) and r)
    assert {m["instance"] for m, _ in up} == {a, b}
    temps = prom.wait("three GPU temperatures",
                      lambda: len(r := prom.query("DCGM_FI_DEV_GPU_TEMP")) == 3 and r)
    got = {(m["instance"], m["gpu"]): v for m, v in temps}
    assert got == {(a, "0"): 45, (a, "1"): 52, (b, "0"): 90}
    labels = next(m for m, _ in temps if m["instance"] == b)
    assert labels == {"__name__": "DCGM_FI_DEV_GPU_TEMP", "instance": b, "job": "gpuwatch",
                      "gpu": "0", "UUID": hot_dev["uuid"], "pci_bus_id": hot_dev["pci_bus_id"],
                      "device": "nvidia0", "modelName": "NVIDIA H200",
                      "Hostname": socket.gethostname(), "DCGM_FI_DRIVER_VERSION": "580.159.04"}
    used = {(m["instance"], m["gpu"]): v for m, v in prom.query("DCGM_FI_DEV_FB_USED")}
    assert used == {(a, "0"): 20480, (a, "1"): 135000, (b, "0"): 20480}
    sm = prom.wait("GPM ratios", lambda: len(r := prom.query("DCGM_FI_PROF_SM_ACTIVE")) == 3 and r)
    assert all(abs(v - 0.925) < 1e-9 for _, v in sm)
    # The energy counter keeps dcgm-exporter's name although Prometheus scraped OpenMetrics.
    energy = prom.query("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")
    assert len(energy) == 3 and all(v >= 0 for _, v in energy)
    lost = prom.query("gpuwatch_gpu_lost")
    assert sorted(v for _, v in lost) == [0, 0, 0]
    meta = prom.api("metadata", metric="gpuwatch_scrapes")
    assert meta["gpuwatch_scrapes"][0]["type"] == "counter", meta
    assert prom.query("gpuwatch_scrapes_total > 0")  # the counter's samples keep _total


def alerts(prom):
    return [(x["labels"]["alertname"], x["labels"].get("instance"), x["labels"].get("gpu"),
             x["state"]) for x in prom.api("alerts")["alerts"]]


def check_alerts(prom, a, b):
    firing = prom.wait("the temperature, memory and XID alerts",
                       lambda: ("GPUTemperatureHigh", b, "0", "firing") in (r := alerts(prom))
                       and ("GPUMemoryHigh", a, "1", "firing") in r
                       and ("GPUXidError", b, "0", "firing") in r and r)
    # The critical rule holds for 3 minutes first: pending, not firing.
    assert ("GPUTemperatureCritical", b, "0", "pending") in firing
    # Node A is cool; its memory is high (94 %) but below 98 %: no critical memory alert; no lost
    # GPU.
    assert not [x for x in firing if x[0].startswith("GPUTemperature") and x[1] == a]
    assert not [x for x in firing if x[0] in ("GPUMemoryCritical", "GPULost", "GpuwatchDown",
                                              "GpuwatchStale")]
    assert [x for x in firing if x[0] == "GPUXidError"] == [("GPUXidError", b, "0", "firing")]
    xid = {(m["instance"], m["gpu"]): v for m, v in prom.query("DCGM_FI_DEV_XID_ERRORS")}
    assert xid == {(b, "0"): 79}
    groups = prom.api("rules")["groups"]
    assert all(r["health"] == "ok" for g in groups for r in g["rules"]), groups

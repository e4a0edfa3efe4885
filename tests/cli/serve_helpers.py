"""Helpers for the `gpuwatch serve` tests: start a server on a free loopback port, talk HTTP to it
(with http.client and with raw sockets), and parse the Prometheus text it answers."""
import http.client
import json
import re
import signal
import socket
import subprocess
import threading
import time

from conftest import GW, gw_env

MIB = 1024 * 1024


def const_h200(index, temp=65, used_mib=20480, **over):
    """An H200 whose values never change (one timeline point), so scrapes give exact values."""
    dev = {
        "name": "NVIDIA H200",
        "uuid": f"GPU-5e7a0000-0000-0000-0000-{index:012x}",
        "pci_bus_id": f"00000000:{index + 6:02X}:00.0",
        "memory_total_mib": 143771, "power_limit_w": 700,
        "timeline": [{"t": 0, "util_gpu": 87, "util_mem": 35, "mem_used_mib": used_mib,
                      "temp_c": temp, "power_w": 512.5, "sm_clock_mhz": 1755,
                      "mem_clock_mhz": 2619, "clocks_event_reasons": 0, "pstate": 0,
                      "sm_active": 92.5, "sm_occupancy": 40, "tensor_active": 60,
                      "dram_active": 30}],
    }
    dev.update(over)
    return dev


class Server:
    """`gpuwatch serve --listen 127.0.0.1:0 ARGS` against a scenario; use as a context manager."""

    def __init__(self, scenario, args=(), env_extra=None, listen="127.0.0.1:0", wait=True):
        env = gw_env(scenario, **(env_extra or {}))
        self.proc = subprocess.Popen([GW, "serve", "--listen", listen] + [str(a) for a in args],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.lines = []
        self.addr = None
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if wait:
            try:
                self.wait_ready()
            except BaseException:
                self.__exit__(None, None, None)  # no `with` block runs when __init__ fails
                raise

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line)
            m = re.search(r"on http://([^/\s]+)/metrics", line)
            if m and not self.addr:
                self.addr = m.group(1)
                self._ready.set()
        self._ready.set()

    def wait_ready(self, timeout=30):
        self._ready.wait(timeout)
        assert self.addr, f"gpuwatch serve did not start: {''.join(self.lines)}"
        self.host, port = self.addr.rsplit(":", 1)
        self.port = int(port)

    def wait_sample(self, timeout=20):
        """Waits until the first sample is stored (/healthz answers 200): the server listens as
        soon as it starts, before its first tick has been read."""
        deadline = time.monotonic() + timeout
        while self.get("/healthz")[0] != 200:
            assert time.monotonic() < deadline, "no sample within the timeout"
            time.sleep(0.02)

    def stderr(self):
        return "".join(self.lines)

    def get(self, path="/metrics", headers=None, method="GET"):
        """One request on a fresh connection: (status, headers dict lower-cased, body str)."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            c.request(method, path, headers=headers or {})
            r = c.getresponse()
            body = r.read().decode()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, body
        finally:
            c.close()

    def metrics(self, accept=None):
        status, _, body = self.get("/metrics", {"Accept": accept} if accept else None)
        assert status == 200, body
        return body

    def wait_for(self, pred, timeout=20, what="a condition"):
        """Scrapes until pred(parsed metrics, text) is true; returns the last text."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.metrics()
            if pred(parse(text), text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; last scrape:\n{text}")
            time.sleep(0.05)

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        rc = self.proc.wait(timeout)
        self._reader.join(5)
        return rc

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def whole_response(data):
    """True when data holds a whole HTTP response whose end its headers say (Content-Length, or
    the last chunk); one without either ends only when the server closes."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    if re.search(rb"\r\ntransfer-encoding:[ \t]*chunked", head, re.I):
        return body.endswith(b"0\r\n\r\n")
    m = re.search(rb"\r\ncontent-length:[ \t]*(\d+)", head, re.I)
    return bool(m) and len(body) >= int(m.group(1))


def raw(host, port, data, timeout=10):
    """Sends raw bytes and reads until a whole response is in, the server closes, or timeout:
    returns the bytes read. (A keep-alive connection stays open after its answer: reading until
    the close waited out the timeout on every such request.)"""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while not whole_response(out):
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def status_of(response):
    """The status code of a raw HTTP response (bytes), or None when there is none."""
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", response)
    return int(m.group(1)) if m else None


_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse(text):
    """Parses exposition text into {name: [(labels dict, value float), ...]} (samples only)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        assert m, f"unparsable line: {line!r}"
        labels = {}
        if m.group(2):
            pos = 0
            for lm in _LABEL.finditer(m.group(2)):
                assert lm.start() == pos, f"bad labels in {line!r}"
                pos = lm.end()
                labels[lm.group(1)] = json.loads('"' + lm.group(2) + '"')
            assert pos == len(m.group(2)), f"bad labels in {line!r}"
        out.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return out


def value(parsed, name, **labels):
    """The value of the one series of name whose labels include `labels` (None when absent)."""
    hits = [v for lab, v in parsed.get(name, [])
            if all(lab.get(k) == str(x) for k, x in labels.items())]
    assert len(hits) <= 1, f"{name}{labels} matches {len(hits)} series"
    return hits[0] if hits else None

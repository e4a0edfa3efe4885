"""`gpuwatch serve` as an HTTP server: malformed and oversized requests, methods, many concurrent
connections, the connection bound, slow clients, and `promtool check metrics` on its output."""
import http.client
import os
import re
import shutil
import socket
import subprocess
import threading
import time

from serve_helpers import Server, const_h200, parse, raw, status_of, value


def serve(scenario, *args):
    path = scenario({"devices": [const_h200(0), const_h200(1)]})
    srv = Server(path, ["-i", "0.2"] + list(args))
    try:
        srv.wait_sample()  # the tests read GPU series from the first scrape on
    except BaseException:
        srv.__exit__(None, None, None)
        raise
    return srv


def test_malformed_requests(scenario):
    cases = [
        (b"GARBAGE\r\n\r\n", None),  # not a request line: libmicrohttpd just closes
        (b"GET /\r\n\r\n", 400),  # HTTP/0.9
        (b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        (b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
        (b"GET /metrics HTTP/1.1\r\n\r\n", 400),  # HTTP/1.1 without Host
        (b"GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400),
        (b"GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 405),
        (b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        (b"PUT /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405),
        (b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        (b"GET /metrics/ HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        (b"GET /metrics HTTP/1.0\r\n\r\n", 200),  # HTTP/1.0 needs no Host
    ]
    with serve(scenario) as srv:
        for req, want in cases:
            resp = raw(srv.host, srv.port, req)
            assert status_of(resp) == want, (req, resp[:200])
            if want == 405:
                assert b"\r\nAllow: GET, HEAD\r\n" in resp
        # The server still answers normally afterwards.
        assert "DCGM_FI_DEV_GPU_TEMP" in srv.metrics()


def test_oversized_request(scenario):
    with serve(scenario) as srv:
        big = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n"
        resp = raw(srv.host, srv.port, big)
        assert status_of(resp) in (413, 431), resp[:200]
        long_uri = b"GET /" + b"m" * 65536 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        resp = raw(srv.host, srv.port, long_uri)
        assert status_of(resp) in (413, 414, 431), resp[:200]
        assert srv.get("/healthz")[0] == 200


def test_head(scenario):
    with serve(scenario) as srv:
        status, headers, body = srv.get("/metrics", method="HEAD")
        assert status == 200 and body == ""
        assert headers["content-type"].startswith("text/plain; version=0.0.4")
        assert int(headers["content-length"]) > 1000


def test_many_concurrent_connections(scenario):
    """32 clients at once, 25 keep-alive requests each: every answer complete and correct."""
    results, errors = [], []

    def client(srv):
        try:
            c = http.client.HTTPConnection(srv.host, srv.port, timeout=30)
            for i in range(25):
                c.request("GET", "/metrics" if i % 5 else "/healthz")
                r = c.getresponse()
                body = r.read().decode()
                results.append((r.status, "/metrics" if i % 5 else "/healthz", body))
            c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    with serve(scenario) as srv:
        before = value(parse(srv.wait_for(lambda p, t: "DCGM_FI_DEV_GPU_TEMP" in p)),
                       "gpuwatch_scrapes_total")
        threads = [threading.Thread(target=client, args=(srv,)) for _ in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        assert len(results) == 32 * 25
        for status, path, body in results:
            assert status == 200
            if path == "/metrics":
                p = parse(body)
                assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=1) == 65
        n = value(parse(srv.metrics()), "gpuwatch_scrapes_total")
        assert n == before + 32 * 20 + 1


def test_connection_bound(scenario):
    """With --max-connections 4 and four idle connections open (from four addresses), a fifth is
    served at once: the connection idle longest is closed to make room, the other three stay."""
    with serve(scenario, "--max-connections", "4") as srv:
        held = [socket.create_connection((srv.host, srv.port),
                                         source_address=(f"127.0.0.{3 + i}", 0)) for i in range(4)]
        for s in held:
            s.settimeout(20)
        fifth = socket.create_connection((srv.host, srv.port), timeout=20,
                                         source_address=("127.0.0.7", 0))
        try:
            fifth.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
            resp = b""
            while chunk := fifth.recv(65536):
                resp += chunk
            assert status_of(resp) == 200, resp
            assert held[0].recv(1) == b""  # the oldest, closed by the server
            for s in held[1:]:  # the others are still served
                s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
                assert status_of(s.recv(65536)) == 200
        finally:
            fifth.close()
            for s in held:
                s.close()


def test_slow_client_times_out(scenario):
    """A client that sends half a request and stalls: others are served meanwhile, and the
    server drops it after --client-timeout."""
    with serve(scenario, "--client-timeout", "1") as srv:
        slow = socket.create_connection((srv.host, srv.port), timeout=30)
        try:
            slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # no blank line: incomplete
            for _ in range(5):
                assert "DCGM_FI_DEV_GPU_TEMP" in srv.metrics()
            start = time.monotonic()
            data = slow.recv(65536)  # the server closes it: recv returns b'' (or 408 first)
            if data:
                assert status_of(data) == 408, data[:200]
                assert slow.recv(65536) == b""
            assert time.monotonic() - start < 25
        finally:
            slow.close()
        # An idle keep-alive connection is dropped the same way.
        c = http.client.HTTPConnection(srv.host, srv.port, timeout=30)
        c.request("GET", "/healthz")
        c.getresponse().read()
        c.sock.settimeout(25)
        assert c.sock.recv(1) == b""
        c.close()


def test_slow_reader_does_not_block_others(scenario):
    """A client that asks for many scrapes and never reads them does not stop other clients."""
    with serve(scenario) as srv:
        greedy = socket.create_connection((srv.host, srv.port))
        greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            greedy.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 200)
            for _ in range(10):
                assert srv.get("/healthz")[0] == 200
        finally:
            greedy.close()


def promtool():
    path = shutil.which("promtool")
    assert path, "promtool is missing: run scripts/deps.sh (Debian package prometheus)"
    return path


def test_promtool_check_metrics(scenario):
    dev = const_h200(0, processes=[{"pid": os.getpid(), "used_mib": 1000}])
    with Server(scenario({"devices": [dev]}), ["-i", "0.2", "--per-process", "--cmdline"]) as srv:
        text = srv.wait_for(lambda p, t: "DCGM_FI_PROF_SM_ACTIVE" in p and
                            "gpuwatch_process_memory_used_bytes" in p)
    r = subprocess.run([promtool(), "check", "metrics"], input=text, capture_output=True,
                       text=True)
    # Parsing succeeds (exit 1 would mean an error); the only lint findings are the two that
    # dcgm-exporter's fixed names carry: the camelCase label modelName (on every family with a
    # GPU's labels, ours included, so that they join), and its energy counter without _total.
    # Dashboards depend on both, so they stay.
    assert r.returncode in (0, 3), r.stdout + r.stderr
    findings = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    with_gpu_labels = {name for name, series in parse(text).items()
                       if all("modelName" in lab for lab, _ in series)}
    assert "gpuwatch_process_memory_used_bytes" in with_gpu_labels
    for line in findings:
        m = re.match(r"^(\w+) label names should be written in 'snake_case' not 'camelCase'$",
                     line)
        assert (m and m.group(1) in with_gpu_labels) or line == (
            'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter metrics should have "_total" suffix'), line
    # Without the GPU label set (the families that do not carry it), the output is clean.
    own, keep = [], False
    for line in text.splitlines():
        if line.startswith("# HELP "):
            keep = line.split()[2] not in with_gpu_labels
        if keep:
            own.append(line)
    assert any(line.startswith("gpuwatch_scrapes_total ") for line in own)
    r = subprocess.run([promtool(), "check", "metrics"], input="\n".join(own) + "\n",
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")

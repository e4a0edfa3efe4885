"""gpuwatch report --fleet (docs/report.md, "Fleet"): GPU-hours by user and by job split into idle
holding memory, underfilled, starved, saturated and other, most wasted first; from per-job
summary.json files (synthetic ones here, with the numbers worked out by hand) and from a small fake
Prometheus HTTP API answering the PromQL the command sends; bad sources exit with a one-line
error."""
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import unicodedata
import urllib.parse

import pytest

from conftest import BUILD, poll
from serve_helpers import Server, const_h200

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")


def gpu(index, seconds, sm=None, in_job=True, source="n1"):
    g = {"index": index, "source": source, "uuid": f"GPU-{source}-{index}",
         "duration_s": seconds, "in_job": in_job, "stats": {}}
    if sm is not None:
        g["stats"]["gpm.sm_active [%]"] = {"mean": sm, "p50": sm}
    return g


def verdict(vid, index, seconds, source="n1", **evidence):
    return {"id": vid, "gpu": index, "source": source, "severity": "warning",
            "duration_s": seconds, "evidence": evidence}


def summary(job_id, user, gpus, verdicts):
    s = {"schema_version": 1, "gpus": gpus, "verdicts": verdicts, "phases": []}
    s["job"] = None if job_id is None else {"scheduler": "slurm", "job_id": job_id, "user": user,
                                            "rank": None, "world_size": None, "node": "n1"}
    return s


@pytest.fixture
def jobs_dir(tmp_path):
    d = tmp_path / "jobs"
    d.mkdir()
    docs = {
        # alice: one GPU for an hour, underfilled for 3000 s
        "1.json": summary("1", "alice", [gpu(0, 3600, sm=15)],
                          [verdict("underfilled_kernels", 0, 3000)]),
        # alice: GPU 0 saturated 1700 of 1800 s; GPU 1 was recorded but is not the job's
        "2.json": summary("2", "alice", [gpu(0, 1800, sm=85), gpu(1, 1800, sm=0, in_job=False)],
                          [verdict("gpu_saturated", 0, 1700),
                           verdict("idle_holding_memory", 1, 1800, idle_s=1800)]),
        # bob: two hours, idle holding memory for 5400 s (the verdict's span is wider), starved
        # for 1000 s
        "3.json": summary("3", "bob", [gpu(0, 7200)],
                          [verdict("idle_holding_memory", 0, 7000, idle_s=5400),
                           verdict("gpu_starved", 0, 1000), verdict("memory_leak", 0, 7200)]),
        # no job block (an older summary): the file name is the job id, the user unknown
        "777.json": summary(None, None, [gpu(0, 3600, sm=90)], [verdict("gpu_saturated", 0, 3600)]),
    }
    for name, doc in docs.items():
        (d / name).write_text(json.dumps(doc))
    (d / "notes.json").write_text('{"hello": 1}')
    (d / "README").write_text("not json")
    return d


def fleet(*args, rc=0, cwd=None):
    p = subprocess.run([BIN, "report", "--fleet", *map(str, args)], capture_output=True,
                       text=True, env=ENV, cwd=cwd)
    assert p.returncode == rc, f"rc {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def close(a, b):
    return abs(a - b) < 1e-4


def test_fleet_ranks_users_and_jobs_by_wasted_gpu_hours(jobs_dir):
    s = json.loads(fleet(jobs_dir, "--json", "-").stdout)
    assert s["kind"] == "fleet" and s["sources"] == 4 and s["files_skipped"] == 1
    assert [u["user"] for u in s["users"]] == ["bob", "alice", "unknown"]
    bob, alice, unknown = s["users"]
    assert close(bob["hours"]["idle_holding_memory"], 1.5)
    assert close(bob["hours"]["starved"], 1000 / 3600)
    assert close(bob["hours"]["other"], 800 / 3600)
    assert close(bob["wasted_hours"], 1.5 + 1000 / 3600) and close(bob["gpu_hours"], 2.0)
    assert close(alice["hours"]["underfilled"], 3000 / 3600)
    assert close(alice["hours"]["saturated"], 1700 / 3600)
    assert close(alice["gpu_hours"], 1.5) and alice["jobs"] == 2 and alice["gpus"] == 2
    # SM activity weighted by GPU-hours: (1 h x 15 + 0.5 h x 85) / 1.5 h
    assert abs(alice["sm_active_pct"] - (15 + 0.5 * 85) / 1.5) < 1e-3
    assert bob["sm_active_pct"] is None
    assert close(unknown["hours"]["saturated"], 1.0) and unknown["wasted_hours"] == 0
    assert [j["job_id"] for j in s["jobs"]] == ["3", "1", "777", "2"]
    assert s["jobs"][2]["user"] is None
    assert close(s["totals"]["gpu_hours"], 4.5) and s["totals"]["gpus"] == 4
    for row in s["users"] + s["jobs"]:
        assert close(sum(row["hours"].values()), row["gpu_hours"])


def test_fleet_text_fits_80_columns_and_says_what_it_skipped(jobs_dir):
    out = fleet(jobs_dir).stdout
    lines = out.splitlines()
    assert lines[0] == "Fleet: 4 jobs of 3 users, 4.50 GPU-hours (from 4 sources)"
    assert "Skipped 1 file that is no summary.json" in out and "notes.json" in out
    assert max(len(l) for l in lines) <= 80
    users = lines[lines.index(next(l for l in lines if l.startswith("By user"))) + 2:][:3]
    assert [u.split()[0] for u in users] == ["bob", "alice", "unknown"]
    assert users[0].split()[1:7] == ["2.00", "1.50", "0.00", "0.28", "0.00", "0.22"]
    assert users[1].endswith("38 %")
    assert "... and" not in out
    assert "... and 2 more" in fleet(jobs_dir, "--top", "2").stdout


def test_one_summary_file_and_a_job_report_of_ranks(tmp_path, jobs_dir):
    s = json.loads(fleet(jobs_dir / "3.json", "--json", "-").stdout)
    assert [j["job_id"] for j in s["jobs"]] == ["3"]
    report = {"kind": "jobs", "jobs": [{"job_id": "9", "members": [
        {"job": {"job_id": "9", "user": "dora"}, "summary": summary(
            "9", "dora", [gpu(0, 360, sm=50)], [verdict("gpu_saturated", 0, 360)])},
        {"job": {"job_id": "9", "user": "dora"}, "summary": summary(
            "9", "dora", [gpu(0, 360, sm=50, source="n2")],
            [verdict("gpu_starved", 0, 360, source="n2")])},
        # rank 2 on n1 shared rank 0's GPU: counted once, as the job report's totals do
        {"job": {"job_id": "9", "user": "dora"}, "summary": summary(
            "9", "dora", [gpu(0, 360, sm=50)], [verdict("gpu_saturated", 0, 360)])}]}]}
    (tmp_path / "job9.json").write_text(json.dumps(report))
    s = json.loads(fleet(tmp_path / "job9.json", "--json", "-").stdout)
    assert [(j["job_id"], j["user"], j["gpus"]) for j in s["jobs"]] == [("9", "dora", 2)]
    assert close(s["jobs"][0]["hours"]["starved"], 0.1)
    assert close(s["jobs"][0]["hours"]["saturated"], 0.1)


def test_bad_sources(tmp_path, jobs_dir):
    p = fleet(tmp_path / "nope", rc=1)
    assert "does not exist" in p.stderr and "Prometheus URL" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    p = fleet(jobs_dir / "notes.json", rc=1)
    assert "is no summary.json" in p.stderr
    p = fleet("ftp://example.org", rc=2)
    assert "no Prometheus URL" in p.stderr
    assert "needs a source" in fleet(rc=2).stderr
    assert "--window" in fleet(jobs_dir, "--window", "soon", rc=2).stderr
    assert "--step is longer" in fleet("http://x", "--window", "1m", "--step", "1h", rc=2).stderr
    assert "--html does not go with --fleet" in fleet(jobs_dir, "--html", "x", rc=2).stderr
    assert "unknown option '--bogus'" in fleet(jobs_dir, "--bogus", rc=2).stderr


class FakePrometheus(http.server.BaseHTTPRequestHandler):
    """Answers /api/v1/query like Prometheus 2.x, from the PromQL it is sent."""
    queries = []
    fail = False
    hostile = False  # answers that a broken or partial server gives
    percent = False  # SM activity as a percent (a recording rule's), not DCGM's ratio
    huge = 0  # bytes of padding in every answer

    def log_message(self, *args):
        pass

    def answer(self, q):
        def vec(label, values):
            return [{"metric": {label: k, "instance": "n1:9400"}, "value": [1796007900.0, str(v)]}
                    for k, v in values.items()]
        if "gpuwatch_job_info" in q:
            # serve --hpc-job-mapping-dir's labels (tests/cli/test_serve_jobmap.py asks a real one)
            return [{"metric": {"hpc_job": "11", "user": "alice"}, "value": [0, "1"]}]
        if FakePrometheus.hostile:
            # job 11 as usual; 13 a negative count; 14 only in the class queries (a partial
            # answer: no GPU time to add it to); 15 a number where the API has a string
            extra = {"13": -120} if q.startswith("sum") else {}
            if "FB_USED" in q or "SM_ACTIVE" in q:
                extra["14"] = 30
            return (self.normal(q) + vec("hpc_job", extra)
                    + [{"metric": {"hpc_job": "15"}, "value": [0, 7]}])
        return self.normal(q)

    def normal(self, q):
        def vec(label, values):
            return [{"metric": {label: k, "instance": "n1:9400"}, "value": [1796007900.0, str(v)]}
                    for k, v in values.items()]
        if "avg_over_time" in q:
            return vec("hpc_job", {"11": 100 if FakePrometheus.percent else 0.3, "12": 0.05})
        if q.startswith("count by"):
            return vec("hpc_job", {"11": 2, "12": 1})
        if "FB_USED" in q:
            return vec("hpc_job", {"12": 30})
        if "SM_ACTIVE" in q and "< 0.25" in q:
            return vec("hpc_job", {"11": 60})
        if "SM_ACTIVE" in q and ">= 0.25" in q:
            return vec("hpc_job", {"11": 40})
        if ">= 10 < 80" in q:
            return vec("hpc_job", {"12": 10})
        return vec("hpc_job", {"11": 120, "12": 60})

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query).get("query", [""])[0]
        FakePrometheus.queries.append((url.path, q))
        if FakePrometheus.fail == 401:  # behind a proxy that wants a password
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if FakePrometheus.fail:
            code, body = 400, {"status": "error", "errorType": "bad_data",
                               "error": "1:5: parse error: unexpected <by>"}
        else:
            code, body = 200, {"status": "success",
                               "data": {"resultType": "vector", "result": self.answer(q)}}
            if FakePrometheus.huge:
                body["padding"] = "x" * FakePrometheus.huge
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def prom():
    FakePrometheus.queries = []
    FakePrometheus.fail = False
    FakePrometheus.hostile = False
    FakePrometheus.percent = False
    FakePrometheus.huge = 0
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakePrometheus)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_prometheus_source(prom):
    s = json.loads(fleet(prom, "--window", "2h", "--step", "60s", "--json", "-").stdout)
    paths = {p for p, _ in FakePrometheus.queries}
    assert paths == {"/api/v1/query"}
    qs = [q for _, q in FakePrometheus.queries]
    assert all("[7200s" in q for q in qs)
    assert any('DCGM_FI_PROF_SM_ACTIVE{hpc_job!=""} < 0.25' in q for q in qs)
    assert [(j["job_id"], j["user"]) for j in s["jobs"]] == [("11", "alice"), ("12", None)]
    a, b = s["jobs"]
    # 120 one-minute samples = 2 GPU-hours; 60 underfilled, 40 saturated, the rest other
    assert close(a["gpu_hours"], 2.0) and a["gpus"] == 2
    assert close(a["hours"]["underfilled"], 1.0) and close(a["hours"]["saturated"], 40 / 60)
    assert close(a["hours"]["other"], 20 / 60) and close(a["sm_active_pct"], 30.0)
    assert close(b["hours"]["idle_holding_memory"], 0.5) and close(b["hours"]["starved"], 10 / 60)
    assert close(b["wasted_hours"], 40 / 60) and close(b["sm_active_pct"], 5.0)
    out = fleet(prom + "/", "--window", "2h").stdout
    assert "Fleet: 2 jobs of 2 users, 3.00 GPU-hours (from 1 source)" in out
    # the same server twice (with and without the slash) is asked once, counted once
    FakePrometheus.queries = []
    p = fleet(prom, prom + "/", "--window", "2h")
    assert "Fleet: 2 jobs of 2 users, 3.00 GPU-hours (from 1 source)" in p.stdout
    assert p.stderr == f"gpuwatch: report: {prom}/ is given twice: read once\n"
    assert len(FakePrometheus.queries) == 8


def test_prometheus_negative_and_partial_answers_add_nothing(prom):
    FakePrometheus.hostile = True
    s = json.loads(fleet(prom, "--window", "2h", "--json", "-").stdout)
    # only 11 and 12 as in test_prometheus_source: no negative GPU-hours, no job without them
    assert [(j["job_id"], j["gpus"]) for j in s["jobs"]] == [("11", 2), ("12", 1)]
    assert close(s["totals"]["gpu_hours"], 3.0) and s["totals"]["gpus"] == 3
    for row in [s["totals"]] + s["users"] + s["jobs"]:
        assert min(row["hours"].values()) >= 0, row
        assert close(sum(row["hours"].values()), row["gpu_hours"])


def test_prometheus_sm_ratio_out_of_range_is_absent_and_answers_are_bounded(prom):
    """SM activity of 100 (a percent where DCGM gives a ratio) was printed "SM act 10000 %"; a
    60 MiB answer took 897 MB (issue 26 item 8). A ratio out of 0..1 is absent, and an answer
    over 16 MiB is one line naming the limit and the fix."""
    FakePrometheus.percent = True
    s = json.loads(fleet(prom, "--window", "2h", "--json", "-").stdout)
    a, b = s["jobs"]
    assert a["job_id"] == "11" and a["sm_active_pct"] is None, a
    assert close(b["sm_active_pct"], 5.0)
    out = fleet(prom, "--window", "2h").stdout
    assert "10000" not in out
    FakePrometheus.percent = False
    FakePrometheus.huge = 17 << 20
    p = fleet(prom, "--window", "2h", rc=1)
    assert p.stderr.strip().splitlines() == [
        f"gpuwatch: report: Prometheus at {prom} answered more than 16 MiB: shorten --window, "
        "or ask a Prometheus that keeps fewer jobs"], p.stderr
    FakePrometheus.huge = 15 << 20  # under the limit: read
    s = json.loads(fleet(prom, "--window", "2h", "--json", "-").stdout)
    assert [j["job_id"] for j in s["jobs"]] == ["11", "12"]


def test_many_jobs_same_file_twice_and_wide_names(tmp_path):
    d = tmp_path / "jobs"
    d.mkdir()
    # 700 jobs of 7 users: user k has the jobs i with i % 7 == k, each GPU 0 for 36 000 s with
    # 3600 s starved: 10 GPU-hours a job, 1000 a user, 7000 in all (wider than "9999.99")
    for i in range(700):
        (d / f"{i}.json").write_text(json.dumps(summary(
            str(i), f"user{i % 7}", [gpu(0, 36000, sm=i % 7 * 10)],
            [verdict("gpu_starved", 0, 3600)])))
    # a job id and a user that are not UTF-8, in two files (two nodes of the job): one job
    for n in (1, 2):
        (d / f"x{n}.json").write_bytes(
            b'{"gpus": [{"index": 0, "source": "n%d", "duration_s": 3600}], "verdicts": [],'
            b' "job": {"job_id": "9\xff", "user": "b\xe9b"}}' % n)
    # names wider than their columns: cut between characters (a CJK one is 2 columns)
    (d / "wide.json").write_text(json.dumps(summary(
        "\u4f5c\u696d" * 10, "\u00e9" * 30, [gpu(0, 3600 * 20000)], [])))
    s = json.loads(fleet(d, d / "5.json", "--json", "-").stdout)
    assert s["files_repeated"] == 1 and s["sources"] == 703
    users = {u["user"]: u for u in s["users"]}
    for k in range(7):
        u = users[f"user{k}"]
        assert u["jobs"] == 100 and close(u["gpu_hours"], 1000.0)
        assert close(u["hours"]["starved"], 100.0) and close(u["sm_active_pct"], k * 10)
    odd = [j for j in s["jobs"] if "\ufffd" in j["job_id"]]
    assert [(j["job_id"], j["user"], j["gpus"]) for j in odd] == [("9\ufffd", "b\ufffdb", 2)]
    assert close(s["totals"]["gpu_hours"], 7000 + 2 + 20000)
    out = fleet(d, d / "5.json", "--top", "0").stdout
    assert "Read once: 1 file given again (the same file or its directory twice)" in out
    lines = out.splitlines()
    wide = [l for l in lines if "\u00e9" in l or "\ufffd" in l or l.startswith("all jobs")]
    assert wide == [
        "all jobs                27002.0   0.00   0.00 700.00   0.00  26302   30 %",
        "\u00e9" * 20 + "... 20000.0   0.00   0.00   0.00   0.00  20000      -",
        "b\ufffdb                        2.00   0.00   0.00   0.00   0.00   2.00      -",
        "\u4f5c\u696d\u4f5c\u696d...  " + "\u00e9" * 7 + "... 20000.0   0.00   0.00   0.00   0.00"
        "  20000      -",
        "9\ufffd           b\ufffdb           2.00   0.00   0.00   0.00   0.00   2.00      -"]
    # every row ends at the same column (CJK characters are 2): no name or number pushed its
    # neighbours out
    rows = [l for l in lines if l.endswith(" %") or l.endswith("-")]
    width = {sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l) for l in rows}
    assert len(rows) > 700 and width == {73}


def test_a_pipe_is_refused_with_what_to_give(tmp_path):
    os.mkfifo(tmp_path / "s.json")  # never opened for writing: reading it would block forever
    p = fleet(tmp_path / "s.json", rc=1)
    assert p.stderr == (f"gpuwatch: report: cannot read {tmp_path}/s.json: not a regular file: "
                        "save the summary.json to a file and give its path\n")


def test_a_directory_of_run_directories_says_how_to_read_them(tmp_path):
    # gpuwatch run writes runs/<run>/summary.json: --fleet runs/ reads only runs/*.json
    for n in ("a", "b"):
        (tmp_path / "runs" / n).mkdir(parents=True)
        (tmp_path / "runs" / n / "summary.json").write_text(json.dumps(summary(
            n, "eve", [gpu(0, 3600)], [])))
    (tmp_path / "runs" / "c").mkdir()  # no summary: not counted
    out = fleet(f"{tmp_path}/runs/").stdout.splitlines()
    assert out[1] == f"Not read: 2 run directories with a summary.json: give {tmp_path}/runs/*/summary.json"
    assert out[2] == "No job's GPU time found."
    assert json.loads(fleet(tmp_path / "runs", "--json", "-").stdout)["run_directories_not_read"] == 2
    s = json.loads(fleet(*sorted((tmp_path / "runs").glob("*/summary.json")), "--json", "-").stdout)
    assert [j["job_id"] for j in s["jobs"]] == ["a", "b"] and close(s["totals"]["gpu_hours"], 2.0)


def test_runs_without_a_job_id_are_one_job_each_named_after_their_directory(tmp_path):
    # gpuwatch run outside a scheduler: "job" without a job id; every run's file is summary.json,
    # so the run directory names the job (not "summary", which made all runs one job)
    for n, h in (("20261201-a", 3600), ("20261201-b.1", 1800)):
        (tmp_path / "runs" / n).mkdir(parents=True)
        doc = summary(None, None, [gpu(0, h)], [])
        doc["job"] = {"scheduler": "none", "job_id": None, "user": "eve", "node": "n1"}
        (tmp_path / "runs" / n / "summary.json").write_text(json.dumps(doc))
    (tmp_path / "summary.json").write_text(json.dumps(summary(None, None, [gpu(0, 360)], [])))
    s = json.loads(fleet(tmp_path / "runs" / "20261201-a" / "summary.json",
                         f"{tmp_path}/runs//20261201-b.1//summary.json", "summary.json",
                         "--json", "-", cwd=tmp_path).stdout)
    got = sorted(((j["job_id"], j["user"], round(j["gpu_hours"], 3)) for j in s["jobs"]),
                 key=lambda t: t[0])
    assert got == [("20261201-a", "eve", 1.0), ("20261201-b.1", "eve", 0.5),
                   ("summary", None, 0.1)], got


def test_prometheus_errors_are_one_line(prom):
    FakePrometheus.fail = True
    p = fleet(prom, rc=1)
    assert "refused the query (HTTP 400): 1:5: parse error" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    FakePrometheus.fail = False
    port = prom.rsplit(":", 1)[1]
    with socket.socket() as s:  # bound, never listening, held: a refused connection, no race
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
        p = fleet(f"http://127.0.0.1:{closed}", rc=1)
    assert "cannot query Prometheus" in p.stderr and "check the URL" in p.stderr
    assert port  # the live one was not asked


def test_prometheus_passwords_are_not_shown_and_401_says_what_to_give(prom):
    FakePrometheus.fail = 401
    host = prom.split("://", 1)[1]
    p = fleet(f"HTTP://alice:s3cr%40t@{host}/prom", rc=1)  # the scheme in any case
    assert p.stderr == (f"gpuwatch: report: HTTP://alice:***@{host}/prom refused access (HTTP 401): "
                        "give a user and password in the URL (https://user:password@host/)\n")
    assert FakePrometheus.queries[0][0] == "/prom/api/v1/query"  # under the path prefix
    p = fleet("ftp://bob:pw@host/", rc=2)
    assert "'ftp://bob:***@host/' is no Prometheus URL" in p.stderr and "pw" not in p.stderr


def test_libcurl_is_loaded_only_for_a_url(jobs_dir):
    # not linked: no other command pays for libcurl and its TLS libraries (src/fleet/curl_dl.c)
    needed = subprocess.run(["readelf", "-d", BIN], capture_output=True, text=True).stdout
    assert "libcjson" in needed and "libcurl" not in needed
    # and summaries alone never load it (LD_DEBUG lists every library the loader opens)
    p = subprocess.run([BIN, "report", "--fleet", str(jobs_dir)], capture_output=True, text=True,
                       env=dict(ENV, LD_DEBUG="files"))
    assert p.returncode == 0 and "libcjson" in p.stderr and "libcurl" not in p.stderr


def sanitizer_build():
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and "GPUWATCH_SANITIZE:BOOL=ON" in cache.read_text()


@pytest.mark.skipif(sanitizer_build(), reason="a real Prometheus daemon: runs once, in build/ "
                    "(the fake Prometheus tests above run in both builds)")
def test_real_prometheus_scraping_two_serves(scenario, tmp_path):
    # Job 700's GPU is busy with tiny kernels (GPU-Util 100 %, SM active 10 %): underfilled.
    # Job 701's GPU holds 20 GiB and does nothing: idle holding memory. Prometheus adds each
    # job's hpc_job label to its target, as a site's relabelling (or --hpc-job-mapping-dir) would.
    busy = const_h200(0, used_mib=30000)
    busy["timeline"][0].update(util_gpu=100, sm_active=10)
    idle = const_h200(0, used_mib=20480)
    idle["timeline"][0].update(util_gpu=0, sm_active=0, sm_occupancy=0, tensor_active=0,
                               dram_active=0)
    a_sc = scenario({"driver_version": "580.159.04", "devices": [busy]}, "a.json")
    b_sc = scenario({"driver_version": "580.159.04", "devices": [idle]}, "b.json")
    binary = shutil.which("prometheus")
    assert binary, "prometheus is missing: run scripts/deps.sh (Debian package prometheus)"
    with Server(a_sc, ["-i", "0.5"]) as a, Server(b_sc, ["-i", "0.5"]) as b:
        cfg = tmp_path / "prometheus.yml"
        cfg.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: gpuwatch\n    static_configs:\n"
            f"      - targets: [{json.dumps(a.addr)}]\n        labels: {{hpc_job: \"700\"}}\n"
            f"      - targets: [{json.dumps(b.addr)}]\n        labels: {{hpc_job: \"701\"}}\n")
        log = open(tmp_path / "prometheus.log", "w+")
        # port 0: Prometheus logs the address it really bound ("Listening on" address=...)
        prom = subprocess.Popen([binary, f"--config.file={cfg}",
                                 f"--storage.tsdb.path={tmp_path / 'data'}",
                                 "--web.listen-address=127.0.0.1:0", "--log.level=info"],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            def bound():
                m = re.search(r'msg="Listening on" address=(127\.0\.0\.1:\d+)',
                              (tmp_path / "prometheus.log").read_text())
                return m and m[1]
            url = "http://" + poll("Prometheus's listening address", bound, timeout=60,
                                   logs=lambda: (tmp_path / "prometheus.log").read_text())
            deadline = time.monotonic() + 90
            while True:  # until both jobs have 4 samples of SM activity and GPU-Util
                p = subprocess.run([BIN, "report", "--fleet", url, "--window", "60s", "--step",
                                    "1s", "--json", "-"], capture_output=True, text=True, env=ENV)
                s = json.loads(p.stdout) if p.returncode == 0 else {"jobs": []}
                jobs = {j["job_id"]: j for j in s["jobs"]}
                if len(jobs) == 2 and all(j["gpu_hours"] >= 4 / 3600 for j in jobs.values()) \
                        and jobs["700"]["sm_active_pct"] is not None:
                    break
                assert time.monotonic() < deadline, p.stderr + log.read()
                time.sleep(0.5)
        finally:
            prom.terminate()
            prom.wait(30)
            log.close()
    j700, j701 = jobs["700"], jobs["701"]
    assert j700["user"] is None and j700["gpus"] == 1
    assert close(j700["hours"]["underfilled"], j700["gpu_hours"])
    assert close(j700["wasted_hours"], j700["gpu_hours"])
    assert abs(j700["sm_active_pct"] - 10.0) < 1e-6
    assert close(j701["hours"]["idle_holding_memory"], j701["gpu_hours"])
    assert j701["hours"]["saturated"] == 0 and j701["sm_active_pct"] == 0

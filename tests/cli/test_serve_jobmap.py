"""`gpuwatch serve --hpc-job-mapping-dir DIR` (and DCGM_HPC_JOB_MAPPING_DIR): dcgm-exporter's
file-per-GPU job mapping becomes the hpc_job label, and gpuwatch_job_info joins jobs to users.
Semantics follow dcgm-exporter's hpc mapper: one series per distinct job id of a GPU's file,
no label for a GPU without a file or with an empty one."""
import json
import shutil
import subprocess

import test_serve_prometheus as tsp
from conftest import SOURCE, gw
from serve_helpers import Server, const_h200, parse, value


def two_gpus(scenario):
    return scenario({"devices": [const_h200(0), const_h200(1, temp=71)]})


def series(parsed, name, gpu):
    return [lab for lab, _ in parsed.get(name, []) if lab.get("gpu") == str(gpu)]


def test_labels_follow_the_files(scenario, tmp_path):
    jobs = tmp_path / "map"
    jobs.mkdir()
    (jobs / "1").write_text("4242\n")
    (jobs / ".jobs").mkdir()
    (jobs / ".jobs" / "4242").write_text("user=alice\n")
    with Server(two_gpus(scenario), ["--hpc-job-mapping-dir", jobs, "-i", "0.1"]) as s:
        s.wait_sample()
        p = parse(s.metrics())
        # GPU 1 belongs to job 4242; GPU 0 has no file and no label
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 1)] == ["4242"]
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)] == [None]
        assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=1, hpc_job=4242) == 71
        info = p["gpuwatch_job_info"]
        assert len(info) == 1
        lab, v = info[0]
        assert v == 1
        assert (lab["hpc_job"], lab["gpu"], lab["user"]) == ("4242", "1", "alice")
        assert lab["UUID"] == "GPU-5e7a0000-0000-0000-0000-000000000001"
        assert "hpc_job" not in json.dumps(series(p, "DCGM_FI_DEV_GPU_UTIL", 0))

        # two jobs share GPU 0 (repeated ids count once), GPU 1's job ends (file emptied)
        (jobs / "0").write_text("7\n8\n7\n")
        (jobs / "1").write_text("")
        p = parse(s.metrics())
        assert sorted(lab["hpc_job"] for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)) == ["7", "8"]
        assert value(p, "DCGM_FI_DEV_GPU_TEMP", gpu=0, hpc_job=8) == 65
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 1)] == [None]
        info = sorted((lab["gpu"], lab["hpc_job"], lab.get("user")) for lab, _ in
                      p["gpuwatch_job_info"])
        assert info == [("0", "7", None), ("0", "8", None)]

        # the prolog removed every file: no label and no job_info at all
        (jobs / "0").unlink()
        (jobs / "1").unlink()
        p = parse(s.metrics())
        assert "gpuwatch_job_info" not in p
        assert all("hpc_job" not in lab for lab, _ in p["DCGM_FI_DEV_GPU_TEMP"])
        assert len(p["DCGM_FI_DEV_GPU_TEMP"]) == 2


def test_mig_files_and_jobstats_lines(scenario, tmp_path):
    jobs = tmp_path / "map"
    jobs.mkdir()
    (jobs / "0.3").write_text("500 bob\n")  # Princeton jobstats writes "JOBID UID"
    (jobs / "0.5").write_text("501\n")
    (jobs / "README").write_text("not a GPU\n")
    with Server(two_gpus(scenario), ["--hpc-job-mapping-dir", jobs]) as s:
        s.wait_sample()
        p = parse(s.metrics())
        assert sorted(lab["hpc_job"] for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)) == \
            ["500", "501"]
        info = sorted((lab["hpc_job"], lab.get("user"), lab.get("GPU_I_ID")) for lab, _ in
                      p["gpuwatch_job_info"])
        assert info == [("500", "bob", "3"), ("501", None, "5")]


def test_junk_links_and_fifos_publish_nothing_but_job_ids(scenario, tmp_path):
    """Only job ids become labels: a symlink to another file is not followed (it would publish
    that file's lines), binary junk and text that is no job id are ignored with one warning, a
    FIFO does not hang the scrape, and huge files give at most 256 series per GPU."""
    import os
    secret = tmp_path / "shadow"
    secret.write_text("rootsecret x\nb3BlbnNzaC1rZXktdjEAAAAA\n")
    jobs = tmp_path / "map"
    jobs.mkdir()
    (jobs / "0").symlink_to(secret)
    (jobs / ".jobs").mkdir()
    (jobs / ".jobs" / "77").symlink_to(tmp_path / "user77")
    (tmp_path / "user77").write_text("user=leaked\n")
    (jobs / "1").write_bytes(b"77 ann\n\xff\xfe junk\nroot:$y$j9T$hash:19000::\n" + b"q" * 200 + b"\n")
    os.mkfifo(jobs / "0.1")
    with Server(two_gpus(scenario), ["--hpc-job-mapping-dir", jobs]) as s:
        s.wait_sample()
        text = s.metrics()
        p = parse(text)
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)] == [None]
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 1)] == ["77"]
        assert [(lab["hpc_job"], lab.get("user")) for lab, _ in p["gpuwatch_job_info"]] == \
            [("77", "ann")]
        for leak in ("rootsecret", "b3BlbnNzaC1", "leaked", "root:", "qqqq"):
            assert leak not in text

        (jobs / "0").unlink()
        (jobs / "0").write_bytes(b"1\x002\n")  # binary: the whole file is ignored
        (jobs / "1").write_text("".join(f"{i}\n" for i in range(5000)))
        (jobs / "1.2").write_text("".join(f"{i}\n" for i in range(9000, 9100)))  # MIG: same GPU
        p = parse(s.metrics())
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)] == [None]
        ids = [lab["hpc_job"] for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 1)]
        assert ids == [str(i) for i in range(256)]
        assert s.stop() == 0
        warnings = [ln for ln in s.lines if "job mapping file" in ln]
        assert len(warnings) == 1, s.stderr()  # said once, not at every scrape
        assert "/1: a line that is not a job id" in warnings[0]


def test_openmetrics_keeps_one_family_per_name(scenario, tmp_path):
    jobs = tmp_path / "map"
    jobs.mkdir()
    (jobs / "0").write_text("1\n2\n")
    with Server(two_gpus(scenario), ["--hpc-job-mapping-dir", jobs]) as s:
        s.wait_sample()
        text = s.metrics(accept="application/openmetrics-text;version=1.0.0")
        assert text.count("# TYPE gpuwatch_job_info gauge") == 1
        assert text.count("# TYPE DCGM_FI_DEV_GPU_TEMP gauge") == 1
        assert text.rstrip().endswith("# EOF")
        assert text.count('DCGM_FI_DEV_GPU_TEMP{gpu="0"') == 2


def test_missing_directory_warns_once_and_is_retried(scenario, tmp_path):
    jobs = tmp_path / "later"
    env = {"DCGM_HPC_JOB_MAPPING_DIR": str(jobs)}
    with Server(two_gpus(scenario), env_extra=env) as s:
        s.wait_sample()
        for _ in range(3):
            p = parse(s.metrics())
        assert all("hpc_job" not in lab for lab, _ in p["DCGM_FI_DEV_GPU_TEMP"])
        jobs.mkdir()
        (jobs / "0").write_text("99\n")
        p = parse(s.metrics())
        assert [lab.get("hpc_job") for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)] == ["99"]
        assert s.stop() == 0
        # read once serve has ended: stderr is read by a thread, so earlier it may lag behind
        warnings = [ln for ln in s.lines if "job mapping directory" in ln]
        assert len(warnings) == 1, s.stderr()
        assert str(jobs) in warnings[0] and "No such file" in warnings[0]


def test_option_wins_over_environment_and_empty_is_refused(scenario, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "0").write_text("from-env\n")
    (b / "0").write_text("from-option\n")
    with Server(two_gpus(scenario), ["--hpc-job-mapping-dir", b],
                env_extra={"DCGM_HPC_JOB_MAPPING_DIR": str(a)}) as s:
        s.wait_sample()
        p = parse(s.metrics())
        assert [lab["hpc_job"] for lab in series(p, "DCGM_FI_DEV_GPU_TEMP", 0)] == ["from-option"]
    s = Server(two_gpus(scenario), ["--hpc-job-mapping-dir", ""], wait=False)
    assert s.proc.wait(30) == 2
    s._reader.join(5)
    assert "--hpc-job-mapping-dir wants a directory" in s.stderr()


JOB_RULES = SOURCE / "deploy" / "prometheus" / "gpuwatch-job-rules.yml"


def test_job_rules_pass_promtool():
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: run scripts/deps.sh (Debian package prometheus)"
    r = subprocess.run([promtool, "check", "rules", JOB_RULES], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "SUCCESS: 3 rules found" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([promtool, "test", "rules", JOB_RULES.with_suffix(".test.yml")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr


def test_prometheus_sums_gpu_hours_per_job(scenario, tmp_path, monkeypatch):
    """A real Prometheus scrapes serve with a mapping directory: the series carry hpc_job, the
    join with gpuwatch_job_info gives the user, and the recording rules count GPUs and GPU-hours
    per job. The rules' group runs every 1 s here instead of 1 m (and counts 1 s an evaluation),
    so that a few evaluations happen within the test."""
    jobs = tmp_path / "map"
    (jobs / ".jobs").mkdir(parents=True)
    for gpu, job in (("0", "301"), ("1", "301"), ("2", "302")):
        (jobs / gpu).write_text(job + "\n")
    (jobs / ".jobs" / "301").write_text("user=alice\n")
    (jobs / ".jobs" / "302").write_text("user=bob\n")
    rules = JOB_RULES.read_text()
    assert rules.count("interval: 1m") == 1 and rules.count("* 60 / 3600") == 2
    fast = tmp_path / "job-rules.yml"
    fast.write_text(rules.replace("interval: 1m", "interval: 1s")
                    .replace("* 60 / 3600", "* 1 / 3600"))
    monkeypatch.setattr(tsp, "RULES", fast)
    sc = scenario({"devices": [const_h200(0), const_h200(1), const_h200(2, temp=50)]})
    with Server(sc, ["--hpc-job-mapping-dir", jobs, "-i", "0.5"]) as s:
        prom = tsp.Prometheus(tmp_path, [s.addr])
        try:
            temps = prom.wait("three labelled temperatures",
                              lambda: len(r := prom.query("DCGM_FI_DEV_GPU_TEMP")) == 3 and r)
            assert {(m["gpu"], m["hpc_job"]) for m, _ in temps} == \
                {("0", "301"), ("1", "301"), ("2", "302")}
            # the dashboard join: a GPU series gets its job's user without a user label on it
            joined = prom.query('DCGM_FI_DEV_GPU_TEMP * on (gpu, Hostname, hpc_job) '
                                'group_left (user) gpuwatch_job_info')
            assert {(m["gpu"], m["user"], v) for m, v in joined} == \
                {("0", "alice", 65), ("1", "alice", 65), ("2", "bob", 50)}
            count = prom.wait("GPUs per job", lambda: len(r := prom.query(
                "hpc_job:gpuwatch_gpus:count")) == 2 and r)
            assert {(m["hpc_job"], m["user"], v) for m, v in count} == \
                {("301", "alice", 2), ("302", "bob", 1)}
            # after a few evaluations: GPU-hours = evaluations x GPUs x 1 s / 3600, with the
            # evaluations counted by Prometheus itself in the same query
            prom.wait("5 evaluations", lambda: prom.query(
                "count_over_time(hpc_job:gpuwatch_gpus:count{hpc_job='302'}[1h]) >= 5"))
            q = ("hpc_job:gpuwatch_gpu_hours:1h * 3600 / on (hpc_job, user) "
                 "count_over_time(hpc_job:gpuwatch_gpus:count[1h])")
            # 2 GPUs and 1 GPU a second; polled: a query may land between the group's two rules
            per_eval = prom.wait("GPU-seconds per evaluation", lambda: (r := {
                m["hpc_job"]: v for m, v in prom.query(q)}) == {"301": 2, "302": 1} and r,
                timeout=30)
            assert per_eval == {"301": 2, "302": 1}
            hours = {m["hpc_job"]: v for m, v in prom.query("hpc_job:gpuwatch_gpu_hours:1h")}
            assert 5 * 2 / 3600 <= hours["301"] < 600 * 2 / 3600
            users = {m["user"]: v for m, v in prom.query("user:gpuwatch_gpu_hours:1h")}
            assert set(users) == {"alice", "bob"} and users["alice"] > users["bob"] > 0
            groups = prom.api("rules")["groups"]
            assert all(r["health"] == "ok" for g in groups for r in g["rules"]), groups
            # report --fleet over the same Prometheus: each job's user from gpuwatch_job_info
            r = gw(["report", "--fleet", f"http://127.0.0.1:{prom.port}", "--window", "1h",
                    "--step", "1s", "--json", "-"])
            assert r.returncode == 0, r.stderr
            fl = {j["job_id"]: (j["user"], j["gpus"]) for j in json.loads(r.stdout)["jobs"]}
            assert fl == {"301": ("alice", 2), "302": ("bob", 1)}, r.stdout
        finally:
            prom.stop()
        assert s.stop() == 0

"""gpuwatch report DIR... over the run directories of a job (docs/report.md, "One job, several
ranks"): gathered by job id, ordered by node and rank, missing ranks named when the world size is
known, the job's totals with a GPU shared by two ranks counted once, and directories of two jobs
reported one after the other."""
import json
import os
import subprocess

from conftest import GPU_HEADER, rfc3339, run_in_pty

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")
T0 = 1796007900


def job(job_id, rank, world, node, scheduler="torchrun", gpus=(0,), user="alice"):
    return {"scheduler": scheduler, "job_id": job_id, "step": None, "array_job_id": None,
            "array_task": None, "rank": rank, "local_rank": rank, "world_size": world,
            "node": node, "user": user, "gpus": list(gpus),
            "gpu_uuids": [f"GPU-{node}-{g}" for g in gpus], "gpus_source": "CUDA_VISIBLE_DEVICES",
            "scope": "job"}


def run_dir(root, jobblock, util=98, sm=80.0, seconds=360, ngpus=1, power=400.0, t0=T0):
    """A run directory of `seconds` 1 Hz rows per GPU: util %, SM activity sm %, power W."""
    root.mkdir(parents=True)
    node = jobblock["node"] if jobblock else "node-x"
    meta = {"host": node, "devices": [
        {"index": g, "name": "NVIDIA H200", "uuid": f"GPU-{node}-{g}",
         "pci_bus_id": f"00000000:00:0{6 + g}.0", "memory_total_mib": 143771,
         "power_limit_w": 700, "slowdown_temp_c": 89} for g in range(ngpus)]}
    if jobblock is not None:
        meta["job"] = jobblock
    (root / "meta.json").write_text(json.dumps(meta))
    rows = [GPU_HEADER]
    for i in range(seconds):
        u = 0 if i < 10 else util
        s = 0 if i < 10 else sm
        for g in range(ngpus):
            rows.append(f"{rfc3339(t0 + i)}, {g}, {u}, 20, 20000, 143771, 60, {power:.2f}, "
                        f"700.00, 1980, 0x0000000000000000, P0, {s:.1f}, 40.0, 30.0, 30.0")
    (root / "gpu.csv").write_text("\n".join(rows) + "\n")
    return root


def report(*args, rc=0):
    p = subprocess.run([BIN, "report", *map(str, args)], capture_output=True, text=True, env=ENV)
    assert p.returncode == rc, f"rc {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def test_missing_ranks_are_named_and_ranks_ordered_by_node(tmp_path):
    # a 4-rank job on two nodes; ranks 1 and 3 left no directory
    r2 = run_dir(tmp_path / "r2", job("4242", 2, 4, "node-b"), util=60, sm=30.0)
    r0 = run_dir(tmp_path / "r0", job("4242", 0, 4, "node-a"))
    s = json.loads(report(r2, r0, "--json", "-").stdout)
    assert s["kind"] == "jobs" and s["job_count"] == 1
    j = s["jobs"][0]
    assert j["job_id"] == "4242" and j["world_size"] == 4 and j["scheduler"] == "torchrun"
    assert j["ranks_present"] == [0, 2] and j["ranks_missing"] == [1, 3]
    assert j["ranks"] == "2 of 4 ranks: rank 1 and 3 missing"
    assert [m["rank"] for m in j["members"]] == [0, 2]
    assert [m["node"] for m in j["members"]] == ["node-a", "node-b"]
    # totals: two GPUs of 360 s each = 0.2 GPU-hours; 400 W for 360 s = 40 Wh each
    t = j["totals"]
    assert t["gpus"] == 2
    assert abs(t["gpu_hours"] - 0.2) < 1e-3
    assert abs(t["energy_wh"] - 80.0) < 0.5
    # SM activity: (350 s x 80 + 350 s x 30) / 720 s over the whole record, start-up at 0
    assert abs(t["sm_active_pct"] - (350 * 80 + 350 * 30) / 720) < 1.0
    # every verdict carries its job id, rank and node
    assert j["verdicts"], j
    for v in j["verdicts"]:
        assert v["job_id"] == "4242" and v["rank"] in (0, 2)
        assert v["node"] == ("node-a" if v["rank"] == 0 else "node-b")
    assert any(v["id"] == "gpu_starved" and v["rank"] == 2 for v in j["verdicts"])
    out = report(r2, r0).stdout
    assert "Job 4242 (torchrun): 2 of 4 ranks: rank 1 and 3 missing" in out
    lines = out.splitlines()
    a = next(i for i, l in enumerate(lines) if l.startswith("node-a"))
    b = next(i for i, l in enumerate(lines) if l.startswith("node-b"))
    assert a < b
    assert "rank 2 on node-b" in out
    # on a terminal every line fits 80 columns (verdict lines wrap)
    rc, buf = run_in_pty([BIN, "report", str(r2), str(r0)], ENV)
    tty = buf.decode("utf-8", "replace").replace("\r\n", "\n")
    assert rc == 0 and "rank 2 on node-b" in tty
    assert [l for l in tty.splitlines() if len(l) > 80] == []


def test_two_ranks_sharing_one_gpu_count_it_once(tmp_path):
    # torchrun --nproc_per_node 2 with both ranks on GPU 0: both record the same GPU
    r0 = run_dir(tmp_path / "rank_0", job("run-7", 0, 2, "h200"))
    r1 = run_dir(tmp_path / "rank_1", job("run-7", 1, 2, "h200"))
    j = json.loads(report(r0, r1, "--json", "-").stdout)["jobs"][0]
    assert j["ranks"] == "2 of 2 ranks" and j["ranks_missing"] == []
    assert j["totals"]["gpus"] == 1 and abs(j["totals"]["gpu_hours"] - 0.1) < 1e-3
    assert [m["figures"]["gpus"] for m in j["members"]] == [1, 1]


def test_a_requeued_jobs_runs_on_one_gpu_add_up(tmp_path):
    # deploy/slurm records each run of a requeued job (same id, same GPU) in RUN, RUN.1: an
    # hour apart, the second run's GPU-hours and energy were dropped as "the same GPU"
    r0 = run_dir(tmp_path / "101.n1", job("101", None, None, "n1", scheduler="slurm"))
    r1 = run_dir(tmp_path / "101.n1.1", job("101", None, None, "n1", scheduler="slurm"),
                 t0=T0 + 3600)
    j = json.loads(report(r0, r1, "--json", "-").stdout)["jobs"][0]
    t = j["totals"]
    assert t["gpus"] == 1 and abs(t["gpu_hours"] - 0.2) < 1e-3
    assert abs(t["energy_wh"] - 2 * j["members"][0]["figures"]["energy_wh"]) < 1e-3


def test_only_the_jobs_gpus_are_counted(tmp_path):
    r0 = run_dir(tmp_path / "r0", job("55", 0, 2, "n1", gpus=(1,)), ngpus=2)
    r1 = run_dir(tmp_path / "r1", job("55", 1, 2, "n2", gpus=(0, 1)), ngpus=2)
    j = json.loads(report(r0, r1, "--json", "-").stdout)["jobs"][0]
    assert [m["figures"]["gpus"] for m in j["members"]] == [1, 2]
    assert j["totals"]["gpus"] == 3
    for v in j["verdicts"]:
        assert not (v["node"] == "n1" and v["gpu"] == 0), v


def test_directories_of_two_jobs_are_reported_one_after_the_other(tmp_path):
    a0 = run_dir(tmp_path / "a0", job("100", 0, 2, "n1", scheduler="slurm"))
    b0 = run_dir(tmp_path / "b0", job("200", 0, 1, "n2", scheduler="slurm", user="bob"))
    a1 = run_dir(tmp_path / "a1", job("100", 1, 2, "n1", scheduler="slurm"))
    out = report(a0, b0, a1).stdout
    assert out.splitlines()[0] == "These directories belong to 2 jobs (100, 200): one report each."
    assert "Job 100 (slurm): 2 of 2 ranks" in out and "Job 200 (slurm): 1 of 1 ranks" in out
    assert out.index("Job 100") < out.index("Job 200")
    s = json.loads(report(a0, b0, a1, "--json", "-").stdout)
    assert [j["job_id"] for j in s["jobs"]] == ["100", "200"]
    assert [len(j["members"]) for j in s["jobs"]] == [2, 1]


def test_directories_without_a_job_keep_the_merged_report(tmp_path):
    a = run_dir(tmp_path / "a", None)
    b = run_dir(tmp_path / "b", None)
    s = json.loads(report(a, b, "--json", "-").stdout)
    assert "kind" not in s and len(s["gpus"]) == 2


def test_html_and_fail_on_with_ranks(tmp_path):
    r0 = run_dir(tmp_path / "r0", job("9", 0, 2, "n1"), util=60, sm=30.0)
    r1 = run_dir(tmp_path / "r1", job("9", 1, 2, "n1"))
    p = report(r0, r1, "--html", tmp_path / "x.html", rc=2)
    assert "--html" in p.stderr and "give it one of them" in p.stderr
    assert not (tmp_path / "x.html").exists()
    p = report(r0, r1, "--fail-on", "warning", rc=1)
    assert "--fail-on" in p.stderr


def test_ranks_that_do_not_add_up_are_said(tmp_path):
    # rank 1 twice (two nodes), rank 5 past the world size, a directory that says 8 ranks
    dirs = [run_dir(tmp_path / "r0", job("9", 0, 4, "node-a")),
            run_dir(tmp_path / "r1", job("9", 1, 4, "node-a")),
            run_dir(tmp_path / "r1b", job("9", 1, 4, "node-b")),
            run_dir(tmp_path / "r5", job("9", 5, 4, "node-c")),
            run_dir(tmp_path / "w8", job("9", 2, 8, "node-d"))]
    j = json.loads(report(*dirs, "--json", "-").stdout)["jobs"][0]
    assert j["world_size"] == 8 and j["world_sizes"] == [4, 8]
    assert j["ranks_duplicated"] == [1] and j["ranks_outside"] == []
    # 0, 1, 2 and 5 present of 8: rank 5 counts once, rank 1 once
    assert j["ranks_missing"] == [3, 4, 6, 7] and j["ranks_missing_count"] == 4
    assert j["ranks"] == "4 of 8 ranks: rank 3, 4, 6 and 7 missing"
    out = report(*dirs).stdout.splitlines()
    assert out[1:3] == ["World sizes disagree: 4 and 8; counted against 8.",
                        "Rank 1 has more than one directory."]
    # without the directory of 8: rank 5 is not one of the 4 ranks
    j = json.loads(report(*dirs[:4], "--json", "-").stdout)["jobs"][0]
    assert j["ranks"] == "2 of 4 ranks: rank 2 and 3 missing"
    assert j["ranks_outside"] == [5] and j["world_sizes"] == [4]
    assert "Rank 5 is at or past the world size (4)." in report(*dirs[:4]).stdout


def test_huge_world_size_and_rank_are_counted_not_listed(tmp_path):
    # a world size of 1e9 (the largest read) and a rank of 999999999 in a job of 4
    big = [run_dir(tmp_path / "a0", job("77", 0, 10**9, "n")),
           run_dir(tmp_path / "a1", job("77", 1, 10**9, "n"))]
    j = json.loads(report(*big, "--json", "-").stdout)["jobs"][0]
    assert j["ranks"] == "2 of 1000000000 ranks: rank 2, 3, 4, 5, 6, 7, 8, 9 and 999999990 more missing"
    assert j["ranks_missing_count"] == 10**9 - 2 and len(j["ranks_missing"]) == 65536
    assert j["ranks_missing"][:2] == [2, 3]
    odd = [run_dir(tmp_path / "b0", job("88", 0, 4, "n")),
           run_dir(tmp_path / "b1", job("88", 999999999, 4, "n"))]
    j = json.loads(report(*odd, "--json", "-").stdout)["jobs"][0]
    assert j["ranks"] == "1 of 4 ranks: rank 1, 2 and 3 missing"
    assert j["ranks_outside"] == [999999999]


def test_the_same_directory_twice_is_read_once(tmp_path):
    r0 = run_dir(tmp_path / "r0", job("5", 0, 2, "n"))
    r1 = run_dir(tmp_path / "r1", job("5", 1, 2, "n"))
    p = report(r0, f"{r0}/", r1, "--json", "-")
    j = json.loads(p.stdout)["jobs"][0]
    assert [m["path"] for m in j["members"]] == [str(r0), str(r1)]
    assert j["ranks_duplicated"] == [] and j["totals"]["gpus"] == 1
    assert p.stderr == f"gpuwatch: report: {r0}/ is {r0} again: read once\n"


def test_a_directory_without_a_job_among_the_ranks_is_reported_apart(tmp_path):
    # an older recording (no "job"), one without meta.json and one whose meta.json is broken,
    # given with the two ranks of job 6: the ranks are still gathered (only their GPUs judged),
    # the three others make the report of the directories without a job id
    r0 = run_dir(tmp_path / "r0", job("6", 0, 2, "n1", gpus=(1,)), ngpus=2)
    r1 = run_dir(tmp_path / "r1", job("6", 1, 2, "n1", gpus=(1,)), ngpus=2)
    old = run_dir(tmp_path / "old", None)
    bare = run_dir(tmp_path / "bare", None)
    (bare / "meta.json").unlink()
    broken = run_dir(tmp_path / "broken", None)
    (broken / "meta.json").write_text("{not json")
    p = report(r0, r1, old, bare, broken, "--json", "-")
    s = json.loads(p.stdout)
    assert [j["job_id"] for j in s["jobs"]] == ["6", None]
    six, other = s["jobs"]
    assert six["ranks"] == "2 of 2 ranks" and six["totals"]["gpus"] == 1
    assert sorted(m["path"] for m in other["members"]) == [str(bare), str(broken), str(old)]
    assert other["ranks"] == "3 directories (no ranks)" and other["totals"]["gpus"] == 3
    assert p.stderr == (f"gpuwatch: report: {broken}/meta.json is not JSON: write it again with "
                        "gpuwatch run, or remove it to read the directory without its job; "
                        f"reading {broken} without its job\n")
    out = report(r0, r1, old).stdout
    assert out.startswith("These directories belong to 2 jobs (6, no job id): one report each.")


def test_member_summaries_are_whole_after_their_samples_are_freed(tmp_path):
    # each directory's samples are freed once it is analysed (a thousand ranks are held as
    # analyses); what its summary says of them stays: rows, worked, statistics
    r0 = run_dir(tmp_path / "r0", job("3", 0, 2, "n", gpus=(0, 1)), ngpus=2)
    r1 = run_dir(tmp_path / "r1", job("3", 1, 2, "n", gpus=(0, 1)), ngpus=2, util=0, sm=0.0)
    j = json.loads(report(r0, r1, "--json", "-").stdout)["jobs"][0]
    g0, g1 = (m["summary"]["gpus"][0] for m in j["members"])
    assert g0["rows"] == 360 and g0["worked"] is True and g1["worked"] is False
    assert g0["stats"]["utilization.gpu [%]"]["max"] == 98
    assert abs(g0["stats"]["utilization.gpu [%]"]["mean"] - 98 * 350 / 360) < 0.01


def test_long_utf8_node_names_are_cut_between_characters(tmp_path):
    node = "\u0443\u0437\u0435\u043b-" * 5  # 25 characters, 2 bytes each but the dashes
    r0 = run_dir(tmp_path / "r0", job("8", 0, 2, node))
    r1 = run_dir(tmp_path / "r1", job("8", 1, 2, "n2"))
    rows = report(r0, r1).stdout.splitlines()[2:4]  # ordered by node: "n2" first
    assert rows[0].startswith("n2                 1     1 0       0.100")
    assert rows[1].startswith(node[:11] + "...     0     0 0       0.100")
    assert len(rows[0]) == len(rows[1])


def test_directories_of_many_jobs_are_counted_on_one_line(tmp_path):
    dirs = [run_dir(tmp_path / f"j{i}", job(str(i), 0, 1, "n"), seconds=30) for i in range(10)]
    out = report(*dirs).stdout.splitlines()
    assert out[0] == ("These directories belong to 10 jobs (0, 1, 2, 3, 4, 5, 6, 7 and 2 more): "
                      "one report each.")
    assert sum(l.startswith("Job ") for l in out) == 10


def test_each_slurm_step_is_a_world_of_its_own(tmp_path):
    # srun twice in one sbatch script: steps 0 and 1 each have ranks 0 and 1
    dirs = []
    for step in ("0", "1"):
        for rank in (0, 1):
            jb = dict(job("4242", rank, 2, f"node{rank}", scheduler="slurm"), step=step)
            dirs.append(run_dir(tmp_path / f"s{step}r{rank}", jb, seconds=60))
    s = json.loads(report(*dirs, "--json", "-").stdout)
    assert [(j["job_id"], j["step"], j["ranks"]) for j in s["jobs"]] == [
        ("4242", "0", "2 of 2 ranks"), ("4242", "1", "2 of 2 ranks")]
    assert all(j["ranks_duplicated"] == [] for j in s["jobs"])
    out = report(*dirs).stdout.splitlines()
    assert out[0] == ("These directories belong to 2 jobs (4242 step 0, 4242 step 1): "
                      "one report each.")
    assert "Job 4242 step 1 (slurm): 2 of 2 ranks" in out

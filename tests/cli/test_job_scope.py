"""Issue 17 items 1 and 2: a run's GPUs (CUDA_VISIBLE_DEVICES by UUID, index, MIG-UUID;
NVIDIA_VISIBLE_DEVICES; SLURM_STEP_GPUS / SLURM_JOB_GPUS; the job's processes) and the job's
identity (Slurm, torchrun, MPI) in meta.json, summary.json and the text report, with --scope job
(other GPUs left out) and --scope node (shown as not this job, never judged). Through the fake
NVML with two GPUs (docs/fake-nvml.md)."""
import json
import socket

import pytest

from conftest import GPU_HEADER, gw, gw_env, h200, rfc3339

UUID0 = "GPU-3f2a9c1e-7b44-4d0a-9e61-0c5d2b8a1f00"
UUID1 = "GPU-8d1b6e07-2c93-4f5e-a1d8-7e40c9b35a11"
MIG1 = "MIG-5c1e0d2a-1111-4b22-8c33-000000000001"

# The variables of the machine running the tests must not choose for them.
JOB_VARS = ["CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES",
            "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS",
            "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "SLURM_JOB_USER", "SLURM_ARRAY_JOB_ID",
            "SLURM_ARRAY_TASK_ID", "TORCHELASTIC_RUN_ID", "RANK", "LOCAL_RANK", "WORLD_SIZE",
            "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
            "OMPI_MCA_orte_ess_jobid", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_NAMESPACE",
            "KUBERNETES_SERVICE_HOST", "POD_NAME"]


def env_with(scenario_path, **job):
    env = gw_env(scenario_path)
    for k in JOB_VARS:
        env.pop(k, None)
    env.update({k: str(v) for k, v in job.items()})
    return env


def two_gpus(child_on=(1,), bus=("00000000:00:06.0", "00000000:00:07.0"), mig=False):
    """GPU 0 busy with someone else's process (pid 1, never in the job); the command's process
    ("child") on the GPUs of child_on."""
    devs = []
    for i, uuid in enumerate((UUID0, UUID1)):
        procs = [{"pid": "child", "name": "python3", "used_mib": 20000, "from_s": 0}] \
            if i in child_on else []
        if i == 0:
            procs.append({"pid": 1, "name": "other", "used_mib": 30000, "from_s": 0})
        d = h200(uuid=uuid, pci_bus_id=bus[i], processes=procs)
        if mig and i == 1:
            d["mig"] = {"enabled": True, "instances": [
                {"uuid": "MIG-0b0b0b0b-0000-4000-8000-000000000000", "memory_total_mib": 71424},
                {"uuid": MIG1, "memory_total_mib": 71424}]}
        devs.append(d)
    return {"devices": devs}


def record(tmp_path, scenario, sc_obj, *extra, secs=0.6, **job):
    sc = scenario(sc_obj)
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.1", *extra, "--", "sleep", secs], env=env_with(sc, **job))
    assert r.returncode == 0, r.stderr
    meta = json.loads((out / "meta.json").read_text())
    summ = json.loads((out / "summary.json").read_text())
    return out, r, meta["job"], summ


def test_cuda_uuid_slurm_identity(scenario, tmp_path):
    out, r, job, s = record(tmp_path, scenario, two_gpus(), CUDA_VISIBLE_DEVICES=UUID1[:12],
                            SLURM_JOB_ID=4242, SLURM_STEP_ID=0, SLURM_PROCID=1, SLURM_LOCALID=1,
                            SLURM_NTASKS=4, SLURM_JOB_USER="alice", SLURM_JOB_GPUS="0,1")
    assert job == {"scheduler": "slurm", "job_id": "4242", "step": "0", "array_job_id": None,
                   "array_task": None, "rank": 1, "local_rank": 1, "world_size": 4,
                   "node": socket.gethostname(), "user": "alice", "gpus": [1],
                   "gpu_uuids": [UUID1], "gpus_source": "CUDA_VISIBLE_DEVICES",
                   "gpus_note": None, "scope": "job"}
    assert "this job's GPU: 1 (from CUDA_VISIBLE_DEVICES)" in r.stderr.replace("\n", " ")
    assert "  0   not this job: recorded, left out" in r.stderr
    # summary.json: the same job, only GPU 1, every verdict names the job and its rank
    assert s["job"]["job_id"] == "4242" and s["job"]["gpus"] == [1]
    assert [(g["index"], g["in_job"]) for g in s["gpus"]] == [(1, True)]
    for v in s["verdicts"]:
        assert v["gpu"] != 0 and v["job_id"] == "4242" and v["rank"] == 1
    # GPU 0 is still recorded: nothing lost
    rows = (out / "gpu.csv").read_text().splitlines()[1:]
    assert {row.split(", ")[1] for row in rows} == {"0", "1"}
    text = gw(["report", out], env=env_with(None)).stdout
    assert "job: slurm job 4242 step 0, rank 1 of 4, " + socket.gethostname() in text
    assert "GPU 1 from CUDA_VISIBLE_DEVICES" in text
    assert "\nGPU 0:" not in text and "\nGPU 1:" in text


def test_scope_node_shows_other_gpu_unjudged(scenario, tmp_path):
    out, r, job, s = record(tmp_path, scenario, two_gpus(), "--scope", "node",
                            CUDA_VISIBLE_DEVICES=UUID1)
    assert job["scope"] == "node" and job["gpus"] == [1] and job["scheduler"] == "none"
    assert job["job_id"] is None and job["rank"] is None and job["world_size"] is None
    assert [(g["index"], g["in_job"]) for g in s["gpus"]] == [(0, False), (1, True)]
    assert s["job"]["scope"] == "node"
    # the report takes the run's scope; --scope job overrides it
    text = gw(["report", out], env=env_with(None)).stdout
    gpu0 = text[text.index("\nGPU 0:"):text.index("\nGPU 1:")]
    assert "not this job: recorded and shown (--scope node), never judged" in gpu0
    s2 = json.loads(gw(["report", out, "--scope", "job", "--json", "-"],
                       env=env_with(None)).stdout)
    assert [g["index"] for g in s2["gpus"]] == [1] and s2["job"]["scope"] == "job"


def test_index_with_and_without_cuda_device_order(scenario, tmp_path):
    # PCI order reversed: GPU 1 has the lower bus id, so CUDA's PCI_BUS_ID device 0 is NVML 1
    sc = two_gpus(child_on=(1,), bus=("00000000:00:07.0", "00000000:00:06.0"))
    _, _, job, _ = record(tmp_path, scenario, sc, CUDA_VISIBLE_DEVICES=0,
                          CUDA_DEVICE_ORDER="PCI_BUS_ID")
    assert job["gpus"] == [1] and job["gpus_source"] == "CUDA_VISIBLE_DEVICES"
    assert job["gpu_uuids"] == [UUID1] and job["gpus_note"] is None


def test_index_without_order_is_not_guessed(scenario, tmp_path):
    sc = two_gpus(child_on=(1,))
    _, r, job, s = record(tmp_path, scenario, sc, secs=2.2, CUDA_VISIBLE_DEVICES=0)
    # FASTEST_FIRST cannot be known from NVML: the job's processes decide (GPU 1, not 0)
    assert job["gpus_source"] == "processes" and job["gpus"] == [1]
    assert "FASTEST_FIRST" in job["gpus_note"] and "PCI_BUS_ID" in job["gpus_note"]
    assert "FASTEST_FIRST" in r.stderr
    assert [g["index"] for g in s["gpus"]] == [1]


def test_processes_choose_when_nothing_names_gpus(scenario, tmp_path):
    # the process lists are read about once a second: the command runs for several of them (a
    # loaded machine under ASan can start the sampler a second or more late)
    _, _, job, s = record(tmp_path, scenario, two_gpus(child_on=(0,)), secs=4.5)
    assert job["gpus_source"] == "processes" and job["gpus"] == [0]
    assert job["gpu_uuids"] == [UUID0]
    assert [g["index"] for g in s["gpus"]] == [0]


def test_mig_uuid_maps_to_its_gpu(scenario, tmp_path):
    _, _, job, _ = record(tmp_path, scenario, two_gpus(mig=True), CUDA_VISIBLE_DEVICES=MIG1)
    assert job["gpus"] == [1] and job["gpus_source"] == "CUDA_VISIBLE_DEVICES"


def test_slurm_step_gpus_and_nvidia_visible_devices(scenario, tmp_path):
    _, _, job, _ = record(tmp_path, scenario, two_gpus(), SLURM_JOB_ID=9, SLURM_STEP_GPUS=1,
                          SLURM_JOB_GPUS="0,1")
    assert job["gpus"] == [1] and job["gpus_source"] == "SLURM_STEP_GPUS"
    (tmp_path / "b").mkdir()
    _, _, job, _ = record(tmp_path / "b", scenario, two_gpus(), NVIDIA_VISIBLE_DEVICES="all",
                          SLURM_JOB_GPUS=1)
    assert job["gpus"] == [0, 1] and job["gpus_source"] == "NVIDIA_VISIBLE_DEVICES"


def test_torchrun_and_mpi_identity(scenario, tmp_path):
    _, _, job, s = record(tmp_path, scenario, two_gpus(), TORCHELASTIC_RUN_ID="r7", RANK=3,
                          LOCAL_RANK=1, WORLD_SIZE=8, SLURM_PROCID=0)
    assert (job["scheduler"], job["job_id"], job["rank"], job["local_rank"],
            job["world_size"], job["step"]) == ("torchrun", "r7", 3, 1, 8, None)
    assert s["job"]["rank"] == 3
    (tmp_path / "b").mkdir()
    _, _, job, _ = record(tmp_path / "b", scenario, two_gpus(), OMPI_COMM_WORLD_RANK=2,
                          OMPI_COMM_WORLD_LOCAL_RANK=0, OMPI_COMM_WORLD_SIZE=4,
                          OMPI_MCA_orte_ess_jobid=1234)
    assert (job["scheduler"], job["job_id"], job["rank"], job["local_rank"],
            job["world_size"]) == ("mpi", "1234", 2, 0, 4)


def test_bad_variables_warn_in_one_line(scenario, tmp_path):
    _, r, job, s = record(tmp_path, scenario, two_gpus(),
                          CUDA_VISIBLE_DEVICES="GPU-ffffffff", RANK="one")
    lines = r.stderr.splitlines()
    bad = [ln for ln in lines if "GPU-ffffffff" in ln]
    assert len(bad) == 1 and "names no GPU of this node (NVML sees 2)" in bad[0]
    assert "the command sees no GPU" in bad[0]
    assert job["gpus_note"] == bad[0].replace("gpuwatch: ", "")
    assert any("RANK='one' is not a whole number" in ln for ln in lines)
    assert job["gpus"] == [] and job["rank"] is None
    # no GPU is the job's: both are shown as not this job, neither judged
    assert [(g["index"], g["in_job"]) for g in s["gpus"]] == [(0, False), (1, False)]
    assert s["verdicts"] == [] or all(v["gpu"] is None for v in s["verdicts"])
    (tmp_path / "b").mkdir()
    _, r, job, _ = record(tmp_path / "b", scenario, two_gpus(), SLURM_JOB_GPUS="1,5,6")
    assert job["gpus"] == [1] and job["gpus_source"] == "SLURM_JOB_GPUS"
    said = r.stderr.replace("\n", " ").replace("gpuwatch: ", "")
    for g in (5, 6):
        assert f"SLURM_JOB_GPUS=1,5,6: there is no GPU {g} on this node (NVML sees 2): left " \
            "out" in said


def test_scope_usage_errors(scenario, tmp_path):
    r = gw(["run", "--scope", "all", "--", "true"], env=env_with(None))
    assert r.returncode == 2 and "--scope takes job or node" in r.stderr
    r = gw(["report", tmp_path, "--scope", "gpu"], env=env_with(None))
    assert r.returncode == 2 and "--scope takes job" in r.stderr


# ---- the report over a recorded pattern: another user's starved GPU is never judged ----

def shared_node_run(root, job=None):
    """130 s at 1 Hz: GPU 0 (someone else's) starved in bursts, GPU 1 (the job's) at 98 %."""
    root.mkdir()
    t0 = 1796007900
    meta = {"host": "node1", "devices": [
        {"index": i, "name": "NVIDIA H200", "uuid": u, "pci_bus_id": f"00000000:00:0{6 + i}.0",
         "memory_total_mib": 143771, "power_limit_w": 700} for i, u in enumerate((UUID0, UUID1))]}
    if job is not None:
        meta["job"] = job
    (root / "meta.json").write_text(json.dumps(meta))
    rows = [GPU_HEADER]
    for k in range(130):
        u0 = 0 if k < 10 else (90 if k % 4 == 0 else 0)
        u1 = 0 if k < 10 else 98
        for i, u in ((0, u0), (1, u1)):
            rows.append(f"{rfc3339(t0 + k)}, {i}, {u}, {u // 2}, 30000, 143771, 60, "
                        f"{100 + 5 * u:.2f}, 700.00, 1980, 0x0000000000000000, P0, "
                        f"{0.9 * u:.1f}, 40.0, 20.0, 30.0")
    (root / "gpu.csv").write_text("\n".join(rows) + "\n")
    (root / "processes.csv").write_text(
        "timestamp, index, pid, process_name, used_memory [MiB], in_job\n"
        f"{rfc3339(t0 + 5)}, 0, 999, other, 29000, 0\n"
        f"{rfc3339(t0 + 5)}, 1, 4242, python3, 29000, 1\n")
    return root


JOB = {"scheduler": "slurm", "job_id": "4242", "step": "0", "array_job_id": None,
       "array_task": None, "rank": 1, "local_rank": 1, "world_size": 4, "node": "node1",
       "user": "alice", "gpus": [1], "gpu_uuids": [UUID1], "gpus_source": "CUDA_VISIBLE_DEVICES",
       "gpus_note": None, "scope": "job"}


def report_json(*args):
    r = gw(["report", *args, "--json", "-"], env=env_with(None))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_other_users_gpu_is_never_judged(tmp_path):
    # without a job, GPU 0's pattern gives verdicts that name it (so the test below can fail)
    plain = report_json(shared_node_run(tmp_path / "plain"))
    # the report: another user's GPU 0 judged
    assert {(v["id"], v["gpu"]) for v in plain["verdicts"]} == {
        ("gpu_starved", 0), ("multi_gpu_imbalance", 0), ("gpu_saturated", 1)}
    assert plain["job"] is None
    assert all(v["job_id"] is None and v["rank"] is None for v in plain["verdicts"])

    d = shared_node_run(tmp_path / "job", JOB)
    s = report_json(d)
    assert [g["index"] for g in s["gpus"]] == [1] and s["gpus"][0]["in_job"] is True
    assert [v["id"] for v in s["verdicts"]] == ["gpu_saturated"]  # GPU 1, judged alone
    for v in s["verdicts"]:
        assert v["gpu"] == 1 and v["job_id"] == "4242" and v["rank"] == 1
    assert s["job"] == JOB

    node = report_json(d, "--scope", "node")
    assert [(g["index"], g["in_job"]) for g in node["gpus"]] == [(0, False), (1, True)]
    assert node["gpus"][0]["participant"] is False
    assert node["verdicts"] and all(v["gpu"] == 1 for v in node["verdicts"])
    assert node["job"]["scope"] == "node"
    text = gw(["report", d, "--scope", "node"], env=env_with(None)).stdout
    assert "job: slurm job 4242 step 0, rank 1 of 4, node1; GPU 1 from CUDA_VISIBLE_DEVICES;" \
        in text.replace("\n    ", " ")
    verdicts = text[text.index("Verdicts"):text.index("\nGPU 0:")]
    assert "GPU 0" not in verdicts and "GPU 1" in verdicts
    html = gw(["report", d, "--scope", "node", "--html", "-"], env=env_with(None)).stdout
    assert "job: slurm job 4242 step 0, rank 1 of 4, node1; GPUs from CUDA_VISIBLE_DEVICES" in html
    assert html.count("NVIDIA H200 (not this job)") == 1
    mine = [ln for ln in text.splitlines() if ln.startswith(("  job:", "    ", "  not this job"))]
    # a path longer than a line is never cut: only lines of several words must fit
    assert len(mine) >= 3 and all(len(ln) <= 80 for ln in mine if " " in ln.strip()), mine


def test_unfinalised_run_takes_gpus_from_processes_csv(tmp_path):
    job = dict(JOB, gpus=[], gpu_uuids=[], gpus_source="processes", scheduler="none",
               job_id=None, step=None, rank=None, local_rank=None, world_size=None)
    s = report_json(shared_node_run(tmp_path / "r", job))
    assert [g["index"] for g in s["gpus"]] == [1]


def test_record_with_slurm_job_gpus_and_scope_node(scenario, tmp_path):
    # a Slurm prolog's `gpuwatch record`: no command, the job's GPUs from SLURM_JOB_GPUS
    sc = scenario(two_gpus())
    out = tmp_path / "rec"
    r = gw(["record", "-o", out, "-i", "0.1", "-d", "0.5", "--scope", "node"],
           env=env_with(sc, SLURM_JOB_ID=77, SLURM_JOB_GPUS=1, SLURM_JOB_USER="bob"))
    assert r.returncode == 0, r.stderr
    job = json.loads((out / "meta.json").read_text())["job"]
    assert (job["scheduler"], job["job_id"], job["user"], job["gpus"], job["gpus_source"],
            job["scope"]) == ("slurm", "77", "bob", [1], "SLURM_JOB_GPUS", "node")
    s = json.loads((out / "summary.json").read_text())
    assert [(g["index"], g["in_job"]) for g in s["gpus"]] == [(0, False), (1, True)]
    assert all(v["gpu"] != 0 for v in s["verdicts"])

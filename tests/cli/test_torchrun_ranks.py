"""bench/h200/torchrun_ranks.sh on the fake NVML with a stand-in torchrun (fake_torchrun.py: two
processes with the environment torchrun gives its ranks): each rank gets its own run directory
through bench/h200/rank_run.sh, and `gpuwatch report` over both gathers them into one job by
TORCHELASTIC_RUN_ID, the shared GPU counted once. The lead runs the script with the real torchrun
and PyTorch on the H200."""
import json
import os
import subprocess
import sys

from conftest import GW, SOURCE, gw_env, h200


def test_torchrun_ranks_script(tmp_path, scenario):
    sc = scenario({"driver_version": "580.159.04", "devices": [h200(processes=[
        {"pid": "child", "name": "python3", "used_mib": 9000, "from_s": 0, "to_s": 60}])]})
    train = tmp_path / "train.py"
    train.write_text("import time\nfor i in range(3):\n    print(f'step {i + 1}/3 loss 1.0', "
                     "flush=True)\n    time.sleep(1)\n")
    out = tmp_path / "out"
    env = gw_env(sc, OUT=out, GW=GW, TORCHRUN=f"{sys.executable} {SOURCE}/tests/cli/fake_torchrun.py",
                 TRAIN=f"{sys.executable} {train}", FAKE_TORCHRUN_RUN_ID="fake-run-17",
                 GW_RUN_ARGS="-i 0.2")
    p = subprocess.run(["bench/h200/torchrun_ranks.sh"], cwd=SOURCE, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    r = out / "torchrun"
    assert (r / "torchrun.txt").read_text().splitlines()[-1] == "torchrun exit 0"
    metas = {}
    for rank in (0, 1):
        d = r / "runs" / f"rank_{rank}"
        assert (d / "gpu.csv").exists() and (d / "summary.json").exists()
        metas[rank] = json.loads((d / "meta.json").read_text())
        assert metas[rank]["exit"]["code"] == 0
    assert (r / "report.txt").read_text().splitlines()[-1] == "report exit 0"
    assert (r / "report.json").exists()
    if "job" in metas[0]:
        for rank in (0, 1):
            job = metas[rank]["job"]
            assert job["scheduler"] == "torchrun" and job["job_id"] == "fake-run-17"
            assert job["rank"] == rank and job["world_size"] == 2
    else:
        # Until meta.json carries the job (issue 17 item 2, branch wt-17a), give these real run
        # directories the block the schema gives torchrun's ranks and report them again.
        for rank in (0, 1):
            d = r / "runs" / f"rank_{rank}"
            metas[rank]["job"] = {
                "scheduler": "torchrun", "job_id": "fake-run-17", "step": None,
                "array_job_id": None, "array_task": None, "rank": rank, "local_rank": rank,
                "world_size": 2, "node": metas[rank]["host"], "user": "root", "gpus": [0],
                "gpu_uuids": [metas[rank]["devices"][0]["uuid"]], "gpus_source": "processes",
                "scope": "job"}
            (d / "meta.json").write_text(json.dumps(metas[rank]))
        q = subprocess.run([GW, "report", *(str(r / "runs" / f"rank_{k}") for k in (0, 1)),
                            "--json", str(r / "report.json")], env=env, capture_output=True,
                           text=True)
        assert q.returncode == 0, q.stderr
        (r / "report.txt").write_text(q.stdout)
    s = json.loads((r / "report.json").read_text())
    assert s["kind"] == "jobs" and [j["job_id"] for j in s["jobs"]] == ["fake-run-17"]
    j = s["jobs"][0]
    assert j["ranks_present"] == [0, 1] and j["ranks_missing"] == [] and j["world_size"] == 2
    assert j["totals"]["gpus"] == 1  # both ranks on GPU 0: counted once
    assert "Job fake-run-17 (torchrun): 2 of 2 ranks" in (r / "report.txt").read_text()

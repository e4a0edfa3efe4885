"""The report on real recordings made with `gpuwatch run` on H200s (examples/recordings/, made by
bench/h200/labelled.sh and bench/h200/ddp.sh): each labelled run must reach its verdict."""
import json
import subprocess

import pytest

from conftest import GW, SOURCE

REC = SOURCE / "examples" / "recordings"


def report(run_dir):
    r = subprocess.run([GW, "report", str(run_dir), "--json", "-"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def ids(summary):
    return {(v["id"], v["severity"]) for v in summary["verdicts"]}


# label -> (verdicts that must be there, verdict ids that must not)
LABELLED = {
    "compute_bound": ({("gpu_saturated", "info")}, {"gpu_starved", "underfilled_kernels"}),
    "input_bound_half": ({("gpu_starved", "critical")}, {"gpu_saturated"}),
    "tiny_kernels": ({("underfilled_kernels", "warning")}, {"gpu_saturated"}),
    "memory_leak": ({("memory_leak", "critical")}, set()),
    "idle_holding_memory": ({("idle_holding_memory", "warning")}, {"memory_leak"}),
    "oom_crash": ({("oom_crash", "critical")}, {"job_stalled"}),
    "stuck_dataloader": ({("job_stalled", "critical"), ("job_failed", "info")}, {"oom_crash"}),
    # Validation passes (2-3 s, with forward steps at 20-80 % util that must not split the dip)
    # between 4 s epochs, after 12 s of start-up with a brief blip of GPU work in it.
    "epochs_with_validation": ({("gpu_saturated", "info"), ("expected_dips", "info")},
                               {"gpu_starved", "oom_crash", "memory_leak"}),
}


@pytest.mark.parametrize("label", sorted(LABELLED))
def test_labelled_h200_run(label):
    s = report(REC / "h200-labelled" / label)
    must, must_not = LABELLED[label]
    got = ids(s)
    assert must <= got, (label, got)
    assert not {i for i, _ in got} & must_not, (label, got)


def test_input_bound_cause():
    s = report(REC / "h200-labelled" / "input_bound_half")
    v = next(v for v in s["verdicts"] if v["id"] == "gpu_starved")
    assert v["evidence"]["cause"] == "input_pipeline"
    assert v["evidence"]["dataloader_workers"] == 4


def test_oom_numbers_from_the_message():
    s = report(REC / "h200-labelled" / "oom_crash")
    ev = next(v for v in s["verdicts"] if v["id"] == "oom_crash")["evidence"]
    assert ev["tried_to_allocate_mib"] == 12288  # "Tried to allocate 12.00 GiB"
    assert ev["free_mib"] == pytest.approx(7.04 * 1024, rel=0.01)
    assert ev["reported_by"] == "pytorch"
    assert 130000 < ev["memory_used_mib"] < 143771


def test_ddp_slowed_rank_is_the_imbalanced_gpu():
    s = report(REC / "h200-labelled" / "ddp_slow_rank_2gpu")
    imb = [v for v in s["verdicts"] if v["id"] == "multi_gpu_imbalance"]
    assert [v["gpu"] for v in imb] == [1]  # rank 1 was slowed; rank 0 waits in the all-reduce
    assert ("gpu_saturated", "info") in {(v["id"], v["severity"]) for v in s["verdicts"]
                                         if v["gpu"] == 0}


def test_earlier_recordings():
    s = report(REC / "h200-underfilled")
    assert ("underfilled_kernels", "warning") in ids(s)
    # 3 epochs with a validation pass each (8 DataLoader workers making images on the CPU),
    # recorded before epoch events existed: regular dips, busy in between
    s = report(REC / "h200-resnet50-train")
    v = next(v for v in s["verdicts"] if v["id"] == "expected_dips")
    assert v["severity"] == "warning" and v["evidence"]["busy_pct"] >= 80
    assert "gpu_starved" not in {v["id"] for v in s["verdicts"]}
    # the epochs told by the dips are the job's 3 (--epochs 3): the last validation ends the
    # steady state, and no empty fourth epoch follows it
    assert [(e["epoch"], round(e["duration_s"], 1)) for e in s["epochs"]] == [
        (1, 10.8), (2, 11.6), (3, 11.8)]

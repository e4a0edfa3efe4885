"""Issue 12: lines gpuwatch itself printed into the job's output never make an epoch. A job that
called `gpuwatch mark` wrongly got gpuwatch's error, which quotes `--field epoch=3`, and the
recording gained an epoch 3 the script never reached."""
from conftest import GW, events, gw, h200


def test_gpuwatch_error_text_is_no_epoch(scenario, tmp_path):
    out = tmp_path / "run"
    script = (f"'{GW}' mark step --field bad; echo 'usage text:  --field epoch=4'; "
              "echo 'Epoch 1/2'; echo 'Epoch 2/2'")
    r = gw(["run", "-i", "0.1", "-o", out, "--", "sh", "-c", script],
           scenario({"devices": [h200()]}))
    assert r.returncode == 0, r.stderr
    log = (out / "output.log").read_text()
    assert "gpuwatch mark: bad field 'bad'" in log and "--field epoch=3" in log  # it was printed
    epochs = [(e["epoch"], e.get("total")) for e in events(out) if e["type"] == "epoch"]
    assert epochs == [(1, 2), (2, 2)]

"""gpuwatch report on the shapes real logs come in (issue 15 items 1-5, docs/report.md "Accepted
shapes"): what the report says it assumed, the dateless header, dmon read end to end, and the
formats refused in one line that names them and never advises --columns. Inputs are written
here."""
import json
import os
import subprocess

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")


def run(*args):
    return subprocess.run([BIN, "report", *map(str, args)], capture_output=True, text=True, env=ENV)


def test_gpus_without_id_column_split_by_order(tmp_path):
    f = tmp_path / "two.csv"
    rows = ["timestamp, utilization.gpu [%], memory.used [MiB]"]
    for i in range(40):
        rows.append(f"2024/05/01 10:00:{i:02d}.100, 91 %, 30000 MiB")
        rows.append(f"2024/05/01 10:00:{i:02d}.100, 0 %, 2 MiB")
    f.write_text("\n".join(rows) + "\n")
    p = run(f, "--json", "-")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert [g["index"] for g in s["gpus"]] == [0, 1]
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["p50"] == 91
    assert s["gpus"][1]["stats"]["utilization.gpu [%]"]["max"] == 0
    assert "2 GPUs told apart by their order" in s["inputs"][0]["note"]
    # GPU 0 was busy: it is not starved (the merged reading said "critical gpu_starved 0.0 %").
    assert not any(v["id"] == "gpu_starved" and v["gpu"] == 0 for v in s["verdicts"])
    text = run(f)
    assert "2 GPUs told apart by their order" in text.stdout
    lines = text.stdout.splitlines()
    first_input = next(i for i, l in enumerate(lines) if l.startswith("  input "))
    notes = [l for l in lines[first_input:first_input + 5] if l.startswith("    ")]
    assert notes and max(len(line) for line in notes) <= 80, notes


def test_elapsed_seconds_say_the_date_is_unknown(tmp_path):
    f = tmp_path / "elapsed.csv"
    f.write_text("elapsed_s,utilization.gpu,memory.used\n" +
                 "".join(f"{i}.0,{50 + i % 3},1000\n" for i in range(30)))
    p = run(f)
    assert p.returncode == 0, p.stderr
    head = p.stdout.splitlines()[:2]
    assert head == ["gpuwatch report: 1 GPU, 30.0 s", "  date unknown, +0.0 s to +30.0 s"]
    assert "1970" not in p.stdout
    assert "elapsed_s -> elapsed" in p.stdout


def test_dmon_read(tmp_path):
    f = tmp_path / "dmon.txt"
    lines = ["# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk",
             "# Idx     W     C     C     %     %     %     %   MHz   MHz"]
    for _ in range(30):
        lines.append("    0   310    61     -    97    40     0     0  2619  1980")
        lines.append("    1    75    40     -     3     0     0     0  2619   345")
    f.write_text("\n".join(lines) + "\n")
    p = run(f, "--json", "-")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["inputs"][0]["dateless"] is True
    assert s["gpus"][0]["stats"]["power.draw [W]"]["mean"] == 310
    assert s["gpus"][1]["stats"]["utilization.gpu [%]"]["max"] == 3
    assert "temperature.memory" not in s["gpus"][0]["stats"]  # '-' cells are absent


def test_other_formats_refused_by_name(tmp_path):
    cases = {
        "pmon.txt": ("# gpu         pid  type    sm   mem   enc   dec   command\n"
                     "    0       4321     C    97    40     -     -   python3\n",
                     "`nvidia-smi pmon` output"),
        "table.txt": ("Tue Nov  5 14:03:01 2024\n+" + "-" * 77 + "+\n"
                      "| NVIDIA-SMI 550.54.15     Driver Version: 550.54.15     CUDA Version: 12.4 |\n",
                      "an `nvidia-smi` table"),
        "apps.csv": ("pid, process_name, used_gpu_memory [MiB]\n4321, python3, 40000 MiB\n",
                     "`nvidia-smi --query-compute-apps` CSV"),
        "bundle.csv": ("timestamp, index, utilization.gpu [%]\n2024/05/01 10:00:00.000, 0, 90\n"
                       "\npid, process_name, used_gpu_memory [MiB]\n4321, python3, 40000 MiB\n",
                       "several sections in one file"),
    }
    for name, (text, said) in cases.items():
        f = tmp_path / name
        f.write_text(text)
        p = run(f)
        assert p.returncode == 1, (name, p.stdout, p.stderr)
        assert p.stdout == ""
        err = p.stderr.strip()
        assert len(err.splitlines()) == 1, err
        assert said in err, err
        assert "--columns" not in err, err

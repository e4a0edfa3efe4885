"""gpuwatch report against hostile numbers and hostile GPU ids (issue 12, items 1 and 7): a huge,
infinite or non-numeric value in any cell is absent in every output (text, --json, --html), never
a crash, a hang or a 0; a file naming more GPUs than a file may hold (64) is one clear error."""
import json
import os
import re
import subprocess
from pathlib import Path

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")
HEADER = ("timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
          "power.draw [W], power.limit [W]")


def report(*args, timeout=60):
    return subprocess.run([BIN, "report", *map(str, args)], capture_output=True, text=True,
                          env=ENV, timeout=timeout)


def ts(i):
    return f"2026-11-30T03:{i // 60:02d}:{i % 60:02d}.000Z"


def two_gpus(path, huge):
    """GPU 0: `huge` in memory.used and power.draw on every row; GPU 1: normal rows, with `huge`
    once in memory.used (row 60) and once in power.draw (row 61)."""
    rows = [HEADER]
    for i in range(120):
        rows.append(f"{ts(i)}, 0, 90, {huge}, 143771, {huge}, 700")
        mem = huge if i == 60 else str(20000 + i)
        pw = huge if i == 61 else "300"
        rows.append(f"{ts(i)}, 1, 90, {mem}, 143771, {pw}, 700")
    path.write_text("\n".join(rows) + "\n")


def gpu(summary, index):
    return next(g for g in summary["gpus"] if g["index"] == index)


def html_gpu_row(html, label):
    m = re.search(r"<tr><td>" + re.escape(label) + r"</td>.*?</tr>", html)
    assert m, f"no table row for {label}"
    return re.findall(r'<td class="num">([^<]*)</td>', m.group(0))


def check_absent(tmp_path, huge):
    csv = tmp_path / "huge.csv"
    two_gpus(csv, huge)
    j, h = tmp_path / "s.json", tmp_path / "r.html"
    p = report(csv, "--json", j, "--html", h)
    assert p.returncode == 0, f"{huge}: rc {p.returncode}\n{p.stderr}"
    s = json.loads(j.read_text())
    assert s["inputs"][0]["rows"] == 240 and s["inputs"][0]["rows_skipped"] == 0, huge
    g0, g1 = gpu(s, 0), gpu(s, 1)
    # GPU 0: the columns hold nothing readable: absent (no statistics, no energy), never 0
    assert g0["stats"].get("memory.used [MiB]") is None, huge
    assert g0["stats"].get("power.draw [W]") is None, huge
    assert g0["energy_wh"] is None, huge
    assert g0["stats"]["utilization.gpu [%]"]["mean"] == 90
    # GPU 1: the one absurd cell is dropped, its neighbours are kept
    mem = g1["stats"]["memory.used [MiB]"]
    assert (mem["min"], mem["max"], mem["n"]) == (20000, 20119, 119), huge
    assert g1["stats"]["power.draw [W]"]["max"] == 300, huge
    text = p.stdout
    gpu0_text = text[text.index("\nGPU 0:"):text.index("\nGPU 1:")]
    assert "memory.used [MiB]" not in gpu0_text and "power.draw [W]" not in gpu0_text, huge
    assert "energy: not recorded" in gpu0_text
    assert re.search(r"memory\.used \[MiB\] +20059 +\d+ +\d+ +\d+ +20119\n", text), text
    html = h.read_text()
    cells = html_gpu_row(html, "GPU 0")
    # columns: util mean, util p95, busy, SM, tensor, memory max, memory total, temp max,
    # slowdown, power mean, power max, power % of limit, energy
    assert cells[5] == "" and cells[9] == "" and cells[10] == "" and cells[12] == "", cells
    assert cells[6] == "143771 MiB"
    assert html_gpu_row(html, "GPU 1")[5] == "20119 MiB"
    for out in (text, html, j.read_text()):
        assert not re.search(r"\d[eE]\+?\d{2,}|\binf\b|\bnan\b", out), huge


def test_every_huge_exponent_is_absent_in_every_output(tmp_path):
    for e in range(60, 309):
        check_absent(tmp_path, f"1e{e}")
    check_absent(tmp_path, "-1e300")


def test_non_numbers_and_overflow_are_absent(tmp_path):
    for huge in ("inf", "-inf", "nan", "NaN", "Infinity", "1e999", "-1e999", "1e300 MiB"):
        check_absent(tmp_path, huge)


def test_values_absurd_for_their_field_are_dropped_at_read(tmp_path):
    csv = tmp_path / "field.csv"
    rows = [HEADER]
    for i in range(60):
        util, mem, pw = "50", str(1000 + i), "200"
        if i == 10:
            util, mem, pw = "5000", "-5", "2e6"  # 5000 %, negative MiB, 2 MW
        if i == 11:
            mem, pw = "2e9", "-1"  # 2 PiB, negative watts
        rows.append(f"{ts(i)}, 0, {util}, {mem}, 143771, {pw}, 700")
    csv.write_text("\n".join(rows) + "\n")
    p = report(csv, "--json", "-")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["inputs"][0]["rows"] == 60 and s["inputs"][0]["rows_skipped"] == 0
    st = s["gpus"][0]["stats"]
    assert st["utilization.gpu [%]"]["max"] == 50 and st["utilization.gpu [%]"]["n"] == 59
    assert (st["memory.used [MiB]"]["min"], st["memory.used [MiB]"]["max"]) == (1000, 1059)
    assert st["memory.used [MiB]"]["n"] == 58
    assert (st["power.draw [W]"]["min"], st["power.draw [W]"]["max"]) == (200, 200)


def test_zero_capacities_are_absent_not_a_division_by_zero(tmp_path):
    for zero in ("0", "-0", "1e-320", "0.5"):
        csv = tmp_path / "zero.csv"
        rows = [HEADER]
        for i in range(60):
            rows.append(f"{ts(i)}, 0, 90, {130000 + i}, {zero}, 300, {zero}")
        csv.write_text("\n".join(rows) + "\n")
        j, h = tmp_path / "s.json", tmp_path / "r.html"
        p = report(csv, "--json", j, "--html", h)
        assert p.returncode == 0, p.stderr
        g = json.loads(j.read_text())["gpus"][0]
        assert g["memory_total_mib"] is None and g["power_limit_w"] is None, zero
        assert g["stats"]["memory.used [MiB]"]["max"] == 130059
        for out in (p.stdout, h.read_text(), j.read_text()):
            assert not re.search(r"\binf\b|\bnan\b", out, re.I), zero


def gpu_ids_csv(path, n, rows_per_gpu=1):
    rows = ["timestamp, index, uuid, utilization.gpu [%], memory.used [MiB]"]
    for r in range(rows_per_gpu):
        for i in range(n):
            rows.append(f"{ts(r)}, {i % 1000}, GPU-{i:08d}, 50, 1000")
    path.write_text("\n".join(rows) + "\n")


def test_more_gpus_than_a_file_may_hold_is_one_clear_error(tmp_path):
    csv = tmp_path / "ids.csv"
    gpu_ids_csv(csv, 20000)
    for extra in ([], ["--json", "-"], ["--html", tmp_path / "r.html"]):
        p = report(csv, *extra)
        assert p.returncode == 1, p.stderr
        assert p.stdout == ""
        lines = p.stderr.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"gpuwatch: report: {csv}: more than 64 GPUs (line 66 adds "
                                   "'GPU-00000064')"), lines[0]
        assert "split it by GPU" in lines[0]
    assert not (tmp_path / "r.html").exists()


def test_sixty_four_gpus_are_read(tmp_path):
    csv = tmp_path / "ids64.csv"
    gpu_ids_csv(csv, 64, rows_per_gpu=3)
    p = report(csv, "--json", "-")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert sorted(g["uuid"] for g in s["gpus"]) == [f"GPU-{i:08d}" for i in range(64)]
    assert all(g["rows"] == 3 for g in s["gpus"])
    csv65 = tmp_path / "ids65.csv"
    gpu_ids_csv(csv65, 65)
    p = report(csv65)
    assert p.returncode == 1 and "more than 64 GPUs (line 66 adds 'GPU-00000064')" in p.stderr

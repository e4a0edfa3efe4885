"""Issue 25: real logs read right or refused with a reason that names the shape and the fix;
never a merged GPU, never a silently dropped row range. The public logs under
tests/data/public-logs/ (provenance in its README) were collected from GitHub repositories; the
others are written here in the exact output format of the tool named (said per test)."""
import csv
import json
import os
import subprocess
from pathlib import Path

from conftest import gw, h200

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")
DATA = Path(os.environ.get("GPUWATCH_SOURCE", ".")) / "tests" / "data" / "public-logs"


def started(text, gpus, start):
    """The report's header (issue 27: two lines within 80 columns): "gpuwatch report: GPUS, D s"
    and the times under it."""
    head, times = text.splitlines()[:2]
    return head.startswith(f"gpuwatch report: {gpus}, ") and times.startswith("  " + start)


def report(*args):
    return subprocess.run([BIN, "report", *map(str, args)], capture_output=True, text=True,
                          env=ENV)


def summary(*args):
    p = report(*args, "--json", "-")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def refused(p, *said):
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert p.stdout == ""
    err = p.stderr.strip()
    assert len(err.splitlines()) == 1, err
    for s in said:
        assert s in err, err
    return err


# ---- nvidia-smi -l: the table repeated (public logs) ------------------------------------------


def test_nvidia_smi_l_slurm_l40s():
    """guanqun-yang/SlurmMWE gpu_usage.log: `nvidia-smi -l` on an L40S, snapshots a minute apart,
    then several per second (its time line counts seconds)."""
    s = summary(DATA / "slurmmwe-l40s-nvidia-smi-l.log")
    assert len(s["gpus"]) == 1
    g = s["gpus"][0]
    assert g["name"] == "NVIDIA L40S"
    st = g["stats"]
    assert st["utilization.gpu [%]"]["max"] == 100 and st["utilization.gpu [%]"]["min"] == 0
    assert st["memory.used [MiB]"]["max"] == 11950
    assert st["power.draw [W]"]["max"] == 308
    note = s["inputs"][0]["note"]
    assert "read as `nvidia-smi` table snapshots (18, 18 GPU rows, 3 process rows)" in note
    assert "52 snapshots in a second already read skipped" in note  # counted and said
    text = report(DATA / "slurmmwe-l40s-nvidia-smi-l.log").stdout
    assert started(text, "1 GPU", "2024-10-29T19:00:23.000Z")


def test_nvidia_smi_loop_with_date_lines_rtx8000():
    """Zeesh-an/Grouped_eRAG gpu_usage.log: `date; nvidia-smi` in a loop ("==== date ====" lines
    between the tables): every snapshot read, its process table too."""
    s = summary(DATA / "grouped-erag-rtx8000-nvidia-smi-loop.log")
    g = s["gpus"][0]
    assert len(s["gpus"]) == 1 and g["name"] == "Quadro RTX 8000"
    assert g["stats"]["utilization.gpu [%]"]["n"] == 105
    assert g["stats"]["memory.used [MiB]"]["max"] == 1306
    assert g["stats"]["fan.speed [%]"]["min"] == 33
    assert "(105, 105 GPU rows, 86 process rows)" in s["inputs"][0]["note"]
    assert s["inputs"][0]["rows_skipped"] == 0


def test_pasted_tables_windows_laptop_and_linux_desktop():
    """Two pasted `nvidia-smi` outputs: a Windows laptop's MX250 (driver 419, indented in a
    markdown list, power N/A, the old process header) and a Linux RTX 3050 (driver 550, a shell
    prompt above, four processes)."""
    s = summary(DATA / "xuchaoxin-mx250-windows-419.txt")
    g = s["gpus"][0]
    assert g["name"] == "GeForce MX250" and g["pci_bus_id"] == "00000000:02:00.0"
    assert g["stats"]["memory.used [MiB]"]["max"] == 64
    assert g["stats"]["temperature.gpu"]["max"] == 38
    assert "power.draw [W]" not in g["stats"]  # N/A: absent, never 0
    s = summary(DATA / "asokolsky-rtx3050-550.txt")
    g = s["gpus"][0]
    assert g["name"] == "NVIDIA GeForce RTX 3050"
    assert g["stats"]["power.draw [W]"]["max"] == 25 and g["stats"]["fan.speed [%]"]["max"] == 0
    assert "(1, 1 GPU rows, 4 process rows)" in s["inputs"][0]["note"]


def test_pasted_table_with_a_doubled_rule(tmp_path):
    """A pasted table whose rule line was doubled ("||===", seen in a public README)."""
    text = (DATA / "asokolsky-rtx3050-550.txt").read_text().replace("|====", "||====", 1)
    f = tmp_path / "t.txt"
    f.write_text(text)
    assert summary(f)["gpus"][0]["stats"]["memory.used [MiB]"]["max"] == 520


def test_table_written_for_two_gpus_and_a_process(tmp_path):
    """Written here in driver 550's exact layout (two GPUs, one process, old-style rows without
    GI/CI): each GPU its own, the process on GPU 1."""
    rule = "+-----------------------------------------+------------------------+----------------------+"
    snap = []
    for k, t in enumerate(["Tue Nov  5 14:03:01 2024", "Tue Nov  5 14:03:02 2024"]):
        snap += [t + "       ",
                 "+-----------------------------------------------------------------------------------------+",
                 "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
                 "|-----------------------------------------+------------------------+----------------------+",
                 "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
                 "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
                 "|                                         |                        |               MIG M. |",
                 "|=========================================+========================+======================|",
                 "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |",
                 "| N/A   30C    P0             70W /  700W |       4MiB /  81559MiB |      0%      Default |",
                 "|                                         |                        |             Disabled |",
                 rule,
                 "|   1  NVIDIA H100 80GB HBM3          On  |   00000000:2A:00.0 Off |                    0 |",
                 f"| N/A   61C    P0            {650 + k}W /  700W |   71234MiB /  81559MiB |     99%      Default |",
                 "|                                         |                        |             Disabled |",
                 rule, "",
                 "+-----------------------------------------------------------------------------------------+",
                 "| Processes:                                                                              |",
                 "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
                 "|        ID   ID                                                               Usage      |",
                 "|=========================================================================================|",
                 "|    1   N/A  N/A    123456      C   /usr/bin/python3                            71220MiB |",
                 "+-----------------------------------------------------------------------------------------+"]
    f = tmp_path / "smi.log"
    f.write_text("\n".join(snap) + "\n")
    s = summary(f)
    assert [g["index"] for g in s["gpus"]] == [0, 1]
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["max"] == 0
    assert s["gpus"][1]["stats"]["utilization.gpu [%]"]["min"] == 99
    assert s["gpus"][1]["stats"]["power.draw [W]"]["max"] == 651
    assert s["gpus"][1]["pci_bus_id"] == "00000000:2A:00.0"
    assert "2 process rows" in s["inputs"][0]["note"]


def test_table_then_csv_rows_keeps_the_rows(tmp_path):
    """`nvidia-smi; nvidia-smi --query-gpu=... --format=csv -l 1` into one file: the rows are
    read, the table skipped and said (lines counted)."""
    table = (DATA / "slurmmwe-l40s-nvidia-smi-l.log").read_text().splitlines()[:20]
    rows = ["timestamp, index, utilization.gpu [%], memory.used [MiB]"]
    rows += [f"2024/10/29 19:20:{i:02d}.000, 0, 93 %, 11950 MiB" for i in range(40)]
    f = tmp_path / "mixed.log"
    f.write_text("\n".join(table + rows) + "\n")
    s = summary(f)
    assert s["inputs"][0]["rows"] == 40
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["mean"] == 93
    assert "lines of `nvidia-smi` tables (1 snapshots) and text between lines 1 and 20 skipped" \
        in s["inputs"][0]["note"]


# ---- never a merged GPU -------------------------------------------------------------------------


def test_gpu_column_beside_index_zero_is_eight_gpus(tmp_path):
    """A logger's `gpu` column numbers 8 H100s while nvidia-smi's index is 0 on every row (it ran
    with -i per GPU): 8 GPUs, never one averaged."""
    rows = ["timestamp, gpu, index, name, utilization.gpu [%], memory.used [MiB]"]
    for i in range(120):
        for g in range(8):
            rows.append(f"2025/03/01 10:{i // 60:02d}:{i % 60:02d}.{100 + g:03d}, {g}, 0, "
                        f"NVIDIA H100 80GB HBM3, {90 if g < 4 else 0} %, "
                        f"{30000 if g < 4 else 2} MiB")
    f = tmp_path / "h100x8.csv"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    assert [g["index"] for g in s["gpus"]] == list(range(8))
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["min"] == 90
    assert s["gpus"][7]["stats"]["utilization.gpu [%]"]["max"] == 0
    assert "columns ignored: gpu" not in s["inputs"][0]["note"]
    assert "GPUs told apart by index and the second id column" in s["inputs"][0]["note"]


def test_two_rows_of_one_gpu_at_one_time_are_refused(tmp_path):
    rows = ["timestamp, index, utilization.gpu [%], memory.used [MiB]"]
    for i in range(30):
        rows += [f"2025/03/01 10:00:{i:02d}.100, 0, 90 %, 3000 MiB",
                 f"2025/03/01 10:00:{i:02d}.100, 0, 0 %, 10 MiB"]
    f = tmp_path / "merged.csv"
    f.write_text("\n".join(rows) + "\n")
    refused(report(f), "lines 2 and 3 are two different rows for GPU '0' at one time",
            "uuid")


def test_a_row_repeated_verbatim_is_counted(tmp_path):
    rows = ["timestamp, index, utilization.gpu [%]"]
    for i in range(30):
        rows += [f"2025/03/01 10:00:{i:02d}.100, 0, 90 %"] * (2 if i == 5 else 1)
    f = tmp_path / "dup.csv"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    assert s["inputs"][0]["rows"] == 30 and s["inputs"][0]["rows_skipped"] == 0  # not unreadable
    assert "1 rows repeated verbatim skipped" in s["inputs"][0]["note"]  # but said


def test_whole_second_times_sampled_faster_keep_the_first_row(tmp_path):
    """A logger's `date '+%F %T'` beside nvidia-smi polled every 0.5 s: two rows of GPU 0 per
    second. The first is kept, the second skipped and said, never averaged."""
    rows = ["time,index,gpu_util,mem_used"]
    rows += [f"2025-03-01 10:00:{i // 2 % 60:02d},0,{90 + i % 2},3000" for i in range(120)]
    f = tmp_path / "halfsec.csv"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    assert s["inputs"][0]["rows"] == 60
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["max"] == 90
    assert "60 rows for a GPU in a second it already had skipped" in s["inputs"][0]["note"]


def test_jittered_rows_of_one_poll_are_grouped(tmp_path):
    """nvidia-smi stamps each GPU's row of one poll ~1 ms after the previous one (seen on 8-GPU
    nodes); without an id column they are grouped by poll, not taken as one GPU."""
    rows = ["timestamp, utilization.gpu [%], memory.used [MiB], memory.total [MiB]"]
    for i in range(60):
        for g in range(4):
            rows.append(f"2025/03/01 10:00:{i:02d}.{101 + g:03d}, {95 if g < 2 else 0} %, "
                        f"{40000 if g < 2 else 3} MiB, 81559 MiB")
    f = tmp_path / "jitter.csv"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    assert len(s["gpus"]) == 4
    assert s["gpus"][1]["stats"]["utilization.gpu [%]"]["min"] == 95
    assert s["gpus"][2]["stats"]["utilization.gpu [%]"]["max"] == 0
    assert "rows stamped within 10 ms of each other taken as one poll" in s["inputs"][0]["note"]


# ---- RFC 4180 CSV -------------------------------------------------------------------------------


def test_rfc4180_quoted_cells(tmp_path):
    """Python's csv writer: a quoted name with a comma and a quote, a quoted note with a line
    break. Every row is read."""
    f = tmp_path / "py.csv"
    with f.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["timestamp", "index", "name", "utilization.gpu [%]", "memory.used [MiB]",
                    "note"])
        for i in range(135):
            w.writerow([f"2025/03/01 10:{i // 60:02d}:{i % 60:02d}.000", 0,
                        'NVIDIA A100-SXM4-40GB, rev "B"', 90, 3000,
                        "epoch 1\nstep 2" if i % 10 == 0 else "ok, fine"])
    s = summary(f)
    assert s["inputs"][0]["rows"] == 135 and s["inputs"][0]["rows_skipped"] == 0
    assert s["gpus"][0]["name"] == 'NVIDIA A100-SXM4-40GB, rev "B"'
    assert "14 line breaks inside quoted cells joined" in s["inputs"][0]["note"]


def test_query_quotes_a_name_with_a_comma_and_report_reads_it(scenario, tmp_path):
    sc = scenario({"devices": [h200(name="NVIDIA H200, NVL")]})
    r = gw(["query", "--query-gpu=timestamp,index,name,utilization.gpu", "--format=csv"], sc)
    assert r.returncode == 0, r.stderr
    assert '"NVIDIA H200, NVL"' in r.stdout.splitlines()[1]
    f = tmp_path / "q.csv"
    f.write_text(r.stdout)
    s = summary(f)
    assert s["gpus"][0]["name"] == "NVIDIA H200, NVL"


# ---- dmon ---------------------------------------------------------------------------------------


def test_dmon_format_csv_with_date_and_time(tmp_path):
    """`nvidia-smi dmon --format csv -o DT` (written here: its '#' header and units lines, cells
    separated by ', ')."""
    lines = ["#Date, Time, gpu, pwr, gtemp, mtemp, sm, mem, enc, dec, jpg, ofa, mclk, pclk",
             "#YYYYMMDD, HH:MM:SS, Idx, W, C, C, %, %, %, %, %, %, MHz, MHz"]
    for i in range(60):
        lines.append(f"20240124, 10:11:{i:02d}, 0, 250, 45, -, 95, 30, 0, 0, 0, 0, 2619, 1980")
        lines.append(f"20240124, 10:11:{i:02d}, 1, 60, 35, -, 0, 0, 0, 0, 0, 0, 2619, 345")
    f = tmp_path / "dmon.csv"
    f.write_text("\n".join(lines) + "\n")
    s = summary(f)
    assert [g["index"] for g in s["gpus"]] == [0, 1]
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["mean"] == 95
    assert s["gpus"][1]["stats"]["power.draw [W]"]["mean"] == 60
    assert s["inputs"][0]["dateless"] is False
    assert "temperature.memory" not in s["gpus"][0]["stats"]


def test_dmon_o_td_public_a10():
    """XueSongTap/XueSongTap.github.io: `nvidia-smi dmon -i 0 -s mutc -d 1 -o TD` on an A10, as
    pasted (a blank line after the first row, a space at the end of every line)."""
    s = summary(DATA / "xuesongtap-a10-dmon-s-mutc-o-TD.txt")
    assert len(s["gpus"]) == 1
    g = s["gpus"][0]
    assert g["stats"]["memory.used [MiB]"]["max"] == 478
    assert g["stats"]["utilization.gpu [%]"]["max"] == 13
    assert g["stats"]["clocks.current.graphics [MHz]"]["min"] == 1695
    assert s["inputs"][0]["dateless"] is False and s["inputs"][0]["rows"] == 6


def test_lms_query_of_four_a10s_without_index_public():
    """The same page: `nvidia-smi -lms --query-gpu=timestamp,pstate,...` on a node of four A10s
    (its `nvidia-smi topo -m` lists GPU0-GPU3), no index column: nvidia-smi stamped the four GPUs
    of one poll 4-5 ms apart. Four GPUs, never one."""
    s = summary(DATA / "xuesongtap-a10x4-lms-query.csv")
    assert len(s["gpus"]) == 4
    assert [g["stats"]["memory.used [MiB]"]["max"] for g in s["gpus"]] == [21, 7, 7, 7]
    assert s["gpus"][0]["stats"]["memory.used [MiB]"]["n"] == 2  # the next poll's first row
    assert "taken as one poll of several GPUs" in s["inputs"][0]["note"]


# ---- what new users give it ---------------------------------------------------------------------


def make_run(d, rows=40):
    d.mkdir(parents=True)
    lines = ["timestamp, index, utilization.gpu [%], memory.used [MiB]"]
    lines += [f"2025/03/01 10:00:{i:02d}.000, 0, 90 %, 3000 MiB" for i in range(rows)]
    (d / "gpu.csv").write_text("\n".join(lines) + "\n")
    (d / "host.csv").write_text("timestamp, host.cpu_util [%]\n")
    (d / "output.log").write_text("epoch 1\n")


def test_parent_of_runs_lists_them(tmp_path):
    make_run(tmp_path / "runs" / "20261201-100000-a")
    make_run(tmp_path / "runs" / "20261201-110000-b")
    err = refused(report(tmp_path / "runs"), "a directory of 2 gpuwatch runs",
                  "20261201-100000-a", "--fleet")
    assert "No such file" not in err


def test_run_parts_name_the_run_directory(tmp_path):
    run = tmp_path / "runs" / "r1"
    make_run(run)
    refused(report(run / "host.csv"), "the CPU side of a gpuwatch run",
            f"`gpuwatch report {run}`")
    err = refused(report(run / "output.log"), "the job's output of a gpuwatch run")
    assert "--columns" not in err


def test_capture_directory_names_its_files(tmp_path):
    cap = tmp_path / "capture"
    cap.mkdir()
    (cap / "gpu.log").write_text("x\n")
    refused(report(cap), "not a gpuwatch run directory (no gpu.csv) but 1 files (gpu.log)",
            f"gpuwatch report {cap}/gpu.log")


def test_log_that_misses_the_gpu_times_is_refused(tmp_path):
    make_run(tmp_path / "r")
    log = tmp_path / "train.log"
    log.write_text("2025-03-02 10:00:00 epoch 1/3 loss 0.5\n2025-03-02 10:00:30 epoch 2/3\n")
    refused(report(tmp_path / "r" / "gpu.csv", "--log", log),
            "do not overlap the GPU log's (2025-03-01T10:00:00.000Z to")


# ---- idle_holding_memory: the biggest waste named, every stretch counted -----------------------


def test_idle_holding_ranks_by_memory_time_and_fleet_counts_all(tmp_path):
    """The issue's shape at a smaller scale: 3 min idle at 33 GB, 27 min idle at 22 GB, then
    54 min idle at 1.5 GB after the job. The verdict names the 27 min (the largest memory-time),
    counts all three, and `report --fleet` counts all of their idle time."""
    rows = ["timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]"]
    spans = [(600, 95, 40000), (180, 0, 33000), (600, 95, 40000), (1620, 0, 22000),
             (600, 95, 40000), (3240, 0, 1500)]
    t = 0
    for n, util, mem in spans:
        for _ in range(n // 10):
            rows.append(f"2026/01/05 {t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}.000, 0, "
                        f"{util} %, {mem} MiB, 81559 MiB")
            t += 10
    f = tmp_path / "idle.csv"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    v = next(v for v in s["verdicts"] if v["id"] == "idle_holding_memory")
    e = v["evidence"]
    assert e["memory_held_mib"] == 22000 and e["idle_s"] == 1620
    assert e["stretches"] == 3 and e["idle_total_s"] == 180 + 1620 + 3240
    assert abs(e["held_gib_hours"] - 22000 * 1620 / 1024 / 3600) < 0.01
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / "1.json").write_text(json.dumps(s))
    p = subprocess.run([BIN, "report", "--fleet", jobs, "--json", "-"], capture_output=True,
                       text=True, env=ENV)
    assert p.returncode == 0, p.stderr
    fl = json.loads(p.stdout)
    idle_h = fl["users"][0]["hours"]["idle_holding_memory"]
    assert abs(idle_h - (180 + 1620 + 3240) / 3600) < 0.01, fl["users"][0]


def test_memory_total_of_two_to_the_30_mib_is_absent(scenario, tmp_path):
    """A container's NVML reported memory.total = 1073741824 MiB (2^30, above the field's bound
    of 1e9 MiB): meta.json and summary.json keep it absent, and a run written before this fix is
    read back with it absent too."""
    sc = scenario({"devices": [h200(memory_total_mib=1 << 30)]})
    out = tmp_path / "run"
    r = gw(["run", "-o", out, "-i", "0.2", "--", "sleep", "1"], sc)
    assert r.returncode == 0, r.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["devices"][0].get("memory_total_mib") is None, meta["devices"][0]
    summ = json.loads((out / "summary.json").read_text())
    assert summ["gpus"][0].get("memory_total_mib") is None, summ["gpus"][0]
    meta["devices"][0]["memory_total_mib"] = 1 << 30  # an older run's meta.json
    (out / "meta.json").write_text(json.dumps(meta))
    s = summary(out)
    assert s["gpus"][0].get("memory_total_mib") is None
    assert "1073741824" not in report(out).stdout


def test_seed_article_logger_two_gpus_stamped_apart(tmp_path):
    """The seed article's logger (`echo "$(date),$(nvidia-smi --query-gpu=timestamp,name,... \
--format=csv,noheader,nounits)"`) on two GPUs: only the first GPU's line gets the date, and
    nvidia-smi stamps the second 1 ms later. Two GPUs, the busy one never averaged with the idle."""
    rows = ["timestamp,gpu_name,util_gpu,util_mem,mem_used,mem_total"]
    for i in range(60):
        t = f"10:{i * 5 // 60:02d}:{i * 5 % 60:02d}"
        rows.append(f"2024-05-01 {t},2024/05/01 {t}.{123 + i % 3:03d}, NVIDIA H100 80GB HBM3, "
                    "45, 12, 30000, 81559")
        rows.append(f"2024/05/01 {t}.{124 + i % 3:03d}, NVIDIA H100 80GB HBM3, 0, 0, 1, 81559")
    f = tmp_path / "gpu_monitor.log"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    assert len(s["gpus"]) == 2
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["min"] == 45
    assert s["gpus"][1]["stats"]["utilization.gpu [%]"]["max"] == 0


def test_a_fast_poll_of_one_gpu_is_not_taken_for_several(tmp_path):
    """Rows 8 ms apart throughout (-lms 8 on one GPU): no poll can be told apart, refused rather
    than split into 64 GPUs."""
    rows = ["timestamp, utilization.gpu [%], memory.used [MiB]"]
    rows += [f"2025/03/01 10:00:{i * 8 // 1000:02d}.{i * 8 % 1000:03d}, 90 %, 3000 MiB"
             for i in range(200)]
    f = tmp_path / "fast.csv"
    f.write_text("\n".join(rows) + "\n")
    refused(report(f), "rows stamped up to 8 ms apart and no longer step between polls",
            "add index")


def test_table_process_names_the_idle_holder(tmp_path):
    """`nvidia-smi -l 1` (driver 550's layout, written here): busy for 60 s, then idle holding
    71 GB; the verdict names the process from the tables' process rows."""
    rule = "+-----------------------------------------+------------------------+----------------------+"
    wide = "+-----------------------------------------------------------------------------------------+"
    out = []
    for k in range(200):
        out += [f"Tue Nov  5 14:{k // 60:02d}:{k % 60:02d} 2024       ", wide,
                "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
                "|-----------------------------------------+------------------------+----------------------+",
                "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
                "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
                "|                                         |                        |               MIG M. |",
                "|=========================================+========================+======================|",
                "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |",
                f"| N/A   61C    P0            650W /  700W |   71234MiB /  81559MiB |    "
                f"{99 if k < 60 else 0:3d}%      Default |",
                "|                                         |                        |             Disabled |",
                rule, "", wide,
                "| Processes:                                                                              |",
                "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
                "|        ID   ID                                                               Usage      |",
                "|=========================================================================================|",
                "|    0   N/A  N/A    123456      C   /usr/bin/python3                            71220MiB |",
                wide]
    f = tmp_path / "smi-l.log"
    f.write_text("\n".join(out) + "\n")
    s = summary(f)
    v = next(v for v in s["verdicts"] if v["id"] == "idle_holding_memory")
    assert v["evidence"]["holder"] == "/usr/bin/python3 (pid 123456)"
    assert v["evidence"]["idle_s"] == 140 and v["evidence"]["memory_held_mib"] == 71234


def test_capture_bundles_are_named(tmp_path):
    """What a capture bundle arrives as: compressed or archived, or nvidia-bug-report.sh's log
    (its first lines as the script writes them)."""
    import gzip
    import tarfile
    rows = "timestamp, index, utilization.gpu [%]\n2025/03/01 10:00:00.000, 0, 90 %\n"
    (tmp_path / "gpu.csv").write_text(rows)
    (tmp_path / "gpu.csv.gz").write_bytes(gzip.compress(rows.encode()))
    refused(report(tmp_path / "gpu.csv.gz"), "a gzip-compressed file (`gunzip -k` it")
    with tarfile.open(tmp_path / "capture.tar", "w") as t:
        t.add(tmp_path / "gpu.csv", arcname="gpu.csv")
    refused(report(tmp_path / "capture.tar"), "a tar archive (extract it")
    bug = tmp_path / "nvidia-bug-report.log"
    bug.write_text("____________________________________________\n\nStart of NVIDIA bug report log "
                   "file.  Mail this file to:\nlinux-bugs@nvidia.com\n")
    refused(report(bug), "an `nvidia-bug-report.sh` log")


def test_gpustat_screens(tmp_path):
    """`gpustat -i 1 --show-power -p --color > FILE` (written here in gpustat 1.1's layout, the
    lines as in a public training note: "[0] NVIDIA H100 80GB HBM3 | 68°C,  99 % | 56072 / 81559 MB
    | exouser(56030M)"; colour escapes and screen clears kept): 4 GPUs, two of them idle for the
    last 110 s while holding memory, named with their process."""
    out = []
    for k in range(200):
        out.append(f"\x1b[H\x1b[2Jimagenet1k                Thu Feb  5 19:{48 + (33 + k) // 60:02d}:"
                   f"{(33 + k) % 60:02d} 2026  580.126.09")
        for g in range(4):
            u = 99 if (k < 90 or g < 2) else 0
            out.append(f"\x1b[36m[{g}]\x1b[0m \x1b[34mNVIDIA H100 80GB HBM3\x1b[0m | "
                       f"\x1b[31m{68 + g}°C\x1b[0m, \x1b[32m{u:3d} %\x1b[0m,  "
                       f"{650 if u else 90:3d} / 700 W | \x1b[33m56072\x1b[0m / "
                       f"\x1b[33m81559\x1b[0m MB | exouser:python/{4242 + g}(56030M)")
    f = tmp_path / "gpustat.log"
    f.write_text("\n".join(out) + "\n")
    s = summary(f)
    assert [g["index"] for g in s["gpus"]] == [0, 1, 2, 3]
    g3 = s["gpus"][3]
    assert g3["name"] == "NVIDIA H100 80GB HBM3"
    assert g3["stats"]["temperature.gpu"]["max"] == 71
    assert g3["stats"]["power.draw [W]"]["min"] == 90
    assert g3["stats"]["memory.used [MiB]"]["max"] == 56072
    assert "read as `gpustat` screens (200, 800 GPU lines, 800 processes with a pid)" in \
        s["inputs"][0]["note"]
    v = [v for v in s["verdicts"] if v["id"] == "idle_holding_memory"]
    assert [x["gpu"] for x in v] == [2, 3]
    assert v[1]["evidence"]["holder"] == "python (pid 4245)"


def test_gpustat_without_header_lines(tmp_path):
    lines = ["[0] NVIDIA A100-SXM4-40GB | 41'C,  97 % | 30000 / 40960 MB | alice(29990M)"] * 30
    f = tmp_path / "gs.txt"
    f.write_text("\n".join(lines) + "\n")
    s = summary(f)
    assert s["inputs"][0]["dateless"] is True
    assert s["gpus"][0]["stats"]["utilization.gpu [%]"]["mean"] == 97
    assert s["gpus"][0]["stats"]["temperature.gpu"]["mean"] == 41


def test_table_log_cut_at_the_start_and_a_time_line_lost(tmp_path):
    """The public L40S log cut mid-snapshot at its start (the first time line lost) and a later
    time line missing: the first snapshot is skipped (no time), the later one placed one interval
    after its predecessor; both said, the times stay in order."""
    lines = (DATA / "slurmmwe-l40s-nvidia-smi-l.log").read_text().splitlines()[1:]
    del lines[39]
    f = tmp_path / "cut.log"
    f.write_text("\n".join(lines[:200]) + "\n")
    s = summary(f)
    note = s["inputs"][0]["note"]
    assert "1 snapshots without their time line placed one interval after" in note
    assert "1 snapshots in a second already read skipped" in note
    assert s["inputs"][0]["rows"] == 9
    assert started(report(f).stdout, "1 GPU", "2024-10-29T19:01:23.000Z")


def test_gpustat_cut_at_the_start(tmp_path):
    """A gpustat log whose first screen lost its header: those GPU lines have no time, skipped
    and said; the rest read in order."""
    out = []
    for k in range(40):
        out.append(f"node1  Thu Feb  5 19:48:{k:02d} 2026  580.126.09")
        out += [f"[{g}] NVIDIA H100 80GB HBM3 | 60°C,  99 % | 56072 / 81559 MB |" for g in range(2)]
    f = tmp_path / "cut.log"
    f.write_text("\n".join(out[2:]) + "\n")
    s = summary(f)
    assert s["inputs"][0]["rows"] == 78
    assert "1 GPU lines before the first header (no time) skipped" in s["inputs"][0]["note"]
    assert started(report(f).stdout, "2 GPUs", "2026-02-05T19:48:01.000Z")


def test_gpu_column_holding_the_name_beside_index(tmp_path):
    """A public profiling script writes `echo "timestamp,gpu,index,memory_used_mib,..."` as its
    header, then `$(date --iso-8601=seconds),$(nvidia-smi --query-gpu=name,index,memory.used,
    memory.total,utilization.gpu --format=csv,noheader,nounits)` per GPU (written here in that
    shape): its `gpu` column holds the name. 8 GPUs by index, named, none merged."""
    rows = ["timestamp,gpu,index,memory_used_mib,memory_total_mib,utilization_gpu_pct"]
    for i in range(120):
        for g in range(8):
            rows.append(f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}+00:00,NVIDIA H100 80GB HBM3, {g}, "
                        f"{60000 if g < 4 else 3}, 81559, {95 if g < 4 else 0}")
    f = tmp_path / "resource_monitor.csv"
    f.write_text("\n".join(rows) + "\n")
    s = summary(f)
    assert [g["index"] for g in s["gpus"]] == list(range(8))
    assert {g["name"] for g in s["gpus"]} == {"NVIDIA H100 80GB HBM3"}
    assert s["gpus"][3]["stats"]["utilization.gpu [%]"]["min"] == 95
    assert s["gpus"][4]["stats"]["utilization.gpu [%]"]["max"] == 0
    assert "gpu -> a second GPU id (or the name)" in s["inputs"][0]["note"]


def test_nvidia_smi_q_public_report():
    """Jesse3692/MultiLanguageLearning: `nvidia-smi -q -i 0` of a Windows laptop's RTX 4070
    (driver 566.36): one report read, N/A readings absent."""
    s = summary(DATA / "jesse3692-rtx4070-laptop-nvidia-smi-q.txt")
    g = s["gpus"][0]
    assert g["name"] == "NVIDIA GeForce RTX 4070 Laptop GPU"
    assert g["uuid"] == "GPU-1b724e78-eef5-4163-d43c-e4da15d41176"
    st = g["stats"]
    assert st["memory.total [MiB]"]["max"] == 8188 and st["memory.used [MiB]"]["max"] == 0
    assert st["power.draw [W]"]["max"] == 1.97 and st["power.limit [W]"]["max"] == 61.24
    assert st["temperature.gpu"]["max"] == 42 and st["clocks.current.sm [MHz]"]["max"] == 210
    assert "fan.speed [%]" not in st and "temperature.memory" not in st  # N/A: absent


def test_nvidia_smi_q_l_reports_with_processes(tmp_path):
    """`nvidia-smi -q -l 1` (the public report above repeated, as -l writes it, with the
    Processes section a busy Linux GPU prints): every report read, its process named."""
    one = (DATA / "jesse3692-rtx4070-laptop-nvidia-smi-q.txt").read_text()
    procs = ("    Processes\n"
             "        GPU instance ID                   : N/A\n"
             "        Compute instance ID               : N/A\n"
             "        Process ID                        : 4242\n"
             "            Type                          : C\n"
             "            Name                          : python3\n"
             "            Used GPU Memory               : 7000 MiB\n")
    out = []
    for k in range(90):
        r = one.replace("Thu Jan 30 16:14:43 2025", f"Thu Jan 30 16:{15 + k // 60:02d}:{k % 60:02d} 2025")
        r = r.replace("        Gpu                               : 0 %",
                      f"        Gpu                               : {97 if k < 60 else 0} %")
        r = r.replace("        Used                              : 0 MiB",
                      "        Used                              : 7100 MiB")
        out.append(r.replace("    Processes                             : None\n", procs))
    f = tmp_path / "q-l.log"
    f.write_text("\n".join(out))
    s = summary(f)
    g = s["gpus"][0]
    assert g["stats"]["utilization.gpu [%]"]["n"] == 90
    assert g["stats"]["utilization.gpu [%]"]["max"] == 97
    assert "(90, 90 GPU blocks, 90 processes)" in s["inputs"][0]["note"]
    assert started(report(f).stdout, "1 GPU", "2025-01-30T16:15:00.000Z")

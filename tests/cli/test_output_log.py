"""`gpuwatch log` (issue 14, item 3): the job's output.log as a person reads it, each bar's redraws
collapsed to its last state, each line with its time from output.idx. Replayed on the real YOLOv9
H200 recording (examples/recordings/h200-yolov9-3epochs) and on small logs written here."""
import datetime
import subprocess

from conftest import GW, SOURCE

YOLO = SOURCE / "examples" / "recordings" / "h200-yolov9-3epochs"
BAR = "\u2588" * 10


def log(*args):
    return subprocess.run([GW, "log", *map(str, args)], capture_output=True, text=True,
                          timeout=60, env={"TZ": "UTC", "NO_COLOR": "1"})


def test_yolov9_bars_collapse_to_their_last_state_with_their_times():
    r = log(YOLO)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = r.stdout.split("\n")
    assert lines[-1] == "" and len(lines) - 1 == 89  # one line per line of output.log
    assert all("\r" not in line and "\x1b" not in line for line in lines)
    train = [line for line in lines if ": 100%|" in line and "38/38" in line]
    assert train == [
        f"2026-12-01T15:10:11.170Z          0/2      31.1G      4.865      5.543        5.6"
        f"        265        640: 100%|{BAR}| 38/38 00:20",
        f"2026-12-01T15:10:31.611Z          1/2      34.8G      4.842      5.271      5.468"
        f"        336        640: 100%|{BAR}| 38/38 00:16",
        f"2026-12-01T15:10:49.430Z          2/2      34.8G      4.311      5.099      5.251"
        f"        122        640: 100%|{BAR}| 38/38 00:15",
    ]
    head = "                 Class     Images  Instances          P          R      mAP50   mAP50-95:"
    val = [line for line in lines if "Class     Images" in line]
    assert val == [f"{t}  {head} 100%|{BAR}| 2/2 00:0{s}" for t, s in (
        ("2026-12-01T15:10:13.124Z", 1), ("2026-12-01T15:10:32.442Z", 0),
        ("2026-12-01T15:10:50.206Z", 0), ("2026-12-01T15:10:53.858Z", 0))]
    assert lines[0] == ("2026-12-01T15:09:37.310Z  synthetic data set: 2400 train, 200 val "
                        "images in /tmp/synth")
    assert lines[88] == "2026-12-01T15:10:53.922Z  Results saved to /tmp/yolov9-runs/w8b64"
    # the epochs' starts the report finds are the times of these lines
    assert "2026-12-01T15:10:15.182Z        Epoch    GPU_mem   box_loss" in r.stdout
    # --no-times: the lines alone, the same ones
    plain = log(YOLO / "output.log", "--no-times")
    assert plain.returncode == 0
    assert plain.stdout.split("\n") == [line[26:] for line in lines[:-1]] + [""]


def test_redraws_escapes_erased_bars_and_a_last_line(tmp_path):
    out = tmp_path / "output.log"
    data = (b"start\n"
            b"\r 10%|#   | 1/10\r 50%|#####     | 5/10\x1b[K\r100%|##########| 10/10\n"
            b"\r\x1b[32mgreen\x1b[0m\n"
            b"\n"
            b"\rerased  1/2\r          \r\n"  # leave=False: the last state still shows
            b"last without newline")
    out.write_bytes(data)
    idx = tmp_path / "output.idx"
    done, green = data.index(b"\r100%"), data.index(b"\r\x1b[32m")
    idx.write_text("# gpuwatch output index 1: OFFSET UNIX_MS a line\n"
                   f"0 1796137777000\n6 1796137778000\n{done} 1796137779500\n"
                   f"{green} 1796137781000\n")
    r = log(tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n") == [
        "2026-12-01T15:09:37.000Z  start",
        "2026-12-01T15:09:39.500Z  100%|##########| 10/10",
        "2026-12-01T15:09:41.000Z  green",
        "2026-12-01T15:09:41.000Z  ",
        "2026-12-01T15:09:41.000Z  erased  1/2",
        "2026-12-01T15:09:41.000Z  last without newline",
        ""]
    idx.unlink()  # a run recorded before output.idx: the lines, and a note why no times
    r = log(tmp_path)
    assert r.returncode == 0
    assert r.stdout.split("\n")[:2] == ["start", "100%|##########| 10/10"]
    assert r.stderr.count("\n") == 1 and "output.idx not found" in r.stderr


def test_errors_name_the_problem(tmp_path):
    r = log(tmp_path)  # a directory without output.log
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "not a run of `gpuwatch run`" in r.stderr
    r = log()  # usage errors: one line naming the fix
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "give one run directory or output.log: gpuwatch log RUN_DIR" in r.stderr
    r = log(YOLO, "--bogus")
    assert r.returncode == 2 and r.stderr == (
        "gpuwatch log: unknown option '--bogus' or missing value; see gpuwatch log --help\n")


def reference(data, entries):
    """The collapse rule of src/logread/outclean.h in plain Python (no escapes in data): each
    line's last non-blank redraw, at the time of the entry covering its last byte."""
    def ms_at(pos):
        ms = entries[0][1]
        for off, t in entries[1:]:
            if off > pos:
                break
            ms = t
        return ms

    out, start = [], 0
    while start < len(data):
        nl = data.find(b"\n", start)
        end = nl if nl >= 0 else len(data)
        keep, keep_end, seg_start = b"", None, start
        for part in data[start:end].split(b"\r"):
            if part.strip(b" \t"):
                keep, keep_end = part, seg_start + len(part) - 1
            seg_start += len(part) + 1
        t = ms_at(keep_end if keep_end is not None else end)
        out.append((t, keep.decode()))
        start = end + 1
    return out


def test_big_log_with_an_entry_per_redraw_matches_the_rule(tmp_path):
    """Bars across the 64 KiB read chunks, an output.idx entry per redraw (as `gpuwatch run`
    writes them, looked up by bisection), entries at one offset twice, a CRLF entry, comments,
    junk and an overlong line amid them, a last entry without line end: every line and time as
    the rule says."""
    data, entries, ms = bytearray(), [], 1796137777000
    for bar in range(100):
        for step in range(60):
            entries.append((len(data), ms))
            data += f"bar {bar:02d} {'#' * (step % 30):<30}| {step}/59".encode()
            data += b"\n" if step == 59 else b"\r"
            ms += 37
        data += b"   \r\n"  # a line of blank redraws: the time of its line end
    entries.append((len(data) - 3, ms))
    idx = ["# gpuwatch output index 1: OFFSET UNIX_MS a line", "#" + "x" * 100000]
    for i, (off, t) in enumerate(entries):
        idx.append(f"{off} {t}" + ("\r" if i == 500 else ""))
        if i == 900:
            idx.append(f"{off} {t}")  # the same entry twice
        if i in (1500, 4000):
            idx += ["# a comment", "junk that is no entry"]
    (tmp_path / "output.log").write_bytes(bytes(data))
    (tmp_path / "output.idx").write_text("\n".join(idx))  # no line end after the last
    assert len(data) > 3 * 65536
    r = log(tmp_path)
    assert r.returncode == 0, r.stderr
    want = reference(bytes(data), entries)
    assert len(want) == 200
    got = r.stdout.split("\n")
    assert got[-1] == "" and len(got) - 1 == len(want)
    for line, (t, text) in zip(got, want):
        stamp = datetime.datetime.fromtimestamp(t / 1000, datetime.timezone.utc)
        assert line == stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t % 1000:03d}Z  {text}"

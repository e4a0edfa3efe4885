"""gpuwatch plot: PNG and SVG charts of recordings. The PNGs are decoded here (zlib and the PNG
filters, no imaging library) to check their size and that curves were drawn: pixels of each
axis' colour inside each panel, against a white background."""
import os
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from conftest import BUILD, DATA, SOURCE

GW = str(BUILD / "gpuwatch")
TRACES = DATA / "traces"
H200 = SOURCE / "examples" / "recordings" / "h200-resnet50-train"
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1")
RED, BLUE = (204, 38, 38), (31, 102, 191)  # left and right axis with one GPU (plot.c)


def plot(*args, rc=0):
    p = subprocess.run([GW, "plot", *map(str, args)], capture_output=True, text=True, env=ENV)
    assert p.returncode == rc, f"rc {p.returncode}: {p.stderr}"
    return p


def read_png(path):
    """(width, height, rows of (r, g, b) bytes) of an 8-bit RGB or RGBA PNG."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3)))
        prev = line
    return w, h, rows


def count(rows, color, y0, y1, x0=80, x1=1120, tol=40):
    """Pixels within tol of color in rows [y0, y1), columns [x0, x1)."""
    n = 0
    for y in range(y0, y1):
        r = rows[y]
        for x in range(x0, x1):
            if all(abs(r[3 * x + k] - color[k]) <= tol for k in range(3)):
                n += 1
    return n


def test_default_png_of_the_h200_recording(tmp_path):
    out = tmp_path / "h200.png"
    plot(H200, "-o", out)
    w, h, rows = read_png(out)
    assert (w, h) == (1200, 800)  # two panels of 400
    white = count(rows, (255, 255, 255), 0, h, 0, w, tol=0)
    assert white > 0.6 * w * h  # a white background
    # temperature (red) + memory (blue, dashed and flat); util (red) + power (blue, dashed); the
    # rows checked lie below the reference lines (slowdown, total, limit: same colours, dotted)
    for top, blue in ((0, 100), (400, 400)):
        assert count(rows, RED, top + 150, top + 350) > 400, top
        assert count(rows, BLUE, top + 150, top + 350) > blue, top
    # text was drawn: dark pixels in the title row
    assert count(rows, (26, 26, 26), 5, 28, 78, 500, tol=60) > 200


def test_a_metric_without_data_draws_no_curve(tmp_path):
    # the nvidia-smi trace has no processes.csv: the panel says "not recorded", no curve at all
    out = tmp_path / "p.png"
    plot(TRACES / "compute_bound.nvsmi.csv", "-o", out, "--metrics", "procmem,cpu")
    w, h, rows = read_png(out)
    assert (w, h) == (1200, 400)
    assert count(rows, RED, 90, 350) == 0 and count(rows, BLUE, 90, 350) == 0
    out2 = tmp_path / "u.png"
    plot(TRACES / "compute_bound.nvsmi.csv", "-o", out2, "--metrics", "util,power", "--width", 800)
    w, h, rows = read_png(out2)
    assert (w, h) == (800, 400)
    assert count(rows, RED, 90, 350, 80, 720) > 300


def test_svg_and_several_gpus(tmp_path):
    run = tmp_path / "run"
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    import longrun
    longrun.generate(str(run), gpus=3, hours=0.2, hz=2)
    out = tmp_path / "c.svg"
    plot(run, "-o", out, "--metrics", "util,power,clock")
    svg = out.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    assert 'width="1200pt" height="800pt"' in svg or 'width="1200" height="800"' in svg
    assert svg.count("<path") > 20
    png = tmp_path / "c.png"
    plot(run, "-o", png, "--metrics", "util,power,clock")
    w, h, rows = read_png(png)
    # several GPUs: one colour per GPU (plot.c palette), GPU 0 blue, GPU 1 red, GPU 2 green
    for color in ((31, 120, 181), (214, 38, 41), (43, 161, 43)):
        assert count(rows, color, 90, 350, tol=25) > 100, color


@pytest.mark.parametrize("args,words", [
    (["-o", "x.pdf"], "must end in .png or .svg"),
    (["-o", "x.png", "--metrics", "temp,fan"], "unknown metric 'fan'"),
    (["-o", "x.png", "--width", "50"], "--width takes pixels"),
    ([], "no output"),
])
def test_usage_errors(args, words):
    p = plot(TRACES / "compute_bound.nvsmi.csv", *args, rc=2)
    assert words in p.stderr


def test_runtime_errors(tmp_path):
    p = plot(tmp_path / "missing.csv", "-o", tmp_path / "x.png", rc=1)
    assert "missing.csv" in p.stderr
    p = plot(TRACES / "compute_bound.nvsmi.csv", "-o", tmp_path / "no" / "x.png", rc=1)
    assert "cannot write" in p.stderr

#!/usr/bin/env python3
"""Mutation torture of the report's renderers, run by hand (not in CI; the libFuzzer harness in
fuzz/run.sh covers the reader): records a small run directory with the fake NVML library, then
for SECONDS plants hostile numbers, timestamps and strings in every file of a copy (gpu.csv,
host.csv, processes.csv, meta.json, events.jsonl, output.log) and runs `report` (text, --json -,
--json/--html files, with --log) and `plot` (PNG/SVG) on it. A problem is a sanitizer report, an
exit status other than 0/1/2, a hang (60 s), 'nan'/'inf'/an exponent in the text or the HTML
tables, a number beyond 1e15 or invalid JSON in summary.json, or a text line over 80 columns;
each kept as OUT/crashNNN/ with PROBLEMS. Issue 12's torture pass: 5,800 inputs, three defects.

    scripts/build.sh --asan
    fuzz/report_mutate.py build-asan/gpuwatch OUT [SECONDS=300] [SEED=1]

GW_MUTATE_KNOWN="a|b" skips problems containing a or b (the report's first line is wider than
80 columns today: GW_MUTATE_KNOWN="text >80: 'gpuwatch report")."""
import json, os, random, re, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.abspath(sys.argv[1])
OUT = os.path.abspath(sys.argv[2])
SECS = float(sys.argv[3]) if len(sys.argv) > 3 else 300
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 1
random.seed(SEED)
ENV = dict(os.environ, TZ="UTC", NO_COLOR="1", ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
BASE = os.path.join(OUT, "base")


def record_base():
    """A 4-second run of two simulated GPUs with epoch lines and a failing job."""
    fake = os.path.join(os.path.dirname(BIN), "fake-nvml", "libnvidia-ml.so.1")
    if not os.path.exists(fake):
        fake = os.path.join(HERE, "..", "build", "fake-nvml", "libnvidia-ml.so.1")
    env = dict(ENV, GPUWATCH_NVML_LIB=fake, GPUWATCH_SYSTEM_CONFIG="/nonexistent",
               XDG_CONFIG_HOME="/nonexistent",
               FAKE_NVML_SCENARIO=os.path.join(HERE, "..", "tests", "scenarios",
                                               "two_gpus_one_lost.json"))
    job = "for i in $(seq 1 30); do echo \"Epoch $i/30\"; sleep 0.1; done; exit 3"
    shutil.rmtree(BASE, ignore_errors=True)
    subprocess.run([BIN, "run", "-i", "0.1", "-o", BASE, "--no-report", "--", "sh", "-c", job],
                   env=env, capture_output=True, timeout=120)
    if not os.path.exists(os.path.join(BASE, "gpu.csv")):
        sys.exit("report_mutate: could not record the base run directory")


os.makedirs(OUT, exist_ok=True)
record_base()
NUMS = ["1e308", "-1e308", "1.7976931348623157e308", "1e309", "-1e400", "1e-320", "-0", "-0.0", "4.9e-324",
        "9223372036854775807", "-9223372036854775808", "18446744073709551616", "4294967295", "4294967296",
        "2147483648", "-2147483649", "999999999999999", "1e15", "1e16", "-1", "-1e15", "nan", "NaN", "inf", "-inf",
        "Infinity", "0x7fffffffffffffff", "0xffffffffffffffffff", "0x", "1e", "--1", "+", ".", "1.2.3", "1e+", "00000000000000000000000000000001",
        "9" * 400, "1" + "0" * 320, "0." + "0" * 400 + "1", "1e99999999999", "1,5", " 1 ", "\t5", "5\x00", "\xff\xfe", "5 MiB", "5 W", "[N/A]",
        "P99", "P-1", "P4294967296", "0x0000000000000001ffffffff", "2e9", "3.4e38", "65536", "255", "256", "-273.15", "1e-5"]
TS = ["2026-13-40T25:61:61.000Z", "9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z", "2026-11-30T03:22:23.578+99:99", "2026-11-30T23:59:60.000Z", "99999999999999999999",
      "-1", "0", "1e300", "2026/11/30 03:22:23.578", "2026-11-30T03:22:23." + "9" * 300 + "Z", "", "nan",
      "2026-11-30T03:22:23.578Z", "2016-12-31T23:59:60.000Z", "2038-01-19T03:14:08.000Z", "2262-04-11T23:47:17.000Z"]
STR = ["", "x" * 100000, "\u202e\u0000evil", "<script>alert(1)</script>", "\"\\", "\xff\xfe\xfd", "a\nb", "\ud800", "%s%n%x"]

def rd(p):
    with open(p, "rb") as f: return f.read().decode("utf-8", "surrogateescape")
def wr(p, s):
    with open(p, "wb") as f: f.write(s.encode("utf-8", "surrogateescape"))

def mut_csv(text):
    lines = text.split("\n")
    k = random.randint(1, 6)
    for _ in range(k):
        r = random.random()
        if r < 0.05 and len(lines) > 1:
            lines[0] = lines[0] + ", " + random.choice(["x [MiB]", "memory.used [MiB]", "index", "timestamp", ""])
            continue
        if r < 0.10:
            i = random.randrange(1, max(2, len(lines)))
            if i < len(lines): lines.insert(i, random.choice([lines[0], "", ",,,,,,,", "x" * 200000, lines[i] * 50]))
            continue
        if r < 0.13 and len(lines) > 3:
            i = random.randrange(1, len(lines) - 1); lines[i] = lines[i][: random.randrange(len(lines[i]) + 1)]
            continue
        i = random.randrange(1, max(2, len(lines)))
        if i >= len(lines) or not lines[i]: continue
        cells = lines[i].split(", ")
        c = random.randrange(len(cells))
        if c == 0 and random.random() < 0.7: cells[c] = random.choice(TS)
        elif c == 1 and random.random() < 0.5: cells[c] = random.choice(["-1", "64", "4294967296", "99999", "1e3", "", "GPU-x", str(random.randrange(10**6))])
        else: cells[c] = random.choice(NUMS + STR[:3] if random.random() < 0.1 else NUMS)
        whole = random.random() < 0.2
        if whole:
            v = cells[c]
            for j in range(1, len(lines)):
                cc = lines[j].split(", ")
                if c < len(cc) and cc[0][:2] == "20": cc[c] = v; lines[j] = ", ".join(cc)
        else:
            lines[i] = ", ".join(cells)
    return "\n".join(lines)

def hostile_json_value():
    r = random.random()
    if r < 0.5: return random.choice([1e308, -1e308, 1e-320, 0, -1, 2**63, -2**63, 2**64, 10**400, 4294967296, 1.5, -0.0])
    if r < 0.7: return random.choice(STR)
    if r < 0.8: return random.choice([None, True, [], {}, [[[[[]]]]]])
    return json.loads('[' * 1 + ']')

def mut_json_obj(o, depth=0):
    if isinstance(o, dict) and o:
        k = random.choice(list(o))
        if random.random() < 0.6 or depth > 3: o[k] = hostile_json_value()
        else: mut_json_obj(o[k], depth + 1)
    elif isinstance(o, list) and o:
        i = random.randrange(len(o))
        if random.random() < 0.6 or depth > 3: o[i] = hostile_json_value()
        else: mut_json_obj(o[i], depth + 1)

def dumps(o):
    s = json.dumps(o, allow_nan=True)
    s = s.replace("1" + "0" * 400, "1" + "0" * 400)
    return s

def mut_jsonl(text):
    lines = [l for l in text.split("\n")]
    for _ in range(random.randint(1, 4)):
        i = random.randrange(len(lines))
        try: o = json.loads(lines[i])
        except Exception: continue
        r = random.random()
        if r < 0.1: lines[i] = lines[i][: random.randrange(len(lines[i]) + 1)]; continue
        if r < 0.15: lines.insert(i, "[" * 100000); continue
        if r < 0.2: lines.insert(i, lines[i].replace('"', '\\"', 1)); continue
        mut_json_obj(o)
        lines[i] = dumps(o)
    return "\n".join(lines)

def mutate(d):
    files = [f for f in ["gpu.csv", "host.csv", "processes.csv", "meta.json", "events.jsonl", "output.log"] if os.path.exists(os.path.join(d, f))]
    for f in random.sample(files, random.randint(1, 3)):
        p = os.path.join(d, f); t = rd(p)
        if random.random() < 0.03: wr(p, random.choice(["", "\n", "\x00" * 100, "\ufeff" + t]));
        elif f.endswith(".csv"): wr(p, mut_csv(t))
        elif f == "meta.json":
            try:
                o = json.loads(t)
                for _ in range(random.randint(1, 3)): mut_json_obj(o)
                wr(p, dumps(o))
            except Exception: pass
        elif f == "events.jsonl": wr(p, mut_jsonl(t))
        else: wr(p, t + random.choice(["\nEpoch 99999999999999999999/1\n", "\nEpoch 3/0\n", "\n" + "x" * 100000, "\nepoch=4294967297\n"]))

BAD = re.compile(r"\d[eE][+-]?\d{2,}|\binf\b|\bnan\b|-nan|Infinity", re.I)
KNOWN = [k for k in os.environ.get("GW_MUTATE_KNOWN", "").split("|") if k]
t_end = time.time() + SECS; n = 0; found = 0
os.makedirs(OUT, exist_ok=True)
while time.time() < t_end:
    n += 1
    d = os.path.join(OUT, "cur"); shutil.rmtree(d, ignore_errors=True); shutil.copytree(BASE, d)
    for f in ("summary.json", "report.html"):
        try: os.unlink(os.path.join(d, f))
        except FileNotFoundError: pass
    mutate(d)
    problems = []
    cmds = [["report", d], ["report", d, "--json", "-"], ["report", d, "--html", os.path.join(OUT, "o.html"), "--json", os.path.join(OUT, "o.json")],
            ["report", d, os.path.join(d, "gpu.csv"), "--log", os.path.join(d, "output.log"), "--json", os.path.join(OUT, "o2.json")],
            ["plot", d, "-o", os.path.join(OUT, "o.png" if random.random() < 0.3 else "o.svg"), "--metrics", "util,sm,tensor,memory,temp,power,clock,cpu,rss,procmem"]]
    for cmd in cmds:
        try:
            p = subprocess.run([BIN] + cmd, capture_output=True, env=ENV, timeout=60)
        except subprocess.TimeoutExpired:
            problems.append(f"{cmd[0]} {cmd[2:3]} TIMEOUT"); continue
        err = p.stderr.decode("utf-8", "replace"); out = p.stdout.decode("utf-8", "replace")
        if p.returncode not in (0, 1, 2) or "Sanitizer" in err or "runtime error" in err:
            problems.append(f"{cmd[0]} {cmd[2:3]} rc={p.returncode} {err[-3000:]}")
        if p.returncode == 0 and cmd[0] == "report":
            if len(cmd) == 2:
                long = [l for l in out.split("\n") if len(l) > 80]
                if long: problems.append("text >80: " + repr(long[0][:200]))
                if BAD.search(out): problems.append("text BAD: " + BAD.search(out).group(0) + " ..." + out[max(0, BAD.search(out).start()-200):BAD.search(out).end()+50])
            if len(cmd) == 4:
                try:
                    js = json.loads(out)
                    # scan numbers
                    def walk(o, path=""):
                        if isinstance(o, float) and (o != o or abs(o) > 1e15): problems.append(f"json num {path}={o}")
                        elif isinstance(o, dict):
                            for k, v in o.items(): walk(v, path + "." + k)
                        elif isinstance(o, list):
                            for i, v in enumerate(o): walk(v, path + f"[{i}]")
                    walk(js)
                except Exception as e: problems.append(f"json invalid {e}: {out[:200]}")
            if len(cmd) > 4:
                h = rd(os.path.join(OUT, "o.html"))
                m = BAD.search(re.sub(r"<script.*?</script>", "", h, flags=re.S))
                if m: problems.append("html BAD " + h[max(0, m.start()-150):m.end()+50])
    problems = [p for p in problems if not any(k in p for k in KNOWN)]
    if problems:
        found += 1
        keep = os.path.join(OUT, f"crash{found:03d}")
        shutil.rmtree(keep, ignore_errors=True); shutil.copytree(d, keep)
        with open(os.path.join(keep, "PROBLEMS"), "w") as f: f.write("\n".join(problems))
        print(f"iter {n}: {keep}: {problems[0][:300]}", flush=True)
print(f"done {n} iterations, {found} with problems", flush=True)

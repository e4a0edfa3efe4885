#!/usr/bin/env python3
"""check-layers: fails when src/ breaks gpuwatch's layering (docs/architecture.md).

Rules (curl's checksrc is the model: one line per finding, file:line: what and how to fix):
  upward-include  a file in src/A includes "B/..." (or <B/...>, "../B/...", "A/../B/...") where
                  B's layer is not below A's; two folders of one layer do not include each other
                  either
  unknown-folder  a folder of src/ that LAYERS does not place
  nvml            outside src/nvml and src/sampler: an NVML call (nvmlXxx(...)), an NVML type or
                  constant (gwn_*, GWN_*), the loader (gw_nvml, gw_nvml_open/load/close/...), a
                  function pointer of the loader (->DeviceGetXxx(...), .DeviceGetXxx(...)), a
                  library loaded by hand (dlopen, dlsym), a call built by token pasting
                  (nvml##x) or an include of src/nvml
  must-use        a header declares a function returning gw_rc without GW_MUST_USE
                  (warn_unused_result), so a dropped error would compile; gw_error_set, which
                  returns its rc argument for `return gw_error_set(...)`, is the one exception
  fake            production code that names the fake library ("fake-nvml", FAKE_NVML_*,
                  fakeNvmlSetTime, also split over adjacent literals "FAKE_" "NVML"): a
                  simulator announces itself through gpuwatch_nvml_banner instead
  float-format    a string literal with a float conversion (%f, %.1f, %8.2f, %g, %e, %a...)
                  outside src/util/gw_fmt.c: print numbers through the formatter (GW_FIXED,
                  GW_SIG, gw_fmt_*); scanf-family lines (parsing) are not printing
  throttle-bits   outside src/sampler/clock_reasons.h and src/nvml, a clocks event reason bit
                  spelled as a number: a line with a hex literal in code (not in a string) and
                  a reason word (reason, throttle, thermal, slowdown, power cap/brake, sync
                  boost, idle, clocks event), or a macro or enumerator named for a reason
                  (REASON_SW_THERMAL, THROTTLE_POWER, CLOCKS_EVENT_IDLE...) given a number
  stats           statistics outside src/stats: a sum divided (sum / n, a mean), a sum of
                  squares (x += d * d: a variance or a fit), doubles compared for a sort (the
                  start of a percentile) or a rank (n - 1) * q: call src/stats/stats.h
  field-name      outside src/sampler/fields.c, a string literal that is a GPU field's name
                  there: its CSV header or the header's key ("utilization.gpu"), its alias or
                  its dcgm-exporter name (also as a word of a longer literal: a PromQL
                  query); take it from gw_fields[] (or add a column there)
  function-length a function body (from its { to its }) longer than FUNCTION_LINES lines; the
                  functions of FUNCTION_LENGTH_ALLOW may keep their recorded length but not
                  grow, and an entry that is no longer needed must be removed (the list only
                  shrinks)
Allowlists (FLOAT_FORMAT_ALLOW, STATS_ALLOW, FUNCTION_LENGTH_ALLOW) give each entry's reason.

Usage: scripts/check-layers.py [SRC_DIR]   (default: src/ beside this script)
Exit status: 0 clean, 1 findings, 2 usage error.
"""
import os
import posixpath
import re
import sys

# Lowest first. A folder may include its own headers and those of lower layers only.
LAYERS = [
    ["util"],
    ["stats"],
    ["nvml"],
    ["host"],
    ["events"],
    ["sampler"],
    ["record", "summary", "view", "http", "prom", "stall", "health", "query", "alerts", "k8s"],
    ["mark", "serve", "live", "config", "top"],
    ["logread"],
    ["analysis"],
    ["chart"],
    ["plot", "report", "fleet"],
    ["run"],
    ["cli"],
]
NVML_FOLDERS = {"nvml", "sampler"}
# Files that load another library with dlopen so that commands which do not need it start
# faster (docs/performance.md, "One-shot"): cairo for plots, libmicrohttpd for the exporter,
# libcurl for `report --fleet` over Prometheus, gpuwatch-podres.so (gRPC and protobuf-c) for
# `serve --kubernetes` (docs/kubernetes.md).
# Every other NVML rule still holds there, and they may not name NVML's library.
DL_LOADERS = {"src/plot/cairo_dl.c", "src/http/mhd_dl.c", "src/fleet/curl_dl.c",
              "src/k8s/podres_dl.c"}
DLOPEN = re.compile(r"\bdl(open|sym|vsym|mopen)\s*\(")

# The formatter is the one file that turns a double into text with printf.
FLOAT_FORMAT_HOME = "src/util/gw_fmt.c"
# Files that may keep a float format, each with its reason (none today: keep it that way).
FLOAT_FORMAT_ALLOW = {}
THROTTLE_HOME = {"src/sampler/clock_reasons.h"}
# Files that may compute a statistic themselves, each with its reason (none today).
STATS_ALLOW = {}
FUNCTION_LINES = 80
# file:function -> its body's lines when the budget came in (issue 24); shrink, never grow.
# Empty since the last two (open_recording 88, gw_fleet_add_prometheus 83) were split: keep it so.
FUNCTION_LENGTH_ALLOW = {}

# "name(params)" just before a "{" at file level: a function definition (params may hold one
# level of parentheses, as function pointer parameters do).
FUNCTION_HEAD = re.compile(r"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)$")
STRING = re.compile(r'"(\\.|[^"\\])*"')
FLOAT_CONV = re.compile(r"%[-+ #0]*(\d+|\*)?(\.(\d+|\*))?(hh|h|ll|l|L|j|z|t)?[fFgGeEaA]")
SCANF = re.compile(r"\b[a-z]*scanf\s*\(")
REASON_WORD = re.compile(r"reason|throttl|thermal|slowdown|power[ _]?(cap|brake)|sync[ _]?boost|"
                         r"\bidle\b|clocks?[ _]?event", re.IGNORECASE)
BIT_NUMBER = re.compile(r"\b0[xX][0-9a-fA-F]+")
REASON_DEFINE = re.compile(r"\b\w*(REASON|THROTTLE|CLOCKS?_EVENT)\w*_(IDLE|\w*THERMAL|\w*SLOWDOWN|"
                           r"\w*POWER\w*|\w*BOOST|\w*CLOCKS?\w*|\w*BRAKE)\s*=?\s*\(?\s*\d")
STATS_PATTERNS = [
    (re.compile(r"\bsum\w*\s*/(?!/)"), "a sum divided (a mean)"),
    (re.compile(r"\+=\s*\(?\s*(\w+)\s*\*\s*\1\b"), "a sum of squares (a variance or a fit)"),
    (re.compile(r"\*\s*\(\s*const\s+double\s*\*\s*\)"), "doubles compared for a sort"),
    (re.compile(r"\(\s*\w+\s*-\s*1\s*\)\s*\*\s*(q|p|0?\.\d+)\b"), "a percentile rank"),
]

RANK = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}
# "x/y.h" and <x/y.h> alike (src/ is on the include path), "../x/y.h" and "a/../x/y.h" resolved.
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
NVML_PATTERNS = [
    (re.compile(r"\bnvml[A-Z]\w*\s*\(|\bnvml\s*##"), "an NVML call"),
    (re.compile(r"\b(gwn|GWN)_\w+"), "an NVML type or constant"),
    (re.compile(r"\bgw_nvml\b|\bgw_nvml_(open|load|close|return_name|init_message|call_message|"
                r"is_unsupported)\b"), "the NVML loader"),
    (re.compile(r"(->|\.)\s*(System|Device|Gpm|Event)[A-Z]\w*\s*\("), "an NVML function pointer"),
    (re.compile(r"\bdl(open|sym|vsym|mopen)\s*\("), "a library loaded by hand (dlopen, dlsym)"),
]
# The fake's directory, its variables and its own exports (fakeNvmlSetTime), in any case; string
# literals on one line are joined first ("fake" "-nvml").
FAKE = re.compile(r"fake[-_]?nvml", re.IGNORECASE)
ADJACENT = re.compile(r'"\s*"')
# A header's function declaration returning gw_rc; GW_MUST_USE must come before it on the line.
RC_DECL = re.compile(r"^\s*(?:extern\s+)?gw_rc\s+(\w+)\s*\(")
MUST_USE_EXEMPT = {"gw_error_set"}


def strip_comments(text):
    """Blanks comments (keeping line breaks) so that line numbers stay right."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_strings(line):
    """The line with the contents of string and character literals blanked."""
    return re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', line)


def layer_words(rank):
    return "layer %d (%s)" % (rank, ", ".join(LAYERS[rank]))


def included_folder(rel, target):
    """The src/ folder an include names, or None (a file of the same folder, a system header):
    "./x.h" and "../run/x.h" are resolved from the including file, "a/../run/x.h" is run's."""
    target = target.strip()
    if target.startswith("."):
        target = posixpath.join(posixpath.dirname(rel[len("src/"):]), target)
    parts = posixpath.normpath(target).split("/")
    return parts[0] if len(parts) > 1 and parts[0] in RANK else None


def float_format(line):
    """True when a string literal of the (comment-free) line holds a float conversion."""
    if SCANF.search(line):
        return False
    return any(FLOAT_CONV.search(m.group(0).replace("%%", "")) for m in STRING.finditer(line))


def check_constants(rel, folder, line, no, findings):
    """The float-format, throttle-bits and stats rules on one comment-free line."""
    bare = blank_strings(line)
    if "%" in line and rel != FLOAT_FORMAT_HOME and rel not in FLOAT_FORMAT_ALLOW and \
            float_format(line):
        findings.append(
            "%s:%d: a float format in a string: print the number through the formatter, "
            "\"%%s\" with GW_FIXED(x, decimals) or GW_SIG(x, digits) (util/gw_fmt.h) "
            "[float-format]" % (rel, no))
    if rel not in THROTTLE_HOME and folder != "nvml" and (
            (BIT_NUMBER.search(bare) and REASON_WORD.search(line)) or
            (re.search(r"REASON|THROTTLE|CLOCKS?_EVENT", bare) and REASON_DEFINE.search(bare))):
        findings.append(
            "%s:%d: a clocks event reason bit spelled as a number: use GW_REASON_* and the "
            "groups of sampler/clock_reasons.h (gw_reasons_thermal, ...) [throttle-bits]"
            % (rel, no))
    if folder != "stats" and rel not in STATS_ALLOW and re.search(r"sum|\+=|double|- *1\b", bare):
        for pattern, what in STATS_PATTERNS:
            if pattern.search(bare):
                findings.append(
                    "%s:%d: %s outside src/stats: call the engine (stats/stats.h), adding the "
                    "function there with a unit test if it lacks one [stats]" % (rel, no, what))
                break


def function_lengths(code):
    """(name, line of its {, body lines) of each function defined in comment-free code."""
    code = "\n".join(blank_strings(line) for line in code.split("\n"))
    out, depth, start = [], 0, None
    for m in re.finditer(r"[{}]", code):
        if m.group() == "{":
            if depth == 0:
                head = code[max(0, m.start() - 1000):m.start()].rstrip()  # the signature
                name = FUNCTION_HEAD.search(head)
                start = (name.group(1), code.count("\n", 0, m.start()) + 1) if name else None
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0 and start:
                out.append((start[0], start[1], code.count("\n", 0, m.start()) + 2 - start[1]))
                start = None
    return out


def check_lengths(rel, code, findings, whole_tree):
    """The budget; with whole_tree (every allowlisted file is in the tree checked, so the list
    describes this tree, not a test's few files) also entries the tree no longer needs."""
    seen = set()
    for name, no, lines in function_lengths(code):
        key = "%s:%s" % (rel, name)
        allowed = FUNCTION_LENGTH_ALLOW.get(key)
        seen.add(key)
        if allowed is None and lines > FUNCTION_LINES:
            findings.append(
                "%s:%d: %s is %d lines, over the budget of %d: split it into functions that "
                "each do one thing [function-length]" % (rel, no, name, lines, FUNCTION_LINES))
        elif allowed is not None and lines > allowed:
            findings.append(
                "%s:%d: %s grew to %d lines (allowed %d while it waits to be split): split it "
                "[function-length]" % (rel, no, name, lines, allowed))
        elif allowed is not None and lines <= FUNCTION_LINES and whole_tree:
            findings.append(
                "%s:%d: %s is within the budget now (%d lines): remove it from "
                "FUNCTION_LENGTH_ALLOW [function-length]" % (rel, no, name, lines))
    for key in FUNCTION_LENGTH_ALLOW:
        if whole_tree and key.startswith(rel + ":") and key not in seen:
            findings.append(
                "%s: %s is gone: remove it from FUNCTION_LENGTH_ALLOW [function-length]"
                % (rel, key.split(":", 1)[1]))


FIELD_TABLE = "src/sampler/fields.c"
FIELD_ROW = re.compile(r'\[GW_F_\w+\]\s*=\s*\w+\(\s*"[^"]*",\s*"([^"]+)"')
DCGM_WORD = re.compile(r"\bDCGM_FI_\w+")
FIELD_NAME = re.compile(r'(?:\.alias\s*=|DCGM\()\s*"([^"]+)"')


def field_names(src):
    """The names the field table gives its GPU fields (the rows before the host fields): CSV
    headers with and without their unit, aliases, dcgm-exporter names. Empty without the table."""
    path = os.path.join(src, FIELD_TABLE[len("src/"):])
    if not os.path.isfile(path):
        return set()
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    start = text.find("gw_fields[")
    end = text.find("[GW_F_HOST_", start)
    rows = text[start:end if end > 0 else len(text)]
    names = set(FIELD_NAME.findall(rows))
    for header in FIELD_ROW.findall(rows):
        names.update((header, header.split(" [")[0]))
    return names


def check_field_names(rel, line, no, names, findings):
    if rel == FIELD_TABLE or '"' not in line:
        return
    for m in STRING.finditer(line):
        text = m.group(0)[1:-1]
        if text in names or any(w in names for w in DCGM_WORD.findall(text)):
            findings.append(
                "%s:%d: %s names a GPU field outside the field table: take it from its row of "
                "gw_fields[] (csv_header, alias, dcgm; gw_field_name), or add a column there "
                "[field-name]" % (rel, no, m.group(0)))


def check_file(path, rel, folder, findings, whole_tree=False, names=frozenset()):
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip_comments(f.read())
    if rel.endswith(".c"):
        check_lengths(rel, code, findings, whole_tree)
    for no, line in enumerate(code.split("\n"), 1):
        check_constants(rel, folder, line, no, findings)
        check_field_names(rel, line, no, names, findings)
        m = INCLUDE.match(line)
        to = included_folder(rel, m.group(2)) if m else None
        if to and to != folder and RANK[to] >= RANK[folder]:
            findings.append(
                "%s:%d: upward include \"%s/...\": src/%s is %s and may include only lower "
                "layers; move what both need down (docs/architecture.md) [upward-include]"
                % (rel, no, to, folder, layer_words(RANK[folder])))
        d = RC_DECL.match(line) if rel.endswith(".h") else None
        if d and d.group(1) not in MUST_USE_EXEMPT:
            findings.append(
                "%s:%d: %s returns gw_rc without GW_MUST_USE: declare it "
                "`GW_MUST_USE gw_rc %s(...)` so that a dropped error does not compile [must-use]"
                % (rel, no, d.group(1), d.group(1)))
        if FAKE.search(ADJACENT.sub("", line)):
            findings.append(
                "%s:%d: production code names the fake NVML library: use the library's banner "
                "(gw_sampler_system()->banner) instead [fake]" % (rel, no))
        if folder in NVML_FOLDERS:
            continue
        bare = blank_strings(line)
        if to == "nvml":
            findings.append(
                "%s:%d: an NVML header outside src/nvml and src/sampler: get the value through "
                "the sampler's API (sampler.h, probe.h) [nvml]" % (rel, no))
            continue
        if rel in DL_LOADERS and re.search(r"nvidia-ml|libnvidia", line):
            findings.append(
                "%s:%d: a library loader names NVML's library: only src/nvml loads it [nvml]"
                % (rel, no))
        for pattern, what in NVML_PATTERNS:
            if rel in DL_LOADERS and pattern.pattern == DLOPEN.pattern:
                continue
            if pattern.search(bare):
                findings.append(
                    "%s:%d: %s outside src/nvml and src/sampler: get the value through the "
                    "sampler's API (sampler.h, probe.h) [nvml]" % (rel, no, what))
                break


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        sys.stderr.write("usage: check-layers.py [SRC_DIR]\n")
        return 2
    src = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "..", "src")
    if not os.path.isdir(src):
        sys.stderr.write("check-layers: %s is not a directory: give the src/ folder\n" % src)
        return 2
    findings = []
    names = field_names(src)
    whole_tree = all(os.path.isfile(os.path.join(src, key.split(":")[0][len("src/"):]))
                     for key in FUNCTION_LENGTH_ALLOW)
    for folder in sorted(os.listdir(src)):
        top = os.path.join(src, folder)
        if not os.path.isdir(top):
            continue
        if folder not in RANK:
            findings.append("src/%s: folder in no layer: add it to LAYERS in "
                            "scripts/check-layers.py and to docs/architecture.md "
                            "[unknown-folder]" % folder)
            continue
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    path = os.path.join(root, name)
                    rel = "src/" + os.path.relpath(path, src)
                    check_file(path, rel, folder, findings, whole_tree, names)
    for line in findings:
        print(line)
    if findings:
        print("check-layers: %d finding%s" % (len(findings), "" if len(findings) == 1 else "s"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

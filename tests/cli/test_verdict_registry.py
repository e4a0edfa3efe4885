"""The verdict registry (src/analysis/registry.c) is the one list of verdicts: the docs list
exactly its ids, each row names a docs section, thresholds of the table and a unit test that
exist, and every verdict a real recording gets is a row, compared only against that row's
thresholds. docs/style.md, "Recipe: adding a verdict", is the procedure these tests follow."""
import json
import re
from pathlib import Path

import pytest

from conftest import SOURCE, gw

REGISTRY = SOURCE / "src" / "analysis" / "registry.c"
THRESHOLDS = SOURCE / "src" / "analysis" / "thresholds.c"
DOCS = SOURCE / "docs"
RECORDINGS = SOURCE / "examples" / "recordings"
ROW = re.compile(r'\{\s*(GW_V_\w+),\s*"(\w+)",\s*(\w+),\s*(\w+),\s*(GW_SEV_\w+),\s*'
                 r'(TH\(([^)]*)\)|NO_TH),\s*"([^"]+)",\s*"([^"]+)"\s*\}', re.S)
# Thresholds that shape the phases every verdict reads (docs/report.md steps 1-4), none a
# verdict's own: the recipe needs no row to name them.
PHASE_THRESHOLDS = {"work_util_pct", "tail_release_pct"}


def registry():
    """The registry's rows in run order, as dicts."""
    rows = []
    for m in ROW.finditer(REGISTRY.read_text()):
        ths = [t.strip() for t in (m.group(7) or "").split(",") if t.strip()]
        rows.append({"enum": m.group(1), "id": m.group(2), "job": m.group(3),
                     "gpu": m.group(4), "severity": m.group(5), "thresholds": ths,
                     "doc": m.group(8), "test": m.group(9)})
    return rows


def threshold_keys():
    """GW_TH_X -> its summary.json key, from the threshold table."""
    return dict(re.findall(r'\[(GW_TH_\w+)\]\s*=\s*\{\s*"(\w+)"', THRESHOLDS.read_text()))


def verdict_enum():
    """The ids of gw_verdict_id, in order, without GW_V_COUNT."""
    text = (SOURCE / "src" / "analysis" / "verdict.h").read_text()
    body = text[text.index("typedef enum gw_verdict_id"):text.index("} gw_verdict_id;")]
    return [e for e in re.findall(r"\b(GW_V_\w+)", body) if e != "GW_V_COUNT"]


def table_ids(text, header):
    """The `id`s in the first column of the markdown table whose header row starts with header."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(header))
    ids = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        m = re.match(r"\|\s*`(\w+)`\s*\|", line)
        if m:
            ids.append(m.group(1))
    return ids


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def section(doc):
    """The text of the docs section doc ("file.md#anchor") names, from its heading to the next
    heading of the same or a higher level; None when there is no such heading."""
    name, anchor = doc.split("#")
    lines = (DOCS / name).read_text().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(#+) (.*)", line)
        if m and slug(m.group(2)) == anchor:
            level, out = len(m.group(1)), []
            for rest in lines[i + 1:]:
                n = re.match(r"(#+) ", rest)
                if n and len(n.group(1)) <= level:
                    break
                out.append(rest)
            return "\n".join(out)
    return None


def test_the_registry_has_one_row_per_verdict_id():
    rows = registry()
    assert sorted(r["enum"] for r in rows) == sorted(verdict_enum())
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:  # the name is the enum's, lower case
        assert r["enum"] == "GW_V_" + r["id"].upper(), r
        assert (r["job"] == "NULL") != (r["gpu"] == "NULL"), r  # one checker, job or per GPU
    # gpu_saturated reads the other verdicts: it runs last
    assert rows[-1]["id"] == "gpu_saturated"


def test_report_md_lists_exactly_the_registry():
    text = (DOCS / "report.md").read_text()
    documented = table_ids(text, "| id | fires when | severity |")
    assert sorted(documented) == sorted(r["id"] for r in registry())


def test_report_md_gives_each_verdict_its_default_severity():
    """The severity column of docs/report.md's verdict table starts with the registry's default
    severity (job_failed's depends on its cause: the row names it)."""
    rows = {r["id"]: r for r in registry()}
    for line in (DOCS / "report.md").read_text().splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|(.*)\|([^|]*)\|\s*$", line)
        if not m or m.group(1) not in rows:
            continue
        want = rows[m.group(1)]["severity"][len("GW_SEV_"):].lower()
        column = m.group(3).strip()
        if column == "see cause":
            assert f"({want})" in m.group(2) or f"`{want}`" in m.group(2) or want in m.group(2)
        else:
            assert re.split(r"[;/ ]", column)[0] == want, (m.group(1), column, want)


def test_summary_json_md_lists_exactly_the_registry():
    text = (DOCS / "summary-json.md").read_text()
    evidence = table_ids(text, "| id | evidence |")
    assert sorted(evidence) == sorted(r["id"] for r in registry())
    key_row = next(l for l in text.splitlines() if l.startswith("| `id` | string |"))
    listed = re.findall(r"`(\w+)`", key_row.split("|")[3])
    assert sorted(listed) == sorted(r["id"] for r in registry())


def test_each_row_names_its_docs_section_its_thresholds_and_its_test():
    keys = threshold_keys()
    for r in registry():
        body = section(r["doc"])
        assert body is not None, f"{r['id']}: no heading for {r['doc']}"
        assert f"`{r['id']}`" in body, f"{r['id']}: not in the section {r['doc']}"
        for th in r["thresholds"]:
            assert th in keys, f"{r['id']}: {th} is not in thresholds.c"
        path, fn = r["test"].split(":")
        test = (SOURCE / path).read_text()
        m = re.search(r"static void %s\(void \*\*state\)\n\{(.*?)\n\}\n" % fn, test, re.S)
        assert m, f"{r['id']}: no {fn} in {path}"
        assert r["enum"] in m.group(1) or r["id"] in m.group(1), f"{fn} does not check {r['id']}"
        assert f"cmocka_unit_test({fn})" in test, f"{fn} is not run"


def test_every_threshold_belongs_to_a_verdict_or_the_phases():
    keys = threshold_keys()
    named = {keys[t] for r in registry() for t in r["thresholds"]}
    assert set(keys.values()) - named == PHASE_THRESHOLDS


def recordings():
    dirs = sorted(p.parent for p in RECORDINGS.rglob("gpu.csv"))
    return dirs + sorted(RECORDINGS.glob("*.csv"))


@pytest.mark.parametrize("rec", recordings(), ids=lambda p: str(p.relative_to(RECORDINGS)))
def test_summary_json_verdicts_are_registry_rows(rec, tmp_path):
    """Every verdict of a real recording is a row of the registry, and each threshold its
    evidence was compared with is one of that row's."""
    rows = {r["id"]: r for r in registry()}
    keys = threshold_keys()
    out = tmp_path / "summary.json"
    p = gw(["report", str(rec), "--json", str(out)])
    assert p.returncode == 0, p.stderr
    summary = json.loads(out.read_text())
    assert set(summary["thresholds"]) == set(keys.values())
    for v in summary["verdicts"]:
        assert v["id"] in rows, v["id"]
        assert v["severity"] in ("info", "warning", "critical")
        allowed = {keys[t] for t in rows[v["id"]]["thresholds"]}
        for evidence, th in v.get("thresholds", {}).items():
            assert th["name"] in allowed, f"{v['id']}: {evidence} against {th['name']}"


def recipe():
    text = (DOCS / "style.md").read_text()
    return text.split("## Recipe: adding a verdict\n")[1].split("\n## ")[0]


def test_the_recipe_is_what_these_tests_check():
    """docs/style.md's recipe names the files, the row format and the docs tables these tests
    hold the registry to; when one moves, the recipe must move with it."""
    text = recipe()
    paths = set(re.findall(r"`((?:src|docs|tests)/[\w./-]+\.(?:c|h|md|py))`", text))
    for p in paths:
        assert (SOURCE / p).is_file(), f"the recipe names {p}, which does not exist"
    assert {"src/analysis/verdict.h", "src/analysis/thresholds.h", "src/analysis/thresholds.c",
            "src/analysis/checks.h", "src/analysis/registry.c", "src/util/gw_severity.h",
            "docs/report.md", "docs/summary-json.md", "tests/unit/test_verdicts.c",
            "tests/cli/test_verdict_registry.py"} <= paths
    # the example row of step 4 has the registry's format and follows its rules
    example = ROW.search(text.replace("`\n   ", "").replace("\n   ", " "))
    assert example, "step 4's example row does not parse as a registry row"
    assert example.group(1) == "GW_V_" + example.group(2).upper()
    assert (example.group(3) == "NULL") != (example.group(4) == "NULL")
    assert section(example.group(8)) is not None
    assert example.group(9).split(":")[0] in paths
    # the docs tables it sends the reader to are the ones the tests read
    for header, doc in (("| id | fires when | severity |", "report.md"),
                        ("| id | evidence |", "summary-json.md")):
        assert header in text and header in (DOCS / doc).read_text().splitlines()
    assert "unit.test_verdicts$|cli.test_verdict_registry$" in text

"""scripts/check-layers.py: the tree is clean, and each rule catches what it is for."""
import subprocess
import sys

from conftest import SOURCE

SCRIPT = SOURCE / "scripts" / "check-layers.py"


def check(src):
    return subprocess.run([sys.executable, str(SCRIPT), str(src)], capture_output=True, text=True)


def tree(tmp_path, files):
    """A src/ folder holding files {relative path: text}."""
    src = tmp_path / "src"
    for rel, text in files.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return src


def test_the_source_tree_keeps_its_layers():
    r = check(SOURCE / "src")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == ""


def test_an_upward_include_is_found_with_its_line(tmp_path):
    src = tree(tmp_path, {
        "run/child.h": "int x;\n",
        "alerts/hook.c": '/* #include "run/child.h" in a comment is fine */\n'
                         '#include "alerts/hook.h"\n#include "util/xalloc.h"\n'
                         '#include "run/child.h"\n',
        "util/xalloc.h": "",
        "logread/series.c": '#include "analysis/epochs.h"\n',
        "analysis/epochs.c": '#include "logread/series.h"\n',
    })
    r = check(src)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith('src/alerts/hook.c:4: upward include "run/..."')
    assert "[upward-include]" in lines[0]
    assert lines[1].startswith('src/logread/series.c:1: upward include "analysis/..."')
    assert lines[-1] == "check-layers: 2 findings"
    assert len(lines) == 3  # analysis may include logread, and comments do not count


def test_two_folders_of_one_layer_do_not_include_each_other(tmp_path):
    src = tree(tmp_path, {"record/csv.c": '#include "alerts/alerts.h"\n'})
    r = check(src)
    assert r.returncode == 1
    assert r.stdout.startswith('src/record/csv.c:1: upward include "alerts/..."')


def test_nvml_outside_its_two_folders_is_found(tmp_path):
    src = tree(tmp_path, {
        "sampler/gpu.c": '#include "nvml/nvml_lib.h"\nint a = nvmlDeviceGetCount(0);\n',
        "nvml/lib.c": "gwn_return r = nvmlInit_v2();\n",
        "query/q.c": 'const char *doc = "nvmlDeviceGetName() in a string is text";\n'
                     "/* nvmlInit() in a comment */\n"
                     "int v = GWN_CLOCKS_EVENT_GPU_IDLE;\n",
        "run/session.c": '#include "nvml/nvml_lib.h"\n'
                         "static gw_nvml *n;\n"
                         "int f(void) { return n->SystemGetDriverVersion(0, 0); }\n"
                         "int g(void) { return nvmlShutdown(); }\n",
        "cli/serve.c": 'int sim = strstr(path, "fake-nvml") != 0;\n',
    })
    r = check(src)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "src/cli/serve.c:1: production code names the fake NVML library: use the library's "
        "banner (gw_sampler_system()->banner) instead [fake]",
        "src/query/q.c:3: an NVML type or constant outside src/nvml and src/sampler: get the "
        "value through the sampler's API (sampler.h, probe.h) [nvml]",
        "src/run/session.c:1: an NVML header outside src/nvml and src/sampler: get the value "
        "through the sampler's API (sampler.h, probe.h) [nvml]",
        "src/run/session.c:2: the NVML loader outside src/nvml and src/sampler: get the value "
        "through the sampler's API (sampler.h, probe.h) [nvml]",
        "src/run/session.c:3: an NVML function pointer outside src/nvml and src/sampler: get "
        "the value through the sampler's API (sampler.h, probe.h) [nvml]",
        "src/run/session.c:4: an NVML call outside src/nvml and src/sampler: get the value "
        "through the sampler's API (sampler.h, probe.h) [nvml]",
        "check-layers: 6 findings",
    ]


def test_a_folder_in_no_layer_is_named(tmp_path):
    src = tree(tmp_path, {"newthing/x.c": "int x;\n"})
    r = check(src)
    assert r.returncode == 1
    assert "src/newthing: folder in no layer" in r.stdout


def test_usage_errors_exit_2(tmp_path):
    r = check(tmp_path / "missing")
    assert r.returncode == 2
    assert "is not a directory" in r.stderr


def test_the_rules_are_not_fooled_by_other_spellings(tmp_path):
    src = tree(tmp_path, {
        "run/child.h": "int x;\n",
        "alerts/a.c": "#include <run/child.h>\n#include <sys/types.h>\n#include <cjson/cJSON.h>\n",
        "alerts/b.c": '#include "../run/child.h"\n#include "./hook.h"\n#include "hook.h"\n',
        "alerts/c.c": '#include "alerts/../run/child.h"\n#include "../util/xalloc.h"\n',
        "record/d.c": '#include "../nvml/nvml_lib.h"\n',
        "query/e.c": 'void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);\n'
                     'void *f = dlsym(h, "nvmlDeviceGetCount_v2");\n',
        "query/f.c": "int v = lib.DeviceGetCount(&n);\nint w = s.Device;\n"
                     "#define NV(f) nvml##f\n",
        "cli/g.c": 'const char *e = getenv("FAKE_" "NVML_SCENARIO");\n',
        "run/h.c": 'void *set = sym("fakeNvmlSetTime");\n',
    })
    r = check(src)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert [line.split(": ")[0] + " " + line.rsplit(" ", 1)[1] for line in lines[:-1]] == [
        "src/alerts/a.c:1 [upward-include]",
        "src/alerts/b.c:1 [upward-include]",
        "src/alerts/c.c:1 [upward-include]",
        "src/cli/g.c:1 [fake]",
        "src/query/e.c:1 [nvml]",
        "src/query/e.c:2 [nvml]",
        "src/query/f.c:1 [nvml]",
        "src/query/f.c:3 [nvml]",
        "src/record/d.c:1 [nvml]",
        "src/run/h.c:1 [fake]",
    ]
    assert 'upward include "run/..."' in lines[0]
    assert "a library loaded by hand (dlopen, dlsym)" in lines[4]
    assert "an NVML function pointer" in lines[6]
    assert "an NVML call" in lines[7]
    assert "an NVML header" in lines[8]
    assert lines[-1] == "check-layers: 10 findings"


def test_a_gw_rc_without_must_use_is_found(tmp_path):
    src = tree(tmp_path, {
        "util/gw_file.h": "gw_rc gw_file_commit(gw_file *f, gw_error *err);\n"
                          "GW_MUST_USE gw_rc gw_file_open(const char *p, gw_error *err);\n"
                          "gw_rc gw_error_set(gw_error *err, gw_rc rc, const char *fmt, ...);\n",
        "util/gw_file.c": "gw_rc gw_file_commit(gw_file *f, gw_error *err) { return 0; }\n"
                          "static gw_rc helper(void) { return 0; }\n",
    })
    r = check(src)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "src/util/gw_file.h:1: gw_file_commit returns gw_rc without GW_MUST_USE: declare it "
        "`GW_MUST_USE gw_rc gw_file_commit(...)` so that a dropped error does not compile "
        "[must-use]",
        "check-layers: 1 finding",
    ]


def rule_lines(r):
    """'file:line [rule]' of each finding."""
    return [line.split(": ")[0] + " " + line.rsplit(" ", 1)[1]
            for line in r.stdout.splitlines()[:-1]]


def test_a_float_format_outside_the_formatter_is_found(tmp_path):
    src = tree(tmp_path, {
        "util/gw_fmt.c": 'int a = snprintf(t, 9, "%.*f", d, x);\n',  # the formatter's home
        "analysis/v.c": 'say(v, "busy %.1f%% of %g s", a, b);\n'
                        'say(v, "idle %s%%", GW_FIXED(a, 1));\n'           # the way: fine
                        '/* "%.1f" in a comment */\n'
                        'snprintf(b, n, "%d of %zu at 100%%f", i, n);\n'   # %%f is no conversion
                        "n = sscanf(s, \"%lf %lf\", &a, &b);\n"            # parsing, not printing
                        'fprintf(o, "%8.2f|%-6.0f|%e|%Lg", x, y, z, w);\n',
        "report/t.c": 'fprintf(out, "%s"\n        "%.0f W", w, p);\n',
    })
    r = check(src)
    assert r.returncode == 1
    assert rule_lines(r) == [
        "src/analysis/v.c:1 [float-format]",
        "src/analysis/v.c:6 [float-format]",
        "src/report/t.c:2 [float-format]",
    ]
    assert "GW_FIXED(x, decimals)" in r.stdout


def test_a_throttle_bit_outside_clock_reasons_is_found(tmp_path):
    src = tree(tmp_path, {
        "sampler/clock_reasons.h": "enum { GW_REASON_SW_THERMAL = 0x20 };\n",  # the one home
        "nvml/nvml_abi.h": "enum { GWN_CLOCKS_EVENT_SW_THERMAL = 0x20 };\n",
        "analysis/a.c": "#define REASON_SW_THERMAL 0x20u\n"
                        "bool hot = mask & (0x20 | 0x40); /* thermal */\n"       # comment only
                        "static const uint64_t b[] = {[GW_THROTTLE_HW] = 0x8 | 0x80};\n"
                        "bool t = gw_reasons_thermal(gw_reasons_of(m));\n",      # the way: fine
        "health/e.c": '    {0x20, "SW thermal slowdown", GW_HEALTH_WARNING},\n'
                      "    bool idle = (unsigned long long)v & 0x1 && idle_ok;\n"
                      'const char *h = "0x0000000000000000 means no clocks event reason";\n'
                      "enum { GW_HEALTH_REASON_MAX = 480, GW_EVA_REASON = 1u << 8 };\n",
        "logread/h.c": "enum { THROTTLE_SW_POWER_CAP = 4 };\n",
    })
    r = check(src)
    assert r.returncode == 1
    assert rule_lines(r) == [
        "src/analysis/a.c:1 [throttle-bits]",
        "src/analysis/a.c:3 [throttle-bits]",
        "src/health/e.c:1 [throttle-bits]",
        "src/health/e.c:2 [throttle-bits]",
        "src/logread/h.c:1 [throttle-bits]",
    ]
    assert "sampler/clock_reasons.h" in r.stdout


def test_statistics_outside_src_stats_are_found(tmp_path):
    src = tree(tmp_path, {
        "stats/stats.c": "double m = sum / (double)n; sq += d * d;\n",  # the engine's own
        "alerts/trend.c": "stt += t * t;\n"
                          "double mean = sum_v / (double)n;\n"
                          "return n ? sum / n : NAN; // sum / n in a comment\n"
                          "double share = 100 * total_s / steady_s;\n"  # a ratio, not a mean
                          "double m = gw_stats_mean(v, NULL, n);\n",
        "report/r.c": "static int cmp(const void *a, const void *b) {\n"
                      "    return *(const double *)a < *(const double *)b ? -1 : 1; }\n"
                      "double p95 = a[(size_t)((n - 1) * 0.95)];\n"
                      'puts("sum / n");\n',
    })
    r = check(src)
    assert r.returncode == 1
    assert rule_lines(r) == [
        "src/alerts/trend.c:1 [stats]",
        "src/alerts/trend.c:2 [stats]",
        "src/alerts/trend.c:3 [stats]",
        "src/report/r.c:2 [stats]",
        "src/report/r.c:3 [stats]",
    ]
    assert "a sum of squares" in r.stdout and "a percentile rank" in r.stdout


def body(name, lines):
    return "int %s(int a)\n{\n%s}\n" % (name, "    a++;\n" * (lines - 2))


def test_the_function_length_budget(tmp_path):
    allowed = tree(tmp_path / "ok", {"util/a.c": body("fits", 80) + body("fits_too", 3)})
    r = check(allowed)
    assert r.returncode == 0, r.stdout
    src = tree(tmp_path / "bad", {
        "util/a.c": "static const char *s = \"{\";\n" + body("long_one", 81),
        "fleet/fleet_prom.c": body("gw_fleet_add_prometheus", 83),  # no longer allowlisted
    })
    r = check(src)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "src/fleet/fleet_prom.c:2: gw_fleet_add_prometheus is 83 lines, over the budget of 80: "
        "split it into functions that each do one thing [function-length]",
        "src/util/a.c:3: long_one is 81 lines, over the budget of 80: split it into functions "
        "that each do one thing [function-length]",
        "check-layers: 2 findings",
    ]


def test_a_gpu_field_named_outside_the_field_table_is_found(tmp_path):
    table = ('const gw_field_info gw_fields[GW_F_TABLE_COUNT] = {\n'
             '    [GW_F_POWER_DRAW_W] = WATT("power_draw", "power.draw [W]", "GetPowerUsage",\n'
             '        .alias = "power.draw.average", DCGM("DCGM_FI_DEV_POWER_USAGE", "h", 1)),\n'
             '    [GW_F_HOST_CPU_UTIL_PCT] = PROCFS(GW_FG_HOST, "cpu_util", "cpu.util [%]"),\n'
             '};\n')
    src = tree(tmp_path, {
        "sampler/fields.c": table,
        "report/a.c": 'const char *a = "power.draw";\n'
                      'const char *b = "power.draw [W]";\n'
                      'const char *c = "DCGM_FI_DEV_POWER_USAGE", *d = "power.draw.average";\n'
                      '/* "power.draw" in a comment */\n'
                      'const char *e = "no power.draw here";\n'
                      'const char *f = "cpu.util";\n'
                      'const char *g = "rate(DCGM_FI_DEV_POWER_USAGE[5m])", *h = "DCGM_FI_X";\n',
    })
    r = check(src)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert [ln.split(" names")[0] for ln in lines[:-1]] == [
        'src/report/a.c:1: "power.draw"', 'src/report/a.c:2: "power.draw [W]"',
        'src/report/a.c:3: "DCGM_FI_DEV_POWER_USAGE"', 'src/report/a.c:3: "power.draw.average"',
        'src/report/a.c:7: "rate(DCGM_FI_DEV_POWER_USAGE[5m])"']
    assert all(ln.endswith("[field-name]") for ln in lines[:-1])
    assert lines[-1] == "check-layers: 5 findings"  # comments, prose, host fields, others pass

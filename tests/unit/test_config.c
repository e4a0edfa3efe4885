/* Unit tests for src/config: gpuwatch.ini through inih, the order of sources, --set, and every
 * kind of bad file reported as FILE:LINE with its reason. */
#include "test_helpers.h"

#include "config/config.h"

#include <math.h>

typedef struct ctx {
    char *dir;
    gw_config c;
} ctx;

static int setup(void **state)
{
    ctx *x = calloc(1, sizeof *x);
    x->dir = th_tmpdir();
    /* hermetic: no system or user file unless a test writes one */
    char *p = NULL;
    assert_true(asprintf(&p, "%s/etc.ini", x->dir) > 0);
    setenv("GPUWATCH_SYSTEM_CONFIG", p, 1);
    free(p);
    setenv("XDG_CONFIG_HOME", x->dir, 1);
    gw_config_init(&x->c);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    ctx *x = *state;
    gw_config_free(&x->c);
    th_rmrf(x->dir);
    free(x->dir);
    free(x);
    return 0;
}

/* Writes text to DIR/name and loads it; returns the rc and the message in err. */
static gw_rc load(ctx *x, const char *name, const char *text, gw_error *err)
{
    th_write(x->dir, name, text);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", x->dir, name);
    gw_rc rc = gw_config_load_file(&x->c, path, true, err);
    if (!rc)
        rc = gw_config_validate(&x->c, err);
    return rc;
}

static void test_defaults_are_the_checklist(void **state)
{
    ctx *x = *state;
    gw_error err = {0};
    assert_int_equal(gw_config_validate(&x->c, &err), GW_OK);
    const struct {
        const char *id;
        double threshold, clear;
        int64_t duration_ms;
        gw_severity sev;
    } want[] = {{"temp_warning", 80, 77, 0, GW_SEV_WARNING},
                {"temp_critical", 83, 80, 180000, GW_SEV_CRITICAL},
                {"memory_warning", 92, 88, 0, GW_SEV_WARNING},
                {"memory_critical", 98, 92, 0, GW_SEV_CRITICAL},
                {"job_memory_warning", 2048, 1536, 0, GW_SEV_WARNING},
                {"job_memory_critical", 3072, 2560, 0, GW_SEV_CRITICAL},
                {"slow_sample", 500, 250, 5000, GW_SEV_WARNING},
                {"gpu_lost", 0, 0, 0, GW_SEV_CRITICAL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gw_alert_rule *r = gw_alerts_config_find(&x->c.alerts, want[i].id);
        assert_non_null(r);
        assert_true(r->enabled);
        assert_true(r->threshold == want[i].threshold);
        assert_true(r->clear == want[i].clear);
        assert_int_equal(r->duration_ms, want[i].duration_ms);
        assert_int_equal(r->severity, want[i].sev);
    }
    /* the report's levels: critical above 98 % whether or not it still rises */
    assert_int_equal(gw_alerts_config_find(&x->c.alerts, "memory_critical")->trend, GW_TREND_NONE);
    assert_int_equal(gw_alerts_config_find(&x->c.alerts, "job_memory_critical")->trend,
                     GW_TREND_LINEAR);
    assert_int_equal(gw_alerts_config_find(&x->c.alerts, "xid")->clear_duration_ms, 300000);
    assert_true(x->c.check.idle_temp_warning_c == 45 && x->c.check.idle_temp_critical_c == 55);
    assert_true(x->c.check.latency_warning_ms == 100 && x->c.check.latency_critical_ms == 500);
    assert_null(x->c.alerts.hook_argv[0]);
}

static void test_example_file_is_complete_and_valid(void **state)
{
    ctx *x = *state;
    const char *src = getenv("GPUWATCH_SOURCE");
    assert_non_null(src);
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/gpuwatch.ini", src);
    gw_error err = {0};
    assert_int_equal(gw_config_load_file(&x->c, path, true, &err), GW_OK);
    assert_int_equal(gw_config_validate(&x->c, &err), GW_OK);
    gw_alert_rule *idle = gw_alerts_config_find(&x->c.alerts, "gpu_idle");
    assert_non_null(idle);
    assert_false(idle->enabled);
    assert_true(idle->below);
    assert_int_equal(idle->metric, GW_AM_UTIL_GPU);
    assert_int_equal(idle->duration_ms, 600000);
    assert_int_equal(gw_alerts_config_find(&x->c.alerts, "temp_critical")->duration_ms, 180000);
    assert_int_equal(x->c.alerts.hook_timeout_ms, 10000);
    assert_true(x->c.run_python);
}

static void test_sources_in_order(void **state)
{
    ctx *x = *state;
    char *sys = NULL, *user = NULL, *mine = NULL;
    assert_true(asprintf(&sys, "%s/etc.ini", x->dir) > 0);
    th_write(x->dir, "etc.ini",
             "[temp_warning]\nthreshold = 70\nclear = 60\n[check]\n"
             "idle_temp_warning = 40\n");
    th_write(x->dir, "gpuwatch/gpuwatch.ini", "[temp_warning]\nthreshold = 75\n");
    th_write(x->dir, "mine.ini", "[temp_critical]\nduration = 90s\n");
    assert_true(asprintf(&user, "%s/gpuwatch/gpuwatch.ini", x->dir) > 0);
    assert_true(asprintf(&mine, "%s/mine.ini", x->dir) > 0);
    char *got = gw_config_user_path();
    assert_string_equal(got, user);
    free(got);
    gw_error err = {0};
    assert_int_equal(gw_config_load_standard(&x->c, &err), GW_OK);
    assert_int_equal(gw_config_load_file(&x->c, mine, true, &err), GW_OK);
    assert_int_equal(gw_config_set(&x->c, "temp_critical.duration=2s", &err), GW_OK);
    assert_int_equal(gw_config_validate(&x->c, &err), GW_OK);
    gw_alert_rule *w = gw_alerts_config_find(&x->c.alerts, "temp_warning");
    assert_true(w->threshold == 75); /* user over system */
    assert_true(w->clear == 60);     /* the system file's, untouched by the user's */
    assert_int_equal(gw_alerts_config_find(&x->c.alerts, "temp_critical")->duration_ms, 2000);
    assert_true(x->c.check.idle_temp_warning_c == 40);
    /* without XDG_CONFIG_HOME, ~/.config */
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "/home/someone", 1);
    got = gw_config_user_path();
    assert_string_equal(got, "/home/someone/.config/gpuwatch/gpuwatch.ini");
    free(got);
    free(sys);
    free(user);
    free(mine);
}

/* Each bad file gives exactly this message (with the temporary directory's path in front). */
static void expect_error(ctx *x, const char *text, const char *want_suffix)
{
    gw_config_free(&x->c);
    gw_config_init(&x->c);
    gw_error err = {0};
    assert_int_not_equal(load(x, "bad.ini", text, &err), GW_OK);
    char want[1024];
    snprintf(want, sizeof want, "%s/bad.ini:%s", x->dir, want_suffix);
    assert_string_equal(err.msg, want);
}

static void test_bad_files_name_file_line_and_reason(void **state)
{
    ctx *x = *state;
    expect_error(x, "[temp_warning]\nthreshold = 80\ntreshold = 81\n",
                 "3: [temp_warning] treshold: unknown key (a rule takes enabled, metric, "
                 "severity, direction, threshold, clear, duration, clear_duration, trend, "
                 "trend_window, trend_min, warmup)");
    expect_error(x, "; comment\n\n[memory_warning]\nthreshold = lots\n",
                 "4: [memory_warning] threshold: bad value 'lots' (give a number in the "
                 "metric's unit)");
    expect_error(x, "[temp_critical]\nduration = 3 minutes\n",
                 "2: [temp_critical] duration: bad value '3 minutes' (give seconds or 500ms, "
                 "30s, 3m, 1h)");
    expect_error(x, "[temp_critical]\nseverity = fatal\n",
                 "2: [temp_critical] severity: bad value 'fatal' (give warning or critical)");
    expect_error(x, "threshold = 80\n",
                 "1: threshold: key outside a section: put it under [alerts], [hook], [check], "
                 "[run] or a rule's [name]");
    expect_error(x, "[run]\npython = maybe\n",
                 "2: [run] python: bad value 'maybe' (give true or false)");
    expect_error(x, "[run]\npythn = false\n", "2: [run] pythn: unknown key ([run] takes python)");
    expect_error(x, "[temp_warning]\nthreshold 80\n",
                 "2: not a [section], KEY = VALUE or ; comment line");
    expect_error(x, "[Temp-Warning]\nthreshold = 80\n",
                 "2: [Temp-Warning]: a rule's name is lower-case letters, digits and '_' (at "
                 "most 39)");
    expect_error(x, "[temp_warning]\nmetric = util_gpu\n",
                 "2: [temp_warning] metric: the built-in rule temp_warning watches temperature; "
                 "to watch something else, add a rule of your own ([my_rule] with metric = ...)");
    expect_error(x, "[mine]\nmetric = watts\n",
                 "2: [mine] metric: bad value 'watts' (give a metric name: temperature, "
                 "memory_used_pct, util_gpu, power_pct, gpu_lost, job_rss_growth, "
                 "sample_read_ms, xid, ecc_double_bit)");
    expect_error(x, "[check]\nidle_temp_warnin = 40\n",
                 "2: [check] idle_temp_warnin: unknown key ([check] takes idle_temp_warning, "
                 "idle_temp_critical, held_warning_mib, held_critical_pct, latency_warning_ms, "
                 "latency_critical_ms)");
    expect_error(x, "[alerts]\nenabled = maybe\n",
                 "2: [alerts] enabled: bad value 'maybe' (give true or false)");
    expect_error(x, "[hook]\ncommand = notify \"GPU hot\"\n",
                 "2: [hook] command: 'notify \"GPU hot\"' looks like shell syntax, but hooks are "
                 "exec'd without a shell (split at spaces): put the pipeline in a script");
}

static void test_bad_rules_found_by_validation(void **state)
{
    ctx *x = *state;
    expect_error(x, "[tmep_warning]\nthreshold = 80\n",
                 "2: [tmep_warning]: no metric: a rule of your own needs metric = one of "
                 "temperature, memory_used_pct, util_gpu, power_pct, gpu_lost, job_rss_growth, "
                 "sample_read_ms, xid, ecc_double_bit (or is this a misspelt built-in rule? see "
                 "docs/alerts.md)");
    expect_error(x, "[temp_warning]\nthreshold = 80\nclear = 85\n",
                 "3: [temp_warning]: clear 85 is above threshold 80: the rule resolves when the "
                 "value comes back to clear, so clear must lie on the other side");
    expect_error(x, "[xid]\nduration = 10s\n",
                 "2: [xid]: xid is an event: it takes no threshold, duration, trend or direction "
                 "(clear_duration is its quiet time)");
    expect_error(x, "[hot_mem]\nmetric = temperature\n",
                 "2: [hot_mem]: no threshold (give threshold = a number)");
    expect_error(x, "[hook]\ncommand = /nonexistent/notify --now\n",
                 "2: alert hook: command not found: /nonexistent/notify (check the name, or "
                 "give its path)");
}

static void test_long_line_and_first_error_wins(void **state)
{
    ctx *x = *state;
    char text[600];
    snprintf(text, sizeof text, "[temp_warning]\n; %0300d\nthreshold = x\n", 0);
    expect_error(x, text, "2: line longer than 197 characters");
    expect_error(x, "[temp_warning]\nthreshold = x\n[temp_critical]\nbad line\n",
                 "2: [temp_warning] threshold: bad value 'x' (give a number in the metric's "
                 "unit)");
}

/* The hook runs without a shell: every piece of shell syntax is refused at load, with FILE:LINE,
 * including a ';' that inih would drop as an inline comment. */
static void test_hook_shell_syntax(void **state)
{
    ctx *x = *state;
    static const char *const cmds[] = {"/bin/echo a;b",      "/bin/echo a | wc", "/bin/echo a && b",
                                       "/bin/echo a > f",    "/bin/echo $(id)",  "/bin/echo `id`",
                                       "/bin/echo ok ; rm f"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "[alerts]\nenabled = true\n[hook]\ncommand = %s\n", cmds[i]);
        gw_error err = {0};
        assert_int_equal(load(x, "sh.ini", text, &err), GW_E_FORMAT);
        char want[512];
        snprintf(want, sizeof want, "%s/sh.ini:4: [hook] command: ", x->dir);
        assert_memory_equal(err.msg, want, strlen(want));
        assert_non_null(strstr(err.msg, "exec'd without a shell"));
        assert_non_null(strstr(err.msg, "put the pipeline in a script"));
    }
    expect_error(x, "[hook]\ncommand = /bin/echo ok ; comment\n",
                 "2: [hook] command: ';' is shell syntax, but hooks are exec'd without a shell: "
                 "put the pipeline in a script (and comments on a line of their own)");
    /* the same through --set, where no INI comment rule applies */
    gw_error err = {0};
    assert_int_equal(gw_config_set(&x->c, "hook.command=/bin/echo a;b", &err), GW_E_FORMAT);
    assert_string_equal(err.msg, "--set hook.command=/bin/echo a;b: [hook] command: '/bin/echo "
                                 "a;b' looks like shell syntax, but hooks are exec'd without a "
                                 "shell (split at spaces): put the pipeline in a script");
    /* a ';' comment elsewhere, and on its own line in [hook], stays a comment */
    assert_int_equal(load(x, "ok.ini",
                          "[hook]\n; notify the team\ncommand = /bin/echo hi\n"
                          "[temp_warning]\nthreshold = 81 ; degrees\n",
                          &err),
                     GW_OK);
    assert_string_equal(x->c.alerts.hook_argv[1], "hi");
    assert_true(gw_alerts_config_find(&x->c.alerts, "temp_warning")->threshold == 81);
}

/* inih (built with INI_ALLOW_MULTILINE) would take an indented line as the previous key's new
 * value; gpuwatch refuses it. Indentation before a section's first key is harmless. */
static void test_continuation_lines(void **state)
{
    ctx *x = *state;
    const char *want = "3: indented line after a KEY = VALUE line (it would replace that value; "
                       "values are one line): remove the indentation";
    expect_error(x, "[hook]\ncommand = /bin/echo one\n  /bin/false\n", want);
    expect_error(x, "[temp_warning]\nthreshold = 80\n\tclear = 70\n", want);
    expect_error(x, "[temp_warning]\nthreshold = 80\n  [temp_critical]\n", want);
    expect_error(x, "[temp_warning]\nthreshold = 80\n\n\n  duration = 5s\n",
                 "5: indented line after a KEY = VALUE line (it would replace that value; "
                 "values are one line): remove the indentation");
    gw_error err = {0};
    assert_int_equal(load(x, "ok.ini",
                          "  [temp_warning]\n  threshold = 82\n  ; indented comment\n\n"
                          "[temp_critical]\n  threshold = 95\nclear = 90\n",
                          &err),
                     GW_OK);
    assert_true(gw_alerts_config_find(&x->c.alerts, "temp_warning")->threshold == 82);
    assert_true(gw_alerts_config_find(&x->c.alerts, "temp_critical")->threshold == 95);
    assert_true(gw_alerts_config_find(&x->c.alerts, "temp_critical")->clear == 90);
    /* after a byte order mark and with CRLF line ends as well */
    assert_int_equal(
        load(x, "bom.ini", "\xEF\xBB\xBF[hook]\r\n  command = /bin/echo bom\r\n", &err), GW_OK);
    assert_string_equal(x->c.alerts.hook_argv[1], "bom");
    expect_error(x, "\xEF\xBB\xBF[hook]\r\ncommand = /bin/echo x\r\n\t/bin/false\r\n", want);
}

/* A NUL byte is named as such (it used to read as an over-long line). */
static void test_nul_byte(void **state)
{
    ctx *x = *state;
    static const char text[] = "[temp_warning]\nthreshold = 80\nclear = 7\0\n";
    char path[1024];
    snprintf(path, sizeof path, "%s/nul.ini", x->dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose(f);
    gw_error err = {0};
    assert_int_equal(gw_config_load_file(&x->c, path, true, &err), GW_E_FORMAT);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:3: NUL byte at column 10: the file is not text (save it as plain UTF-8 text)",
             path);
    assert_string_equal(err.msg, want);
}

static void test_missing_files(void **state)
{
    ctx *x = *state;
    gw_error err = {0};
    assert_int_equal(gw_config_load_file(&x->c, "/nonexistent/g.ini", false, &err), GW_OK);
    assert_int_equal(gw_config_load_file(&x->c, "/nonexistent/g.ini", true, &err), GW_E_IO);
    assert_string_equal(err.msg, "cannot read the configuration file /nonexistent/g.ini: No such "
                                 "file or directory");
    assert_int_equal(gw_config_load_standard(&x->c, &err), GW_OK); /* neither exists */
}

static void test_set_flags(void **state)
{
    ctx *x = *state;
    gw_error err = {0};
    assert_int_equal(gw_config_set(&x->c, "memory_warning.threshold=5", &err), GW_OK);
    assert_int_equal(gw_config_set(&x->c, "memory_warning.clear=4", &err), GW_OK);
    assert_int_equal(gw_config_set(&x->c, "hook.command=/bin/echo hello there", &err), GW_OK);
    assert_int_equal(gw_config_set(&x->c, "hook.timeout=250ms", &err), GW_OK);
    assert_int_equal(gw_config_validate(&x->c, &err), GW_OK);
    assert_true(gw_alerts_config_find(&x->c.alerts, "memory_warning")->threshold == 5);
    assert_string_equal(x->c.alerts.hook_argv[0], "/bin/echo");
    assert_string_equal(x->c.alerts.hook_argv[2], "there");
    assert_null(x->c.alerts.hook_argv[3]);
    assert_string_equal(x->c.alerts.hook_path, "/bin/echo");
    assert_int_equal(x->c.alerts.hook_timeout_ms, 250);
    assert_true(x->c.run_python); /* `run` instruments Python jobs unless told not to */
    assert_int_equal(gw_config_set(&x->c, "run.python=false", &err), GW_OK);
    assert_false(x->c.run_python);
    assert_int_equal(gw_config_set(&x->c, "memory_warning=5", &err), GW_E_USAGE);
    assert_string_equal(err.msg, "--set memory_warning=5: give SECTION.KEY=VALUE (e.g. --set "
                                 "memory_warning.threshold=50)");
    assert_int_equal(gw_config_set(&x->c, "temp_warning.threshold=hot", &err), GW_E_FORMAT);
    assert_string_equal(err.msg, "--set temp_warning.threshold=hot: [temp_warning] threshold: "
                                 "bad value 'hot' (give a number in the metric's unit)");
}

/* run --help's own example: a lower threshold carries the default clear with it (92/88 -> 50/46);
 * a clear the user gave stays where it was put, and a wrong side is still an error. */
static void test_threshold_moves_default_clear(void **state)
{
    ctx *x = *state;
    gw_error err = {0};
    assert_int_equal(gw_config_set(&x->c, "memory_warning.threshold=50", &err), GW_OK);
    assert_int_equal(gw_config_validate(&x->c, &err), GW_OK);
    const gw_alert_rule *r = gw_alerts_config_find(&x->c.alerts, "memory_warning");
    assert_true(r->threshold == 50 && r->clear == 46);
    assert_int_equal(gw_config_set(&x->c, "temp_warning.clear=70", &err), GW_OK);
    assert_int_equal(gw_config_set(&x->c, "temp_warning.threshold=75", &err), GW_OK);
    assert_true(gw_alerts_config_find(&x->c.alerts, "temp_warning")->clear == 70);
    assert_int_equal(gw_config_set(&x->c, "temp_warning.threshold=60", &err), GW_OK);
    assert_int_equal(gw_config_validate(&x->c, &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "clear 70 is above threshold 60"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults_are_the_checklist, setup, teardown),
        cmocka_unit_test_setup_teardown(test_example_file_is_complete_and_valid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sources_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_files_name_file_line_and_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_rules_found_by_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_line_and_first_error_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_shell_syntax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_continuation_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threshold_moves_default_clear, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

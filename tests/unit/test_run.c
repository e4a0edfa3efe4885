/* Unit tests for src/run (output line splitting, command resolution, environment) and
 * src/summary (end-of-run aggregates). */
#include "test_helpers.h"

#include "run/child.h"
#include "run/output.h"
#include "summary/run_summary.h"

#include <math.h>

typedef struct lines {
    char got[8][128];
    int64_t ms[8];
    int n;
} lines;

static void collect(void *ctx, const char *line, int64_t wall_ms)
{
    lines *l = ctx;
    if (l->n < 8) {
        l->ms[l->n] = wall_ms;
        snprintf(l->got[l->n++], sizeof l->got[0], "%s", line);
    }
}

static void test_line_splitter(void **state)
{
    (void)state;
    lines l = {0};
    gw_line_splitter ls = {.fn = collect, .ctx = &l};
    /* colour codes, a progress bar redrawn with \r, a line split across two reads, an OSC title */
    const char *a = "\x1b[1;32mEpoch 1/3\x1b[0m\n 10%|#  |\r 50%|## |\rdone wi";
    const char *b = "th it\r\n\x1b]0;title\x07last";
    gw_line_splitter_feed(&ls, a, strlen(a), 1);
    gw_line_splitter_feed(&ls, b, strlen(b), 2);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.got[0], "Epoch 1/3");
    assert_string_equal(l.got[1], " 10%|#  |");
    assert_string_equal(l.got[2], " 50%|## |");
    assert_string_equal(l.got[3], "done with it");
    /* a line's time is when its last character came, not when the next '\r' ended it */
    assert_int_equal(l.ms[2], 1);
    assert_int_equal(l.ms[3], 2);
    gw_line_splitter_finish(&ls, 3);
    assert_int_equal(l.n, 5);
    assert_string_equal(l.got[4], "last");
    assert_int_equal(l.ms[4], 2);
}

static void test_unterminated_escape_ends_with_its_line(void **state)
{
    (void)state;
    lines l = {0};
    gw_line_splitter ls = {.fn = collect, .ctx = &l};
    /* one stray ESC ] (an OSC never ended) hid every later line (issue 26); a CSI cut by a
     * control byte, a DCS string ended by ESC \ */
    const char *a = "a\x1b]0;junk\nEpoch 2/3\nb\x1b[12\tc\n\x1bPq#0\x1b\\d\n";
    gw_line_splitter_feed(&ls, a, strlen(a), 1);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.got[0], "a");
    assert_string_equal(l.got[1], "Epoch 2/3");
    assert_string_equal(l.got[2], "b\tc");
    assert_string_equal(l.got[3], "d");
}

static void test_long_line_is_cut(void **state)
{
    (void)state;
    lines l = {0};
    gw_line_splitter ls = {.fn = collect, .ctx = &l};
    char *big = malloc(GW_OUTPUT_LINE_MAX * 2 + 2);
    memset(big, 'x', GW_OUTPUT_LINE_MAX * 2);
    big[GW_OUTPUT_LINE_MAX * 2] = '\n';
    gw_line_splitter_feed(&ls, big, GW_OUTPUT_LINE_MAX * 2 + 1, 1);
    assert_int_equal(l.n, 1);
    assert_int_equal(strlen(ls.line), GW_OUTPUT_LINE_MAX);
    free(big);
}

static void test_resolve(void **state)
{
    (void)state;
    char *p = NULL;
    gw_error err = {0};
    assert_int_equal(gw_child_resolve("sh", &p, &err), GW_OK);
    assert_non_null(strstr(p, "/sh"));
    free(p);
    assert_int_equal(gw_child_resolve("no-such-command-gw", &p, &err), GW_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "command not found: no-such-command-gw"));
    assert_int_equal(gw_child_resolve("/etc/passwd", &p, &err), GW_E_USAGE);
    assert_non_null(strstr(err.msg, "cannot execute"));
    assert_int_equal(gw_child_resolve("/tmp", &p, &err), GW_E_USAGE);
    assert_int_equal(gw_child_resolve("", &p, &err), GW_E_NOTFOUND);
}

static void test_env(void **state)
{
    (void)state;
    setenv("GW_TEST_A", "old", 1);
    const char *extra[] = {"GW_TEST_A=new", "GPUWATCH_RUN_DIR=/x", NULL};
    char **env = gw_child_env(extra);
    int a = 0, dir = 0;
    for (char **e = env; *e; e++) {
        if (strncmp(*e, "GW_TEST_A=", 10) == 0) {
            a++;
            assert_string_equal(*e, "GW_TEST_A=new");
        }
        if (strcmp(*e, "GPUWATCH_RUN_DIR=/x") == 0)
            dir++;
    }
    assert_int_equal(a, 1);
    assert_int_equal(dir, 1);
    gw_child_free_env(env);
}

static void feed(gw_sink *sink, gw_sample *s, int64_t t_ms, double util, double power_w,
                 double mem_mib, double sm)
{
    gw_gpu_sample *g = &s->gpus[0];
    g->valid = 0;
    gw_set(g, GW_F_UTIL_GPU_PCT, util);
    gw_set(g, GW_F_POWER_DRAW_W, power_w);
    gw_set(g, GW_F_POWER_LIMIT_W, 700);
    gw_set(g, GW_F_MEM_USED_MIB, mem_mib);
    gw_set(g, GW_F_TEMP_GPU_C, 40 + util / 10);
    if (!isnan(sm))
        gw_set(g, GW_F_GPM_SM_ACTIVE_PCT, sm);
    s->mono_ns = t_ms * 1000000;
    s->host = (gw_host_sample){NAN, NAN, NAN, 150, 1000 + util, 3};
    sink->on_sample(sink->ctx, s);
}

static void test_summary(void **state)
{
    (void)state;
    gw_run_summary *rs = gw_run_summary_new();
    gw_sink sink = gw_run_summary_as_sink(rs);
    gw_device_info dev = {.index = 2, .memory_total_mib = 1000, .power_limit_w = 700};
    sink.on_start(sink.ctx, &dev, 1);
    gw_gpu_sample g = {0};
    gw_sample s = {.gpu_count = 1, .gpus = &g};
    /* 20 samples, 1 s apart: the sink counts them; the figures are handed in */
    for (int i = 0; i < 20; i++)
        feed(&sink, &s, i * 1000, i * 5, 360, 100 + i, i < 10 ? NAN : 50);
    gw_gpu_summary o;
    assert_true(gw_run_summary_gpu(rs, 0, &o));
    assert_false(gw_run_summary_gpu(rs, 1, &o));
    assert_int_equal(o.samples, 20);
    assert_true(isnan(o.util_mean_pct) && isnan(o.energy_wh)); /* nothing set yet */
    assert_float_equal(o.power_limit_w, 700, 0);               /* the device's, until set */
    gw_gpu_summary f = {.util_mean_pct = 47.5,
                        .util_p95_pct = 90.25,
                        .sm_active_mean_pct = 50,
                        .mem_peak_mib = 119,
                        .mem_total_mib = 1000,
                        .temp_max_c = 49.5,
                        .power_mean_w = 360,
                        .power_max_w = 361,
                        .power_limit_w = 600,
                        .energy_wh = 1.9,
                        .energy_partial = true};
    assert_false(gw_run_summary_set_gpu(rs, 0, &f)); /* NVML index 0 was not sampled */
    assert_true(gw_run_summary_set_gpu(rs, 2, &f));
    gw_run_summary_set_job(rs, 1095, 150, 3);
    assert_true(gw_run_summary_gpu(rs, 0, &o));
    assert_float_equal(o.util_p95_pct, 90.25, 0);
    assert_float_equal(o.power_limit_w, 600, 0);
    assert_int_equal(o.samples, 20);
    char *buf = NULL;
    size_t len = 0;
    FILE *f2 = open_memstream(&buf, &len);
    gw_run_summary_print(rs, f2);
    fclose(f2);
    assert_non_null(strstr(buf, "20 samples over 19 s"));
    assert_non_null(strstr(buf, "  90 %")); /* p95 printed with no decimals */
    assert_non_null(strstr(buf, " 1.90 Wh\n"));
    assert_non_null(strstr(buf, "GPU 2 energy is partial"));
    assert_non_null(strstr(buf, " 60 %")); /* 361 W of a 600 W limit */
    for (char *line = buf; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        assert_true(strcspn(line, "\n") <= 80); /* plain output fits 80 columns */
    assert_non_null(strstr(buf, "peak RSS 1095 MiB"));
    assert_non_null(strstr(buf, "mean CPU 150 %"));
    free(buf);
    /* the GPU is lost: that is why its energy is partial, not gaps in the recording */
    s.gpus[0].lost = true;
    sink.on_sample(sink.ctx, &s);
    f2 = open_memstream(&buf, &len);
    gw_run_summary_print(rs, f2);
    fclose(f2);
    assert_non_null(strstr(buf, "GPU 2 was lost: its figures end where it stopped answering\n"));
    assert_null(strstr(buf, "partial"));
    free(buf);
    gw_run_summary_free(rs);
}

static void test_summary_absent(void **state)
{
    (void)state;
    gw_run_summary *rs = gw_run_summary_new();
    gw_sink sink = gw_run_summary_as_sink(rs);
    gw_device_info dev = {.index = 3, .memory_total_mib = NAN, .power_limit_w = NAN};
    sink.on_start(sink.ctx, &dev, 1);
    gw_gpu_sample g = {0};
    gw_sample s = {.gpu_count = 1, .gpus = &g, .host = {NAN, NAN, NAN, NAN, NAN, NAN}};
    sink.on_sample(sink.ctx, &s);
    gw_gpu_summary o;
    gw_run_summary_gpu(rs, 0, &o);
    assert_true(isnan(o.util_mean_pct));
    assert_true(isnan(o.util_p95_pct));
    assert_true(isnan(o.energy_wh));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gw_run_summary_print(rs, f);
    fclose(f);
    assert_null(strstr(buf, "nan")); /* absent values print as '-', never as nan or 0 */
    assert_non_null(strstr(buf, "  3 "));
    assert_null(strstr(buf, "job:"));
    free(buf);
    gw_run_summary_free(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_splitter),
        cmocka_unit_test(test_long_line_is_cut),
        cmocka_unit_test(test_unterminated_escape_ends_with_its_line),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_summary_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* chart/ and plot/: the time grid, min/max decimation, traces and references, throttle bands,
 * axis helpers, --metrics parsing, and the HTML report's escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "chart/chart.h"
#include "plot/plot.h"
#include "report/report.h"
#include "synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A data trace over borrowed arrays. */
static gw_trace trace_of(const int64_t *t, const double *v, size_t n)
{
    gw_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.n = n, tr.t_ms = t, tr.v = v, tr.scale = 1, tr.gpu = 0, tr.constant = NAN;
    return tr;
}

static void test_raw_grid_is_the_union_plus_span(void **state)
{
    (void)state;
    int64_t ta[] = {1000, 2000, 3000}, tb[] = {1500, 2000, 3500};
    double va[] = {1, 2, 3}, vb[] = {4, NAN, 6};
    gw_trace tr[2] = {trace_of(ta, va, 3), trace_of(tb, vb, 3)};
    gw_chart_grid g;
    gw_chart_grid_build(tr, 2, 0, 4000, 100, &g);
    assert_false(g.binned);
    int64_t want[] = {0, 1000, 1500, 2000, 3000, 3500, 4000};
    assert_int_equal(g.n, 7);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(g.t_ms[i], want[i]);
    gw_placed p;
    gw_chart_place(&g, &tr[1], &p);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.idx[0], 2);
    assert_int_equal(p.idx[1], 3);
    assert_int_equal(p.idx[2], 5);
    assert_true(p.v[0] == 4 && isnan(p.v[1]) && p.v[2] == 6); /* absent stays a gap */
    gw_placed_free(&p);
    gw_chart_grid_free(&g);
}

/* 10 Hz for 1000 s into 100 columns: each column keeps its min and max in time order. */
static void test_binned_keeps_min_max_in_order(void **state)
{
    (void)state;
    enum { N = 10000 };
    int64_t *t = malloc(N * sizeof *t);
    double *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++)
        t[i] = (int64_t)i * 100, v[i] = 50 + (double)(i % 7);
    v[4321] = 700; /* one-sample spike in column 43 */
    v[6789] = -5;  /* one-sample dip in column 67, before its max */
    for (size_t i = 8000; i < 8100; i++)
        v[i] = NAN; /* column 80 entirely absent */
    gw_trace tr = trace_of(t, v, N);
    gw_chart_grid g;
    gw_chart_grid_build(&tr, 1, 0, N * 100, 100, &g);
    assert_true(g.binned);
    assert_int_equal(g.n, 200);
    assert_int_equal(g.t_ms[0], 2500); /* columns of 10 s: points at a quarter and three quarters */
    assert_int_equal(g.t_ms[1], 7500);
    gw_placed p;
    gw_chart_place(&g, &tr, &p);
    double max = -INFINITY, min = INFINITY;
    size_t gaps = 0;
    for (size_t k = 0; k < p.n; k++) {
        if (isnan(p.v[k])) {
            gaps++;
            assert_int_equal(p.idx[k], 160); /* column 80's first point */
            continue;
        }
        max = fmax(max, p.v[k]), min = fmin(min, p.v[k]);
    }
    assert_int_equal(gaps, 1);
    assert_true(max == 700 && min == -5);
    assert_int_equal(p.n, 199); /* 99 columns x 2 + one gap */
    for (size_t k = 0; k < p.n; k++)
        if (p.idx[k] == 134) { /* column 67: the dip (row 6789) comes after the max (6705) */
            assert_true(p.v[k] == 56);
            assert_true(p.v[k + 1] == -5);
        } else if (p.idx[k] == 86) { /* column 43: the min (row 4305) before the spike (4321) */
            assert_true(p.v[k] == 50);
            assert_true(p.v[k + 1] == 700);
        }
    gw_placed_free(&p);
    gw_chart_grid_free(&g);
    free(t);
    free(v);
}

/* A column holding one distinct value gets one point, in the half where it occurred. */
static void test_binned_single_value_half(void **state)
{
    (void)state;
    int64_t t[] = {100, 900, 1000, 1100, 2600, 2700, 2800, 3000, 3100, 3200, 3300, 3400};
    double v[] = {1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4};
    gw_trace tr = trace_of(t, v, 12);
    gw_chart_grid g;
    gw_chart_grid_build(&tr, 1, 0, 4000, 4, &g); /* 12 times > 8: binned, columns of 1000 ms */
    assert_true(g.binned);
    gw_placed p;
    gw_chart_place(&g, &tr, &p);
    assert_int_equal(p.n, 4);
    assert_int_equal(p.idx[0], 0); /* column 0: 1 first at 100 (first half) */
    assert_int_equal(p.idx[1], 2); /* column 1: 2 */
    assert_int_equal(p.idx[2], 5); /* column 2: 3 first at 2600 (second half) */
    assert_int_equal(p.idx[3], 6); /* column 3: 4 */
    assert_true(p.v[0] == 1 && p.v[1] == 2 && p.v[2] == 3 && p.v[3] == 4);
    gw_placed_free(&p);
    gw_chart_grid_free(&g);
}

static gw_analysis *two_gpu_analysis(gw_series **out)
{
    gw_series *s = synth_new(2, 100);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 100, 90);
    synth_set(s, 1, GW_F_UTIL_GPU_PCT, 0, 100, 80);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, 100, 2048);
    synth_set(s, 1, GW_F_MEM_USED_MIB, 0, 100, 4096);
    synth_set(s, 0, GW_F_POWER_DRAW_W, 0, 100, 500);
    synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 10, 20, 0x4);
    synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 22, 25, 0x4);
    synth_set(s, 1, GW_F_CLOCKS_EVENT_REASONS, 50, 51, 0x20);
    s->gpus[1]->power_limit_w = 600;
    assert_int_equal(gw_series_finish(s, NULL), GW_OK);
    *out = s;
    return gw_analyze(s);
}

static void test_traces_and_references(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = two_gpu_analysis(&s);
    gw_trace_list l = {0, 0, NULL};
    assert_int_equal(gw_chart_traces(a, GW_CM_MEMORY, 0, &l), 3);
    assert_string_equal(l.v[0].label, "GPU 0");
    assert_true(fabs(l.v[1].v[0] * l.v[1].scale - 4.0) < 1e-9); /* MiB shown as GiB */
    assert_true(l.v[2].reference);
    assert_string_equal(l.v[2].label, "total (all GPUs)"); /* same total: one line */
    assert_true(fabs(l.v[2].constant - 80000.0 / 1024) < 1e-9);
    gw_trace_list_free(&l);
    /* power: only GPU 0 has power.draw, so one trace and GPU 0's limit */
    assert_int_equal(gw_chart_traces(a, GW_CM_POWER, 0, &l), 2);
    assert_string_equal(l.v[1].label, "limit");
    assert_true(l.v[1].constant == 700);
    gw_trace_list_free(&l);
    /* no temperature recorded: nothing at all, not a line at 0 */
    assert_int_equal(gw_chart_traces(a, GW_CM_TEMP, 0, &l), 0);
    gw_trace_list_free(&l);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_proc_traces_cap_and_sum(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 10);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 10, 90);
    for (int t = 0; t < 10; t++)
        for (long pid = 1; pid <= 4; pid++)
            if (!(pid == 4 && t >= 5)) /* pid 4 exits at t = 5 */
                gw_series_add_proc(s, 0, SYNTH_T0_MS + t * 1000, 0, pid, "python3",
                                   (double)(pid * 1000), pid == 3 ? 0 : 1);
    assert_int_equal(gw_series_finish(s, NULL), GW_OK);
    gw_analysis *a = gw_analyze(s);
    gw_trace_list l = {0, 0, NULL};
    assert_int_equal(gw_chart_traces(a, GW_CM_PROC_MEM, 2, &l), 3);
    assert_string_equal(l.v[0].label, "GPU 0 python3 (4)");
    assert_string_equal(l.v[1].label, "GPU 0 python3 (3), not in job");
    assert_string_equal(l.v[2].label, "2 other processes");
    assert_int_equal(l.v[0].n, 10);
    assert_true(l.v[0].v[4] == 4000 && isnan(l.v[0].v[5])); /* gone: a gap, not 0 */
    assert_true(l.v[2].v[0] == 3000);                       /* pids 1 + 2 */
    gw_trace_list_free(&l);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_bands_merge(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = two_gpu_analysis(&s);
    gw_band *b = NULL;
    size_t n = gw_chart_bands(a, 0, &b);
    assert_int_equal(n, 3);
    assert_true(b[0].gpu == 0 && b[0].kind == GW_THROTTLE_POWER);
    assert_int_equal(b[0].start_ms - SYNTH_T0_MS, 10000);
    assert_int_equal(b[0].end_ms - SYNTH_T0_MS, 20000);
    assert_int_equal(b[1].start_ms - SYNTH_T0_MS, 22000);
    assert_true(b[2].gpu == 1 && b[2].kind == GW_THROTTLE_THERMAL);
    assert_int_equal(b[2].end_ms - b[2].start_ms, 1000);
    free(b);
    n = gw_chart_bands(a, 2000, &b); /* 2 s apart: joined */
    assert_int_equal(n, 2);
    assert_int_equal(b[0].end_ms - SYNTH_T0_MS, 25000);
    free(b);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_axis_helpers(void **state)
{
    (void)state;
    assert_true(gw_plot_nice_step(0, 100, 5) == 20);
    assert_true(gw_plot_nice_step(0, 143, 5) == 50);
    assert_true(fabs(gw_plot_nice_step(0, 0.7, 5) - 0.2) < 1e-12);
    assert_true(gw_plot_time_step(48, 10) == 5);
    assert_true(gw_plot_time_step(86400, 10) == 10800);
    assert_true(gw_plot_time_step(86400 * 30, 10) == 86400 * 3);
    char buf[32];
    gw_plot_format_elapsed(95, 600, buf, sizeof buf);
    assert_string_equal(buf, "1:35");
    gw_plot_format_elapsed(5400, 86400, buf, sizeof buf);
    assert_string_equal(buf, "1:30");
    gw_plot_format_elapsed(90000, 200000, buf, sizeof buf);
    assert_string_equal(buf, "1d 1:00");
    assert_int_equal(gw_plot_format_of("a/b.PNG"), GW_PLOT_PNG);
    assert_int_equal(gw_plot_format_of("x.svg"), GW_PLOT_SVG);
    assert_int_equal(gw_plot_format_of("x.pdf"), -1);
    assert_int_equal(gw_plot_format_of("dir.png/x"), -1);
}

static void test_parse_metrics(void **state)
{
    (void)state;
    gw_plot_opts o;
    gw_error err = {0};
    assert_int_equal(gw_plot_parse_metrics(GW_PLOT_DEFAULT_METRICS, &o, &err), GW_OK);
    assert_int_equal(o.npanels, 2);
    assert_int_equal(o.metric[0][0], GW_CM_TEMP);
    assert_int_equal(o.metric[0][1], GW_CM_MEMORY);
    assert_int_equal(o.metric[1][0], GW_CM_UTIL);
    assert_int_equal(o.metric[1][1], GW_CM_POWER);
    assert_int_equal(gw_plot_parse_metrics("utilization, mem ,clock", &o, &err), GW_OK);
    assert_int_equal(o.npanels, 2);
    assert_int_equal(o.metric[1][0], GW_CM_CLOCK);
    assert_int_equal(o.metric[1][1], -1);
    assert_int_equal(gw_plot_parse_metrics("temp,fan", &o, &err), GW_E_USAGE);
    assert_non_null(strstr(err.msg, "unknown metric 'fan'"));
    assert_non_null(strstr(err.msg, "known: util, sm"));
    assert_int_equal(gw_plot_parse_metrics(",", &o, &err), GW_E_USAGE);
    assert_int_equal(
        gw_plot_parse_metrics("util,util,util,util,util,util,util,util,util", &o, &err),
        GW_E_USAGE);
}

/* Names from the inputs cannot inject markup into the page or close the data block. */
static void test_html_escapes_inputs(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 30);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 30, 90);
    free(s->gpus[0]->name);
    s->gpus[0]->name = strdup("<img src=x onerror=alert(1)>");
    for (int t = 0; t < 30; t++)
        gw_series_add_proc(s, 0, SYNTH_T0_MS + t * 1000, 0, 7, "</script><b>x", 100, 1);
    assert_int_equal(gw_series_finish(s, NULL), GW_OK);
    gw_analysis *a = gw_analyze(s);
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    gw_report_html(f, a, NULL);
    fclose(f);
    assert_null(strstr(html, "<img src=x"));
    assert_non_null(strstr(html, "&lt;img src=x onerror=alert(1)&gt;"));
    assert_null(strstr(html, "</script><b>"));
    assert_non_null(strstr(html, "\\u003c/script\\u003e\\u003cb\\u003ex (7)"));
    /* the page fetches nothing: a CSP forbids it, and no src= or href= points anywhere */
    assert_non_null(strstr(html, "default-src 'none'"));
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "href=\"http"));
    free(html);
    gw_analysis_free(a);
    gw_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_grid_is_the_union_plus_span),
        cmocka_unit_test(test_binned_keeps_min_max_in_order),
        cmocka_unit_test(test_binned_single_value_half),
        cmocka_unit_test(test_traces_and_references),
        cmocka_unit_test(test_proc_traces_cap_and_sum),
        cmocka_unit_test(test_bands_merge),
        cmocka_unit_test(test_axis_helpers),
        cmocka_unit_test(test_parse_metrics),
        cmocka_unit_test(test_html_escapes_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

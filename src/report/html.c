/* The self-contained HTML report: page, chart data and embedded assets (see report.h). */
#include "report/inproc.h"
#include "report/report.h"

#include "chart/chart.h"
#include "report/assets.h"
#include "report/html_priv.h"
#include "util/gw_buf.h"
#include "util/gw_file.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One axis of a chart. */
typedef struct axis_spec {
    const char *label; /* "power [W]" */
    bool zero;         /* the axis starts at 0 */
    int max;           /* the axis reaches at least this value; 0: as the data go */
} axis_spec;

/* One chart of the page: up to three metrics on up to two axes. */
typedef struct chart_spec {
    const char *id;
    const char *title;
    int nmetrics;
    gw_chart_metric metrics[3];
    int axis_of[3]; /* 0 left, 1 right */
    int naxes;
    axis_spec axes[2];
    bool bands; /* throttle bands on this chart */
} chart_spec;

static const chart_spec charts[] = {
    {"util",
     "GPU-Util (solid) with SM activity (dashed) and tensor activity (dotted)",
     3,
     {GW_CM_UTIL, GW_CM_SM, GW_CM_TENSOR},
     {0, 0, 0},
     1,
     {{"utilization [%]", true, 100}},
     false},
    {"steps",
     "Training steps per second (from the job's progress bars)",
     1,
     {GW_CM_STEPS},
     {0},
     1,
     {{"steps/s", true, 0}},
     false},
    {"memory",
     "Memory used (dashed: total)",
     1,
     {GW_CM_MEMORY},
     {0},
     1,
     {{"memory [GiB]", true, 0}},
     false},
    {"temp",
     "Temperature (dashed: slowdown threshold)",
     1,
     {GW_CM_TEMP},
     {0},
     1,
     {{"temperature [°C]", false, 0}},
     false},
    {"power", "Power (dashed: limit)", 1, {GW_CM_POWER}, {0}, 1, {{"power [W]", true, 0}}, false},
    {"clock",
     "SM clock (bands: throttle reasons active)",
     1,
     {GW_CM_CLOCK},
     {0},
     1,
     {{"SM clock [MHz]", true, 0}},
     true},
    {"host",
     "Job CPU (solid, 100 % = one core) and RSS (dashed)",
     2,
     {GW_CM_CPU, GW_CM_RSS},
     {0, 1},
     2,
     {{"job CPU [%]", true, 0}, {"job RSS [GiB]", true, 0}},
     false},
    {"roles",
     "CPU by role: each role's busiest process against one core (dashed): the training process "
     "at it is cpu_bound, a DataLoader worker at it input_pipeline",
     1,
     {GW_CM_ROLES},
     {0},
     1,
     {{"% of one core", true, 120}},
     false},
    {"procs",
     "GPU memory per process",
     1,
     {GW_CM_PROC_MEM},
     {0},
     1,
     {{"GPU memory [GiB]", true, 0}},
     false},
};
enum { NCHARTS = sizeof charts / sizeof charts[0] };

/* A JSON string; '<' is written as \u003c so that no "</script" can close the data block. */
static void json_str(gw_buf *b, const char *s)
{
    gw_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            gw_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            gw_buf_printf(b, "\\u%04x", *p);
        else
            gw_buf_append(b, (const char *)p, 1);
    }
    gw_buf_puts(b, "\"");
}

/* A number with at most `decimals` digits after the point, trailing zeros dropped; null when
 * absent or absurd (gw_fmt.h). */
static void json_num(gw_buf *b, double x, int decimals)
{
    gw_fmt_buf_fixed(b, x, decimals, GW_FMT_TRIM, "null");
}

static void json_time_s(gw_buf *b, int64_t ms)
{
    json_num(b, (double)ms / 1000.0, 3);
}

/* The series of one trace on the grid: {"label", "gpu", "metric", "axis", "ref", then "c" (a
 * constant), or "v" (values) with "i" (delta-encoded grid indices) unless it has every point}. */
static void series_json(gw_buf *b, const gw_chart_grid *g, const gw_trace *t, const char *label,
                        int axis)
{
    const gw_chart_metric_info *mi = &gw_chart_metrics[t->metric];
    gw_buf_puts(b, "{\"label\":");
    json_str(b, label);
    gw_buf_printf(b, ",\"gpu\":%d,\"metric\":\"%s\",\"axis\":%d", t->gpu, mi->key, axis);
    if (t->reference) {
        gw_buf_puts(b, ",\"ref\":true,\"c\":");
        json_num(b, t->constant, mi->decimals);
        gw_buf_puts(b, "}");
        return;
    }
    gw_placed p;
    gw_chart_place(g, t, &p);
    if (p.n != g->n) {
        gw_buf_puts(b, ",\"i\":[");
        for (size_t k = 0; k < p.n; k++)
            gw_buf_printf(b, "%s%zu", k ? "," : "", k ? p.idx[k] - p.idx[k - 1] : p.idx[0]);
        gw_buf_puts(b, "]");
    }
    gw_buf_puts(b, ",\"v\":[");
    for (size_t k = 0; k < p.n; k++) {
        if (k)
            gw_buf_puts(b, ",");
        json_num(b, p.v[k], mi->decimals);
    }
    gw_buf_puts(b, "]}");
    gw_placed_free(&p);
}

/* True when a data trace has a row. */
static bool has_data(const gw_trace_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i].reference && l->v[i].n > 0)
            return true;
    return false;
}

/* The axes; each one's scale is named by the unit of its first metric. */
static void axes_json(gw_buf *b, const chart_spec *c)
{
    gw_buf_puts(b, ",\"axes\":[");
    for (int ax = 0; ax < c->naxes; ax++) {
        gw_chart_metric m = c->metrics[0];
        for (int k = c->nmetrics - 1; k >= 0; k--)
            if (c->axis_of[k] == ax)
                m = c->metrics[k];
        gw_buf_printf(b, "%s{\"unit\":", ax ? "," : "");
        json_str(b, gw_chart_metrics[m].unit);
        gw_buf_puts(b, ",\"label\":");
        json_str(b, c->axes[ax].label);
        gw_buf_printf(b, ",\"zero\":%s", c->axes[ax].zero ? "true" : "false");
        if (c->axes[ax].max)
            gw_buf_printf(b, ",\"max\":%d", c->axes[ax].max);
        gw_buf_puts(b, "}");
    }
    gw_buf_puts(b, "]");
}

/* Series label: the trace's, with the metric's name when the chart shows several metrics. */
static char *series_label(const chart_spec *c, const gw_trace *t)
{
    if (c->nmetrics == 1 || t->reference)
        return xstrdup(t->label);
    return xasprintf("%s %s", t->label, gw_chart_metrics[t->metric].label);
}

/* One chart's JSON object, or nothing (false) when none of its metrics has data. */
static bool chart_json(gw_buf *b, const gw_analysis *a, const chart_spec *c, const gw_html_opts *o,
                       int64_t t0, int64_t t1)
{
    gw_trace_list l = {0, 0, NULL};
    int *axis = NULL;
    size_t axis_cap = 0;
    for (int k = 0; k < c->nmetrics; k++) {
        size_t before = l.n;
        gw_chart_traces(a, c->metrics[k], o->max_procs, &l);
        axis = xgrow(axis, &axis_cap, l.n + 1, sizeof *axis);
        for (size_t i = before; i < l.n; i++)
            axis[i] = c->axis_of[k];
    }
    bool any = has_data(&l);
    if (any) {
        gw_chart_grid g;
        gw_chart_grid_build(l.v, l.n, t0, t1, o->columns, &g);
        gw_buf_printf(b, "{\"id\":\"%s\",\"title\":", c->id);
        json_str(b, c->title);
        gw_buf_printf(b, ",\"bands\":%s,\"binned\":%s,\"x\":[", c->bands ? "true" : "false",
                      g.binned ? "true" : "false");
        for (size_t k = 0; k < g.n; k++)
            gw_buf_printf(b, "%s%lld", k ? "," : "",
                          (long long)(g.t_ms[k] - (k ? g.t_ms[k - 1] : t0)));
        gw_buf_puts(b, "]");
        axes_json(b, c);
        gw_buf_puts(b, ",\"series\":[");
        for (size_t i = 0; i < l.n; i++) {
            char *label = series_label(c, &l.v[i]);
            gw_buf_puts(b, i ? "," : "");
            series_json(b, &g, &l.v[i], label, axis[i]);
            free(label);
        }
        gw_buf_puts(b, "]}");
        gw_chart_grid_free(&g);
    }
    free(axis);
    gw_trace_list_free(&l);
    return any;
}

static void markers_json(gw_buf *b, const gw_analysis *a, const gw_html_opts *o)
{
    gw_buf_puts(b, ",\"epochs\":[");
    for (size_t k = 0; k < a->nepochs; k++) {
        const gw_epoch *e = &a->epochs[k];
        char label[64];
        if (e->total >= 0)
            snprintf(label, sizeof label, "epoch %ld/%ld", e->number, e->total);
        else
            snprintf(label, sizeof label, "epoch %ld", e->number);
        gw_buf_puts(b, k ? ",{\"t\":" : "{\"t\":");
        json_time_s(b, e->start_ms);
        gw_buf_puts(b, ",\"label\":");
        json_str(b, label);
        gw_buf_puts(b, "}");
    }
    gw_buf_puts(b, "],\"verdicts\":[");
    for (size_t i = 0; i < a->verdicts.n; i++) {
        const gw_verdict *v = &a->verdicts.v[i];
        gw_buf_printf(b, "%s{\"id\":\"%s\",\"severity\":\"%s\",\"gpu\":%d,\"start\":", i ? "," : "",
                      gw_verdict_name(v->id), gw_severity_name(v->severity), v->gpu);
        json_time_s(b, v->start_ms);
        gw_buf_puts(b, ",\"end\":");
        json_time_s(b, v->end_ms);
        gw_buf_puts(b, "}");
    }
    gw_buf_puts(b, "],\"bandKinds\":[");
    for (int k = 0; k < GW_THROTTLE_COUNT; k++)
        gw_buf_printf(b, "%s\"%s\"", k ? "," : "", gw_throttle_name((gw_throttle)k));
    gw_buf_puts(b, "],\"bands\":[");
    gw_band *bands = NULL;
    int64_t merge_ms = (a->end_ms - a->start_ms) / (int64_t)(o->columns ? o->columns : 1);
    size_t nb = gw_chart_bands(a, merge_ms, &bands);
    for (size_t i = 0; i < nb; i++) {
        gw_buf_printf(b, "%s[%d,%d,", i ? "," : "", bands[i].gpu, (int)bands[i].kind);
        json_time_s(b, bands[i].start_ms);
        gw_buf_puts(b, ",");
        json_time_s(b, bands[i].end_ms);
        gw_buf_puts(b, "]");
    }
    free(bands);
    gw_buf_puts(b, "]");
    gw_report_marks_chart_json(b, a);
}

/* The JSON the page's script draws from (format: docs/charts.md). */
static void data_json(gw_buf *b, const gw_analysis *a, const gw_html_opts *o)
{
    int64_t t0, t1;
    gw_chart_span(a, &t0, &t1);
    gw_buf_printf(b, "{\"version\":1,\"t0\":%lld,\"dateless\":%s,\"gpus\":[", (long long)t0,
                  gw_report_dateless(a->series) ? "true" : "false");
    for (size_t i = 0; i < a->series->ngpus; i++) {
        char *label = gw_series_gpu_label(a->series, a->series->gpus[i]);
        gw_buf_puts(b, i ? ",{\"label\":" : "{\"label\":");
        json_str(b, label);
        gw_buf_puts(b, "}");
        free(label);
    }
    gw_buf_puts(b, "]");
    markers_json(b, a, o);
    gw_buf_puts(b, ",\"charts\":[");
    bool first = true;
    for (size_t c = 0; c < NCHARTS; c++) {
        size_t before = b->len;
        if (!first)
            gw_buf_puts(b, ",");
        if (chart_json(b, a, &charts[c], o, t0, t1))
            first = false;
        else
            b->len = before, b->data[before] = '\0';
    }
    gw_buf_puts(b, "]}");
}

static void put_asset(FILE *out, const unsigned char *bytes, size_t len)
{
    fwrite(bytes, 1, len, out);
}

void gw_html_head(FILE *out, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
          out);
    fprintf(out, "<meta name=\"generator\" content=\"gpuwatch %s, uPlot %s\">\n<title>",
            GPUWATCH_VERSION, gw_asset_uplot_version);
    gw_html_escape(out, title);
    fputs(" - gpuwatch report</title>\n<style>\n", out);
    put_asset(out, gw_asset_uplot_css, gw_asset_uplot_css_len);
    fputs("\n</style>\n<style>\n", out);
    put_asset(out, gw_asset_report_css, gw_asset_report_css_len);
    fputs("</style>\n</head>\n<body>\n", out);
}

void gw_html_charts_tail(FILE *out, const gw_buf *data)
{
    fputs("<h2 id=\"charts\">Charts</h2>\n<noscript>The charts need JavaScript.</noscript>\n"
          "<div id=\"gw-charts\"></div>\n<script type=\"application/json\" id=\"gw-data\">",
          out);
    fwrite(data->data, 1, data->len, out);
    fputs("</script>\n<script>\n", out);
    put_asset(out, gw_asset_uplot_js, gw_asset_uplot_js_len);
    fputs("\n</script>\n<script>\n", out);
    put_asset(out, gw_asset_report_js, gw_asset_report_js_len);
    fputs("</script>\n</body>\n</html>\n", out);
}

void gw_html_json_str(gw_buf *b, const char *s)
{
    json_str(b, s);
}

void gw_html_series_json(gw_buf *b, const gw_chart_grid *g, const gw_trace *t, const char *label,
                         int axis)
{
    series_json(b, g, t, label, axis);
}

void gw_report_html(FILE *out, const gw_analysis *a, const gw_html_opts *opts)
{
    gw_html_opts o = {GW_HTML_COLUMNS, GW_HTML_MAX_PROCS};
    if (opts && opts->columns)
        o.columns = opts->columns;
    if (opts)
        o.max_procs = opts->max_procs;
    gw_html_head(out, a->series->ninputs ? a->series->inputs[0].path : "");
    gw_html_tables(out, a);
    gw_report_inproc_html(out, a);
    gw_buf b = {NULL, 0, 0};
    data_json(&b, a, &o);
    gw_html_charts_tail(out, &b);
    gw_buf_free(&b);
}

static gw_rc write_html_to(const gw_analysis *a, const gw_html_opts *o, gw_file_out *out,
                           gw_error *err)
{
    gw_report_html(out->f, a, o);
    return gw_file_out_commit(out, err);
}

gw_rc gw_report_write_html(const gw_analysis *a, const char *path, const gw_html_opts *o,
                           gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_path(&out, path, err);
    return rc ? rc : write_html_to(a, o, &out, err);
}

gw_rc gw_report_write_html_at(const gw_analysis *a, int dirfd, const char *name, const char *label,
                              const gw_html_opts *o, gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_at(&out, dirfd, name, label, err);
    return rc ? rc : write_html_to(a, o, &out, err);
}

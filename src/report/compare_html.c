/* compare: the HTML form (compare.h): the table, then each metric's chart with one line per run
 * on a time axis that starts at each run's first row. */
#include "report/compare.h"

#include "chart/chart.h"
#include "report/html_priv.h"
#include "report/report.h"
#include "util/gw_buf.h"
#include "util/gw_file.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cmp_chart {
    const char *id, *title, *axis;
    gw_chart_metric metric;
} cmp_chart;

static const cmp_chart charts[] = {
    {"util", "GPU-Util", "utilization [%]", GW_CM_UTIL},
    {"sm", "SM activity (GPM)", "SM activity [%]", GW_CM_SM},
    {"steps", "Training steps per second (the job's progress bars)", "steps/s", GW_CM_STEPS},
    {"power", "Power", "power [W]", GW_CM_POWER},
    {"memory", "Memory used", "memory [GiB]", GW_CM_MEMORY},
};

static char letter(size_t i)
{
    return i < 26 ? (char)('A' + i) : '?';
}

static void table(FILE *out, const gw_cmp *c)
{
    fputs("<h1>gpuwatch compare</h1>\n<table class=\"compare\">\n<tr><th>run</th>", out);
    for (size_t i = 0; i < c->nruns; i++) {
        fprintf(out, "<th title=\"");
        gw_html_escape(out, c->runs[i].path);
        fprintf(out, "\">%c ", letter(i));
        gw_html_escape(out, c->runs[i].name);
        fputs("</th>", out);
    }
    for (size_t i = 1; i < c->nruns; i++)
        fprintf(out, "<th>%c/A</th>", letter(i));
    fputs("</tr>\n", out);
    for (int m = 0; m < GW_CMP_COUNT; m++) {
        fputs("<tr><td>", out);
        gw_html_escape(out, gw_cmp_metrics[m].label);
        fputs("</td>", out);
        int dec, sdec;
        gw_cmp_row_decimals(c, m, &dec, &sdec);
        for (size_t i = 0; i < c->nruns; i++) {
            char v[GW_FMT_SIZE];
            const gw_cmp_run *r = &c->runs[i];
            fprintf(out, "<td class=\"num\">%s",
                    gw_fmt_fixed(v, sizeof v, r->value[m], dec, 0, "-"));
            if (isfinite(r->value[m]) && isfinite(r->spread[m])) {
                char s[GW_FMT_SIZE];
                fprintf(out, " ±%s%%", gw_fmt_fixed(s, sizeof s, r->spread[m] * 100, sdec, 0, "-"));
            }
            fputs("</td>", out);
        }
        for (size_t i = 1; i < c->nruns; i++) {
            gw_cmp_diff d = gw_cmp_diff_of(c, i, m);
            char v[GW_FMT_SIZE];
            gw_fmt_fixed(v, sizeof v, d.ratio, 2, 0, "-");
            fprintf(out, "<td class=\"num\">%s%s%s</td>", d.beyond == 1 ? "<b>" : "", v,
                    !isfinite(d.ratio) ? ""
                    : d.beyond == 1    ? "x</b> beyond the noise"
                    : d.beyond == 0    ? "x within the noise"
                                       : "x (noise unknown)");
        }
        fputs("</tr>\n", out);
    }
    fputs("<tr><td>verdict</td>", out);
    for (size_t i = 0; i < c->nruns; i++) {
        const gw_verdict *v = c->runs[i].lead;
        fputs("<td>", out);
        if (v) {
            fprintf(out, "%s %s", gw_severity_name(v->severity), gw_verdict_name(v->id));
            if (v->cause && *v->cause) {
                fputs(", cause ", out);
                gw_html_escape(out, v->cause);
            }
        } else {
            fputs("none", out);
        }
        fputs("</td>", out);
    }
    fputs("</tr>\n</table>\n<p class=\"gw-note\">±: the spread between a run's epochs (without 2 "
          "epochs: between fifths of its steady state). A ratio is beyond the noise when it "
          "differs from 1 by more than both runs' spreads combined (root of the sum of squares). "
          "Times on the charts "
          "count from each run's first row.</p>\n",
          out);
}

/* The traces of metric m of every run, times shifted to count from the run's start, GPU slot
 * set to the run so each run has its colour. Reference lines are left out. */
static void traces_of(const gw_cmp *c, gw_chart_metric m, gw_trace_list *all, int64_t *t1)
{
    for (size_t i = 0; i < c->nruns; i++) {
        const gw_analysis *a = c->runs[i].a;
        gw_trace_list l = {0, 0, NULL};
        gw_chart_traces(a, m, 0, &l);
        for (size_t k = 0; k < l.n; k++) {
            gw_trace t = l.v[k];
            if (t.reference || t.n == 0) {
                free(t.label), free(t.owned_t), free(t.owned_v);
                continue;
            }
            int64_t *shifted = xmalloc(t.n * sizeof *shifted);
            for (size_t j = 0; j < t.n; j++)
                shifted[j] = t.t_ms[j] - a->start_ms;
            if (shifted[t.n - 1] > *t1)
                *t1 = shifted[t.n - 1];
            free(t.owned_t);
            t.owned_t = shifted;
            t.t_ms = shifted;
            char *label = a->ngpus > 1 ? xasprintf("%c %s %s", letter(i), c->runs[i].name, t.label)
                                       : xasprintf("%c %s", letter(i), c->runs[i].name);
            free(t.label);
            t.label = label;
            t.gpu = (int)i;
            all->v = xgrow(all->v, &all->cap, all->n + 1, sizeof *all->v);
            all->v[all->n++] = t;
        }
        free(l.v);
    }
}

static void data_json(gw_buf *b, const gw_cmp *c)
{
    gw_buf_puts(b, "{\"version\":1,\"t0\":0,\"dateless\":true,\"relative\":true,\"gpus\":[");
    for (size_t i = 0; i < c->nruns; i++) {
        char *label = xasprintf("%c %s", letter(i), c->runs[i].name);
        gw_buf_puts(b, i ? ",{\"label\":" : "{\"label\":");
        gw_html_json_str(b, label);
        gw_buf_puts(b, "}");
        free(label);
    }
    gw_buf_puts(b, "],\"epochs\":[],\"verdicts\":[],\"bandKinds\":[],\"bands\":[],\"charts\":[");
    bool first = true;
    for (size_t k = 0; k < sizeof charts / sizeof charts[0]; k++) {
        gw_trace_list l = {0, 0, NULL};
        int64_t t1 = 1;
        traces_of(c, charts[k].metric, &l, &t1);
        if (l.n) {
            gw_chart_grid g;
            gw_chart_grid_build(l.v, l.n, 0, t1, GW_HTML_COLUMNS, &g);
            gw_buf_printf(b, "%s{\"id\":\"%s\",\"title\":", first ? "" : ",", charts[k].id);
            gw_html_json_str(b, charts[k].title);
            gw_buf_printf(b, ",\"bands\":false,\"binned\":%s,\"x\":[", g.binned ? "true" : "false");
            for (size_t j = 0; j < g.n; j++)
                gw_buf_printf(b, "%s%lld", j ? "," : "",
                              (long long)(g.t_ms[j] - (j ? g.t_ms[j - 1] : 0)));
            gw_buf_printf(b, "],\"axes\":[{\"unit\":\"%s\",\"label\":",
                          gw_chart_metrics[charts[k].metric].unit);
            gw_html_json_str(b, charts[k].axis);
            gw_buf_puts(b, ",\"zero\":true}],\"series\":[");
            for (size_t i = 0; i < l.n; i++) {
                gw_buf_puts(b, i ? "," : "");
                gw_html_series_json(b, &g, &l.v[i], l.v[i].label, 0);
            }
            gw_buf_puts(b, "]}");
            gw_chart_grid_free(&g);
            first = false;
        }
        gw_trace_list_free(&l);
    }
    gw_buf_puts(b, "]}");
}

void gw_cmp_html(FILE *out, const gw_cmp *c)
{
    gw_html_head(out, "compare");
    table(out, c);
    gw_buf b = {NULL, 0, 0};
    data_json(&b, c);
    gw_html_charts_tail(out, &b);
    gw_buf_free(&b);
}

gw_rc gw_cmp_write_html(const gw_cmp *c, const char *path, gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_path(&out, path, err);
    if (rc)
        return rc;
    gw_cmp_html(out.f, c);
    return gw_file_out_commit(&out, err);
}

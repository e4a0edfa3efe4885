/* The tables of the HTML report: inputs, verdicts, per-GPU summary, epochs (see html_priv.h). */
#include "report/html_priv.h"
#include "report/report.h"

#include "util/gw_time.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gw_html_escape(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

/* A number cell with `dec` decimals: "" when absent. */
static void dec_cell(FILE *out, double x, int dec, const char *unit)
{
    fputs("<td class=\"num\">", out);
    if (gw_fmt_sane(x)) {
        char n[GW_FMT_SIZE];
        fprintf(out, "%s%s%s", gw_fmt_fixed(n, sizeof n, x, dec, 0, ""), *unit ? " " : "", unit);
    }
    fputs("</td>", out);
}

/* A duration in seconds with one decimal, "?" when absurd. */
static const char *secs(char *buf, size_t size, int64_t ms)
{
    return gw_fmt_fixed(buf, size, (double)ms / 1000.0, 1, 0, "?");
}

static void text_cell(FILE *out, const char *s)
{
    fputs("<td>", out);
    gw_html_escape(out, s);
    fputs("</td>", out);
}

static void label_cell(FILE *out, const gw_analysis *a, int slot)
{
    char *label = slot < 0 ? xstrdup("job") : gw_series_gpu_label(a->series, a->series->gpus[slot]);
    text_cell(out, label);
    free(label);
}

static void header_section(FILE *out, const gw_analysis *a)
{
    const gw_series *s = a->series;
    char t0[GW_RFC3339_LEN], t1[GW_RFC3339_LEN], d[GW_FMT_SIZE];
    fprintf(out, "<h1>gpuwatch report</h1>\n<p class=\"meta\">%zu GPU%s, %s%s to %s (%s s)</p>\n",
            s->ngpus, s->ngpus == 1 ? "" : "s", gw_report_dateless(s) ? "date unknown, " : "",
            gw_report_when(a, a->start_ms, t0), gw_report_when(a, a->record_end_ms, t1),
            secs(d, sizeof d, a->record_end_ms - a->start_ms));
    fputs("<ul class=\"meta\">\n", out);
    for (size_t i = 0; i < s->ninputs; i++) {
        const gw_series_input *in = &s->inputs[i];
        fputs("<li>", out);
        gw_html_escape(out, in->path);
        fprintf(out, ": %zu %s", in->rows, in->kind == GW_INPUT_TRAIN_LOG ? "timed lines" : "rows");
        if (in->rows_skipped)
            fprintf(out, ", %zu unreadable skipped (first at line %ld)", in->rows_skipped,
                    in->first_bad_line);
        if (*in->note) {
            fputs("; ", out);
            gw_html_escape(out, in->note);
        }
        if (in->job) { /* meta.json "job": whose run, on which GPUs */
            char who[256];
            fputs("<br>job: ", out);
            gw_html_escape(out, gw_job_line(in->job, who, sizeof who));
            fprintf(out, "%sGPUs from %s", *who ? "; " : "", in->job->gpus_source);
            if (in->job->gpus_note) {
                fputs(" (", out);
                gw_html_escape(out, in->job->gpus_note);
                fputs(")", out);
            }
        }
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
    for (size_t i = 0; i < s->ninputs; i++) {
        if (s->inputs[i].complete != 0)
            continue;
        fputs("<p class=\"incomplete sev-warning\"><strong>Incomplete recording:</strong> ", out);
        gw_html_escape(out, s->inputs[i].incomplete);
        fputs("</p>\n", out);
    }
}

static void evidence_text(FILE *out, const gw_verdict *v)
{
    char n[GW_FMT_SIZE];
    for (size_t e = 0; e < v->nevidence; e++) {
        const gw_evidence *ev = &v->evidence[e];
        fputs(e ? ", " : "", out);
        gw_html_escape(out, ev->key);
        fputc('=', out);
        if (ev->text)
            gw_html_escape(out, ev->text);
        else
            fputs(gw_report_evidence_num(ev->value, n, sizeof n), out);
        if (ev->threshold >= 0) {
            fputs(" (", out);
            gw_html_escape(out, ev->op);
            fprintf(out, " %s)",
                    gw_fmt_sig(n, sizeof n, gw_thresholds[ev->threshold].value, 6, "?"));
        }
    }
}

static void verdicts_section(FILE *out, const gw_analysis *a)
{
    fputs("<h2 id=\"verdicts\">Verdicts</h2>\n", out);
    if (a->verdicts.n == 0) {
        fprintf(out, "<p>None: %s.</p>\n", gw_report_no_verdict_reason(a));
        return;
    }
    fprintf(out,
            "<table class=\"verdicts\">\n<tr><th>severity</th><th>verdict</th><th>GPU</th>"
            "<th>what</th><th>span (%s)</th></tr>\n",
            gw_report_dateless(a->series) ? "from the start" : "UTC");
    for (size_t i = 0; i < a->verdicts.n; i++) {
        const gw_verdict *v = &a->verdicts.v[i];
        const char *sev = gw_severity_name(v->severity);
        char ts[GW_RFC3339_LEN], d[GW_FMT_SIZE];
        fprintf(out, "<tr><td class=\"sev sev-%s\">%s</td><td>%s</td>", sev, sev,
                gw_verdict_name(v->id));
        label_cell(out, a, v->gpu);
        fputs("<td>", out);
        gw_html_escape(out, v->message);
        fputs("<div class=\"detail\">evidence: ", out);
        evidence_text(out, v);
        fputs("</div><div class=\"detail\">suggestion: ", out);
        gw_html_escape(out, v->suggestion);
        fprintf(out, "</div></td><td>%s +%s s</td></tr>\n", gw_report_when(a, v->start_ms, ts),
                secs(d, sizeof d, v->end_ms - v->start_ms));
    }
    fputs("</table>\n", out);
}

/* A whole-record statistic of a field, NAN when the GPU has no such column. */
static double stat_of(const gw_gpu_analysis *g, gw_gpu_field f, int which)
{
    int c = g->gpu->col_of[f];
    if (c < 0)
        return NAN;
    const gw_stats *s = &g->whole.stats[c];
    return which == 0 ? s->mean : which == 1 ? s->p95 : s->max;
}

static void gpu_row(FILE *out, const gw_analysis *a, const gw_gpu_analysis *g, size_t slot,
                    int wh_dec)
{
    const gw_series_gpu *gpu = g->gpu;
    double power_max = stat_of(g, GW_F_POWER_DRAW_W, 2);
    fputs("<tr>", out);
    label_cell(out, a, (int)slot);
    /* another job's GPU (--scope node): shown, never judged */
    char *name = xasprintf("%s%s", *gpu->name ? gpu->name : "(not recorded)",
                           gpu->in_job == 0 ? " (not this job)" : "");
    text_cell(out, name);
    free(name);
    /* each column one way for every GPU: shares with one decimal, MiB, °C and W whole */
    dec_cell(out, stat_of(g, GW_F_UTIL_GPU_PCT, 0), 1, "%");
    dec_cell(out, stat_of(g, GW_F_UTIL_GPU_PCT, 1), 1, "%");
    dec_cell(out, g->busy_pct, 1, "%");
    dec_cell(out, stat_of(g, GW_F_GPM_SM_ACTIVE_PCT, 0), 1, "%");
    dec_cell(out, stat_of(g, GW_F_GPM_TENSOR_ACTIVE_PCT, 0), 1, "%");
    dec_cell(out, stat_of(g, GW_F_MEM_USED_MIB, 2), 0, "MiB");
    dec_cell(out, gpu->memory_total_mib, 0, "MiB");
    dec_cell(out, stat_of(g, GW_F_TEMP_GPU_C, 2), 0, "°C");
    dec_cell(out, gpu->slowdown_temp_c, 0, "°C");
    dec_cell(out, stat_of(g, GW_F_POWER_DRAW_W, 0), 0, "W");
    dec_cell(out, power_max, 0, "W");
    dec_cell(out, 100.0 * power_max / gpu->power_limit_w, 0, "%");
    dec_cell(out, g->whole.energy_wh, wh_dec, "Wh");
    char d[3][GW_FMT_SIZE];
    const gw_phase ph[3] = {GW_PHASE_STARTUP, GW_PHASE_STEADY, GW_PHASE_TAIL};
    for (int k = 0; k < 3; k++)
        secs(d[k], sizeof d[k], g->phase[ph[k]].span.end_ms - g->phase[ph[k]].span.start_ms);
    fprintf(out, "<td class=\"num\">%s / %s / %s s</td></tr>\n", d[0], d[1], d[2]);
}

static void summary_section(FILE *out, const gw_analysis *a)
{
    fputs("<h2 id=\"summary\">Summary (whole record)</h2>\n<table class=\"summary\">\n<tr>"
          "<th>GPU</th><th>name</th><th>util mean</th><th>util p95</th><th>busy (work time)</th>"
          "<th>SM active</th><th>tensor active</th><th>memory peak</th><th>memory total</th>"
          "<th>temp max</th><th>slowdown at</th><th>power mean</th><th>power max</th>"
          "<th>max % limit</th><th>energy</th><th>start-up / steady / tail</th></tr>\n",
          out);
    double *wh = xmalloc((a->ngpus ? a->ngpus : 1) * sizeof *wh);
    for (size_t i = 0; i < a->ngpus; i++)
        wh[i] = a->gpus[i].whole.energy_wh;
    int wh_dec = gw_fmt_decimals(wh, a->ngpus);
    free(wh);
    for (size_t i = 0; i < a->ngpus; i++)
        gpu_row(out, a, &a->gpus[i], i, wh_dec);
    fputs("</table>\n", out);
}

/* The columns of the epoch table whose decimals follow their values (one count per column). */
enum { D_VAL, D_RATE, D_WH, D_COUNT };

static void epoch_decimals(const gw_analysis *a, int *dec)
{
    size_t n = a->nepochs * (a->ngpus ? a->ngpus : 1) + 2 * a->ngpus + 1;
    double *v[D_COUNT];
    size_t m[D_COUNT] = {0};
    for (int d = 0; d < D_COUNT; d++)
        v[d] = xmalloc(n * sizeof(double));
    for (size_t k = 0; k < a->nepochs; k++) {
        v[D_VAL][m[D_VAL]++] = a->epochs[k].validation_s;
        v[D_RATE][m[D_RATE]++] = a->epochs[k].steps_per_s;
        for (size_t i = 0; i < a->ngpus; i++)
            v[D_WH][m[D_WH]++] = a->epoch_energy_wh[k * a->ngpus + i];
    }
    for (size_t i = 0; i < a->ngpus; i++) {
        v[D_WH][m[D_WH]++] = a->before_epochs[i].energy_wh;
        v[D_WH][m[D_WH]++] = a->after_epochs[i].energy_wh;
    }
    for (int d = 0; d < D_COUNT; d++) {
        dec[d] = gw_fmt_decimals(v[d], m[d]);
        free(v[d]);
    }
}

/* The time before the first epoch (k = -1) or after the last (k = nepochs), as a row. */
static void outside_row(FILE *out, const gw_analysis *a, long k, const int *dec)
{
    bool before = k < 0;
    int64_t from = before ? a->start_ms : a->epochs[a->nepochs - 1].end_ms;
    int64_t to = before ? a->epochs[0].start_ms : a->record_end_ms;
    if (to <= from || (a->ngpus && (double)(to - from) < a->gpus[0].interval_s * 1000.0))
        return; /* shorter than a sample (as the text's) */
    char ts[GW_RFC3339_LEN];
    fprintf(out, "<tr class=\"outside\"><td>%s</td><td>%s</td>", before ? "start-up" : "after",
            gw_report_when(a, from, ts));
    dec_cell(out, (double)(to - from) / 1000.0, 1, "s");
    fputs("<td></td><td></td><td></td><td></td>", out);
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_span_figures *f = before ? &a->before_epochs[i] : &a->after_epochs[i];
        dec_cell(out, f->util_pct, 1, "%");
        fputs("<td></td><td></td>", out);
        dec_cell(out, f->energy_wh, dec[D_WH], "Wh");
    }
    fputs("</tr>\n", out);
}

static void epoch_head(FILE *out, const gw_analysis *a)
{
    fprintf(out, "<h2 id=\"epochs\">Epochs (from %s)</h2>\n",
            gw_epoch_origin_name(a->epoch_origin));
    if (a->series->phases_found && a->epoch_origin == GW_EPOCHS_OUTPUT) {
        fputs("<p>Found: ", out);
        gw_html_escape(out, a->series->phases_found);
        fputs("</p>\n", out);
    }
    fprintf(out,
            "<table class=\"epochs\">\n<tr><th>epoch</th><th>start (%s)</th><th>duration</th>"
            "<th>training</th><th>validation</th><th>steps</th><th>steps/s</th>",
            gw_report_dateless(a->series) ? "from the start" : "UTC");
    for (size_t i = 0; i < a->ngpus; i++) {
        char *label = gw_series_gpu_label(a->series, a->series->gpus[i]);
        fputs("<th>", out);
        gw_html_escape(out, label);
        fputs(" util</th><th>", out);
        gw_html_escape(out, label);
        fputs(" busy in training</th><th>", out);
        gw_html_escape(out, label);
        fputs(" busy in validation</th><th>", out);
        gw_html_escape(out, label);
        fputs(" energy</th>", out);
        free(label);
    }
    fputs("</tr>\n", out);
}

/* One row per epoch, with the time before the first and after the last (as the text's). */
static void epochs_section(FILE *out, const gw_analysis *a)
{
    if (a->nepochs == 0)
        return;
    int dec[D_COUNT];
    epoch_decimals(a, dec);
    epoch_head(out, a);
    outside_row(out, a, -1, dec);
    for (size_t k = 0; k < a->nepochs; k++) {
        const gw_epoch *e = &a->epochs[k];
        char ts[GW_RFC3339_LEN];
        fprintf(out, "<tr><td>%ld", e->number);
        if (e->total >= 0)
            fprintf(out, "/%ld", e->total);
        fprintf(out, "</td><td>%s</td>", gw_report_when(a, e->start_ms, ts));
        dec_cell(out, (double)(e->end_ms - e->start_ms) / 1000.0, 1, "s");
        dec_cell(out,
                 e->train_end_ms || e->val_start_ms
                     ? (double)((e->val_start_ms ? e->val_start_ms : e->end_ms) - e->start_ms) /
                           1000.0
                     : NAN,
                 1, "s");
        dec_cell(out, e->validation_s, dec[D_VAL], "s");
        dec_cell(out, e->steps >= 0 ? (double)e->steps : NAN, 0, "");
        dec_cell(out, e->steps_per_s, dec[D_RATE], "");
        for (size_t i = 0; i < a->ngpus; i++) {
            const gw_epoch_parts *pt = &a->epoch_parts[k * a->ngpus + i];
            dec_cell(out, a->epoch_util_pct[k * a->ngpus + i], 1, "%");
            dec_cell(out, pt->train_util_pct, 1, "%");
            dec_cell(out, pt->val_util_pct, 1, "%");
            dec_cell(out, a->epoch_energy_wh[k * a->ngpus + i], dec[D_WH], "Wh");
        }
        fputs("</tr>\n", out);
    }
    outside_row(out, a, (long)a->nepochs, dec);
    fputs("</table>\n", out);
}

/* The job's phases from its output, in order (logread/timeline.h). */
static void job_phases_section(FILE *out, const gw_analysis *a)
{
    const gw_series *s = a->series;
    if (!s->phases_found || (a->nepochs && gw_report_epochs_cover_phases(a)))
        return; /* the epochs' table holds them */
    fputs("<h2 id=\"job-phases\">Job phases (from the job's output)</h2>\n", out);
    if (!a->nepochs) {
        fputs("<p>Found: ", out);
        gw_html_escape(out, s->phases_found);
        fputs("</p>\n", out);
    }
    if (!s->nphases)
        return;
    fprintf(out,
            "<table class=\"job-phases\">\n<tr><th>phase</th><th>named by</th>"
            "<th>start (%s)</th><th>duration</th><th>steps</th><th>steps/s</th>",
            gw_report_dateless(s) ? "from the start" : "UTC");
    for (size_t i = 0; i < a->ngpus; i++) {
        char *label = gw_series_gpu_label(s, s->gpus[i]);
        fputs("<th>", out);
        gw_html_escape(out, label);
        fputs(" util</th>", out);
        free(label);
    }
    fputs("</tr>\n", out);
    double *rates = xmalloc(s->nphases * sizeof *rates);
    for (size_t k = 0; k < s->nphases; k++)
        rates[k] = s->phases[k].steps_per_s;
    int rate_dec = gw_fmt_decimals(rates, s->nphases);
    free(rates);
    for (size_t k = 0; k < s->nphases; k++) {
        const gw_phase_span *p = &s->phases[k];
        char ts[GW_RFC3339_LEN];
        fprintf(out, "<tr><td>%s</td><td>", gw_phase_kind_name(p->kind));
        gw_html_escape(out, p->what);
        fprintf(out, "</td><td>%s</td>", gw_report_when(a, p->start_ms, ts));
        dec_cell(out, (double)(p->end_ms - p->start_ms) / 1000.0, 1, "s");
        dec_cell(out, p->steps >= 0 ? (double)p->steps : NAN, 0, "");
        dec_cell(out, p->steps_per_s, rate_dec, "");
        for (size_t i = 0; i < a->ngpus; i++)
            dec_cell(out, a->job_phase_util_pct[k * a->ngpus + i], 1, "%");
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

void gw_html_tables(FILE *out, const gw_analysis *a)
{
    header_section(out, a);
    verdicts_section(out, a);
    summary_section(out, a);
    epochs_section(out, a);
    job_phases_section(out, a);
}

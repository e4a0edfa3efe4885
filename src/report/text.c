/* The text report and the one-line verdict form (see report.h). */
#include "report/inproc.h"
#include "report/report.h"
#include "report/text_priv.h"

#include "stats/stats.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns of the per-GPU table, in this order when present (others follow in table order). */
static const gw_gpu_field table_order[] = {
    GW_F_UTIL_GPU_PCT,          GW_F_UTIL_MEM_PCT,
    GW_F_GPM_SM_ACTIVE_PCT,     GW_F_GPM_SM_OCCUPANCY_PCT,
    GW_F_GPM_TENSOR_ACTIVE_PCT, GW_F_GPM_DRAM_ACTIVE_PCT,
    GW_F_MEM_USED_MIB,          GW_F_TEMP_GPU_C,
    GW_F_POWER_DRAW_W,          GW_F_CLOCK_SM_MHZ,
};

/* A number with as many decimals as its size deserves; "" when absent or absurd (gw_fmt.h). */
static const char *num(double x, char *buf, size_t size)
{
    return gw_fmt_auto(buf, size, x, "");
}

const char *gw_report_evidence_num(double x, char *buf, size_t size)
{
    return gw_fmt_sane(x) ? num(x, buf, size) : "unknown";
}

/* Seconds with `dec` decimals; "?" when absurd. */
static const char *secs(double s, int dec, char *buf, size_t size)
{
    return gw_fmt_fixed(buf, size, s, dec, 0, "?");
}

/* A span of milliseconds in seconds with one decimal. */
static const char *span_s(int64_t ms, char *buf, size_t size)
{
    return secs((double)ms / 1000.0, 1, buf, size);
}

bool gw_report_dateless(const gw_series *s)
{
    size_t timed = 0;
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].kind != GW_INPUT_TRAIN_LOG && s->inputs[i].kind != GW_INPUT_GPM_CSV)
            timed += !s->inputs[i].dateless;
    return timed == 0 && s->ninputs > 0;
}

const char *gw_report_when(const gw_analysis *a, int64_t ms, char *buf)
{
    if (!gw_report_dateless(a->series))
        return gw_rfc3339_ms(ms, buf);
    char d[GW_FMT_SIZE];
    snprintf(buf, GW_RFC3339_LEN, "+%s s", span_s(ms, d, sizeof d));
    return buf;
}

/* Writes text indented by `indent`, wrapped at spaces to fit `width` columns. */
static void wrapped(FILE *out, const char *text, int indent, int width)
{
    int col = 0;
    for (const char *p = text; *p;) {
        size_t w = strcspn(p, " ");
        if (col > indent && col + 1 + (int)w > width - 1) {
            fputc('\n', out);
            col = 0;
        }
        if (col == 0)
            col = fprintf(out, "%*s", p != text ? indent + 2 : indent, "");
        else
            col += fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)w, p);
        p += w;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

/* Writes head and the items after it, a space between, indented by `indent` and wrapped
 * between items to fit `width` columns (an item, "busy_pct=50 (< 80),", is never cut). */
static void wrapped_items(FILE *out, const char *head, char **items, size_t n, int indent,
                          int width)
{
    int col = fprintf(out, "%*s%s", indent, "", head);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && col + 1 + (int)strlen(items[i]) > width - 1)
            col = fprintf(out, "\n%*s", indent + 2, "") - 1;
        else
            col += fprintf(out, " ");
        col += fprintf(out, "%s", items[i]);
    }
    fputc('\n', out);
}

const char *gw_text_sev_color(gw_severity s)
{
    return s == GW_SEV_CRITICAL ? "\033[1;31m" : s == GW_SEV_WARNING ? "\033[33m" : "\033[36m";
}

static char *gpu_label(const gw_analysis *a, int slot)
{
    if (slot < 0)
        return xstrdup("job");
    return gw_series_gpu_label(a->series, a->series->gpus[slot]);
}

static void verdict_head(FILE *out, const gw_analysis *a, const gw_verdict *v, bool color)
{
    char *label = gpu_label(a, v->gpu);
    fprintf(out, "%s%-8s%s  %-20s %s  %s\n", color ? gw_text_sev_color(v->severity) : "",
            gw_severity_name(v->severity), color ? "\033[0m" : "", gw_verdict_name(v->id), label,
            v->message);
    free(label);
}

void gw_report_verdict_lines(FILE *out, const gw_analysis *a, const gw_report_opts *o)
{
    for (size_t i = 0; i < a->verdicts.n; i++)
        verdict_head(out, a, &a->verdicts.v[i], o && o->color);
}

/* Whether an evidence figure is in the short Evidence: compared with a threshold, the cause,
 * or what the verdict lacked. */
static bool decisive(const gw_evidence *ev)
{
    return ev->threshold >= 0 || strcmp(ev->key, "cause") == 0 || strcmp(ev->key, "missing") == 0;
}

static void evidence_line(FILE *out, const gw_verdict *v, int width, bool brief)
{
    enum { SHORT_MAX = 8 }; /* a list this short (two lines) is shown whole anyway */
    brief &= v->nevidence > SHORT_MAX;
    char **items = xcalloc(v->nevidence + 2, sizeof *items);
    size_t n = 0, left = 0;
    for (size_t e = 0; e < v->nevidence; e++) {
        const gw_evidence *ev = &v->evidence[e];
        if (brief && !decisive(ev)) {
            left++;
            continue;
        }
        char b[GW_FMT_SIZE], op[48] = "";
        const char *value = ev->text ? ev->text : gw_report_evidence_num(ev->value, b, sizeof b);
        if (ev->threshold >= 0) {
            char t[GW_FMT_SIZE];
            snprintf(op, sizeof op, " (%s %s)", ev->op,
                     gw_fmt_sig(t, sizeof t, gw_thresholds[ev->threshold].value, 6, "?"));
        }
        items[n++] = xasprintf("%s=%s%s", ev->key, value, op);
    }
    if (left)
        items[n++] = xasprintf("(%zu more with -v)", left);
    for (size_t i = 0; i + 1 < n; i++) { /* the commas between */
        char *x = xasprintf("%s,", items[i]);
        free(items[i]);
        items[i] = x;
    }
    if (n)
        wrapped_items(out, "evidence:", items, n, 10, width);
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

const char *gw_report_no_verdict_reason(const gw_analysis *a)
{
    size_t without_util = 0, worked = 0;
    for (size_t i = 0; i < a->ngpus; i++) {
        without_util += !gw_series_gpu_has(a->gpus[i].gpu, GW_F_UTIL_GPU_PCT);
        worked += a->gpus[i].worked;
    }
    if (a->ngpus && without_util == a->ngpus)
        return "utilisation not recorded, so busy and idle cannot be judged";
    if (a->ngpus && without_util == 0 && worked == 0)
        return "no GPU worked (utilization.gpu below work_util_pct throughout)";
    return "not enough steady-state data to judge";
}

/* Each verdict's span and evidence, after the first screen (gw_report_findings_text). */
static void evidence_section(FILE *out, const gw_analysis *a, bool color, int width, bool brief)
{
    if (a->verdicts.n == 0)
        return;
    fprintf(out, "\nEvidence\n");
    for (size_t i = 0; i < a->verdicts.n; i++) {
        const gw_verdict *v = &a->verdicts.v[i];
        char s[GW_RFC3339_LEN], d[GW_FMT_SIZE];
        char *label = gpu_label(a, v->gpu);
        fprintf(out, "%s%-8s%s  %-20s %s\n", color ? gw_text_sev_color(v->severity) : "",
                gw_severity_name(v->severity), color ? "\033[0m" : "", gw_verdict_name(v->id),
                label);
        free(label);
        fprintf(out, "          span: %s +%s s\n", gw_report_when(a, v->start_ms, s),
                span_s(v->end_ms - v->start_ms, d, sizeof d));
        if (v->nevidence)
            evidence_line(out, v, width, brief);
    }
}

/* What the reader dropped or corrected in an input, a line each (docs/report.md). */
static void input_repairs(FILE *out, const gw_series_input *in)
{
    for (int f = 0; f < GW_F_COUNT; f++)
        if (in->impossible[f])
            fprintf(out, "    %.*s: %zu impossible value%s dropped\n",
                    (int)strcspn(gw_fields[f].csv_header, " ["), gw_fields[f].csv_header,
                    in->impossible[f], in->impossible[f] == 1 ? "" : "s");
    if (in->time_back) {
        char d[GW_FMT_SIZE];
        fprintf(out, "    time went back at line %ld (%zu time%s, up to %s s): not counted\n",
                in->time_back_line, in->time_back, in->time_back == 1 ? "" : "s",
                secs(in->time_back_s, 0, d, sizeof d));
    }
}

/* "job: slurm job 4242 step 0, rank 1 of 4, node1; GPU 1 from CUDA_VISIBLE_DEVICES" and how the
 * GPUs were chosen, for a run directory with a "job" (meta.json). */
static void job_lines(FILE *out, const gw_series *s, const gw_job *j, int width)
{
    char who[256], list[160] = "";
    size_t k = 0;
    for (size_t i = 0; i < j->ngpus && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%u", i ? ", " : "", j->gpus[i]);
    gw_job_line(j, who, sizeof who);
    char *line;
    if (strcmp(j->gpus_source, "all") == 0)
        line = xasprintf("job: %s%severy GPU", who, *who ? "; " : "");
    else if (j->gpus_pending)
        line = xasprintf("job: %s%sGPUs from processes.csv (not finalised)", who, *who ? "; " : "");
    else
        line = xasprintf("job: %s%sGPU%s %s from %s%s", who, *who ? "; " : "",
                         j->ngpus == 1 ? "" : "s", j->ngpus ? list : "none", j->gpus_source,
                         s->scope_node ? "; the others shown as not this job" : "");
    wrapped(out, line, 2, width);
    free(line);
    if (j->gpus_note) {
        line = xasprintf("note: %s", j->gpus_note);
        wrapped(out, line, 4, width);
        free(line);
    }
}

/* "gpuwatch report: 1 GPU, 111.6 s" and the times on their own line: within 80 columns. */
static void header_lines(FILE *out, const gw_analysis *a)
{
    const gw_series *s = a->series;
    char t0[GW_RFC3339_LEN], t1[GW_RFC3339_LEN], d[GW_FMT_SIZE];
    fprintf(out, "gpuwatch report: %zu GPU%s, %s s\n  %s%s to %s\n", s->ngpus,
            s->ngpus == 1 ? "" : "s", span_s(a->record_end_ms - a->start_ms, d, sizeof d),
            gw_report_dateless(s) ? "date unknown, " : "", gw_report_when(a, a->start_ms, t0),
            gw_report_when(a, a->record_end_ms, t1));
}

static void inputs_section(FILE *out, const gw_analysis *a, int width)
{
    const gw_series *s = a->series;
    fputc('\n', out);
    for (size_t i = 0; i < s->ninputs; i++) {
        const gw_series_input *in = &s->inputs[i];
        fprintf(out, "  input %s: %zu %s", in->path, in->rows,
                in->kind == GW_INPUT_TRAIN_LOG ? (in->rows == 1 ? "timed line" : "timed lines")
                : in->rows == 1                ? "row"
                                               : "rows");
        if (in->rows_skipped)
            fprintf(out, ", %zu unreadable skipped (first at line %ld)", in->rows_skipped,
                    in->first_bad_line);
        fputc('\n', out);
        if (in->untimed)
            fprintf(out, "    no timestamp column: rows placed at a fixed interval\n");
        if (*in->note) { /* one line per thing said, wrapped to 80 columns */
            char *note = xstrdup(in->note);
            for (char *save = NULL, *t = strtok_r(note, ";", &save); t;
                 t = strtok_r(NULL, ";", &save))
                wrapped(out, t + strspn(t, " "), 4, width);
            free(note);
        }
        input_repairs(out, in);
        if (in->complete == 0)
            fprintf(out, "  incomplete: %s\n", in->incomplete);
        if (in->job)
            job_lines(out, s, in->job, width);
    }
}

static void stats_table(FILE *out, const gw_gpu_analysis *g, const gw_phase_result *p)
{
    const gw_series_table *t = &g->gpu->tab;
    bool shown[256] = {false};
    fprintf(out, "  %-28s %9s %9s %9s %9s %9s\n",
            p == &g->phase[GW_PHASE_STEADY] ? "steady state" : "whole record", "mean", "p5", "p50",
            "p95", "max");
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < (pass == 0 ? sizeof table_order / sizeof table_order[0] : t->ncols);
             k++) {
            long c = pass == 0 ? g->gpu->col_of[table_order[k]] : (long)k;
            if (c < 0 || c >= 256 || shown[c] || p->stats[c].n == 0 ||
                (t->cols[c].field >= 0 && gw_fields[t->cols[c].field].no_stats))
                continue;
            shown[c] = true;
            const gw_stats *st = &p->stats[c];
            char b[5][GW_FMT_SIZE];
            const char *name = t->cols[c].name;
            if (strlen(name) > 28) { /* a long name on its own line: the row fits 80 columns */
                fprintf(out, "  %s\n", name);
                name = "";
            }
            /* a row is one quantity: one number of decimals for it (a share in % at least one,
             * so 72.0 stands beside 60.6, never 72) */
            double v[5] = {st->mean, st->p5, st->p50, st->p95, st->max};
            int dec = gw_fmt_decimals(v, 5);
            bool fraction = false;
            for (int j = 0; j < 5; j++)
                fraction |= gw_fmt_sane(v[j]) && v[j] != floor(v[j]);
            if (dec < 1 && fraction && strstr(t->cols[c].name, "[%]"))
                dec = 1;
            for (int j = 0; j < 5; j++)
                gw_fmt_fixed(b[j], sizeof b[j], v[j], dec, 0, "");
            fprintf(out, "  %-28s %9s %9s %9s %9s %9s\n", name, b[0], b[1], b[2], b[3], b[4]);
        }
}

static void gpu_section(FILE *out, const gw_analysis *a, const gw_gpu_analysis *g, int width)
{
    const gw_series_gpu *gpu = g->gpu;
    char *label = gw_series_gpu_label(a->series, gpu);
    char b[4][GW_FMT_SIZE], d[GW_FMT_SIZE];
    int col = fprintf(out, "\n%s: %s", label, *gpu->name ? gpu->name : "(name not recorded)");
    if (*gpu->pci_bus_id)
        col += fprintf(out, ", %s", gpu->pci_bus_id);
    if (gw_fmt_sane(gpu->memory_total_mib))
        col += fprintf(out, ", %s MiB", num(gpu->memory_total_mib, b[0], sizeof b[0]));
    if (gw_fmt_sane(gpu->power_limit_w))
        col += fprintf(out, ", %s W limit", num(gpu->power_limit_w, b[1], sizeof b[1]));
    /* the source on a line of its own when the two do not fit 80 columns together */
    fprintf(out, "%s[%s]\n", col + 3 + (int)strlen(gpu->source) > 80 ? "\n  " : "  ", gpu->source);
    free(label);
    if (gpu->in_job == 0)
        fprintf(out, "  not this job: recorded and shown (--scope node), never judged\n");
    char *items[GW_PHASE_COUNT + 1];
    /* missing is not zero: without a utilisation column nothing says the GPU did not work */
    const char *why = !gw_series_gpu_has(gpu, GW_F_UTIL_GPU_PCT) ? " (utilisation not recorded)"
                      : g->worked                                ? ""
                                                                 : " (the GPU never worked)";
    for (int p = 0; p < GW_PHASE_COUNT; p++) {
        const gw_span *s = &g->phase[p].span;
        items[p] = xasprintf("%s %s s%s", gw_phase_name((gw_phase)p),
                             span_s(s->end_ms - s->start_ms, d, sizeof d),
                             p + 1 < GW_PHASE_COUNT ? "," : "");
    }
    char *tail = items[GW_PHASE_COUNT - 1];
    items[GW_PHASE_COUNT - 1] = xasprintf("%s%s;", tail, why);
    free(tail);
    items[GW_PHASE_COUNT] =
        xasprintf("%zu row%s every %s s", gpu->tab.n, gpu->tab.n == 1 ? "" : "s",
                  secs(g->interval_s, 2, d, sizeof d));
    wrapped_items(out, "phases:", items, GW_PHASE_COUNT + 1, 2, width);
    for (int p = 0; p <= GW_PHASE_COUNT; p++)
        free(items[p]);
    if (!gw_fmt_sane(g->whole.energy_wh))
        fprintf(out, "  energy: not recorded (no power.draw, no energy counter)\n");
    else
        fprintf(out, "  energy: %s Wh (steady state %s Wh; from %s)\n",
                num(g->whole.energy_wh, b[2], sizeof b[2]),
                num(g->phase[GW_PHASE_STEADY].energy_wh, b[3], sizeof b[3]),
                g->energy_from_counter ? "the energy counter"
                                       : gw_field_name(GW_F_POWER_DRAW_W, d, sizeof d));
    if (g->whole.energy_partial)
        fprintf(out, "  energy is partial: %s\n",
                gw_verdict_find(&a->verdicts, GW_V_GPU_LOST, (int)g->slot)
                    ? "the GPU was lost (see its verdict)"
                    : "gaps of more than 5 intervals were not bridged");
    gw_roles_summary r = gw_roles_of(g);
    if (r.present) {
        char c[7][GW_FMT_SIZE], w[3 * GW_FMT_SIZE + 32] = "no workers";
        if (r.workers >= 1 && !isnan(r.workers_cpu_pct))
            snprintf(w, sizeof w, "%s worker%s %s in all (busiest %s)",
                     num(r.workers, c[2], sizeof c[2]), r.workers == 1 ? "" : "s",
                     num(r.workers_cpu_pct, c[3], sizeof c[3]),
                     num(r.workers_cpu_max_pct, c[4], sizeof c[4]));
        /* sums over the role, then its busiest member: a sum above its busiest is no mistake */
        fprintf(out, "  CPU (steady, %% of one core): training %s in all (busiest %s), %s\n",
                num(r.train_cpu_pct, c[0], sizeof c[0]),
                num(r.train_cpu_max_pct, c[1], sizeof c[1]), w);
        fprintf(out,
                "  host CPUs (%% of all): iowait %s, steal %s, other processes than the job's %s\n",
                num(r.iowait_pct, c[5], sizeof c[5]), num(r.steal_pct, c[6], sizeof c[6]),
                num(r.others_pct, b[0], sizeof b[0]));
    }
    char *times[GW_TIME_COUNT];
    for (int c = 0; c < GW_TIME_COUNT; c++)
        times[c] =
            xasprintf("%s %s s%s", gw_time_check_name((gw_time_check)c),
                      secs(g->whole.time_s[c], 1, d, sizeof d), c + 1 < GW_TIME_COUNT ? "," : "");
    wrapped_items(out, "time (whole record):", times, GW_TIME_COUNT, 2, width);
    for (int c = 0; c < GW_TIME_COUNT; c++)
        free(times[c]);
    stats_table(out, g, g->worked ? &g->phase[GW_PHASE_STEADY] : &g->whole);
}

void gw_report_text(FILE *out, const gw_analysis *a, const gw_report_opts *o)
{
    header_lines(out, a);
    gw_report_findings_text(out, a, o && o->color);
    /* the report's own wrapping fits the width the caller's stream has (80 in a pipe) */
    int width = o && o->width >= 40 ? o->width : 80;
    inputs_section(out, a, width);
    evidence_section(out, a, o && o->color, width, o && o->short_evidence);
    for (size_t i = 0; i < a->ngpus; i++)
        gpu_section(out, a, &a->gpus[i], width);
    gw_report_epochs_text(out, a, width);
    gw_report_inproc_text(out, a, width);
    gw_report_marks_text(out, a);
}

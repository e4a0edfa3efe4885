/* summary.json (schema: docs/summary-json.md). */
#include "report/inproc.h"
#include "report/report.h"
#include "util/gw_json.h"

#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/gw_file.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SCHEMA_VERSION = 1 };

/* Numbers are rounded so the file reads well; NAN and absurd values (gw_fmt.h) become null
 * (absent, never 0). */
static cJSON *jnum(double x)
{
    if (!gw_fmt_sane(x))
        return cJSON_CreateNull();
    double scale = fabs(x) >= 1 ? 1e3 : 1e6;
    return cJSON_CreateNumber(round(x * scale) / scale);
}

static void add_num(cJSON *o, const char *key, double x)
{
    cJSON_AddItemToObject(o, key, jnum(x));
}

static void add_time(cJSON *o, const char *key, int64_t ms)
{
    char buf[GW_RFC3339_LEN];
    cJSON_AddStringToObject(o, key, gw_rfc3339_ms(ms, buf));
}

static void add_span(cJSON *o, int64_t start_ms, int64_t end_ms)
{
    add_time(o, "start", start_ms);
    add_time(o, "end", end_ms);
    add_num(o, "duration_s", (double)(end_ms - start_ms) / 1000.0);
}

static void add_gpu_ref(cJSON *o, const gw_analysis *a, int slot)
{
    if (slot < 0) {
        cJSON_AddNullToObject(o, "gpu");
        cJSON_AddNullToObject(o, "source");
        return;
    }
    const gw_series_gpu *g = a->series->gpus[slot];
    cJSON_AddNumberToObject(o, "gpu", g->index);
    cJSON_AddStringToObject(o, "source", g->source);
}

static cJSON *stats_json(const gw_gpu_analysis *g, const gw_phase_result *p)
{
    cJSON *o = cJSON_CreateObject();
    const gw_series_table *t = &g->gpu->tab;
    for (size_t c = 0; c < t->ncols; c++) {
        if (t->cols[c].field == GW_F_CLOCKS_EVENT_REASONS || p->stats[c].n == 0)
            continue;
        const gw_stats *s = &p->stats[c];
        cJSON *e = cJSON_AddObjectToObject(o, t->cols[c].name);
        add_num(e, "mean", s->mean);
        add_num(e, "p5", s->p5);
        add_num(e, "p50", s->p50);
        add_num(e, "p95", s->p95);
        add_num(e, "max", s->max);
        add_num(e, "min", s->min);
        cJSON_AddNumberToObject(e, "n", (double)s->n);
    }
    return o;
}

static cJSON *times_json(const gw_phase_result *p)
{
    cJSON *o = cJSON_CreateObject();
    for (int c = 0; c < GW_TIME_COUNT; c++)
        add_num(o, gw_time_check_name((gw_time_check)c), p->time_s[c]);
    return o;
}

static const char *kind_name(gw_input_kind k)
{
    switch (k) {
    case GW_INPUT_RUN_DIR:
        return "run_dir";
    case GW_INPUT_GPU_CSV:
        return "gpu_csv";
    case GW_INPUT_GPM_CSV:
        return "gpm_csv";
    case GW_INPUT_TRAIN_LOG:
        return "train_log";
    }
    return "unknown";
}

static cJSON *inputs_json(const gw_series *s)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < s->ninputs; i++) {
        const gw_series_input *in = &s->inputs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", in->path);
        cJSON_AddStringToObject(o, "kind", kind_name(in->kind));
        cJSON_AddStringToObject(o, "source", in->source);
        cJSON_AddNumberToObject(o, "rows", (double)in->rows);
        cJSON_AddNumberToObject(o, "rows_skipped", (double)in->rows_skipped);
        if (in->first_bad_line)
            cJSON_AddNumberToObject(o, "first_bad_line", (double)in->first_bad_line);
        else
            cJSON_AddNullToObject(o, "first_bad_line");
        cJSON_AddBoolToObject(o, "untimed", in->untimed);
        cJSON_AddBoolToObject(o, "dateless", in->dateless);
        cJSON_AddStringToObject(o, "note", in->note);
        cJSON *drop = cJSON_AddObjectToObject(o, "impossible_dropped");
        for (int f = 0; f < GW_F_COUNT; f++)
            if (in->impossible[f]) {
                char key[64];
                snprintf(key, sizeof key, "%.*s", (int)strcspn(gw_fields[f].csv_header, " ["),
                         gw_fields[f].csv_header);
                cJSON_AddNumberToObject(drop, key, (double)in->impossible[f]);
            }
        cJSON_AddNumberToObject(o, "time_back", (double)in->time_back);
        cJSON_AddNumberToObject(o, "time_back_max_s", in->time_back ? in->time_back_s : 0);
        if (in->complete < 0)
            cJSON_AddNullToObject(o, "complete");
        else
            cJSON_AddBoolToObject(o, "complete", in->complete == 1);
        if (in->complete == 0)
            cJSON_AddStringToObject(o, "incomplete", in->incomplete);
        else
            cJSON_AddNullToObject(o, "incomplete");
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *gpu_json(const gw_analysis *a, const gw_gpu_analysis *g)
{
    const gw_series_gpu *gpu = g->gpu;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", gpu->index);
    cJSON_AddStringToObject(o, "source", gpu->source);
    gw_json_add_str(o, "name", gpu->name);
    gw_json_add_str(o, "uuid", gpu->uuid);
    gw_json_add_str(o, "pci_bus_id", gpu->pci_bus_id);
    add_num(o, "memory_total_mib", gpu->memory_total_mib);
    add_num(o, "power_limit_w", gpu->power_limit_w);
    add_num(o, "slowdown_temp_c", gpu->slowdown_temp_c);
    cJSON_AddNumberToObject(o, "rows", (double)gpu->tab.n);
    add_num(o, "interval_s", g->interval_s);
    add_span(o, g->whole.span.start_ms, g->whole.span.end_ms);
    /* unknown without utilisation (the column, not its values: a job report has freed them) */
    if (g->gpu->col_of[GW_F_UTIL_GPU_PCT] >= 0 && gpu->tab.n > 0)
        cJSON_AddBoolToObject(o, "worked", g->worked);
    else
        cJSON_AddNullToObject(o, "worked");
    cJSON_AddBoolToObject(o, "participant", g->participant);
    cJSON_AddBoolToObject(o, "in_job", gpu->in_job != 0); /* 0: another job's GPU (--scope node) */
    add_num(o, "busy_pct", g->busy_pct);
    add_num(o, "work_s", g->work_s);
    add_num(o, "energy_wh", g->whole.energy_wh);
    char power[48];
    cJSON_AddStringToObject(o, "energy_source",
                            g->energy_from_counter
                                ? "energy_counter"
                                : gw_field_name(GW_F_POWER_DRAW_W, power, sizeof power));
    cJSON_AddBoolToObject(o, "energy_partial", g->whole.energy_partial);
    cJSON_AddItemToObject(o, "time_s", times_json(&g->whole));
    cJSON_AddItemToObject(o, "stats", stats_json(g, &g->whole));
    gw_roles_summary r = gw_roles_of(g);
    if (r.present) { /* the job's CPU by role over the steady state (issue 13) */
        cJSON *c = cJSON_AddObjectToObject(o, "cpu_roles");
        add_num(c, "train_cpu_mean_pct", r.train_cpu_pct);
        add_num(c, "train_cpu_max_mean_pct", r.train_cpu_max_pct);
        add_num(c, "workers", r.workers);
        add_num(c, "workers_cpu_mean_pct", r.workers_cpu_pct);
        add_num(c, "workers_cpu_max_mean_pct", r.workers_cpu_max_pct);
        add_num(c, "iowait_mean_pct", r.iowait_pct);
        add_num(c, "steal_mean_pct", r.steal_pct);
        add_num(c, "cpu_others_mean_pct", r.others_pct);
    }
    (void)a;
    return o;
}

/* Item k of "phases": GPU k / GW_PHASE_COUNT, phase k % GW_PHASE_COUNT. */
static cJSON *phase_item(const gw_analysis *a, size_t k)
{
    size_t i = k / GW_PHASE_COUNT;
    int p = (int)(k % GW_PHASE_COUNT);
    const gw_gpu_analysis *g = &a->gpus[i];
    const gw_phase_result *r = &g->phase[p];
    cJSON *o = cJSON_CreateObject();
    add_gpu_ref(o, a, (int)i);
    cJSON_AddStringToObject(o, "phase", gw_phase_name((gw_phase)p));
    add_span(o, r->span.start_ms, r->span.end_ms);
    cJSON_AddNumberToObject(o, "rows", (double)(r->span.end - r->span.begin));
    add_num(o, "energy_wh", r->energy_wh);
    cJSON_AddBoolToObject(o, "energy_partial", r->energy_partial);
    cJSON_AddItemToObject(o, "time_s", times_json(r));
    cJSON_AddItemToObject(o, "stats", stats_json(g, r));
    return o;
}

static cJSON *gpu_item(const gw_analysis *a, size_t i)
{
    return gpu_json(a, &a->gpus[i]);
}

/* The top-level arrays with an item per GPU (or per GPU and phase): written item by item. */
static const struct {
    const char *marker; /* the empty array as cJSON_Print writes it at depth 1 */
    cJSON *(*item)(const gw_analysis *a, size_t k);
    size_t per_gpu;
} streamed[] = {
    {"\n\t\"gpus\":\t[]", gpu_item, 1},
    {"\n\t\"phases\":\t[]", phase_item, GW_PHASE_COUNT},
};

static cJSON *phases_json(const gw_analysis *a)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < a->ngpus * GW_PHASE_COUNT; k++)
        cJSON_AddItemToArray(arr, phase_item(a, k));
    return arr;
}

static cJSON *dips_json(const gw_analysis *a)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < a->ngpus; i++)
        for (size_t d = 0; d < a->gpus[i].ndips; d++) {
            const gw_dip *dip = &a->gpus[i].dips[d];
            cJSON *o = cJSON_CreateObject();
            add_gpu_ref(o, a, (int)i);
            add_span(o, dip->span.start_ms, dip->span.end_ms);
            cJSON_AddBoolToObject(o, "expected", dip->expected);
            cJSON_AddItemToArray(arr, o);
        }
    return arr;
}

static cJSON *epochs_json(const gw_analysis *a)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < a->nepochs; k++) {
        const gw_epoch *e = &a->epochs[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "epoch", (double)e->number);
        if (e->total >= 0)
            cJSON_AddNumberToObject(o, "total", (double)e->total);
        else
            cJSON_AddNullToObject(o, "total");
        add_span(o, e->start_ms, e->end_ms);
        /* from the job's output; absent when it did not show them */
        if (!isnan(e->validation_s))
            add_num(o, "validation_s", e->validation_s);
        if (e->steps >= 0)
            cJSON_AddNumberToObject(o, "steps", (double)e->steps);
        if (gw_fmt_sane(e->steps_per_s))
            add_num(o, "steps_per_s", e->steps_per_s);
        cJSON *gpus = cJSON_AddArrayToObject(o, "gpus");
        for (size_t i = 0; i < a->ngpus; i++) {
            cJSON *g = cJSON_CreateObject();
            const gw_epoch_parts *pt = &a->epoch_parts[k * a->ngpus + i];
            add_gpu_ref(g, a, (int)i);
            add_num(g, "util_mean_pct", a->epoch_util_pct[k * a->ngpus + i]);
            add_num(g, "energy_wh", a->epoch_energy_wh[k * a->ngpus + i]);
            add_num(g, "train_util_mean_pct", pt->train_util_pct);
            add_num(g, "validation_util_mean_pct", pt->val_util_pct);
            add_num(g, "train_sm_active_pct", pt->train_sm_pct);
            add_num(g, "validation_sm_active_pct", pt->val_sm_pct);
            cJSON_AddItemToArray(gpus, g);
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* The job's phases from its output (logread/timeline.h), with the GPUs' busy share in each. */
static cJSON *job_phases_json(const gw_analysis *a)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < a->series->nphases; k++) {
        const gw_phase_span *p = &a->series->phases[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", gw_phase_kind_name(p->kind));
        if (p->what[0])
            cJSON_AddStringToObject(o, "named_by", p->what);
        add_span(o, p->start_ms, p->end_ms);
        if (p->steps >= 0)
            cJSON_AddNumberToObject(o, "steps", (double)p->steps);
        if (p->first_step >= 0)
            cJSON_AddNumberToObject(o, "first_step", (double)p->first_step);
        if (p->last_step >= 0)
            cJSON_AddNumberToObject(o, "last_step", (double)p->last_step);
        if (gw_fmt_sane(p->steps_per_s))
            add_num(o, "steps_per_s", p->steps_per_s);
        cJSON *gpus = cJSON_AddArrayToObject(o, "gpus");
        for (size_t i = 0; i < a->ngpus; i++) {
            cJSON *g = cJSON_CreateObject();
            add_gpu_ref(g, a, (int)i);
            add_num(g, "util_mean_pct", a->job_phase_util_pct[k * a->ngpus + i]);
            cJSON_AddItemToArray(gpus, g);
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

const gw_job *gw_report_job(const gw_analysis *a, int gpu)
{
    const gw_series *s = a->series;
    if (gpu >= 0 && (size_t)gpu < a->ngpus)
        return s->inputs[a->gpus[gpu].gpu->input].job;
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].job)
            return s->inputs[i].job;
    return NULL;
}

static cJSON *verdict_json(const gw_analysis *a, const gw_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", gw_verdict_name(v->id));
    add_gpu_ref(o, a, v->gpu);
    const gw_job *job = gw_report_job(a, v->gpu);
    gw_json_add_str(o, "job_id", job ? job->job_id : NULL);
    if (job && job->rank >= 0)
        cJSON_AddNumberToObject(o, "rank", (double)job->rank);
    else
        cJSON_AddNullToObject(o, "rank");
    cJSON_AddStringToObject(o, "severity", gw_severity_name(v->severity));
    add_span(o, v->start_ms, v->end_ms);
    if (v->cause)
        cJSON_AddStringToObject(o, "cause", v->cause);
    cJSON_AddStringToObject(o, "message", v->message);
    cJSON *ev = cJSON_AddObjectToObject(o, "evidence");
    cJSON *th = cJSON_AddObjectToObject(o, "thresholds");
    for (size_t e = 0; e < v->nevidence; e++) {
        const gw_evidence *x = &v->evidence[e];
        if (x->text)
            cJSON_AddStringToObject(ev, x->key, x->text);
        else
            add_num(ev, x->key, x->value);
        if (x->threshold < 0)
            continue;
        cJSON *t = cJSON_AddObjectToObject(th, x->key);
        cJSON_AddStringToObject(t, "op", x->op);
        add_num(t, "value", gw_thresholds[x->threshold].value);
        cJSON_AddStringToObject(t, "name", gw_thresholds[x->threshold].key);
    }
    cJSON_AddStringToObject(o, "suggestion", v->suggestion);
    return o;
}

/* The document; its "gpus" left empty unless gpus (write_json_to streams them). */
static cJSON *report_json(const gw_analysis *a, bool gpus_inline)
{
    cJSON *root = gw_json_doc(SCHEMA_VERSION, NULL);
    add_span(root, a->start_ms, a->record_end_ms);
    cJSON_AddItemToObject(root, "inputs", inputs_json(a->series));
    const gw_job *job = gw_report_job(a, -1); /* null without meta.json (nvidia-smi CSV) */
    cJSON_AddItemToObject(root, "job", job ? gw_job_json(job) : cJSON_CreateNull());
    cJSON *gpus = cJSON_AddArrayToObject(root, "gpus");
    for (size_t i = 0; gpus_inline && i < a->ngpus; i++)
        cJSON_AddItemToArray(gpus, gpu_json(a, &a->gpus[i]));
    cJSON_AddItemToObject(root, "phases", gpus_inline ? phases_json(a) : cJSON_CreateArray());
    cJSON_AddItemToObject(root, "dips", dips_json(a));
    cJSON_AddStringToObject(root, "epoch_source", gw_epoch_origin_name(a->epoch_origin));
    cJSON_AddItemToObject(root, "epochs", epochs_json(a));
    if (a->series->phases_found)
        cJSON_AddStringToObject(root, "job_phases_found", a->series->phases_found);
    cJSON_AddItemToObject(root, "job_phases", job_phases_json(a));
    gw_report_marks_json(root, a);
    gw_report_inproc_json(root, a);
    cJSON *verdicts = cJSON_AddArrayToObject(root, "verdicts");
    for (size_t i = 0; i < a->verdicts.n; i++)
        cJSON_AddItemToArray(verdicts, verdict_json(a, &a->verdicts.v[i]));
    cJSON *th = cJSON_AddObjectToObject(root, "thresholds");
    for (int i = 0; i < GW_TH_COUNT; i++)
        add_num(th, gw_thresholds[i].key, gw_thresholds[i].value);
    return root;
}

cJSON *gw_report_json(const gw_analysis *a)
{
    return report_json(a, true);
}

/* text with indent after each of its line ends: an object printed alone, placed at depth 2 */
static void put_indented(FILE *f, const char *text, const char *indent)
{
    for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1) {
        fwrite(text, 1, (size_t)(nl - text) + 1, f);
        fputs(indent, f);
    }
    fputs(text, f);
}

/* The same bytes as cJSON_Print of gw_report_json, but the arrays of streamed[] are built,
 * printed and freed an item at a time: on 20,000 GPUs (a 109 MB document) the whole tree and
 * its text held 885 MiB (issue 28). cJSON prints an array's objects as "[{...}, {...}]", each
 * line indented by its depth: an item printed alone is indented by two tabs more. */
static gw_rc write_json_to(const gw_analysis *a, gw_file_out *out, gw_error *err)
{
    cJSON *root = report_json(a, false);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        abort();
    const char *rest = text;
    for (size_t s = 0, at = 0; s < sizeof streamed / sizeof *streamed; s++) {
        const char *m = strstr(text + at, streamed[s].marker);
        if (!m) { /* cannot happen with cJSON's format; the whole tree then, never a gap */
            cJSON_free(text);
            cJSON *whole = gw_report_json(a);
            gw_rc rc = gw_json_write_out(whole, out, err);
            cJSON_Delete(whole);
            return rc;
        }
        at = (size_t)(m - text);
    }
    for (size_t s = 0; a->ngpus && s < sizeof streamed / sizeof *streamed; s++) {
        const char *at = strstr(rest, streamed[s].marker);
        const char *close = at + strlen(streamed[s].marker) - 1; /* at its "]" */
        fwrite(rest, 1, (size_t)(close - rest), out->f);
        for (size_t k = 0; k < a->ngpus * streamed[s].per_gpu; k++) {
            cJSON *o = streamed[s].item(a, k);
            char *t = cJSON_Print(o);
            cJSON_Delete(o);
            if (!t)
                abort();
            if (k)
                fputs(", ", out->f);
            put_indented(out->f, t, "\t\t");
            cJSON_free(t);
        }
        rest = close;
    }
    fputs(rest, out->f);
    fputc('\n', out->f);
    cJSON_free(text);
    return gw_file_out_commit(out, err);
}

gw_rc gw_report_write_json(const gw_analysis *a, const char *path, gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_path(&out, path, err);
    return rc ? rc : write_json_to(a, &out, err);
}

gw_rc gw_report_write_json_at(const gw_analysis *a, int dirfd, const char *name, const char *label,
                              gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_at(&out, dirfd, name, label, err);
    return rc ? rc : write_json_to(a, &out, err);
}

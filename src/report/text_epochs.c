/* The text report's one table of the job's epochs, and the job's phases when it has no epochs
 * (text_priv.h). */
#include "report/report.h"
#include "report/text_priv.h"

#include "stats/stats.h"
#include "util/gw_fmt.h"
#include "util/gw_table.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns of the epoch table (docs/report.md, "Epochs"). */
enum {
    C_EPOCH,
    C_START,
    C_TOTAL,
    C_TRAIN,
    C_VAL,
    C_STEPS,
    C_RATE,
    C_BUSY,
    C_BUSY_TRAIN,
    C_BUSY_VAL,
    C_WH,
    C_COUNT
};

static const char SECONDS[] = "seconds", STEPS[] = "steps", BUSY[] = "GPU busy %",
                  ENERGY[] = "energy";

static const gw_table_col epoch_cols[C_COUNT] = {
    [C_EPOCH] = {NULL, "epoch", 0, true, true},
    [C_START] = {SECONDS, "start", GW_TABLE_AUTO, false, true},
    [C_TOTAL] = {SECONDS, "total", GW_TABLE_AUTO, false, true},
    [C_TRAIN] = {SECONDS, "train", GW_TABLE_AUTO, false, false},
    [C_VAL] = {SECONDS, "val", GW_TABLE_AUTO, false, false},
    [C_STEPS] = {STEPS, "count", 0, false, false},
    [C_RATE] = {STEPS, "/s", GW_TABLE_AUTO, false, false},
    [C_BUSY] = {BUSY, "all", 1, false, false},
    [C_BUSY_TRAIN] = {BUSY, "train", 1, false, false},
    [C_BUSY_VAL] = {BUSY, "val", 1, false, false},
    [C_WH] = {ENERGY, "Wh", GW_TABLE_AUTO, false, false},
};

/* Which figure of a GPU in an epoch or outside the epochs. */
typedef enum { F_UTIL, F_WH, F_TRAIN, F_VAL } figure;

/* GPU i's figure f in epoch k; k == -1: before the first epoch, k == nepochs: after the last. */
static double figure_of(const gw_analysis *a, long k, size_t i, figure f)
{
    if (k < 0 || (size_t)k >= a->nepochs) {
        const gw_span_figures *o = k < 0 ? &a->before_epochs[i] : &a->after_epochs[i];
        return f == F_UTIL ? o->util_pct : f == F_WH ? o->energy_wh : NAN;
    }
    size_t at = (size_t)k * a->ngpus + i;
    return f == F_UTIL    ? a->epoch_util_pct[at]
           : f == F_WH    ? a->epoch_energy_wh[at]
           : f == F_TRAIN ? a->epoch_parts[at].train_util_pct
                          : a->epoch_parts[at].val_util_pct;
}

/* Over the GPUs: the mean of a busy share, the sum of the energy (the job's); NAN when no GPU
 * has it. */
static double over_gpus(const gw_analysis *a, long k, figure f)
{
    double *x = xmalloc((a->ngpus ? a->ngpus : 1) * sizeof *x), sum = 0;
    bool any = false;
    for (size_t i = 0; i < a->ngpus; i++) {
        x[i] = figure_of(a, k, i, f);
        if (gw_fmt_sane(x[i])) {
            sum += x[i];
            any = true;
        }
    }
    double m = f == F_WH ? (any ? sum : NAN) : gw_stats_mean(x, NULL, a->ngpus);
    free(x);
    return m;
}

static void epoch_id(const gw_epoch *e, char *id, size_t size)
{
    if (e->total >= 0)
        snprintf(id, size, "%ld/%ld", e->number, e->total);
    else
        snprintf(id, size, "%ld", e->number);
}

static double s_of(int64_t ms)
{
    return (double)ms / 1000.0;
}

/* A row for the time before the first epoch or after the last one. */
static void outside_row(gw_table *t, const gw_analysis *a, const char *name, int64_t from,
                        int64_t to, long k)
{
    double busy = over_gpus(a, k, F_UTIL);
    double tick_ms = a->ngpus ? a->gpus[0].interval_s * 1000.0 : 0;
    if ((double)(to - from) < tick_ms || !gw_fmt_sane(busy)) /* shorter than a sample */
        return;
    size_t r = gw_table_row(t);
    gw_table_text(t, r, C_EPOCH, name);
    gw_table_num(t, r, C_START, s_of(from - a->start_ms));
    gw_table_num(t, r, C_TOTAL, s_of(to - from));
    gw_table_num(t, r, C_BUSY, busy);
    gw_table_num(t, r, C_WH, over_gpus(a, k, F_WH));
}

static void epoch_row(gw_table *t, const gw_analysis *a, size_t k)
{
    const gw_epoch *e = &a->epochs[k];
    size_t r = gw_table_row(t);
    char id[48];
    epoch_id(e, id, sizeof id);
    gw_table_text(t, r, C_EPOCH, id);
    gw_table_num(t, r, C_START, s_of(e->start_ms - a->start_ms));
    gw_table_num(t, r, C_TOTAL, s_of(e->end_ms - e->start_ms));
    if (e->train_end_ms || e->val_start_ms) /* as analysis.c's epoch_parts: up to validation */
        gw_table_num(t, r, C_TRAIN,
                     s_of((e->val_start_ms ? e->val_start_ms : e->end_ms) - e->start_ms));
    gw_table_num(t, r, C_VAL, e->validation_s);
    gw_table_num(t, r, C_STEPS, e->steps >= 0 ? (double)e->steps : NAN);
    gw_table_num(t, r, C_RATE, e->steps_per_s);
    gw_table_num(t, r, C_BUSY, over_gpus(a, (long)k, F_UTIL));
    gw_table_num(t, r, C_BUSY_TRAIN, over_gpus(a, (long)k, F_TRAIN));
    gw_table_num(t, r, C_BUSY_VAL, over_gpus(a, (long)k, F_VAL));
    gw_table_num(t, r, C_WH, over_gpus(a, (long)k, F_WH));
}

/* Each GPU's busy share and energy in each epoch, GPUs side by side in tables of 80 columns. */
static void per_gpu_tables(FILE *out, const gw_analysis *a)
{
    enum { PER_TABLE = 4 };
    fprintf(out, "  by GPU: busy %% and energy (Wh) in each epoch\n");
    for (size_t g0 = 0; g0 < a->ngpus; g0 += PER_TABLE) {
        size_t ng = PER_TABLE;
        if (a->ngpus - g0 < ng)
            ng = a->ngpus - g0;
        gw_table_col cols[1 + 2 * PER_TABLE];
        char *labels[PER_TABLE];
        cols[0] = (gw_table_col){NULL, "epoch", 0, true, true};
        for (size_t j = 0; j < ng; j++) {
            labels[j] = gw_series_gpu_label(a->series, a->series->gpus[g0 + j]);
            cols[1 + 2 * j] = (gw_table_col){labels[j], "busy", 1, false, true};
            cols[2 + 2 * j] = (gw_table_col){labels[j], "Wh", GW_TABLE_AUTO, false, true};
        }
        gw_table *t = gw_table_new(cols, 1 + 2 * ng);
        for (size_t k = 0; k < a->nepochs; k++) {
            size_t r = gw_table_row(t);
            char id[48];
            epoch_id(&a->epochs[k], id, sizeof id);
            gw_table_text(t, r, 0, id);
            for (size_t j = 0; j < ng; j++) {
                gw_table_num(t, r, 1 + 2 * j, a->epoch_util_pct[k * a->ngpus + g0 + j]);
                gw_table_num(t, r, 2 + 2 * j, a->epoch_energy_wh[k * a->ngpus + g0 + j]);
            }
        }
        gw_table_print(t, out, 2);
        gw_table_free(t);
        for (size_t j = 0; j < ng; j++)
            free(labels[j]);
    }
}

/* "found: ..." — what the job's output gave, wrapped to width columns. */
static void found_line(FILE *out, const char *found, int width)
{
    fputs("  found:", out);
    size_t col = 8;
    for (const char *w = found; *w;) {
        size_t len = strcspn(w, " ");
        if (col + 1 + len > (size_t)width - 1) {
            fputs("\n        ", out);
            col = 8;
        }
        fprintf(out, " %.*s", (int)len, w);
        col += len + 1;
        w += len;
        w += strspn(w, " ");
    }
    fputc('\n', out);
}

/* The checkpoint saves the job's output showed inside the epochs: a count and their time. */
static void saves_line(FILE *out, const gw_analysis *a)
{
    const gw_series *s = a->series;
    size_t n = 0;
    int64_t ms = 0;
    for (size_t k = 0; k < s->nphases; k++) {
        const gw_phase_span *p = &s->phases[k];
        if (p->kind == GW_PH_SAVE && p->start_ms >= a->epochs[0].start_ms &&
            p->end_ms <= a->epochs[a->nepochs - 1].end_ms) {
            n++;
            ms += p->end_ms - p->start_ms;
        }
    }
    if (n) {
        char d[GW_FMT_SIZE];
        fprintf(out, "  checkpoint saves inside the epochs: %zu, %s s in all\n", n,
                gw_fmt_fixed(d, sizeof d, s_of(ms), 1, 0, "?"));
    }
}

/* One row per epoch, with the time before the first and after the last. */
static void epochs_table(FILE *out, const gw_analysis *a, int width)
{
    const gw_series *s = a->series;
    fprintf(out, "\nEpochs (from %s)\n", gw_epoch_origin_name(a->epoch_origin));
    if (a->ngpus > 1)
        fprintf(out, "  GPU busy: the mean of the %zu GPUs, energy: their sum (each GPU below)\n",
                a->ngpus);
    if (s->phases_found && a->epoch_origin == GW_EPOCHS_OUTPUT)
        found_line(out, s->phases_found, width);
    gw_table *t = gw_table_new(epoch_cols, C_COUNT);
    outside_row(t, a, "start-up", a->start_ms, a->epochs[0].start_ms, -1);
    for (size_t k = 0; k < a->nepochs; k++)
        epoch_row(t, a, k);
    outside_row(t, a, "after", a->epochs[a->nepochs - 1].end_ms, a->record_end_ms,
                (long)a->nepochs);
    gw_table_print(t, out, 2);
    gw_table_free(t);
    saves_line(out, a);
    if (a->ngpus > 1)
        per_gpu_tables(out, a);
}

/* The mean utilization.gpu of the job's GPUs in phase k, NAN when unknown. */
static double job_phase_busy(const gw_analysis *a, size_t k)
{
    double *v = xmalloc((a->ngpus ? a->ngpus : 1) * sizeof *v);
    for (size_t i = 0; i < a->ngpus; i++)
        v[i] = a->gpus[i].participant ? a->job_phase_util_pct[k * a->ngpus + i] : NAN;
    double mean = gw_stats_mean(v, NULL, a->ngpus);
    free(v);
    return mean;
}

static const gw_table_col phase_cols[] = {
    {NULL, "phase", 0, true, true},        {NULL, "named by", 0, true, false},
    {NULL, "start s", 1, false, true},     {NULL, "duration s", 1, false, true},
    {NULL, "steps", 0, false, false},      {NULL, "steps/s", GW_TABLE_AUTO, false, false},
    {NULL, "GPU busy %", 1, false, false},
};

/* The job's phases in order, for a job without epochs (an iteration trainer), or whose epochs
 * do not show its evaluations. */
static void job_phases_table(FILE *out, const gw_analysis *a, bool with_epochs, int width)
{
    const gw_series *s = a->series;
    fprintf(out, "\nJob phases (from the job's output)\n");
    if (!with_epochs)
        found_line(out, s->phases_found, width);
    if (!s->nphases)
        return;
    enum { HEAD = 10, TAIL = 4 };
    gw_table *t = gw_table_new(phase_cols, sizeof phase_cols / sizeof phase_cols[0]);
    for (size_t k = 0; k < s->nphases; k++) {
        if (s->nphases > HEAD + TAIL + 1 && k == HEAD) {
            char more[64];
            snprintf(more, sizeof more, "... %zu more", s->nphases - HEAD - TAIL);
            gw_table_text(t, gw_table_row(t), 0, more);
            k = s->nphases - TAIL;
        }
        const gw_phase_span *p = &s->phases[k];
        size_t r = gw_table_row(t);
        gw_table_text(t, r, 0, gw_phase_kind_name(p->kind));
        gw_table_text(t, r, 1, p->kind == GW_PH_TRAIN ? NULL : p->what);
        gw_table_num(t, r, 2, s_of(p->start_ms - a->start_ms));
        gw_table_num(t, r, 3, s_of(p->end_ms - p->start_ms));
        gw_table_num(t, r, 4, p->steps >= 0 ? (double)p->steps : NAN);
        gw_table_num(t, r, 5, p->steps_per_s);
        gw_table_num(t, r, 6, job_phase_busy(a, k));
    }
    gw_table_print(t, out, 2);
    gw_table_free(t);
}

bool gw_report_epochs_cover_phases(const gw_analysis *a)
{
    for (size_t k = 0; k < a->nepochs; k++)
        if (a->epochs[k].train_end_ms || a->epochs[k].val_start_ms)
            return true;
    for (size_t k = 0; k < a->series->nphases; k++)
        if (a->series->phases[k].kind == GW_PH_EVAL)
            return false;
    return true;
}

void gw_report_epochs_text(FILE *out, const gw_analysis *a, int width)
{
    if (a->nepochs)
        epochs_table(out, a, width);
    if (a->series->phases_found && (!a->nepochs || !gw_report_epochs_cover_phases(a)))
        job_phases_table(out, a, a->nepochs > 0, width);
}

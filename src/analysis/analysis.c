/* The analysis of a series (see analysis.h): phases, statistics, energy, epochs, dips. */
#include "analysis/analysis.h"
#include "analysis/checks.h"
#include "analysis/marks.h"
#include "analysis/thresholds.h"

#include "sampler/clock_reasons.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const time_names[GW_TIME_COUNT] = {
    "idle", "busy", "hot", "memory_high", "power_capped", "thermal_slowdown"};

const char *gw_time_check_name(gw_time_check c)
{
    return c < GW_TIME_COUNT ? time_names[c] : "unknown";
}

static const char *const origin_names[] = {"none",  "events", "log",   "dips",
                                           "marks", "output", "python"};

const char *gw_epoch_origin_name(gw_epoch_origin o)
{
    return (unsigned)o < 7 ? origin_names[o] : "unknown";
}

static double value_at(const gw_gpu_analysis *g, gw_gpu_field f, size_t row)
{
    return gw_series_gpu_value(g->gpu, f, row);
}

/* What a row's values say (the row predicates and a span's time accounting share them). */
static bool slowdown_temp(const gw_gpu_analysis *g, double temp)
{
    return !isnan(g->gpu->slowdown_temp_c) && !isnan(temp) && temp >= g->gpu->slowdown_temp_c;
}

static bool draw_near_limit(const gw_gpu_analysis *g, double draw, double limit)
{
    if (isnan(limit))
        limit = g->gpu->power_limit_w;
    return !isnan(draw) && limit > 0 && draw / limit >= GW_TH(GW_TH_POWER_NEAR_LIMIT_RATIO);
}

static bool memory_high(const gw_gpu_analysis *g, double used, double total)
{
    if (isnan(total))
        total = g->gpu->memory_total_mib;
    return !isnan(used) && total > 0 && used / total * 100.0 > GW_TH(GW_TH_MEM_CAPACITY_PCT);
}

bool gw_row_thermal(const gw_gpu_analysis *g, size_t row)
{
    double mask = value_at(g, GW_F_CLOCKS_EVENT_REASONS, row);
    return gw_reasons_thermal(gw_reasons_of(mask)) ||
           slowdown_temp(g, value_at(g, GW_F_TEMP_GPU_C, row));
}

bool gw_row_power_capped(const gw_gpu_analysis *g, size_t row)
{
    if (gw_series_gpu_has(g->gpu, GW_F_CLOCKS_EVENT_REASONS))
        return gw_reasons_power(gw_reasons_of(value_at(g, GW_F_CLOCKS_EVENT_REASONS, row)));
    return draw_near_limit(g, value_at(g, GW_F_POWER_DRAW_W, row),
                           value_at(g, GW_F_POWER_LIMIT_W, row));
}

/* Rows [span) of field f's column into out (NAN without the column). */
static void decode_span(const gw_gpu_analysis *g, gw_gpu_field f, gw_span span, double *out)
{
    const gw_series_gpu *gpu = g->gpu;
    if (gw_series_gpu_has(gpu, f)) {
        gw_series_col_decode(&gpu->tab, (size_t)gpu->col_of[f], span.begin, span.end, out);
        return;
    }
    for (size_t r = 0; r < span.end - span.begin; r++)
        out[r] = NAN;
}

/* Seconds of the span each time check holds (out[GW_TIME_COUNT]), summed row by row; the
 * columns a check reads are decoded into a and b (the span's rows each) first. */
static void time_checks(const gw_gpu_analysis *g, gw_span span, double *a, double *b, double *out)
{
    size_t n = span.end - span.begin;
    const double *dt = g->dt_s + span.begin;
    const double idle = GW_TH(GW_TH_IDLE_UTIL_PCT), busy = GW_TH(GW_TH_BUSY_UTIL_PCT);
    const double hot = GW_TH(GW_TH_HOT_TEMP_C);
    double t[GW_TIME_COUNT] = {0};
    decode_span(g, GW_F_UTIL_GPU_PCT, span, a);
    for (size_t r = 0; r < n; r++) {
        t[GW_TIME_IDLE] += !isnan(a[r]) && a[r] < idle ? dt[r] : 0;
        t[GW_TIME_BUSY] += !isnan(a[r]) && a[r] >= busy ? dt[r] : 0;
    }
    decode_span(g, GW_F_TEMP_GPU_C, span, b);
    for (size_t r = 0; r < n; r++)
        t[GW_TIME_HOT] += b[r] > hot ? dt[r] : 0;
    decode_span(g, GW_F_CLOCKS_EVENT_REASONS, span, a); /* b: temperatures still */
    for (size_t r = 0; r < n; r++)
        t[GW_TIME_THERMAL] +=
            gw_reasons_thermal(gw_reasons_of(a[r])) || slowdown_temp(g, b[r]) ? dt[r] : 0;
    if (gw_series_gpu_has(g->gpu, GW_F_CLOCKS_EVENT_REASONS)) {
        for (size_t r = 0; r < n; r++)
            t[GW_TIME_POWER_CAPPED] += gw_reasons_power(gw_reasons_of(a[r])) ? dt[r] : 0;
    } else {
        decode_span(g, GW_F_POWER_DRAW_W, span, a);
        decode_span(g, GW_F_POWER_LIMIT_W, span, b);
        for (size_t r = 0; r < n; r++)
            t[GW_TIME_POWER_CAPPED] += draw_near_limit(g, a[r], b[r]) ? dt[r] : 0;
    }
    decode_span(g, GW_F_MEM_USED_MIB, span, a);
    decode_span(g, GW_F_MEM_TOTAL_MIB, span, b);
    for (size_t r = 0; r < n; r++)
        t[GW_TIME_MEMORY_HIGH] += memory_high(g, a[r], b[r]) ? dt[r] : 0;
    memcpy(out, t, sizeof t);
}

double gw_gpu_mean(const gw_gpu_analysis *g, const double *v, gw_span span, bool work_only)
{
    if (!v || span.end <= span.begin)
        return NAN;
    return gw_stats_mean_where(v + span.begin, g->dt_s + span.begin,
                               work_only ? g->in_expected_dip + span.begin : NULL,
                               span.end - span.begin);
}

double gw_gpu_mean_field(const gw_gpu_analysis *g, gw_gpu_field f, gw_span span, bool work_only)
{
    if (!gw_series_gpu_has(g->gpu, f) || span.end <= span.begin)
        return NAN;
    double *v = xmalloc((span.end - span.begin) * sizeof *v);
    gw_series_col_decode(&g->gpu->tab, (size_t)g->gpu->col_of[f], span.begin, span.end, v);
    double mean = gw_stats_mean_where(v, g->dt_s + span.begin,
                                      work_only ? g->in_expected_dip + span.begin : NULL,
                                      span.end - span.begin);
    free(v);
    return mean;
}

/* Energy over a span: one method for every span (stats.h), so phases and epochs add up to the
 * whole. The series holds power.draw in W and the counter in mJ. */
static gw_energy span_energy(const gw_energy_curve *c, gw_span span)
{
    return gw_energy_span(c, span.begin, span.end);
}

/* scratch: two buffers of the GPU's rows. A column's rows are decoded into the second one at a
 * time (the series keeps GPU columns compactly: series.h). */
static void phase_result(gw_gpu_analysis *g, const gw_energy_curve *energy, gw_phase_result *out,
                         gw_span span, double *scratch)
{
    const gw_series_table *t = &g->gpu->tab;
    double *values = scratch + t->n;
    out->span = span;
    out->stats = xcalloc(t->ncols, sizeof *out->stats);
    static const double q[3] = {0.05, 0.5, 0.95};
    for (size_t c = 0; c < t->ncols; c++) {
        size_t count = span.end - span.begin;
        gw_series_col_decode(t, c, span.begin, span.end, values);
        gw_stats *st = &out->stats[c];
        double p[3], lo, hi;
        size_t n;
        /* 1- and 2-byte columns: the same exact quantiles counted from their codes */
        if (!gw_series_col_quantiles(t, c, span.begin, span.end, q, 3, p, &n, &lo, &hi)) {
            gw_stats_summary(values, g->dt_s + span.begin, count, scratch, st);
            continue;
        }
        *st = (gw_stats){
            .n = n, .mean = NAN, .min = lo, .p5 = p[0], .p50 = p[1], .p95 = p[2], .max = hi};
        if (n > 0)
            st->mean = gw_stats_mean(values, g->dt_s + span.begin, count);
    }
    gw_energy e = span_energy(energy, span);
    out->energy_wh = e.wh;
    out->energy_partial = e.partial;
    time_checks(g, span, scratch, values, out->time_s);
}

static void phase_copy(gw_phase_result *dst, const gw_phase_result *src, size_t ncols)
{
    gw_stats *stats = xmalloc((ncols ? ncols : 1) * sizeof *stats);
    memcpy(stats, src->stats, ncols * sizeof *stats);
    *dst = *src;
    dst->stats = stats;
}

static bool job_used_gpu(const gw_series *s, const gw_series_gpu *gpu)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        const gw_series_proc *p = &s->procs[i];
        if (p->in_job == 1 && p->gpu_index == gpu->index &&
            strcmp(s->inputs[p->input].source, gpu->source) == 0)
            return true;
    }
    return false;
}

static void gpu_basics(const gw_series *s, gw_gpu_analysis *g)
{
    const gw_series_gpu *gpu = g->gpu;
    size_t n = gpu->tab.n;
    g->dt_s = xmalloc((n ? n : 1) * sizeof *g->dt_s);
    gw_stats_sample_weights(gpu->tab.t_ms, n, g->dt_s);
    g->interval_s = gw_stats_median_interval_ms(gpu->tab.t_ms, n) / 1000.0;
    g->in_expected_dip = xcalloc(n ? n : 1, 1);
    const double *util = gw_series_gpu_values(gpu, GW_F_UTIL_GPU_PCT);
    for (size_t r = 0; util && r < n && !g->worked; r++)
        g->worked = util[r] >= GW_TH(GW_TH_WORK_UTIL_PCT);
    gw_span ph[GW_PHASE_COUNT];
    gw_phases_detect(util, gpu->tab.t_ms, g->dt_s, n, ph);
    gw_phases_end_at_release(util, gw_series_gpu_values(gpu, GW_F_MEM_USED_MIB), gpu->tab.t_ms,
                             g->dt_s, n, ph);
    for (int p = 0; p < GW_PHASE_COUNT; p++)
        g->phase[p].span = ph[p];
    for (size_t h = 0; h < s->nhosts; h++)
        if (strcmp(s->hosts[h]->source, gpu->source) == 0)
            g->host = s->hosts[h];
    /* another job's GPU (--scope node) is shown, never compared or judged */
    g->participant = gpu->in_job != 0 && (g->worked || job_used_gpu(s, gpu));
    g->ndips = gw_dips_find(util, gpu->tab.t_ms, g->dt_s, n, ph[GW_PHASE_STEADY], &g->dips);
    gw_series_gpu_release(gpu);
}

/* The epochs the job's output showed, with their steps and validation (logread/progress.h), of
 * inputs of one kind; false when there are none. */
static bool epochs_from_output(gw_analysis *a, gw_input_kind want)
{
    const gw_series *s = a->series;
    size_t n = 0;
    for (size_t i = 0; i < s->nprogress; i++)
        n += s->inputs[s->progress[i].input].kind == want;
    if (n == 0)
        return false;
    a->epochs = xcalloc(n, sizeof *a->epochs);
    for (size_t i = 0; i < s->nprogress; i++) {
        const gw_progress_epoch *p = &s->progress[i].e;
        if (s->inputs[s->progress[i].input].kind != want)
            continue;
        a->epochs[a->nepochs++] = (gw_epoch){.number = p->number,
                                             .total = p->total,
                                             .start_ms = p->start_ms,
                                             .end_ms = p->end_ms,
                                             .train_end_ms = p->train_end_ms,
                                             .val_start_ms = p->val_start_ms,
                                             .val_end_ms = p->val_end_ms,
                                             .validation_s = p->validation_s,
                                             .steps = p->steps,
                                             .steps_per_s = p->steps_per_s};
    }
    /* An output whose last line starts the last epoch says nothing of when that epoch ended:
     * it ran on to the end of the record, not for 0 s. */
    gw_epoch *last = &a->epochs[a->nepochs - 1];
    if (last->end_ms <= last->start_ms && a->record_end_ms > last->start_ms)
        last->end_ms = a->record_end_ms;
    a->epoch_origin = want == GW_INPUT_TRAIN_LOG ? GW_EPOCHS_LOG : GW_EPOCHS_OUTPUT;
    return true;
}

/* Epochs of the log inputs when there are any (a --log overrides), else epoch marks of run dirs,
 * else the run's output read again with its index, else its epoch events (from the command's
 * output as the run read it). */
static void epochs_from_events(gw_analysis *a)
{
    static const gw_epoch_origin origin[3] = {GW_EPOCHS_LOG, GW_EPOCHS_MARKS, GW_EPOCHS_EVENTS};
    const gw_series *s = a->series;
    for (int pass = 0; pass < 3 && a->nepochs == 0; pass++) {
        if (pass != 1 && epochs_from_output(a, pass == 0 ? GW_INPUT_TRAIN_LOG : GW_INPUT_RUN_DIR))
            break;
        gw_input_kind want = pass == 0 ? GW_INPUT_TRAIN_LOG : GW_INPUT_RUN_DIR;
        int64_t *t = xmalloc((s->nevents + 1) * sizeof *t);
        long *num = xmalloc((s->nevents + 1) * sizeof *num);
        long *tot = xmalloc((s->nevents + 1) * sizeof *tot);
        size_t n = 0;
        int64_t end = a->end_ms;
        for (size_t i = 0; i < s->nevents; i++) {
            const gw_series_event *e = &s->events[i];
            if (s->inputs[e->input].kind != want)
                continue;
            if (pass == 1 && gw_mark_is(e, "epoch")) {
                t[n] = e->t_ms;
                gw_mark_epoch(e, (long)n + 1, &num[n], &tot[n]);
                n++;
            } else if (pass != 1 && e->kind == GW_EV_EPOCH && e->epoch >= 0) {
                t[n] = e->t_ms;
                num[n] = e->epoch;
                tot[n++] = e->total;
            } else if (e->kind == GW_SERIES_EV_LOG_END || e->kind == GW_EV_JOB_EXIT) {
                end = e->t_ms;
            }
        }
        a->nepochs = gw_epochs_build(t, num, tot, n, end, &a->epochs);
        if (a->nepochs)
            a->epoch_origin = origin[pass];
        free(t);
        free(num);
        free(tot);
    }
}

/* In-job data wins over parsed output: the training DataLoader's passes are the epochs, with
 * their exact steps and validation (analysis/inproc.h). */

static bool epochs_from_python(gw_analysis *a)
{
    a->nepochs = gw_inproc_epochs(a->inproc, &a->epochs);
    if (a->nepochs)
        a->epoch_origin = GW_EPOCHS_PYTHON;
    return a->nepochs > 0;
}

/* Keeps the expected marks only when the GPU is busy outside them (a GPU with no work outside
 * them, one that never worked or only ever worked lightly, has no expected dip: its idle time is
 * judged as idle, starved or holding memory); fills work_s and busy_pct. */
static void settle_dips(gw_gpu_analysis *g)
{
    const double *util = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    for (int pass = 0; pass < 2; pass++) {
        memset(g->in_expected_dip, 0, g->gpu->tab.n);
        for (size_t d = 0; d < g->ndips; d++)
            for (size_t r = g->dips[d].span.begin; g->dips[d].expected && r < g->dips[d].span.end;
                 r++)
                g->in_expected_dip[r] = 1;
        g->busy_pct = g->worked || g->participant ? gw_gpu_mean(g, util, st, true) : NAN;
        if (pass == 1 || g->busy_pct >= GW_TH(GW_TH_BUSY_UTIL_PCT))
            break;
        for (size_t d = 0; d < g->ndips; d++) /* not GPU-bound: no dip is "expected" */
            g->dips[d].expected = false;
    }
    g->work_s = 0;
    for (size_t r = st.begin; r < st.end; r++)
        if (!g->in_expected_dip[r])
            g->work_s += g->dt_s[r];
}

/* With epochs from the job itself (events, marks, a log), training starts with the first epoch:
 * whatever the GPU did before (model set-up, a warm-up kernel, cuDNN's autotuning) is start-up,
 * even when a brief blip of work came earlier. In-job data (analysis/inproc.h) also moves the
 * end of start-up earlier on the GPUs of its run: the training DataLoader's first pass is when
 * training started, even when the GPU was hardly busy then (an input-bound first epoch is
 * training, not start-up). The dips of the changed steady state are found again. */
static void startup_until_first_epoch(gw_analysis *a)
{
    if (a->nepochs == 0 || a->epoch_origin == GW_EPOCHS_DIPS)
        return;
    int64_t first = a->epochs[0].start_ms;
    for (size_t i = 0; i < a->ngpus; i++) {
        gw_gpu_analysis *g = &a->gpus[i];
        const int64_t *t = g->gpu->tab.t_ms;
        gw_span *startup = &g->phase[GW_PHASE_STARTUP].span;
        gw_span *steady = &g->phase[GW_PHASE_STEADY].span;
        bool earlier = a->epoch_origin == GW_EPOCHS_PYTHON && g->worked &&
                       steady->begin != steady->end && gw_inproc_covers(a->inproc, g->gpu);
        size_t b = earlier ? 0 : steady->begin;
        while (b < steady->end && t[b] < first)
            b++;
        if (b == steady->begin || b >= steady->end)
            continue;
        *startup = gw_span_make(g->gpu, g->dt_s, 0, b);
        *steady = gw_span_make(g->gpu, g->dt_s, b, steady->end);
        free(g->dips);
        g->dips = NULL;
        g->ndips = gw_dips_find(gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT), t, g->dt_s,
                                g->gpu->tab.n, *steady, &g->dips);
        gw_series_gpu_release(g->gpu);
    }
}

/* GPU i's dips: which are expected (a stage of each_gpu). */
static void classify_dips(gw_analysis *a, size_t i)
{
    gw_gpu_analysis *g = &a->gpus[i];
    /* Regular dips alone are no evidence of validation: a periodic input stall is regular
     * too. Only the job's epochs and validation marks make a dip expected. */
    if (a->nepochs)
        gw_dips_mark_epochs(g->dips, g->ndips, a->epochs, a->nepochs);
    gw_dips_mark_validation(a->series, g->gpu, g->dips, g->ndips);
    gw_dips_mark_job_phases(g->dips, g->ndips, a->series->phases, a->series->nphases);
    settle_dips(g);
    gw_series_gpu_release(g->gpu);
}

/* The training part of an epoch runs from its start to its validation (or to the end of its
 * training bar), the validation part from there to the validation's end (or the epoch's). */
static void epoch_parts(const gw_analysis *a, const gw_gpu_analysis *g, size_t k,
                        gw_epoch_parts *out)
{
    const gw_epoch *e = &a->epochs[k];
    *out = (gw_epoch_parts){NAN, NAN, NAN, NAN};
    int64_t val_start = e->val_start_ms ? e->val_start_ms : e->train_end_ms;
    int64_t val_end = e->val_start_ms ? e->val_end_ms : e->end_ms;
    int64_t train_end = val_start ? val_start : e->end_ms;
    const double *util = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    const double *sm = gw_series_gpu_values(g->gpu, GW_F_GPM_SM_ACTIVE_PCT);
    if (!e->train_end_ms && !e->val_start_ms)
        return; /* the output showed no parts */
    gw_span tr = gw_check_span_of_time(g, e->start_ms, train_end);
    out->train_util_pct = util ? gw_gpu_mean(g, util, tr, false) : NAN;
    out->train_sm_pct = sm ? gw_gpu_mean(g, sm, tr, false) : NAN;
    if (val_start && val_end > val_start) {
        gw_span va = gw_check_span_of_time(g, val_start, val_end);
        out->val_util_pct = util ? gw_gpu_mean(g, util, va, false) : NAN;
        out->val_sm_pct = sm ? gw_gpu_mean(g, sm, va, false) : NAN;
    }
}

/* GPU g's busy share and energy from start_ms to end_ms; NAN when that holds no row. */
static gw_span_figures span_figures(const gw_gpu_analysis *g, const gw_energy_curve *energy,
                                    int64_t start_ms, int64_t end_ms)
{
    gw_span sp = gw_check_span_of_time(g, start_ms, end_ms);
    if (end_ms <= start_ms || sp.end <= sp.begin)
        return (gw_span_figures){NAN, NAN};
    return (gw_span_figures){
        gw_gpu_mean(g, gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT), sp, false),
        span_energy(energy, sp).wh};
}

/* Statistics and energy of the whole record, the phases and the epochs of GPU i. The energy
 * curve lives only while one GPU is done (16 bytes a row). */
static void gpu_figures(gw_analysis *a, size_t i)
{
    gw_gpu_analysis *g = &a->gpus[i];
    const gw_series_gpu *gpu = g->gpu;
    gw_energy_curve energy;
    /* the series holds power.draw in W and the energy counter in mJ */
    gw_energy_curve_build(gpu->tab.t_ms, gpu->tab.n, gw_series_gpu_values(gpu, GW_F_POWER_DRAW_W),
                          1.0, gw_series_gpu_values(gpu, GW_F_ENERGY_MJ), 1e-3,
                          g->interval_s * 1000.0, &energy);
    gw_series_gpu_release(gpu);
    /* taken after the curve is built, when the decoded power and counter are gone (issue 28:
     * the peak of a big record) */
    double *scratch = xmalloc((gpu->tab.n ? 2 * gpu->tab.n : 1) * sizeof *scratch);
    phase_result(g, &energy, &g->whole, gw_span_make(gpu, g->dt_s, 0, gpu->tab.n), scratch);
    g->energy_from_counter = span_energy(&energy, g->whole.span).from_counter;
    for (int p = 0; p < GW_PHASE_COUNT; p++) {
        gw_span sp = g->phase[p].span;
        if (sp.begin == g->whole.span.begin && sp.end == g->whole.span.end && gpu->tab.n > 0) {
            /* a phase that is the whole record (a steady state from the first row to the last):
             * the same figures, copied rather than computed twice (issue 28) */
            phase_copy(&g->phase[p], &g->whole, gpu->tab.ncols);
            g->phase[p].span = sp;
        } else {
            phase_result(g, &energy, &g->phase[p], sp, scratch);
        }
    }
    for (size_t k = 0; k < a->nepochs; k++) {
        gw_span sp = gw_check_span_of_time(g, a->epochs[k].start_ms, a->epochs[k].end_ms);
        a->epoch_util_pct[k * a->ngpus + i] =
            gw_gpu_mean(g, gw_series_gpu_values(gpu, GW_F_UTIL_GPU_PCT), sp, false);
        a->epoch_energy_wh[k * a->ngpus + i] = span_energy(&energy, sp).wh;
        epoch_parts(a, g, k, &a->epoch_parts[k * a->ngpus + i]);
    }
    if (a->nepochs) {
        a->before_epochs[i] = span_figures(g, &energy, a->start_ms, a->epochs[0].start_ms);
        a->after_epochs[i] =
            span_figures(g, &energy, a->epochs[a->nepochs - 1].end_ms, a->record_end_ms);
    }
    for (size_t k = 0; k < a->series->nphases; k++) {
        const gw_phase_span *ph = &a->series->phases[k];
        gw_span sp = gw_check_span_of_time(g, ph->start_ms, ph->end_ms);
        a->job_phase_util_pct[k * a->ngpus + i] =
            sp.end > sp.begin
                ? gw_gpu_mean(g, gw_series_gpu_values(gpu, GW_F_UTIL_GPU_PCT), sp, false)
                : NAN;
    }
    gw_energy_curve_free(&energy);
    free(scratch);
    gw_series_gpu_release(gpu);
}

/* No verdict on another job's GPU (series.h in_job 0): it is shown as not this job. */
static void drop_other_jobs(gw_analysis *a)
{
    gw_verdict_list *l = &a->verdicts;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        gw_verdict *v = &l->v[i];
        if (v->gpu >= 0 && (size_t)v->gpu < a->ngpus && a->gpus[v->gpu].gpu->in_job == 0) {
            for (size_t e = 0; e < v->nevidence; e++)
                free(v->evidence[e].text);
            free(v->evidence);
            free(v->cause);
            free(v->message);
            free(v->suggestion);
        } else {
            l->v[k++] = *v;
        }
    }
    l->n = k;
}

int gw_analysis_threads = 2;

/* One stage of the analysis for GPU i: it touches only that GPU's gw_gpu_analysis, its columns
 * (their decoded copies) and its own entries of the epoch and job-phase arrays, so two GPUs'
 * can be done at once. */
typedef void (*gpu_stage)(gw_analysis *a, size_t i);

typedef struct gpu_range {
    gw_analysis *a;
    gpu_stage stage;
    size_t from, to; /* GPUs [from, to) */
} gpu_range;

static void *stage_range(void *arg)
{
    const gpu_range *j = arg;
    for (size_t i = j->from; i < j->to; i++)
        j->stage(j->a, i);
    return NULL;
}

/* A stage for every GPU; on a big record of several GPUs the GPUs past half the rows go to a
 * second thread (issue 28: both cores). The result does not depend on the split. */
static void each_gpu(gw_analysis *a, gpu_stage stage)
{
    size_t rows = 0;
    for (size_t i = 0; i < a->ngpus; i++)
        rows += a->gpus[i].gpu->tab.n;
    gpu_range whole = {a, stage, 0, a->ngpus};
    if (a->ngpus < 2 || rows < 500000 || gw_analysis_threads < 2 ||
        sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        stage_range(&whole);
        return;
    }
    size_t split = 0, seen = 0;
    while (split < a->ngpus && 2 * seen < rows)
        seen += a->gpus[split++].gpu->tab.n;
    gpu_range first = {a, stage, 0, split}, second = {a, stage, split, a->ngpus};
    pthread_t t;
    if (split == a->ngpus || pthread_create(&t, NULL, stage_range, &second) != 0) {
        stage_range(&whole);
        return;
    }
    stage_range(&first);
    pthread_join(t, NULL);
}

static void basics_stage(gw_analysis *a, size_t i)
{
    gpu_basics(a->series, &a->gpus[i]);
}

gw_analysis *gw_analyze(const gw_series *s)
{
    gw_analysis *a = xcalloc(1, sizeof *a);
    a->series = s;
    a->ngpus = s->ngpus;
    a->gpus = xcalloc(s->ngpus + 1, sizeof *a->gpus);
    for (size_t i = 0; i < s->ngpus; i++) {
        const gw_series_table *t = &s->gpus[i]->tab;
        if (t->n == 0)
            continue;
        if (a->start_ms == 0 || t->t_ms[0] < a->start_ms)
            a->start_ms = t->t_ms[0];
        if (t->t_ms[t->n - 1] > a->end_ms)
            a->end_ms = t->t_ms[t->n - 1];
    }
    for (size_t i = 0; i < s->ngpus; i++) {
        a->gpus[i].gpu = s->gpus[i];
        a->gpus[i].slot = i;
    }
    each_gpu(a, basics_stage);
    a->record_end_ms = a->end_ms;
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_gpu_analysis *g = &a->gpus[i];
        size_t n = g->gpu->tab.n;
        if (n && gw_span_make(g->gpu, g->dt_s, n, n).end_ms > a->record_end_ms)
            a->record_end_ms = gw_span_make(g->gpu, g->dt_s, n, n).end_ms;
    }
    a->inproc = gw_inproc_analyze(s);
    if (!epochs_from_python(a))
        epochs_from_events(a);
    startup_until_first_epoch(a);
    each_gpu(a, classify_dips);
    a->epoch_util_pct = xcalloc(a->nepochs * a->ngpus + 1, sizeof(double));
    a->epoch_energy_wh = xcalloc(a->nepochs * a->ngpus + 1, sizeof(double));
    a->epoch_parts = xcalloc(a->nepochs * a->ngpus + 1, sizeof *a->epoch_parts);
    a->job_phase_util_pct = xcalloc(s->nphases * a->ngpus + 1, sizeof(double));
    a->before_epochs = xcalloc(a->ngpus + 1, sizeof *a->before_epochs);
    a->after_epochs = xcalloc(a->ngpus + 1, sizeof *a->after_epochs);
    each_gpu(a, gpu_figures);
    gw_checks_run(a);
    drop_other_jobs(a);
    gw_verdict_sort(&a->verdicts);
    return a;
}

void gw_analysis_free(gw_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->ngpus; i++) {
        gw_gpu_analysis *g = &a->gpus[i];
        free(g->dt_s);
        free(g->dips);
        free(g->in_expected_dip);
        free(g->whole.stats);
        for (int p = 0; p < GW_PHASE_COUNT; p++)
            free(g->phase[p].stats);
    }
    free(a->gpus);
    free(a->epochs);
    free(a->epoch_util_pct);
    free(a->epoch_energy_wh);
    free(a->epoch_parts);
    free(a->job_phase_util_pct);
    free(a->before_epochs);
    free(a->after_epochs);
    gw_verdict_list_free(&a->verdicts);
    gw_inproc_analysis_free(a->inproc);
    free(a);
}

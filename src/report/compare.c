/* compare: the figures of several runs and their noise (compare.h). */
#include "report/compare.h"

#include "stats/stats.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const gw_cmp_metric_info gw_cmp_metrics[GW_CMP_COUNT] = {
    [GW_CMP_STEPS_PER_S] = {"steps_per_s", "steps/s", +1},
    [GW_CMP_EPOCH_S] = {"epoch_s", "epoch time [s]", -1},
    [GW_CMP_BUSY_PCT] = {"gpu_busy_pct", "GPU busy [%]", +1},
    [GW_CMP_SM_PCT] = {"sm_active_pct", "SM activity [%]", +1},
    [GW_CMP_DATA_WAIT_PCT] = {"data_wait_pct", "data wait [%]", -1},
    [GW_CMP_ENERGY_EPOCH_WH] = {"energy_per_epoch_wh", "energy/epoch [Wh]", -1},
    [GW_CMP_ENERGY_STEP_J] = {"energy_per_step_j", "energy/step [J]", -1},
    [GW_CMP_PEAK_MEM_MIB] = {"peak_memory_mib", "peak memory [MiB]", 0},
};

/* Windows of the steady state whose spread stands for the noise of a run without epochs. */
#define WINDOWS 5

double gw_cmp_data_wait_pct(const gw_analysis *a)
{
    /* the in-job data (RUN/python/, analysis/inproc.h): the training loop's time waiting for
     * the DataLoader over its passes; unknown, never 0, without it */
    const gw_inproc_analysis *ia = a->inproc;
    return ia && ia->in && ia->has_steps ? ia->wait_share_pct : NAN;
}

/* The data wait and its spread between the training loader's passes (epochs). */
static void data_wait(gw_cmp_run *r, const gw_analysis *a);

/* Mean and relative spread (standard deviation / mean, src/stats) of the known values of v[n]. */
static double mean_spread(const double *v, size_t n, double *spread, int *parts)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += isfinite(v[i]) != 0;
    *parts = k;
    *spread = NAN;
    double mean, sd;
    gw_stats_mean_sd(v, n, &mean, &sd);
    if (k >= GW_CMP_MIN_PARTS && isfinite(mean) && mean != 0)
        *spread = sd / fabs(mean);
    return mean;
}

static bool judged(const gw_analysis *a, size_t i)
{
    size_t any = 0;
    for (size_t j = 0; j < a->ngpus; j++)
        any += a->gpus[j].participant;
    return any ? a->gpus[i].participant : true;
}

static const double *column(const gw_gpu_analysis *g, int field)
{
    return gw_series_gpu_values(g->gpu, (gw_gpu_field)field);
}

/* Mean of field over the steady state of the judged GPUs (outside expected dips), and the same
 * over each of WINDOWS equal slices of it (win[WINDOWS]); means of the GPUs' means. */
static double steady_mean(const gw_analysis *a, int field, double win[WINDOWS])
{
    size_t n = a->ngpus ? a->ngpus : 1;
    double *m = xcalloc(n * (WINDOWS + 1), sizeof *m), *wm = m + n;
    for (size_t i = 0; i < n * (WINDOWS + 1); i++)
        m[i] = NAN;
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_gpu_analysis *g = &a->gpus[i];
        const double *v = column(g, field);
        gw_span st = g->phase[GW_PHASE_STEADY].span;
        if (!judged(a, i) || !v || st.end <= st.begin)
            continue;
        m[i] = gw_gpu_mean(g, v, st, true);
        size_t row = st.begin;
        for (int w = 0; w < WINDOWS; w++) {
            int64_t until = st.start_ms + (st.end_ms - st.start_ms) * (w + 1) / WINDOWS;
            size_t from = row;
            while (row < st.end && g->gpu->tab.t_ms[row] < until)
                row++;
            if (row > from)
                wm[(size_t)w * n + i] =
                    gw_gpu_mean(g, v, gw_span_make(g->gpu, g->dt_s, from, row), true);
        }
    }
    for (int w = 0; w < WINDOWS; w++)
        win[w] = gw_stats_mean(wm + (size_t)w * n, NULL, n);
    double mean = gw_stats_mean(m, NULL, n);
    free(m);
    return mean;
}

static void set(gw_cmp_run *r, gw_cmp_metric m, double value, const double *parts, size_t n,
                bool windows)
{
    double spread;
    int k;
    double mean = mean_spread(parts, n, &spread, &k);
    r->value[m] = isfinite(value) ? value : mean;
    r->spread[m] = spread;
    r->nparts[m] = k;
    r->from_windows[m] = windows;
}

/* GPU figures: busy and SM activity, their noise from the epochs when there are two, else from
 * the windows. */
static void gpu_figures(gw_cmp_run *r, const gw_analysis *a)
{
    double win[WINDOWS], *ep = xcalloc(a->nepochs + 1, sizeof *ep);
    int fields[2] = {GW_F_UTIL_GPU_PCT, GW_F_GPM_SM_ACTIVE_PCT};
    gw_cmp_metric ms[2] = {GW_CMP_BUSY_PCT, GW_CMP_SM_PCT};
    for (int f = 0; f < 2; f++) {
        double mean = steady_mean(a, fields[f], win);
        size_t known = 0;
        double *g = xcalloc(a->ngpus + 1, sizeof *g);
        for (size_t e = 0; e < a->nepochs; e++) {
            for (size_t i = 0; i < a->ngpus; i++)
                g[i] = !judged(a, i) ? NAN
                       : f == 0      ? a->epoch_util_pct[e * a->ngpus + i]
                                     : a->epoch_parts[e * a->ngpus + i].train_sm_pct;
            ep[e] = gw_stats_mean(g, NULL, a->ngpus);
            known += isfinite(ep[e]) != 0;
        }
        free(g);
        if (known >= GW_CMP_MIN_PARTS)
            set(r, ms[f], mean, ep, a->nepochs, false);
        else
            set(r, ms[f], mean, win, WINDOWS, true);
        if (!isfinite(mean))
            r->spread[ms[f]] = NAN;
    }
    double peak = NAN;
    for (size_t i = 0; i < a->ngpus; i++) {
        int c = a->gpus[i].gpu->col_of[GW_F_MEM_USED_MIB];
        if (judged(a, i) && c >= 0 && isfinite(a->gpus[i].whole.stats[c].max))
            peak = isfinite(peak) ? fmax(peak, a->gpus[i].whole.stats[c].max)
                                  : a->gpus[i].whole.stats[c].max;
    }
    r->value[GW_CMP_PEAK_MEM_MIB] = peak;
    free(ep);
}

/* Epoch figures: steps/s, epoch time, energy per epoch and per step. */
static void epoch_figures(gw_cmp_run *r, const gw_analysis *a)
{
    size_t n = a->nepochs;
    double *sps = xcalloc(n + 1, sizeof *sps), *dur = xcalloc(n + 1, sizeof *dur);
    double *wh = xcalloc(n + 1, sizeof *wh), *j = xcalloc(n + 1, sizeof *j);
    for (size_t e = 0; e < n; e++) {
        const gw_epoch *ep = &a->epochs[e];
        sps[e] = ep->steps_per_s > 0 ? ep->steps_per_s : NAN;
        dur[e] = ep->end_ms > ep->start_ms ? (double)(ep->end_ms - ep->start_ms) / 1000.0 : NAN;
        double s = 0;
        int k = 0;
        bool all = true;
        for (size_t i = 0; i < a->ngpus; i++) {
            double x = a->epoch_energy_wh[e * a->ngpus + i];
            if (!judged(a, i))
                continue;
            if (isfinite(x))
                s += x, k++;
            else
                all = false;
        }
        wh[e] = k && all ? s : NAN; /* a GPU without energy would undercount the epoch */
        j[e] = isfinite(wh[e]) && ep->steps > 0 ? wh[e] * 3600.0 / (double)ep->steps : NAN;
    }
    set(r, GW_CMP_STEPS_PER_S, NAN, sps, n, false);
    set(r, GW_CMP_EPOCH_S, NAN, dur, n, false);
    set(r, GW_CMP_ENERGY_EPOCH_WH, NAN, wh, n, false);
    set(r, GW_CMP_ENERGY_STEP_J, NAN, j, n, false);
    free(sps), free(dur), free(wh), free(j);
}

static void data_wait(gw_cmp_run *r, const gw_analysis *a)
{
    const gw_inproc_analysis *ia = a->inproc;
    size_t n = isfinite(gw_cmp_data_wait_pct(a)) ? ia->nepochs : 0;
    double *w = xcalloc(n + 1, sizeof *w);
    for (size_t e = 0; e < n; e++)
        w[e] = ia->epochs[e].wait_share_pct;
    set(r, GW_CMP_DATA_WAIT_PCT, gw_cmp_data_wait_pct(a), w, n, false);
    free(w);
}

static char *short_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    char *name = xstrndup(path + b, n - b);
    size_t len = strlen(name);
    if (len > 9 && strcmp(name + len - 8, ".csv") == 0) /* "gpu.csv": the directory names it */
        name[len - 4] = '\0';
    return name;
}

gw_cmp *gw_cmp_build(const gw_analysis *const *a, const char *const *paths, size_t nruns)
{
    gw_cmp *c = xcalloc(1, sizeof *c);
    c->nruns = nruns;
    c->runs = xcalloc(nruns ? nruns : 1, sizeof *c->runs);
    for (size_t i = 0; i < nruns; i++) {
        gw_cmp_run *r = &c->runs[i];
        r->path = paths[i];
        r->a = a[i];
        r->name = short_name(paths[i]);
        for (int m = 0; m < GW_CMP_COUNT; m++)
            r->value[m] = r->spread[m] = NAN;
        r->duration_s = (double)(a[i]->record_end_ms - a[i]->start_ms) / 1000.0;
        for (size_t g = 0; g < a[i]->ngpus; g++)
            r->ngpus += judged(a[i], g);
        r->nepochs = a[i]->nepochs;
        r->lead = a[i]->verdicts.n ? &a[i]->verdicts.v[0] : NULL;
        epoch_figures(r, a[i]);
        gpu_figures(r, a[i]);
        data_wait(r, a[i]);
    }
    /* two runs of one name ("run" and "run"): show the paths */
    for (size_t i = 0; i < nruns; i++)
        for (size_t k = 0; k < nruns; k++)
            if (i != k && strcmp(c->runs[i].name, c->runs[k].name) == 0) {
                free(c->runs[i].name);
                c->runs[i].name = xstrdup(paths[i]);
                break;
            }
    return c;
}

void gw_cmp_free(gw_cmp *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nruns; i++)
        free(c->runs[i].name);
    free(c->runs);
    free(c);
}

gw_cmp_diff gw_cmp_diff_of(const gw_cmp *c, size_t r, gw_cmp_metric m)
{
    gw_cmp_diff d = {NAN, -1};
    const gw_cmp_run *a = &c->runs[0], *b = &c->runs[r];
    if (!isfinite(a->value[m]) || !isfinite(b->value[m]) || a->value[m] == 0)
        return d;
    d.ratio = b->value[m] / a->value[m];
    if (isfinite(a->spread[m]) && isfinite(b->spread[m])) {
        double noise = sqrt(a->spread[m] * a->spread[m] + b->spread[m] * b->spread[m]);
        d.beyond = fabs(d.ratio - 1.0) > GW_CMP_NOISE_K * noise;
    }
    return d;
}

/* The decimals of metric m's values (dec) and spreads in % (sdec) over the runs: one count for
 * each across a row ("0.92 / 1.91", never "0.923 / 1.91"); spreads with 2 significant digits
 * for the largest. */
void gw_cmp_row_decimals(const gw_cmp *c, gw_cmp_metric m, int *dec, int *sdec)
{
    double v[32], sp[32], largest = 0;
    size_t n = 32;
    if (c->nruns < n)
        n = c->nruns;
    for (size_t i = 0; i < n; i++) {
        v[i] = c->runs[i].value[m];
        sp[i] = c->runs[i].spread[m] * 100;
        if (gw_fmt_sane(sp[i]) && fabs(sp[i]) > largest)
            largest = fabs(sp[i]);
    }
    *dec = gw_fmt_decimals(v, n);
    *sdec = largest >= 10 ? 0 : 1;
}

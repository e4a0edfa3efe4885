/* Phases (start-up, steady state, tail) and dips (see analysis.h). */
#include "analysis/analysis.h"
#include "analysis/thresholds.h"
#include "stats/stats.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

static const char *const phase_names[GW_PHASE_COUNT] = {"startup", "steady", "tail"};

const char *gw_phase_name(gw_phase p)
{
    return p < GW_PHASE_COUNT ? phase_names[p] : "unknown";
}

static gw_span rows(const int64_t *t, const double *dt_s, size_t n, size_t begin, size_t end)
{
    gw_span s = {.begin = begin, .end = end};
    if (n == 0)
        return s;
    int64_t after_last = t[n - 1] + (int64_t)llround(dt_s[n - 1] * 1000.0);
    s.start_ms = begin < n ? t[begin] : after_last;
    s.end_ms = end < n ? t[end] : after_last;
    return s;
}

gw_span gw_span_make(const gw_series_gpu *g, const double *dt_s, size_t begin, size_t end)
{
    return rows(g->tab.t_ms, dt_s, g->tab.n, begin, end);
}

void gw_phases_detect(const double *util, const int64_t *t_ms, const double *dt_s, size_t n,
                      gw_span out[GW_PHASE_COUNT])
{
    const double work = GW_TH(GW_TH_WORK_UTIL_PCT);
    size_t first = n, last = n, sustained = n;
    for (size_t i = 0; util && i < n; i++) {
        if (!(util[i] >= work))
            continue;
        if (first == n)
            first = i;
        last = i;
        /* Start-up ends where the GPU starts working for real: the first stretch of work lasting
         * dip_min_s. Blips before it (moving the model, a warm-up kernel) belong to start-up. */
        if (sustained == n) {
            size_t j = i;
            while (j < n && util[j] >= work)
                j++;
            if (j > i && (double)(t_ms[j - 1] - t_ms[i]) >= GW_TH(GW_TH_DIP_MIN_S) * 1000.0)
                sustained = i;
        }
    }
    size_t b = 0, e = n; /* without a working sample (or without util) everything is steady */
    if (first < n) {
        b = sustained < n ? sustained : first;
        e = last + 1;
    }
    out[GW_PHASE_STARTUP] = rows(t_ms, dt_s, n, 0, b);
    out[GW_PHASE_STEADY] = rows(t_ms, dt_s, n, b, e);
    out[GW_PHASE_TAIL] = rows(t_ms, dt_s, n, e, n);
}

void gw_phases_end_at_release(const double *util, const double *mem, const int64_t *t_ms,
                              const double *dt_s, size_t n, gw_span out[GW_PHASE_COUNT])
{
    gw_span st = out[GW_PHASE_STEADY];
    if (!util || !mem || st.end <= st.begin)
        return;
    double peak = NAN;
    for (size_t r = st.begin; r < st.end; r++)
        if (!isnan(mem[r]) && !(mem[r] <= peak))
            peak = mem[r];
    if (!(peak > 0))
        return;
    double low = peak * GW_TH(GW_TH_TAIL_RELEASE_PCT) / 100.0;
    size_t k = n; /* the first row of the final stretch below `low` (to the end of the record) */
    while (k > st.begin && (isnan(mem[k - 1]) || mem[k - 1] < low))
        k--;
    while (k < st.end && isnan(mem[k])) /* the stretch starts with a reading below `low` */
        k++;
    if (k <= st.begin || k >= st.end || (double)(st.end - k) < GW_TH(GW_TH_MIN_STEADY_SAMPLES))
        return;
    /* the stretch's time-weighted mean, by the engine */
    if (!(gw_stats_mean(util + k, dt_s + k, st.end - k) < GW_TH(GW_TH_BUSY_UTIL_PCT)))
        return;
    out[GW_PHASE_STEADY] = rows(t_ms, dt_s, n, st.begin, k);
    out[GW_PHASE_TAIL] = rows(t_ms, dt_s, n, k, n);
}

static bool idle_at(const double *util, size_t i)
{
    return !isnan(util[i]) && util[i] < GW_TH(GW_TH_IDLE_UTIL_PCT);
}

size_t gw_dips_find(const double *util, const int64_t *t_ms, const double *dt_s, size_t n,
                    gw_span steady, gw_dip **out)
{
    gw_dip *d = NULL;
    size_t count = 0, cap = 0;
    double min_ms = GW_TH(GW_TH_DIP_MIN_S) * 1000.0;
    double burst_ms = GW_TH(GW_TH_DIP_BURST_S) * 1000.0;
    size_t i = steady.begin;
    while (util && i < steady.end) {
        if (!idle_at(util, i)) {
            i++;
            continue;
        }
        /* An idle run, extended over busy bursts shorter than dip_burst_s that are followed by
         * more idle time (a validation pass runs a few forward steps between idle stretches). */
        size_t j = i;
        for (;;) {
            while (j < steady.end && idle_at(util, j))
                j++;
            size_t k = j;
            while (k < steady.end && !idle_at(util, k))
                k++;
            if (k >= steady.end || k == j || (double)(t_ms[k] - t_ms[j]) >= burst_ms)
                break;
            j = k;
        }
        gw_span s = rows(t_ms, dt_s, n, i, j);
        if ((double)(s.end_ms - s.start_ms) >= min_ms) {
            d = xgrow(d, &cap, count + 1, sizeof *d);
            d[count++] = (gw_dip){.span = s, .expected = false};
        }
        i = j;
    }
    *out = d;
    return count;
}

/* The part of [a, b) inside [c, d), in ms. */
static int64_t overlap_ms(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t lo = a > c ? a : c, hi = b < d ? b : d;
    return hi > lo ? hi - lo : 0;
}

/* A dip in an epoch whose output showed where training ended: expected when it lies mostly
 * after that (validation, checkpointing), at_epoch_start when it begins at the epoch's start. */
static void mark_by_parts(gw_dip *d, const gw_epoch *e, int64_t tol)
{
    int64_t after = e->val_start_ms && (!e->train_end_ms || e->val_start_ms < e->train_end_ms)
                        ? e->val_start_ms
                        : e->train_end_ms;
    int64_t len = d->span.end_ms - d->span.start_ms;
    if (after && 2 * overlap_ms(d->span.start_ms, d->span.end_ms, after - tol, e->end_ms) > len)
        d->expected = true;
    else if (d->span.start_ms <= e->start_ms + tol && d->span.end_ms > e->start_ms)
        d->at_epoch_start = true;
}

size_t gw_dips_mark_epochs(gw_dip *dips, size_t n, const gw_epoch *epochs, size_t nepochs)
{
    int64_t tol = (int64_t)(GW_TH(GW_TH_DIP_ALIGN_S) * 1000.0);
    size_t marked = 0;
    for (size_t d = 0; d < n; d++) {
        for (size_t k = 0; k < nepochs && !dips[d].expected; k++) {
            const gw_epoch *e = &epochs[k];
            if (e->train_end_ms || e->val_start_ms) {
                if (dips[d].span.start_ms < e->end_ms + tol &&
                    dips[d].span.end_ms > e->start_ms - tol)
                    mark_by_parts(&dips[d], e, tol);
                continue;
            }
            /* The boundaries: every epoch's start but the first, and the last epoch's end. */
            const int64_t b[2] = {k > 0 ? e->start_ms : INT64_MIN,
                                  k + 1 == nepochs ? e->end_ms : INT64_MIN};
            for (int i = 0; i < 2; i++)
                if (b[i] != INT64_MIN && b[i] >= dips[d].span.start_ms - tol &&
                    b[i] <= dips[d].span.end_ms + tol)
                    dips[d].expected = true;
        }
        if (dips[d].expected)
            dips[d].at_epoch_start = false;
        marked += dips[d].expected;
    }
    return marked;
}

size_t gw_dips_mark_job_phases(gw_dip *dips, size_t n, const gw_phase_span *ph, size_t nph)
{
    int64_t tol = (int64_t)(GW_TH(GW_TH_DIP_ALIGN_S) * 1000.0);
    size_t marked = 0;
    for (size_t d = 0; d < n; d++) {
        int64_t in = 0, len = dips[d].span.end_ms - dips[d].span.start_ms;
        for (size_t k = 0; k < nph; k++)
            if (ph[k].kind != GW_PH_TRAIN)
                in += overlap_ms(dips[d].span.start_ms, dips[d].span.end_ms, ph[k].start_ms - tol,
                                 ph[k].end_ms + tol);
        if (!dips[d].expected && len > 0 && 2 * in > len) {
            dips[d].expected = true;
            dips[d].at_epoch_start = false;
            marked++;
        }
    }
    return marked;
}

bool gw_dips_regular(const gw_dip *dips, size_t n, double *period_s, double *cv)
{
    *period_s = NAN;
    *cv = NAN;
    if (n < 2)
        return false;
    double *gap = xmalloc((n - 1) * sizeof *gap);
    for (size_t i = 1; i < n; i++)
        gap[i - 1] = (double)(dips[i].span.start_ms - dips[i - 1].span.start_ms) / 1000.0;
    double mean, sd;
    gw_stats_mean_sd(gap, n - 1, &mean, &sd);
    free(gap);
    *period_s = mean;
    *cv = mean > 0 ? sd / mean : NAN;
    return (double)n >= GW_TH(GW_TH_DIP_MIN_REGULAR) && mean > 0 &&
           *cv <= GW_TH(GW_TH_DIP_PERIOD_CV);
}

#include "alerts/trend.h"

#include "stats/stats.h"

#include <math.h>
#include <string.h>

void gw_trend_reset(gw_trend *w, int64_t window_ns)
{
    w->window_ns = window_ns > 0 ? window_ns : 1;
    w->step_ns = w->window_ns / (GW_TREND_POINTS - 2);
    w->head = w->n = 0;
}

static int idx(const gw_trend *w, int i)
{
    return (w->head + i) % GW_TREND_POINTS;
}

void gw_trend_push(gw_trend *w, int64_t t_ns, double v)
{
    while (w->n > 0 && w->t_ns[w->head] < t_ns - w->window_ns) {
        w->head = (w->head + 1) % GW_TREND_POINTS;
        w->n--;
    }
    /* Thin the points: the newest one keeps moving forward until it lies step_ns past the one
     * before it; only then does a new point start, so kept points are at least step_ns apart. */
    if (w->n >= 2 && w->t_ns[idx(w, w->n - 1)] - w->t_ns[idx(w, w->n - 2)] < w->step_ns) {
        w->t_ns[idx(w, w->n - 1)] = t_ns;
        w->v[idx(w, w->n - 1)] = v;
        return;
    }
    if (w->n == GW_TREND_POINTS) { /* only when time stands still: drop the oldest */
        w->head = (w->head + 1) % GW_TREND_POINTS;
        w->n--;
    }
    w->t_ns[idx(w, w->n)] = t_ns;
    w->v[idx(w, w->n)] = v;
    w->n++;
}

double gw_trend_rise(const gw_trend *w)
{
    if (w->n == 0)
        return 0;
    double lo = w->v[w->head];
    for (int i = 1; i < w->n; i++)
        lo = fmin(lo, w->v[idx(w, i)]);
    return w->v[idx(w, w->n - 1)] - lo;
}

bool gw_trend_fit(const gw_trend *w, double *slope_per_s, double *r2)
{
    if (w->n < GW_TREND_MIN_LINEAR_POINTS)
        return false;
    int64_t t0 = w->t_ns[w->head];
    double t_s[GW_TREND_POINTS], v[GW_TREND_POINTS];
    for (int i = 0; i < w->n; i++) {
        t_s[i] = (double)(w->t_ns[idx(w, i)] - t0) / 1e9;
        v[i] = w->v[idx(w, i)];
    }
    gw_fit f;
    gw_stats_linfit_s(t_s, v, (size_t)w->n, &f);
    /* no spread in time (NAN slope) or in value (R^2 0): no line to follow */
    if (isnan(f.slope_per_s) || !(f.r2 > 0))
        return false;
    *slope_per_s = f.slope_per_s;
    *r2 = f.r2;
    return true;
}

#include "alerts/trend.h"

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
    double st = 0, sv = 0, stt = 0, stv = 0, svv = 0, n = w->n;
    for (int i = 0; i < w->n; i++) {
        double t = (double)(w->t_ns[idx(w, i)] - t0) / 1e9;
        double v = w->v[idx(w, i)];
        st += t;
        sv += v;
        stt += t * t;
        stv += t * v;
        svv += v * v;
    }
    double dtt = n * stt - st * st, dvv = n * svv - sv * sv, dtv = n * stv - st * sv;
    if (dtt <= 0 || dvv <= 0)
        return false;
    *slope_per_s = dtv / dtt;
    *r2 = dtv * dtv / (dtt * dvv);
    return true;
}

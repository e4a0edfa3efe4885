/* Energy of spans of one GPU's rows, one way for every span (see stats.h). */
#include "stats/stats.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

/* Power (W) at every row: present values, absent cells bridged linearly between the present
 * values around them when those are at most limit_ms apart, else NAN. */
static double *power_at_rows(const int64_t *t, size_t n, const double *p, double to_w,
                             double limit_ms)
{
    double *w = xmalloc((n ? n : 1) * sizeof *w);
    size_t prev = SIZE_MAX;
    for (size_t r = 0; r < n; r++) {
        w[r] = NAN;
        if (!p || isnan(p[r]))
            continue;
        w[r] = p[r] * to_w;
        if (prev != SIZE_MAX && r > prev + 1 && (double)(t[r] - t[prev]) <= limit_ms) {
            double span = (double)(t[r] - t[prev]);
            for (size_t k = prev + 1; k < r; k++) {
                double f = span > 0 ? (double)(t[k] - t[prev]) / span : 0;
                w[k] = w[prev] + f * (w[r] - w[prev]);
            }
        }
        prev = r;
    }
    /* absent cells before the first and after the last value: held, like the last row's power */
    size_t first = 0;
    while (first < n && isnan(w[first]))
        first++;
    for (size_t k = 0; first < n && k < first; k++)
        if ((double)(t[first] - t[k]) <= limit_ms)
            w[k] = w[first];
    for (size_t k = prev == SIZE_MAX ? n : prev + 1; k < n; k++)
        if ((double)(t[k] - t[prev]) <= limit_ms)
            w[k] = w[prev];
    return w;
}

/* Energy (J) of each interval r from power: the trapezoid to the next row (the last row: its power
 * held for one interval), NAN where either end has no power or the gap is not bridged. */
static void power_intervals(const int64_t *t, size_t n, const double *w, double interval_ms,
                            double limit_ms, double *pj)
{
    for (size_t r = 0; r < n; r++) {
        bool last = r + 1 == n;
        double next = last ? w[r] : w[r + 1];
        double gap_ms = last ? interval_ms : (double)(t[r + 1] - t[r]);
        pj[r] = (!isnan(w[r]) && !isnan(next) && gap_ms <= limit_ms)
                    ? 0.5 * (w[r] + next) * gap_ms / 1000.0
                    : NAN;
    }
}

/* Gives the intervals that two successive counter readings enclose the counter's increase (J);
 * other intervals stay NAN. The increase is shared in proportion to the power integral of each
 * interval when power covers them all (so a span edge between two readings falls where the power
 * says the energy went: idle and busy seconds are not averaged), else in proportion to time. */
static void counter_intervals(const int64_t *t, size_t n, const double *c, double to_j,
                              const double *pj, double *inc)
{
    size_t last = SIZE_MAX; /* row of the previous reading */
    double last_v = NAN;
    for (size_t r = 0; c && r < n; r++) {
        if (isnan(c[r]) || c[r] == last_v)
            continue;
        double joules = (c[r] - last_v) * to_j;
        double span = last != SIZE_MAX ? (double)(t[r] - t[last]) : 0;
        if (last != SIZE_MAX && c[r] > last_v && span > 0 &&
            joules <= GW_STATS_MAX_POWER_W * span / 1000.0) { /* more is a glitch, not energy */
            double pow = 0;
            for (size_t k = last; k < r && !isnan(pow); k++)
                pow += pj[k]; /* NAN as soon as one interval has no power */
            for (size_t k = last; k < r; k++)
                inc[k] = pow > 0 ? joules * pj[k] / pow : joules * (double)(t[k + 1] - t[k]) / span;
        }
        last = r;
        last_v = c[r];
    }
}

void gw_energy_curve_build(const int64_t *t_ms, size_t n, const double *power, double power_to_w,
                           const double *counter, double counter_to_j, double interval_ms,
                           gw_energy_curve *out)
{
    if (interval_ms <= 0)
        interval_ms = gw_stats_median_interval_ms(t_ms, n);
    double limit_ms = GW_STATS_BRIDGE_INTERVALS * interval_ms;
    size_t cap = n ? n : 1;
    *out = (gw_energy_curve){.n = n,
                             .j = xcalloc(n + 1, sizeof *out->j),
                             .by_counter = xcalloc(n + 1, sizeof *out->by_counter),
                             .uncovered = xcalloc(n + 1, sizeof *out->uncovered)};
    for (size_t r = 0; r < n && !out->any; r++)
        out->any = (power && !isnan(power[r])) || (counter && !isnan(counter[r]));
    double *w = power_at_rows(t_ms, n, power, power_to_w, limit_ms);
    double *pj = xmalloc(cap * sizeof *pj), *inc = xmalloc(cap * sizeof *inc);
    power_intervals(t_ms, n, w, interval_ms, limit_ms, pj);
    for (size_t r = 0; r < n; r++)
        inc[r] = NAN;
    counter_intervals(t_ms, n, counter, counter_to_j, pj, inc);
    for (size_t r = 0; r < n; r++) {
        bool by_counter = !isnan(inc[r]), covered = by_counter || !isnan(pj[r]);
        double joules = by_counter ? inc[r] : covered ? pj[r] : 0;
        out->j[r + 1] = out->j[r] + joules;
        out->by_counter[r + 1] = out->by_counter[r] + by_counter;
        out->uncovered[r + 1] = out->uncovered[r] + !covered;
    }
    free(pj);
    free(inc);
    free(w);
}

void gw_energy_curve_free(gw_energy_curve *c)
{
    if (!c)
        return;
    free(c->j);
    free(c->by_counter);
    free(c->uncovered);
    *c = (gw_energy_curve){0};
}

gw_energy gw_energy_span(const gw_energy_curve *c, size_t begin, size_t end)
{
    gw_energy e = {.wh = NAN};
    if (end > c->n)
        end = c->n;
    if (!c->any || begin >= end)
        return e;
    uint32_t intervals = (uint32_t)(end - begin);
    uint32_t uncovered = c->uncovered[end] - c->uncovered[begin];
    e.from_counter = c->by_counter[end] > c->by_counter[begin];
    e.partial = uncovered > 0;
    if (uncovered < intervals)
        e.wh = (c->j[end] - c->j[begin]) / 3600.0;
    return e;
}

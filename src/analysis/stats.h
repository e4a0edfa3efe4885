/*
 * stats: descriptive statistics over columns of the series model.
 *
 * Owns: mean, percentiles (linear interpolation between closest ranks, as numpy's and pandas'
 * default), min/max, linear least-squares fits against time, and sample weights for time-based
 * shares. NAN values are skipped everywhere ("absent", never 0).
 * Must not: allocate except where a function says so, print, or know what a column means.
 */
#ifndef GW_STATS_H
#define GW_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gw_stats {
    size_t n;                            /* present (non-NAN) values */
    double mean, min, p5, p50, p95, max; /* all NAN when n == 0 */
} gw_stats;

/* Summarises the present values of v[0..count). scratch must hold count doubles (it is
 * overwritten); NULL makes the function allocate its own. */
void gw_stats_summary(const double *v, size_t count, double *scratch, gw_stats *out);

/* The q-quantile (0 <= q <= 1) of a[0..n) by linear interpolation; reorders a (selection, O(n)).
 * a must not hold NAN. Returns NAN when n == 0. */
double gw_stats_quantile(double *a, size_t n, double q);

/* Mean of the present values of v[0..n), NAN when none. */
double gw_stats_mean(const double *v, size_t n);

/* Least-squares line v = slope * t + intercept over rows with a present value.
 * slope_per_s is in v-units per second; r2 is the coefficient of determination (0 when v is
 * constant). n counts the rows used; with fewer than 3 everything is NAN. */
typedef struct gw_fit {
    size_t n;
    double slope_per_s, intercept, r2;
} gw_fit;
void gw_stats_linfit(const int64_t *t_ms, const double *v, size_t n, gw_fit *out);

/* Median of the positive gaps between consecutive times (ms); 1000 when there are none. */
double gw_stats_median_interval_ms(const int64_t *t_ms, size_t n);

/* Weight in seconds of each sample: the gap to the next sample, capped at 5 median intervals so
 * that a recording pause does not count as time; the last sample weighs one median interval.
 * Writes dt_s[0..n). */
void gw_stats_sample_weights(const int64_t *t_ms, size_t n, double *dt_s);

#endif

/*
 * stats: the one statistics engine. Every figure gpuwatch prints about a series (the end-of-run
 * table, summary.json, the text and HTML reports) comes from these functions, so the same
 * samples always give the same numbers.
 *
 * Shapes: a series is a time axis t_ms[n] (milliseconds, non-decreasing; any origin) and value
 * columns v[n] of plain doubles, NAN = absent (skipped everywhere, never read as 0). Values are
 * unit-agnostic: results come back in the unit of the values given (means, percentiles, min/max);
 * energy takes a factor that turns each input's unit into W or J.
 * Definitions:
 * - percentiles interpolate linearly between the closest ranks, as numpy.percentile's default
 *   (and pandas'): rank h = (n - 1) q, value a[floor h] + frac(h) (a[floor h + 1] - a[floor h]).
 * - means are time-weighted: each sample weighs the time it represents (gw_stats_sample_weights):
 *   the gap to the next sample (the value holds until the next reading), one median interval for
 *   the last sample and for a sample before a gap the engine does not bridge.
 * - gaps: consecutive samples up to GW_STATS_BRIDGE_INTERVALS median intervals apart are bridged
 *   (in means the earlier sample stands for the gap; in energy power is taken as linear across
 *   it); longer gaps are not observed time.
 * - energy (gw_energy_*): see below.
 * Ownership: the caller owns every array it passes and every result; functions allocate only where
 * they say so (scratch NULL, gw_energy_curve_build).
 * Must not: print, read files, or know what a column means (callers pick the columns).
 */
#ifndef GW_STATS_H
#define GW_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Gaps of up to five median intervals are bridged; the extra half interval absorbs timing jitter
 * (a 5-interval gap measured as 5.02 is still bridged, a 6-interval gap is not). */
#define GW_STATS_BRIDGE_INTERVALS 5.5

/* No GPU draws more (power.draw's bound in src/sampler/fields.c): an energy counter step that
 * means more is a glitch (a blank sentinel such as 4294967295 mJ between two readings). */
#define GW_STATS_MAX_POWER_W 10000.0

typedef struct gw_stats {
    size_t n;                            /* present (non-NAN) values */
    double mean, min, p5, p50, p95, max; /* all NAN when n == 0; mean is time-weighted */
} gw_stats;

/* Summarises the present values of v[0..count). w (seconds, from gw_stats_sample_weights; NULL:
 * every sample weighs the same) weights the mean. scratch must hold count doubles (it is
 * overwritten); NULL makes the function allocate its own. */
void gw_stats_summary(const double *v, const double *w, size_t count, double *scratch,
                      gw_stats *out);

/* The q-quantile of n values given in ascending order by kth(ctx, k) (the k-th smallest,
 * 0-based): the same interpolation as gw_stats_quantile, for values held otherwise than in an
 * array (counted by value: logread/series.h's compact columns). NAN when n == 0. */
double gw_stats_quantile_ranked(size_t n, double q, double (*kth)(void *ctx, size_t k), void *ctx);

/* The q-quantile (0 <= q <= 1) of a[0..n) by linear interpolation; reorders a (selection, O(n)).
 * a must not hold NAN. Returns NAN when n == 0. */
double gw_stats_quantile(double *a, size_t n, double q);

/* The present (non-NAN) values of v[0..n) into out[0..n), ascending; returns how many. */
size_t gw_stats_sort_present(const double *v, size_t n, double *out);

/* The median of sorted s[0..m) with one value equal to x left out (x NAN or absent from s: none
 * left out): what gw_stats_quantile(.., 0.5) gives over the rest, in O(log m) — each of n GPUs
 * against its peers costs n log n, not n squared. NAN when nothing remains. */
double gw_stats_median_without(const double *s, size_t m, double x);

/* The first index of the non-decreasing times t[0..n) (ms) whose time is >= want; n when none.
 * Binary search: O(log n). */
size_t gw_stats_lower_bound_ms(const int64_t *t, size_t n, int64_t want);

/* Mean of the present values of v[0..n) weighted by w (NULL: unweighted), NAN when none; when
 * every weight is 0 (samples at one instant) each value counts the same. */
double gw_stats_mean(const double *v, const double *w, size_t n);

/* The same over the rows whose skip[r] is 0 (skip NULL: every row). */
double gw_stats_mean_where(const double *v, const double *w, const unsigned char *skip, size_t n);

/* Unweighted mean of the present values of v[0..n) whose time t_ms lies in [from_ms, to_ms)
 * (every row counts the same, whatever its gap: for per-row averages such as a host table's
 * CPU shares); NAN when none. */
double gw_stats_mean_between(const int64_t *t_ms, const double *v, size_t n, int64_t from_ms,
                             int64_t to_ms);

/* Share (%) of those rows (present, time in [from_ms, to_ms)) whose value is >= at_least; NAN
 * when none. */
double gw_stats_share_at_least(const int64_t *t_ms, const double *v, size_t n, int64_t from_ms,
                               int64_t to_ms, double at_least);

/* Unweighted mean and standard deviation (population: divided by the count, as numpy.std's
 * default) of the present values of v[0..n); both NAN when none, sd 0 for one value. */
void gw_stats_mean_sd(const double *v, size_t n, double *mean, double *sd);

/* Least-squares line v = slope * t + intercept over rows with a present value.
 * slope_per_s is in v-units per second; r2 is the coefficient of determination (0 when v is
 * constant). n counts the rows used; with fewer than 3 everything is NAN. */
typedef struct gw_fit {
    size_t n;
    double slope_per_s, intercept, r2;
} gw_fit;
void gw_stats_linfit(const int64_t *t_ms, const double *v, size_t n, gw_fit *out);
/* The same with times in seconds (any origin; t_s[0..n), non-NAN): slope per second. */
void gw_stats_linfit_s(const double *t_s, const double *v, size_t n, gw_fit *out);

/* Median of the positive gaps between consecutive times (ms); 1000 when there are none. */
double gw_stats_median_interval_ms(const int64_t *t_ms, size_t n);

/* Weight in seconds of each sample: the gap to the next sample when the engine bridges it (up to
 * GW_STATS_BRIDGE_INTERVALS median intervals), else one median interval (a recording pause is not
 * time the sample describes); the last sample weighs one median interval. Writes dt_s[0..n). */
void gw_stats_sample_weights(const int64_t *t_ms, size_t n, double *dt_s);

/*
 * Energy of any span of one GPU's rows, computed one way. Row r stands for the interval from its
 * time to the next row's (the last row: one median interval after it, as its weight). Each
 * interval gets its energy from
 *  1. the energy counter, when two successive readings (rows where the counter shows a new value)
 *     enclose it and the counter did not go back: the counter interpolated at the interval's
 *     edges (it is read every ~10 s; its value at a row is the last reading). The interpolation
 *     follows the power integral between the two readings when power covers all of it (an edge
 *     between readings falls where the power says the energy went), else it is linear in time;
 *  2. else power integrated (trapezoid) between the rows (the last row's power held), where an
 *     absent power cell is bridged linearly between the present values around it when those are
 *     at most GW_STATS_BRIDGE_INTERVALS median intervals apart (absent cells before the first or
 *     after the last value hold it up to the same limit), and a gap between rows is bridged up to
 *     the same limit. A counter increase above GW_STATS_MAX_POWER_W is not energy: its
 *     intervals fall back to power;
 *  3. else nothing: the interval is "uncovered" and a span holding it is partial.
 * The curve holds the cumulative sums, so the energy of rows [b, e) is J[e] - J[b]: adjacent
 * spans add up to their union exactly, and a span covers the time of its rows' weights.
 */
typedef struct gw_energy_curve {
    size_t n;
    bool any;             /* power or counter present at all */
    double *j;            /* [n + 1] joules of the intervals of rows 0..r-1 */
    uint32_t *by_counter; /* [n + 1] of those intervals, how many the counter gave */
    uint32_t *uncovered;  /* [n + 1] of those intervals, how many have no figure */
} gw_energy_curve;

/* power[n] (NULL when absent) times power_to_w gives watts; counter[n] (NULL when absent) times
 * counter_to_j gives joules. interval_ms: the median interval (<= 0: computed from t_ms).
 * Allocates the curve's arrays; free them with gw_energy_curve_free. */
void gw_energy_curve_build(const int64_t *t_ms, size_t n, const double *power, double power_to_w,
                           const double *counter, double counter_to_j, double interval_ms,
                           gw_energy_curve *out);
void gw_energy_curve_free(gw_energy_curve *c);

typedef struct gw_energy {
    double wh;         /* NAN when no interval of the span has a figure (or nothing was recorded) */
    bool from_counter; /* some of it came from the energy counter */
    bool partial;      /* some interval of the span was not covered (a gap not bridged) */
} gw_energy;

/* Energy of the intervals of rows [begin, end) (end is capped at n). wh is NAN for an empty span,
 * when nothing was recorded, or when no interval of the span has a figure. */
gw_energy gw_energy_span(const gw_energy_curve *c, size_t begin, size_t end);

#endif

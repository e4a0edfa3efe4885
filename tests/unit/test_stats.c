/* The statistics engine (src/stats): percentiles against numpy's linear interpolation, NAN
 * handling, fits, time weights, and the energy of spans (counter, power, gap bridging, sums). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_helpers.h"

#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

static void test_percentiles_known(void **state)
{
    (void)state;
    /* numpy.percentile([1..10], [5, 50, 95]) == [1.45, 5.5, 9.55] */
    double v[] = {7, 3, 10, 1, 9, 2, 8, 5, 4, 6};
    gw_stats s;
    gw_stats_summary(v, NULL, 10, NULL, &s);
    assert_int_equal(s.n, 10);
    assert_float_equal(s.mean, 5.5, 1e-12);
    assert_float_equal(s.p5, 1.45, 1e-12);
    assert_float_equal(s.p50, 5.5, 1e-12);
    assert_float_equal(s.p95, 9.55, 1e-12);
    assert_float_equal(s.min, 1, 0);
    assert_float_equal(s.max, 10, 0);
}

static void test_percentiles_skip_nan(void **state)
{
    (void)state;
    double v[] = {NAN, 100, NAN, 0, 50, NAN};
    gw_stats s;
    gw_stats_summary(v, NULL, 6, NULL, &s);
    assert_int_equal(s.n, 3);
    assert_float_equal(s.mean, 50, 1e-12);
    assert_float_equal(s.p50, 50, 1e-12);
    assert_float_equal(s.p5, 5, 1e-12);   /* 0 + 0.1 * (50 - 0) */
    assert_float_equal(s.p95, 95, 1e-12); /* 50 + 0.9 * 50 */
}

static void test_all_absent_is_nan_not_zero(void **state)
{
    (void)state;
    double v[] = {NAN, NAN};
    gw_stats s;
    gw_stats_summary(v, NULL, 2, NULL, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean) && isnan(s.p5) && isnan(s.p50) && isnan(s.p95) && isnan(s.max));
}

static void test_single_and_repeated(void **state)
{
    (void)state;
    double one[] = {42};
    gw_stats s;
    gw_stats_summary(one, NULL, 1, NULL, &s);
    assert_float_equal(s.p5, 42, 0);
    assert_float_equal(s.p95, 42, 0);
    double *many = malloc(100001 * sizeof *many);
    for (size_t i = 0; i < 100001; i++)
        many[i] = i < 90000 ? 100 : 0; /* telemetry full of equal values */
    gw_stats_summary(many, NULL, 100001, NULL, &s);
    assert_float_equal(s.p5, 0, 0);
    assert_float_equal(s.p50, 100, 0);
    assert_float_equal(s.p95, 100, 0);
    free(many);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_quantile_matches_sorting(void **state)
{
    (void)state;
    srand(7);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + (size_t)(rand() % 500);
        double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = (double)(rand() % 50); /* many ties */
        qsort(b, n, sizeof *b, cmp);
        double q = (double)(rand() % 101) / 100.0;
        double h = (double)(n - 1) * q;
        size_t k = (size_t)floor(h);
        double want = k + 1 < n ? b[k] + (h - (double)k) * (b[k + 1] - b[k]) : b[k];
        assert_float_equal(gw_stats_quantile(a, n, q), want, 1e-9);
        free(a);
        free(b);
    }
}

static double kth_of(void *ctx, size_t k)
{
    return ((const double *)ctx)[k];
}

/* The quantile of values given by rank (compact columns count them) is gw_stats_quantile's,
 * bit for bit. */
static void test_quantile_ranked_is_the_same(void **state)
{
    (void)state;
    srand(11);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + (size_t)(rand() % 300);
        double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = (double)(rand() % 60000) / 100.0;
        qsort(b, n, sizeof *b, cmp);
        double q = trial % 3 == 0 ? 0.05 : trial % 3 == 1 ? 0.5 : 0.95;
        double want = gw_stats_quantile(a, n, q), got = gw_stats_quantile_ranked(n, q, kth_of, b);
        assert_memory_equal(&want, &got, sizeof want);
        free(a);
        free(b);
    }
    assert_true(isnan(gw_stats_quantile_ranked(0, 0.5, kth_of, NULL)));
}

/* Each value's peers' median (the others' median, as multi_gpu_imbalance takes it) from one
 * sorted copy equals the selection over a copy without that value: ties, absent values, 1-2
 * values; a constant set is also checked against a hand-worked case. */
static void test_median_without_matches_selection(void **state)
{
    (void)state;
    srand(11);
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 1 + (size_t)(rand() % 40);
        double *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s),
               *rest = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++)
            v[i] = rand() % 7 == 0 ? NAN : (double)(rand() % 20) + (rand() % 2 ? 0.5 : 0);
        size_t m = gw_stats_sort_present(v, n, s);
        for (size_t i = 1; i < m; i++)
            assert_true(s[i - 1] <= s[i]);
        for (size_t i = 0; i < n; i++) {
            size_t r = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i && !isnan(v[j]))
                    rest[r++] = v[j];
            double want = r ? gw_stats_quantile(rest, r, 0.5) : NAN;
            double got = gw_stats_median_without(s, m, v[i]);
            if (isnan(want))
                assert_true(isnan(got));
            else
                assert_true(got == want); /* the same arithmetic: exactly equal */
        }
        free(v);
        free(s);
        free(rest);
    }
    const double s[] = {10, 20, 30, 40};
    assert_float_equal(gw_stats_median_without(s, 4, 10), 30, 0);  /* 20 30 40 */
    assert_float_equal(gw_stats_median_without(s, 4, 30), 20, 0);  /* 10 20 40 */
    assert_float_equal(gw_stats_median_without(s, 4, NAN), 25, 0); /* all four */
    assert_float_equal(gw_stats_median_without(s, 4, 99), 25, 0);  /* not in s: all four */
    assert_true(isnan(gw_stats_median_without(s, 1, 10)));         /* nothing left */
}

static void test_linfit(void **state)
{
    (void)state;
    int64_t t[5];
    double v[5];
    for (int i = 0; i < 5; i++) {
        t[i] = 1000000 + i * 2000; /* every 2 s */
        v[i] = 10 + 3.0 * i * 2;   /* 3 per second */
    }
    gw_fit f;
    gw_stats_linfit(t, v, 5, &f);
    assert_int_equal(f.n, 5);
    assert_float_equal(f.slope_per_s, 3.0, 1e-9);
    assert_float_equal(f.r2, 1.0, 1e-12);
    double flat[5] = {7, 7, 7, 7, 7};
    gw_stats_linfit(t, flat, 5, &f);
    assert_float_equal(f.slope_per_s, 0, 1e-12);
    assert_float_equal(f.r2, 0, 0);
    double two[5] = {NAN, 1, NAN, 2, NAN};
    gw_stats_linfit(t, two, 5, &f);
    assert_int_equal(f.n, 2);
    assert_true(isnan(f.slope_per_s));
}

/* Times in seconds give the fit of the same points in milliseconds (alerts' trend window). */
static void test_linfit_seconds(void **state)
{
    (void)state;
    int64_t t_ms[6];
    double t_s[6], v[6] = {4, 6.5, NAN, 11, 14.5, 16};
    for (int i = 0; i < 6; i++) {
        t_ms[i] = 500 + i * 1500;
        t_s[i] = 0.5 + i * 1.5;
    }
    gw_fit a, b;
    gw_stats_linfit(t_ms, v, 6, &a);
    gw_stats_linfit_s(t_s, v, 6, &b);
    assert_int_equal(b.n, 5);
    assert_num(b.slope_per_s, a.slope_per_s, 1e-12);
    assert_num(b.intercept, a.intercept, 1e-9);
    assert_num(b.r2, a.r2, 1e-12);
    /* least squares by hand: Sxy / Sxx = 1.6395348837209 */
    assert_num(b.slope_per_s, 1.6395348837209, 1e-9);
    assert_true(b.r2 > 0.99 && b.r2 < 1);
    double same_t[4] = {3, 3, 3, 3}, any[4] = {1, 2, 3, 4};
    gw_stats_linfit_s(same_t, any, 4, &b); /* no spread in time: no line */
    assert_int_equal(b.n, 4);
    assert_true(isnan(b.slope_per_s) && isnan(b.r2));
}

/* Per-row means over a time window (starved_cause's host table): unweighted, absent skipped,
 * rows outside [from, to) ignored. */
static void test_mean_and_share_between(void **state)
{
    (void)state;
    int64_t t[6] = {0, 1000, 2000, 10000, 11000, 20000};
    double v[6] = {100, 10, NAN, 30, 80, 500};
    /* rows 1, 3, 4 (2 is absent; 0 and 5 outside): (10 + 30 + 80) / 3 = 40, not weighted */
    assert_num(gw_stats_mean_between(t, v, 6, 1000, 20000), 40, 1e-12);
    /* 2 of those 3 rows >= 30 */
    assert_num(gw_stats_share_at_least(t, v, 6, 1000, 20000, 30), 200.0 / 3, 1e-12);
    assert_num(gw_stats_share_at_least(t, v, 6, 1000, 20000, 81), 0, 0);
    /* nothing present in the window: absent, never 0 */
    assert_true(isnan(gw_stats_mean_between(t, v, 6, 2000, 3000)));
    assert_true(isnan(gw_stats_share_at_least(t, v, 6, 2000, 3000, 0)));
    assert_true(isnan(gw_stats_mean_between(t, NULL, 6, 0, 30000))); /* no column */
}

/* Mean and population standard deviation, as numpy.mean / numpy.std. */
static void test_mean_sd(void **state)
{
    (void)state;
    double v[6] = {2, 4, NAN, 4, 4, 5};
    double mean, sd;
    double w[8] = {2, 4, 4, 4, 5, 5, 7, 9}; /* numpy.std -> 2.0 */
    gw_stats_mean_sd(w, 8, &mean, &sd);
    assert_num(mean, 5, 1e-12);
    assert_num(sd, 2, 1e-12);
    gw_stats_mean_sd(v, 6, &mean, &sd); /* 2 4 4 4 5: mean 3.8, std 0.9797958971 */
    assert_num(mean, 3.8, 1e-12);
    assert_num(sd, 0.9797958971132712, 1e-9);
    double one[1] = {7};
    gw_stats_mean_sd(one, 1, &mean, &sd);
    assert_num(mean, 7, 0);
    assert_num(sd, 0, 0);
    double none[2] = {NAN, NAN};
    gw_stats_mean_sd(none, 2, &mean, &sd);
    assert_true(isnan(mean) && isnan(sd));
}

static void test_weights_cap_gaps(void **state)
{
    (void)state;
    int64_t t[] = {0, 1000, 2000, 3000, 60000, 61000};
    double dt[6];
    gw_stats_sample_weights(t, 6, dt);
    assert_float_equal(gw_stats_median_interval_ms(t, 6), 1000, 0);
    assert_float_equal(dt[0], 1, 1e-12);
    assert_float_equal(dt[3], 1, 1e-12); /* a 57 s pause is not bridged: one interval */
    assert_float_equal(dt[5], 1, 1e-12);
}

static void test_percentiles_numpy_more(void **state)
{
    (void)state;
    /* numpy.percentile([15, 20, 35, 40, 50], [5, 50, 95]) == [16.0, 35.0, 48.0] */
    double v[] = {50, 15, 40, 20, 35};
    gw_stats s;
    gw_stats_summary(v, NULL, 5, NULL, &s);
    assert_float_equal(s.p5, 16.0, 1e-12);
    assert_float_equal(s.p50, 35.0, 1e-12);
    assert_float_equal(s.p95, 48.0, 1e-12);
    /* numpy.percentile([1, 2, 3, 4], 25) == 1.75 (nearest rank would say 1) */
    double a[] = {4, 3, 2, 1};
    assert_float_equal(gw_stats_quantile(a, 4, 0.25), 1.75, 1e-12);
}

/* Uneven gaps: each sample weighs the time to the next one; the last one a median interval. */
static void test_time_weighted_mean_uneven_gaps(void **state)
{
    (void)state;
    int64_t t[] = {0, 1000, 3000, 4000};
    double v[] = {10, 20, 30, 40}, w[4];
    gw_stats_sample_weights(t, 4, w);
    assert_float_equal(w[1], 2, 1e-12);
    gw_stats s;
    gw_stats_summary(v, w, 4, NULL, &s);
    assert_float_equal(s.mean, (10 * 1 + 20 * 2 + 30 * 1 + 40 * 1) / 5.0, 1e-12); /* 24, not 25 */
    assert_float_equal(gw_stats_mean(v, NULL, 4), 25, 1e-12);
    /* a 7-interval pause is not bridged: the sample before it weighs one interval, not 5 or 7 */
    int64_t t2[] = {0, 1000, 2000, 9000};
    double v2[] = {0, 0, 100, 50}, w2[4];
    gw_stats_sample_weights(t2, 4, w2);
    assert_float_equal(gw_stats_mean(v2, w2, 4), 37.5, 1e-12);
    /* absent values are skipped with their weight */
    double v3[] = {10, NAN, 30, 40};
    assert_float_equal(gw_stats_mean(v3, w, 4), (10 + 30 + 40) / 3.0, 1e-12);
    /* rows left out by a mask (expected dips) */
    unsigned char skip[4] = {0, 1, 0, 0};
    assert_float_equal(gw_stats_mean_where(v, w, skip, 4), (10 + 30 + 40) / 3.0, 1e-12);
    unsigned char all[4] = {1, 1, 1, 1};
    assert_true(isnan(gw_stats_mean_where(v, w, all, 4)));
}

/* 11 rows 1 s apart: 100 W for rows 0-4, 300 W from row 5; the counter reads at rows 0 and 10 and
 * says twice what power says (4200 J for the 2100 J of the trapezoids). */
static void two_level(int64_t *t, double *p, double *c)
{
    for (int r = 0; r < 11; r++) {
        t[r] = 1700000000000 + r * 1000;
        p[r] = r < 5 ? 100 : 300;
        c[r] = r < 10 ? 5e6 : 5e6 + 4200e3; /* mJ, the last reading held */
    }
}

static void test_energy_counter_vs_power(void **state)
{
    (void)state;
    int64_t t[11];
    double p[11], c[11];
    two_level(t, p, c);
    gw_energy_curve by_power, both, by_counter;
    gw_energy_curve_build(t, 11, p, 1.0, NULL, 1e-3, 0, &by_power);
    gw_energy_curve_build(t, 11, p, 1.0, c, 1e-3, 0, &both);
    gw_energy_curve_build(t, 11, NULL, 1.0, c, 1e-3, 0, &by_counter);
    /* power alone: trapezoids 4 x 100 J + 200 J + 5 x 300 J, and the last row's 300 J */
    gw_energy e = gw_energy_span(&by_power, 0, 11);
    assert_float_equal(e.wh, 2400 / 3600.0, 1e-12);
    assert_false(e.from_counter || e.partial);
    /* the counter over rows 0..10 (4200 J), the last row's second from power (300 J) */
    e = gw_energy_span(&both, 0, 11);
    assert_float_equal(e.wh, 4500 / 3600.0, 1e-12);
    assert_true(e.from_counter);
    assert_false(e.partial);
    /* an edge between readings: the counter's increase is shared out like the power integral
     * (600 J of 2100 before row 5), not by time (5 of 10 s) */
    assert_float_equal(gw_energy_span(&both, 0, 5).wh, 4200 * 600 / 2100.0 / 3600.0, 1e-12);
    /* without power the share is by time, and the last row's interval has no figure */
    assert_float_equal(gw_energy_span(&by_counter, 0, 5).wh, 2100 / 3600.0, 1e-12);
    e = gw_energy_span(&by_counter, 0, 11);
    assert_float_equal(e.wh, 4200 / 3600.0, 1e-12);
    assert_true(e.partial);
    /* nothing recorded: NAN, never 0 */
    gw_energy_curve none;
    gw_energy_curve_build(t, 11, NULL, 1.0, NULL, 1e-3, 0, &none);
    assert_true(isnan(gw_energy_span(&none, 0, 11).wh));
    assert_true(isnan(gw_energy_span(&both, 3, 3).wh)); /* an empty span */
    gw_energy_curve_free(&by_power);
    gw_energy_curve_free(&both);
    gw_energy_curve_free(&by_counter);
    gw_energy_curve_free(&none);
}

/* 30 rows 1 s apart at 360 W (0.1 Wh a second), with a pause of `gap_s` seconds after row 14,
 * or `absent` empty power cells from row 10. */
static gw_energy bridged(int gap_s, int absent)
{
    int64_t t[30];
    double p[30];
    for (int r = 0; r < 30; r++) {
        t[r] = r * 1000 + (r > 14 ? (gap_s - 1) * 1000 : 0);
        p[r] = r >= 10 && r < 10 + absent ? NAN : 360;
    }
    gw_energy_curve c;
    gw_energy_curve_build(t, 30, p, 1.0, NULL, 1e-3, 0, &c);
    gw_energy e = gw_energy_span(&c, 0, 30);
    gw_energy_curve_free(&c);
    return e;
}

static void test_energy_gap_bridging(void **state)
{
    (void)state;
    gw_energy e = bridged(5, 0); /* a 5-interval pause is bridged */
    assert_float_equal(e.wh, (29 + 4 + 1) * 0.1, 1e-9);
    assert_false(e.partial);
    e = bridged(6, 0); /* a 6-interval pause is not: the 6 s are left out */
    assert_float_equal(e.wh, (29 + 5 + 1 - 6) * 0.1, 1e-9);
    assert_true(e.partial);
    e = bridged(1, 4); /* 4 absent cells: present values 5 intervals apart, bridged */
    assert_float_equal(e.wh, 30 * 0.1, 1e-9);
    assert_false(e.partial);
    e = bridged(1, 5); /* 5 absent cells: 6 intervals apart, not bridged */
    assert_float_equal(e.wh, (30 - 6) * 0.1, 1e-9);
    assert_true(e.partial);
}

/* A steady 50 % with jittery weights: the weighted sum rounds to 49.99999999999999, which put
 * "busy 50.0 %" in the critical band (< 50). A mean lies within its values. */
static void test_mean_within_values(void **state)
{
    (void)state;
    double v[40], w[40];
    for (int i = 0; i < 40; i++) {
        v[i] = 50;
        w[i] = 1.0 + (i * 7 % 1000) / 1000.0 * 0.3;
    }
    assert_true(gw_stats_mean(v, w, 40) == 50);
    assert_true(gw_stats_mean_where(v, w, NULL, 40) == 50);
    v[3] = 60;
    double m = gw_stats_mean(v, w, 40);
    assert_true(m > 50 && m < 60);
}

/* Power in every other row, the last row's cell absent (issue 15 item 8): the absent cells at
 * the edges hold the nearest value like those between are bridged, so 60 rows at 300 W are 5 Wh,
 * not 58 s of it flagged partial. More than GW_STATS_BRIDGE_INTERVALS away they are not. */
static void test_energy_edges_held(void **state)
{
    (void)state;
    int64_t t[60];
    double p[60];
    for (int r = 0; r < 60; r++) {
        t[r] = r * 1000;
        p[r] = r % 2 == 0 ? 300 : NAN;
    }
    gw_energy_curve c;
    gw_energy_curve_build(t, 60, p, 1.0, NULL, 1e-3, 0, &c);
    gw_energy e = gw_energy_span(&c, 0, 60);
    assert_float_equal(e.wh, 60 * 300 / 3600.0, 1e-9);
    assert_false(e.partial);
    gw_energy_curve_free(&c);
    for (int r = 0; r < 60; r++) /* 10 absent cells at each end: 5 held on each side */
        p[r] = r >= 10 && r < 50 ? 300 : NAN;
    gw_energy_curve_build(t, 60, p, 1.0, NULL, 1e-3, 0, &c);
    e = gw_energy_span(&c, 0, 60);
    assert_float_equal(e.wh, (5 + 40 + 4) * 300 / 3600.0, 1e-9); /* 5 -> 54: 49 intervals */
    assert_true(e.partial);
    gw_energy_curve_free(&c);
}

/* One energy counter reading of 4294967295 mJ (a blank sentinel) among readings 1 s and 300 J
 * apart: 2^32 mJ in a second is 4 MW, no GPU's energy; the power covers those intervals (it gave
 * 1195 Wh for a 40 s, 3.3 Wh log). */
static void test_energy_counter_glitch(void **state)
{
    (void)state;
    int64_t t[40];
    double p[40], c[40];
    for (int r = 0; r < 40; r++) {
        t[r] = r * 1000;
        p[r] = 300;
        c[r] = r == 12 ? 4294967295.0 : 1e6 + r * 300000.0;
    }
    gw_energy_curve e;
    gw_energy_curve_build(t, 40, p, 1.0, c, 1e-3, 0, &e);
    assert_float_equal(gw_energy_span(&e, 0, 40).wh, 40 * 300 / 3600.0, 1e-9);
    gw_energy_curve_free(&e);
    gw_energy_curve_build(t, 40, NULL, 1.0, c, 1e-3, 0, &e); /* no power: those 2 s unknown */
    gw_energy g = gw_energy_span(&e, 0, 40);
    assert_true(g.partial);
    assert_true(g.wh < 40 * 300 / 3600.0);
    assert_float_equal(gw_energy_span(&e, 0, 11).wh, 11 * 300 / 3600.0, 1e-9);
    gw_energy_curve_free(&e);
}

/* Any partition of the rows into spans adds up to the whole, whatever mix of counter, power,
 * bridged and unbridged gaps the rows hold. */
static void test_energy_spans_add_up(void **state)
{
    (void)state;
    enum { N = 600 };
    int64_t t[N];
    double p[N], c[N];
    srand(11);
    double counter = 1e9;
    int64_t now = 0;
    for (int r = 0; r < N; r++) {
        now += rand() % 50 == 0 ? 1000 * (1 + rand() % 9) : 1000; /* pauses of up to 9 s */
        t[r] = now;
        p[r] = rand() % 20 == 0 ? NAN : 50 + rand() % 600;
        if (r >= 40 && r < 500 && r % 10 == 0)
            counter += 1e5 + rand() % 500000; /* a reading every 10 rows, then none */
        c[r] = r < 40 ? NAN : counter;
    }
    gw_energy_curve e;
    gw_energy_curve_build(t, N, p, 1.0, c, 1e-3, 0, &e);
    double whole = gw_energy_span(&e, 0, N).wh;
    assert_true(whole > 0);
    for (int trial = 0; trial < 50; trial++) {
        size_t cut[6] = {0, 0, 0, 0, 0, N};
        for (int k = 1; k < 5; k++)
            cut[k] = cut[k - 1] + (size_t)rand() % (N - cut[k - 1] + 1);
        double sum = 0;
        for (int k = 0; k < 5; k++) {
            double wh = gw_energy_span(&e, cut[k], cut[k + 1]).wh;
            sum += isnan(wh) ? 0 : wh; /* empty spans */
        }
        assert_float_equal(sum, whole, 1e-9 * whole);
    }
    gw_energy_curve_free(&e);
}

static void test_lower_bound_ms(void **state)
{
    (void)state;
    const int64_t t[] = {10, 20, 20, 20, 40};
    assert_int_equal(gw_stats_lower_bound_ms(t, 5, 5), 0);
    assert_int_equal(gw_stats_lower_bound_ms(t, 5, 10), 0);
    assert_int_equal(gw_stats_lower_bound_ms(t, 5, 11), 1);
    assert_int_equal(gw_stats_lower_bound_ms(t, 5, 20), 1); /* the first of equal times */
    assert_int_equal(gw_stats_lower_bound_ms(t, 5, 21), 4);
    assert_int_equal(gw_stats_lower_bound_ms(t, 5, 41), 5); /* none: n */
    assert_int_equal(gw_stats_lower_bound_ms(t, 0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_known),
        cmocka_unit_test(test_percentiles_skip_nan),
        cmocka_unit_test(test_all_absent_is_nan_not_zero),
        cmocka_unit_test(test_single_and_repeated),
        cmocka_unit_test(test_quantile_matches_sorting),
        cmocka_unit_test(test_quantile_ranked_is_the_same),
        cmocka_unit_test(test_median_without_matches_selection),
        cmocka_unit_test(test_linfit),
        cmocka_unit_test(test_linfit_seconds),
        cmocka_unit_test(test_mean_and_share_between),
        cmocka_unit_test(test_mean_sd),
        cmocka_unit_test(test_weights_cap_gaps),
        cmocka_unit_test(test_percentiles_numpy_more),
        cmocka_unit_test(test_time_weighted_mean_uneven_gaps),
        cmocka_unit_test(test_energy_counter_vs_power),
        cmocka_unit_test(test_energy_gap_bridging),
        cmocka_unit_test(test_energy_spans_add_up),
        cmocka_unit_test(test_energy_edges_held),
        cmocka_unit_test(test_mean_within_values),
        cmocka_unit_test(test_energy_counter_glitch),
        cmocka_unit_test(test_lower_bound_ms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

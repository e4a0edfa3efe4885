/* Statistics: percentiles against numpy's linear interpolation, NAN handling, fits, weights. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>

static void test_percentiles_known(void **state)
{
    (void)state;
    /* numpy.percentile([1..10], [5, 50, 95]) == [1.45, 5.5, 9.55] */
    double v[] = {7, 3, 10, 1, 9, 2, 8, 5, 4, 6};
    gw_stats s;
    gw_stats_summary(v, 10, NULL, &s);
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
    gw_stats_summary(v, 6, NULL, &s);
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
    gw_stats_summary(v, 2, NULL, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean) && isnan(s.p5) && isnan(s.p50) && isnan(s.p95) && isnan(s.max));
}

static void test_single_and_repeated(void **state)
{
    (void)state;
    double one[] = {42};
    gw_stats s;
    gw_stats_summary(one, 1, NULL, &s);
    assert_float_equal(s.p5, 42, 0);
    assert_float_equal(s.p95, 42, 0);
    double *many = malloc(100001 * sizeof *many);
    for (size_t i = 0; i < 100001; i++)
        many[i] = i < 90000 ? 100 : 0; /* telemetry full of equal values */
    gw_stats_summary(many, 100001, NULL, &s);
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

static void test_weights_cap_gaps(void **state)
{
    (void)state;
    int64_t t[] = {0, 1000, 2000, 3000, 60000, 61000};
    double dt[6];
    gw_stats_sample_weights(t, 6, dt);
    assert_float_equal(gw_stats_median_interval_ms(t, 6), 1000, 0);
    assert_float_equal(dt[0], 1, 1e-12);
    assert_float_equal(dt[3], 5, 1e-12); /* a 57 s pause counts as 5 intervals */
    assert_float_equal(dt[5], 1, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_known),
        cmocka_unit_test(test_percentiles_skip_nan),
        cmocka_unit_test(test_all_absent_is_nan_not_zero),
        cmocka_unit_test(test_single_and_repeated),
        cmocka_unit_test(test_quantile_matches_sorting),
        cmocka_unit_test(test_linfit),
        cmocka_unit_test(test_weights_cap_gaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

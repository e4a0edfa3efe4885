/* Compact GPU columns (logread/series.h, series_col.c; issue 28): every value reads back exactly
 * as stored, absent stays absent, and each kind of column takes the storage it should. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* A compact table of one column filled with want[n] row by row (absent values not set, as the
 * readers do), checked value by value, its largest, decoded whole and by span, then after
 * sorting reversed. */
static gw_col_kind check_column(const double *want, size_t n)
{
    gw_series_table t = {.compact = true};
    size_t c = gw_series_table_col(&t, "x", -1);
    for (size_t r = 0; r < n; r++) {
        size_t row = gw_series_table_add_row(&t, (int64_t)r);
        if (!isnan(want[r]))
            gw_series_table_set(&t, c, row, want[r]);
    }
    gw_col_kind kind = (gw_col_kind)t.cols[c].kind;
    double max = NAN;
    for (size_t r = 0; r < n; r++) {
        assert_true(same(gw_series_col_value(&t, c, r), want[r]));
        if (!isnan(want[r]) && (isnan(max) || want[r] > max))
            max = want[r];
    }
    assert_true(same(gw_series_col_max(&t, c), max));
    const double *v = gw_series_col_values(&t, c);
    for (size_t r = 0; r < n; r++)
        assert_true(same(v[r], want[r]));
    double *part = malloc((n + 1) * sizeof *part);
    gw_series_col_decode(&t, c, n / 3, n, part);
    for (size_t r = n / 3; r < n; r++)
        assert_true(same(part[r - n / 3], want[r]));
    for (size_t r = 0; r < n; r++)
        t.t_ms[r] = (int64_t)(n - r);
    gw_series_table_sort(&t);
    for (size_t r = 0; r < n; r++)
        assert_true(same(gw_series_col_value(&t, c, r), want[n - 1 - r]));
    free(part);
    gw_series_table_free(&t);
    return kind;
}

static void test_kinds_and_exact_values(void **state)
{
    (void)state;
    enum { N = 5000 };
    double *v = malloc(N * sizeof *v);
    srand(7);
    for (size_t r = 0; r < N; r++) /* memory.total: one value */
        v[r] = 143771;
    assert_int_equal(check_column(v, N), GW_COL_CONST);
    for (size_t r = 0; r < N; r++) /* utilization with absent cells: never 0 */
        v[r] = r % 17 == 3 ? NAN : (double)(rand() % 101);
    assert_int_equal(check_column(v, N), GW_COL_I8);
    for (size_t r = 0; r < N; r++) /* power.draw with 2 decimals, idle and busy */
        v[r] = (r / 700 % 2 ? 8000 + rand() % 500 : 60000 + rand() % 8001) / 100.0;
    assert_int_equal(check_column(v, N), GW_COL_I16);
    for (size_t r = 0; r < N; r++) /* memory.used in MiB, idle and busy */
        v[r] = r / 900 % 2 ? 600 : 40000 + rand() % 1700;
    assert_int_equal(check_column(v, N), GW_COL_I16);
    double e = 1e6;
    for (size_t r = 0; r < N; r++) /* an energy counter in mJ: drifts past any 32-bit range */
        v[r] = e += 60000 + rand() % 10000;
    v[10] = NAN;
    assert_int_equal(check_column(v, N), GW_COL_I32);
    e = 5e10;
    for (size_t r = 0; r < N; r++) /* one that grows past 2^32 */
        v[r] = e += 1e7 + rand() % 1000;
    assert_int_equal(check_column(v, N), GW_COL_DOUBLE);
    for (size_t r = 0; r < N; r++) /* values no decimal scale holds */
        v[r] = rand() / 7.0;
    v[5] = -0.0;
    v[6] = NAN;
    assert_int_equal(check_column(v, N), GW_COL_DOUBLE);
    for (size_t r = 0; r < N; r++) /* negative, and decimals growing as rows come */
        v[r] = r < 100 ? -(double)(r % 7) : r < 200 ? -0.5 : (rand() % 2000 - 1000) / 1000.0;
    check_column(v, N);
    for (size_t r = 0; r < N; r++) /* all absent */
        v[r] = NAN;
    assert_int_equal(check_column(v, N), GW_COL_CONST);
    free(v);
}

static void test_overwrite_absent_and_rows_past_the_column(void **state)
{
    (void)state;
    gw_series_gpu g = {0};
    for (int f = 0; f < GW_F_COUNT; f++)
        g.col_of[f] = -1;
    g.tab.compact = true;
    for (int r = 0; r < 10; r++)
        gw_series_table_add_row(&g.tab, r);
    assert_false(gw_series_gpu_has(&g, GW_F_UTIL_GPU_PCT));
    assert_true(isnan(gw_series_gpu_value(&g, GW_F_UTIL_GPU_PCT, 3)));
    assert_true(isnan(gw_series_gpu_max(&g, GW_F_UTIL_GPU_PCT)));
    gw_series_gpu_set(&g, GW_F_UTIL_GPU_PCT, 4, 50); /* rows 0-3 absent, 5-9 not yet stored */
    assert_true(gw_series_gpu_has(&g, GW_F_UTIL_GPU_PCT));
    assert_true(gw_series_gpu_max(&g, GW_F_UTIL_GPU_PCT) == 50);
    for (int r = 0; r < 10; r++)
        assert_true(same(gw_series_gpu_value(&g, GW_F_UTIL_GPU_PCT, r), r == 4 ? 50 : NAN));
    const double *u = gw_series_gpu_values(&g, GW_F_UTIL_GPU_PCT);
    gw_series_gpu_set(&g, GW_F_UTIL_GPU_PCT, 2, 0.25); /* the decoded copy follows */
    assert_true(u[2] == 0.25 && u[4] == 50 && isnan(u[9]));
    gw_series_gpu_set(&g, GW_F_UTIL_GPU_PCT, 4, NAN); /* absent again */
    assert_true(isnan(gw_series_gpu_value(&g, GW_F_UTIL_GPU_PCT, 4)));
    gw_series_gpu_release(&g);
    assert_true(gw_series_gpu_value(&g, GW_F_UTIL_GPU_PCT, 2) == 0.25);
    double *w = gw_series_gpu_writable(&g, GW_F_UTIL_GPU_PCT); /* doubles from now on */
    assert_true(w[2] == 0.25 && isnan(w[4]));
    w[7] = 1.0 / 3;
    gw_series_table_add_row(&g.tab, 10);
    assert_true(gw_series_gpu_value(&g, GW_F_UTIL_GPU_PCT, 7) == 1.0 / 3);
    assert_true(isnan(gw_series_gpu_value(&g, GW_F_UTIL_GPU_PCT, 10)));
    gw_series_table_free(&g.tab);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_exact_values),
        cmocka_unit_test(test_overwrite_absent_and_rows_past_the_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

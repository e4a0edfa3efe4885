/* Unit tests for src/util/gw_fmt: the bounded number formatter of every output. */
#include "test_helpers.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/gw_table.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* A guard byte after the buffer catches any write past `size`. */
typedef struct guarded {
    char buf[64];
    char guard[8];
} guarded;

static void fill(guarded *g)
{
    memset(g->buf, 'X', sizeof g->buf);
    memset(g->guard, 'G', sizeof g->guard);
}

static void assert_guard(const guarded *g)
{
    for (size_t i = 0; i < sizeof g->guard; i++)
        assert_int_equal(g->guard[i], 'G');
}

static void test_fixed_values(void **state)
{
    (void)state;
    char b[GW_FMT_SIZE];
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 12.345, 2, 0, ""), "12.35");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 2.5, 3, GW_FMT_TRIM, ""), "2.5");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 40.0, 3, GW_FMT_TRIM, ""), "40");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 0.0, 0, 0, "-"), "0"); /* zero is a value */
    assert_string_equal(gw_fmt_fixed(b, sizeof b, -0.0, 1, 0, ""), "0.0");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, -0.0001, 2, GW_FMT_TRIM, ""), "0");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, -3.25, 1, 0, ""), "-3.2");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 143771, 0, 0, ""), "143771");
    /* decimals are clamped to 0..9 */
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 1.0, 500, 0, ""), "1.000000000");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 1.6, -4, 0, ""), "2");
}

/* What gw_fmt_fixed wrote before its printf-free path: printf's %.*f, "-0.00" shown unsigned. */
static void fixed_by_printf(char *out, double x, int d)
{
    int n = snprintf(out, GW_FMT_SIZE, "%.*f", d, x);
    if (out[0] == '-' && strspn(out + 1, "0.") == strlen(out + 1))
        memmove(out, out + 1, (size_t)n);
}

/* The printf-free path writes what printf writes, digit for digit: values from a recording's
 * fields (integers, 1-2 decimals), exact ties (0.125, 2.5: printf decides those), products near
 * the 2^40 limit, negatives, and a million pseudo-random values across magnitudes and 0-9
 * decimals. */
static void test_fixed_matches_printf(void **state)
{
    (void)state;
    const double edge[] = {0,
                           -0.0,
                           0.5,
                           1.5,
                           2.5,
                           0.125,
                           0.375,
                           -0.125,
                           0.005,
                           0.015,
                           1e-10,
                           -1e-10,
                           123.456789,
                           13290.81,
                           99.5,
                           699.99,
                           1099511627775.4,
                           1099511627776.6,
                           1e12,
                           -0.0049,
                           4.35,
                           0.1 + 0.2,
                           1e15,
                           -1e15,
                           2.675,
                           1.005};
    char got[GW_FMT_SIZE], want[GW_FMT_SIZE];
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (int d = 0; d <= 9; d++) {
            gw_fmt_fixed(got, sizeof got, edge[i], d, 0, "");
            fixed_by_printf(want, edge[i], d);
            assert_string_equal(got, want);
        }
    unsigned long long state64 = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 1000000; i++) {
        state64 ^= state64 << 13;
        state64 ^= state64 >> 7;
        state64 ^= state64 << 17;
        int d = (int)(state64 % 10);
        double mag = pow(10.0, (double)((state64 >> 8) % 16) - 4);
        double x = ((double)(state64 >> 11) / 9007199254740992.0 - 0.3) * mag;
        if ((state64 >> 40) % 4 == 0)
            x = floor(x * 100) / 100; /* a value of two decimals, as a recording holds */
        gw_fmt_fixed(got, sizeof got, x, d, 0, "");
        fixed_by_printf(want, x, d);
        if (strcmp(got, want) != 0)
            fail_msg("%.17g with %d decimals: %s, printf %s", x, d, got, want);
    }
}

static void test_boundaries(void **state)
{
    (void)state;
    char b[GW_FMT_SIZE];
    assert_true(gw_fmt_sane(GW_FMT_MAX_ABS));
    assert_true(gw_fmt_sane(-GW_FMT_MAX_ABS));
    assert_false(gw_fmt_sane(nextafter(GW_FMT_MAX_ABS, INFINITY)));
    assert_false(gw_fmt_sane(-nextafter(GW_FMT_MAX_ABS, INFINITY)));
    /* the largest sane value with the most decimals fits GW_FMT_SIZE */
    assert_string_equal(gw_fmt_fixed(b, sizeof b, -GW_FMT_MAX_ABS, 9, 0, "?"),
                        "-1000000000000000.000000000");
    assert_string_equal(gw_fmt_fixed(b, sizeof b, 1e16, 0, 0, "?"), "?");
    assert_string_equal(gw_fmt_sig(b, sizeof b, -1.2345678901234567e-300, 17, "?"),
                        "-1.2345678901234568e-300");
    assert_string_equal(gw_fmt_sig(b, sizeof b, 1e15, 4, "?"), "1e+15");
    assert_string_equal(gw_fmt_sig(b, sizeof b, 0.5, 4, "?"), "0.5");
    assert_string_equal(gw_fmt_sig(b, sizeof b, -0.0, 4, "?"), "0");
}

/* Numbers people read never switch to an exponent: an H200's 143771 MiB in a verdict's evidence
 * was "1.438e+05" in the HTML page and on plot reference lines (torture pass, issue 12). */
static void test_auto_decimals_never_an_exponent(void **state)
{
    (void)state;
    char b[GW_FMT_SIZE];
    assert_string_equal(gw_fmt_auto(b, sizeof b, 143771, "?"), "143771");
    assert_string_equal(gw_fmt_auto(b, sizeof b, 543100.25, "?"), "543100");
    assert_string_equal(gw_fmt_auto(b, sizeof b, 12.34, "?"), "12.3");
    assert_string_equal(gw_fmt_auto(b, sizeof b, 1.234, "?"), "1.23");
    assert_string_equal(gw_fmt_auto(b, sizeof b, 0.1234, "?"), "0.123");
    assert_string_equal(gw_fmt_auto(b, sizeof b, -0.0001, "?"), "0.000");
    assert_string_equal(gw_fmt_auto(b, sizeof b, 7.0, "?"), "7");
    assert_string_equal(gw_fmt_auto(b, sizeof b, -GW_FMT_MAX_ABS, "?"), "-1000000000000000");
    assert_string_equal(gw_fmt_auto(b, sizeof b, 2e15, "?"), "?");
    assert_string_equal(gw_fmt_auto(b, sizeof b, NAN, "unknown"), "unknown");
    assert_string_equal(gw_fmt_auto(b, 4, 143771, "?"), "?");
}

static void test_absurd_values_are_absent(void **state)
{
    (void)state;
    const double absurd[] = {NAN, INFINITY, -INFINITY, 1e60, 1e64, 1e200, 1e308, -1e300, DBL_MAX};
    for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        guarded g;
        fill(&g);
        assert_string_equal(gw_fmt_fixed(g.buf, sizeof g.buf, absurd[i], 3, 0, "null"), "null");
        assert_guard(&g);
        fill(&g);
        assert_string_equal(gw_fmt_sig(g.buf, sizeof g.buf, absurd[i], 17, "-"), "-");
        assert_guard(&g);
        fill(&g);
        assert_string_equal(gw_fmt_fixed(g.buf, sizeof g.buf, absurd[i], 0, 0, NULL), "");
        assert_guard(&g);
        gw_buf b = {0};
        gw_fmt_buf_fixed(&b, absurd[i], 2, 0, "null");
        gw_fmt_buf_sig(&b, absurd[i], 6, "");
        assert_string_equal(b.data, "null");
        gw_buf_free(&b);
    }
}

/* A number that does not fit is absent, never cut ("12345" cut to "123" would be a lie), and
 * nothing is written past `size`. */
static void test_truncation(void **state)
{
    (void)state;
    guarded g;
    fill(&g);
    assert_string_equal(gw_fmt_fixed(g.buf, 6, 12345.5, 1, 0, "-"), "-");
    assert_int_equal(g.buf[6], 'X');
    fill(&g);
    assert_string_equal(gw_fmt_fixed(g.buf, 8, 12345.5, 1, 0, "-"), "12345.5");
    fill(&g);
    assert_string_equal(gw_fmt_fixed(g.buf, 3, 12345, 0, 0, "null"), ""); /* marker too long */
    assert_int_equal(g.buf[3], 'X');
    fill(&g);
    assert_string_equal(gw_fmt_fixed(g.buf, 1, 7, 0, 0, "-"), "");
    assert_int_equal(g.buf[1], 'X');
    fill(&g);
    assert_ptr_equal(gw_fmt_fixed(g.buf, 0, 7, 0, 0, "-"), g.buf); /* size 0: nothing written */
    assert_int_equal(g.buf[0], 'X');
    fill(&g);
    assert_string_equal(gw_fmt_sig(g.buf, 4, 1.5e-7, 6, "?"), "?");
    assert_int_equal(g.buf[4], 'X');
}

static void test_buf_variants(void **state)
{
    (void)state;
    gw_buf b = {0};
    gw_fmt_buf_fixed(&b, 99.96, 1, 0, "null");
    gw_buf_puts(&b, ",");
    gw_fmt_buf_fixed(&b, 5.0, 3, GW_FMT_TRIM, "null");
    gw_buf_puts(&b, ",");
    gw_fmt_buf_sig(&b, 0.000123456, 3, "null");
    assert_string_equal(b.data, "100.0,5,0.000123");
    gw_buf_free(&b);
}

/* GW_FIXED / GW_SIG print what "%.Nf" / "%.Ng" print for sane values, so converting a printf
 * format to "%s" + the macro keeps output byte-identical; absurd values print "?". */
static void test_printf_arguments(void **state)
{
    (void)state;
    char out[128];
    snprintf(out, sizeof out, "%s%% of %s s, %s W, limit %s", GW_FIXED(37.25, 1),
             GW_FIXED(1234.5, 0), GW_SIG(612.3456789, 6), GW_SIG(0.25, 6));
    assert_string_equal(out, "37.2% of 1234 s, 612.346 W, limit 0.25");
    char want[64];
    const double xs[] = {0, 1, 99.95, 12345.678, 1e-7, 250.5, 1e14};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (int d = 0; d < 4; d++) {
            snprintf(want, sizeof want, "%.*f", d, xs[i]);
            assert_string_equal(GW_FIXED(xs[i], d), want);
            snprintf(want, sizeof want, "%.*g", d + 1, xs[i]);
            assert_string_equal(GW_SIG(xs[i], d + 1), want);
        }
    assert_string_equal(GW_FIXED(NAN, 1), "?");
    assert_string_equal(GW_SIG(INFINITY, 6), "?");
    assert_string_equal(GW_FIXED(2e15, 0), "?");
    assert_string_equal(GW_FIXED(-0.2, 0), "0"); /* printf says "-0" */
}

/* gw_fmt_exact: Prometheus values, 15 digits for fractions, whole numbers exactly. */
static void test_exact(void **state)
{
    (void)state;
    char b[GW_FMT_SIZE];
    assert_string_equal(gw_fmt_exact(b, sizeof b, 0.1), "0.1");
    assert_string_equal(gw_fmt_exact(b, sizeof b, 612.25), "612.25");
    /* a fraction's noise past 15 digits is not printed (issue 27: /metrics showed it) */
    assert_string_equal(gw_fmt_exact(b, sizeof b, 0.1 + 0.2), "0.3");
    assert_string_equal(gw_fmt_exact(b, sizeof b, 0.031000000000000007), "0.031");
    assert_string_equal(gw_fmt_exact(b, sizeof b, 1.0 / 3), "0.333333333333333");
    /* a whole number reads back exactly, past 15 digits too */
    assert_string_equal(gw_fmt_exact(b, sizeof b, 9007199254740993.0), "9007199254740992");
    assert_true(strtod(gw_fmt_exact(b, sizeof b, 123456789012345678.0), NULL) ==
                123456789012345678.0);
    /* a byte counter past GW_FMT_MAX_ABS is still a value here */
    assert_string_equal(gw_fmt_exact(b, sizeof b, 3.5e18), "3.5e+18");
    assert_string_equal(gw_fmt_exact(b, sizeof b, NAN), "");
    assert_string_equal(gw_fmt_exact(b, sizeof b, -INFINITY), "");
    char small[4];
    assert_string_equal(gw_fmt_exact(small, sizeof small, 12345.5), ""); /* never cut */
}

/* One number of decimals per column (issue 27: "72.2 % / 72 % / 18.0 %" in one column). */
static void test_column_decimals(void **state)
{
    (void)state;
    const double busy[] = {72.2, 72.0, 18.0};
    assert_int_equal(gw_fmt_decimals(busy, 3), 1);
    const double val_s[] = {1.92, 0.798, 0.732}; /* the largest decides: 2 */
    assert_int_equal(gw_fmt_decimals(val_s, 3), 2);
    const double steps[] = {38, 38, NAN, 1e300}; /* integers; absent values do not count */
    assert_int_equal(gw_fmt_decimals(steps, 4), 0);
    const double mixed[] = {0.5, 250.0};
    assert_int_equal(gw_fmt_decimals(mixed, 2), 0);
    assert_int_equal(gw_fmt_decimals(NULL, 0), 0);

    static const gw_table_col cols[] = {
        {NULL, "epoch", 0, true, true},
        {"seconds", "val", GW_TABLE_AUTO, false, false},
        {"GPU busy %", "all", 1, false, false},
        {NULL, "never", 2, false, false}, /* nothing in it: left out */
    };
    gw_table *t = gw_table_new(cols, 4);
    const char *ids[] = {"1/3", "2/3", "start-up"};
    const double v[] = {1.92, 0.798, NAN}, u[] = {72.2, 72.0, 18.0};
    for (size_t r = 0; r < 3; r++) {
        gw_table_text(t, gw_table_row(t), 0, ids[r]);
        gw_table_num(t, r, 1, v[r]);
        gw_table_num(t, r, 2, u[r]);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gw_table_print(t, f, 2);
    fclose(f);
    gw_table_free(t);
    /* the group heading widens its column; no line ends in spaces */
    assert_string_equal(text, "            seconds  GPU busy %\n"
                              "  epoch         val         all\n"
                              "  1/3          1.92        72.2\n"
                              "  2/3          0.80        72.0\n"
                              "  start-up                 18.0\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_values),
        cmocka_unit_test(test_fixed_matches_printf),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_auto_decimals_never_an_exponent),
        cmocka_unit_test(test_absurd_values_are_absent),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_buf_variants),
        cmocka_unit_test(test_printf_arguments),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_column_decimals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

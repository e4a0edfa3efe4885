/* Unit tests for src/util: durations, RFC 3339 timestamps, buffers, errors. */
#include "test_helpers.h"

#include "cli/args.h"
#include "util/gw_buf.h"
#include "util/gw_error.h"
#include "util/gw_file.h"
#include "util/gw_time.h"
#include "util/gw_wrap.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void test_parse_duration(void **state)
{
    (void)state;
    double ms = 0;
    assert_true(gw_parse_duration_ms("0.5", &ms));
    assert_float_equal(ms, 500.0, 1e-9);
    assert_true(gw_parse_duration_ms("200ms", &ms));
    assert_float_equal(ms, 200.0, 1e-9);
    assert_true(gw_parse_duration_ms("2s", &ms));
    assert_float_equal(ms, 2000.0, 1e-9);
    assert_true(gw_parse_duration_ms("1.5m", &ms));
    assert_float_equal(ms, 90000.0, 1e-9);
    assert_true(gw_parse_duration_ms("1h", &ms));
    assert_float_equal(ms, 3600000.0, 1e-9);
    assert_false(gw_parse_duration_ms("", &ms));
    assert_false(gw_parse_duration_ms("abc", &ms));
    assert_false(gw_parse_duration_ms("1x", &ms));
    assert_false(gw_parse_duration_ms("-1", &ms));
    assert_false(gw_parse_duration_ms("nan", &ms));
    assert_false(gw_parse_duration_ms("inf", &ms));
}

static void test_interval_bounds(void **state)
{
    (void)state;
    int64_t ms = 0;
    gw_error err = {0};
    assert_int_equal(gw_args_interval("-i", "0.05", &ms, &err), GW_OK);
    assert_int_equal(ms, 50);
    assert_int_equal(gw_args_interval("-i", "86400", &ms, &err), GW_OK);
    assert_int_equal(ms, 86400000);
    assert_int_equal(gw_args_interval("-i", "0.049", &ms, &err), GW_E_USAGE);
    assert_non_null(strstr(err.msg, "0.049"));
    assert_int_equal(gw_args_interval("-i", "86401", &ms, &err), GW_E_USAGE);
    assert_int_equal(gw_args_interval("-i", "fast", &ms, &err), GW_E_USAGE);
    assert_int_equal(gw_args_duration("--duration", "0", &ms, &err), GW_E_USAGE);
    assert_int_equal(gw_args_duration("--duration", "10m", &ms, &err), GW_OK);
    assert_int_equal(ms, 600000);
}

static void test_rfc3339(void **state)
{
    (void)state;
    char buf[GW_RFC3339_LEN];
    /* 2026-11-30T03:22:23.578Z */
    assert_string_equal(gw_rfc3339_ms(INT64_C(1796008943578), buf), "2026-11-30T03:22:23.578Z");
    assert_string_equal(gw_rfc3339_ms(0 + 1, buf), "1970-01-01T00:00:00.001Z");
    assert_string_equal(gw_rfc3339_ms(INT64_C(1000), buf), "1970-01-01T00:00:01.000Z");
    /* before 1970 the milliseconds still count forward from the second before */
    assert_string_equal(gw_rfc3339_ms(-1, buf), "1969-12-31T23:59:59.999Z");
    /* The second is kept between calls: times within one second, across a second, a minute,
     * a day and a year, back and forth, each as gmtime_r + strftime write it. */
    const int64_t t0 = INT64_C(1798761599000); /* 2026-12-31T23:59:59Z */
    const int64_t steps[] = {0, 1, 999, 1000, 1001, 61000, -1000, 86400000, 5, -59999, 999};
    int64_t t = t0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        t += steps[i];
        char want[GW_RFC3339_LEN];
        time_t secs = (time_t)(t / 1000);
        struct tm tm;
        gmtime_r(&secs, &tm);
        size_t n = strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(want + n, sizeof want - n, ".%03dZ", (int)(t % 1000));
        assert_string_equal(gw_rfc3339_ms(t, buf), want);
    }
}

static void test_buf(void **state)
{
    (void)state;
    gw_buf b = {0};
    gw_buf_puts(&b, "a");
    for (int i = 0; i < 1000; i++)
        gw_buf_printf(&b, ",%d", i);
    assert_int_equal(b.len, strlen(b.data));
    assert_memory_equal(b.data, "a,0,1,2", 7);
    assert_non_null(strstr(b.data, ",999"));
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    gw_buf_reset(&b);
    gw_buf_printf(&b, "%s!", big);
    assert_int_equal(b.len, 600);
    assert_int_equal(b.data[599], '!');
    gw_buf_free(&b);
}

static void test_error(void **state)
{
    (void)state;
    gw_error err = {0};
    assert_int_equal(gw_error_set(&err, GW_E_IO, "cannot write %s", "x.csv"), GW_E_IO);
    assert_string_equal(err.msg, "cannot write x.csv");
    assert_int_equal(gw_error_set(NULL, GW_E_FORMAT, "ignored"), GW_E_FORMAT);
    /* quoted input cannot drive the terminal: an INI value "\033]0;pwned\a\033[2J" was echoed
     * raw in "bad value '...'" (torture pass); UTF-8 text other than C1 controls is kept */
    gw_error_set(&err, GW_E_USAGE, "bad value '%s'",
                 "\033]0;pwned\a\033[2J\r\n\x7f\xc2\x9b"
                 "1m");
    assert_string_equal(err.msg, "bad value '?]0;pwned??[2J?????1m'");
    gw_error_set(&err, GW_E_USAGE, "%s",
                 "\xc2\xb0"
                 "C \xe2\x80\x94 caf\xc3\xa9 \xc2");
    assert_string_equal(err.msg, "\xc2\xb0"
                                 "C \xe2\x80\x94 caf\xc3\xa9 \xc2");
    gw_error_clear(&err);
    assert_int_equal(err.rc, GW_OK);
    assert_string_equal(gw_rc_str(GW_E_USAGE), "usage error");
}

static void test_path_tidy(void **state)
{
    (void)state;
    static const char *cases[][2] = {
        {"runs/x/", "runs/x"}, {"runs//x//", "runs/x"}, {"/", "/"}, {"//", "/"}, {"a", "a"},
        {"/a//b", "/a/b"},     {"./r/", "./r"},         {"", ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s", cases[i][0]);
        assert_string_equal(gw_path_tidy(buf), cases[i][1]);
    }
    assert_null(gw_path_tidy(NULL));
}

static char *wrapped(const char *text, int width, bool reflow)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (reflow)
        gw_wrap_reflow(f, text, strlen(text), width);
    else
        gw_wrap_write(f, text, strlen(text), width);
    fclose(f);
    return buf;
}

static void test_wrap(void **state)
{
    (void)state;
    char *w = wrapped("fits as it is\n", 20, false);
    assert_string_equal(w, "fits as it is\n");
    free(w);
    /* a table-like line hangs under its message column; the colour codes take no column */
    w = wrapped("warn  \033[1mgpu_starved\033[0m  GPU busy 28.7% of the steady state\n", 40, false);
    assert_string_equal(w, "warn  \033[1mgpu_starved\033[0m  GPU busy 28.7% of the\n"
                           "                   steady state\n");
    free(w);
    /* a label hangs after it; "µ" is one column; a word wider than the line stays whole */
    w = wrapped("    evidence: a=1 µs b=2 c=3 averyveryverylongword\n", 28, false);
    assert_string_equal(w, "    evidence: a=1 µs b=2 c=3\n"
                           "              averyveryverylongword\n");
    free(w);
    /* a number keeps its unit ("100 %", "70618 MiB;"), a count its noun does not need to */
    w = wrapped("  used:  GPU-Util 100 %; pid 4 (70618 MiB; hidden)\n", 22, false);
    assert_string_equal(w, "  used:  GPU-Util\n"
                           "         100 %; pid 4\n"
                           "         (70618 MiB;\n"
                           "         hidden)\n");
    free(w);
    /* a short lead-in stays with a long word after it */
    w = wrapped("  input /a/very/long/path/gpu.csv: 5 rows\n", 28, false);
    assert_string_equal(w, "  input /a/very/long/path/gpu.csv:\n    5 rows\n");
    free(w);
    /* a synopsis keeps "[-i ID]" together */
    w = wrapped("usage: x [-a] [-i ID] [-f FILE]\n", 20, false);
    assert_string_equal(w, "usage: x [-a]\n[-i ID] [-f FILE]\n");
    free(w);
    /* help texts: continuation lines join their option and reflow under its description */
    w = wrapped("  -x, --xx  one two three four\n"
                "            five\n"
                "Exit status: 0 ok, 1 runtime\n"
                "error.\n",
                26, true);
    assert_string_equal(w, "  -x, --xx  one two three\n"
                           "            four five\n"
                           "Exit status: 0 ok, 1\n"
                           "runtime error.\n");
    free(w);
}

static char *join(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *join(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

static void test_memdup(void **state)
{
    (void)state;
    const unsigned gpus[] = {3, 1, 7};
    unsigned *copy = xmemdup(gpus, sizeof gpus);
    assert_ptr_not_equal(copy, gpus);
    assert_memory_equal(copy, gpus, sizeof gpus);
    free(copy);
    void *none = xmemdup(NULL, 0); /* an empty list is still a pointer the caller frees */
    assert_non_null(none);
    free(none);
}

static void test_asprintf(void **state)
{
    (void)state;
    char *s = xasprintf("%s-%d", "gpu", 42);
    assert_string_equal(s, "gpu-42");
    free(s);
    char long_word[600];
    memset(long_word, 'x', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    s = join("%s; %s", long_word, "note"); /* longer than any first guess at a buffer */
    assert_int_equal(strlen(s), 599 + 6);
    assert_string_equal(s + 599, "; note");
    free(s);
    s = join("%s", "");
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_duration), cmocka_unit_test(test_interval_bounds),
        cmocka_unit_test(test_rfc3339),        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_error),          cmocka_unit_test(test_path_tidy),
        cmocka_unit_test(test_wrap),           cmocka_unit_test(test_asprintf),
        cmocka_unit_test(test_memdup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

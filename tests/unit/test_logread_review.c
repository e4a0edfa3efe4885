/* Issue 15 new-user review: shapes that were misread or refused for the wrong reason — a
 * dmon sentinel taken as 1431655825 % busy, dmon -s c / -s et, en_US date(1) times, Python
 * logging's "10:00:00,123", spreadsheet headers "GPU Util (%)", UTF-16 without a byte order
 * mark, and refusals that name why: a timestamp no parser reads, text that is not CSV, ';'
 * separators, a header of unknown names. Inputs are small files written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/logread.h"
#include "logread/timeparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gw_rc read_bytes(const char *bytes, size_t len, gw_series **out, gw_error *err)
{
    char path[] = "/tmp/gwreviewXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    fwrite(bytes, 1, len, f);
    fclose(f);
    gw_logread_opts o = {0};
    gw_series *s = gw_series_new();
    gw_rc rc = gw_logread_input(s, path, &o, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    unlink(path);
    *out = s;
    return rc;
}

static gw_series *read_ok(const char *text)
{
    gw_series *s;
    gw_error err = {0};
    if (read_bytes(text, strlen(text), &s, &err))
        fail_msg("read failed: %s", err.msg);
    return s;
}

/* The error message of a refused input. */
static void refused(const char *text, char *msg, size_t size)
{
    gw_series *s;
    gw_error err = {0};
    assert_int_equal(read_bytes(text, strlen(text), &s, &err), GW_E_FORMAT);
    snprintf(msg, size, "%s", err.msg);
    gw_series_free(s);
}

static double val(const gw_series *s, size_t gpu, gw_gpu_field f, size_t row)
{
    const double *v = gw_series_gpu_values(s->gpus[gpu], f);
    return v ? v[row] : -12345;
}

static void test_dmon_bounds_and_selections(void **state)
{
    (void)state;
    /* a blank sentinel in sm and in pwr, -273 in gtemp: dropped and counted like in a CSV */
    gw_series *s = read_ok("# gpu   pwr gtemp mtemp    sm   mem\n"
                           "# Idx     W     C     C     %     %\n"
                           "    0   250    60     -  4294967295    40\n"
                           "    0 65535  -273     -    90    40\n"
                           "    0   251    61     -    91    41\n");
    assert_int_equal(s->inputs[0].rows, 3);
    assert_true(isnan(val(s, 0, GW_F_UTIL_GPU_PCT, 0)));
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 90);
    assert_true(isnan(val(s, 0, GW_F_POWER_DRAW_W, 1)));
    assert_true(isnan(val(s, 0, GW_F_TEMP_GPU_C, 1)));
    assert_true(val(s, 0, GW_F_POWER_DRAW_W, 2) == 251);
    assert_int_equal(s->inputs[0].impossible[GW_F_UTIL_GPU_PCT], 1);
    assert_int_equal(s->inputs[0].impossible[GW_F_POWER_DRAW_W], 1);
    assert_int_equal(s->inputs[0].impossible[GW_F_TEMP_GPU_C], 1);
    gw_series_free(s);
    /* -s c: clocks only, read as dmon (it was "not a header ... --columns") */
    s = read_ok("# gpu  mclk  pclk\n# Idx   MHz   MHz\n    0  2619  1980\n    0  2619  1410\n");
    assert_int_equal(s->inputs[0].rows, 2);
    assert_true(val(s, 0, GW_F_CLOCK_GR_MHZ, 1) == 1410);
    assert_non_null(strstr(s->inputs[0].note, "nvidia-smi dmon"));
    gw_series_free(s);
    /* -s et: nothing the report reads: refused naming dmon, never --columns */
    char msg[512];
    refused("# gpu sbecc dbecc   pci rxpci txpci\n# Idx  errs  errs  errs  MB/s  MB/s\n"
            "    0     0     0     0   100   200\n",
            msg, sizeof msg);
    assert_non_null(strstr(msg, "`nvidia-smi dmon` output without a column the report reads"));
    assert_non_null(strstr(msg, "nvidia-smi dmon -s pucm"));
    assert_null(strstr(msg, "--columns"));
}

static void test_times_people_write(void **state)
{
    (void)state;
    setenv("TZ", "UTC", 1);
    int64_t ms;
    /* en_US date(1) (coreutils 9): 12-hour clock */
    assert_int_equal(gw_timeparse("Sun Jun  1 02:03:04 PM UTC 2025", &ms), 31);
    assert_int_equal(ms, INT64_C(1748786584000));
    assert_int_equal(gw_timeparse("Sun Jun  1 12:03:04 AM UTC 2025", &ms), 31);
    assert_int_equal(ms, INT64_C(1748736184000));
    assert_int_equal(gw_timeparse("Sun Jun  1 13:03:04 PM UTC 2025", &ms), 0);
    /* Python logging: "2025-06-01 10:00:00,123" is cut in two by the CSV's comma */
    gw_series *s = read_ok("time,gpu_util\n2025-06-01 10:00:00,123,50\n"
                           "2025-06-01 10:00:01,124,60\n2025-06-01 10:00:02,125,70\n");
    assert_int_equal(s->inputs[0].rows, 3);
    assert_int_equal(s->inputs[0].rows_skipped, 0);
    assert_int_equal(s->gpus[0]->tab.t_ms[0], INT64_C(1748772000123));
    assert_int_equal(s->gpus[0]->tab.t_ms[2], INT64_C(1748772002125));
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 2) == 70);
    assert_non_null(strstr(s->inputs[0].note, "Python logging"));
    gw_series_free(s);
    /* one cell too many after a whole-second time, ", " between cells: a bad row, not ms */
    s = read_ok("time,gpu_util\n2025-06-01 10:00:00, 250, 50\n2025-06-01 10:00:01, 60\n");
    assert_int_equal(s->inputs[0].rows, 1);
    assert_int_equal(s->inputs[0].rows_skipped, 1);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 0) == 60);
    gw_series_free(s);
    /* a time no parser reads: the refusal names the cell, not only the line */
    char msg[512];
    refused("timestamp,utilization.gpu\n01/06/2025 10:00:00,50\n01/06/2025 10:00:01,50\n", msg,
            sizeof msg);
    assert_non_null(strstr(msg, "2 rows skipped, the first at line 2: '01/06/2025 10:00:00' in "
                                "timestamp is not a time the report reads"));
    refused("timestamp,utilization.gpu\n2025/06/01 10:00:00.000,busy\n", msg, sizeof msg);
    assert_non_null(strstr(msg, "'busy' in utilization.gpu [%] is not a number"));
    refused("timestamp,utilization.gpu\n2025/06/01 10:00:00.000,5,6,7\n", msg, sizeof msg);
    assert_non_null(strstr(msg, "'4 cells' in a row where the header names fewer"));
}

static void test_headers_and_text(void **state)
{
    (void)state;
    /* a spreadsheet's header: units in parentheses, names in any case */
    gw_series *s = read_ok("Timestamp,GPU Util (%),Memory Used (GiB),Power (W)\n"
                           "2025-06-01 10:00:00,70,2,150\n2025-06-01 10:00:01,71,2.5,151\n");
    assert_int_equal(s->inputs[0].rows, 2);
    assert_false(s->inputs[0].dateless);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 71);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 1) == 2560);
    assert_true(val(s, 0, GW_F_POWER_DRAW_W, 0) == 150);
    assert_non_null(strstr(s->inputs[0].note, "Timestamp -> timestamp, GPU Util -> "));
    gw_series_free(s);
    char msg[512];
    /* gpustat's screens are read (issue 25; refused before) */
    s = read_ok("myhost  Sun Jun  1 10:00:00 2025  550.54.15\n"
                "[0] NVIDIA A100 | 45 C,  97 % | 70000 / 81920 MB | user(69000M)\n");
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 0) == 97);
    assert_true(val(s, 0, GW_F_TEMP_GPU_C, 0) == 45);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 0) == 70000);
    assert_true(isnan(val(s, 0, GW_F_FAN_PCT, 0)) || val(s, 0, GW_F_FAN_PCT, 0) == -12345);
    gw_series_free(s);
    refused("myhost  Sun Jun  1 10:00:00 2025  550.54.15\nGPU 0: busy\n", msg, sizeof msg);
    assert_non_null(strstr(msg, "not a GPU log the report reads (its first line is neither CSV"));
    assert_null(strstr(msg, "--columns"));
    refused("{\"time\": 1733050000, \"gpu_util\": 90}\n", msg, sizeof msg); /* JSON lines */
    assert_non_null(strstr(msg, "this is JSON, not a GPU log the report reads"));
    assert_null(strstr(msg, "--columns"));
    refused("{\n  \"gpus\": []\n}\n", msg, sizeof msg); /* gpustat --json */
    assert_non_null(strstr(msg, "this is JSON"));
    refused("timestamp;utilization.gpu [%]\n2025/06/01 10:00:00.000;70\n", msg, sizeof msg);
    assert_non_null(strstr(msg, "cells separated by ';'"));
    refused("when,busy,ram\n2025-06-01 10:00:00,70,5000\n", msg, sizeof msg);
    assert_non_null(strstr(msg, "the header names no column the report knows (when, busy, ram)"));
    assert_null(strstr(msg, "noheader"));
}

static void test_util_ratio_said(void **state)
{
    (void)state;
    /* a 0-1 ratio read as percent made "the GPU never worked": said, values kept as written */
    gw_series *s = read_ok("time,gpu_util\n2025-06-01 10:00:00,0.92\n2025-06-01 10:00:01,0.9\n");
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 0) == 0.92);
    assert_non_null(strstr(s->inputs[0].note, "if it is a 0-1 ratio, write it x 100"));
    gw_series_free(s);
    s = read_ok("time,gpu_util\n2025-06-01 10:00:00,0\n2025-06-01 10:00:01,1\n"); /* idle */
    assert_null(strstr(s->inputs[0].note, "ratio"));
    gw_series_free(s);
}

static void test_utf16_without_bom(void **state)
{
    (void)state;
    const char *text = "timestamp, utilization.gpu [%]\r\n2025/06/01 10:00:00.000, 80\r\n"
                       "2025/06/01 10:00:01.000, 81\r\n";
    size_t n = strlen(text);
    for (int be = 0; be < 2; be++) {
        char buf[256];
        for (size_t i = 0; i < n; i++) {
            buf[2 * i + (size_t)be] = text[i];
            buf[2 * i + 1 - (size_t)be] = '\0';
        }
        gw_series *s;
        gw_error err = {0};
        assert_int_equal(read_bytes(buf, 2 * n, &s, &err), GW_OK);
        assert_int_equal(s->inputs[0].rows, 2);
        assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 81);
        assert_non_null(strstr(s->inputs[0].note, "converted from UTF-16"));
        assert_null(strstr(s->inputs[0].note, "NUL")); /* it was "the file was cut" */
        gw_series_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dmon_bounds_and_selections),
        cmocka_unit_test(test_times_people_write),
        cmocka_unit_test(test_headers_and_text),
        cmocka_unit_test(test_util_ratio_said),
        cmocka_unit_test(test_utf16_without_bom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

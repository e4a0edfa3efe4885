/* A big CSV read with its lines parsed on a second thread (logread/nvsmi_pipe.c, issue 28) gives
 * exactly what reading it on one thread gives: the same file read from a regular file with the
 * second thread and from memory (always one thread). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_helpers.h"

#include "logread/logread.h"
#include "logread/nvsmi_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ~6 MB: two GPUs, a quoted name with a line break now and then, NUL bytes, absent and bad
 * cells, a hex mask, a repeated header, a row repeated verbatim. */
static char *big_csv(size_t *len)
{
    size_t cap = 8 << 20, n = 0;
    char *b = malloc(cap);
    const char *head = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], "
                       "power.draw [W], clocks_event_reasons.active\n";
    n += (size_t)snprintf(b + n, cap - n, "%s", head);
    srand(3);
    for (int i = 0; n + 512 < cap && i < 60000; i++) {
        for (int g = 0; g < 2; g++) {
            char util[16];
            int k = rand() % 200;
            snprintf(util, sizeof util, "%s",
                     k == 0   ? "[N/A]"
                     : k == 1 ? ""
                     : k == 2 ? "abc"
                     : k == 3 ? "1e999"
                              : "");
            if (!*util && k > 3)
                snprintf(util, sizeof util, "%d", rand() % 101);
            size_t at = n;
            n += (size_t)snprintf(b + n, cap - n,
                                  "2026/11/30 %02d:%02d:%02d.%d00, %d, %s, %s, %d, %.2f, 0x%d\n",
                                  i / 36000 % 24, i / 600 % 60, i / 10 % 60, i % 10, g,
                                  i % 5000 == 7 ? "\"H200, \"\"a\"\"\nb\"" : "NVIDIA H200", util,
                                  rand() % 80000, (rand() % 60000 + 5000) / 100.0, rand() % 2);
            if (i % 7919 == 5)
                b[at + 3] = '\0'; /* a NUL byte inside the timestamp's year */
        }
        if (i == 30000)
            n += (size_t)snprintf(b + n, cap - n, "%s", head);
        if (i == 40000) { /* the last row again, verbatim */
            const char *last = b + n - 2;
            while (last > b && last[-1] != '\n')
                last--;
            size_t ll = (size_t)(b + n - last);
            memmove(b + n, last, ll);
            n += ll;
        }
    }
    *len = n;
    return b;
}

static gw_series *read_from(FILE *f, const char *path)
{
    gw_series *s = gw_series_new();
    size_t in = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
    gw_error err = {0};
    assert_int_equal(gw_logread_gpu_csv(s, f, in, path, NULL, &err), GW_OK);
    fclose(f);
    assert_int_equal(gw_series_finish(s, &err), GW_OK);
    return s;
}

static void test_second_thread_reads_the_same(void **state)
{
    (void)state;
    size_t len;
    char *csv = big_csv(&len);
    assert_true(len > (5u << 20));
    char *dir = th_tmpdir();
    char *path = malloc(strlen(dir) + 16);
    sprintf(path, "%s/gpu.csv", dir);
    FILE *w = fopen(path, "wb");
    assert_non_null(w);
    assert_int_equal(fwrite(csv, 1, len, w), len);
    fclose(w);
    nvsmi_pipe_mode = 1; /* the second thread, however busy the machine running the test */
    gw_series *a = read_from(fopen(path, "rb"), path);
    nvsmi_pipe_mode = -1;
    gw_series *b = read_from(fmemopen(csv, len, "rb"), path);
    nvsmi_pipe_mode = 0;
    assert_int_equal(a->ngpus, 2);
    assert_int_equal(a->ngpus, b->ngpus);
    const gw_series_input *ia = &a->inputs[0], *ib = &b->inputs[0];
    assert_true(ia->rows > 100000);
    assert_int_equal(ia->rows, ib->rows);
    assert_true(ia->rows_skipped > 0);
    assert_int_equal(ia->rows_skipped, ib->rows_skipped);
    assert_int_equal(ia->first_bad_line, ib->first_bad_line);
    assert_string_equal(ia->note, ib->note);
    assert_non_null(strstr(ia->note, "NUL"));
    for (int f = 0; f < GW_F_COUNT; f++)
        assert_int_equal(ia->impossible[f], ib->impossible[f]);
    for (size_t g = 0; g < a->ngpus; g++) {
        const gw_series_gpu *ga = a->gpus[g], *gb = b->gpus[g];
        assert_string_equal(ga->name, gb->name);
        assert_int_equal(ga->tab.n, gb->tab.n);
        assert_int_equal(ga->tab.ncols, gb->tab.ncols);
        assert_memory_equal(ga->tab.t_ms, gb->tab.t_ms, ga->tab.n * sizeof *ga->tab.t_ms);
        for (size_t c = 0; c < ga->tab.ncols; c++)
            for (size_t r = 0; r < ga->tab.n; r++) {
                double x = gw_series_col_value(&ga->tab, c, r);
                double y = gw_series_col_value(&gb->tab, c, r);
                assert_true((isnan(x) && isnan(y)) || x == y);
            }
    }
    gw_series_free(a);
    gw_series_free(b);
    th_rmrf(dir);
    free(path);
    free(dir);
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_thread_reads_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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

/* ~6 MB: two GPUs, a quoted name with a line break now and then, a name of 70,000 bytes (a
 * line the second thread leaves to the reader), NUL bytes, absent and bad cells, a hex mask, a
 * repeated header, a row repeated verbatim. */
static char *big_csv(size_t *len)
{
    static char long_name[70001];
    memset(long_name, 'x', sizeof long_name - 1);
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
            n += (size_t)snprintf(
                b + n, cap - n, "2026/11/30 %02d:%02d:%02d.%d00, %d, %s, %s, %d, %.2f, 0x%d\n",
                i / 36000 % 24, i / 600 % 60, i / 10 % 60, i % 10, g,
                i % 5000 == 7          ? "\"H200, \"\"a\"\"\nb\""
                : i == 20000 && g == 1 ? long_name
                                       : "NVIDIA H200",
                util, rand() % 80000, (rand() % 60000 + 5000) / 100.0, rand() % 2);
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

/* Writes csv to a file, reads it with the second thread in mode (nvsmi_priv.h) and from memory
 * (one thread), asserts the two read the same (every value, time, count and note); returns the
 * file's reading for the caller's own checks (freed by the caller). */
/* csv written to DIR/gpu.csv in a new temporary *dir; the path (freed by the caller). */
static char *write_csv(const char *csv, size_t len, char **dir)
{
    *dir = th_tmpdir();
    char *path = malloc(strlen(*dir) + 16);
    sprintf(path, "%s/gpu.csv", *dir);
    FILE *w = fopen(path, "wb");
    assert_non_null(w);
    assert_int_equal(fwrite(csv, 1, len, w), len);
    fclose(w);
    return path;
}

static gw_series *same_both_ways(const char *csv, size_t len, int mode)
{
    char *dir;
    char *path = write_csv(csv, len, &dir);
    nvsmi_pipe_mode = mode; /* the second thread, however busy the machine running the test */
    gw_series *a = read_from(fopen(path, "rb"), path);
    nvsmi_pipe_mode = -1;
    gw_series *b = read_from(fmemopen((void *)csv, len, "rb"), path);
    nvsmi_pipe_mode = 0;
    assert_int_equal(a->ngpus, b->ngpus);
    const gw_series_input *ia = &a->inputs[0], *ib = &b->inputs[0];
    assert_int_equal(ia->rows, ib->rows);
    assert_int_equal(ia->rows_skipped, ib->rows_skipped);
    assert_int_equal(ia->first_bad_line, ib->first_bad_line);
    assert_string_equal(ia->note, ib->note);
    for (int f = 0; f < GW_F_COUNT; f++)
        assert_int_equal(ia->impossible[f], ib->impossible[f]);
    for (size_t g = 0; g < a->ngpus; g++) {
        const gw_series_gpu *ga = a->gpus[g], *gb = b->gpus[g];
        assert_string_equal(ga->key, gb->key);
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
    gw_series_free(b);
    th_rmrf(dir);
    free(path);
    free(dir);
    return a;
}

static void test_second_thread_reads_the_same(void **state)
{
    (void)state;
    size_t len;
    char *csv = big_csv(&len);
    assert_true(len > (5u << 20));
    /* 1: the thread parses as many lines' numbers as keeps both busy; 2: every other line's,
     * the reader the rest (both paths within one batch) */
    for (int mode = 1; mode <= 2; mode++) {
        gw_series *a = same_both_ways(csv, len, mode);
        assert_int_equal(a->ngpus, 2);
        assert_true(a->inputs[0].rows > 100000);
        assert_true(a->inputs[0].rows_skipped > 0);
        assert_non_null(strstr(a->inputs[0].note, "NUL"));
        gw_series_free(a);
    }
    free(csv);
}

/* Rows of 3 GPUs in uneven turns (GPU 2 in every poll, GPU 0 in two of three, GPU 1 in one of
 * five), and a last line without its line break, whole or cut inside a cell: read the same
 * both ways, its rows counted per GPU. */
static void test_uneven_gpus_cut_last_line(void **state)
{
    (void)state;
    size_t cap = 6 << 20, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n,
                          "timestamp, index, utilization.gpu [%%], power.draw [W], "
                          "memory.used [MiB], memory.total [MiB], pstate\n");
    size_t want[3] = {0, 0, 0};
    for (int i = 0; n + 256 < cap - 4096; i++)
        for (int g = 0; g < 3; g++) {
            if ((g == 0 && i % 3 == 2) || (g == 1 && i % 5 != 0))
                continue;
            n += (size_t)snprintf(
                b + n, cap - n, "2026-11-30T%02d:%02d:%02d.%03dZ, %d, %d, %.2f, %d, 143771, P%d\n",
                i / 36000 % 24, i / 600 % 60, i / 10 % 60, i % 10 * 100, g, (i * 7 + g) % 101,
                60 + (i * 13 % 64000) / 100.0, 40000 + i % 997, i % 3 == 0 ? 0 : 2);
            want[g]++;
        }
    n += (size_t)snprintf(b + n, cap - n,
                          "2026-12-01T00:00:00.000Z, 1, 5, 61.00, 40000, 143771, P0");
    /* three odd sizes: whole (the last row read without its line break), then cut 1 and 7
     * bytes short ("P", "143": rows skipped) */
    for (int cut = 0; cut < 3; cut++) {
        size_t len = n - (cut == 1 ? 1 : cut == 2 ? 7 : 0);
        gw_series *a = same_both_ways(b, len, cut == 1 ? 2 : 1);
        assert_int_equal(a->ngpus, 3);
        for (size_t g = 0; g < 3; g++)
            assert_int_equal(a->gpus[g]->tab.n, want[a->gpus[g]->index] + (cut == 0 && g == 1));
        gw_series_free(a);
    }
    free(b);
}

/* The file's edges as the second thread reads it in blocks: a byte order mark, a line longer
 * than a block (1.5 MiB), lines cut by every block boundary, NUL bytes, and a last record whose
 * quoted cell never closes: read the same both ways. */
static void test_block_edges(void **state)
{
    (void)state;
    size_t cap = 6 << 20, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n,
                          "\xef\xbb\xbftimestamp, index, name, utilization.gpu [%%]\n");
    for (int i = 0; n + (2 << 20) < cap; i++) {
        if (i == 7000) { /* a name longer than a block */
            n += (size_t)snprintf(b + n, cap - n, "2026-11-30T01:00:00.000Z, 1, ");
            memset(b + n, 'y', 3 << 19);
            n += 3 << 19;
            n += (size_t)snprintf(b + n, cap - n, ", 7\n");
        }
        n += (size_t)snprintf(b + n, cap - n, "2026-11-30T%02d:%02d:%02d.%03dZ, %d, H200, %d\n",
                              i / 36000 % 24, i / 600 % 60, i / 10 % 60, i % 10 * 100, i % 2,
                              i * 7 % 101);
        if (i % 9973 == 11)
            b[n - 3] = '\0'; /* a NUL byte in the last cell */
    }
    n += (size_t)snprintf(b + n, cap - n, "2026-12-01T00:00:00.000Z, 0, \"open, 5");
    gw_series *a = same_both_ways(b, n, 1);
    assert_int_equal(a->ngpus, 2);
    assert_true(a->inputs[0].rows > 50000);
    gw_series_free(a);
    free(b);
}

/* A run of NUL bytes longer than a block (a sparse or zero-filled stretch of a file): taken out
 * as the block fills, so the line costs its other bytes, not the run (a 3 GB sparse file asked
 * for 4 GiB and aborted); read the same both ways, the NUL bytes counted. Then a file that is
 * nothing but NUL bytes, with no line end: empty, as on one thread. */
static void test_nul_run_longer_than_a_block(void **state)
{
    (void)state;
    size_t cap = 8 << 20, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n, "timestamp, index, utilization.gpu [%%]\n");
    for (int i = 0; i < 20000; i++) {
        n += (size_t)snprintf(b + n, cap - n, "2026-11-30T%02d:%02d:%02d.%03dZ, 0, %d",
                              i / 36000 % 24, i / 600 % 60, i / 10 % 60, i % 10 * 100, i % 101);
        if (i == 9000) { /* 5 MiB of NUL bytes inside the last cell */
            memset(b + n, 0, 5 << 20);
            n += 5 << 20;
        }
        b[n++] = '\n';
    }
    gw_series *a = same_both_ways(b, n, 1);
    assert_int_equal(a->gpus[0]->tab.n, 20000);
    assert_non_null(strstr(a->inputs[0].note, "NUL"));
    gw_series_free(a);
    memset(b, 0, 6 << 20);
    char *dir;
    char *path = write_csv(b, 6 << 20, &dir);
    nvsmi_pipe_mode = 1;
    gw_series *s = gw_series_new();
    size_t in = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
    gw_error err = {0};
    FILE *f = fopen(path, "rb");
    gw_rc rc = gw_logread_gpu_csv(s, f, in, path, NULL, &err);
    fclose(f);
    nvsmi_pipe_mode = 0;
    assert_int_not_equal(rc, GW_OK);
    assert_non_null(strstr(err.msg, "empty"));
    gw_series_free(s);
    th_rmrf(dir);
    free(path);
    free(dir);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_thread_reads_the_same),
        cmocka_unit_test(test_uneven_gpus_cut_last_line),
        cmocka_unit_test(test_block_edges),
        cmocka_unit_test(test_nul_run_longer_than_a_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

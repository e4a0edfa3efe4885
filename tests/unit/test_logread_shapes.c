/* The shapes real logs come in (issue 15 items 1-5, docs/report.md "Accepted shapes"): GPUs
 * without an id column, the seed article's logger, camelCase and home-made header names,
 * --columns over a header, encodings and framing (BOM, UTF-16, NUL runs, ctime, elapsed
 * seconds), `nvidia-smi dmon`, and the formats refused with their name. Inputs are small files
 * written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/logread.h"
#include "logread/timeparse.h"
#include "synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Writes len bytes (NULs allowed) to a temporary file; returns its path. */
static char *temp_bytes(const char *bytes, size_t len)
{
    char *path = strdup("/tmp/gwshapeXXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    fwrite(bytes, 1, len, f);
    fclose(f);
    return path;
}

/* Reads a file of len bytes with --columns `columns` (NULL: none); the series in *out. */
static gw_rc read_bytes(const char *bytes, size_t len, const char *columns, gw_series **out,
                        gw_error *err)
{
    char *path = temp_bytes(bytes, len);
    gw_logread_opts o = {.columns = columns};
    gw_series *s = gw_series_new();
    gw_rc rc = gw_logread_input(s, path, &o, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    unlink(path);
    free(path);
    *out = s;
    return rc;
}

static gw_series *read_ok(const char *text, const char *columns)
{
    gw_series *s;
    gw_error err = {0};
    if (read_bytes(text, strlen(text), columns, &s, &err))
        fail_msg("read failed: %s", err.msg);
    return s;
}

/* The error message of a refused input. */
static void read_refused(const char *text, const char *columns, char *msg, size_t size)
{
    gw_series *s;
    gw_error err = {0};
    assert_int_equal(read_bytes(text, strlen(text), columns, &s, &err), GW_E_FORMAT);
    snprintf(msg, size, "%s", err.msg);
    gw_series_free(s);
}

static double val(const gw_series *s, size_t gpu, gw_gpu_field f, size_t row)
{
    const double *v = gw_series_gpu_values(s->gpus[gpu], f);
    return v ? v[row] : -12345;
}

static void test_order_split(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, utilization.gpu [%], memory.used [MiB]\n"
                           "2024/05/01 10:00:00.100, 91 %, 30000 MiB\n"
                           "2024/05/01 10:00:00.100, 0 %, 2 MiB\n"
                           "2024/05/01 10:00:01.100, 93 %, 30010 MiB\n"
                           "2024/05/01 10:00:01.100, 1 %, 3 MiB\n"
                           "2024/05/01 10:00:02.100, 92 %, 30020 MiB\n",
                           NULL);
    assert_int_equal(s->ngpus, 2);
    assert_int_equal(s->gpus[0]->index, 0);
    assert_int_equal(s->gpus[1]->index, 1);
    assert_int_equal(s->gpus[0]->tab.n, 3); /* the last tick was cut after GPU 0 */
    assert_int_equal(s->gpus[1]->tab.n, 2);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 93);
    assert_true(val(s, 1, GW_F_UTIL_GPU_PCT, 1) == 1);
    assert_true(val(s, 1, GW_F_MEM_USED_MIB, 0) == 2);
    assert_non_null(strstr(s->inputs[0].note, "2 GPUs told apart by their order"));
    gw_series_free(s);

    /* One row per timestamp: one GPU, nothing assumed. */
    s = read_ok("timestamp, utilization.gpu [%]\n2024/05/01 10:00:00.100, 5\n"
                "2024/05/01 10:00:01.100, 6\n",
                NULL);
    assert_int_equal(s->ngpus, 1);
    assert_string_equal(s->gpus[0]->key, "");
    assert_string_equal(s->inputs[0].note, "");
    gw_series_free(s);
}

static void test_order_ambiguous_refused(void **state)
{
    (void)state;
    char msg[512];
    read_refused("timestamp, utilization.gpu [%]\n"
                 "2024/05/01 10:00:00.100, 91\n2024/05/01 10:00:00.100, 0\n"
                 "2024/05/01 10:00:01.100, 93\n"
                 "2024/05/01 10:00:02.100, 92\n2024/05/01 10:00:02.100, 0\n",
                 NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "rows per timestamp vary (1 at line 4, 2 at line 2)"));
    assert_non_null(strstr(msg, "add index to the --query-gpu list"));
    /* The GPU at a position changes: names swap places. */
    read_refused("timestamp, name, utilization.gpu [%]\n"
                 "2024/05/01 10:00:00.100, NVIDIA A100, 91\n2024/05/01 10:00:00.100, Tesla T4, 0\n"
                 "2024/05/01 10:00:01.100, Tesla T4, 1\n2024/05/01 10:00:01.100, NVIDIA A100, 90\n",
                 NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "line 4 names another GPU"));
}

static void test_seed_logger(void **state)
{
    (void)state;
    /* Two GPUs: the logger's date precedes only the first GPU's line. */
    gw_series *s = read_ok(
        "timestamp,gpu_name,util_gpu,util_mem,mem_used,mem_total\n"
        "2024-05-01 10:00:00,2024/05/01 10:00:00.123, NVIDIA H100 80GB HBM3, 45, 12, 1234, 81559\n"
        "2024/05/01 10:00:00.123, NVIDIA H100 80GB HBM3, 80, 30, 40000, 81559\n"
        "2024-05-01 10:00:01,2024/05/01 10:00:01.125, NVIDIA H100 80GB HBM3, 47, 13, 1240, 81559\n"
        "2024/05/01 10:00:01.125, NVIDIA H100 80GB HBM3, 82, 31, 40010, 81559\n",
        NULL);
    assert_int_equal(s->inputs[0].rows, 4);
    assert_int_equal(s->inputs[0].rows_skipped, 0);
    assert_int_equal(s->ngpus, 2);
    assert_string_equal(s->gpus[0]->name, "NVIDIA H100 80GB HBM3");
    assert_true(s->gpus[1]->memory_total_mib == 81559);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 47);
    assert_true(val(s, 1, GW_F_UTIL_MEM_PCT, 1) == 31);
    assert_true(val(s, 1, GW_F_MEM_USED_MIB, 0) == 40000);
    assert_int_equal(s->gpus[0]->tab.t_ms[1], INT64_C(1714557601125)); /* nvidia-smi's time */
    const char *note = s->inputs[0].note;
    assert_non_null(strstr(note, "a date column before nvidia-smi's timestamp"));
    assert_non_null(strstr(note, "util_gpu -> utilization.gpu"));
    assert_non_null(strstr(note, "mem_total -> memory.total"));
    gw_series_free(s);
}

static void test_camel_case_header(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, index, utilization.gpu [%], encoder.stats.sessionCount, "
                           "pci.baseClass, memory.used [MiB]\n"
                           "2024/05/01 10:00:00.000, 0, 55 %, 0, 0x3, 100 MiB\n"
                           "2024/05/01 10:00:01.000, 0, 57 %, 0, 0x3, 110 MiB\n",
                           NULL);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 57);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 1) == 110);
    assert_non_null(
        strstr(s->inputs[0].note, "columns ignored: encoder.stats.sessionCount, pci.baseClass"));
    gw_series_free(s);
}

static void test_home_made_names(void **state)
{
    (void)state;
    gw_series *s = read_ok("time,GPU ID,gpu_util,mem_used_mb,temp_c,power_w,util_pct2\n"
                           "2024-05-01 10:00:00,3,70,5000,61,250.5,1\n"
                           "2024-05-01 10:00:01,3,72,5010,62,251.5,1\n",
                           NULL);
    assert_int_equal(s->ngpus, 1);
    assert_int_equal(s->gpus[0]->index, 3);
    assert_int_equal(s->gpus[0]->tab.t_ms[0], INT64_C(1714557600000));
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 72);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 0) == 5000);
    assert_true(val(s, 0, GW_F_TEMP_GPU_C, 1) == 62);
    assert_true(val(s, 0, GW_F_POWER_DRAW_W, 0) == 250.5);
    const char *note = s->inputs[0].note;
    assert_non_null(strstr(note, "GPU ID -> index"));
    assert_non_null(strstr(note, "mem_used_mb -> memory.used"));
    assert_non_null(strstr(note, "power_w -> power.draw"));
    assert_non_null(strstr(note, "columns ignored: util_pct2"));
    gw_series_free(s);
    /* A unit suffix converts: gigabytes of memory. */
    s = read_ok("timestamp,gpu_mem_used_gb\n2024-05-01 10:00:00,2\n", NULL);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 0) == 2048);
    gw_series_free(s);
}

static void test_columns_rename_a_header(void **state)
{
    (void)state;
    const char *text = "when,gpu,busy,used\n"
                       "2024/05/01 10:00:00.000, 0, 10, 100\n"
                       "2024/05/01 10:00:01.000, 0, 20, 200\n";
    gw_series *s = read_ok(text, "timestamp,index,utilization.gpu,memory.used");
    assert_int_equal(s->inputs[0].rows, 2);
    assert_false(s->inputs[0].untimed);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 20);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 1) == 200);
    assert_non_null(strstr(s->inputs[0].note, "columns named by --columns"));
    gw_series_free(s);
    char msg[512];
    read_refused(text, "timestamp,utilization.gpu", msg, sizeof msg);
    assert_non_null(strstr(msg, "--columns names 2 columns but the header at line 1 has 4"));
}

static void test_bom_and_utf16(void **state)
{
    (void)state;
    gw_series *s = read_ok("\xef\xbb\xbftimestamp, index, utilization.gpu [%]\n"
                           "2024/05/01 10:00:00.000, 0, 33\n",
                           NULL);
    assert_int_equal(s->inputs[0].rows, 1);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 0) == 33);
    gw_series_free(s);

    const char *text = "timestamp, index, utilization.gpu [%]\r\n2024/05/01 10:00:00.000, 1, 34\r\n"
                       "2024/05/01 10:00:01.000, 1, 35\r\n";
    size_t n = strlen(text), len = 2 + 2 * n;
    char *u16 = malloc(len);
    u16[0] = (char)0xff;
    u16[1] = (char)0xfe;
    for (size_t i = 0; i < n; i++) {
        u16[2 + 2 * i] = text[i];
        u16[3 + 2 * i] = 0;
    }
    gw_error err = {0};
    assert_int_equal(read_bytes(u16, len, NULL, &s, &err), GW_OK);
    free(u16);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_int_equal(s->gpus[0]->index, 1);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 35);
    assert_non_null(strstr(s->inputs[0].note, "converted from UTF-16"));
    gw_series_free(s);
}

static void test_nul_runs_counted(void **state)
{
    (void)state;
    char buf[512];
    size_t n = 0;
    n += (size_t)sprintf(buf + n, "timestamp, index, utilization.gpu [%%]\n"
                                  "2024/05/01 10:00:00.000, 0, 33\n2024/05/01 10:00:01.0");
    memset(buf + n, 0, 100); /* the rest of a row lost in a crash */
    n += 100;
    n += (size_t)sprintf(buf + n, "2024/05/01 10:00:05.000, 0, 36\n"
                                  "2024/05/01 10:00:06.000, 0, 37\n");
    gw_series *s;
    gw_error err = {0};
    assert_int_equal(read_bytes(buf, n, NULL, &s, &err), GW_OK);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_int_equal(s->inputs[0].rows_skipped, 1); /* the joined line */
    assert_int_equal(s->inputs[0].first_bad_line, 3);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 37);
    assert_non_null(strstr(s->inputs[0].note, "100 NUL bytes removed from 1 line (the first at "
                                              "line 3"));
    gw_series_free(s);
}

static void test_ctime_and_elapsed(void **state)
{
    (void)state;
    int64_t ms;
    assert_int_equal(gw_timeparse("Tue Nov  5 14:03:01 2024", &ms), 24);
    assert_int_equal(ms, INT64_C(1730815381000));
    assert_int_equal(gw_timeparse("Tue Nov 5 14:03:01 UTC 2024", &ms), 27);
    assert_int_equal(ms, INT64_C(1730815381000));
    assert_int_equal(gw_timeparse("Tue Nov 45 14:03:01 2024", &ms), 0);
    assert_int_equal(gw_timeparse("Tuesday", &ms), 0);
    setenv("TZ", "EST5", 1);
    tzset();
    assert_true(gw_timeparse("Tue Nov  5 09:03:01 2024", &ms) > 0);
    assert_int_equal(ms, INT64_C(1730815381000));
    setenv("TZ", "UTC", 1);
    tzset();

    gw_series *s =
        read_ok("date,util_gpu\nTue Nov  5 14:03:01 2024,40\nTue Nov  5 14:03:02 2024,41\n", NULL);
    assert_int_equal(s->gpus[0]->tab.t_ms[1], INT64_C(1730815382000));
    assert_false(s->inputs[0].dateless);
    gw_series_free(s);

    s = read_ok("elapsed_s,utilization.gpu\n0.0,50\n1.5,51\n3.0,52\n", NULL);
    assert_int_equal(s->inputs[0].rows, 3);
    assert_int_equal(s->gpus[0]->tab.t_ms[1], 1500);
    assert_true(s->inputs[0].dateless);
    assert_false(s->inputs[0].untimed);
    assert_non_null(strstr(s->inputs[0].note, "the date is unknown"));
    gw_series_free(s);
}

static void test_dmon(void **state)
{
    (void)state;
    gw_series *s = read_ok("# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n"
                           "# Idx     W     C     C     %     %     %     %   MHz   MHz\n"
                           "    0   310    61     -    97    40     0     0  2619  1980\n"
                           "    1    75    40     -     3     0     0     0  2619   345\n"
                           "    0   312    62     -    98    41     -     -  2619  1980\n"
                           "    1    76    40     -     2     0     0     0  2619   345\n",
                           NULL);
    assert_int_equal(s->ngpus, 2);
    assert_int_equal(s->inputs[0].rows, 4);
    assert_true(s->inputs[0].untimed);
    assert_true(s->inputs[0].dateless);
    assert_int_equal(s->gpus[1]->tab.t_ms[1], 1000);
    assert_true(val(s, 0, GW_F_POWER_DRAW_W, 1) == 312);
    assert_true(val(s, 0, GW_F_UTIL_GPU_PCT, 1) == 98);
    assert_true(val(s, 1, GW_F_TEMP_GPU_C, 0) == 40);
    assert_true(val(s, 1, GW_F_CLOCK_GR_MHZ, 0) == 345);
    assert_null(gw_series_gpu_values(s->gpus[0], GW_F_TEMP_MEM_C)); /* '-' is absent, not 0 */
    long enc = gw_series_table_find(&s->gpus[0]->tab, "utilization.encoder [%]");
    assert_true(enc >= 0);
    assert_true(gw_series_col_value(&s->gpus[0]->tab, (size_t)enc, 0) == 0);
    assert_true(isnan(gw_series_col_value(&s->gpus[0]->tab, (size_t)enc, 1)));
    assert_non_null(strstr(s->inputs[0].note, "`nvidia-smi dmon`"));
    gw_series_free(s);

    /* -o DT: dated rows; -s um adds fb (MiB). */
    s = read_ok("#Date       Time        gpu    sm   mem   enc   dec    fb  bar1\n"
                "#YYYYMMDD   HH:MM:SS    Idx     %     %     %     %    MB    MB\n"
                " 20241105   14:03:01      0    55    20     0     0  1200     5\n"
                " 20241105   14:03:02      0    56    21     0     0  1300     5\n",
                NULL);
    assert_int_equal(s->gpus[0]->tab.t_ms[1], INT64_C(1730815382000));
    assert_false(s->inputs[0].dateless);
    assert_true(val(s, 0, GW_F_MEM_USED_MIB, 1) == 1300);
    assert_non_null(strstr(s->inputs[0].note, "columns ignored: bar1"));
    gw_series_free(s);
}

static void test_other_formats_refused(void **state)
{
    (void)state;
    char msg[512];
    read_refused("# gpu         pid  type    sm   mem   enc   dec   command\n"
                 "# Idx           #   C/G     %     %     %     %   name\n"
                 "    0       4321     C    97    40     -     -   python3\n",
                 NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "`nvidia-smi pmon` output"));
    assert_null(strstr(msg, "--columns"));
    read_refused(
        "Tue Nov  5 14:03:01 2024\n"
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n",
        NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "an `nvidia-smi` table"));
    assert_null(strstr(msg, "--columns"));
    read_refused("pid, process_name, used_gpu_memory [MiB]\n4321, python3, 40000 MiB\n", NULL, msg,
                 sizeof msg);
    assert_non_null(strstr(msg, "--query-compute-apps"));
    assert_non_null(strstr(msg, "nvidia-smi --query-gpu="));
    read_refused("==============NVSMI LOG==============\n\nTimestamp : Tue Nov  5 14:03:01 2024\n",
                 NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "`nvidia-smi -q` report"));
    /* A bundle: GPU CSV, then a compute-apps section, or a table. */
    read_refused("timestamp, index, utilization.gpu [%]\n2024/05/01 10:00:00.000, 0, 90\n\n"
                 "pid, process_name, used_gpu_memory [MiB]\n4321, python3, 40000 MiB\n",
                 NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "several sections in one file (GPU CSV, then "
                                "--query-compute-apps CSV at line 4)"));
    read_refused(
        "timestamp, index, utilization.gpu [%]\n2024/05/01 10:00:00.000, 0, 90\n"
        "+-----------------------------------------------------------------------------+\n",
        NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "then an `nvidia-smi` table"));
    assert_non_null(strstr(msg, "at line 3"));
}

static void test_table_csv_framing(void **state)
{
    (void)state;
    /* host.csv / GPM CSV: a BOM before the header, NUL bytes inside a row. */
    static const char text[] = "\xef\xbb\xbftimestamp, cpu.util [%]\n"
                               "2026-11-30T03:22:23Z, 12\n2026-11-30T03:22:24Z, 1\0\0003\n"
                               "garbage row\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    gw_series *s = gw_series_new();
    size_t in = gw_series_add_input(s, "host.csv", NULL, GW_INPUT_RUN_DIR);
    gw_series_host *h = gw_series_add_host(s, in, "node");
    gw_error err = {0};
    assert_int_equal(gw_logread_table_csv(s, f, in, &h->tab, gw_logread_host_field, &err), GW_OK);
    fclose(f);
    assert_int_equal(s->inputs[in].rows, 2);
    assert_int_equal(s->inputs[in].rows_skipped, 1); /* a line of words is no header */
    assert_int_equal(s->inputs[in].first_bad_line, 4);
    assert_int_equal(h->tab.ncols, 1);
    assert_true(h->tab.cols[0].v[0] == 12);
    assert_true(h->tab.cols[0].v[1] == 13);
    assert_non_null(strstr(s->inputs[in].note, "2 NUL bytes removed (the first at line 3)"));
    gw_series_free(s);
}

static void test_header_detection(void **state)
{
    (void)state;
    /* A data row of text is no header; a name with a pstate either. */
    gw_series *s = read_ok("name, pstate, utilization.gpu [%]\nTesla T4, P0, 5\n"
                           "garbage row\nTesla T4, P2, 6\n",
                           NULL);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_int_equal(s->inputs[0].rows_skipped, 1);
    assert_true(val(s, 0, GW_F_PSTATE, 1) == 2);
    gw_series_free(s);
    /* A repeated header says its mapping once; a small number in a dated file is a bad row,
     * not seconds since 1970. */
    s = read_ok("timestamp, name, gpu_util\n2024/05/01 10:00:00.000, A, 5\n12, A, 6\n"
                "timestamp, name, gpu_util\n2024/05/01 10:00:02.000, A, 7\n",
                NULL);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_int_equal(s->inputs[0].first_bad_line, 3);
    assert_false(s->inputs[0].dateless);
    assert_string_equal(s->inputs[0].note, "columns read as: gpu_util -> utilization.gpu");
    gw_series_free(s);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_split),
        cmocka_unit_test(test_order_ambiguous_refused),
        cmocka_unit_test(test_seed_logger),
        cmocka_unit_test(test_camel_case_header),
        cmocka_unit_test(test_home_made_names),
        cmocka_unit_test(test_columns_rename_a_header),
        cmocka_unit_test(test_bom_and_utf16),
        cmocka_unit_test(test_nul_runs_counted),
        cmocka_unit_test(test_ctime_and_elapsed),
        cmocka_unit_test(test_dmon),
        cmocka_unit_test(test_other_formats_refused),
        cmocka_unit_test(test_table_csv_framing),
        cmocka_unit_test(test_header_detection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The log reader: every nvidia-smi CSV variant of spec.md "Reading logs", timestamps, bad rows,
 * GPM merging, training logs and run directories. Inputs are small temporary files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/logread.h"
#include "logread/timeparse.h"
#include "synth.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reads text as one input with options; returns rc and leaves the series in *out. */
static gw_rc read_text(const char *text, const gw_logread_opts *o, gw_series **out, gw_error *err)
{
    char *path = synth_temp_file(text);
    gw_series *s = gw_series_new();
    gw_rc rc = gw_logread_input(s, path, o, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    unlink(path);
    free(path);
    *out = s;
    return rc;
}

static gw_series *read_ok(const char *text, const gw_logread_opts *o)
{
    gw_series *s;
    gw_error err = {0};
    gw_rc rc = read_text(text, o, &s, &err);
    if (rc)
        fail_msg("read failed: %s", err.msg);
    return s;
}

static double val(const gw_series *s, size_t gpu, gw_gpu_field f, size_t row)
{
    const double *v = gw_series_gpu_values(s->gpus[gpu], f);
    return v ? v[row] : -12345;
}

static void test_timestamps(void **state)
{
    (void)state;
    int64_t ms;
    assert_int_equal(gw_timeparse("2026-11-30T03:22:23.578Z", &ms), 24);
    assert_int_equal(ms, INT64_C(1796008943578));
    assert_int_equal(gw_timeparse("2026-11-30T05:22:23.578+02:00", &ms), 29);
    assert_int_equal(ms, INT64_C(1796008943578));
    assert_true(gw_timeparse("2026-11-30 03:22:23,5Z", &ms) > 0);
    assert_int_equal(ms, INT64_C(1796008943500));
    assert_int_equal(gw_timeparse("1796008943.578", &ms), 14);
    assert_int_equal(ms, INT64_C(1796008943578));
    assert_int_equal(gw_timeparse("1796008943578", &ms), 13); /* milliseconds */
    assert_int_equal(ms, INT64_C(1796008943578));
    assert_int_equal(gw_timeparse("1796008943.578 epoch 1/4 start", &ms), 14);
    setenv("TZ", "UTC", 1);
    tzset();
    assert_int_equal(gw_timeparse("2026/11/30 03:22:23.578", &ms), 23);
    assert_int_equal(ms, INT64_C(1796008943578));
    setenv("TZ", "EST5", 1); /* local time 5 h behind UTC, no DST */
    tzset();
    assert_int_equal(gw_timeparse("2026/11/30 03:22:24.000", &ms), 23);
    assert_int_equal(ms, INT64_C(1796008944000) + 5 * 3600000);
    setenv("TZ", "UTC", 1);
    tzset();
    const char *not_times[] = {"12 steps", "2026-13-01T00:00:00Z", "3.5", "2026-11", "",
                               "abc",      "0x0000000000000001"};
    for (size_t i = 0; i < sizeof not_times / sizeof not_times[0]; i++)
        if (gw_timeparse(not_times[i], &ms) != 0)
            fail_msg("parsed as time: %s", not_times[i]);
}

/* The traces' format: units in values, nvidia-smi local time, pci.bus_id. */
static void test_units_in_values(void **state)
{
    (void)state;
    gw_series *s = read_ok(
        "timestamp, name, pci.bus_id, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
        "temperature.gpu, power.draw [W], power.limit [W], clocks.current.sm [MHz], "
        "clocks_event_reasons.active, pstate\n"
        "2026/11/30 03:05:08.926, NVIDIA H200, 00000000:00:06.0, 7 %, 591 MiB, 143771 MiB, 35, "
        "78.50 W, 700.00 W, 345 MHz, 0x0000000000000001, P0\n"
        "2026/11/30 03:05:09.135, NVIDIA H200, 00000000:00:06.0, 100 %, 13391 MiB, 143771 MiB, 50, "
        "601.25 W, 700.00 W, 1980 MHz, 0x0000000000000024, P2\n",
        NULL);
    assert_int_equal(s->ngpus, 1);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_int_equal(s->gpus[0]->tab.n, 2);
    assert_string_equal(s->gpus[0]->name, "NVIDIA H200");
    assert_string_equal(s->gpus[0]->pci_bus_id, "00000000:00:06.0");
    assert_int_equal(s->gpus[0]->index, 0);
    assert_int_equal(s->gpus[0]->tab.t_ms[0], INT64_C(1796007908926));
    assert_float_equal(val(s, 0, GW_F_UTIL_GPU_PCT, 1), 100, 0);
    assert_float_equal(val(s, 0, GW_F_MEM_USED_MIB, 0), 591, 0);
    assert_float_equal(val(s, 0, GW_F_POWER_DRAW_W, 1), 601.25, 1e-9);
    assert_float_equal(val(s, 0, GW_F_CLOCK_SM_MHZ, 1), 1980, 0);
    assert_float_equal(val(s, 0, GW_F_CLOCKS_EVENT_REASONS, 1), 0x24, 0);
    assert_float_equal(val(s, 0, GW_F_PSTATE, 1), 2, 0);
    assert_float_equal(s->gpus[0]->memory_total_mib, 143771, 0);
    assert_float_equal(s->gpus[0]->power_limit_w, 700, 0);
    gw_series_free(s);
}

/* Units in the header only (nounits), and values converted to the field's unit. */
static void test_units_in_header_and_conversion(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, memory.used [GiB], power.draw [mW], utilization.gpu [%]\n"
                           "2026-11-30T03:22:23.000Z, 2, 150000, 50\n"
                           "2026-11-30T03:22:24.000Z, 0.5 GiB, 75 W, 60 %\n",
                           NULL);
    assert_float_equal(val(s, 0, GW_F_MEM_USED_MIB, 0), 2048, 1e-9);
    assert_float_equal(val(s, 0, GW_F_POWER_DRAW_W, 0), 150, 1e-9);
    assert_float_equal(val(s, 0, GW_F_MEM_USED_MIB, 1), 512, 1e-9);
    assert_float_equal(val(s, 0, GW_F_POWER_DRAW_W, 1), 75, 1e-9);
    gw_series_free(s);
}

static void test_noheader_with_columns(void **state)
{
    (void)state;
    gw_logread_opts o = {.columns = "timestamp,index,utilization.gpu,memory.used,power.draw"};
    /* csv,noheader (units in values) and csv,noheader,nounits in one file */
    gw_series *s = read_ok("2026/11/30 03:22:23.000, 0, 38 %, 575 MiB, 25.40 W\n"
                           "2026/11/30 03:22:24.000, 0, 41, 600, 32.10\n",
                           &o);
    assert_int_equal(s->gpus[0]->tab.n, 2);
    assert_float_equal(val(s, 0, GW_F_UTIL_GPU_PCT, 0), 38, 0);
    assert_float_equal(val(s, 0, GW_F_MEM_USED_MIB, 1), 600, 0);
    assert_float_equal(val(s, 0, GW_F_POWER_DRAW_W, 0), 25.4, 1e-9);
    gw_series_free(s);
    /* without --columns: an error that says what to do */
    gw_error err = {0};
    assert_int_equal(read_text("38, 12 %, 25.40 W\n", NULL, &s, &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "--columns"));
    gw_series_free(s);
}

static void test_absent_markers(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, utilization.gpu [%], fan.speed [%], power.draw [W], "
                           "temperature.gpu, memory.used [MiB], clocks.current.sm [MHz]\n"
                           "1796008943.0, [N/A], [Not Supported], N/A, -, , 1980\n",
                           NULL);
    assert_int_equal(s->inputs[0].rows, 1);
    for (gw_gpu_field f = GW_F_UTIL_GPU_PCT; f <= GW_F_FAN_PCT; f++) {
        const double *v = gw_series_gpu_values(s->gpus[0], f);
        if (v && f != GW_F_CLOCK_SM_MHZ)
            assert_true(isnan(v[0])); /* absent, never 0 */
    }
    assert_float_equal(val(s, 0, GW_F_CLOCK_SM_MHZ, 0), 1980, 0);
    gw_series_free(s);
}

static void test_repeated_header_and_interleaved(void **state)
{
    (void)state;
    const char *text = "timestamp, index, utilization.gpu [%]\n"
                       "2026-11-30T03:22:23.000Z, 0, 10\n"
                       "2026-11-30T03:22:23.000Z, 1, 90\n"
                       "timestamp, index, utilization.gpu [%]\n"
                       "2026-11-30T03:22:24.000Z, 1, 91\n"
                       "2026-11-30T03:22:24.000Z, 0, 11\n"
                       "\n"
                       "timestamp, utilization.gpu [%], index\n" /* a new query order */
                       "2026-11-30T03:22:25.000Z, 12, 0\n";
    gw_series *s = read_ok(text, NULL);
    assert_int_equal(s->ngpus, 2);
    assert_int_equal(s->inputs[0].rows, 5);
    assert_int_equal(s->inputs[0].rows_skipped, 0);
    assert_int_equal(s->gpus[0]->index, 0);
    assert_int_equal(s->gpus[0]->tab.n, 3);
    assert_float_equal(val(s, 0, GW_F_UTIL_GPU_PCT, 2), 12, 0);
    assert_int_equal(s->gpus[1]->index, 1);
    assert_float_equal(val(s, 1, GW_F_UTIL_GPU_PCT, 1), 91, 0);
    gw_series_free(s);
}

static void test_interleaved_by_uuid_and_bus_id(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, uuid, utilization.gpu [%]\n"
                           "1796008943, GPU-aaa, 1\n1796008943, GPU-bbb, 2\n"
                           "1796008944, GPU-aaa, 3\n1796008944, GPU-bbb, 4\n",
                           NULL);
    assert_int_equal(s->ngpus, 2);
    assert_string_equal(s->gpus[1]->uuid, "GPU-bbb");
    assert_int_equal(s->gpus[1]->index, 1); /* order of first appearance */
    assert_float_equal(val(s, 1, GW_F_UTIL_GPU_PCT, 1), 4, 0);
    gw_series_free(s);
    s = read_ok("pci.bus_id, timestamp, utilization.gpu [%]\n"
                "00000000:01:00.0, 1796008943, 5\n00000000:02:00.0, 1796008943, 6\n",
                NULL);
    assert_int_equal(s->ngpus, 2);
    assert_string_equal(s->gpus[0]->pci_bus_id, "00000000:01:00.0");
    gw_series_free(s);
}

static void test_bad_rows_counted(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, utilization.gpu [%], memory.used [MiB]\n"
                           "2026-11-30T03:22:23.000Z, 10, 100\n"
                           "not a time, 10, 100\n"          /* line 3 */
                           "2026-11-30T03:22:24.000Z, 10\n" /* truncated row */
                           "2026-11-30T03:22:25.000Z, ten, 100\n"
                           "2026-11-30T03:22:26.000Z, 20, 200\n",
                           NULL);
    assert_int_equal(s->inputs[0].rows, 2);
    assert_int_equal(s->inputs[0].rows_skipped, 3);
    assert_int_equal(s->inputs[0].first_bad_line, 3);
    assert_int_equal(s->gpus[0]->tab.n, 2);
    gw_series_free(s);
}

static void test_no_readable_rows_is_an_error(void **state)
{
    (void)state;
    gw_series *s;
    gw_error err = {0};
    assert_int_equal(read_text("", NULL, &s, &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "/tmp/gwtest"));
    assert_non_null(strstr(err.msg, "empty"));
    gw_series_free(s);
    assert_int_equal(read_text("timestamp, utilization.gpu [%]\n", NULL, &s, &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "no readable rows"));
    gw_series_free(s);
    assert_int_equal(read_text("timestamp, utilization.gpu [%]\nx, 1\ny, 2\n", NULL, &s, &err),
                     GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "first at line 2"));
    gw_series_free(s);
    s = gw_series_new();
    assert_int_equal(gw_logread_input(s, "/nonexistent/gpu.csv", NULL, &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "/nonexistent/gpu.csv"));
    gw_series_free(s);
}

/* A thread that refuses local times (the report's second reading thread, nvsmi_pipe.c) leaves a
 * timestamp without a zone unread, so that only the reader converts local times, in the file's
 * order (the hour that repeats when daylight saving time ends reads as mktime's guess, which
 * follows the conversions made before it); zoned and unix times it reads as before. */
static void *refusing_thread(void *arg)
{
    int64_t *out = arg;
    gw_timeparse_refuse_local(true);
    out[0] = (int64_t)gw_timeparse("2026/11/01 01:30:00.000", &out[1]);
    out[2] = (int64_t)gw_timeparse("Sun Nov  1 01:30:00 2026", &out[3]);
    out[4] = (int64_t)gw_timeparse("2026-11-01T05:30:00.250Z", &out[5]);
    out[6] = (int64_t)gw_timeparse("2026-11-01 01:30:00-04:00", &out[7]);
    out[8] = (int64_t)gw_timeparse("Sun Nov  1 05:30:00 UTC 2026", &out[9]);
    out[10] = (int64_t)gw_timeparse("1793511000", &out[11]);
    return NULL;
}

static void test_timeparse_refuse_local(void **state)
{
    (void)state;
    int64_t r[12] = {0, -1, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, refusing_thread, r), 0);
    pthread_join(t, NULL);
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], -1); /* untouched */
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], -1);
    assert_int_equal(r[4], 24);
    assert_int_equal(r[5], INT64_C(1793511000250));
    assert_int_equal(r[6], 25);
    assert_int_equal(r[7], INT64_C(1793511000000));
    assert_int_equal(r[8], 28);
    assert_int_equal(r[9], INT64_C(1793511000000));
    assert_int_equal(r[10], 10);
    assert_int_equal(r[11], INT64_C(1793511000000));
    /* this thread never refused: it reads the local time */
    int64_t ms = 0;
    assert_int_equal(gw_timeparse("2026/11/01 01:30:00.000", &ms), 23);
    assert_true(ms > 0);
}

static void test_untimed_and_reason_columns(void **state)
{
    (void)state;
    gw_logread_opts o = {.interval_s = 0.5};
    gw_series *s = read_ok("index, utilization.gpu [%], clocks_event_reasons.sw_power_cap, "
                           "clocks_event_reasons.hw_thermal_slowdown, serial, driver_version\n"
                           "0, 50, Active, Not Active, [N/A], 535.1\n"
                           "0, 60, Active, Active, [N/A], 535.1\n",
                           &o);
    assert_true(s->inputs[0].untimed);
    assert_int_equal(s->gpus[0]->tab.t_ms[1] - s->gpus[0]->tab.t_ms[0], 500);
    assert_float_equal(val(s, 0, GW_F_CLOCKS_EVENT_REASONS, 0), 0x4, 0);
    assert_float_equal(val(s, 0, GW_F_CLOCKS_EVENT_REASONS, 1), 0x44, 0);
    /* unit-less unknown columns (serial, driver_version) are not metrics */
    assert_int_equal(gw_series_table_find(&s->gpus[0]->tab, "driver_version"), -1);
    gw_series_free(s);
}

static void test_gpu_lost_cells(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, index, utilization.gpu [%]\n"
                           "1796008943, 0, 50\n1796008944, 0, [GPU is lost]\n"
                           "1796008945, 0, [GPU is lost]\n",
                           NULL);
    assert_int_equal(s->nevents, 1);
    assert_string_equal(s->events[0].type, "gpu_lost");
    assert_int_equal(s->events[0].gpu_index, 0);
    assert_int_equal(s->events[0].t_ms, INT64_C(1796008944000));
    gw_series_free(s);
}

static void test_gpm_merge(void **state)
{
    (void)state;
    char *gpu = synth_temp_file("timestamp, utilization.gpu [%]\n"
                                "1796008943.0, 100\n1796008944.0, 100\n1796008950.0, 100\n");
    char *gpm = synth_temp_file("unix_time,sm_util_pct,sm_occupancy_pct,tensor_util_pct,"
                                "dram_bw_util_pct\n"
                                "1796008943.1,0.80,1.0,0.0,2.0\n1796008943.9,90.5,50,10,40\n");
    gw_series *s = gw_series_new();
    gw_error err;
    assert_int_equal(gw_logread_input(s, gpm, NULL, &err), GW_OK); /* GPM first is fine */
    assert_int_equal(gw_logread_input(s, gpu, NULL, &err), GW_OK);
    assert_int_equal(gw_series_finish(s, &err), GW_OK);
    assert_int_equal(s->inputs[0].kind, GW_INPUT_GPM_CSV);
    assert_float_equal(val(s, 0, GW_F_GPM_SM_ACTIVE_PCT, 0), 0.8, 1e-9);
    assert_float_equal(val(s, 0, GW_F_GPM_SM_ACTIVE_PCT, 1), 90.5, 1e-9); /* nearest */
    assert_true(isnan(val(s, 0, GW_F_GPM_SM_ACTIVE_PCT, 2)));             /* 6 s away */
    assert_float_equal(val(s, 0, GW_F_GPM_DRAM_ACTIVE_PCT, 1), 40, 1e-9);
    gw_series_free(s);
    /* a GPM file that overlaps no GPU is an error naming it */
    char *far = synth_temp_file("unix_time,sm_util_pct\n1700000000.0,5\n");
    s = gw_series_new();
    assert_int_equal(gw_logread_input(s, gpu, NULL, &err), GW_OK);
    assert_int_equal(gw_logread_input(s, far, NULL, &err), GW_OK);
    assert_int_equal(gw_series_finish(s, &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, far));
    gw_series_free(s);
    unlink(gpu);
    unlink(gpm);
    unlink(far);
    free(gpu);
    free(gpm);
    free(far);
}

static void test_train_log(void **state)
{
    (void)state;
    char *log = synth_temp_file("python train.py\n"
                                "1796008616.317 epoch 1/4 start\n"
                                "1796008618.374 train step 20 loss 5.3887\n"
                                "1796008630.415 epoch 1/4 validation+checkpoint\n"
                                "[2026-11-30T03:17:14.599Z] epoch 2/4 start\r"
                                "2026-11-30T03:17:15.000Z progress\n"
                                "1796008689.240 done\n");
    gw_series *s = gw_series_new();
    gw_epoch_matcher *m;
    gw_error err;
    assert_int_equal(gw_epoch_matcher_new(NULL, &m, &err), GW_OK);
    assert_int_equal(gw_logread_train_log(s, log, m, &err), GW_OK);
    assert_int_equal(s->inputs[0].rows, 6);
    assert_int_equal(s->nevents, 3); /* epoch 1, epoch 2, log_end */
    assert_int_equal(s->events[0].epoch, 1);
    assert_int_equal(s->events[0].total, 4);
    assert_int_equal(s->events[0].t_ms, INT64_C(1796008616317));
    assert_int_equal(s->events[1].epoch, 2);
    assert_int_equal(s->events[1].t_ms, INT64_C(1796008634599));
    assert_string_equal(s->events[2].type, "log_end");
    assert_int_equal(s->events[2].t_ms, INT64_C(1796008689240));
    gw_series_free(s);
    char *untimed = synth_temp_file("Epoch 1/3\nEpoch 2/3\n");
    s = gw_series_new();
    assert_int_equal(gw_logread_train_log(s, untimed, m, &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "starts with a time"));
    gw_series_free(s);
    gw_epoch_matcher_free(m);
    unlink(log);
    unlink(untimed);
    free(log);
    free(untimed);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_run_dir(void **state)
{
    (void)state;
    char dir[] = "/tmp/gwrunXXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "meta.json",
               "{\"host\": \"node7\", \"devices\": [{\"index\": 0, \"name\": \"NVIDIA H200\", "
               "\"uuid\": \"GPU-1\", \"memory_total_mib\": 143771, \"power_limit_w\": 700, "
               "\"slowdown_temp_c\": 89}]}");
    write_file(dir, "gpu.csv",
               "timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
               "memory.total [MiB], temperature.gpu, power.draw [W], power.limit [W], "
               "clocks.current.sm [MHz], clocks_event_reasons.active, pstate, gpm.sm_active [%], "
               "gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%]\n"
               "2026-11-30T03:22:23.578Z, 0, 98, 40, 20000, 143771, 70, 650.00, 700.00, 1980, "
               "0x0000000000000000, P0, 90.0, 40.0, , 30.0\n");
    write_file(dir, "host.csv",
               "timestamp, cpu.util [%], memory.used [MiB], job.cpu [%], "
               "job.rss [MiB], job.processes\n"
               "2026-11-30T03:22:23.578Z, 50.5, 1000, 190, 800, 3\n");
    write_file(dir, "processes.csv",
               "timestamp, index, pid, process_name, used_memory [MiB], "
               "in_job\n"
               "2026-11-30T03:22:23.578Z, 0, 4242, python3, 19000, 1\n");
    write_file(dir, "events.jsonl",
               "{\"timestamp\": \"2026-11-30T03:22:23.000Z\", \"type\": \"job_start\"}\n"
               "{\"timestamp\": \"2026-11-30T03:22:24.000Z\", \"type\": \"epoch\", \"epoch\": 2, "
               "\"total\": 5, \"line\": \"Epoch 2/5\"}\n"
               "not json\n");
    gw_series *s = gw_series_new();
    gw_error err;
    assert_int_equal(gw_logread_input(s, dir, NULL, &err), GW_OK);
    assert_int_equal(gw_series_finish(s, &err), GW_OK);
    assert_int_equal(s->ngpus, 1);
    assert_string_equal(s->gpus[0]->source, "node7");
    assert_string_equal(s->gpus[0]->uuid, "GPU-1");
    assert_float_equal(s->gpus[0]->slowdown_temp_c, 89, 0);
    const double *tensor = gw_series_gpu_values(s->gpus[0], GW_F_GPM_TENSOR_ACTIVE_PCT);
    assert_true(tensor == NULL || isnan(tensor[0])); /* the empty cell is absent */
    assert_float_equal(val(s, 0, GW_F_GPM_DRAM_ACTIVE_PCT, 0), 30, 0);
    assert_int_equal(s->nhosts, 1);
    long c = gw_series_table_find(&s->hosts[0]->tab, "job.processes");
    assert_true(c >= 0);
    assert_float_equal(s->hosts[0]->tab.cols[c].v[0], 3, 0);
    assert_int_equal(s->nprocs, 1);
    assert_int_equal(s->procs[0].pid, 4242);
    assert_string_equal(s->procs[0].name, "python3");
    assert_int_equal(s->procs[0].in_job, 1);
    assert_int_equal(s->nevents, 2);
    assert_int_equal(s->events[1].epoch, 2);
    assert_int_equal(s->events[1].total, 5);
    /* the bad events line is counted against events.jsonl */
    bool counted = false;
    for (size_t i = 0; i < s->ninputs; i++)
        if (strstr(s->inputs[i].path, "events.jsonl"))
            counted = s->inputs[i].rows_skipped == 1 && s->inputs[i].first_bad_line == 3;
    assert_true(counted);
    gw_series_free(s);
    assert_int_equal(synth_remove_dir(dir), 0);
}

/* Found by fuzz/run.sh: a reasons mask beyond 64 bits, negative or fractional masks, and JSON
 * ids no int can hold must read and analyse without undefined behaviour (UBSan build). */
static void test_fuzz_regressions(void **state)
{
    (void)state;
    gw_series *s = read_ok("timestamp, utilization.gpu [%], clocks_event_reasons.active\n"
                           "1796008943, 100, 0x0000007777777777777777777777777777777777770001\n"
                           "1796008944, 100, -5\n1796008945, 100, 2.5\n1796008946, 100, 0x40\n",
                           NULL);
    gw_analysis *a = gw_analyze(s);
    assert_int_equal(a->gpus[0].whole.time_s[GW_TIME_THERMAL], 1); /* only the real 0x40 */
    gw_analysis_free(a);
    gw_series_free(s);

    char dir[] = "/tmp/gwfuzzXXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "gpu.csv", "timestamp, index, utilization.gpu [%]\n1796008943, 0, 50\n");
    write_file(dir, "meta.json", "{\"devices\": [{\"index\": 1e300}]}");
    write_file(dir, "events.jsonl",
               "{\"timestamp\": \"2026-11-30T03:22:23Z\", \"type\": \"gpu_lost\", "
               "\"gpu\": -1e300, \"epoch\": 1e40}\n");
    write_file(dir, "processes.csv",
               "timestamp, index, pid, in_job\n"
               "2026-11-30T03:22:23Z, 1e200, 1e200, 1e200\n"
               "2026-11-30T03:22:23Z, 0, 1e200, 1\n");
    s = gw_series_new();
    gw_error err;
    assert_int_equal(gw_logread_input(s, dir, NULL, &err), GW_OK);
    assert_int_equal(gw_series_finish(s, &err), GW_OK);
    assert_int_equal(s->events[0].gpu_index, -1);
    assert_int_equal(s->events[0].epoch, -1);
    assert_int_equal(s->nprocs, 1); /* the row with index 1e200 is skipped */
    assert_int_equal(s->procs[0].pid, -1);
    a = gw_analyze(s);
    gw_analysis_free(a);
    gw_series_free(s);
    assert_int_equal(synth_remove_dir(dir), 0);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_timeparse_refuse_local),
        cmocka_unit_test(test_units_in_values),
        cmocka_unit_test(test_units_in_header_and_conversion),
        cmocka_unit_test(test_noheader_with_columns),
        cmocka_unit_test(test_absent_markers),
        cmocka_unit_test(test_repeated_header_and_interleaved),
        cmocka_unit_test(test_interleaved_by_uuid_and_bus_id),
        cmocka_unit_test(test_bad_rows_counted),
        cmocka_unit_test(test_no_readable_rows_is_an_error),
        cmocka_unit_test(test_untimed_and_reason_columns),
        cmocka_unit_test(test_gpu_lost_cells),
        cmocka_unit_test(test_gpm_merge),
        cmocka_unit_test(test_train_log),
        cmocka_unit_test(test_run_dir),
        cmocka_unit_test(test_fuzz_regressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

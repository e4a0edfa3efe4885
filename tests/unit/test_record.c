/* Unit tests for src/record: CSV files and sink, run directories, events.jsonl, meta.json. */
#include "test_helpers.h"

#include "record/csv_file.h"
#include "record/csv_sink.h"
#include "record/eventlog.h"
#include "record/meta.h"
#include "record/rundir.h"
#include "sampler/sample.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <errno.h>
#include <signal.h>

static void test_gpu_header(void **state)
{
    (void)state;
    /* The spec's columns in the spec's order, then extras. */
    const char *want = "timestamp, index, utilization.gpu [%], utilization.memory [%], "
                       "memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W], "
                       "power.limit [W], clocks.current.sm [MHz], clocks_event_reasons.active, "
                       "pstate, gpm.sm_active [%], gpm.sm_occupancy [%], gpm.tensor_active [%], "
                       "gpm.dram_active [%], ";
    assert_memory_equal(gw_csv_gpu_header(), want, strlen(want));
    const char *h = gw_csv_gpu_header();
    assert_int_equal(h[strlen(h) - 1], '\n');
}

static void test_field_format(void **state)
{
    (void)state;
    char b[64];
    gw_field_format_csv(GW_F_MEM_USED_BYTES, 20000.0 * 1048576, b, sizeof b);
    assert_string_equal(b, "20000");
    gw_field_format_csv(GW_F_MEM_USED_BYTES, 13936427008.0, b, sizeof b);
    assert_string_equal(b, "13291"); /* 13290.81 MiB: rounded up, as nvidia-smi showed */
    gw_field_format_csv(GW_F_MEM_USED_BYTES, 0, b, sizeof b);
    assert_string_equal(b, "0");
    gw_field_format_csv(GW_F_POWER_DRAW_MW, 650123, b, sizeof b);
    assert_string_equal(b, "650.12");
    gw_field_format_csv(GW_F_CLOCKS_EVENT_REASONS, 1, b, sizeof b);
    assert_string_equal(b, "0x0000000000000001");
    gw_field_format_csv(GW_F_PSTATE, 0, b, sizeof b);
    assert_string_equal(b, "P0");
    gw_field_format_csv(GW_F_GPM_SM_ACTIVE_PCT, 0.8, b, sizeof b);
    assert_string_equal(b, "0.80");
    gw_field_format_csv(GW_F_UTIL_GPU_PCT, 98, b, sizeof b);
    assert_string_equal(b, "98");
}

static void test_csv_file_flush_policy(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/x.csv", dir);
    gw_csv_file f;
    gw_error err = {0};
    assert_int_equal(gw_csv_file_open(&f, path, "a, b\n", &err), GW_OK);
    const int64_t s = INT64_C(1000000000);
    /* 0.3 s interval: rows are held while the oldest would wait < 1 s. */
    gw_csv_file_row(&f, "1, 2\n", 5, 0, s * 3 / 10);
    char *txt = th_read(path);
    assert_string_equal(txt, "a, b\n");
    free(txt);
    gw_csv_file_row(&f, "3, 4\n", 5, s * 3 / 10, s * 6 / 10);
    gw_csv_file_row(&f, "5, 6\n", 5, s * 6 / 10, s * 9 / 10);
    txt = th_read(path);
    assert_string_equal(txt, "a, b\n");
    free(txt);
    /* the next expected row (1.2 s) would make the oldest (0 s) wait >= 1 s: flush now */
    gw_csv_file_row(&f, "7, 8\n", 5, s * 9 / 10, s * 12 / 10);
    txt = th_read(path);
    assert_string_equal(txt, "a, b\n1, 2\n3, 4\n5, 6\n7, 8\n");
    free(txt);
    /* a refused overwrite */
    gw_csv_file g;
    assert_int_equal(gw_csv_file_open(&g, path, "x\n", &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "x.csv"));
    gw_csv_file_close(&f);
    th_rmrf(dir);
    free(dir);
}

/* With a full disk (simulated by RLIMIT_FSIZE in a child), rows already written stay whole. */
static void test_csv_file_disk_full(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/full.csv", dir);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {.rlim_cur = 100, .rlim_max = 100};
        setrlimit(RLIMIT_FSIZE, &rl);
        gw_csv_file f;
        gw_error err = {0};
        if (gw_csv_file_open(&f, path, "h\n", &err))
            _exit(2);
        for (int i = 0; i < 40; i++) /* 40 rows of 10 bytes, flushed each time */
            gw_csv_file_row(&f, "123456789\n", 10, 0, INT64_C(2000000000));
        int e = f.err_no;
        gw_csv_file_close(&f);
        _exit(e == EFBIG ? 0 : 3);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *txt = th_read(path);
    size_t n = strlen(txt);
    assert_true(n <= 100);
    assert_int_equal(txt[n - 1], '\n'); /* no partial row */
    assert_int_equal((n - 2) % 10, 0);
    free(txt);
    th_rmrf(dir);
    free(dir);
}

static void test_rundir(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char req[1100], *out = NULL;
    gw_error err = {0};
    snprintf(req, sizeof req, "%s/a/b/run1", dir);
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &err), GW_OK);
    assert_string_equal(out, req);
    free(out);
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &err), GW_E_EXISTS);
    assert_null(out);
    assert_non_null(strstr(err.msg, "already exists"));
    /* default names, with a suffix when taken */
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    int64_t t = INT64_C(1796008943578);
    assert_int_equal(gw_rundir_create(NULL, "train", t, &out, &err), GW_OK);
    assert_string_equal(out, "runs/20261130-032223-train");
    free(out);
    assert_int_equal(gw_rundir_create(NULL, "train", t, &out, &err), GW_OK);
    assert_string_equal(out, "runs/20261130-032223-train-2");
    free(out);
    assert_int_equal(chdir(cwd), 0);
    th_rmrf(dir);
    free(dir);
}

static void test_name_hint(void **state)
{
    (void)state;
    char *a1[] = {"python3", "-u", "examples/train_resnet.py", "--epochs", "3"};
    char *h = gw_rundir_name_hint(5, a1);
    assert_string_equal(h, "train_resnet");
    free(h);
    char *a2[] = {"/usr/bin/nvidia-smi"};
    h = gw_rundir_name_hint(1, a2);
    assert_string_equal(h, "nvidia-smi");
    free(h);
    char *a3[] = {"bash", "run me.sh"};
    h = gw_rundir_name_hint(2, a3);
    assert_string_equal(h, "run_me");
    free(h);
    char *a4[] = {"python3", "-c", "print(1)"};
    h = gw_rundir_name_hint(3, a4);
    assert_string_equal(h, "python3");
    free(h);
    char *a5[] = {"python", "-m", "torch.distributed.run", "train.py"};
    h = gw_rundir_name_hint(4, a5);
    assert_string_equal(h, "torch.distributed.run");
    free(h);
}

static void test_eventlog_concurrent(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    enum { WRITERS = 4, LINES = 200 };
    for (int w = 0; w < WRITERS; w++) {
        if (fork() == 0) {
            for (int i = 0; i < LINES; i++) {
                char pad[300];
                memset(pad, 'a' + w, sizeof pad - 1);
                pad[sizeof pad - 1] = '\0';
                gw_event_field fields[] = {{.key = "writer", .type = GW_EVV_NUMBER, .num = w},
                                           {.key = "i", .type = GW_EVV_NUMBER, .num = i}};
                gw_event ev = gw_event_make(GW_EV_MARK, 0);
                ev.mark.text = pad;
                ev.mark.fields = fields;
                ev.mark.nfields = 2;
                gw_error err = {0};
                if (gw_eventlog_append(path, &ev, &err))
                    _exit(1);
            }
            _exit(0);
        }
    }
    for (int w = 0; w < WRITERS; w++) {
        int st;
        wait(&st);
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    char *txt = th_read(path);
    int lines = 0;
    for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o); /* every line is whole */
        cJSON_Delete(o);
        lines++;
    }
    assert_int_equal(lines, WRITERS * LINES);
    free(txt);
    th_rmrf(dir);
    free(dir);
}

static void test_meta(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    gw_device_info dev = {.index = 0,
                          .name = "NVIDIA H200",
                          .uuid = "GPU-1",
                          .pci_bus_id = "00000000:00:06.0",
                          .memory_total_mib = 143771,
                          .power_limit_w = 700,
                          .slowdown_temp_c = NAN,
                          .max_sm_clock_mhz = 1980};
    char *argv[] = {"python3", "train.py"};
    gw_meta m = {.mode = "run",
                 .argc = 2,
                 .argv = argv,
                 .devices = &dev,
                 .device_count = 1,
                 .interval_ms = 500,
                 .start_wall_ms = INT64_C(1796008943578),
                 .job_pid = 42,
                 .exit_code = -1};
    gw_error err = {0};
    assert_int_equal(gw_meta_write(dir, &m, &err), GW_OK);
    char path[1100];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    char *txt = th_read(path);
    cJSON *o = cJSON_Parse(txt);
    assert_non_null(o);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "end_time")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "exit")));
    assert_string_equal(cJSON_GetObjectItem(o, "start_time")->valuestring,
                        "2026-11-30T03:22:23.578Z");
    cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "devices"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(d0, "slowdown_temp_c"))); /* absent, not 0 */
    assert_int_equal(cJSON_GetObjectItem(d0, "memory_total_mib")->valueint, 143771);
    cJSON_Delete(o);
    free(txt);
    m.end_wall_ms = m.start_wall_ms + 5000;
    m.exit_signal = 9;
    assert_int_equal(gw_meta_write(dir, &m, &err), GW_OK);
    txt = th_read(path);
    o = cJSON_Parse(txt);
    cJSON *ex = cJSON_GetObjectItem(o, "exit");
    assert_int_equal(cJSON_GetObjectItem(ex, "status")->valueint, 137);
    assert_int_equal(cJSON_GetObjectItem(ex, "signal")->valueint, 9);
    cJSON_Delete(o);
    free(txt);
    th_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_header),
        cmocka_unit_test(test_field_format),
        cmocka_unit_test(test_csv_file_flush_policy),
        cmocka_unit_test(test_csv_file_disk_full),
        cmocka_unit_test(test_rundir),
        cmocka_unit_test(test_name_hint),
        cmocka_unit_test(test_eventlog_concurrent),
        cmocka_unit_test(test_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

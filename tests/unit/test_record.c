/* Unit tests for src/record: CSV files and sink, run directories, events.jsonl, meta.json. */
#include "test_helpers.h"

#include "record/csv_file.h"
#include "record/csv_sink.h"
#include "record/eventlog.h"
#include "record/meta.h"
#include "record/rundir.h"
#include "sampler/sample.h"
#include "util/gw_file.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
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
    gw_field_format_csv(GW_F_MEM_USED_MIB, 20000.0, b, sizeof b);
    assert_string_equal(b, "20000");
    gw_field_format_csv(GW_F_MEM_USED_MIB, gw_field_from_nvml(GW_F_MEM_USED_MIB, 13936427008.0), b,
                        sizeof b);
    assert_string_equal(b, "13291"); /* 13290.81 MiB: rounded up, as nvidia-smi showed */
    gw_field_format_csv(GW_F_MEM_USED_MIB, 0, b, sizeof b);
    assert_string_equal(b, "0");
    gw_field_format_csv(GW_F_POWER_DRAW_W, gw_field_from_nvml(GW_F_POWER_DRAW_W, 650123), b,
                        sizeof b); /* NVML reports mW */
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
/* A mark event with text at wall_ms. */
static gw_event gw_mark_event_for_test(const char *text, int64_t wall_ms)
{
    gw_event ev = gw_event_make(GW_EV_MARK, wall_ms);
    ev.mark.text = text;
    ev.mark.pid = 1;
    return ev;
}

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

static void test_eventlog_full_disk_leaves_no_torn_line(void **state)
{
    (void)state;
    /* A write cut short left a partial line; the next event (job_exit) was glued to it and lost
     * (issue 26). Now the partial line is taken back, and a later event that fits is whole. */
    char *dir = th_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        gw_eventlog *log = NULL;
        gw_error err = {0};
        if (gw_eventlog_open(path, &log, &err))
            _exit(2);
        struct rlimit rl = {.rlim_cur = 400, .rlim_max = 400};
        setrlimit(RLIMIT_FSIZE, &rl);
        char big[600];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        gw_event ev = gw_mark_event_for_test("first", 1);
        bool ok1 = gw_eventlog_write(log, &ev);
        ev = gw_mark_event_for_test(big, 2); /* does not fit: cut short at 400 bytes */
        bool ok2 = gw_eventlog_write(log, &ev);
        gw_event ex = gw_event_make(GW_EV_JOB_EXIT, 3);
        ex.job_exit.code = 3;
        ex.job_exit.status = 3;
        bool ok3 = gw_eventlog_write(log, &ex); /* fits where the partial line was */
        gw_error said = {0};
        bool told = gw_eventlog_take_error(log, &said) && strstr(said.msg, "events.jsonl") &&
                    !gw_eventlog_take_error(log, &said);
        int e = gw_eventlog_errno(log);
        gw_eventlog_close(log);
        _exit(ok1 && !ok2 && ok3 && told && e == EFBIG ? 0 : 3);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *txt = th_read(path);
    char *nl = strchr(txt, '\n');
    assert_non_null(nl);
    assert_non_null(strstr(txt, "\"text\":\"first\""));
    assert_null(strstr(txt, "xxx")); /* the cut line was taken back */
    cJSON *exit_line = cJSON_Parse(nl + 1);
    assert_non_null(exit_line); /* the job's exit is a line of its own */
    assert_string_equal(cJSON_GetObjectItem(exit_line, "type")->valuestring, "job_exit");
    assert_int_equal(cJSON_GetObjectItem(exit_line, "code")->valueint, 3);
    assert_int_equal(txt[strlen(txt) - 1], '\n');
    cJSON_Delete(exit_line);
    free(txt);
    /* a FIFO planted as events.jsonl: an error at once, never a blocked open (`gpuwatch mark`) */
    unlink(path);
    assert_int_equal(mkfifo(path, 0644), 0);
    gw_eventlog *log = NULL;
    gw_error err = {0};
    assert_int_equal(gw_eventlog_open(path, &log, &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "not a regular file"));
    th_rmrf(dir);
    free(dir);
}

static void test_rundir(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char req[1100], *out = NULL;
    int fd = -1;
    gw_error err = {0};
    snprintf(req, sizeof req, "%s/a/b/run1", dir);
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_OK);
    assert_string_equal(out, req);
    assert_true(fd >= 0);
    struct stat st_fd, st_path;
    assert_int_equal(fstat(fd, &st_fd), 0);
    assert_int_equal(stat(req, &st_path), 0);
    assert_true(st_fd.st_ino == st_path.st_ino); /* the descriptor is the directory made */
    close(fd);
    free(out);
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_E_EXISTS);
    assert_null(out);
    assert_int_equal(fd, -1);
    assert_non_null(strstr(err.msg, "already exists"));
    /* default names, with a suffix when taken */
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    int64_t t = INT64_C(1796008943578);
    assert_int_equal(gw_rundir_create(NULL, "train", t, &out, &fd, &err), GW_OK);
    assert_string_equal(out, "runs/20261130-032223-train");
    close(fd);
    free(out);
    assert_int_equal(gw_rundir_create(NULL, "train", t, &out, &fd, &err), GW_OK);
    assert_string_equal(out, "runs/20261130-032223-train-2");
    close(fd);
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
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    m.incomplete = "recording";
    m.incomplete_detail = GW_META_NOT_FINALISED;
    assert_int_equal(gw_meta_write(dfd, dir, &m, &err), GW_OK);
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
    /* while recording: not complete, and why */
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "complete")));
    cJSON *inc = cJSON_GetObjectItem(o, "incomplete");
    assert_string_equal(cJSON_GetObjectItem(inc, "reason")->valuestring, "recording");
    assert_non_null(strstr(cJSON_GetObjectItem(inc, "detail")->valuestring, "killed"));
    cJSON_Delete(o);
    free(txt);
    m.end_wall_ms = m.start_wall_ms + 5000;
    m.exit_signal = 9;
    m.complete = true;
    m.incomplete = NULL;
    assert_int_equal(gw_meta_write(dfd, dir, &m, &err), GW_OK);
    txt = th_read(path);
    o = cJSON_Parse(txt);
    cJSON *ex = cJSON_GetObjectItem(o, "exit");
    assert_int_equal(cJSON_GetObjectItem(ex, "status")->valueint, 137);
    assert_int_equal(cJSON_GetObjectItem(ex, "signal")->valueint, 9);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "complete")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "incomplete")));
    cJSON_Delete(o);
    free(txt);
    /* a write error: not complete, the detail says which file */
    m.complete = false;
    m.incomplete = "write_error";
    m.incomplete_detail = "the recording ended early: gpu.csv: No space left on device";
    assert_int_equal(gw_meta_write(dfd, dir, &m, &err), GW_OK);
    txt = th_read(path);
    o = cJSON_Parse(txt);
    inc = cJSON_GetObjectItem(o, "incomplete");
    assert_string_equal(cJSON_GetObjectItem(inc, "reason")->valuestring, "write_error");
    assert_string_equal(cJSON_GetObjectItem(inc, "detail")->valuestring, m.incomplete_detail);
    cJSON_Delete(o);
    free(txt);
    close(dfd);
    th_rmrf(dir);
    free(dir);
}

/* Entries of dir whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void test_links_are_not_followed(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char victim[1100], link[1100], dangling[1100];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    th_write(dir, "victim", "root only\n");
    th_write(dir, "run/.keep", "");
    const char *names[] = {"meta.json", "summary.json", "report.html",
                           "gpu.csv",   "events.jsonl", "output.log"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(link, sizeof link, "%s/run/%s", dir, names[i]);
        assert_int_equal(symlink(victim, link), 0);
    }
    snprintf(dangling, sizeof dangling, "%s/created-through-a-link", dir);
    snprintf(link, sizeof link, "%s/run/host.csv", dir);
    assert_int_equal(symlink(dangling, link), 0);
    snprintf(link, sizeof link, "%s/run", dir);
    int dfd = open(link, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    gw_error err = {0};
    /* files that are appended to: an existing name, link or not, is an error */
    gw_csv_file f;
    assert_int_equal(gw_csv_file_open_at(&f, dfd, "gpu.csv", "run/gpu.csv", "h\n", &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "run/gpu.csv"));
    assert_int_equal(gw_csv_file_open_at(&f, dfd, "host.csv", "run/host.csv", "h\n", &err),
                     GW_E_IO);
    assert_int_equal(access(dangling, F_OK), -1); /* a dangling link creates nothing */
    gw_eventlog *log = NULL;
    assert_int_equal(gw_eventlog_create_at(dfd, "events.jsonl", "e", &log, &err), GW_E_IO);
    assert_int_equal(gw_file_create_at(dfd, "output.log", O_APPEND), -1);
    assert_int_equal(errno, EEXIST);
    snprintf(link, sizeof link, "%s/run/events.jsonl", dir);
    assert_int_equal(gw_eventlog_open(link, &log, &err), GW_E_IO); /* `gpuwatch mark` */
    /* files replaced whole: the link is replaced by the new file, its target untouched */
    gw_meta m = {.mode = "record", .interval_ms = 1000, .exit_code = -1};
    assert_int_equal(gw_meta_write(dfd, "run", &m, &err), GW_OK);
    gw_file_out o;
    assert_int_equal(gw_file_out_open_at(&o, dfd, "summary.json", "run/summary.json", &err), GW_OK);
    fputs("{}\n", o.f);
    assert_int_equal(gw_file_out_commit(&o, &err), GW_OK);
    char *txt = th_read(victim);
    assert_string_equal(txt, "root only\n");
    free(txt);
    struct stat st;
    snprintf(link, sizeof link, "%s/run/meta.json", dir);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    snprintf(link, sizeof link, "%s/run/summary.json", dir);
    txt = th_read(link);
    assert_string_equal(txt, "{}\n");
    free(txt);
    snprintf(link, sizeof link, "%s/run", dir);
    assert_int_equal(count_prefixed(link, ".summary.json."), 0); /* no temporary file left */
    close(dfd);
    th_rmrf(dir);
    free(dir);
}

static void test_file_out_full_disk_keeps_the_old_file(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    th_write(dir, "summary.json", "old\n");
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {.rlim_cur = 1000, .rlim_max = 1000};
        setrlimit(RLIMIT_FSIZE, &rl);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        gw_file_out o;
        gw_error err = {0};
        if (gw_file_out_open_at(&o, dfd, "summary.json", "d/summary.json", &err))
            _exit(2);
        for (int i = 0; i < 100; i++)
            fputs("0123456789012345678901234567890123456789\n", o.f);
        if (gw_file_out_commit(&o, &err) != GW_E_IO)
            _exit(3);
        bool named = strstr(err.msg, "d/summary.json") && strstr(err.msg, "File too large") &&
                     strstr(err.msg, "partial file was removed");
        _exit(named ? 0 : 4);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char path[1100];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *txt = th_read(path);
    assert_string_equal(txt, "old\n"); /* the old file stays whole */
    free(txt);
    assert_int_equal(count_prefixed(dir, ".summary.json."), 0);
    th_rmrf(dir);
    free(dir);
}

static void test_file_mode_under_umask_000(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    mode_t old = umask(0);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    int fd = gw_file_create_at(dfd, "a.csv", O_APPEND);
    assert_true(fd >= 0);
    close(fd);
    gw_file_out o;
    gw_error err = {0};
    assert_int_equal(gw_file_out_open_at(&o, dfd, "b.html", "b.html", &err), GW_OK);
    assert_int_equal(gw_file_out_commit(&o, &err), GW_OK);
    char path[1100];
    snprintf(path, sizeof path, "%s/c.json", dir);
    assert_int_equal(gw_file_out_open_path(&o, path, &err), GW_OK);
    assert_int_equal(gw_file_out_commit(&o, &err), GW_OK);
    umask(old);
    const char *names[] = {"a.csv", "b.html", "c.json"};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        assert_int_equal(fstatat(dfd, names[i], &st, 0), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
    }
    close(dfd);
    th_rmrf(dir);
    free(dir);
}

static void test_rundir_parent_others_can_swap(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char shared[1100], req[1200], *out = NULL;
    int fd = -1;
    gw_error err = {0};
    snprintf(shared, sizeof shared, "%s/shared", dir);
    assert_int_equal(mkdir(shared, 0755), 0);
    assert_int_equal(chmod(shared, 0777), 0); /* everyone may rename entries there */
    snprintf(req, sizeof req, "%s/run", shared);
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "every user may write there"));
    assert_non_null(strstr(err.msg, "chmod +t"));
    assert_int_equal(access(req, F_OK), -1);   /* nothing made */
    assert_int_equal(chmod(shared, 01777), 0); /* sticky, as /tmp: accepted */
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_OK);
    close(fd);
    free(out);
    if (geteuid() == 0) { /* a directory of another user (root may make one) */
        snprintf(shared, sizeof shared, "%s/bobs", dir);
        assert_int_equal(mkdir(shared, 0755), 0);
        assert_int_equal(chown(shared, 4242, 4242), 0);
        snprintf(req, sizeof req, "%s/run", shared);
        assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_E_IO);
        assert_non_null(strstr(err.msg, "uid 4242"));
        assert_non_null(strstr(err.msg, "choose a directory you own"));
        assert_int_equal(access(req, F_OK), -1);
        /* sticky does not help against its owner, who may rename every entry (issue 26) */
        snprintf(shared, sizeof shared, "%s/bobs_sticky", dir);
        assert_int_equal(mkdir(shared, 0755), 0);
        assert_int_equal(chmod(shared, 01777), 0);
        assert_int_equal(chown(shared, 4242, 4242), 0);
        snprintf(req, sizeof req, "%s/run", shared);
        assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_E_IO);
        assert_non_null(strstr(err.msg, "uid 4242"));
        assert_non_null(strstr(err.msg, "sticky or not"));
        assert_int_equal(access(req, F_OK), -1);
    }
    th_rmrf(dir);
    free(dir);
}

static void test_rundir_removed_after_a_failed_start(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char req[1100], *out = NULL;
    int fd = -1;
    gw_error err = {0};
    snprintf(req, sizeof req, "%s/run", dir);
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_OK);
    gw_csv_sink *cs = NULL;
    assert_int_equal(gw_csv_sink_open(fd, out, 1000, &cs, &err), GW_OK);
    gw_csv_sink_close(cs);
    assert_true(gw_rundir_remove_new(fd, out));
    close(fd);
    free(out);
    assert_int_equal(access(req, F_OK), -1);
    /* the retry gets the name */
    assert_int_equal(gw_rundir_create(req, "x", 0, &out, &fd, &err), GW_OK);
    /* something that is not ours stays, and so does the directory */
    th_write(dir, "run/notes.txt", "mine");
    assert_false(gw_rundir_remove_new(fd, out));
    close(fd);
    free(out);
    assert_int_equal(access(req, F_OK), 0);
    th_rmrf(dir);
    free(dir);
}

static void test_file_out_user_paths(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char path[1100], link[1100];
    gw_file_out o;
    gw_error err = {0};
    /* a link of your own is followed: the file it points to is replaced, the link stays */
    th_write(dir, "real.html", "old");
    snprintf(path, sizeof path, "%s/real.html", dir);
    snprintf(link, sizeof link, "%s/mine.html", dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(gw_file_out_open_path(&o, link, &err), GW_OK);
    fputs("new", o.f);
    assert_int_equal(gw_file_out_commit(&o, &err), GW_OK);
    char *txt = th_read(path);
    assert_string_equal(txt, "new");
    free(txt);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    if (geteuid() == 0) { /* another user's link is replaced, its target untouched */
        assert_int_equal(lchown(link, 4242, 4242), 0);
        assert_int_equal(gw_file_out_open_path(&o, link, &err), GW_OK);
        fputs("newer", o.f);
        assert_int_equal(gw_file_out_commit(&o, &err), GW_OK);
        txt = th_read(path);
        assert_string_equal(txt, "new");
        free(txt);
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISREG(st.st_mode));
    }
    /* a device is written in place */
    assert_int_equal(gw_file_out_open_path(&o, "/dev/null", &err), GW_OK);
    assert_true(o.direct);
    fputs("x", o.f);
    assert_int_equal(gw_file_out_commit(&o, &err), GW_OK);
    /* a directory is no file name */
    snprintf(path, sizeof path, "%s/", dir);
    assert_int_equal(gw_file_out_open_path(&o, path, &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "give a file name"));
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
        cmocka_unit_test(test_eventlog_full_disk_leaves_no_torn_line),
        cmocka_unit_test(test_meta),
        cmocka_unit_test(test_links_are_not_followed),
        cmocka_unit_test(test_file_out_full_disk_keeps_the_old_file),
        cmocka_unit_test(test_file_mode_under_umask_000),
        cmocka_unit_test(test_file_out_user_paths),
        cmocka_unit_test(test_rundir_parent_others_can_swap),
        cmocka_unit_test(test_rundir_removed_after_a_failed_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

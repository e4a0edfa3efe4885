/* Unit tests for src/stall (the job_stalled detector) and src/host/proc_wait.c, fed with
 * synthetic samples every 0.5 s and a fake /proc tree. */
#include "test_helpers.h"

#include "host/proc_wait.h"
#include "record/eventlog.h"
#include "stall/stall.h"

#include <math.h>
#include <sys/syscall.h>

#define T0_NS    INT64_C(1000000000000)
#define WALL0_MS INT64_C(1800000000000)
#define TICK_NS  INT64_C(500000000)

typedef struct rig {
    gw_events *bus;
    gw_stall *st;
    gw_sink sink;
    cJSON *events; /* copies of every event emitted */
    gw_gpu_sample gpus[2];
    gw_gpu_process procs[2];
    gw_sample smp;
    int64_t now_ns;
} rig;

/* Keeps each event as events.jsonl would hold it (the writer's JSON). */
static void keep(void *ctx, const gw_event *ev)
{
    cJSON_AddItemToArray(ctx, gw_event_to_json(ev));
}

static void rig_open(rig *r, unsigned ngpu, int64_t timeout_ms, const char *proc_root)
{
    memset(r, 0, sizeof *r);
    r->bus = gw_events_new();
    r->events = cJSON_CreateArray();
    gw_events_listen(r->bus, keep, r->events);
    gw_stall_config cfg = gw_stall_config_default(timeout_ms);
    cfg.print = false;
    cfg.proc_root = proc_root ? proc_root : "/nonexistent-proc";
    r->st = gw_stall_new(&cfg, r->bus);
    r->sink = gw_stall_as_sink(r->st);
    gw_device_info devs[2] = {{.index = 0}, {.index = 1}};
    r->sink.on_start(r->sink.ctx, devs, ngpu);
    r->smp.gpu_count = ngpu;
    r->smp.gpus = r->gpus;
    r->smp.procs = r->procs;
    r->now_ns = T0_NS;
    gw_stall_set_job(r->st, 100, 0, T0_NS);
}

static void rig_close(rig *r)
{
    gw_stall_free(r->st);
    gw_events_free(r->bus);
    cJSON_Delete(r->events);
}

static int64_t wall_of(int64_t ns)
{
    return WALL0_MS + (ns - T0_NS) / 1000000;
}

/* One tick 0.5 s after the last: GPU-Util per GPU (NAN = not readable), job CPU (% of a core). */
static void tick(rig *r, double util0, double util1, double cpu)
{
    r->now_ns += TICK_NS;
    r->smp.mono_ns = r->now_ns;
    r->smp.wall_ms = wall_of(r->now_ns);
    double util[2] = {util0, util1};
    for (unsigned i = 0; i < r->smp.gpu_count; i++) {
        r->gpus[i].valid = 0;
        if (!isnan(util[i]))
            gw_set(&r->gpus[i], GW_F_UTIL_GPU_PCT, util[i]);
    }
    r->smp.host.job_cpu_pct = cpu;
    r->smp.host.job_processes = 1;
    r->sink.on_sample(r->sink.ctx, &r->smp);
    r->smp.procs_fresh = false;
}

static void ticks(rig *r, int n, double util0, double util1, double cpu)
{
    for (int i = 0; i < n; i++)
        tick(r, util0, util1, cpu);
}

static void output(rig *r)
{
    gw_stall_note_output(r->st, r->now_ns + 1000, wall_of(r->now_ns + 1000));
}

static int count(const rig *r, const char *type)
{
    int n = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, r->events)
    {
        n += strcmp(cJSON_GetObjectItem(ev, "type")->valuestring, type) == 0;
    }
    return n;
}

static const cJSON *nth(const rig *r, int i)
{
    return cJSON_GetArrayItem(r->events, i);
}

static double num(const cJSON *ev, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(ev, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *ev, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(ev, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_fires_once_and_resolves_on_output(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 1, 10000, NULL);
    ticks(&r, 19, 0, NAN, 0.2); /* 9.5 s quiet */
    assert_int_equal(cJSON_GetArraySize(r.events), 0);
    tick(&r, 0, NAN, 0.2); /* 10 s */
    assert_int_equal(count(&r, "alert"), 1);
    const cJSON *a = nth(&r, 0);
    assert_string_equal(str(a, "rule"), "job_stalled");
    assert_string_equal(str(a, "severity"), "warning");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "gpu")));
    assert_num(num(a, "value"), 10.0, 1e-9);
    assert_num(num(a, "threshold"), 10.0, 1e-9);
    assert_num(num(a, "gpu_util_pct"), 0, 1e-9);
    assert_num(num(a, "job_cpu_pct"), 0.2, 1e-9);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "last_output")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(a, "gpus")), 1);
    ticks(&r, 20, 0, NAN, 0.2); /* still stalled: no second alert */
    assert_int_equal(count(&r, "alert"), 1);
    output(&r);
    assert_int_equal(count(&r, "alert_resolved"), 1);
    const cJSON *res = nth(&r, 1);
    assert_string_equal(str(res, "reason"), "output");
    assert_string_equal(str(a, "since"), "2027-01-15T08:00:00.000Z"); /* the job's start */
    assert_string_equal(str(res, "since"), str(a, "since"));
    assert_num(num(res, "duration_s"), 10.0, 0.01);
    assert_num(num(res, "value"), 20.0, 0.01); /* quiet from the start to the output */
    ticks(&r, 20, 0, NAN, 0.2);                /* quiet again, but for 1 us less than 10 s */
    assert_int_equal(count(&r, "alert"), 1);
    tick(&r, 0, NAN, 0.2);
    assert_int_equal(count(&r, "alert"), 2); /* a second stall is a second alert */
    assert_non_null(str(nth(&r, 2), "last_output"));
    unsigned fired, resolved;
    gw_stall_counts(r.st, &fired, &resolved);
    assert_int_equal(fired, 2);
    assert_int_equal(resolved, 1);
    rig_close(&r);
}

static void test_busy_gpu_never_stalls(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 1, 5000, NULL);
    ticks(&r, 40, 5.0, NAN, 0); /* exactly the threshold counts as work */
    assert_int_equal(cJSON_GetArraySize(r.events), 0);
    ticks(&r, 10, 4.9, NAN, 0); /* just below: idle */
    assert_int_equal(count(&r, "alert"), 1);
    ticks(&r, 1, 60, NAN, 0);
    assert_int_equal(count(&r, "alert_resolved"), 1);
    assert_string_equal(str(nth(&r, 1), "reason"), "gpu");
    rig_close(&r);
}

static void test_busy_cpu_never_stalls(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 1, 5000, NULL);
    ticks(&r, 40, 0, NAN, 5.0); /* 5 % of a core is work */
    assert_int_equal(cJSON_GetArraySize(r.events), 0);
    ticks(&r, 12, 0, NAN, 4.9);
    assert_int_equal(count(&r, "alert"), 1);
    tick(&r, 0, NAN, 100); /* one busy tick resolves at once */
    assert_int_equal(count(&r, "alert_resolved"), 1);
    assert_string_equal(str(nth(&r, 1), "reason"), "cpu");
    rig_close(&r);
}

static void test_only_the_jobs_gpus_count(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 2, 5000, NULL);
    /* Without process lists every GPU counts: GPU 1 busy (someone else's job) keeps it quiet. */
    ticks(&r, 20, 0, 90, 0);
    assert_int_equal(cJSON_GetArraySize(r.events), 0);
    /* NVML lists the job on GPU 0 only: GPU 1's work no longer counts. */
    r.procs[0] = (gw_gpu_process){.gpu = 0, .pid = 100, .in_job = true};
    r.procs[1] = (gw_gpu_process){.gpu = 1, .pid = 999, .in_job = false};
    r.smp.proc_count = 2;
    r.smp.procs_fresh = true;
    ticks(&r, 10, 0, 90, 0);
    assert_int_equal(count(&r, "alert"), 1);
    const cJSON *gpus = cJSON_GetObjectItem(nth(&r, 0), "gpus");
    assert_int_equal(cJSON_GetArraySize(gpus), 1);
    assert_int_equal(cJSON_GetArrayItem(gpus, 0)->valueint, 0);
    rig_close(&r);
}

/* GPUs named by the job's variables count from the start, whatever NVML's process lists say. */
static void test_named_gpus_count_from_the_start(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 2, 5000, NULL);
    unsigned named = 1;
    gw_stall_set_gpus(r.st, &named, 1);
    /* the job lists a process on GPU 0, busy: it is not the job's GPU; GPU 1 idle */
    r.procs[0] = (gw_gpu_process){.gpu = 0, .pid = 100, .in_job = true};
    r.smp.proc_count = 1;
    r.smp.procs_fresh = true;
    ticks(&r, 9, 90, 0, 0);
    assert_int_equal(count(&r, "alert"), 0); /* 4.5 s of 5 */
    ticks(&r, 2, 90, 0, 0);
    assert_int_equal(count(&r, "alert"), 1);
    const cJSON *gpus = cJSON_GetObjectItem(nth(&r, 0), "gpus");
    assert_int_equal(cJSON_GetArraySize(gpus), 1);
    assert_int_equal(cJSON_GetArrayItem(gpus, 0)->valueint, 1);
    assert_true(num(nth(&r, 0), "gpu_util_pct") == 0);
    /* the named GPU works again: resolved */
    tick(&r, 90, 40, 0);
    assert_int_equal(count(&r, "alert_resolved"), 1);
    assert_string_equal(str(nth(&r, 1), "reason"), "gpu");
    rig_close(&r);
}

static void test_unreadable_values_are_no_activity(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 1, 3000, NULL);
    ticks(&r, 6, NAN, NAN, NAN); /* MIG hides GPU-Util; no job CPU yet */
    assert_int_equal(count(&r, "alert"), 1);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(nth(&r, 0), "gpu_util_pct")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(nth(&r, 0), "job_cpu_pct")));
    rig_close(&r);
}

static void test_job_gone_leaves_the_alert_open(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 1, 2000, NULL);
    ticks(&r, 4, 0, NAN, 0);
    assert_int_equal(count(&r, "alert"), 1);
    for (int i = 0; i < 10; i++) { /* the tree is gone: nothing fires or resolves any more */
        r.now_ns += TICK_NS;
        r.smp.mono_ns = r.now_ns;
        r.smp.host.job_processes = 0;
        r.smp.host.job_cpu_pct = 100;
        r.sink.on_sample(r.sink.ctx, &r.smp);
    }
    assert_int_equal(cJSON_GetArraySize(r.events), 1);
    rig_close(&r);
}

static void test_no_job_no_alert(void **state)
{
    (void)state;
    rig r;
    rig_open(&r, 1, 1000, NULL);
    gw_stall_free(r.st); /* a detector whose job never started */
    gw_stall_config cfg = gw_stall_config_default(1000);
    cfg.print = false;
    r.st = gw_stall_new(&cfg, r.bus);
    r.sink = gw_stall_as_sink(r.st);
    gw_device_info dev = {.index = 0};
    r.sink.on_start(r.sink.ctx, &dev, 1);
    ticks(&r, 10, 0, NAN, 0);
    assert_int_equal(cJSON_GetArraySize(r.events), 0);
    gw_stall_set_job(NULL, 1, 0, 0); /* NULL detectors are accepted */
    gw_stall_note_output(NULL, 0, 0);
    rig_close(&r);
}

/* A process of the fake /proc: stat, comm, children, wchan, syscall (NULL: no such file). */
static void fake_proc(const char *root, int pid, int ppid, char state, const char *comm,
                      const char *children, const char *wchan, const char *syscall_text)
{
    char name[64], text[512];
    snprintf(name, sizeof name, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (%s) %c %d %d %d 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 1 0 %d 1000000 100 "
             "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
             pid, comm, state, ppid, pid, pid, 5000 + pid);
    th_write(root, name, text);
    snprintf(name, sizeof name, "%d/comm", pid);
    snprintf(text, sizeof text, "%s\n", comm);
    th_write(root, name, text);
    snprintf(name, sizeof name, "%d/task/%d/children", pid, pid);
    th_write(root, name, children);
    if (wchan) {
        snprintf(name, sizeof name, "%d/wchan", pid);
        th_write(root, name, wchan);
    }
    if (syscall_text) {
        snprintf(name, sizeof name, "%d/syscall", pid);
        th_write(root, name, syscall_text);
    }
}

static char *fake_tree(void)
{
    char *root = th_tmpdir();
    char futex[96], ppoll[96];
    snprintf(futex, sizeof futex, "%ld 0x7f 0x80 0x0 0x0 0x0 0x0 0x7ffd 0x7f3e\n", (long)SYS_futex);
    snprintf(ppoll, sizeof ppoll, "%ld 0x1 0x2 0x0 0x0 0x8 0x0 0x7ffd 0x7f3e\n", (long)SYS_ppoll);
    fake_proc(root, 100, 1, 'S', "python3", "101 102", "do_sys_poll", ppoll);
    fake_proc(root, 101, 100, 'S', "pt_data_worker", "", "futex_wait_queue", futex);
    fake_proc(root, 102, 100, 'D', "pt_data_worker", "", "nfs_wait_bit_killable", NULL);
    fake_proc(root, 200, 1, 'R', "other", "", "0", "running\n");
    return root;
}

static void test_alert_says_what_each_process_does(void **state)
{
    (void)state;
    char *root = fake_tree();
    rig r;
    rig_open(&r, 1, 1000, root);
    ticks(&r, 2, 0, NAN, 0);
    assert_int_equal(count(&r, "alert"), 1);
    const cJSON *procs = cJSON_GetObjectItem(nth(&r, 0), "processes");
    assert_int_equal(cJSON_GetArraySize(procs), 3); /* 200 is not in the job */
    assert_num(num(nth(&r, 0), "processes_total"), 3, 0);
    const char *want[3][5] = {{"python3", "S", "do_sys_poll", "ppoll", "1"},
                              {"pt_data_worker", "S", "futex_wait_queue", "futex", "100"},
                              {"pt_data_worker", "D", "nfs_wait_bit_killable", NULL, "100"}};
    for (int i = 0; i < 3; i++) {
        const cJSON *p = cJSON_GetArrayItem(procs, i);
        assert_num(num(p, "pid"), 100 + i, 0);
        assert_num(num(p, "ppid"), atof(want[i][4]), 0);
        assert_string_equal(str(p, "name"), want[i][0]);
        assert_string_equal(str(p, "state"), want[i][1]);
        assert_string_equal(str(p, "wchan"), want[i][2]);
        if (want[i][3])
            assert_string_equal(str(p, "syscall"), want[i][3]);
        else
            assert_true(cJSON_IsNull(cJSON_GetObjectItem(p, "syscall")));
    }
    rig_close(&r);
    th_rmrf(root);
    free(root);
}

static void test_proc_wait(void **state)
{
    (void)state;
    char *root = fake_tree();
    gw_proc_wait w;
    char sc[32];
    assert_true(gw_proc_wait_read(root, 101, &w));
    assert_int_equal(w.ppid, 100);
    assert_int_equal(w.state, 'S');
    assert_string_equal(w.name, "pt_data_worker");
    assert_string_equal(w.wchan, "futex_wait_queue");
    assert_int_equal(w.syscall_nr, SYS_futex);
    assert_string_equal(gw_proc_wait_syscall_text(&w, sc, sizeof sc), "futex");
    assert_true(gw_proc_wait_read(root, 200, &w)); /* running: wchan "0" and "running" */
    assert_string_equal(w.wchan, "");
    assert_int_equal(w.syscall_nr, GW_SYSCALL_RUNNING);
    assert_string_equal(gw_proc_wait_syscall_text(&w, sc, sizeof sc), "running");
    assert_true(gw_proc_wait_read(root, 102, &w)); /* no syscall file */
    assert_int_equal(w.syscall_nr, GW_SYSCALL_UNKNOWN);
    assert_string_equal(gw_proc_wait_syscall_text(&w, sc, sizeof sc), "");
    assert_false(gw_proc_wait_read(root, 999, &w));
    w.syscall_nr = 100000; /* a number the table does not know */
    assert_string_equal(gw_proc_wait_syscall_text(&w, sc, sizeof sc), "syscall 100000");
    assert_string_equal(gw_syscall_name(SYS_read), "read");
    assert_null(gw_syscall_name(-5));
    /* the real /proc: our own process is running this very code */
    assert_true(gw_proc_wait_read(NULL, getpid(), &w));
    assert_int_equal(w.state, 'R');
    th_rmrf(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fires_once_and_resolves_on_output),
        cmocka_unit_test(test_busy_gpu_never_stalls),
        cmocka_unit_test(test_busy_cpu_never_stalls),
        cmocka_unit_test(test_only_the_jobs_gpus_count),
        cmocka_unit_test(test_named_gpus_count_from_the_start),
        cmocka_unit_test(test_unreadable_values_are_no_activity),
        cmocka_unit_test(test_job_gone_leaves_the_alert_open),
        cmocka_unit_test(test_no_job_no_alert),
        cmocka_unit_test(test_alert_says_what_each_process_does),
        cmocka_unit_test(test_proc_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

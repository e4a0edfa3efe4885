/* Round trips across the module boundary between recording and reading back: a sample with known
 * values in every field goes through the real CSV sink, event log and meta.json writer, and
 * logread must give back the same values in the field's unit, up to the CSV rounding that
 * docs/run-directory.md documents ("One unit per field"). */
#include "test_helpers.h"

#include "events/events.h"
#include "logread/logread.h"
#include "query/query.h"
#include "record/csv_sink.h"
#include "record/eventlog.h"
#include "record/meta.h"
#include "sampler/sample.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

/* 2026-11-30T03:22:23.578Z and the slow read's time half a second later. */
#define T0_MS    INT64_C(1796008943578)
#define PROCS_MS (T0_MS + 500)

/* One recorded value: what the sample holds and what reading gpu.csv/host.csv must give. */
typedef struct known {
    gw_field f;
    double written;
    double read; /* in the field's unit, after the CSV rounding */
} known;

/* Every gpu.csv column. Non-integers show the rounding: MiB up to whole MiB, W and GPM % to two
 * decimals; masks, pstate, clocks, energy are exact. */
static const known gpu_known[] = {
    {GW_F_UTIL_GPU_PCT, 98, 98},
    {GW_F_UTIL_MEM_PCT, 41, 41},
    {GW_F_MEM_USED_MIB, 13290.81, 13291},
    {GW_F_MEM_TOTAL_MIB, 143771, 143771},
    {GW_F_TEMP_GPU_C, 70, 70},
    {GW_F_POWER_DRAW_W, 676.123, 676.12},
    {GW_F_POWER_LIMIT_W, 650.5, 650.5},
    {GW_F_CLOCK_SM_MHZ, 1980, 1980},
    {GW_F_CLOCKS_EVENT_REASONS, 0x24, 0x24},
    {GW_F_PSTATE, 2, 2},
    {GW_F_GPM_SM_ACTIVE_PCT, 84.678, 84.68},
    {GW_F_GPM_SM_OCCUPANCY_PCT, 40.004, 40.0},
    {GW_F_GPM_TENSOR_ACTIVE_PCT, 60.5, 60.5},
    {GW_F_GPM_DRAM_ACTIVE_PCT, 30.126, 30.13},
    {GW_F_MEM_RESERVED_MIB, 615.2, 616},
    {GW_F_CLOCK_MEM_MHZ, 2619, 2619},
    {GW_F_ENERGY_MJ, 123456789012, 123456789012},
    {GW_F_GPM_PCIE_TX_MIB_S, 1536.04, 1536.0},
    {GW_F_GPM_PCIE_RX_MIB_S, 24576.96, 24577.0},
    {GW_F_GPM_NVLINK_TX_MIB_S, 412000.44, 412000.4},
    {GW_F_GPM_NVLINK_RX_MIB_S, 0, 0},
    {GW_F_UTIL_ENC_PCT, 0, 0},
    {GW_F_UTIL_DEC_PCT, 37, 37},
};

/* Every host.csv column: cpu and job percentages and job.rss to one decimal, host memory.used
 * rounded down to whole MiB. */
static const known host_known[] = {
    {GW_F_HOST_CPU_UTIL_PCT, 37.26, 37.3},
    {GW_F_HOST_MEM_USED_MIB, 51234.9, 51234},
    {GW_F_JOB_CPU_PCT, 250.04, 250.0},
    {GW_F_JOB_RSS_MIB, 10240.56, 10240.6},
    {GW_F_JOB_PROCESSES, 5, 5},
    {GW_F_HOST_IOWAIT_PCT, 12.34, 12.3},
    {GW_F_HOST_STEAL_PCT, 0.06, 0.1},
    {GW_F_HOST_OTHERS_PCT, 3.04, 3.0},
    {GW_F_TRAIN_CPU_PCT, 99.96, 100.0},
    {GW_F_TRAIN_CPU_MAX_PCT, 99.96, 100.0},
    {GW_F_TRAIN_SATURATED, 1, 1},
    {GW_F_TRAIN_PROCESSES, 1, 1},
    {GW_F_TRAIN_RUNNING_PCT, 100, 100},
    {GW_F_TRAIN_SLEEPING_PCT, 0, 0},
    {GW_F_TRAIN_DISK_WAIT_PCT, 0, 0},
    {GW_F_WORKERS_CPU_PCT, 150.08, 150.1},
    {GW_F_WORKERS_CPU_MAX_PCT, 60.04, 60.0},
    {GW_F_WORKERS_SATURATED, 0, 0},
    {GW_F_WORKERS_PROCESSES, 3, 3},
    {GW_F_WORKERS_RUNNING_PCT, 66.67, 67},
    {GW_F_WORKERS_SLEEPING_PCT, 0, 0},
    {GW_F_WORKERS_DISK_WAIT_PCT, 33.33, 33},
    {GW_F_REST_CPU_PCT, 0, 0},
    {GW_F_REST_CPU_MAX_PCT, 0, 0},
    {GW_F_REST_SATURATED, 0, 0},
    {GW_F_REST_PROCESSES, 1, 1},
    {GW_F_REST_RUNNING_PCT, 0, 0},
    {GW_F_REST_SLEEPING_PCT, 100, 100},
    {GW_F_REST_DISK_WAIT_PCT, 0, 0},
};

/* The member of h that host field f is. */
static double *host_slot(gw_host_sample *h, gw_field f)
{
    switch (f) {
    case GW_F_HOST_CPU_UTIL_PCT:
        return &h->cpu_util_pct;
    case GW_F_HOST_MEM_USED_MIB:
        return &h->mem_used_mib;
    case GW_F_JOB_CPU_PCT:
        return &h->job_cpu_pct;
    case GW_F_JOB_RSS_MIB:
        return &h->job_rss_mib;
    case GW_F_JOB_PROCESSES:
        return &h->job_processes;
    case GW_F_HOST_IOWAIT_PCT:
        return &h->iowait_pct;
    case GW_F_HOST_STEAL_PCT:
        return &h->steal_pct;
    case GW_F_HOST_OTHERS_PCT:
        return &h->others_pct;
    default:
        break;
    }
    gw_role_sample *r = &h->role[(f - GW_F_ROLE_FIRST) / GW_F_ROLE_FIELDS];
    double *slots[GW_F_ROLE_FIELDS] = {&r->cpu_pct,      &r->cpu_max_pct, &r->saturated,
                                       &r->processes,    &r->running_pct, &r->sleeping_pct,
                                       &r->disk_wait_pct};
    return slots[(f - GW_F_ROLE_FIRST) % GW_F_ROLE_FIELDS];
}

static const known *find_known(const known *k, size_t n, int f)
{
    for (size_t i = 0; i < n; i++)
        if ((int)k[i].f == f)
            return &k[i];
    return NULL;
}

/* True when `header` (a CSV header line) has a column named exactly `name`. */
static bool has_column(const char *header, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = header; (p = strstr(p, name)) != NULL; p += n) {
        bool starts = p == header || (p >= header + 2 && p[-2] == ',' && p[-1] == ' ');
        bool ends = p[n] == ',' || p[n] == '\n' || p[n] == '\0';
        if (starts && ends)
            return true;
    }
    return false;
}

static char *file_header(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = th_read(path);
    assert_non_null(text);
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    nl[1] = '\0';
    return text;
}

/* Writes one tick (two GPUs, the host and two processes) through the real CSV sink. GPU 0 has a
 * value in every GPU field, GPU 1 in none: its cells must read back absent, never 0. */
static void write_tick(const char *dir)
{
    gw_csv_sink *cs = NULL;
    gw_error err;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    assert_int_equal(gw_csv_sink_open(dfd, dir, 1000, &cs, &err), GW_OK);
    gw_gpu_sample gpus[2];
    memset(gpus, 0, sizeof gpus);
    for (int f = 0; f < GW_F_COUNT; f++) {
        const known *k = find_known(gpu_known, sizeof gpu_known / sizeof *gpu_known, f);
        gw_set(&gpus[0], (gw_gpu_field)f, k ? k->written : 1.0); /* 1.0: a field not recorded */
    }
    gw_gpu_process procs[2] = {
        {.gpu = 0,
         .pid = 4242,
         .used_valid = true,
         .used_mib = 19000.3,
         .in_job = true,
         .util_valid = true,
         .sm_util_pct = 83,
         .mem_util_pct = 41,
         .enc_util_pct = 0,
         .dec_util_pct = 12},
        {.gpu = 1, .pid = 77, .used_valid = false, .used_mib = NAN, .in_job = false},
    };
    snprintf(procs[0].name, sizeof procs[0].name, "python3");
    gw_sample s = {.seq = 0,
                   .wall_ms = T0_MS,
                   .mono_ns = 1000000000,
                   .gpu_count = 2,
                   .gpus = gpus,
                   .procs_fresh = true,
                   .procs_wall_ms = PROCS_MS,
                   .proc_count = 2,
                   .procs = procs};
    s.host = gw_host_sample_absent();
    s.host.mem_total_mib = 2048000;
    for (size_t i = 0; i < sizeof host_known / sizeof *host_known; i++) {
        double *v = host_slot(&s.host, host_known[i].f);
        *v = host_known[i].written;
        assert_float_equal(gw_host_value(&s.host, host_known[i].f), host_known[i].written, 0);
    }
    gw_sink sink = gw_csv_sink_as_sink(cs);
    sink.on_sample(sink.ctx, &s);
    sink.on_stop(sink.ctx);
    assert_false(gw_csv_sink_take_error(cs, &err));
    gw_csv_sink_close(cs);
    close(dfd);
}

static gw_series *read_dir(const char *dir)
{
    gw_series *s = gw_series_new();
    gw_error err;
    assert_int_equal(gw_logread_input(s, dir, NULL, &err), GW_OK);
    assert_int_equal(gw_series_finish(s, &err), GW_OK);
    return s;
}

static void test_gpu_csv_round_trip(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    write_tick(dir);
    gw_series *s = read_dir(dir);
    assert_int_equal(s->ngpus, 2);
    const gw_series_gpu *g0 = gw_series_find_gpu(s, 0, 0), *g1 = gw_series_find_gpu(s, 0, 1);
    assert_non_null(g0);
    assert_non_null(g1);
    assert_int_equal(g0->tab.n, 1);
    assert_int_equal(g0->tab.t_ms[0], T0_MS); /* the timestamp keeps its milliseconds */
    assert_int_equal(g1->tab.t_ms[0], T0_MS);
    char *header = file_header(dir, "gpu.csv");
    size_t columns = 0;
    for (int f = 0; f < GW_F_COUNT; f++) {
        bool in_csv = gw_fields[f].csv_header && has_column(header, gw_fields[f].csv_header);
        const known *k = find_known(gpu_known, sizeof gpu_known / sizeof *gpu_known, f);
        /* every gpu.csv column has a known value here, and only those are columns */
        assert_true(in_csv == (k != NULL));
        if (!k) {
            assert_null(gw_series_gpu_values(g0, (gw_gpu_field)f));
            continue;
        }
        columns++;
        const double *v = gw_series_gpu_values(g0, (gw_gpu_field)f);
        assert_non_null(v);
        assert_float_equal(v[0], k->read, 1e-9);
        const double *absent = gw_series_gpu_values(g1, (gw_gpu_field)f);
        assert_true(absent == NULL || isnan(absent[0]));
    }
    assert_int_equal(columns, sizeof gpu_known / sizeof *gpu_known);
    /* the identity columns read from gpu.csv fill the GPU where no meta.json gave it */
    assert_float_equal(g0->memory_total_mib, 143771, 0);
    assert_float_equal(g0->power_limit_w, 650.5, 0);
    free(header);
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

static void test_host_csv_round_trip(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    write_tick(dir);
    gw_series *s = read_dir(dir);
    assert_int_equal(s->nhosts, 1);
    const gw_series_table *t = &s->hosts[0]->tab;
    assert_int_equal(t->n, 1);
    assert_int_equal(t->t_ms[0], T0_MS);
    char *header = file_header(dir, "host.csv");
    size_t columns = 0;
    for (int f = GW_F_COUNT; f < GW_F_TABLE_COUNT; f++) {
        if (gw_fields[f].group != GW_FG_HOST && gw_fields[f].group != GW_FG_JOB)
            continue;
        const known *k = find_known(host_known, sizeof host_known / sizeof *host_known, f);
        bool in_csv = gw_fields[f].csv_header && has_column(header, gw_fields[f].csv_header);
        assert_true(in_csv == (k != NULL));
        if (!k)
            continue;
        columns++;
        long c = gw_series_table_find(t, gw_fields[f].csv_header);
        assert_true(c >= 0);
        assert_int_equal(t->cols[c].field, f); /* the reader knows which field it is */
        assert_float_equal(t->cols[c].v[0], k->read, 1e-9);
    }
    assert_int_equal(columns, sizeof host_known / sizeof *host_known);
    free(header);
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

static void test_processes_csv_round_trip(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    write_tick(dir);
    gw_series *s = read_dir(dir);
    char *header = file_header(dir, "processes.csv");
    for (int f = GW_F_COUNT; f < GW_F_TABLE_COUNT; f++)
        if (gw_fields[f].group == GW_FG_PROC)
            assert_true(has_column(header, gw_fields[f].csv_header));
    assert_int_equal(s->nprocs, 2);
    const gw_series_proc *p = &s->procs[0];
    assert_int_equal(p->t_ms, PROCS_MS);
    assert_int_equal(p->gpu_index, 0);
    assert_int_equal(p->pid, 4242);
    assert_string_equal(p->name, "python3");
    assert_float_equal(p->used_mib, 19001, 0); /* 19000.3 MiB rounded up, as nvidia-smi does */
    assert_int_equal(p->in_job, 1);
    p = &s->procs[1];
    assert_int_equal(p->gpu_index, 1);
    assert_int_equal(p->pid, 77);
    assert_string_equal(p->name, ""); /* not visible here */
    assert_true(isnan(p->used_mib));  /* "not available": absent, not 0 */
    assert_int_equal(p->in_job, 0);
    /* GetProcessUtilization's shares: a measured 0 is written, an unsupported call left empty */
    char path[512];
    snprintf(path, sizeof path, "%s/processes.csv", dir);
    char *text = th_read(path);
    assert_non_null(strstr(header, ", in_job, sm_util [%], mem_util [%], enc_util [%], "
                                   "dec_util [%]\n"));
    assert_non_null(strstr(text, ", 4242, python3, 19001, 1, 83, 41, 0, 12\n"));
    assert_non_null(strstr(text, ", 77, , , 0, , , , \n"));
    free(text);
    free(header);
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

static void test_events_round_trip(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    write_tick(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    gw_eventlog *log = NULL;
    gw_error err;
    assert_int_equal(gw_eventlog_open(path, &log, &err), GW_OK);
    gw_event ev[7];
    ev[0] = gw_event_make(GW_EV_JOB_START, T0_MS + 1);
    ev[0].job_start.pid = 4242;
    ev[1] = gw_event_make(GW_EV_EPOCH, T0_MS + 2);
    ev[1].epoch.epoch = 3;
    ev[1].epoch.total = 10;
    ev[1].epoch.line = "Epoch 3/10";
    ev[2] = gw_event_make(GW_EV_XID, T0_MS + 3);
    ev[2].xid.gpu = 1;
    ev[2].xid.xid = 79;
    ev[3] = gw_event_make(GW_EV_ALERT, T0_MS + 4);
    ev[3].alert.rule = "job_stalled";
    ev[3].alert.value = 312.125;
    ev[3].alert.threshold = 300;
    ev[3].alert.has = GW_EVA_STALL;
    ev[3].alert.nprocesses = 1;
    gw_event_process *p = &ev[3].alert.processes[0];
    p->pid = 4242;
    snprintf(p->name, sizeof p->name, "python3");
    snprintf(p->state, sizeof p->state, "S");
    snprintf(p->syscall, sizeof p->syscall, "futex");
    snprintf(p->wchan, sizeof p->wchan, "futex_wait_queue");
    ev[4] = gw_event_make(GW_EV_ALERT_RESOLVED, T0_MS + 5);
    ev[4].alert.rule = "job_stalled";
    ev[4].alert.has = GW_EVA_REASON;
    ev[4].alert.reason = "output";
    ev[5] = gw_event_make(GW_EV_MARK, T0_MS + 6);
    ev[5].mark.text = "eval";
    gw_event_fields fields = {0};
    gw_event_fields_put(&fields, "n", GW_EVV_NUMBER, 3.25, false, NULL);
    gw_event_fields_put(&fields, "phase", GW_EVV_STRING, 0, false, "warmup");
    gw_event_fields_put(&fields, "ok", GW_EVV_BOOL, 0, true, NULL);
    ev[5].mark.fields = fields.items;
    ev[5].mark.nfields = fields.n;
    ev[6] = gw_event_make(GW_EV_JOB_EXIT, T0_MS + 7);
    ev[6].job_exit.code = -1;
    ev[6].job_exit.signal = 9;
    ev[6].job_exit.signal_name = "KILL";
    ev[6].job_exit.status = 137;
    for (size_t i = 0; i < 7; i++)
        assert_true(gw_eventlog_write(log, &ev[i]));
    gw_event_fields_free(&fields);
    gw_eventlog_close(log);

    gw_series *s = read_dir(dir);
    assert_int_equal(s->nevents, 7);
    const gw_series_event *e = s->events;
    assert_string_equal(e[0].type, "job_start");
    assert_int_equal(e[0].t_ms, T0_MS + 1);
    assert_int_equal(e[0].gpu_index, -1);
    assert_string_equal(e[1].type, "epoch");
    assert_int_equal(e[1].epoch, 3);
    assert_int_equal(e[1].total, 10);
    assert_string_equal(e[1].text, "Epoch 3/10");
    assert_string_equal(e[2].type, "xid");
    assert_int_equal(e[2].gpu_index, 1);
    assert_float_equal(e[2].code, 79, 0);
    assert_string_equal(e[3].type, "alert");
    assert_string_equal(e[3].rule, "job_stalled");
    assert_float_equal(e[3].value, 312.125, 0);
    assert_float_equal(e[3].threshold, 300, 0);
    assert_string_equal(e[3].detail, "4242 python3 S futex in futex_wait_queue");
    assert_string_equal(e[4].type, "alert_resolved");
    assert_string_equal(e[4].detail, "output");
    assert_string_equal(e[5].type, "mark");
    assert_string_equal(e[5].text, "eval");
    assert_int_equal(e[5].nfields, 3);
    assert_float_equal(gw_series_event_field_num(&e[5], "n"), 3.25, 0);
    assert_string_equal(e[5].fields[1].text, "warmup");
    assert_string_equal(e[5].fields[2].text, "true");
    assert_string_equal(e[6].type, "job_exit");
    assert_int_equal(e[6].t_ms, T0_MS + 7);
    assert_float_equal(e[6].code, 137, 0);
    assert_int_equal(e[6].signal, 9);
    assert_string_equal(e[6].detail, "KILL");
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

static void test_meta_round_trip(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    write_tick(dir);
    gw_device_info devs[2] = {
        {.index = 0,
         .name = "NVIDIA H200",
         .uuid = "GPU-de231ecf-0000-0000-0000-000000000000",
         .pci_bus_id = "00000000:00:06.0",
         .memory_total_mib = 143771,
         .power_limit_w = 700,
         .slowdown_temp_c = 89,
         .max_sm_clock_mhz = 1980},
        {.index = 1,
         .name = "",
         .uuid = "",
         .pci_bus_id = "",
         .memory_total_mib = NAN,
         .power_limit_w = NAN,
         .slowdown_temp_c = NAN,
         .max_sm_clock_mhz = NAN},
    };
    char *argv[] = {"python3", "train.py"};
    gw_meta m = {.mode = "run",
                 .argc = 2,
                 .argv = argv,
                 .driver_version = "580.159.04",
                 .devices = devs,
                 .device_count = 2,
                 .interval_ms = 200,
                 .start_wall_ms = T0_MS,
                 .end_wall_ms = T0_MS + 1000};
    gw_error err;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    assert_int_equal(gw_meta_write(dfd, dir, &m, &err), GW_OK);
    close(dfd);
    char host[256] = "";
    gethostname(host, sizeof host - 1);

    gw_series *s = read_dir(dir);
    const gw_series_gpu *g0 = gw_series_find_gpu(s, 0, 0), *g1 = gw_series_find_gpu(s, 0, 1);
    assert_non_null(g0);
    assert_non_null(g1);
    assert_string_equal(g0->source, host);
    assert_string_equal(g0->name, "NVIDIA H200");
    assert_string_equal(g0->uuid, "GPU-de231ecf-0000-0000-0000-000000000000");
    assert_string_equal(g0->pci_bus_id, "00000000:00:06.0");
    assert_float_equal(g0->memory_total_mib, 143771, 0);
    assert_float_equal(g0->power_limit_w, 700, 0); /* meta.json wins over the power.limit column */
    assert_float_equal(g0->slowdown_temp_c, 89, 0);
    /* absent facts stay absent: no name, and no slowdown temperature from anywhere */
    assert_string_equal(g1->name, "");
    assert_true(isnan(g1->slowdown_temp_c));
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

/* The table itself: a unit per field that matches its CSV header, ids in their group's range,
 * one header per name within a file, and the lookup by header key finds each field. */
static void test_field_table(void **state)
{
    (void)state;
    for (int f = 0; f < GW_F_TABLE_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        assert_non_null(fi->key);
        assert_non_null(fi->unit);
        assert_non_null(fi->source);
        assert_true((f < GW_F_COUNT) == (fi->group == GW_FG_GPU));
        if (!fi->csv_header)
            continue;
        const char *open = strchr(fi->csv_header, '[');
        if (open) {
            char unit[16];
            snprintf(unit, sizeof unit, "%.*s", (int)strcspn(open + 1, "]"), open + 1);
            assert_string_equal(unit, fi->unit);
        }
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(fi->csv_header, " ["), fi->csv_header);
        assert_int_equal(gw_field_by_key(fi->group, key), f);
    }
    assert_int_equal(gw_field_by_key(GW_FG_HOST, "memory.used"), GW_F_HOST_MEM_USED_MIB);
    assert_int_equal(gw_field_by_key(GW_FG_GPU, "memory.used"), GW_F_MEM_USED_MIB);
    assert_int_equal(gw_field_by_key(GW_FG_GPU, "job.cpu"), -1);
    /* `query` prints nvidia-smi's units: the fields it reads must hold values in those */
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++)
        if (all[i].source == GW_QS_FIELD && all[i].unit)
            assert_string_equal(all[i].unit, gw_fields[all[i].field].unit);
    /* NVML's raw units become the field's */
    assert_float_equal(gw_field_from_nvml(GW_F_MEM_USED_MIB, 13936427008.0), 13290.8125, 0);
    assert_float_equal(gw_field_from_nvml(GW_F_POWER_DRAW_W, 676123), 676.123, 1e-12);
    assert_float_equal(gw_field_from_nvml(GW_F_ENERGY_MJ, 42), 42, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_table),         cmocka_unit_test(test_gpu_csv_round_trip),
        cmocka_unit_test(test_host_csv_round_trip), cmocka_unit_test(test_processes_csv_round_trip),
        cmocka_unit_test(test_events_round_trip),   cmocka_unit_test(test_meta_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

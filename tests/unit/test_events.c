/* Unit tests for the typed events: every kind written to events.jsonl (record/eventlog.c) and read
 * back (logread/event_members.c) is the same event, the lines keep docs/events.md's format byte
 * for byte, and the bus delivers one event to every listener. */
#include "test_helpers.h"

#include "events/events.h"
#include "logread/event_members.h"
#include "logread/series.h"
#include "record/eventlog.h"

#include <math.h>

#define T_MS INT64_C(1800000000123) /* 2027-01-15T08:00:00.123Z */

/* One event of every kind, each member set to a value of its own. */
static gw_event_field mark_fields[] = {
    {.key = "epoch", .type = GW_EVV_NUMBER, .num = 3},
    {.key = "phase", .type = GW_EVV_STRING, .str = "val"},
    {.key = "best", .type = GW_EVV_BOOL, .b = true},
    {.key = "none", .type = GW_EVV_NULL},
    {.key = "sizes", .type = GW_EVV_JSON, .str = "[1,2]"},
};
static char *const job_argv[] = {"python3", "train.py", "--lr", "0.1"};

static size_t all_kinds(gw_event *ev)
{
    size_t n = 0;
    gw_event e = gw_event_make(GW_EV_JOB_START, T_MS);
    e.job_start.pid = 4242;
    e.job_start.argc = 4;
    e.job_start.argv = job_argv;
    e.job_start.pty = true;
    ev[n++] = e;
    e = gw_event_make(GW_EV_JOB_EXIT, T_MS + 1);
    e.job_exit.pid = 4242;
    e.job_exit.signal = 9;
    e.job_exit.signal_name = "KILL";
    e.job_exit.status = 137;
    ev[n++] = e;
    e = gw_event_make(GW_EV_JOB_EXIT, T_MS + 2);
    e.job_exit.pid = 4243;
    e.job_exit.code = 3;
    e.job_exit.status = 3;
    ev[n++] = e;
    e = gw_event_make(GW_EV_GPU_LOST, T_MS + 3);
    e.gpu_lost.gpu = 1;
    e.gpu_lost.uuid = "GPU-1";
    e.gpu_lost.pci_bus_id = "00000000:00:07.0";
    e.gpu_lost.call = "nvmlDeviceGetPowerUsage";
    ev[n++] = e;
    e = gw_event_make(GW_EV_EPOCH, T_MS + 4);
    e.epoch.epoch = 3;
    e.epoch.total = 10;
    e.epoch.line = "Epoch 3/10";
    ev[n++] = e;
    e = gw_event_make(GW_EV_MARK, T_MS + 5);
    e.mark.text = "validation start";
    e.mark.fields = mark_fields;
    e.mark.nfields = 5;
    e.mark.pid = 77;
    ev[n++] = e;
    e = gw_event_make(GW_EV_XID, T_MS + 6);
    e.xid.gpu = 1;
    e.xid.xid = 79;
    ev[n++] = e;
    e = gw_event_make(GW_EV_ECC_DOUBLE_BIT, T_MS + 7);
    e.ecc.gpu = 0;
    ev[n++] = e;
    e = gw_event_make(GW_EV_ALERT, T_MS + 8); /* an engine rule */
    e.alert.has = GW_EVA_METRIC | GW_EVA_CLEAR | GW_EVA_DURATION | GW_EVA_MESSAGE;
    e.alert.rule = "temp_critical";
    e.alert.severity = "critical";
    e.alert.metric = "temperature";
    e.alert.gpu = 0;
    e.alert.value = 86;
    e.alert.threshold = 83;
    e.alert.clear = 80;
    e.alert.duration_s = 180.2;
    e.alert.message = "GPU 0 temperature 86 C above 83 C for 3 min 0 s";
    ev[n++] = e;
    e = gw_event_make(GW_EV_ALERT_RESOLVED, T_MS + 9); /* an event rule */
    e.alert.has = GW_EVA_METRIC | GW_EVA_CLEAR | GW_EVA_DURATION | GW_EVA_EVENTS | GW_EVA_MESSAGE;
    e.alert.rule = "xid";
    e.alert.severity = "critical";
    e.alert.metric = "xid";
    e.alert.gpu = 1;
    e.alert.duration_s = 399;
    e.alert.events = 2;
    e.alert.message = "GPU 1 XID quiet";
    ev[n++] = e;
    e = gw_event_make(GW_EV_ALERT, T_MS + 10); /* job_stalled */
    e.alert.has = GW_EVA_SINCE | GW_EVA_STALL | GW_EVA_MESSAGE;
    e.alert.rule = "job_stalled";
    e.alert.severity = "warning";
    e.alert.value = 15.5;
    e.alert.threshold = 15;
    e.alert.since_ms = T_MS - 15500;
    e.alert.ngpus = 2;
    e.alert.gpus[0] = 0;
    e.alert.gpus[1] = 1;
    e.alert.gpu_util_pct = 0.5;
    e.alert.job_cpu_pct = NAN;
    e.alert.nprocesses = 1;
    e.alert.processes[0] = (gw_event_process){.pid = 100,
                                              .ppid = 1,
                                              .name = "python3",
                                              .state = "S",
                                              .wchan = "futex_wait_queue",
                                              .syscall = "futex"};
    e.alert.processes_total = 1;
    e.alert.message = "no output, GPU idle and job CPU below 5% of a core for 16 s";
    ev[n++] = e;
    e = gw_event_make(GW_EV_ALERT_RESOLVED, T_MS + 11);
    e.alert.has = GW_EVA_SINCE | GW_EVA_DURATION | GW_EVA_REASON;
    e.alert.rule = "job_stalled";
    e.alert.severity = "warning";
    e.alert.value = 20;
    e.alert.threshold = 15;
    e.alert.since_ms = T_MS - 15500;
    e.alert.duration_s = 4.5;
    e.alert.reason = "output";
    ev[n++] = e;
    return n;
}

/* docs/events.md's format, one line per event above. */
static const char *const expected_lines[] = {
    "{\"timestamp\":\"2027-01-15T08:00:00.123Z\",\"type\":\"job_start\",\"pid\":4242,"
    "\"command\":[\"python3\",\"train.py\",\"--lr\",\"0.1\"],\"pty\":true}",
    "{\"timestamp\":\"2027-01-15T08:00:00.124Z\",\"type\":\"job_exit\",\"pid\":4242,\"code\":null,"
    "\"signal\":9,\"signal_name\":\"KILL\",\"status\":137}",
    "{\"timestamp\":\"2027-01-15T08:00:00.125Z\",\"type\":\"job_exit\",\"pid\":4243,\"code\":3,"
    "\"status\":3}",
    "{\"timestamp\":\"2027-01-15T08:00:00.126Z\",\"type\":\"gpu_lost\",\"gpu\":1,\"uuid\":\"GPU-"
    "1\","
    "\"pci_bus_id\":\"00000000:00:07.0\",\"call\":\"nvmlDeviceGetPowerUsage\","
    "\"error\":\"GPU_IS_LOST\"}",
    "{\"timestamp\":\"2027-01-15T08:00:00.127Z\",\"type\":\"epoch\",\"epoch\":3,\"total\":10,"
    "\"line\":\"Epoch 3/10\"}",
    "{\"timestamp\":\"2027-01-15T08:00:00.128Z\",\"type\":\"mark\",\"text\":\"validation start\","
    "\"fields\":{\"epoch\":3,\"phase\":\"val\",\"best\":true,\"none\":null,\"sizes\":[1,2]},"
    "\"pid\":77}",
    "{\"timestamp\":\"2027-01-15T08:00:00.129Z\",\"type\":\"xid\",\"gpu\":1,\"xid\":79}",
    "{\"timestamp\":\"2027-01-15T08:00:00.130Z\",\"type\":\"ecc_double_bit\",\"gpu\":0}",
    "{\"timestamp\":\"2027-01-15T08:00:00.131Z\",\"type\":\"alert\",\"rule\":\"temp_critical\","
    "\"severity\":\"critical\",\"metric\":\"temperature\",\"gpu\":0,\"value\":86,\"threshold\":83,"
    "\"clear\":80,\"duration_s\":180.2,\"message\":\"GPU 0 temperature 86 C above 83 C for 3 min "
    "0 s\"}",
    "{\"timestamp\":\"2027-01-15T08:00:00.132Z\",\"type\":\"alert_resolved\",\"rule\":\"xid\","
    "\"severity\":\"critical\",\"metric\":\"xid\",\"gpu\":1,\"value\":null,\"threshold\":null,"
    "\"clear\":null,\"duration_s\":399,\"events\":2,\"message\":\"GPU 1 XID quiet\"}",
    "{\"timestamp\":\"2027-01-15T08:00:00.133Z\",\"type\":\"alert\",\"rule\":\"job_stalled\","
    "\"severity\":\"warning\",\"gpu\":null,\"value\":15.5,\"threshold\":15,"
    "\"since\":\"2027-01-15T07:59:44.623Z\",\"gpus\":[0,1],\"gpu_util_pct\":0.5,"
    "\"job_cpu_pct\":null,\"last_output\":null,\"processes\":[{\"pid\":100,\"ppid\":1,"
    "\"name\":\"python3\",\"state\":\"S\",\"wchan\":\"futex_wait_queue\",\"syscall\":\"futex\"}],"
    "\"processes_total\":1,\"message\":\"no output, GPU idle and job CPU below 5% of a core for "
    "16 s\"}",
    "{\"timestamp\":\"2027-01-15T08:00:00.134Z\",\"type\":\"alert_resolved\","
    "\"rule\":\"job_stalled\",\"severity\":\"warning\",\"gpu\":null,\"value\":20,\"threshold\":15,"
    "\"since\":\"2027-01-15T07:59:44.623Z\",\"duration_s\":4.5,\"reason\":\"output\"}",
};

static bool same_num(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void assert_same_alert(const gw_event_alert *a, const gw_event_alert *b)
{
    assert_int_equal(a->has, b->has);
    assert_string_equal(a->rule, b->rule);
    assert_string_equal(a->severity, b->severity);
    if (a->has & GW_EVA_METRIC)
        assert_string_equal(a->metric, b->metric);
    assert_int_equal(a->gpu, b->gpu);
    assert_true(same_num(a->value, b->value));
    assert_true(same_num(a->threshold, b->threshold));
    if (a->has & GW_EVA_CLEAR)
        assert_true(same_num(a->clear, b->clear));
    if (a->has & GW_EVA_SINCE)
        assert_true(a->since_ms == b->since_ms);
    if (a->has & GW_EVA_DURATION)
        assert_true(same_num(a->duration_s, b->duration_s));
    if (a->has & GW_EVA_EVENTS)
        assert_int_equal(a->events, b->events);
    if (a->has & GW_EVA_STALL) {
        assert_int_equal(a->ngpus, b->ngpus);
        for (unsigned i = 0; i < a->ngpus; i++)
            assert_int_equal(a->gpus[i], b->gpus[i]);
        assert_true(same_num(a->gpu_util_pct, b->gpu_util_pct));
        assert_true(same_num(a->job_cpu_pct, b->job_cpu_pct));
        assert_true(a->last_output_ms == b->last_output_ms);
        assert_int_equal(a->nprocesses, b->nprocesses);
        for (unsigned i = 0; i < a->nprocesses; i++) {
            const gw_event_process *p = &a->processes[i], *q = &b->processes[i];
            assert_int_equal(p->pid, q->pid);
            assert_int_equal(p->ppid, q->ppid);
            assert_string_equal(p->name, q->name);
            assert_string_equal(p->state, q->state);
            assert_string_equal(p->wchan, q->wchan);
            assert_string_equal(p->syscall, q->syscall);
        }
        assert_true(same_num(a->processes_total, b->processes_total));
    }
    if (a->has & GW_EVA_MESSAGE)
        assert_string_equal(a->message, b->message);
    if (a->has & GW_EVA_REASON)
        assert_string_equal(a->reason, b->reason);
}

static void assert_same_event(const gw_event *a, const gw_event *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_true(a->wall_ms == b->wall_ms);
    switch (a->kind) {
    case GW_EV_JOB_START:
        assert_int_equal(a->job_start.pid, b->job_start.pid);
        assert_int_equal(a->job_start.argc, b->job_start.argc);
        for (int i = 0; i < a->job_start.argc; i++)
            assert_string_equal(a->job_start.argv[i], b->job_start.argv[i]);
        assert_int_equal(a->job_start.pty, b->job_start.pty);
        break;
    case GW_EV_JOB_EXIT:
        assert_int_equal(a->job_exit.pid, b->job_exit.pid);
        assert_int_equal(a->job_exit.code, b->job_exit.code);
        assert_int_equal(a->job_exit.signal, b->job_exit.signal);
        assert_string_equal(a->job_exit.signal_name, b->job_exit.signal_name);
        assert_int_equal(a->job_exit.status, b->job_exit.status);
        break;
    case GW_EV_GPU_LOST:
        assert_int_equal(a->gpu_lost.gpu, b->gpu_lost.gpu);
        assert_string_equal(a->gpu_lost.uuid, b->gpu_lost.uuid);
        assert_string_equal(a->gpu_lost.pci_bus_id, b->gpu_lost.pci_bus_id);
        assert_string_equal(a->gpu_lost.call, b->gpu_lost.call);
        assert_string_equal(a->gpu_lost.error, b->gpu_lost.error);
        break;
    case GW_EV_EPOCH:
        assert_int_equal(a->epoch.epoch, b->epoch.epoch);
        assert_int_equal(a->epoch.total, b->epoch.total);
        assert_string_equal(a->epoch.line, b->epoch.line);
        break;
    case GW_EV_MARK:
        assert_string_equal(a->mark.text, b->mark.text);
        assert_int_equal(a->mark.pid, b->mark.pid);
        assert_int_equal(a->mark.nfields, b->mark.nfields);
        for (unsigned i = 0; i < a->mark.nfields; i++) {
            const gw_event_field *f = &a->mark.fields[i], *g = &b->mark.fields[i];
            assert_string_equal(f->key, g->key);
            assert_int_equal(f->type, g->type);
            assert_true(f->type != GW_EVV_NUMBER || f->num == g->num);
            assert_true(f->type != GW_EVV_BOOL || f->b == g->b);
            if (f->type == GW_EVV_STRING || f->type == GW_EVV_JSON)
                assert_string_equal(f->str, g->str);
        }
        break;
    case GW_EV_XID:
        assert_int_equal(a->xid.gpu, b->xid.gpu);
        assert_int_equal(a->xid.xid, b->xid.xid);
        break;
    case GW_EV_ECC_DOUBLE_BIT:
        assert_int_equal(a->ecc.gpu, b->ecc.gpu);
        break;
    default:
        assert_same_alert(&a->alert, &b->alert);
        break;
    }
}

static void test_every_kind_round_trips_through_events_jsonl(void **state)
{
    (void)state;
    gw_event ev[16];
    size_t n = all_kinds(ev);
    assert_int_equal(n, sizeof expected_lines / sizeof expected_lines[0]);
    bool seen[GW_EV_KIND_COUNT] = {false};
    char *dir = th_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    gw_eventlog *log = NULL;
    assert_int_equal(gw_eventlog_open(path, &log, NULL), GW_OK);
    for (size_t i = 0; i < n; i++) {
        assert_true(gw_eventlog_write(log, &ev[i]));
        seen[ev[i].kind] = true;
    }
    gw_eventlog_close(log);
    for (int k = 0; k < GW_EV_KIND_COUNT; k++)
        assert_true(seen[k]); /* the list above covers every kind */
    char *text = th_read(path);
    size_t i = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), i++) {
        assert_true(i < n);
        assert_string_equal(line, expected_lines[i]);
        gw_event_read r;
        assert_true(gw_event_read_line(line, &r));
        assert_same_event(&ev[i], &r.ev);
        gw_event_read_free(&r);
    }
    assert_int_equal(i, n);
    free(text);
    th_rmrf(dir);
    free(dir);
}

static void test_reader_refuses_what_gpuwatch_does_not_write(void **state)
{
    (void)state;
    gw_event_read r;
    assert_false(gw_event_read_line("not json", &r));
    assert_false(gw_event_read_line("[1,2]", &r));
    assert_false(gw_event_read_line("{\"type\":\"xid\",\"gpu\":1,\"xid\":79}", &r)); /* no time */
    assert_false(gw_event_read_line(
        "{\"timestamp\":\"yesterday\",\"type\":\"xid\",\"gpu\":1,\"xid\":79}", &r));
    assert_false(gw_event_read_line(
        "{\"timestamp\":\"2027-01-15T08:00:00.123Z\",\"type\":\"log_end\"}", &r));
    /* members of the wrong type read as absent */
    assert_true(gw_event_read_line("{\"timestamp\":\"2027-01-15T08:00:00.123Z\",\"type\":\"xid\","
                                   "\"gpu\":\"one\",\"xid\":79}",
                                   &r));
    assert_int_equal(r.ev.kind, GW_EV_XID);
    assert_true(r.ev.wall_ms == T_MS);
    assert_int_equal(r.ev.xid.gpu, -1);
    assert_int_equal(r.ev.xid.xid, 79);
    gw_event_read_free(&r);
}

static void test_kind_names(void **state)
{
    (void)state;
    for (int k = 0; k < GW_EV_KIND_COUNT; k++) {
        gw_event_kind back;
        assert_true(gw_event_kind_of(gw_event_kind_name((gw_event_kind)k), &back));
        assert_int_equal(back, k);
    }
    gw_event_kind back;
    assert_false(gw_event_kind_of("log_end", &back));
    assert_false(gw_event_kind_of(NULL, &back));
    assert_string_equal(gw_event_kind_name(GW_EV_ECC_DOUBLE_BIT), "ecc_double_bit");
}

/* The series model the report reads keeps each event's kind, so readers switch on it and never
 * compare type strings: every kind gpuwatch writes, a training log's end, another tool's type. */
static void test_series_events_carry_their_kind(void **state)
{
    (void)state;
    gw_event ev[16];
    size_t n = all_kinds(ev);
    gw_series *s = gw_series_new();
    for (size_t i = 0; i < n; i++)
        assert_true(gw_logread_event_line(s, 0, expected_lines[i]));
    assert_true(gw_logread_event_line(
        s, 0, "{\"timestamp\":\"2027-01-15T08:00:00.123Z\",\"type\":\"checkpoint\"}"));
    assert_true(gw_logread_event_line(
        s, 0, "{\"timestamp\":\"2027-01-15T08:00:00.123Z\",\"type\":\"log_end\"}"));
    gw_series_add_event(s, 0, T_MS, "log_end", NULL); /* as the training-log reader adds it */
    assert_int_equal(s->nevents, n + 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s->events[i].kind, ev[i].kind);
        assert_string_equal(s->events[i].type, gw_event_kind_name(ev[i].kind));
    }
    assert_int_equal(s->events[n].kind, GW_SERIES_EV_OTHER);
    assert_string_equal(s->events[n].type, "checkpoint");
    assert_int_equal(s->events[n + 1].kind, GW_SERIES_EV_LOG_END);
    assert_int_equal(s->events[n + 2].kind, GW_SERIES_EV_LOG_END);
    gw_series_free(s);
}

typedef struct seen {
    int n;
    gw_event_kind kind[4];
} seen;

static void count(void *ctx, const gw_event *ev)
{
    seen *s = ctx;
    if (s->n < 4)
        s->kind[s->n++] = ev->kind;
}

static void test_bus_delivers_to_every_listener_in_order(void **state)
{
    (void)state;
    gw_events *bus = gw_events_new();
    seen a = {0}, b = {0};
    gw_events_listen(bus, count, &a);
    gw_events_listen(bus, count, &b);
    gw_event ev = gw_event_make(GW_EV_XID, T_MS);
    gw_events_emit(bus, &ev);
    ev = gw_event_make(GW_EV_EPOCH, T_MS);
    gw_events_emit(bus, &ev);
    gw_events_unlisten(bus, count, &b);
    ev = gw_event_make(GW_EV_MARK, T_MS);
    gw_events_emit(bus, &ev);
    gw_events_emit(NULL, &ev); /* no bus: nothing happens */
    assert_int_equal(a.n, 3);
    assert_int_equal(a.kind[0], GW_EV_XID);
    assert_int_equal(a.kind[1], GW_EV_EPOCH);
    assert_int_equal(a.kind[2], GW_EV_MARK);
    assert_int_equal(b.n, 2);
    gw_events_free(bus);
}

static void test_one_printer_for_a_lost_gpu(void **state)
{
    (void)state;
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    gw_event ev = gw_event_make(GW_EV_GPU_LOST, T_MS);
    ev.gpu_lost.gpu = 1;
    ev.gpu_lost.call = "nvmlDeviceGetPowerUsage";
    gw_event_print_lost(f, &ev, "its cells stay empty");
    ev.gpu_lost.call = "";
    gw_event_print_lost(f, &ev, "its series are gone");
    ev = gw_event_make(GW_EV_XID, T_MS);
    gw_event_print_lost(f, &ev, "not printed");
    fclose(f);
    assert_string_equal(buf, "gpuwatch: GPU 1 was lost (GPU_IS_LOST from nvmlDeviceGetPowerUsage): "
                             "its cells stay empty; check `dmesg` for Xid 79\n"
                             "gpuwatch: GPU 1 was lost (GPU_IS_LOST from NVML): its series are "
                             "gone; check `dmesg` for Xid 79\n");
}

static void test_epoch_line_is_cut_at_200_bytes(void **state)
{
    (void)state;
    char line[400];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    gw_event ev = gw_event_make(GW_EV_EPOCH, T_MS);
    ev.epoch.epoch = 1;
    ev.epoch.line = line;
    cJSON *o = gw_event_to_json(&ev);
    assert_int_equal(strlen(cJSON_GetObjectItem(o, "line")->valuestring), GW_EVENT_LINE_MAX);
    assert_null(cJSON_GetObjectItem(o, "total")); /* unknown total: no member */
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_round_trips_through_events_jsonl),
        cmocka_unit_test(test_reader_refuses_what_gpuwatch_does_not_write),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_series_events_carry_their_kind),
        cmocka_unit_test(test_bus_delivers_to_every_listener_in_order),
        cmocka_unit_test(test_one_printer_for_a_lost_gpu),
        cmocka_unit_test(test_epoch_line_is_cut_at_200_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

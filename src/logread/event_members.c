/* Event members for the job verdicts and markers, and the end of output.log (event_members.h). */
#include "logread/event_members.h"

#include "logread/timeparse.h"
#include "util/gw_buf.h"
#include "util/gw_file.h"
#include "util/line_split.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* "PID NAME STATE SYSCALL in WCHAN; ..." from a job_stalled alert's processes[]. */
static void processes_detail(gw_series_event *e, const cJSON *procs)
{
    gw_buf b = {0};
    const cJSON *p;
    cJSON_ArrayForEach(p, procs)
    {
        double pid = num_of(p, "pid");
        if (!(pid >= 0 && pid <= 1e9))
            continue;
        const char *sc = str_of(p, "syscall"), *wchan = str_of(p, "wchan");
        gw_buf_printf(&b, "%s%ld %s %s%s%s%s%s", b.len ? "; " : "", (long)pid, str_of(p, "name"),
                      str_of(p, "state"), *sc ? " " : "", sc, *wchan ? " in " : "", wchan);
    }
    gw_series_event_set(&e->detail, b.len ? b.data : "");
    gw_buf_free(&b);
}

static void mark_fields(gw_series_event *e, const cJSON *fields)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, fields)
    {
        if (!f->string)
            continue;
        if (e->nfields >= GW_MARK_MAX_FIELDS)
            break;
        if (cJSON_IsNumber(f)) {
            gw_series_event_add_field(e, f->string, f->valuedouble, NULL);
        } else if (cJSON_IsBool(f)) {
            gw_series_event_add_field(e, f->string, NAN, cJSON_IsTrue(f) ? "true" : "false");
        } else if (cJSON_IsString(f)) {
            gw_series_event_add_field(e, f->string, NAN, f->valuestring);
        } else {
            char *text = cJSON_PrintUnformatted(f); /* null, arrays, objects: as JSON */
            gw_series_event_add_field(e, f->string, NAN, text ? text : "");
            cJSON_free(text);
        }
    }
}

/* The members of a line whose type gpuwatch does not write (another tool's), read by name. */
static void foreign_members(gw_series_event *e, const cJSON *o)
{
    if (strcmp(e->type, "alert") == 0 || strcmp(e->type, "alert_resolved") == 0) {
        gw_series_event_set(&e->rule, str_of(o, "rule"));
        e->value = num_of(o, "value");
        e->threshold = num_of(o, "threshold");
        const cJSON *procs = cJSON_GetObjectItemCaseSensitive(o, "processes");
        if (cJSON_IsArray(procs))
            processes_detail(e, procs);
        else
            gw_series_event_set(&e->detail, str_of(o, "reason"));
    } else if (strcmp(e->type, "job_exit") == 0) {
        double sig = num_of(o, "signal");
        e->signal = sig >= 1 && sig <= 128 ? (int)sig : 0;
        gw_series_event_set(&e->detail, str_of(o, "signal_name"));
    } else if (strcmp(e->type, "mark") == 0) {
        const cJSON *fields = cJSON_GetObjectItemCaseSensitive(o, "fields");
        if (cJSON_IsObject(fields))
            mark_fields(e, fields);
    }
}

/* The kept lines: a ring of the last GW_TAIL_MAX_LINES. */
typedef struct tail_lines {
    char *line[GW_TAIL_MAX_LINES];
    size_t n, next;
} tail_lines;

static void keep_line(void *ctx, const char *line, int64_t wall_ms)
{
    (void)wall_ms;
    tail_lines *t = ctx;
    free(t->line[t->next]);
    t->line[t->next] = xstrdup(line);
    t->next = (t->next + 1) % GW_TAIL_MAX_LINES;
    if (t->n < GW_TAIL_MAX_LINES)
        t->n++;
}

void gw_logread_output_tail(gw_series *s, const char *dir, size_t input, const char *source)
{
    char *path = xasprintf("%s/output.log", dir);
    FILE *f = gw_file_open_regular(path, "rb");
    free(path);
    if (!f)
        return;
    bool cut = fseek(f, -(long)GW_TAIL_MAX_BYTES, SEEK_END) == 0 && ftell(f) > 0;
    if (!cut)
        rewind(f);
    char *buf = xmalloc(GW_TAIL_MAX_BYTES);
    size_t n = fread(buf, 1, GW_TAIL_MAX_BYTES, f);
    fclose(f);
    size_t start = 0;
    if (cut) /* the first line is a piece of a longer one */
        while (start < n && buf[start] != '\n' && buf[start] != '\r')
            start++;
    tail_lines t = {0};
    gw_line_splitter ls = {.fn = keep_line, .ctx = &t};
    gw_line_splitter_feed(&ls, buf + start, n - start, 0);
    gw_line_splitter_finish(&ls, 0);
    free(buf);
    gw_buf text = {0};
    for (size_t i = 0; i < t.n; i++) {
        size_t k = (t.next + GW_TAIL_MAX_LINES - t.n + i) % GW_TAIL_MAX_LINES;
        gw_buf_printf(&text, "%s%s", i ? "\n" : "", t.line[k]);
    }
    for (size_t i = 0; i < GW_TAIL_MAX_LINES; i++)
        free(t.line[i]);
    if (t.n)
        gw_series_add_tail(s, input, source, text.data, t.n);
    gw_buf_free(&text);
}

/* --- events.jsonl lines as gw_event (the reading edge) --- */

static const char *text_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static bool has(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key) != NULL;
}

/* An integer member (gpu, pid, code), or fallback when absent, null or out of range. */
static long long_of(const cJSON *o, const char *key, long fallback)
{
    double v = num_of(o, key);
    return v >= -1e15 && v <= 1e15 ? (long)v : fallback;
}

/* A time member, or 0 when absent, null or unreadable. */
static int64_t time_of(const cJSON *o, const char *key)
{
    const char *ts = text_of(o, key);
    int64_t ms = 0;
    return *ts && gw_timeparse(ts, &ms) == strlen(ts) ? ms : 0;
}

static void copy_text(char *dst, size_t len, const cJSON *o, const char *key)
{
    snprintf(dst, len, "%s", text_of(o, key));
}

static void read_processes(gw_event_alert *a, const cJSON *procs)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, procs)
    {
        if (a->nprocesses >= GW_EVENT_MAX_PROCESSES)
            break;
        gw_event_process *w = &a->processes[a->nprocesses++];
        w->pid = long_of(p, "pid", -1);
        w->ppid = long_of(p, "ppid", -1);
        copy_text(w->name, sizeof w->name, p, "name");
        copy_text(w->state, sizeof w->state, p, "state");
        copy_text(w->wchan, sizeof w->wchan, p, "wchan");
        copy_text(w->syscall, sizeof w->syscall, p, "syscall");
    }
}

static void read_alert(gw_event_alert *a, const cJSON *o)
{
    a->rule = text_of(o, "rule");
    a->severity = text_of(o, "severity");
    if (has(o, "metric")) {
        a->has |= GW_EVA_METRIC;
        a->metric = text_of(o, "metric");
    }
    a->gpu = (int)long_of(o, "gpu", -1);
    a->value = num_of(o, "value");
    a->threshold = num_of(o, "threshold");
    if (has(o, "clear")) {
        a->has |= GW_EVA_CLEAR;
        a->clear = num_of(o, "clear");
    }
    if (has(o, "since")) {
        a->has |= GW_EVA_SINCE;
        a->since_ms = time_of(o, "since");
    }
    if (has(o, "duration_s")) {
        a->has |= GW_EVA_DURATION;
        a->duration_s = num_of(o, "duration_s");
    }
    if (has(o, "peak")) {
        a->has |= GW_EVA_PEAK;
        a->peak = num_of(o, "peak");
    }
    if (has(o, "events")) {
        a->has |= GW_EVA_EVENTS;
        a->events = long_of(o, "events", 0);
    }
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(o, "gpus");
    const cJSON *procs = cJSON_GetObjectItemCaseSensitive(o, "processes");
    if (cJSON_IsArray(gpus) || cJSON_IsArray(procs)) {
        a->has |= GW_EVA_STALL;
        const cJSON *g;
        cJSON_ArrayForEach(g, gpus)
        {
            if (cJSON_IsNumber(g) && g->valuedouble >= 0 && g->valuedouble < 1e9 &&
                a->ngpus < GW_EVENT_MAX_GPUS)
                a->gpus[a->ngpus++] = (unsigned)g->valuedouble;
        }
        a->gpu_util_pct = num_of(o, "gpu_util_pct");
        a->job_cpu_pct = num_of(o, "job_cpu_pct");
        a->last_output_ms = time_of(o, "last_output");
        read_processes(a, procs);
        a->processes_total = num_of(o, "processes_total");
    }
    if (has(o, "message")) {
        a->has |= GW_EVA_MESSAGE;
        a->message = text_of(o, "message");
    }
    if (has(o, "reason")) {
        a->has |= GW_EVA_REASON;
        a->reason = text_of(o, "reason");
    }
}

static void read_mark(gw_event_read *r, const cJSON *o)
{
    r->ev.mark.text = text_of(o, "text");
    r->ev.mark.pid = long_of(o, "pid", -1);
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(o, "fields"))
    {
        if (!f->string)
            continue;
        if (r->fields.n >= GW_MARK_MAX_FIELDS)
            break;
        if (cJSON_IsNumber(f)) {
            gw_event_fields_put(&r->fields, f->string, GW_EVV_NUMBER, f->valuedouble, false, NULL);
        } else if (cJSON_IsString(f)) {
            gw_event_fields_put(&r->fields, f->string, GW_EVV_STRING, 0, false, f->valuestring);
        } else if (cJSON_IsBool(f)) {
            gw_event_fields_put(&r->fields, f->string, GW_EVV_BOOL, 0, cJSON_IsTrue(f), NULL);
        } else if (cJSON_IsNull(f)) {
            gw_event_fields_put(&r->fields, f->string, GW_EVV_NULL, 0, false, NULL);
        } else {
            char *text = cJSON_PrintUnformatted(f);
            gw_event_fields_put(&r->fields, f->string, GW_EVV_JSON, 0, false, text ? text : "");
            cJSON_free(text);
        }
    }
    r->ev.mark.fields = r->fields.items;
    r->ev.mark.nfields = r->fields.n;
}

static void read_job_start(gw_event_read *r, const cJSON *o)
{
    r->ev.job_start.pid = long_of(o, "pid", -1);
    r->ev.job_start.pty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "pty"));
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(o, "command");
    int n = cJSON_IsArray(cmd) ? cJSON_GetArraySize(cmd) : 0;
    r->argv = xcalloc((size_t)n + 1, sizeof *r->argv);
    const cJSON *a;
    int i = 0;
    cJSON_ArrayForEach(a, cmd)
    {
        if (cJSON_IsString(a) && i < n)
            r->argv[i++] = a->valuestring;
    }
    r->ev.job_start.argc = i;
    r->ev.job_start.argv = r->argv;
}

bool gw_event_read_line(const char *line, gw_event_read *out)
{
    memset(out, 0, sizeof *out);
    cJSON *o = cJSON_Parse(line);
    gw_event_kind kind;
    int64_t t_ms = 0;
    const char *ts = text_of(o, "timestamp");
    if (!cJSON_IsObject(o) || !gw_event_kind_of(text_of(o, "type"), &kind) || !*ts ||
        gw_timeparse(ts, &t_ms) != strlen(ts)) {
        cJSON_Delete(o);
        return false;
    }
    out->doc = o;
    out->ev = gw_event_make(kind, t_ms);
    gw_event *ev = &out->ev;
    switch (kind) {
    case GW_EV_JOB_START:
        read_job_start(out, o);
        break;
    case GW_EV_JOB_EXIT:
        ev->job_exit.pid = long_of(o, "pid", -1);
        ev->job_exit.code = (int)long_of(o, "code", -1);
        ev->job_exit.signal = (int)long_of(o, "signal", 0);
        ev->job_exit.signal_name = text_of(o, "signal_name");
        ev->job_exit.status = (int)long_of(o, "status", -1);
        break;
    case GW_EV_GPU_LOST:
        ev->gpu_lost.gpu = (int)long_of(o, "gpu", -1);
        ev->gpu_lost.uuid = text_of(o, "uuid");
        ev->gpu_lost.pci_bus_id = text_of(o, "pci_bus_id");
        ev->gpu_lost.call = text_of(o, "call");
        ev->gpu_lost.error = text_of(o, "error");
        break;
    case GW_EV_EPOCH:
        ev->epoch.epoch = long_of(o, "epoch", -1);
        ev->epoch.total = long_of(o, "total", -1);
        ev->epoch.line = text_of(o, "line");
        break;
    case GW_EV_MARK:
        read_mark(out, o);
        break;
    case GW_EV_XID:
        ev->xid.gpu = (int)long_of(o, "gpu", -1);
        ev->xid.xid = long_of(o, "xid", -1);
        break;
    case GW_EV_ECC_DOUBLE_BIT:
        ev->ecc.gpu = (int)long_of(o, "gpu", -1);
        break;
    case GW_EV_ALERT:
    case GW_EV_ALERT_RESOLVED:
        read_alert(&ev->alert, o);
        break;
    default:
        break;
    }
    return true;
}

void gw_event_read_free(gw_event_read *r)
{
    cJSON_Delete(r->doc);
    free(r->argv);
    gw_event_fields_free(&r->fields);
    memset(r, 0, sizeof *r);
}

/* --- events.jsonl lines into the series --- */

/* "PID NAME STATE SYSCALL in WCHAN; ..." from a job_stalled alert's processes. */
static void typed_processes_detail(gw_series_event *e, const gw_event_alert *a)
{
    gw_buf b = {0};
    for (unsigned i = 0; i < a->nprocesses; i++) {
        const gw_event_process *p = &a->processes[i];
        if (!(p->pid >= 0 && p->pid <= 1000000000))
            continue;
        gw_buf_printf(&b, "%s%ld %s %s%s%s%s%s", b.len ? "; " : "", p->pid, p->name, p->state,
                      *p->syscall ? " " : "", p->syscall, *p->wchan ? " in " : "", p->wchan);
    }
    gw_series_event_set(&e->detail, b.len ? b.data : "");
    gw_buf_free(&b);
}

/* An id (gpu, epoch) as the series keeps it: -1 when absent or out of range. */
static long series_id(long v)
{
    return v >= -1000000000L && v <= 1000000000L ? v : -1;
}

/* Fills a series event from an event gpuwatch wrote. */
static void typed_members(gw_series_event *e, const gw_event *ev)
{
    switch (ev->kind) {
    case GW_EV_JOB_EXIT:
        e->code = ev->job_exit.status;
        e->signal =
            ev->job_exit.signal >= 1 && ev->job_exit.signal <= 128 ? ev->job_exit.signal : 0;
        gw_series_event_set(&e->detail, ev->job_exit.signal_name);
        break;
    case GW_EV_GPU_LOST:
        e->gpu_index = (int)series_id(ev->gpu_lost.gpu);
        break;
    case GW_EV_EPOCH:
        e->epoch = series_id(ev->epoch.epoch);
        e->total = series_id(ev->epoch.total);
        break;
    case GW_EV_MARK:
        for (unsigned i = 0; i < ev->mark.nfields; i++) {
            const gw_event_field *f = &ev->mark.fields[i];
            if (f->type == GW_EVV_NUMBER)
                gw_series_event_add_field(e, f->key, f->num, NULL);
            else if (f->type == GW_EVV_BOOL)
                gw_series_event_add_field(e, f->key, NAN, f->b ? "true" : "false");
            else if (f->type == GW_EVV_NULL)
                gw_series_event_add_field(e, f->key, NAN, "null");
            else
                gw_series_event_add_field(e, f->key, NAN, f->str ? f->str : "");
        }
        break;
    case GW_EV_XID:
        e->gpu_index = (int)series_id(ev->xid.gpu);
        e->code = ev->xid.xid >= 0 ? (double)ev->xid.xid : NAN;
        break;
    case GW_EV_ECC_DOUBLE_BIT:
        e->gpu_index = (int)series_id(ev->ecc.gpu);
        break;
    case GW_EV_ALERT:
    case GW_EV_ALERT_RESOLVED:
        e->gpu_index = (int)series_id(ev->alert.gpu);
        gw_series_event_set(&e->rule, ev->alert.rule);
        e->value = ev->alert.value;
        e->threshold = ev->alert.threshold;
        if (ev->alert.has & GW_EVA_STALL)
            typed_processes_detail(e, &ev->alert);
        else
            gw_series_event_set(&e->detail, ev->alert.has & GW_EVA_REASON ? ev->alert.reason : "");
        break;
    default:
        break;
    }
}

/* The text a series event shows: the epoch's line, an alert's message, a mark's text. */
static const char *typed_text(const gw_event *ev)
{
    switch (ev->kind) {
    case GW_EV_EPOCH:
        return ev->epoch.line;
    case GW_EV_MARK:
        return ev->mark.text;
    case GW_EV_ALERT:
    case GW_EV_ALERT_RESOLVED:
        return ev->alert.has & GW_EVA_MESSAGE ? ev->alert.message : NULL;
    default:
        return NULL;
    }
}

/* A line of another tool: time, type and the members the series knows, by name. */
static bool foreign_line(gw_series *s, size_t input, const char *line)
{
    static const char *const gpu_keys[] = {"gpu", "index", NULL};
    static const char *const code_keys[] = {"exit_status", "status", "code", "xid", NULL};
    static const char *const text_keys[] = {"line", "message", "text", NULL};
    cJSON *o = cJSON_Parse(line);
    const char *ts = text_of(o, "timestamp"), *type = text_of(o, "type");
    int64_t t_ms;
    if (!cJSON_IsObject(o) || !*ts || !*type || gw_timeparse(ts, &t_ms) != strlen(ts)) {
        cJSON_Delete(o);
        return false;
    }
    const char *text = NULL;
    for (const char *const *k = text_keys; *k && !text; k++)
        text = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, *k)) ? text_of(o, *k) : NULL;
    gw_series_event *e = gw_series_add_event(s, input, t_ms, type, text);
    double v = NAN;
    for (const char *const *k = gpu_keys; *k && isnan(v); k++)
        v = num_of(o, *k);
    e->gpu_index = (int)(v >= -1e9 && v <= 1e9 ? (long)v : -1);
    e->code = NAN;
    for (const char *const *k = code_keys; *k && isnan(e->code); k++)
        e->code = num_of(o, *k);
    double epoch = num_of(o, "epoch"), total = num_of(o, "total");
    e->epoch = epoch >= -1e9 && epoch <= 1e9 ? (long)epoch : -1;
    e->total = total >= -1e9 && total <= 1e9 ? (long)total : -1;
    foreign_members(e, o);
    cJSON_Delete(o);
    return true;
}

bool gw_logread_event_line(gw_series *s, size_t input, const char *line)
{
    gw_event_read r;
    if (!gw_event_read_line(line, &r))
        return foreign_line(s, input, line);
    gw_series_event *e = gw_series_add_event(s, input, r.ev.wall_ms, gw_event_kind_name(r.ev.kind),
                                             typed_text(&r.ev));
    typed_members(e, &r.ev);
    gw_event_read_free(&r);
    return true;
}

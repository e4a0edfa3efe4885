#include "record/eventlog.h"

#include "util/gw_file.h"
#include "util/gw_json.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct gw_eventlog {
    int fd;
    int err_no;
    bool err_said; /* gw_eventlog_take_error returned it */
};

static gw_rc opened(int fd, const char *path, gw_eventlog **out, gw_error *err)
{
    if (fd < 0) {
        *out = NULL;
        if (errno == ELOOP)
            return gw_error_set(err, GW_E_IO,
                                "cannot open %s: it is a symbolic link, not followed (another "
                                "user may have planted it): remove it",
                                path);
        return gw_error_set(err, GW_E_IO, "cannot open %s: %s", path, strerror(errno));
    }
    gw_eventlog *log = xcalloc(1, sizeof *log);
    log->fd = fd;
    *out = log;
    return GW_OK;
}

gw_rc gw_eventlog_open(const char *path, gw_eventlog **out, gw_error *err)
{
    /* O_NONBLOCK: a FIFO planted there would block the open (and the job marking) forever */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                  GW_FILE_MODE);
    struct stat st;
    if (fd < 0 && errno == ENXIO) /* a FIFO without a reader */
        errno = GW_FILE_NOT_REGULAR;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = GW_FILE_NOT_REGULAR;
    }
    /* a file of another user, or a hard link (a name planted for a file elsewhere, which
     * O_NOFOLLOW does not see): the run's own events.jsonl is ours and has one name */
    if (fd >= 0 && (st.st_uid != geteuid() || st.st_nlink != 1)) {
        close(fd);
        *out = NULL;
        return gw_error_set(err, GW_E_IO,
                            "cannot open %s: it belongs to another user (uid %u) or has other "
                            "names (%lu links): not the events.jsonl gpuwatch made; remove it",
                            path, (unsigned)st.st_uid, (unsigned long)st.st_nlink);
    }
    if (fd >= 0)
        (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (fd < 0 && errno == GW_FILE_NOT_REGULAR) {
        *out = NULL;
        return gw_error_set(err, GW_E_IO,
                            "cannot open %s: it is not a regular file (a FIFO or device; another "
                            "user may have planted it): remove it",
                            path);
    }
    return opened(fd, path, out, err);
}

gw_rc gw_eventlog_create_at(int dirfd, const char *name, const char *path, gw_eventlog **out,
                            gw_error *err)
{
    return opened(gw_file_create_at(dirfd, name, O_APPEND), path, out, err);
}

static void add_gpu(cJSON *o, const char *key, int gpu)
{
    if (gpu >= 0)
        cJSON_AddNumberToObject(o, key, gpu);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_processes(cJSON *o, const gw_event_alert *a)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "processes");
    for (unsigned i = 0; i < a->nprocesses && i < GW_EVENT_MAX_PROCESSES; i++) {
        const gw_event_process *p = &a->processes[i];
        cJSON *po = cJSON_CreateObject();
        cJSON_AddNumberToObject(po, "pid", (double)p->pid);
        cJSON_AddNumberToObject(po, "ppid", (double)p->ppid);
        cJSON_AddStringToObject(po, "name", p->name);
        cJSON_AddStringToObject(po, "state", p->state);
        gw_json_add_str(po, "wchan", p->wchan);
        gw_json_add_str(po, "syscall", p->syscall);
        cJSON_AddItemToArray(arr, po);
    }
}

/* alert and alert_resolved: the engine's rules and the stall detector's job_stalled share one
 * member order; optional members appear only when `has` says so (docs/events.md). */
static void add_alert(cJSON *o, const gw_event_alert *a)
{
    cJSON_AddStringToObject(o, "rule", a->rule ? a->rule : "");
    cJSON_AddStringToObject(o, "severity", a->severity ? a->severity : "");
    if (a->has & GW_EVA_METRIC)
        cJSON_AddStringToObject(o, "metric", a->metric ? a->metric : "");
    add_gpu(o, "gpu", a->gpu);
    gw_json_add_num(o, "value", a->value, 3);
    gw_json_add_num(o, "threshold", a->threshold, 3);
    if (a->has & GW_EVA_CLEAR)
        gw_json_add_num(o, "clear", a->clear, 3);
    if (a->has & GW_EVA_SINCE)
        gw_json_add_time(o, "since", a->since_ms);
    if (a->has & GW_EVA_DURATION)
        gw_json_add_num(o, "duration_s", a->duration_s, 3);
    if (a->has & GW_EVA_PEAK)
        gw_json_add_num(o, "peak", a->peak, 3);
    if (a->has & GW_EVA_EVENTS)
        cJSON_AddNumberToObject(o, "events", (double)a->events);
    if (a->has & GW_EVA_STALL) {
        cJSON *gpus = cJSON_AddArrayToObject(o, "gpus");
        for (unsigned i = 0; i < a->ngpus && i < GW_EVENT_MAX_GPUS; i++)
            cJSON_AddItemToArray(gpus, cJSON_CreateNumber(a->gpus[i]));
        gw_json_add_num(o, "gpu_util_pct", a->gpu_util_pct, 1);
        gw_json_add_num(o, "job_cpu_pct", a->job_cpu_pct, 1);
        gw_json_add_time(o, "last_output", a->last_output_ms);
        add_processes(o, a);
        gw_json_add_num(o, "processes_total", a->processes_total, -1);
    }
    if (a->has & GW_EVA_MESSAGE)
        cJSON_AddStringToObject(o, "message", a->message ? a->message : "");
    if (a->has & GW_EVA_REASON)
        cJSON_AddStringToObject(o, "reason", a->reason ? a->reason : "");
}

static void add_mark_fields(cJSON *o, const gw_event_field *f, unsigned n)
{
    cJSON *fields = cJSON_AddObjectToObject(o, "fields");
    for (unsigned i = 0; i < n; i++) {
        switch (f[i].type) {
        case GW_EVV_NUMBER:
            cJSON_AddNumberToObject(fields, f[i].key, f[i].num);
            break;
        case GW_EVV_STRING:
            cJSON_AddStringToObject(fields, f[i].key, f[i].str ? f[i].str : "");
            break;
        case GW_EVV_BOOL:
            cJSON_AddBoolToObject(fields, f[i].key, f[i].b);
            break;
        case GW_EVV_JSON: {
            cJSON *v = f[i].str ? cJSON_Parse(f[i].str) : NULL;
            if (v)
                cJSON_AddItemToObject(fields, f[i].key, v);
            else
                cJSON_AddNullToObject(fields, f[i].key);
            break;
        }
        default:
            cJSON_AddNullToObject(fields, f[i].key);
            break;
        }
    }
}

cJSON *gw_event_to_json(const gw_event *ev)
{
    char ts[GW_RFC3339_LEN];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        abort();
    cJSON_AddStringToObject(o, "timestamp", gw_rfc3339_ms(ev->wall_ms, ts));
    cJSON_AddStringToObject(o, "type", gw_event_kind_name(ev->kind));
    switch (ev->kind) {
    case GW_EV_JOB_START: {
        cJSON_AddNumberToObject(o, "pid", (double)ev->job_start.pid);
        cJSON *cmd = cJSON_AddArrayToObject(o, "command");
        for (int i = 0; i < ev->job_start.argc; i++)
            cJSON_AddItemToArray(cmd, cJSON_CreateString(ev->job_start.argv[i]));
        cJSON_AddBoolToObject(o, "pty", ev->job_start.pty);
        break;
    }
    case GW_EV_JOB_EXIT:
        cJSON_AddNumberToObject(o, "pid", (double)ev->job_exit.pid);
        add_gpu(o, "code", ev->job_exit.code);
        if (ev->job_exit.signal) {
            cJSON_AddNumberToObject(o, "signal", ev->job_exit.signal);
            cJSON_AddStringToObject(o, "signal_name",
                                    ev->job_exit.signal_name ? ev->job_exit.signal_name : "");
        }
        cJSON_AddNumberToObject(o, "status", ev->job_exit.status);
        break;
    case GW_EV_GPU_LOST:
        cJSON_AddNumberToObject(o, "gpu", ev->gpu_lost.gpu);
        cJSON_AddStringToObject(o, "uuid", ev->gpu_lost.uuid ? ev->gpu_lost.uuid : "");
        cJSON_AddStringToObject(o, "pci_bus_id",
                                ev->gpu_lost.pci_bus_id ? ev->gpu_lost.pci_bus_id : "");
        cJSON_AddStringToObject(o, "call", ev->gpu_lost.call ? ev->gpu_lost.call : "");
        cJSON_AddStringToObject(o, "error", ev->gpu_lost.error ? ev->gpu_lost.error : "");
        break;
    case GW_EV_EPOCH: {
        cJSON_AddNumberToObject(o, "epoch", (double)ev->epoch.epoch);
        if (ev->epoch.total >= 0)
            cJSON_AddNumberToObject(o, "total", (double)ev->epoch.total);
        char cut[GW_EVENT_LINE_MAX + 1];
        snprintf(cut, sizeof cut, "%s", ev->epoch.line ? ev->epoch.line : "");
        cJSON_AddStringToObject(o, "line", cut);
        break;
    }
    case GW_EV_MARK:
        cJSON_AddStringToObject(o, "text", ev->mark.text ? ev->mark.text : "");
        add_mark_fields(o, ev->mark.fields, ev->mark.nfields);
        cJSON_AddNumberToObject(o, "pid", (double)ev->mark.pid);
        break;
    case GW_EV_XID:
        cJSON_AddNumberToObject(o, "gpu", ev->xid.gpu);
        cJSON_AddNumberToObject(o, "xid", (double)ev->xid.xid);
        break;
    case GW_EV_ECC_DOUBLE_BIT:
        cJSON_AddNumberToObject(o, "gpu", ev->ecc.gpu);
        break;
    case GW_EV_ALERT:
    case GW_EV_ALERT_RESOLVED:
        add_alert(o, &ev->alert);
        break;
    default:
        break;
    }
    return o;
}

/* Renders the event as one line ending in '\n'; the caller frees it. */
static char *render_line(const gw_event *event, size_t *len)
{
    cJSON *o = gw_event_to_json(event);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!json)
        abort();
    size_t n = strlen(json);
    char *line = xmalloc(n + 2);
    memcpy(line, json, n);
    line[n] = '\n';
    line[n + 1] = '\0';
    cJSON_free(json);
    *len = n + 1;
    return line;
}

/* Writes line whole or not at all: a write cut short (a full disk, a file size limit) is taken
 * back, so that no partial line is left for the next one to be glued to. Returns 0 or the errno.
 * The taking back happens only while the file still ends with our bytes (another writer's line
 * appended since is left alone). */
static int write_whole_line(int fd, const char *line, size_t len)
{
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t n = write(fd, line + done, len - done); /* O_APPEND: one write keeps lines whole */
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    if (e && done) {
        struct stat st;
        off_t end = lseek(fd, 0, SEEK_CUR);
        if (end >= (off_t)done && fstat(fd, &st) == 0 && st.st_size == end &&
            ftruncate(fd, end - (off_t)done) != 0) {
            /* nothing more to do: the reader skips a line it cannot parse */
        }
    }
    return e;
}

bool gw_eventlog_write(gw_eventlog *log, const gw_event *event)
{
    size_t len;
    char *line = render_line(event, &len);
    /* After a failure each later event is still tried, whole or not at all: the job's exit,
     * short, may fit where a long alert did not. The first error is kept for meta.json. */
    int e = write_whole_line(log->fd, line, len);
    if (e && !log->err_no)
        log->err_no = e;
    free(line);
    return e == 0;
}

void gw_eventlog_listener(void *ctx, const gw_event *event)
{
    gw_eventlog_write(ctx, event);
}

int gw_eventlog_errno(const gw_eventlog *log)
{
    return log->err_no;
}

bool gw_eventlog_take_error(gw_eventlog *log, gw_error *err)
{
    if (!log || !log->err_no || log->err_said)
        return false;
    log->err_said = true;
    gw_error_set(err, GW_E_IO,
                 "cannot write events.jsonl: %s; an event that does not fit is left out whole, "
                 "and the recording goes on: free some space",
                 strerror(log->err_no));
    return true;
}

void gw_eventlog_close(gw_eventlog *log)
{
    if (!log)
        return;
    fsync(log->fd);
    close(log->fd);
    free(log);
}

gw_rc gw_eventlog_append(const char *path, const gw_event *event, gw_error *err)
{
    gw_eventlog *log = NULL;
    gw_rc rc = gw_eventlog_open(path, &log, err);
    if (rc)
        return rc;
    if (!gw_eventlog_write(log, event))
        rc = gw_error_set(err, GW_E_IO, "cannot write %s: %s; the marker was not recorded", path,
                          strerror(log->err_no));
    close(log->fd);
    free(log);
    return rc;
}

#include "record/meta.h"
#include "util/gw_json.h"

#include "record/csv_file.h"
#include "util/gw_file.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A number, or null when absent (NAN). */

static cJSON *devices_json(const gw_meta *m)
{
    cJSON *arr = cJSON_CreateArray();
    for (unsigned i = 0; i < m->device_count; i++) {
        const gw_device_info *d = &m->devices[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", d->index);
        cJSON_AddStringToObject(o, "name", d->name);
        cJSON_AddStringToObject(o, "uuid", d->uuid);
        cJSON_AddStringToObject(o, "pci_bus_id", d->pci_bus_id);
        gw_json_add_num(o, "memory_total_mib", d->memory_total_mib, -1);
        gw_json_add_num(o, "power_limit_w", d->power_limit_w, -1);
        gw_json_add_num(o, "slowdown_temp_c", d->slowdown_temp_c, -1);
        gw_json_add_num(o, "max_sm_clock_mhz", d->max_sm_clock_mhz, -1);
        cJSON_AddBoolToObject(o, "gpm_supported", d->gpm_supported);
        cJSON_AddBoolToObject(o, "mig_enabled", d->mig_enabled);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *meta_json(const gw_meta *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "gpuwatch_version", GPUWATCH_VERSION);
    cJSON_AddStringToObject(o, "mode", m->mode);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    cJSON_AddStringToObject(o, "host", host);
    cJSON_AddStringToObject(o, "driver_version", m->driver_version ? m->driver_version : "");
    cJSON_AddStringToObject(o, "nvml_version", m->nvml_version ? m->nvml_version : "");
    if (m->cuda_driver_version)
        cJSON_AddNumberToObject(o, "cuda_driver_version", m->cuda_driver_version);
    else
        cJSON_AddNullToObject(o, "cuda_driver_version");
    cJSON_AddStringToObject(o, "nvml_library", m->nvml_library ? m->nvml_library : "");
    cJSON_AddItemToObject(o, "devices", devices_json(m));
    cJSON *cmd = cJSON_CreateArray();
    for (int i = 0; i < m->argc; i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(m->argv[i]));
    cJSON_AddItemToObject(o, "command", cmd);
    char cwd[PATH_MAX];
    cJSON_AddStringToObject(o, "cwd", getcwd(cwd, sizeof cwd) ? cwd : "");
    gw_json_add_time(o, "start_time", m->start_wall_ms);
    gw_json_add_time(o, "end_time", m->end_wall_ms);
    cJSON_AddNumberToObject(o, "interval_ms", (double)m->interval_ms);
    if (m->job_pid)
        cJSON_AddNumberToObject(o, "job_pid", (double)m->job_pid);
    if (m->end_wall_ms && m->job_pid) {
        cJSON *ex = cJSON_AddObjectToObject(o, "exit");
        if (m->exit_code >= 0)
            cJSON_AddNumberToObject(ex, "code", m->exit_code);
        else
            cJSON_AddNullToObject(ex, "code");
        if (m->exit_signal)
            cJSON_AddNumberToObject(ex, "signal", m->exit_signal);
        else
            cJSON_AddNullToObject(ex, "signal");
        cJSON_AddNumberToObject(ex, "status", m->exit_signal ? 128 + m->exit_signal : m->exit_code);
    } else {
        cJSON_AddNullToObject(o, "exit");
    }
    if (m->end_reason)
        cJSON_AddStringToObject(o, "end_reason", m->end_reason);
    cJSON_AddBoolToObject(o, "complete", m->complete);
    if (m->complete || !m->incomplete) {
        cJSON_AddNullToObject(o, "incomplete");
    } else {
        cJSON *inc = cJSON_AddObjectToObject(o, "incomplete");
        cJSON_AddStringToObject(inc, "reason", m->incomplete);
        cJSON_AddStringToObject(inc, "detail", m->incomplete_detail ? m->incomplete_detail : "");
    }
    if (m->job)
        cJSON_AddItemToObject(o, "job", gw_job_json(m->job));
    if (m->python_instrumentation)
        cJSON_AddStringToObject(o, "python_instrumentation", m->python_instrumentation);
    cJSON *st = cJSON_AddObjectToObject(o, "sampling");
    cJSON_AddNumberToObject(st, "ticks", (double)m->ticks);
    cJSON_AddNumberToObject(st, "ticks_skipped", (double)m->ticks_skipped);
    cJSON_AddNumberToObject(st, "max_tick_read_ms", m->max_tick_read_ms);
    return o;
}

/* Room kept for meta.json's later versions (fallocate, the size unchanged): a full disk must not
 * keep the end of a run (its write error above all) out of it. */
enum { META_RESERVE = 16384 };

/* Reserves META_RESERVE bytes of blocks for meta.json (where the file system can). */
static void reserve(int dirfd)
{
    int fd = openat(dirfd, "meta.json", O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, META_RESERVE) != 0) {
        /* not on this file system: the in-place write below may then fail too */
    }
    close(fd);
}

/* Overwrites meta.json in place, in the blocks reserve() kept: only when a new file cannot be
 * written (the disk is full). A crash during these few kilobytes could leave it half written,
 * which a full disk without it would have left stale for sure. */
static bool write_in_place(int dirfd, const char *text)
{
    int fd = openat(dirfd, "meta.json", O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    size_t len = strlen(text), done = 0;
    while (ok && done < len) {
        ssize_t n = pwrite(fd, text + done, len - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += ok ? (size_t)n : 0;
    }
    ok = ok && ftruncate(fd, (off_t)len) == 0 && fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

gw_rc gw_meta_write(int dirfd, const char *dir, const gw_meta *m, gw_error *err)
{
    cJSON *o = meta_json(m);
    char *printed = cJSON_Print(o);
    cJSON_Delete(o);
    if (!printed)
        abort();
    char *text = xasprintf("%s\n", printed);
    cJSON_free(printed);
    char *label = xasprintf("%s/meta.json", dir);
    gw_file_out out;
    gw_rc rc = gw_file_out_open_at(&out, dirfd, "meta.json", label, err);
    if (!rc) {
        fputs(text, out.f);
        rc = gw_file_out_commit(&out, err);
    }
    int e = errno;
    if (!rc)
        reserve(dirfd);
    else if ((e == ENOSPC || e == EDQUOT) && write_in_place(dirfd, text))
        rc = GW_OK; /* the full disk's error is in it (incomplete), said by the caller too */
    free(text);
    free(label);
    return rc;
}

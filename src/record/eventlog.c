#include "record/eventlog.h"

#include "util/gw_file.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gw_eventlog {
    int fd;
    int err_no;
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
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, GW_FILE_MODE);
    return opened(fd, path, out, err);
}

gw_rc gw_eventlog_create_at(int dirfd, const char *name, const char *path, gw_eventlog **out,
                            gw_error *err)
{
    return opened(gw_file_create_at(dirfd, name, O_APPEND), path, out, err);
}

/* Renders the event as one line ending in '\n'; the caller frees it. */
static char *render_line(const cJSON *event, size_t *len)
{
    char *json = cJSON_PrintUnformatted(event);
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

bool gw_eventlog_write(gw_eventlog *log, const cJSON *event)
{
    if (log->err_no)
        return false;
    size_t len;
    char *line = render_line(event, &len);
    /* One write(): O_APPEND keeps concurrent writers' lines whole. */
    ssize_t n = write(log->fd, line, len);
    if (n != (ssize_t)len)
        log->err_no = n < 0 ? errno : ENOSPC;
    free(line);
    return log->err_no == 0;
}

void gw_eventlog_listener(void *ctx, const cJSON *event)
{
    gw_eventlog_write(ctx, event);
}

int gw_eventlog_errno(const gw_eventlog *log)
{
    return log->err_no;
}

void gw_eventlog_close(gw_eventlog *log)
{
    if (!log)
        return;
    fsync(log->fd);
    close(log->fd);
    free(log);
}

gw_rc gw_eventlog_append(const char *path, const cJSON *event, gw_error *err)
{
    gw_eventlog *log = NULL;
    gw_rc rc = gw_eventlog_open(path, &log, err);
    if (rc)
        return rc;
    if (!gw_eventlog_write(log, event))
        rc = gw_error_set(err, GW_E_IO, "cannot write %s: %s", path, strerror(log->err_no));
    close(log->fd);
    free(log);
    return rc;
}

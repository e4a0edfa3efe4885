#include "run/output.h"

#include "record/csv_file.h"
#include "util/gw_file.h"
#include "util/gw_termline.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void stop_index(gw_output *o)
{
    if (o->idx_fd >= 0)
        close(o->idx_fd);
    o->idx_fd = -1;
}

void gw_output_index_note(gw_output *o, const char *key, const char *value)
{
    if (o->idx_fd < 0)
        return;
    char *line = xasprintf("# %s: %s\n", key, value);
    for (char *p = line + 2; p[1]; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (gw_write_all(o->idx_fd, line, strlen(line)) != 0)
        stop_index(o);
    free(line);
}

gw_rc gw_output_open(gw_output *o, int dirfd, const char *dir, gw_error *err)
{
    memset(o, 0, sizeof *o);
    o->echo_out = STDOUT_FILENO;
    o->echo_err = STDERR_FILENO;
    char *path = xasprintf("%s/output.log", dir);
    o->log_fd = gw_file_create_at(dirfd, "output.log", O_APPEND);
    o->idx_fd = o->log_fd >= 0 ? gw_file_create_at(dirfd, "output.idx", O_APPEND) : -1;
    static const char head[] = "# gpuwatch output index 1: OFFSET UNIX_MS a line; the bytes of "
                               "output.log from OFFSET on arrived at UNIX_MS\n";
    if (o->idx_fd >= 0 && gw_write_all(o->idx_fd, head, sizeof head - 1) != 0)
        stop_index(o);
    gw_rc rc = GW_OK;
    if (o->log_fd < 0)
        rc = gw_error_set(err, GW_E_IO, "cannot create %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

void gw_output_write(gw_output *o, const char *data, size_t n, bool to_stderr, int64_t wall_ms)
{
    o->last_output_ms = wall_ms;
    if (o->log_fd >= 0 && !o->log_errno) {
        if (o->idx_fd >= 0 && wall_ms != o->idx_last_ms) {
            char entry[48];
            int len = snprintf(entry, sizeof entry, "%" PRIu64 " %" PRId64 "\n", o->bytes, wall_ms);
            if (gw_write_all(o->idx_fd, entry, (size_t)len) != 0)
                stop_index(o); /* the log goes on; its lines lose their times */
            o->idx_last_ms = wall_ms;
        }
        int e = gw_write_all(o->log_fd, data, n);
        if (e)
            o->log_errno = e;
    }
    o->bytes += n;
    int *echo = to_stderr ? &o->echo_err : &o->echo_out;
    if (*echo >= 0 && gw_write_all(*echo, data, n) != 0)
        *echo = -1; /* closed pipe or lost terminal: keep recording, stop echoing */
    else if (*echo >= 0)
        gw_termline_note(*echo, data, n); /* gpuwatch's next line starts on a fresh one */
}

bool gw_output_take_error(gw_output *o, gw_error *err)
{
    if (!o->log_errno || o->log_reported)
        return false;
    o->log_reported = true;
    gw_error_set(err, GW_E_IO,
                 "cannot write output.log: %s; the command's output is still shown, and the "
                 "recording goes on",
                 strerror(o->log_errno));
    return true;
}

void gw_output_close(gw_output *o)
{
    if (o->idx_fd >= 0)
        fsync(o->idx_fd);
    stop_index(o);
    if (o->log_fd >= 0) {
        fsync(o->log_fd);
        close(o->log_fd);
    }
    o->log_fd = -1;
}

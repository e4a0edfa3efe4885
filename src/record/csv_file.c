#include "record/csv_file.h"

#include "util/gw_file.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Like gw_write_all, also telling how many bytes made it. */
static int write_counted(int fd, const char *data, size_t len, size_t *written)
{
    *written = 0;
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        data += n;
        len -= (size_t)n;
        *written += (size_t)n;
    }
    return 0;
}

int gw_write_all(int fd, const char *data, size_t len)
{
    size_t written;
    return write_counted(fd, data, len, &written);
}

gw_rc gw_csv_file_open_at(gw_csv_file *f, int dirfd, const char *name, const char *path,
                          const char *header, gw_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = gw_file_create_at(dirfd, name, O_APPEND);
    if (f->fd < 0)
        return gw_error_set(err, GW_E_IO, "cannot create %s: %s: choose another -o DIR", path,
                            strerror(errno));
    f->path = xstrdup(path);
    f->max_delay_ns = INT64_C(1000000000);
    int e = gw_write_all(f->fd, header, strlen(header));
    f->size = strlen(header);
    if (e) {
        gw_error_set(err, GW_E_IO, "cannot write %s: %s", path, strerror(e));
        gw_csv_file_close(f);
        return GW_E_IO;
    }
    return GW_OK;
}

gw_rc gw_csv_file_open(gw_csv_file *f, const char *path, const char *header, gw_error *err)
{
    return gw_csv_file_open_at(f, AT_FDCWD, path, path, header, err);
}

bool gw_csv_file_flush(gw_csv_file *f)
{
    if (f->fd < 0 || f->err_no)
        return false;
    if (f->pending.len) {
        size_t written = 0;
        int e = write_counted(f->fd, f->pending.data, f->pending.len, &written);
        if (e) {
            /* A short write may have left part of a row: cut the file back to whole rows. */
            size_t whole = written;
            while (whole > 0 && f->pending.data[whole - 1] != '\n')
                whole--;
            /* If even this fails, readers skip a partial last row. */
            int te = ftruncate(f->fd, (off_t)(f->size + whole));
            (void)te;
            f->size += whole;
            f->err_no = e;
        } else {
            f->size += written;
        }
        gw_buf_reset(&f->pending);
    }
    return f->err_no == 0;
}

void gw_csv_file_row(gw_csv_file *f, const char *row, size_t len, int64_t now_ns, int64_t next_ns)
{
    if (f->fd < 0 || f->err_no)
        return;
    if (f->pending.len == 0)
        f->oldest_ns = now_ns;
    gw_buf_append(&f->pending, row, len);
    if (next_ns - f->oldest_ns >= f->max_delay_ns || f->pending.len > 60000)
        gw_csv_file_flush(f);
}

void gw_csv_file_close(gw_csv_file *f)
{
    if (f->fd >= 0) {
        gw_csv_file_flush(f);
        fsync(f->fd);
        close(f->fd);
    }
    f->fd = -1;
    gw_buf_free(&f->pending);
    free(f->path);
    f->path = NULL;
}

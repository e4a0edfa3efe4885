/*
 * csv_file: an append-only file of whole rows with a bounded flush delay.
 *
 * Owns: the file descriptor and a buffer of complete rows. Rows are written with one write() per
 * flush, only ever whole rows, and a flush happens whenever the oldest buffered row would
 * otherwise wait a second or more — so a recorder killed with SIGKILL loses at most the last
 * second and never leaves a partial row. A write error (disk full, I/O error) is kept: the file
 * stops accepting rows, rows already on disk stay intact, and the error is reported once through
 * gw_csv_file_error. Must not: format values (csv_sink does).
 */
#ifndef GW_CSV_FILE_H
#define GW_CSV_FILE_H

#include "util/gw_buf.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct gw_csv_file {
    int fd;
    char *path;
    gw_buf pending;       /* complete rows not yet written */
    int64_t oldest_ns;    /* monotonic time of the oldest pending row */
    int64_t max_delay_ns; /* flush when a row would wait longer (default 1 s) */
    int err_no;           /* 0, or the errno of the first failed write */
    size_t size;          /* bytes of whole rows on disk */
} gw_csv_file;

/* Creates name in the directory dirfd (O_EXCL|O_NOFOLLOW: never overwrites, never follows a link;
 * util/gw_file.h) and writes the header line. path names the file in messages. */
GW_MUST_USE gw_rc gw_csv_file_open_at(gw_csv_file *f, int dirfd, const char *name, const char *path,
                                      const char *header, gw_error *err);
/* The same for a path relative to the current directory. */
GW_MUST_USE gw_rc gw_csv_file_open(gw_csv_file *f, const char *path, const char *header,
                                   gw_error *err);

/* Appends one complete row (must end in '\n'). now_ns: monotonic time; next_ns: when the next row
 * is expected (so a row is flushed now if it would otherwise wait past max_delay_ns). */
void gw_csv_file_row(gw_csv_file *f, const char *row, size_t len, int64_t now_ns, int64_t next_ns);

/* Writes pending rows now. Returns false when the file is in error. */
bool gw_csv_file_flush(gw_csv_file *f);

/* Flushes, fsyncs and closes. */
void gw_csv_file_close(gw_csv_file *f);

/* Writes a full buffer, retrying short writes and EINTR. Returns 0 or an errno value. */
int gw_write_all(int fd, const char *data, size_t len);

#endif

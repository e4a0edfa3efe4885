/*
 * output: what happens to the wrapped command's output bytes.
 *
 * Owns: output.log (every byte as the command printed it, escape sequences and carriage returns
 * included), the copy to gpuwatch's own stdout/stderr (dropped, without failing the run, once that
 * copy fails: a closed pipe or a lost terminal), and line splitting for watchers: a line ends at
 * '\n' or '\r' (progress bars redraw with '\r'), has ANSI escape sequences removed, and is cut at
 * GW_OUTPUT_LINE_MAX bytes. Must not: interpret lines (watchers do).
 */
#ifndef GW_OUTPUT_H
#define GW_OUTPUT_H

#include "util/gw_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { GW_OUTPUT_LINE_MAX = 4096 };

/* Called with each complete line (NUL-terminated, no line end, no escape sequences). */
typedef void (*gw_line_fn)(void *ctx, const char *line, int64_t wall_ms);

typedef struct gw_line_splitter {
    char line[GW_OUTPUT_LINE_MAX + 1];
    size_t len;
    int esc;         /* 0 none, 1 after ESC, 2 inside CSI, 3 inside OSC */
    gw_line_fn fn;
    void *ctx;
} gw_line_splitter;

/* Feeds bytes; calls fn for every line completed. */
void gw_line_splitter_feed(gw_line_splitter *ls, const char *data, size_t n, int64_t wall_ms);
/* Delivers a last line without line end, if any. */
void gw_line_splitter_finish(gw_line_splitter *ls, int64_t wall_ms);

typedef struct gw_output {
    int log_fd;           /* output.log, -1 when it could not be written */
    int log_errno;        /* first write error of output.log, 0 if none */
    bool log_reported;
    int echo_out, echo_err; /* gpuwatch's stdout / stderr, -1 once writing there failed */
    int64_t last_output_ms; /* wall time of the last byte received, 0 before any */
    uint64_t bytes;
} gw_output;

/* Creates DIR/output.log (never overwriting). */
gw_rc gw_output_open(gw_output *o, const char *dir, gw_error *err);

/* Handles bytes from the command: to output.log, to stdout (to_stderr false) or stderr. */
void gw_output_write(gw_output *o, const char *data, size_t n, bool to_stderr, int64_t wall_ms);

/* When output.log could not be written, fills err once and returns true. */
bool gw_output_take_error(gw_output *o, gw_error *err);

void gw_output_close(gw_output *o);

#endif

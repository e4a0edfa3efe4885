/*
 * line_split: splits a program's output into lines for watchers — the epoch matcher of `run`, the
 * report's reading of output.log.
 *
 * Owns: the rule of what a line is: it ends at '\n' or '\r' (progress bars redraw with '\r'),
 * has ANSI escape sequences (CSI, OSC, two-byte escapes) removed, and is cut at
 * GW_OUTPUT_LINE_MAX bytes. Must not: interpret lines, or allocate (a splitter is a plain struct).
 */
#ifndef GW_LINE_SPLIT_H
#define GW_LINE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

enum { GW_OUTPUT_LINE_MAX = 4096 };

/* Called with each complete line (NUL-terminated, no line end, no escape sequences) and the time
 * its last character arrived: a progress bar's redraw is ended by the '\r' of the next one,
 * which may come much later. */
typedef void (*gw_line_fn)(void *ctx, const char *line, int64_t wall_ms);

typedef struct gw_line_splitter {
    char line[GW_OUTPUT_LINE_MAX + 1];
    size_t len;
    int esc;         /* 0 none, 1 after ESC, 2 inside CSI, 3 inside OSC */
    int64_t text_ms; /* when the line's last character arrived */
    gw_line_fn fn;
    void *ctx;
} gw_line_splitter;

/* Feeds bytes; calls fn for every line completed. */
void gw_line_splitter_feed(gw_line_splitter *ls, const char *data, size_t n, int64_t wall_ms);
/* Delivers a last line without line end, if any. */
void gw_line_splitter_finish(gw_line_splitter *ls, int64_t wall_ms);

#endif

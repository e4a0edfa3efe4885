/*
 * lines: reading a log file line by line with the framing real files have: a UTF-8 byte order
 * mark before the first line is removed, NUL bytes (a file that was preallocated, or written
 * again after a crash) are removed and counted, never silently taken for the end of a line.
 * UTF-16 files are converted before they get here (gw_lines_open_utf8).
 * Must not: interpret the lines.
 */
#ifndef GW_LINES_H
#define GW_LINES_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct gw_lines {
    FILE *f;
    char *line; /* the current line, without NUL bytes; owned */
    size_t cap;
    long line_no;        /* 1-based number of the current line */
    size_t nul_bytes;    /* NUL bytes removed so far */
    size_t nul_lines;    /* lines that held at least one */
    long first_nul_line; /* the first of them, 0 when none */
} gw_lines;

/* Takes the NUL bytes out of s[0..n) in place, the other bytes kept in order; the length left
 * (no terminator written). */
size_t gw_lines_drop_nuls(char *s, size_t n);

/* Counts `removed` NUL bytes taken out of line l->line_no (nothing when 0). */
void gw_lines_count_nuls(gw_lines *l, size_t removed);

/* Reads the next line into l->line; returns its length, or -1 at the end of the file. */
ssize_t gw_lines_next(gw_lines *l);
void gw_lines_free(gw_lines *l);

/* Opens path for reading as UTF-8 text: a file that starts with a UTF-16 byte order mark (what
 * PowerShell's `>` writes), or without one with two ASCII characters in UTF-16, is converted into
 * memory and *converted set true. NULL (errno set) when it cannot be opened. */
FILE *gw_lines_open_utf8(const char *path, bool *converted);

#endif

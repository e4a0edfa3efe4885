/*
 * gw_wrap: plain text output fitted to a width (80 columns) by wrapping long lines with a hanging
 * indent, so that lines written for wide screens (verdicts, evidence, --help texts) still read.
 *
 * Owns: where a long line breaks (at a space, never inside a word unless the word alone is too
 * long; never between a number and its unit, "100 %") and how far its continuation lines are
 * indented: under the text after the last gap of two or more spaces within the first 40 columns
 * (the message column of a table-like line, the description column of an option), else after a
 * leading "label: ", else the line's own indent plus 2. Columns count characters, not bytes (UTF-8) and not ANSI colour sequences.
 * Must not: change lines that fit, or any byte but the spaces it turns into line breaks.
 */
#ifndef GW_WRAP_H
#define GW_WRAP_H

#include <stddef.h>
#include <stdio.h>

enum { GW_WRAP_WIDTH = 80, GW_WRAP_MIN = 40 };

/* Writes text (any number of lines) to out, each line wrapped to width columns. */
void gw_wrap_write(FILE *out, const char *text, size_t len, int width);

/* Collects what a printer writes, then writes it to out wrapped to the terminal's width, when out
 * is a terminal (a person reads it); to a pipe or a file the lines go whole, as scripts and `grep`
 * expect them:
 *     gw_wrap_stream w; FILE *f = gw_wrap_begin(&w, stdout); print(f); gw_wrap_end(&w);
 * Not a terminal, or no memory: gw_wrap_begin returns out itself. */
typedef struct gw_wrap_stream {
    FILE *mem, *out;
    int width; /* the terminal's columns, or GW_WRAP_WIDTH */
    char *buf;
    size_t len;
} gw_wrap_stream;
FILE *gw_wrap_begin(gw_wrap_stream *w, FILE *out);
/* The same, but a pipe or a file gets lines of GW_WRAP_WIDTH too (the report's text: every line
 * fits 80 columns wherever it goes). */
FILE *gw_wrap_begin_always(gw_wrap_stream *w, FILE *out);
/* The width a wrap stream on out uses: the terminal's columns (at least GW_WRAP_MIN), else
 * GW_WRAP_WIDTH. */
int gw_wrap_width_of(FILE *out);
void gw_wrap_end(gw_wrap_stream *w);

/* The same for help texts: a line's continuation lines (indented 8 or more, not starting with
 * '-') are joined to it first and the whole wrapped again, hanging at the first continuation
 * line's indent, so that a text pre-broken for a wider screen reflows instead of turning ragged. */
void gw_wrap_reflow(FILE *out, const char *text, size_t len, int width);

/* gw_wrap_reflow of a NUL-terminated text to GW_WRAP_WIDTH (help texts). */
void gw_wrap_puts(const char *text, FILE *out);

#endif

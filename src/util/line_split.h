/*
 * line_split: splits a program's output into lines for watchers — the epoch matcher of `run`, the
 * report's reading of output.log.
 *
 * Owns: the rule of what a line is: it ends at '\n' or '\r' (progress bars redraw with '\r'),
 * has ANSI escape sequences (CSI, OSC, two-byte escapes: gw_esc_step) removed, and is cut at
 * GW_OUTPUT_LINE_MAX bytes. Must not: interpret lines, or allocate (a splitter is a plain struct).
 */
#ifndef GW_LINE_SPLIT_H
#define GW_LINE_SPLIT_H

#include <stdbool.h>
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
    int esc;         /* GW_ESC_*: gw_esc_step's state */
    int64_t text_ms; /* when the line's last character arrived */
    gw_line_fn fn;
    void *ctx;
} gw_line_splitter;

/* The escape-sequence state of a byte stream: 0 text, then GW_ESC_* while inside a sequence. */
enum { GW_ESC_NONE = 0, GW_ESC_AFTER_ESC, GW_ESC_CSI, GW_ESC_STRING };

/* The one rule of what an escape sequence in a program's output covers (for line_split and
 * logread/outclean): ESC '[' starts a CSI, which ends at a byte 0x40..0x7e; ESC ']' (OSC) and
 * ESC 'P', 'X', '^', '_' (DCS, SOS, PM, APC) start a string, which ends at BEL or ESC '\'; any
 * other byte after ESC ends a two-byte escape. A line end ('\n', '\r') ends whichever sequence
 * it finds open and is text again, as is any other control byte inside a CSI: one stray ESC ']'
 * (a cut colour code, a binary dump) hides at most the rest of its line, never every later one.
 * Steps *state over c; returns true when c is text (to keep), false when it belongs to a
 * sequence. */
bool gw_esc_step(int *state, unsigned char c);

/* Feeds bytes; calls fn for every line completed. */
void gw_line_splitter_feed(gw_line_splitter *ls, const char *data, size_t n, int64_t wall_ms);
/* Delivers a last line without line end, if any. */
void gw_line_splitter_finish(gw_line_splitter *ls, int64_t wall_ms);

#endif

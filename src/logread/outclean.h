/*
 * outclean: a job's output.log as a person reads it — each progress bar's redraws collapsed to
 * its last state, every line with the time it was printed (from output.idx) — for
 * `gpuwatch log` (docs/epochs.md).
 *
 * Owns: the rule of a cleaned line: a line ends at '\n'; within it, '\r' starts a redraw, and the
 * line shows its last redraw that is not blank (a bar erased at its end still shows its last
 * state); escape sequences (colours, ESC[K; util/line_split.h's gw_esc_step: a line end ends an
 * unterminated one) are removed; what remains is made terminal-safe (util/gw_utf8.h: C1 and bidi
 * controls '?', invalid UTF-8 U+FFFD); its time is when the last character of that redraw
 * arrived: the latest output.idx entry at or before that character's offset, the entries taken
 * to come in offset order, as `gpuwatch run` appends them. Must not: print, or interpret lines
 * (logread/progress.h does).
 */
#ifndef GW_OUTCLEAN_H
#define GW_OUTCLEAN_H

#include "util/gw_error.h"

#include <stddef.h>
#include <stdint.h>

/* One cleaned line (NUL-terminated, len bytes, no line end) and its time (unix ms; 0 when the
 * log has no index). */
typedef void (*gw_outclean_fn)(void *ctx, const char *line, size_t len, int64_t t_ms);

/* Reads log_path (and idx_path, its output.idx, when not NULL) and calls fn for each cleaned
 * line, in order. A last line without line end is delivered too. Errors: a file that cannot be
 * opened or read (GW_E_IO, naming it). */
GW_MUST_USE gw_rc gw_outclean_read(const char *log_path, const char *idx_path, gw_outclean_fn fn,
                                   void *ctx, gw_error *err);

#endif

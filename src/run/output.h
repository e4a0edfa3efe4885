/*
 * output: what happens to the wrapped command's output bytes.
 *
 * Owns: output.log (every byte as the command printed it, escape sequences and carriage returns
 * included), output.idx (when the bytes arrived: a line "OFFSET UNIX_MS" whenever the time
 * changes, docs/run-directory.md; lost index writes stop the index, never the log), the copy to
 * gpuwatch's own stdout/stderr (dropped, without failing the run, once that copy fails: a closed
 * pipe or a lost terminal). Watchers split the bytes into lines with util/line_split.h. Must not:
 * interpret lines (watchers do).
 */
#ifndef GW_OUTPUT_H
#define GW_OUTPUT_H

#include "util/gw_error.h"
#include "util/line_split.h" /* line splitting for watchers (moved there for the report's use) */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gw_output {
    int log_fd;    /* output.log, -1 when it could not be written */
    int log_errno; /* first write error of output.log, 0 if none */
    bool log_reported;
    int echo_out, echo_err; /* gpuwatch's stdout / stderr, -1 once writing there failed */
    int64_t last_output_ms; /* wall time of the last byte received, 0 before any */
    uint64_t bytes;
    int idx_fd;          /* output.idx, -1 when it could not be written */
    int64_t idx_last_ms; /* time of the last index entry, 0 before any */
} gw_output;

/* Creates output.log in the run directory dirfd (never overwriting, never following a link); dir
 * names it in messages. */
GW_MUST_USE gw_rc gw_output_open(gw_output *o, int dirfd, const char *dir, gw_error *err);

/* Writes "# key: value" into output.idx's header (before any output): the --epoch-regex of the
 * run, so that the report reads the output as the run did. Line ends in value become spaces. */
void gw_output_index_note(gw_output *o, const char *key, const char *value);

/* Handles bytes from the command: to output.log, to stdout (to_stderr false) or stderr. */
void gw_output_write(gw_output *o, const char *data, size_t n, bool to_stderr, int64_t wall_ms);

/* When output.log could not be written, fills err once and returns true. */
bool gw_output_take_error(gw_output *o, gw_error *err);

void gw_output_close(gw_output *o);

#endif

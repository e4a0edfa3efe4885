/*
 * mark: markers — events that a training job writes into the recording of the `gpuwatch run`
 * that wraps it, to line up what the script knows (epoch, step, validation, allocator
 * statistics) with what the GPU did.
 *
 * Owns: the mark event, {"timestamp", "type": "mark", "text", "fields": {...}, "pid"}, and
 * appending it to $GPUWATCH_RUN_DIR/events.jsonl with one write() per line on an O_APPEND
 * descriptor (record/eventlog.h), so that any number of writers — gpuwatch itself, `gpuwatch
 * mark`, python/gpuwatch.py — never tear or interleave a line. The Python module writes the same
 * format (docs/markers.md). Must not: parse command lines or print (the CLI does).
 */
#ifndef GW_MARK_H
#define GW_MARK_H

#include "events/events.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stdint.h>

/* Adds "KEY=VALUE" to the fields: VALUE becomes a number when it is a finite decimal
 * number ("3", "-0.5", "1e-3"), true/false/null for those words, else a string (a repeated KEY
 * keeps the last VALUE). Errors: GW_E_USAGE when there is no
 * '=' or the key is empty. */
GW_MUST_USE gw_rc gw_mark_field(gw_event_fields *fields, const char *key_value, gw_error *err);

/* A mark event at wall_ms (0 = now): text, fields (NULL = {}), pid. It borrows text and fields,
 * which must outlive it. */
gw_event gw_mark_event(const char *text, const gw_event_fields *fields, long pid, int64_t wall_ms);

/* Appends event to RUN_DIR/events.jsonl. *written is false, and nothing happens, when run_dir is
 * NULL or "" or holds no events.jsonl (not inside `gpuwatch run`, or a run that is gone).
 * Errors: GW_E_IO when the file exists but the line cannot be written. */
GW_MUST_USE gw_rc gw_mark_append(const char *run_dir, const gw_event *event, bool *written,
                                 gw_error *err);

#endif

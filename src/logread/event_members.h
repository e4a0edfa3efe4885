/*
 * event_members (internal to logread/): the reading edge of events.jsonl — a line back into the
 * bus's gw_event (the writing edge is record/eventlog.c), and into the series event the report
 * reads (time, type, GPU, code, an alert's rule, value, threshold and the processes of a
 * job_stalled alert, job_exit's signal, a mark's fields) — and the end of output.log.
 * Must not: interpret them (analysis/ does).
 */
#ifndef GW_EVENT_MEMBERS_H
#define GW_EVENT_MEMBERS_H

#include "events/events.h"
#include "logread/series.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

enum {
    GW_TAIL_MAX_BYTES = 65536, /* output.log is read from this far before its end */
    GW_TAIL_MAX_LINES = 200,   /* and its last lines kept */
    GW_MARK_MAX_FIELDS = 64,   /* a marker's first fields read; 40,000 took 9 s (duplicate
                                  keys are looked for in the ones read so far) */
};

/* An events.jsonl line read back into the bus's event type: the reading edge of gw_event (the
 * writing edge is record/eventlog.c). The event's strings and arrays are owned here. */
typedef struct gw_event_read {
    gw_event ev;
    cJSON *doc;             /* the parsed line: the event's strings point into it */
    char **argv;            /* job_start's command (pointers into doc) */
    gw_event_fields fields; /* mark's fields */
} gw_event_read;

/* Parses one line. False when it is not a JSON object with an RFC 3339 "timestamp" and a "type"
 * that gpuwatch writes (other tools' lines are read by the series reader alone); *out then holds
 * nothing to free. Members that are absent or of the wrong type read as gw_event_make's
 * defaults. */
bool gw_event_read_line(const char *line, gw_event_read *out);
void gw_event_read_free(gw_event_read *r);

/* Adds one events.jsonl line to the series as an event of input `input`: gpuwatch's own kinds
 * through gw_event_read_line, lines of other tools (other types, "index" for "gpu", ...) by
 * member name. False when the line has no readable "timestamp" and "type" (the caller counts it
 * as skipped). */
bool gw_logread_event_line(gw_series *s, size_t input, const char *line);

/* Reads the last lines of DIR/output.log (at most GW_TAIL_MAX_BYTES, GW_TAIL_MAX_LINES) into the
 * series as a tail of input `input`. Nothing happens when the file is missing or empty. */
void gw_logread_output_tail(gw_series *s, const char *dir, size_t input, const char *source);

#endif

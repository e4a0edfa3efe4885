/*
 * event_members (internal to logread/): the members of events.jsonl lines that the job verdicts
 * and markers need beyond time, type, GPU and code — an alert's rule, value, threshold and the
 * processes of a job_stalled alert, job_exit's signal, a mark's fields — and the end of output.log.
 * Must not: interpret them (analysis/ does).
 */
#ifndef GW_EVENT_MEMBERS_H
#define GW_EVENT_MEMBERS_H

#include "logread/series.h"

#include <cjson/cJSON.h>

enum {
    GW_TAIL_MAX_BYTES = 65536, /* output.log is read from this far before its end */
    GW_TAIL_MAX_LINES = 200,   /* and its last lines kept */
};

/* Copies the members of event object o that series.h lists into e. */
void gw_logread_event_members(gw_series_event *e, const cJSON *o);

/* Reads the last lines of DIR/output.log (at most GW_TAIL_MAX_BYTES, GW_TAIL_MAX_LINES) into the
 * series as a tail of input `input`. Nothing happens when the file is missing or empty. */
void gw_logread_output_tail(gw_series *s, const char *dir, size_t input, const char *source);

#endif

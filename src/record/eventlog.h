/*
 * eventlog: appends events to a run directory's events.jsonl, one JSON object per line.
 *
 * Owns: the file descriptor (O_APPEND). Each line goes out in a single write(), so lines from
 * several writers (gpuwatch itself, `gpuwatch mark` in the job's processes) never interleave
 * inside a line. Owns the JSON form of gw_event (the reader is logread/event_members.h). Must
 * not: decide which events exist.
 */
#ifndef GW_EVENTLOG_H
#define GW_EVENTLOG_H

#include "events/events.h"
#include "util/gw_error.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct gw_eventlog gw_eventlog;

/* Opens (creating if needed) path for appending; a symbolic link there is an error (ELOOP), not
 * followed, and so is anything but a regular file (a FIFO would block the open forever), a file
 * of another user and one with more than one name (a hard link to a file elsewhere). */
GW_MUST_USE gw_rc gw_eventlog_open(const char *path, gw_eventlog **out, gw_error *err);
/* Creates name in the run directory dirfd (O_EXCL|O_NOFOLLOW, util/gw_file.h) for appending; path
 * names it in messages. */
GW_MUST_USE gw_rc gw_eventlog_create_at(int dirfd, const char *name, const char *path,
                                        gw_eventlog **out, gw_error *err);
/* Appends one event as a whole line, or nothing: a write cut short (a full disk) is taken back.
 * Later events are still tried. Returns false when this write failed (the first errno is kept). */
bool gw_eventlog_write(gw_eventlog *log, const gw_event *event);
/* A gw_event_fn that calls gw_eventlog_write; ctx is the gw_eventlog. */
void gw_eventlog_listener(void *ctx, const gw_event *event);
/* 0, or the errno of the first failed write. */
int gw_eventlog_errno(const gw_eventlog *log);
/* True once, after the first failed write, with err saying it (GW_E_IO, naming events.jsonl);
 * false before and after. NULL log: false. */
bool gw_eventlog_take_error(gw_eventlog *log, gw_error *err);
void gw_eventlog_close(gw_eventlog *log);

/* The event as events.jsonl's JSON object (docs/events.md): "timestamp", "type", then the kind's
 * members in their documented order. The one place where events become JSON. The caller frees it
 * with cJSON_Delete. */
cJSON *gw_event_to_json(const gw_event *event);

/* Appends one event line to path without keeping it open (for short-lived writers). */
GW_MUST_USE gw_rc gw_eventlog_append(const char *path, const gw_event *event, gw_error *err);

#endif

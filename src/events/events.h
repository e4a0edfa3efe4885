/*
 * events: the bus that carries discrete events (job_start, job_exit, gpu_lost, alert,
 * alert_resolved, xid, epoch, mark, ...) from whoever detects them to every listener (the
 * events.jsonl writer, the stderr printer, the HTTP exporter).
 *
 * An event is a cJSON object with at least "timestamp" (RFC 3339 UTC, ms) and "type"; other members
 * are the type's own (documented in docs/events.md). Emitting is thread-safe: listeners run under
 * the bus's mutex, in the emitting thread, in the order they were added, and must return quickly
 * (no NVML calls, no waiting on other threads). Must not: interpret events.
 */
#ifndef GW_EVENTS_H
#define GW_EVENTS_H

#include <cjson/cJSON.h>
#include <stdint.h>

typedef struct gw_events gw_events;

/* A listener sees each event; it must not keep the pointer after returning. */
typedef void (*gw_event_fn)(void *ctx, const cJSON *event);

gw_events *gw_events_new(void);
/* Frees the bus; listeners' contexts are not freed. NULL is accepted. */
void gw_events_free(gw_events *bus);
void gw_events_listen(gw_events *bus, gw_event_fn fn, void *ctx);
/* Removes the listener added with the same fn and ctx (nothing when there is none). After it
 * returns, fn is not running and will not be called again with ctx. */
void gw_events_unlisten(gw_events *bus, gw_event_fn fn, const void *ctx);

/* Creates an event object with "timestamp" (from wall_ms, or now when wall_ms is 0) and "type".
 * The caller adds members and passes it to gw_events_emit. */
cJSON *gw_event_new(const char *type, int64_t wall_ms);

/* Delivers the event to every listener, then frees it (takes ownership). bus may be NULL (the
 * event is then just freed). */
void gw_events_emit(gw_events *bus, cJSON *event);

#endif

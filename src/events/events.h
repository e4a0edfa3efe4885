/*
 * events: the bus that carries discrete events (job_start, job_exit, gpu_lost, alert,
 * alert_resolved, xid, epoch, mark, ...) from whoever detects them to every listener (the
 * events.jsonl writer, the stderr printer, the HTTP exporter, the alert engine).
 *
 * Owns: gw_event, one type for every event: a kind and the kind's typed payload (docs/events.md
 * lists the members of each kind as they appear in events.jsonl). JSON exists only at the file
 * edges: src/record/eventlog.c writes events.jsonl lines and src/logread/event_members.c reads
 * them back; nothing else turns events into text or back.
 *
 * Emitting is thread-safe: listeners run under the bus's mutex, in the emitting thread, in the
 * order they were added, and must return quickly (no NVML calls, no waiting on other threads).
 * A listener must not emit: the bus's mutex is held while it runs, so an emit from a listener
 * deadlocks (a listener that must react with an event queues the work for its own thread, as the
 * alert engine does). Must not: interpret events.
 */
#ifndef GW_EVENTS_H
#define GW_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum gw_event_kind {
    GW_EV_JOB_START,
    GW_EV_JOB_EXIT,
    GW_EV_GPU_LOST,
    GW_EV_EPOCH,
    GW_EV_MARK,
    GW_EV_XID,
    GW_EV_ECC_DOUBLE_BIT,
    GW_EV_ALERT,
    GW_EV_ALERT_RESOLVED,
    GW_EV_KIND_COUNT
} gw_event_kind;

/* The "type" of a kind in events.jsonl ("job_start", ...). Never NULL. */
const char *gw_event_kind_name(gw_event_kind k);
/* The kind whose name is type; false when gpuwatch writes no such type. */
bool gw_event_kind_of(const char *type, gw_event_kind *out);

enum {
    GW_EVENT_MAX_GPUS = 64,      /* job_stalled: GPUs judged */
    GW_EVENT_MAX_PROCESSES = 32, /* job_stalled: processes described */
    GW_EVENT_LINE_MAX = 200,     /* epoch: bytes of the output line kept */
};

/* One member of a mark's fields. */
typedef enum gw_event_value_type {
    GW_EVV_NUMBER,
    GW_EVV_STRING,
    GW_EVV_BOOL,
    GW_EVV_NULL,
    GW_EVV_JSON, /* an array or object written by another tool: str holds its JSON text */
} gw_event_value_type;

typedef struct gw_event_field {
    char *key;
    gw_event_value_type type;
    double num; /* GW_EVV_NUMBER */
    bool b;     /* GW_EVV_BOOL */
    char *str;  /* GW_EVV_STRING, GW_EVV_JSON */
} gw_event_field;

/* A growable list of fields that owns its strings (a mark's fields). */
typedef struct gw_event_fields {
    unsigned n, cap;
    gw_event_field *items;
} gw_event_fields;
/* Appends a field, removing an earlier one with the same key (the last one wins); copies key
 * and str. */
void gw_event_fields_put(gw_event_fields *f, const char *key, gw_event_value_type type, double num,
                         bool b, const char *str);
void gw_event_fields_free(gw_event_fields *f);

/* What one process of a stalled job was doing. "" = null for wchan and syscall. */
typedef struct gw_event_process {
    long pid, ppid;
    char name[64];
    char state[2]; /* "S", "D", "R", ...; "?" unknown */
    char wchan[64];
    char syscall[32];
} gw_event_process;

/* Optional members of alert / alert_resolved (gw_event_alert.has): written only when set. The
 * value of a written member may still be null (NAN, -1, NULL). */
enum {
    GW_EVA_METRIC = 1u << 0,
    GW_EVA_CLEAR = 1u << 1,
    GW_EVA_SINCE = 1u << 2,
    GW_EVA_DURATION = 1u << 3,
    GW_EVA_PEAK = 1u << 4,
    GW_EVA_EVENTS = 1u << 5,
    GW_EVA_STALL = 1u << 6, /* gpus, gpu_util_pct, job_cpu_pct, last_output, processes,
                               processes_total (a firing job_stalled) */
    GW_EVA_MESSAGE = 1u << 7,
    GW_EVA_REASON = 1u << 8,
};

typedef struct gw_event_alert {
    unsigned has;         /* GW_EVA_* */
    const char *rule;     /* "temp_critical", "job_stalled" */
    const char *severity; /* "warning", "critical" */
    const char *metric;   /* "temperature", ... */
    int gpu;              /* NVML index; -1: null (the whole job or host) */
    double value;         /* in the metric's unit; NAN: null */
    double threshold;     /* NAN: null (event rules) */
    double clear;         /* NAN: null */
    int64_t since_ms;     /* job_stalled: the last activity; <= 0: null */
    double duration_s;    /* alert: how long the condition held; resolved: how long it was active */
    double peak;          /* resolved value rules: the most extreme value; NAN: null */
    long events;          /* resolved event rules: events while active */
    unsigned ngpus;       /* GW_EVA_STALL: the GPUs judged ... */
    unsigned gpus[GW_EVENT_MAX_GPUS];
    double gpu_util_pct;    /* NAN: null */
    double job_cpu_pct;     /* NAN: null */
    int64_t last_output_ms; /* <= 0: null */
    unsigned nprocesses;
    gw_event_process processes[GW_EVENT_MAX_PROCESSES];
    double processes_total;
    const char *message;
    const char *reason; /* alert_resolved of job_stalled: "output", "gpu", "cpu" */
} gw_event_alert;

/* One event. Strings and arrays are borrowed: they must stay valid while the event is emitted or
 * written; events read back own them through their reader (event_members.h). */
typedef struct gw_event {
    gw_event_kind kind;
    int64_t wall_ms; /* "timestamp" */
    union {
        struct {
            long pid;
            int argc;
            char *const *argv;
            bool pty;
        } job_start;
        struct {
            long pid;
            int code;                /* exit status; -1: null (a signal ended the job) */
            int signal;              /* 0: none (then no signal, signal_name members) */
            const char *signal_name; /* "KILL" */
            int status;              /* what `gpuwatch run` returned */
        } job_exit;
        struct {
            int gpu;
            const char *uuid;
            const char *pci_bus_id;
            const char *call;  /* the NVML call that saw GPU_IS_LOST; "" when unknown */
            const char *error; /* "GPU_IS_LOST" */
        } gpu_lost;
        struct {
            long epoch;
            long total; /* -1: not given (no member) */
            const char *line;
        } epoch;
        struct {
            const char *text;
            const gw_event_field *fields;
            unsigned nfields;
            long pid;
        } mark;
        struct {
            int gpu;
            long xid;
        } xid;
        struct {
            int gpu;
        } ecc;
        gw_event_alert alert; /* GW_EV_ALERT and GW_EV_ALERT_RESOLVED */
    };
} gw_event;

/* An event of kind k at wall_ms (0: now) with an empty payload: numbers 0, gpu and code -1,
 * alert values NAN, strings "". */
gw_event gw_event_make(gw_event_kind k, int64_t wall_ms);

/* The one printer for a lost GPU (run and serve print it on stderr): "GPU 1 was lost
 * (GPU_IS_LOST from nvmlDeviceGetPowerUsage): <consequence>; check `dmesg` for Xid 79".
 * Does nothing for other kinds. */
void gw_event_print_lost(FILE *to, const gw_event *ev, const char *consequence);

typedef struct gw_events gw_events;

/* A listener sees each event; it must not keep pointers into it after returning, and must not
 * emit (see above). */
typedef void (*gw_event_fn)(void *ctx, const gw_event *event);

gw_events *gw_events_new(void);
/* Frees the bus; listeners' contexts are not freed. NULL is accepted. */
void gw_events_free(gw_events *bus);
void gw_events_listen(gw_events *bus, gw_event_fn fn, void *ctx);
/* Removes the listener added with the same fn and ctx (nothing when there is none). After it
 * returns, fn is not running and will not be called again with ctx. */
void gw_events_unlisten(gw_events *bus, gw_event_fn fn, const void *ctx);

/* Delivers the event to every listener. bus may be NULL (nothing happens). */
void gw_events_emit(gw_events *bus, const gw_event *event);

#endif

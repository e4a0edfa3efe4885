/*
 * exporter: gpuwatch's HTTP endpoints for Prometheus — `gpuwatch serve`, and `gpuwatch run
 * --listen` while a job runs.
 *
 * Owns: the store fed by the sampler's sink and the events bus (prom/prom_store.h), the HTTP
 * server (http/http_server.h) and its pages: /metrics (prom/prom_text.h, text or OpenMetrics as the
 * Accept header asks), /healthz (200 while samples are fresh, 503 when none arrived yet or the
 * last is older than 3 intervals + 5 s), / (a small HTML page linking both), 404 for anything else.
 * XID counts are shown for every GPU (0 included) while the sampler's NVML event watcher runs, else
 * only for GPUs that had one. A scrape renders the latest stored sample — the GPU part is rendered
 * once per new sample and format and reused until the next one — plus gpuwatch's own counters; it
 * never calls NVML. With hpc_job_dir, each scrape reads that directory (serve/jobmap.h) and the
 * GPU part is rendered again when what it says changed.
 *
 * Must not: sample, call NVML or print; the caller owns the sampler, the bus and the messages.
 */
#ifndef GW_EXPORTER_H
#define GW_EXPORTER_H

#include "events/events.h"
#include "k8s/pod_watch.h"
#include "sampler/sampler.h"
#include "serve/jobmap.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gw_exporter gw_exporter;

#define GW_EXPORTER_DEFAULT_LISTEN "127.0.0.1:9400"

typedef struct gw_exporter_config {
    const char *listen;        /* NULL = GW_EXPORTER_DEFAULT_LISTEN (loopback only) */
    unsigned max_connections;  /* 0 = GW_HTTP_DEFAULT_MAX_CONNECTIONS (512); see
                                  http/http_server.h */
    unsigned max_per_ip;       /* 0 = half of max_connections (http_server.h) */
    unsigned client_timeout_s; /* 0 = 10: each request's deadline (http/http_server.h) */
    bool per_process;          /* gpuwatch_process_memory_used_bytes (the sampler must read
                                  processes) */
    bool cmdline;              /* label those with the command line too */
    int64_t interval_ms;       /* the sampler's interval (staleness, a gauge) */
    const char *proc_root;     /* NULL = /proc (command lines) */
    gw_pod_watch *pods;        /* `--kubernetes`: pod labels (serve/pod_labels.h); borrowed, must
                                  outlive the exporter; NULL = none */
    const char *hpc_job_dir;   /* dcgm-exporter's job mapping directory (serve/jobmap.h), NULL =
                                  none: no hpc_job label */
    gw_jobmap_warn_fn warn;    /* its warnings (NULL: none shown) */
    void *warn_ctx;
} gw_exporter_config;

/* Binds the listen address (nothing is served yet). Errors name the address and the fix:
 * GW_E_USAGE for a malformed one, GW_E_SYSTEM when it cannot be bound (in use, ...). */
GW_MUST_USE gw_rc gw_exporter_open(const gw_exporter_config *cfg, gw_exporter **out, gw_error *err);

/* The bound address ("127.0.0.1:9400"; the real port when 0 was asked for). */
const char *gw_exporter_address(const gw_exporter *e);

/* Adds the exporter's sink to sampler (before gw_sampler_start), listens on bus for "xid" events
 * (bus may be NULL), labels series with driver_version (may be NULL or ""), and starts serving.
 * The sampler and the bus are borrowed: they must outlive the exporter's serving. */
GW_MUST_USE gw_rc gw_exporter_start(gw_exporter *e, gw_sampler *sampler, gw_events *bus,
                                    const char *driver_version, gw_error *err);

/* `run --listen`: serve only these GPUs (NVML indices; their processes and XID counts follow
 * them), the job's (record/job.h). Until it is called every GPU is served. Thread-safe: the
 * session calls it before sampling starts, or from a sink as the job's processes show its GPUs. */
void gw_exporter_set_gpus(gw_exporter *e, const unsigned *gpus, size_t n);

/* Stops serving and frees. Call after the sampler has stopped and before it is freed (scrapes
 * read its counters), and when nothing emits on the bus any more (its listener is the exporter's).
 * NULL is accepted. */
void gw_exporter_close(gw_exporter *e);

#endif

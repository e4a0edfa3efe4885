/*
 * prom_text: the Prometheus exposition of gpuwatch's samples — text format 0.0.4, or OpenMetrics
 * 1.0.0 when the scraper asks for it.
 *
 * Owns: the metric names, HELP texts, types and labels. GPU series use dcgm-exporter's names,
 * units and labels (gpu, UUID, pci_bus_id, device "nvidiaN", modelName, Hostname,
 * DCGM_FI_DRIVER_VERSION), so that dashboards built for it (Grafana 12239) work unchanged;
 * gpuwatch's own series are prefixed gpuwatch_ (and the process_* series client libraries export).
 * An absent value (bit clear in the sample, lost GPU, no XID yet) is an absent series, never 0.
 * Label values are escaped and made valid UTF-8.
 *
 * OpenMetrics requires counter samples to end in _total; dcgm-exporter's energy counter does not,
 * so in OpenMetrics it is typed `unknown` to keep its name (rate() works the same). Every family
 * is written only when it has at least one sample.
 *
 * Must not: call NVML, read the store or know about HTTP; functions append to a gw_buf.
 */
#ifndef GW_PROM_TEXT_H
#define GW_PROM_TEXT_H

#include "prom/prom_store.h"
#include "sampler/sample.h"
#include "sampler/sampler.h"
#include "util/gw_buf.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum gw_prom_format {
    GW_PROM_TEXT,        /* text/plain; version=0.0.4 */
    GW_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
} gw_prom_format;

/* The GPU fields the exposition shows, what `gpuwatch serve` asks the sampler for: those with a
 * dcgm-exporter name in the field table. */
uint64_t gw_prom_fields(void);

/* The format an Accept header asks for: OpenMetrics when it lists application/openmetrics-text
 * with a non-zero q, else text (also for NULL). */
gw_prom_format gw_prom_negotiate(const char *accept);

/* The Content-Type of a format (static string). */
const char *gw_prom_content_type(gw_prom_format f);

/* Appends s as the inside of a label value: backslash, double quote and newline escaped, bytes that
 * are not valid UTF-8 replaced by '?'. */
void gw_prom_escape_label(gw_buf *b, const char *s);

/* Appends v as a sample value: integers below 2^53 without exponent or point ("143771"), other
 * finite values as the shortest decimal that reads back exactly ("0.925"), "NaN", "+Inf", "-Inf".
 */
void gw_prom_append_value(gw_buf *b, double v);

/* Appends the dcgm-exporter label set of one GPU, without braces:
 * gpu="0",UUID="GPU-...",pci_bus_id="00000000:00:06.0",device="nvidia0",modelName="NVIDIA H200",
 * Hostname="node1"[,DCGM_FI_DRIVER_VERSION="580.159.04"] (the last only when driver is not
 * empty). */
void gw_prom_device_labels(gw_buf *b, const gw_device_info *d, const char *hostname,
                           const char *driver);

/* Appends every family of snap: the DCGM_* series, DCGM_FI_DEV_XID_ERRORS (the last XID number,
 * from the first XID on), gpuwatch_gpu_lost, gpuwatch_xid_events_total (for every GPU when
 * xid_watched, else only for GPUs that had one), gpuwatch_process_memory_used_bytes (when snap
 * holds processes) and gpuwatch_job_resident_memory_bytes (`run`). labels[i] is
 * gw_prom_device_labels of snap->devs[i]. */
void gw_prom_render_gpus(gw_buf *b, gw_prom_format f, const gw_prom_snapshot *snap,
                         const char *const *labels, bool xid_watched);

/* gpuwatch's own state at one scrape. NAN marks an absent value. */
typedef struct gw_prom_self {
    double interval_s;        /* sampling interval (-i) */
    double sample_age_s;      /* now - the shown sample's monotonic time; NAN before the first */
    uint64_t samples;         /* ticks read (gw_sampler_stats.ticks) */
    uint64_t samples_skipped; /* ticks skipped because one ran late */
    double sample_read_s;     /* the last tick's read time; NAN before the first */
    uint64_t scrapes;         /* /metrics requests, this one included */
    double scrape_duration_s; /* the previous /metrics request's render time; NAN on the first */
    const gw_nvml_call_error *errors; /* failed NVML calls by name */
    unsigned nerrors;
    double rss_bytes; /* /proc/self RSS; NAN when unknown */
    double cpu_s;     /* user + system CPU time of the process; NAN when unknown */
} gw_prom_self;

/* Appends gpuwatch_build_info, the gpuwatch_sample*, gpuwatch_scrape*, gpuwatch_nvml_errors_total
 * and process_* families. */
void gw_prom_render_self(gw_buf *b, gw_prom_format f, const gw_prom_self *s);

/* Appends what ends an exposition ("# EOF\n" in OpenMetrics, nothing in text). */
void gw_prom_render_end(gw_buf *b, gw_prom_format f);

#endif

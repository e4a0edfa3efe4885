/*
 * health: `gpuwatch check` — the practitioners' checklist before a training starts, per GPU.
 *
 * Owns: the facts a check reads from NVML (probe.c: once per GPU, every call timed), their
 * evaluation into items with a state and a reason (evaluate.c: pure functions of facts and
 * thresholds, so every boundary is testable without NVML), and the text table and JSON
 * (render.c). Items: reachable, idle temperature, memory held by other processes (and who holds
 * it), throttle reasons (decoded), uncorrectable ECC errors, pending retired pages / remapped rows,
 * the PCIe link against its maximum, and how long NVML took to answer.
 *
 * A state combines as Nagios does: critical over warning over unknown over ok; "n/a" (the GPU
 * does not support the item) counts as ok. Must not: parse arguments or print outside render.c.
 */
#ifndef GW_HEALTH_H
#define GW_HEALTH_H

#include "nvml/nvml_lib.h"
#include "sampler/sample.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum gw_health_state {
    GW_HEALTH_OK,
    GW_HEALTH_NA,      /* not supported by this GPU / driver: counts as ok */
    GW_HEALTH_UNKNOWN, /* could not be read although it should be */
    GW_HEALTH_WARNING,
    GW_HEALTH_CRITICAL,
} gw_health_state;

/* "ok", "n/a", "unknown", "warning", "critical". */
const char *gw_health_state_name(gw_health_state s);

/* The worse of a and b (critical > warning > unknown > ok = n/a). */
gw_health_state gw_health_worse(gw_health_state a, gw_health_state b);

/* Nagios exit status: ok/n/a 0, warning 1, critical 2, unknown 3. */
int gw_health_exit_code(gw_health_state s);

/* Thresholds of the checks ([check] in gpuwatch.ini; docs/check.md). Strict: a value equal to a
 * threshold does not pass it. */
typedef struct gw_health_thresholds {
    double idle_temp_warning_c;  /* 45 */
    double idle_temp_critical_c; /* 55 */
    double held_warning_mib;     /* 1024: more memory used by others is a warning (so is any
                                    compute process, whatever it holds) */
    double held_critical_pct;    /* 50: more of the total used by others is critical */
    double latency_warning_ms;   /* 100: NVML's answers to the check's calls on one GPU */
    double latency_critical_ms;  /* 500 */
} gw_health_thresholds;

void gw_health_thresholds_defaults(gw_health_thresholds *th);

/* What probe.c read on one GPU. Absent values have their validity bit clear (v) or are -1. */
typedef struct gw_health_facts {
    gw_device_info info;   /* index, name, uuid, PCI bus id */
    bool reachable;        /* false: the handle could not be had, or a call said GPU_IS_LOST */
    char lost_call[64];    /* the NVML call that found it unreachable */
    gw_gpu_sample v;       /* temperature, memory, clocks event reasons, pstate, PCIe link
                              (current and max), volatile uncorrectable ECC count */
    double ecc_lifetime;   /* aggregate uncorrectable ECC count; NAN when not supported */
    int retired_pending;   /* GetRetiredPagesPendingStatus: 1, 0, -1 not supported */
    int remap_pending;     /* GetRemappedRows isPending: 1, 0, -1 not supported */
    int remap_failure;     /* GetRemappedRows failureOccurred: 1, 0, -1 not supported */
    unsigned nprocs;       /* compute and graphics processes holding memory */
    gw_gpu_process *procs; /* [nprocs], owned */
    double latency_ms;     /* wall time of every NVML call made on this GPU */
    unsigned calls;        /* how many groups of calls were timed */
    double slowest_ms;     /* the slowest group ... */
    const char *slowest;   /* ... and its name ("process list"), static */
} gw_health_facts;

enum { GW_HEALTH_ITEMS = 8, GW_HEALTH_REASON_MAX = 480 };

typedef struct gw_health_item {
    const char *id;    /* stable key: "idle_temperature" */
    const char *label; /* words for the table: "idle temperature" */
    gw_health_state state;
    double value; /* the number judged (C, MiB, ms, count); NAN when none */
    char reason[GW_HEALTH_REASON_MAX];
} gw_health_item;

typedef struct gw_health_gpu {
    gw_health_facts facts;
    gw_health_item items[GW_HEALTH_ITEMS];
    int nitems;
    gw_health_state state; /* the worst item */
} gw_health_gpu;

typedef struct gw_health_report {
    char driver_version[80]; /* "" when unknown */
    char nvml_version[80];
    int cuda_driver_version; /* 13000 = 13.0; 0 when unknown */
    unsigned ngpus;
    gw_health_gpu *gpus;   /* [ngpus], owned */
    gw_health_state state; /* the worst GPU; unknown when there is no GPU or NVML failed */
    char error[512];       /* why the state is unknown without GPUs ("" otherwise) */
} gw_health_report;

/* Reads versions and every GPU's facts through an initialised nvml (probe.c). Never fails: a GPU
 * that cannot be reached is reported as such. The caller frees with gw_health_report_free. */
void gw_health_probe(const gw_nvml *nvml, gw_health_report *out);

/* Judges one GPU's facts (evaluate.c): fills g->items and g->state. */
void gw_health_evaluate_gpu(gw_health_gpu *g, const gw_health_thresholds *th);

/* Judges every GPU and sets r->state (unknown when there is none). */
void gw_health_evaluate(gw_health_report *r, const gw_health_thresholds *th);

/* Decodes a clocks-event-reasons mask into words ("idle, SW power cap"), "none" for 0, naming
 * unknown bits in hex. Returns the worst state a bit implies: HW slowdown, HW thermal and power
 * brake are critical; SW power cap and SW thermal are warnings; the rest are ok. */
gw_health_state gw_health_decode_reasons(unsigned long long mask, char *buf, size_t len);

/* The table (render.c): versions, then per GPU one line per item, then the overall status line.
 * color: ANSI colours for states (the caller checks isatty and NO_COLOR). */
void gw_health_print(const gw_health_report *r, FILE *to, bool color);

/* The report as JSON (docs/check.md); the caller frees it with cJSON_Delete. */
cJSON *gw_health_json(const gw_health_report *r);

void gw_health_report_free(gw_health_report *r);

#endif

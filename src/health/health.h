/*
 * health: `gpuwatch check` — the practitioners' checklist before a training starts, per GPU.
 *
 * Owns: the facts a check needs (probe.c, through the sampler's probe: once per GPU, every call
 * timed), their evaluation into items with a state and a reason (evaluate.c: pure functions of
 * facts and thresholds, so every boundary is testable without NVML), and the text table and JSON
 * (render.c). Items: reachable, idle temperature, memory held by other processes (and who holds
 * it), throttle reasons (decoded), uncorrectable ECC errors, pending retired pages / remapped rows,
 * the PCIe link against its maximum, and how long NVML took to answer.
 *
 * A state is no finding (ok, n/a, unknown) or a finding on the one severity scale of
 * util/gw_severity.h (warning, critical). A state combines as Nagios does: critical over warning
 * over unknown over ok; "n/a" (the GPU does not support the item) counts as ok. Must not: parse
 * arguments or print outside render.c.
 */
#ifndef GW_HEALTH_H
#define GW_HEALTH_H

#include "sampler/probe.h"
#include "util/gw_error.h"
#include "util/gw_severity.h"

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

/* "ok", "n/a", "unknown", "warning", "critical" (the last two: gw_severity_name). */
const char *gw_health_state_name(gw_health_state s);

/* A finding's place on the one severity scale (util/gw_severity.h): warning and critical are
 * the report's and the live alerts' warning and critical; ok, n/a and unknown are no finding
 * (GW_SEV_INFO). */
gw_severity gw_health_severity(gw_health_state s);

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

/* What the sampler's probe read on one GPU (sampler/probe.h). */
typedef gw_gpu_probe gw_health_facts;

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

/* Loads NVML and reads versions and every GPU's facts through the sampler's probe (probe.c). A GPU
 * that cannot be reached is reported as such; GPUs that cannot be listed leave the state unknown
 * with r->error set. Errors: GW_E_NVML when NVML cannot be loaded or initialised (*out is then
 * empty). The caller frees with gw_health_report_free. */
GW_MUST_USE gw_rc gw_health_probe(gw_health_report *out, gw_error *err);

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

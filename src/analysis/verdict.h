/*
 * verdict: what the analysis concludes, with the evidence behind it.
 *
 * Owns: the verdict ids of spec.md (summary.json "verdicts"[].id; their names, checkers,
 * thresholds and docs sections are one table, analysis/registry.h) and the verdict list: each
 * verdict has a GPU, a severity (the one scale of util/gw_severity.h), a time span, numeric
 * evidence (with the threshold each checked number was compared against), a one-line message and
 * one suggestion a practitioner can act on.
 * Must not: decide anything (the checkers in verdict_*.c do) or print.
 */
#ifndef GW_VERDICT_H
#define GW_VERDICT_H

#include "analysis/thresholds.h"
#include "util/gw_severity.h"

#include <stddef.h>
#include <stdint.h>

typedef enum gw_verdict_id {
    GW_V_GPU_SATURATED,
    GW_V_GPU_STARVED,
    GW_V_UNDERFILLED_KERNELS,
    GW_V_MEMORY_LEAK,
    GW_V_MEMORY_NEAR_CAPACITY,
    GW_V_THERMAL_THROTTLING,
    GW_V_POWER_CAPPED,
    GW_V_IDLE_HOLDING_MEMORY,
    GW_V_MULTI_GPU_IMBALANCE,
    GW_V_GPU_LOST,
    GW_V_EXPECTED_DIPS,
    GW_V_JOB_STALLED, /* verdict_job.c: from job_stalled alerts of `run` */
    GW_V_OOM_CRASH,   /* verdict_job.c: the job died out of GPU memory */
    GW_V_JOB_FAILED,  /* verdict_job.c: the job exited non-zero for another cause (or none known) */
    GW_V_COUNT
} gw_verdict_id;

/* One number (or word) behind a verdict. */
typedef struct gw_evidence {
    char key[48];   /* "busy_pct", "slope_mib_per_s", ... (units in the name) */
    double value;   /* NAN: not known (null in JSON); unused when text is set */
    char *text;     /* a word instead of a number ("input_pipeline", a process name), or NULL */
    int threshold;  /* gw_threshold_id this value was compared against, or -1 */
    const char *op; /* the comparison that fired: "<", ">", ">=", ... (NULL when no threshold) */
} gw_evidence;

typedef struct gw_verdict {
    gw_verdict_id id;
    gw_severity severity;
    int gpu;          /* index into series->gpus, or -1 for the whole job */
    int64_t start_ms; /* the span the verdict covers (unix ms) */
    int64_t end_ms;
    char *cause;      /* gpu_starved: "input_pipeline" | "cpu_bound" | "epoch_start" | "unknown";
                         job_failed:      "xid" | "gpu_lost" | "nccl_timeout" | "signal" | "interrupted"
                         |      "exit_status"; else NULL */
    char *message;    /* one line with the key numbers */
    char *suggestion; /* one actionable suggestion */
    size_t nevidence, evidence_cap;
    gw_evidence *evidence;
} gw_verdict;

typedef struct gw_verdict_list {
    size_t n, cap;
    gw_verdict *v;
} gw_verdict_list;

/* "gpu_saturated", ... ; never NULL. */
const char *gw_verdict_name(gw_verdict_id id);

/* Appends a verdict (message, suggestion and cause empty) and returns it; the pointer is valid
 * until the next append. */
gw_verdict *gw_verdict_add(gw_verdict_list *l, gw_verdict_id id, gw_severity sev, int gpu,
                           int64_t start_ms, int64_t end_ms);
/* Evidence: a plain number; a number checked against a threshold with op; a word. */
void gw_verdict_num(gw_verdict *v, const char *key, double value);
void gw_verdict_check(gw_verdict *v, const char *key, double value, const char *op,
                      gw_threshold_id th);
void gw_verdict_text(gw_verdict *v, const char *key, const char *text);
/* Sets the message (printf format) and the suggestion (copied). */
void gw_verdict_say(gw_verdict *v, const char *suggestion, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gw_verdict_set_cause(gw_verdict *v, const char *cause);

/* True when the list has a verdict with that id (gpu -1: for any GPU). */
int gw_verdict_find(const gw_verdict_list *l, gw_verdict_id id, int gpu);
/* Sorts by severity (critical first), then GPU, then start time. */
void gw_verdict_sort(gw_verdict_list *l);
/* The highest severity in the list, -1 when the list is empty. */
int gw_verdict_max_severity(const gw_verdict_list *l);
void gw_verdict_list_free(gw_verdict_list *l);

#endif

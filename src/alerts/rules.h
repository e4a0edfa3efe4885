/*
 * rules: what an alert rule is, the metrics a rule can watch, and the built-in rules with the
 * field's defaults (the practitioners' checklist: temperature above 80 C warning, above 83 C for 3
 * minutes critical; the job's host memory growing by more than 2 GiB warning, more than 3 GiB and
 * linearly critical; samples slower than 500 ms for 5 s; a lost GPU; an XID error; a double-bit
 * ECC error) and GPU memory at the report's levels (above 92 % warning, above 98 % critical:
 * util/gw_severity.h).
 *
 * Owns: gw_alert_rule (one rule: metric, condition, duration, hysteresis), gw_alerts_config (the
 * rules plus the hook command) and the tables that name metrics, severities and trends. A rule
 * fires when its value passes the threshold strictly (touching it does not fire) and keeps doing so
 * for `duration`; it resolves once when the value comes back to `clear` (on the threshold's other
 * side) for `clear_duration`. Event rules (XID, double-bit ECC) fire on an event and resolve after
 * `clear_duration` without another one.
 *
 * Must not: read files or evaluate samples (config/ reads the INI file, engine.c evaluates).
 */
#ifndef GW_ALERT_RULES_H
#define GW_ALERT_RULES_H

#include "util/gw_severity.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum gw_alert_metric {
    GW_AM_TEMPERATURE,     /* per GPU, C: temperature.gpu (GetTemperature) */
    GW_AM_MEMORY_USED_PCT, /* per GPU, %: memory.used / memory.total (GetMemoryInfo_v2) */
    GW_AM_UTIL_GPU,        /* per GPU, %: utilization.gpu (GetUtilizationRates) */
    GW_AM_POWER_PCT,       /* per GPU, %: power.draw / power.limit */
    GW_AM_GPU_LOST,        /* per GPU: 1 once the GPU answered GPU_IS_LOST, else 0 */
    GW_AM_JOB_RSS_GROWTH,  /* job, MiB: job.rss above its lowest value with as many processes,
                              once their count has held for the warm-up */
    GW_AM_SAMPLE_READ_MS,  /* tick, ms: how long reading the tick took (gw_sample.read_ns) */
    GW_AM_XID,             /* per GPU event: the XID number (NVML event 0x8) */
    GW_AM_ECC_DOUBLE_BIT,  /* per GPU event: a double-bit ECC error (NVML event 0x2); value 1 */
    GW_AM_COUNT
} gw_alert_metric;

typedef enum gw_alert_scope { GW_SCOPE_GPU, GW_SCOPE_JOB, GW_SCOPE_TICK } gw_alert_scope;

typedef struct gw_alert_metric_info {
    const char *key;   /* name in the INI file's `metric =`: "temperature" */
    const char *label; /* words for messages: "temperature" */
    const char *unit;  /* " C", " %", " MiB", " ms", "" */
    gw_alert_scope scope;
    bool event; /* fed by NVML events rather than samples */
} gw_alert_metric_info;

extern const gw_alert_metric_info gw_alert_metrics[GW_AM_COUNT];

/* The metric named key, or -1. */
int gw_alert_metric_parse(const char *key);

typedef enum gw_alert_trend {
    GW_TREND_NONE,
    GW_TREND_RISING, /* also: the value rose by at least trend_min over the last trend_window */
    GW_TREND_LINEAR, /* also: a least-squares line over the last trend_window rises with R^2 >= 0.9
                      */
} gw_alert_trend;

/* "none" / "rising" / "linear"; gw_alert_trend_parse returns -1 for anything else. */
const char *gw_alert_trend_name(gw_alert_trend t);
int gw_alert_trend_parse(const char *s);

/* R^2 a rise must reach to count as linear. */
#define GW_ALERT_LINEAR_MIN_R2 0.9

enum { GW_ALERT_ID_MAX = 40, GW_ALERT_MAX_RULES = 32, GW_ALERT_WHERE_MAX = 160 };

typedef struct gw_alert_rule {
    char id[GW_ALERT_ID_MAX]; /* [a-z0-9_]+, the INI section name */
    bool builtin;
    bool has_metric; /* a rule of the user's own needs `metric =` */
    bool enabled;
    gw_alert_metric metric;
    gw_severity severity;      /* GW_SEV_WARNING or GW_SEV_CRITICAL (util/gw_severity.h) */
    bool below;                /* fires when value < threshold (else value > threshold) */
    double threshold;          /* in the metric's unit; unused by event rules */
    double clear;              /* resolves at value <= clear (>= when below) */
    bool clear_given;          /* clear was set by the configuration: a new threshold then leaves
                                  it; otherwise clear moves with the threshold, keeping its gap */
    int64_t duration_ms;       /* the condition must hold this long before the rule fires */
    int64_t clear_duration_ms; /* the clear condition must hold this long (events: quiet time) */
    gw_alert_trend trend;
    int64_t trend_window_ms;
    double trend_min;  /* rising: least increase over the window, in the metric's unit */
    int64_t warmup_ms; /* job_rss_growth: how long the job's process count must hold (from the
                          start, and again after each change) before its values count */
    char where[GW_ALERT_WHERE_MAX]; /* "FILE:LINE" or "--set" of the last change, for errors */
} gw_alert_rule;

enum { GW_HOOK_MAX_ARGS = 64, GW_HOOK_TIMEOUT_DEFAULT_MS = 10000 };

typedef struct gw_alerts_config {
    bool enabled; /* [alerts] enabled = false turns every rule off */
    int nrules;
    gw_alert_rule rules[GW_ALERT_MAX_RULES];
    char *hook_argv[GW_HOOK_MAX_ARGS + 1]; /* owned, NULL-terminated; hook_argv[0] NULL: no hook */
    char *hook_path;                       /* hook_argv[0] resolved through $PATH (validation) */
    int64_t hook_timeout_ms;               /* the hook is killed after this long */
    char hook_where[GW_ALERT_WHERE_MAX];
} gw_alerts_config;

/* Fills cfg with the built-in rules and their defaults (docs/alerts.md has the table). */
void gw_alerts_config_defaults(gw_alerts_config *cfg);

/* Frees the hook strings; cfg may be reused after gw_alerts_config_defaults. */
void gw_alerts_config_clear(gw_alerts_config *cfg);

/* Replaces the hook command (argv copied; argc 0 removes it). */
void gw_alerts_config_set_hook(gw_alerts_config *cfg, int argc, char *const argv[],
                               const char *where);

/* The rule named id, or NULL. */
gw_alert_rule *gw_alerts_config_find(gw_alerts_config *cfg, const char *id);

/* Adds a rule of the user's own (disabled metric, warning, no threshold yet). NULL when the table
 * is full. */
gw_alert_rule *gw_alerts_config_add(gw_alerts_config *cfg, const char *id);

#endif

#include "alerts/rules.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const gw_alert_metric_info gw_alert_metrics[GW_AM_COUNT] = {
    [GW_AM_TEMPERATURE] = {"temperature", "temperature", " C", GW_SCOPE_GPU, false},
    [GW_AM_MEMORY_USED_PCT] = {"memory_used_pct", "memory used", " %", GW_SCOPE_GPU, false},
    [GW_AM_UTIL_GPU] = {"util_gpu", "GPU-Util", " %", GW_SCOPE_GPU, false},
    [GW_AM_POWER_PCT] = {"power_pct", "power (of its limit)", " %", GW_SCOPE_GPU, false},
    [GW_AM_GPU_LOST] = {"gpu_lost", "lost", "", GW_SCOPE_GPU, false},
    [GW_AM_JOB_RSS_GROWTH] = {"job_rss_growth", "job host memory growth", " MiB", GW_SCOPE_JOB,
                              false},
    [GW_AM_SAMPLE_READ_MS] = {"sample_read_ms", "sample read time", " ms", GW_SCOPE_TICK, false},
    [GW_AM_XID] = {"xid", "XID error", "", GW_SCOPE_GPU, true},
    [GW_AM_ECC_DOUBLE_BIT] = {"ecc_double_bit", "double-bit ECC error", "", GW_SCOPE_GPU, true},
};

int gw_alert_metric_parse(const char *key)
{
    for (int i = 0; i < GW_AM_COUNT; i++)
        if (strcmp(key, gw_alert_metrics[i].key) == 0)
            return i;
    return -1;
}

static const char *const trend_names[] = {"none", "rising", "linear"};

const char *gw_alert_trend_name(gw_alert_trend t)
{
    return trend_names[t];
}

int gw_alert_trend_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, trend_names[i]) == 0)
            return i;
    return -1;
}

enum { MIN_MS = 60000 };

/* The field's defaults (the practitioners' training checklist table) and the clear values chosen so that a
 * value hovering at the threshold cannot make a rule flap: docs/alerts.md explains each. */
static const gw_alert_rule builtin_rules[] = {
    {.id = "temp_warning",
     .metric = GW_AM_TEMPERATURE,
     .severity = GW_SEV_WARNING,
     .threshold = 80,
     .clear = 77},
    {.id = "temp_critical",
     .metric = GW_AM_TEMPERATURE,
     .severity = GW_SEV_CRITICAL,
     .threshold = 83,
     .clear = 80,
     .duration_ms = 3 * MIN_MS},
    /* memory: the report's levels (util/gw_severity.h), so that a GPU's memory has one severity
     * live and in the report (docs/alerts.md, "One scale, one set of levels") */
    {.id = "memory_warning",
     .metric = GW_AM_MEMORY_USED_PCT,
     .severity = GW_SEV_WARNING,
     .threshold = GW_MEMORY_WARNING_PCT,
     .clear = GW_MEMORY_WARNING_PCT - 4},
    {.id = "memory_critical",
     .metric = GW_AM_MEMORY_USED_PCT,
     .severity = GW_SEV_CRITICAL,
     .threshold = GW_MEMORY_CRITICAL_PCT,
     .clear = GW_MEMORY_WARNING_PCT},
    {.id = "job_memory_warning",
     .metric = GW_AM_JOB_RSS_GROWTH,
     .severity = GW_SEV_WARNING,
     .threshold = 2048,
     .clear = 1536},
    {.id = "job_memory_critical",
     .metric = GW_AM_JOB_RSS_GROWTH,
     .severity = GW_SEV_CRITICAL,
     .threshold = 3072,
     .clear = 2560,
     .trend = GW_TREND_LINEAR,
     .trend_window_ms = 10 * MIN_MS},
    {.id = "slow_sample", /* for 5 s: one slow read while a job creates its CUDA context
                             (0.6-1.5 s on an H200) is no problem of the node */
     .metric = GW_AM_SAMPLE_READ_MS,
     .severity = GW_SEV_WARNING,
     .threshold = 500,
     .clear = 250,
     .duration_ms = 5000},
    {.id = "gpu_lost",
     .metric = GW_AM_GPU_LOST,
     .severity = GW_SEV_CRITICAL,
     .threshold = 0,
     .clear = 0},
    {.id = "xid",
     .metric = GW_AM_XID,
     .severity = GW_SEV_CRITICAL,
     .clear_duration_ms = 5 * MIN_MS},
    {.id = "ecc_double_bit",
     .metric = GW_AM_ECC_DOUBLE_BIT,
     .severity = GW_SEV_CRITICAL,
     .clear_duration_ms = 5 * MIN_MS},
};

/* What every rule starts from before its own values. */
static void rule_base(gw_alert_rule *r, const char *id)
{
    memset(r, 0, sizeof *r);
    size_t n = strlen(id);
    if (n >= sizeof r->id)
        n = sizeof r->id - 1;
    memcpy(r->id, id, n);
    r->enabled = true;
    r->severity = GW_SEV_WARNING;
    r->threshold = NAN;
    r->clear = NAN;
    r->trend_window_ms = MIN_MS;
    r->warmup_ms = MIN_MS;
}

void gw_alerts_config_defaults(gw_alerts_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->enabled = true;
    cfg->hook_timeout_ms = GW_HOOK_TIMEOUT_DEFAULT_MS;
    for (size_t i = 0; i < sizeof builtin_rules / sizeof builtin_rules[0]; i++) {
        const gw_alert_rule *b = &builtin_rules[i];
        gw_alert_rule *r = &cfg->rules[cfg->nrules++];
        rule_base(r, b->id);
        r->builtin = r->has_metric = true;
        r->metric = b->metric;
        r->severity = b->severity;
        if (!gw_alert_metrics[b->metric].event) {
            r->threshold = b->threshold;
            r->clear = b->clear;
        }
        r->duration_ms = b->duration_ms;
        r->clear_duration_ms = b->clear_duration_ms;
        r->trend = b->trend;
        if (b->trend_window_ms)
            r->trend_window_ms = b->trend_window_ms;
        r->trend_min = b->trend_min;
        snprintf(r->where, sizeof r->where, "built-in rule");
    }
}

void gw_alerts_config_set_hook(gw_alerts_config *cfg, int argc, char *const argv[],
                               const char *where)
{
    for (int i = 0; cfg->hook_argv[i]; i++) {
        free(cfg->hook_argv[i]);
        cfg->hook_argv[i] = NULL;
    }
    free(cfg->hook_path);
    cfg->hook_path = NULL;
    for (int i = 0; i < argc && i < GW_HOOK_MAX_ARGS; i++)
        cfg->hook_argv[i] = xstrdup(argv[i]);
    snprintf(cfg->hook_where, sizeof cfg->hook_where, "%s", where ? where : "");
}

void gw_alerts_config_clear(gw_alerts_config *cfg)
{
    gw_alerts_config_set_hook(cfg, 0, NULL, NULL);
}

gw_alert_rule *gw_alerts_config_find(gw_alerts_config *cfg, const char *id)
{
    for (int i = 0; i < cfg->nrules; i++)
        if (strcmp(cfg->rules[i].id, id) == 0)
            return &cfg->rules[i];
    return NULL;
}

gw_alert_rule *gw_alerts_config_add(gw_alerts_config *cfg, const char *id)
{
    if (cfg->nrules >= GW_ALERT_MAX_RULES)
        return NULL;
    gw_alert_rule *r = &cfg->rules[cfg->nrules++];
    rule_base(r, id);
    return r;
}

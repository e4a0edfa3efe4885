/* The keys of gpuwatch.ini: one table per kind of section, value parsing, and validation. */
#include "config/config.h"

#include "host/exec.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum key_type {
    K_BOOL,
    K_NUM,
    K_DURATION,
    K_SEVERITY,
    K_TREND,
    K_METRIC,
    K_DIRECTION
} key_type;

typedef struct key_def {
    const char *name;
    key_type type;
    size_t offset;
    const char *hint; /* what a good value looks like, for errors */
} key_def;

#define RULE_KEY(n, t, f, h)                                                                       \
    {                                                                                              \
        n, t, offsetof(gw_alert_rule, f), h                                                        \
    }
static const key_def rule_keys[] = {
    RULE_KEY("enabled", K_BOOL, enabled, "true or false"),
    RULE_KEY("metric", K_METRIC, metric, "a metric name"),
    RULE_KEY("severity", K_SEVERITY, severity, "warning or critical"),
    RULE_KEY("direction", K_DIRECTION, below, "above or below"),
    RULE_KEY("threshold", K_NUM, threshold, "a number in the metric's unit"),
    RULE_KEY("clear", K_NUM, clear, "a number in the metric's unit"),
    RULE_KEY("duration", K_DURATION, duration_ms, "seconds or 500ms, 30s, 3m, 1h"),
    RULE_KEY("clear_duration", K_DURATION, clear_duration_ms, "seconds or 500ms, 30s, 3m, 1h"),
    RULE_KEY("trend", K_TREND, trend, "none, rising or linear"),
    RULE_KEY("trend_window", K_DURATION, trend_window_ms, "seconds or 30s, 10m"),
    RULE_KEY("trend_min", K_NUM, trend_min, "a number in the metric's unit"),
    RULE_KEY("warmup", K_DURATION, warmup_ms, "seconds or 30s, 2m"),
};

#define CHECK_KEY(n, f)                                                                            \
    {                                                                                              \
        n, K_NUM, offsetof(gw_health_thresholds, f), "a number"                                    \
    }
static const key_def check_keys[] = {
    CHECK_KEY("idle_temp_warning", idle_temp_warning_c),
    CHECK_KEY("idle_temp_critical", idle_temp_critical_c),
    CHECK_KEY("held_warning_mib", held_warning_mib),
    CHECK_KEY("held_critical_pct", held_critical_pct),
    CHECK_KEY("latency_warning_ms", latency_warning_ms),
    CHECK_KEY("latency_critical_ms", latency_critical_ms),
};

#define NKEYS(t) (sizeof(t) / sizeof((t)[0]))

static const key_def *find_key(const key_def *keys, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static void key_list(const key_def *keys, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", keys[i].name);
}

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = true, true;
        if (strcasecmp(v, no[i]) == 0)
            return *out = false, true;
    }
    return false;
}

static bool parse_number(const char *v, double *out)
{
    errno = 0;
    char *end = NULL;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || errno || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static bool parse_duration(const char *v, int64_t *out)
{
    double ms = 0;
    if (!gw_parse_duration_ms(v, &ms) || ms > 1e12)
        return false;
    *out = (int64_t)llround(ms);
    return true;
}

/* Parses value into the field at base + k->offset. */
static bool set_value(const key_def *k, void *base, const char *value)
{
    void *p = (char *)base + k->offset;
    int e;
    switch (k->type) {
    case K_BOOL:
        return parse_bool(value, (bool *)p);
    case K_NUM:
        return parse_number(value, (double *)p);
    case K_DURATION:
        return parse_duration(value, (int64_t *)p);
    case K_SEVERITY:
        if (strcmp(value, "warning") && strcmp(value, "critical"))
            return false;
        *(gw_severity *)p = value[0] == 'c' ? GW_SEV_CRITICAL : GW_SEV_WARNING;
        return true;
    case K_TREND:
        if ((e = gw_alert_trend_parse(value)) < 0)
            return false;
        *(gw_alert_trend *)p = (gw_alert_trend)e;
        return true;
    case K_METRIC:
        if ((e = gw_alert_metric_parse(value)) < 0)
            return false;
        *(gw_alert_metric *)p = (gw_alert_metric)e;
        return true;
    case K_DIRECTION:
        if (strcmp(value, "above") && strcmp(value, "below"))
            return false;
        *(bool *)p = value[0] == 'b';
        return true;
    }
    return false;
}

static void metric_list(char *buf, size_t len)
{
    size_t used = 0;
    for (int i = 0; i < GW_AM_COUNT && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 gw_alert_metrics[i].key);
}

static bool valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= GW_ALERT_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

static gw_rc apply_rule(gw_config *c, const char *section, const char *key, const char *value,
                        const char *where, gw_error *err)
{
    gw_alert_rule *r = gw_alerts_config_find(&c->alerts, section);
    if (!r) {
        if (!valid_id(section))
            return gw_error_set(err, GW_E_FORMAT,
                                "%s: [%s]: a rule's name is lower-case letters, digits and '_' "
                                "(at most %d)",
                                where, section, GW_ALERT_ID_MAX - 1);
        r = gw_alerts_config_add(&c->alerts, section);
        if (!r)
            return gw_error_set(err, GW_E_FORMAT, "%s: [%s]: too many rules (at most %d)", where,
                                section, GW_ALERT_MAX_RULES);
    }
    const key_def *k = find_key(rule_keys, NKEYS(rule_keys), key);
    if (!k) {
        char list[256];
        key_list(rule_keys, NKEYS(rule_keys), list, sizeof list);
        return gw_error_set(err, GW_E_FORMAT, "%s: [%s] %s: unknown key (a rule takes %s)", where,
                            section, key, list);
    }
    if (k->type == K_METRIC && r->builtin)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: [%s] metric: the built-in rule %s watches %s; to watch something "
                            "else, add a rule of your own ([my_rule] with metric = ...)",
                            where, section, r->id, gw_alert_metrics[r->metric].key);
    double old_threshold = r->threshold;
    if (!set_value(k, r, value)) {
        char list[200] = "";
        if (k->type == K_METRIC)
            metric_list(list, sizeof list);
        return gw_error_set(err, GW_E_FORMAT, "%s: [%s] %s: bad value '%s' (give %s%s%s)", where,
                            section, key, value, k->hint, list[0] ? ": " : "", list);
    }
    if (k->type == K_METRIC)
        r->has_metric = true;
    if (strcmp(k->name, "clear") == 0)
        r->clear_given = true;
    /* `--set memory_warning.threshold=50` moves the default clear (88) to 46 with it, rather than
     * failing because 80 would lie above the new threshold */
    if (strcmp(k->name, "threshold") == 0 && !r->clear_given && !isnan(r->clear) &&
        !isnan(old_threshold))
        r->clear += r->threshold - old_threshold;
    snprintf(r->where, sizeof r->where, "%s", where);
    return GW_OK;
}

/* Splits a [hook] command at spaces and tabs: no shell, so no quotes. */
static gw_rc apply_hook_command(gw_config *c, const char *value, const char *where, gw_error *err)
{
    if (strpbrk(value, "\"'`$|&<>\\;"))
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: [hook] command: '%s' looks like shell syntax, but hooks are "
                            "exec'd without a shell (split at spaces): put the pipeline in a "
                            "script",
                            where, value);
    char *copy = xstrdup(value);
    char *argv[GW_HOOK_MAX_ARGS + 1];
    int argc = 0;
    char *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (argc == GW_HOOK_MAX_ARGS) {
            free(copy);
            return gw_error_set(err, GW_E_FORMAT, "%s: [hook] command: more than %d words", where,
                                GW_HOOK_MAX_ARGS);
        }
        argv[argc++] = t;
    }
    gw_alerts_config_set_hook(&c->alerts, argc, argv, where);
    free(copy);
    return GW_OK;
}

static gw_rc apply_section_keys(const key_def *keys, size_t n, void *base, const char *section,
                                const char *key, const char *value, const char *where,
                                gw_error *err)
{
    const key_def *k = find_key(keys, n, key);
    if (!k) {
        char list[256];
        key_list(keys, n, list, sizeof list);
        return gw_error_set(err, GW_E_FORMAT, "%s: [%s] %s: unknown key ([%s] takes %s)", where,
                            section, key, section, list);
    }
    if (!set_value(k, base, value))
        return gw_error_set(err, GW_E_FORMAT, "%s: [%s] %s: bad value '%s' (give %s)", where,
                            section, key, value, k->hint);
    return GW_OK;
}

gw_rc gw_config_apply(gw_config *c, const char *section, const char *key, const char *value,
                      const char *where, gw_error *err)
{
    if (!section[0])
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: %s: key outside a section: put it under [alerts], [hook], "
                            "[check], [run] or a rule's [name]",
                            where, key);
    if (strcmp(section, "alerts") == 0) {
        static const key_def alerts_keys[] = {
            {"enabled", K_BOOL, offsetof(gw_alerts_config, enabled), "true or false"}};
        return apply_section_keys(alerts_keys, 1, &c->alerts, section, key, value, where, err);
    }
    if (strcmp(section, "run") == 0) {
        static const key_def run_keys[] = {
            {"python", K_BOOL, offsetof(gw_config, run_python), "true or false"}};
        return apply_section_keys(run_keys, 1, c, section, key, value, where, err);
    }
    if (strcmp(section, "check") == 0)
        return apply_section_keys(check_keys, NKEYS(check_keys), &c->check, section, key, value,
                                  where, err);
    if (strcmp(section, "hook") == 0) {
        if (strcmp(key, "command") == 0)
            return apply_hook_command(c, value, where, err);
        /* "command" is handled above; it is listed for the unknown-key message. */
        static const key_def hook_keys[] = {{"command", K_BOOL, 0, "a program and its arguments"},
                                            {"timeout", K_DURATION,
                                             offsetof(gw_alerts_config, hook_timeout_ms),
                                             "seconds or 500ms, 10s, 1m"}};
        gw_rc rc = apply_section_keys(hook_keys, 2, &c->alerts, section, key, value, where, err);
        if (!rc)
            snprintf(c->alerts.hook_where, sizeof c->alerts.hook_where, "%s", where);
        return rc;
    }
    return apply_rule(c, section, key, value, where, err);
}

static gw_rc validate_rule(gw_alert_rule *r, gw_error *err)
{
    const gw_alert_metric_info *m = &gw_alert_metrics[r->metric];
    if (!r->has_metric) {
        char list[200];
        metric_list(list, sizeof list);
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: [%s]: no metric: a rule of your own needs metric = one of %s "
                            "(or is this a misspelt built-in rule? see docs/alerts.md)",
                            r->where, r->id, list);
    }
    if (m->event) {
        if (!isnan(r->threshold) || r->duration_ms || r->trend != GW_TREND_NONE || r->below)
            return gw_error_set(err, GW_E_FORMAT,
                                "%s: [%s]: %s is an event: it takes no threshold, duration, trend "
                                "or direction (clear_duration is its quiet time)",
                                r->where, r->id, m->key);
        return GW_OK;
    }
    if (isnan(r->threshold))
        return gw_error_set(err, GW_E_FORMAT, "%s: [%s]: no threshold (give threshold = a number)",
                            r->where, r->id);
    if (isnan(r->clear))
        r->clear = r->threshold;
    if (r->below ? r->clear < r->threshold : r->clear > r->threshold)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: [%s]: clear %s is %s threshold %s: the rule resolves when the "
                            "value comes back to clear, so clear must lie on the other side",
                            r->where, r->id, GW_SIG(r->clear, 6), r->below ? "below" : "above",
                            GW_SIG(r->threshold, 6));
    if (r->trend != GW_TREND_NONE && r->trend_window_ms <= 0)
        return gw_error_set(err, GW_E_FORMAT, "%s: [%s]: trend %s needs a trend_window above 0",
                            r->where, r->id, gw_alert_trend_name(r->trend));
    return GW_OK;
}

gw_rc gw_config_validate(gw_config *c, gw_error *err)
{
    for (int i = 0; i < c->alerts.nrules; i++) {
        gw_rc rc = validate_rule(&c->alerts.rules[i], err);
        if (rc)
            return rc;
    }
    const gw_health_thresholds *t = &c->check;
    if (t->idle_temp_critical_c < t->idle_temp_warning_c ||
        t->latency_critical_ms < t->latency_warning_ms)
        return gw_error_set(err, GW_E_FORMAT,
                            "[check]: a critical threshold lies below its warning threshold");
    gw_alerts_config *a = &c->alerts;
    if (a->hook_timeout_ms < 1)
        return gw_error_set(err, GW_E_FORMAT, "%s: [hook] timeout: give at least 1ms",
                            a->hook_where);
    if (a->hook_argv[0] && !a->hook_path) {
        gw_error e2;
        if (gw_child_resolve(a->hook_argv[0], &a->hook_path, &e2))
            return gw_error_set(err, GW_E_FORMAT, "%s: alert hook: %s", a->hook_where, e2.msg);
    }
    return GW_OK;
}

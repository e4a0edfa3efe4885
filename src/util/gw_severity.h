/*
 * gw_severity: the one severity scale of gpuwatch: info < warning < critical.
 *
 * Used by the report's verdicts (analysis/verdict.h), the live alerts (alerts/rules.h) and check
 * (health/health.h: a finding of `gpuwatch check` is warning or critical). The words are the
 * values of summary.json "severity", of alert events' "severity" (docs/events.md) and of check's
 * states; docs/alerts.md, "One scale, one set of levels", says which level means what.
 *
 * The memory levels below are the one mapping between live alerts and the report: the built-in
 * rules memory_warning / memory_critical fire at them, and memory_near_capacity judges a
 * recording's peak against them (analysis/thresholds.c), so a GPU's memory gets the same severity
 * live and afterwards.
 */
#ifndef GW_SEVERITY_H
#define GW_SEVERITY_H

typedef enum gw_severity { GW_SEV_INFO, GW_SEV_WARNING, GW_SEV_CRITICAL } gw_severity;

/* "info", "warning", "critical"; "unknown" for a value outside the scale. Never NULL. */
const char *gw_severity_name(gw_severity s);
/* Parses "info"/"warning"/"critical"; returns -1 for anything else. */
int gw_severity_parse(const char *s);

/* memory.used / memory.total, %: above this a warning, above the next critical. */
#define GW_MEMORY_WARNING_PCT  92.0
#define GW_MEMORY_CRITICAL_PCT 98.0

#endif

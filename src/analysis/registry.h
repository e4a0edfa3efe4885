/*
 * registry: every verdict of the report in one table: its id and name, the checker that decides
 * it, the thresholds it compares against, the severity it fires with by default, the docs section
 * that explains it and the unit test that pins its thresholds. docs/style.md, "Recipe: adding a
 * verdict", walks through adding a row; tests/cli/test_verdict_registry.py checks the docs and
 * summary.json against this table.
 *
 * gw_checks_run (checks.h) runs the checkers in the table's order: job-wide ones once, per-GPU
 * ones on every GPU. Rows that share a checker (one job exit is oom_crash or job_failed) run it
 * once. Must not: hold state; the table is constant.
 */
#ifndef GW_REGISTRY_H
#define GW_REGISTRY_H

#include "analysis/analysis.h"

typedef struct gw_verdict_def {
    gw_verdict_id id;
    const char *name;                                /* summary.json "verdicts"[].id */
    void (*job)(gw_analysis *a);                     /* runs once per analysis, or NULL */
    void (*gpu)(gw_analysis *a, gw_gpu_analysis *g); /* runs on every GPU, or NULL */
    gw_severity severity;  /* what it fires with unless its evidence raises or lowers it */
    const int *thresholds; /* the gw_threshold_id it compares against, ended by -1 */
    const char *doc;       /* "report.md#how-the-report-decides": the docs/ section with its row */
    const char *test;      /* "tests/unit/test_verdicts.c:test_thermal": pins its thresholds */
} gw_verdict_def;

/* The rows in run order (gpu_saturated last: it needs the others' results). */
extern const gw_verdict_def gw_verdict_registry[GW_V_COUNT];

/* The row of id; NULL for an id outside the table. */
const gw_verdict_def *gw_verdict_def_of(gw_verdict_id id);

#endif

/*
 * checks: the verdict checkers (internal to analysis/). Each looks at one GPU (or the whole job)
 * of a finished analysis and appends verdicts with evidence to a->verdicts.
 *
 * Adding a verdict id means writing one more checker and giving it a row of the registry
 * (registry.h; docs/style.md, "Recipe: adding a verdict"). Must not: print, allocate outside the
 * verdict list, or change the analysis other than its verdict list.
 */
#ifndef GW_CHECKS_H
#define GW_CHECKS_H

#include "analysis/analysis.h"

/* Runs every checker of the registry in its order (gpu_saturated last: it needs the others'
 * results). */
void gw_checks_run(gw_analysis *a);
/* A job checker's part for one GPU: looks at that GPU only (and ctx, read only). */
typedef void (*gw_check_one)(gw_analysis *a, gw_gpu_analysis *g, const void *ctx);
/* Runs one for every GPU, each GPU's decoded columns freed after it; on a big record on two
 * threads as the per-GPU checkers are (checks.c). The verdicts in GPU order either way. */
void gw_checks_each_gpu(gw_analysis *a, gw_check_one one, const void *ctx);

/* verdict_busy.c */
void gw_check_starved(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_underfilled(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_expected_dips(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_saturated(gw_analysis *a);
void gw_check_imbalance(gw_analysis *a);
/* starved_cause.c: the cause of gpu_starved from host.csv, its evidence on v, the suggestion
 * that goes with it and a short "why" with the numbers. */
const char *gw_starved_cause(const gw_analysis *a, const gw_gpu_analysis *g, gw_verdict *v,
                             const char **suggestion, char *why, size_t len);
/* verdict_memory.c */
void gw_check_memory_leak(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_memory_capacity(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_idle_holding(gw_analysis *a, gw_gpu_analysis *g);
/* verdict_clocks.c */
void gw_check_thermal(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_power(gw_analysis *a, gw_gpu_analysis *g);
void gw_check_gpu_lost(gw_analysis *a);
/* verdict_job.c */
void gw_check_job_stalled(gw_analysis *a);
void gw_check_job_exit(gw_analysis *a);

/* Shared helpers. */
/* Rows of the steady state outside expected dips: the time a GPU is expected to work. */
static inline bool gw_work_row(const gw_gpu_analysis *g, size_t r)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    return r >= st.begin && r < st.end && !g->in_expected_dip[r];
}
/* Samples of the steady state outside expected dips with a value in v (every row when v is NULL):
 * a verdict about the steady state needs min_steady_samples of them (thresholds.h). */
static inline size_t gw_work_samples(const gw_gpu_analysis *g, const double *v)
{
    size_t n = 0;
    for (size_t r = g->phase[GW_PHASE_STEADY].span.begin; r < g->phase[GW_PHASE_STEADY].span.end;
         r++)
        n += !g->in_expected_dip[r] && (!v || v[r] == v[r]);
    return n;
}
/* p50 of values[r] over rows where keep(g, r) holds; NAN when fewer than 3 values. */
double gw_check_p50(const gw_gpu_analysis *g, const double *values,
                    bool (*keep)(const gw_gpu_analysis *, size_t));
/* Rows of g whose time lies in [start_ms, end_ms). */
gw_span gw_check_span_of_time(const gw_gpu_analysis *g, int64_t start_ms, int64_t end_ms);

#endif

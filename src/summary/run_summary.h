/*
 * run_summary: the short table printed when `run` or `record` ends.
 *
 * Owns: running aggregates per GPU (GPU-Util histogram for mean and p95, SM-active mean, memory
 * peak, temperature max, power mean/max against the limit, energy from the NVML counter or, without
 * it, from power integrated over time) and for the job (peak RSS, mean CPU, most processes). A sink
 * fed in the tick thread; printed once after the sampler stopped. Must not: call NVML or decide
 * verdicts (the report does).
 */
#ifndef GW_RUN_SUMMARY_H
#define GW_RUN_SUMMARY_H

#include "sampler/sampler.h"

#include <stdio.h>

typedef struct gw_run_summary gw_run_summary;

gw_run_summary *gw_run_summary_new(void);
gw_sink gw_run_summary_as_sink(gw_run_summary *rs);

/* Aggregates for one GPU; NAN where nothing was measured. */
typedef struct gw_gpu_summary {
    double util_mean_pct, util_p95_pct;
    double sm_active_mean_pct;
    double mem_peak_mib, mem_total_mib;
    double temp_max_c;
    double power_mean_w, power_max_w, power_limit_w;
    double energy_wh;
    unsigned samples;
    bool lost;
} gw_gpu_summary;

/* Fills out for GPU i (0 <= i < count of on_start). Returns false when i is out of range. */
bool gw_run_summary_gpu(const gw_run_summary *rs, unsigned i, gw_gpu_summary *out);

/* Prints the table: one row per GPU, then the job's line when a job was followed. */
void gw_run_summary_print(const gw_run_summary *rs, FILE *to);

void gw_run_summary_free(gw_run_summary *rs);

#endif

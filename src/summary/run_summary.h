/*
 * run_summary: the short table printed when `run` or `record` ends.
 *
 * Owns: the table's layout and what the sink counts live (ticks, the recording's length, the GPUs
 * and which were lost). The figures (GPU-Util mean and p95, SM-active mean, memory peak,
 * temperature max, power mean/max against the limit, energy; the job's peak RSS, mean CPU, most
 * processes) are not accumulated here: the session computes them at the end from the recorded
 * series with the one statistics engine (src/stats, through the analysis), so the table equals
 * summary.json, and hands them in with gw_run_summary_set_gpu / _set_job. Figures never set print
 * as "-". Must not: call NVML, compute statistics of its own, or decide verdicts.
 */
#ifndef GW_RUN_SUMMARY_H
#define GW_RUN_SUMMARY_H

#include "sampler/sampler.h"

#include <stdio.h>

typedef struct gw_run_summary gw_run_summary;

gw_run_summary *gw_run_summary_new(void);
gw_sink gw_run_summary_as_sink(gw_run_summary *rs);

/* Figures for one GPU, in the units of the table; NAN where nothing was measured. */
typedef struct gw_gpu_summary {
    double util_mean_pct, util_p95_pct;
    double sm_active_mean_pct;
    double mem_peak_mib, mem_total_mib;
    double temp_max_c;
    double power_mean_w, power_max_w, power_limit_w;
    double energy_wh;
    bool energy_partial; /* a gap was not bridged: the energy is a lower bound */
    unsigned samples;    /* live: ticks with values for this GPU */
    bool lost;           /* live */
    bool other_job;      /* another job's GPU, left out of the report (--scope job) */
} gw_gpu_summary;

/* Fills out for GPU i (0 <= i < count of on_start). Returns false when i is out of range. */
bool gw_run_summary_gpu(const gw_run_summary *rs, unsigned i, gw_gpu_summary *out);

/* The NVML index of GPU i (0 <= i < count of on_start). */
unsigned gw_run_summary_index(const gw_run_summary *rs, unsigned i);

/* Sets the figures of the GPU with NVML index `index` (samples and lost stay the live ones).
 * Returns false when no such GPU was sampled. */
bool gw_run_summary_set_gpu(gw_run_summary *rs, int index, const gw_gpu_summary *figures);

/* Sets the job's figures (NAN: unknown); the job's line is printed once one of them is known. */
void gw_run_summary_set_job(gw_run_summary *rs, double rss_peak_mib, double cpu_mean_pct,
                            double processes_max);

/* Prints the table: one row per GPU, then the job's line when a job was followed. */
void gw_run_summary_print(const gw_run_summary *rs, FILE *to);

void gw_run_summary_free(gw_run_summary *rs);

#endif

/* The end-of-run table's figures from the analysis of the recorded run (see run_table.h). */
#include "run/run_table.h"

#include "logread/logread.h"
#include "stats/stats.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole record's statistics of field f, or NULL when the GPU has no such column. */
static const gw_stats *whole(const gw_gpu_analysis *g, gw_gpu_field f)
{
    int c = g->gpu->col_of[f];
    return c >= 0 ? &g->whole.stats[c] : NULL;
}

#define MEAN(g, f) (whole(g, f) ? whole(g, f)->mean : NAN)
#define MAX(g, f)  (whole(g, f) ? whole(g, f)->max : NAN)

/* Figures of a host.csv column over the whole record, with the engine's weights. */
static void host_stats(const gw_series_host *h, gw_gpu_field f, const double *w, gw_stats *out)
{
    long c = gw_series_table_find(&h->tab, gw_fields[f].csv_header);
    gw_stats_summary(c >= 0 ? h->tab.cols[c].v : NULL, w, c >= 0 ? h->tab.n : 0, NULL, out);
}

/* The job's line: peak RSS, time-weighted mean CPU, most processes, from host.csv. */
static void job_figures(const gw_series_host *h, gw_run_summary *rs)
{
    double *w = xmalloc((h->tab.n ? h->tab.n : 1) * sizeof *w);
    gw_stats_sample_weights(h->tab.t_ms, h->tab.n, w);
    gw_stats rss, cpu, procs;
    host_stats(h, GW_F_JOB_RSS_MIB, w, &rss);
    host_stats(h, GW_F_JOB_CPU_PCT, w, &cpu);
    host_stats(h, GW_F_JOB_PROCESSES, w, &procs);
    free(w);
    gw_run_summary_set_job(rs, rss.max, cpu.mean, procs.max);
}

/* Whether the job's GPUs (meta.json "job") left GPU index out of the analysis (--scope job). */
static bool left_out(const gw_analysis *a, unsigned index)
{
    const gw_series *s = a->series;
    for (size_t i = 0; i < a->ngpus; i++)
        if (a->gpus[i].gpu->index == (int)index)
            return false;
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].job && !s->inputs[i].job->gpus_pending &&
            !gw_job_has_gpu(s->inputs[i].job, index))
            return a->ngpus > 0;
    return false;
}

void gw_run_table_fill(const gw_analysis *a, gw_run_summary *rs)
{
    gw_gpu_summary other;
    for (unsigned i = 0; gw_run_summary_gpu(rs, i, &other); i++) {
        unsigned index = gw_run_summary_index(rs, i);
        if (left_out(a, index)) {
            other.other_job = true;
            gw_run_summary_set_gpu(rs, (int)index, &other);
        }
    }
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_gpu_analysis *g = &a->gpus[i];
        /* The series holds memory in MiB and power in W (logread/series.h). */
        gw_gpu_summary f = {
            .util_mean_pct = MEAN(g, GW_F_UTIL_GPU_PCT),
            .util_p95_pct = whole(g, GW_F_UTIL_GPU_PCT) ? whole(g, GW_F_UTIL_GPU_PCT)->p95 : NAN,
            .sm_active_mean_pct = MEAN(g, GW_F_GPM_SM_ACTIVE_PCT),
            .mem_peak_mib = MAX(g, GW_F_MEM_USED_MIB),
            .mem_total_mib = g->gpu->memory_total_mib,
            .temp_max_c = MAX(g, GW_F_TEMP_GPU_C),
            .power_mean_w = MEAN(g, GW_F_POWER_DRAW_W),
            .power_max_w = MAX(g, GW_F_POWER_DRAW_W),
            .power_limit_w = MAX(g, GW_F_POWER_LIMIT_W),
            .energy_wh = g->whole.energy_wh,
            .energy_partial = g->whole.energy_partial,
        };
        if (isnan(f.power_limit_w))
            f.power_limit_w = g->gpu->power_limit_w;
        gw_run_summary_set_gpu(rs, g->gpu->index, &f);
    }
    if (a->series->nhosts > 0)
        job_figures(a->series->hosts[0], rs);
}

void gw_run_table_hook(const gw_analysis *a, void *ctx)
{
    gw_run_table *t = ctx;
    gw_run_table_fill(a, t->rs);
    gw_run_summary_print(t->rs, t->to);
    t->printed = true;
}

void gw_run_table_finish(gw_run_table *t, const char *run_dir)
{
    if (t->printed)
        return;
    /* No analysis (no GPU rows: a machine without a GPU, or gpu.csv unreadable): the job's line
     * from host.csv alone, with the same engine; the GPU figures stay "-". */
    gw_series *s = gw_series_new();
    char *path = xasprintf("%s/host.csv", run_dir);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t input = gw_series_add_input(s, path, NULL, GW_INPUT_RUN_DIR);
        gw_series_host *h = gw_series_add_host(s, input, path);
        gw_error ignored;
        if (gw_logread_table_csv(s, f, input, &h->tab, NULL, &ignored) == GW_OK)
            job_figures(h, t->rs);
        fclose(f);
    }
    free(path);
    gw_series_free(s);
    gw_run_summary_print(t->rs, t->to);
    t->printed = true;
}

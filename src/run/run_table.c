/* The end-of-run table's figures from the analysis of the recorded run (see run_table.h). */
#include "run/run_table.h"

#include "stats/stats.h"
#include "util/xalloc.h"

#include <math.h>
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
static void host_stats(const gw_series_host *h, const char *name, const double *w, gw_stats *out)
{
    long c = gw_series_table_find(&h->tab, name);
    gw_stats_summary(c >= 0 ? h->tab.cols[c].v : NULL, w, c >= 0 ? h->tab.n : 0, NULL, out);
}

void gw_run_table_fill(const gw_analysis *a, gw_run_summary *rs)
{
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_gpu_analysis *g = &a->gpus[i];
        /* The series holds memory in MiB and power in W (logread/series.h). */
        gw_gpu_summary f = {
            .util_mean_pct = MEAN(g, GW_F_UTIL_GPU_PCT),
            .util_p95_pct = whole(g, GW_F_UTIL_GPU_PCT) ? whole(g, GW_F_UTIL_GPU_PCT)->p95 : NAN,
            .sm_active_mean_pct = MEAN(g, GW_F_GPM_SM_ACTIVE_PCT),
            .mem_peak_mib = MAX(g, GW_F_MEM_USED_BYTES),
            .mem_total_mib = g->gpu->memory_total_mib,
            .temp_max_c = MAX(g, GW_F_TEMP_GPU_C),
            .power_mean_w = MEAN(g, GW_F_POWER_DRAW_MW),
            .power_max_w = MAX(g, GW_F_POWER_DRAW_MW),
            .power_limit_w = MAX(g, GW_F_POWER_LIMIT_MW),
            .energy_wh = g->whole.energy_wh,
            .energy_partial = g->whole.energy_partial,
        };
        if (isnan(f.power_limit_w))
            f.power_limit_w = g->gpu->power_limit_w;
        gw_run_summary_set_gpu(rs, g->gpu->index, &f);
    }
    const gw_series *s = a->series;
    if (s->nhosts == 0)
        return;
    const gw_series_host *h = s->hosts[0];
    double *w = xmalloc((h->tab.n ? h->tab.n : 1) * sizeof *w);
    gw_stats_sample_weights(h->tab.t_ms, h->tab.n, w);
    gw_stats rss, cpu, procs;
    host_stats(h, "job.rss [MiB]", w, &rss);
    host_stats(h, "job.cpu [%]", w, &cpu);
    host_stats(h, "job.processes", w, &procs);
    free(w);
    gw_run_summary_set_job(rs, rss.max, cpu.mean, procs.max);
}

void gw_run_table_hook(const gw_analysis *a, void *ctx)
{
    gw_run_table *t = ctx;
    gw_run_table_fill(a, t->rs);
    gw_run_summary_print(t->rs, t->to);
    t->printed = true;
}

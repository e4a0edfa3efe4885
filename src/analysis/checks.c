/* The order of the verdict checkers and their shared helpers (see checks.h). */
#include "analysis/checks.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

typedef void (*gpu_checker)(gw_analysis *a, gw_gpu_analysis *g);

static const gpu_checker per_gpu[] = {
    gw_check_starved_underfilled, gw_check_memory_leak, gw_check_memory_capacity,
    gw_check_idle_holding,        gw_check_thermal,     gw_check_power,
    gw_check_expected_dips,
};

void gw_checks_run(gw_analysis *a)
{
    gw_check_gpu_lost(a);
    gw_check_job_stalled(a);
    gw_check_job_exit(a);
    for (size_t c = 0; c < sizeof per_gpu / sizeof per_gpu[0]; c++)
        for (size_t i = 0; i < a->ngpus; i++)
            per_gpu[c](a, &a->gpus[i]);
    gw_check_imbalance(a);
    for (size_t i = 0; i < a->ngpus; i++)
        gw_check_saturated(a, &a->gpus[i]);
}

double gw_check_p50(const gw_gpu_analysis *g, const double *values,
                    bool (*keep)(const gw_gpu_analysis *, size_t))
{
    size_t n = g->gpu->tab.n, m = 0;
    if (!values)
        return NAN;
    double *a = xmalloc((n ? n : 1) * sizeof *a);
    for (size_t r = 0; r < n; r++)
        if (!isnan(values[r]) && keep(g, r))
            a[m++] = values[r];
    double p50 = m >= 3 ? gw_stats_quantile(a, m, 0.5) : NAN;
    free(a);
    return p50;
}

gw_span gw_check_span_of_time(const gw_gpu_analysis *g, int64_t start_ms, int64_t end_ms)
{
    const int64_t *t = g->gpu->tab.t_ms;
    size_t n = g->gpu->tab.n, b = 0;
    while (b < n && t[b] < start_ms)
        b++;
    size_t e = b;
    while (e < n && t[e] < end_ms)
        e++;
    return gw_span_make(g->gpu, g->dt_s, b, e);
}

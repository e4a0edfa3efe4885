/* Running the verdict checkers of the registry, and their shared helpers (see checks.h). */
#include "analysis/checks.h"

#include "analysis/registry.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

/* Whether an earlier row of the registry already ran the checker of row i. */
static bool ran_before(size_t i)
{
    const gw_verdict_def *d = &gw_verdict_registry[i];
    for (size_t k = 0; k < i; k++)
        if ((d->job && gw_verdict_registry[k].job == d->job) ||
            (d->gpu && gw_verdict_registry[k].gpu == d->gpu))
            return true;
    return false;
}

void gw_checks_run(gw_analysis *a)
{
    for (size_t c = 0; c < GW_V_COUNT; c++) {
        const gw_verdict_def *d = &gw_verdict_registry[c];
        if (ran_before(c))
            continue;
        if (d->job)
            d->job(a);
        /* the columns a check decoded are freed after it (series.h: big records) */
        for (size_t i = 0; d->job && i < a->ngpus; i++)
            gw_series_gpu_release(a->gpus[i].gpu);
        for (size_t i = 0; d->gpu && i < a->ngpus; i++) {
            d->gpu(a, &a->gpus[i]);
            gw_series_gpu_release(a->gpus[i].gpu);
        }
        for (size_t i = 0; d->gpu && i < a->ngpus; i++) /* a check may look at its peers */
            gw_series_gpu_release(a->gpus[i].gpu);
    }
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
    size_t n = g->gpu->tab.n;
    size_t b = gw_stats_lower_bound_ms(t, n, start_ms);
    size_t e = b + gw_stats_lower_bound_ms(t + b, n - b, end_ms);
    return gw_span_make(g->gpu, g->dt_s, b, e);
}

/* In-job data wins over the GPU's own start-up detection (analysis/inproc.h): the training
 * DataLoader's first pass is when training started, even when the GPU was hardly busy then (an
 * input-bound first epoch is training, not start-up). */
#include "analysis/analysis.h"

#include <stdlib.h>

void gw_inproc_steady(gw_analysis *a);

void gw_inproc_steady(gw_analysis *a)
{
    if (a->epoch_origin != GW_EPOCHS_PYTHON || a->nepochs == 0)
        return;
    int64_t first = a->epochs[0].start_ms;
    for (size_t i = 0; i < a->ngpus; i++) {
        gw_gpu_analysis *g = &a->gpus[i];
        const int64_t *t = g->gpu->tab.t_ms;
        gw_span *startup = &g->phase[GW_PHASE_STARTUP].span;
        gw_span *steady = &g->phase[GW_PHASE_STEADY].span;
        if (!g->worked || steady->begin == steady->end || !gw_inproc_covers(a->inproc, g->gpu))
            continue; /* a GPU that never worked, or of another run, keeps its phases */
        size_t b = 0;
        while (b < steady->begin && t[b] < first)
            b++;
        if (b >= steady->begin)
            continue;
        *startup = gw_span_make(g->gpu, g->dt_s, 0, b);
        *steady = gw_span_make(g->gpu, g->dt_s, b, steady->end);
        free(g->dips);
        g->dips = NULL;
        g->ndips = gw_dips_find(gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT), t, g->dt_s,
                                g->gpu->tab.n, *steady, &g->dips);
    }
}

/* Throttle bands from clocks_event_reasons (see chart.h). */
#include "chart/chart.h"

#include "sampler/clock_reasons.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

/* Bits of clocks_event_reasons in each group (sampler/clock_reasons.h). The power band shows the
 * SW power cap only: the HW power brake is drawn in the HW slowdown band. */
static const uint64_t group_bits[GW_THROTTLE_COUNT] = {
    [GW_THROTTLE_POWER] = GW_REASON_SW_POWER_CAP,
    [GW_THROTTLE_THERMAL] = GW_REASONS_THERMAL,
    [GW_THROTTLE_HW] = GW_REASONS_HW,
};

const char *gw_throttle_name(gw_throttle k)
{
    static const char *const names[GW_THROTTLE_COUNT] = {"power cap", "thermal", "HW slowdown"};
    return k < GW_THROTTLE_COUNT ? names[k] : "?";
}

typedef struct band_list {
    size_t n, cap;
    gw_band *v;
} band_list;

static void band_emit(band_list *l, int gpu, gw_throttle kind, int64_t start, int64_t end,
                      int64_t merge_ms)
{
    if (l->n > 0) {
        gw_band *last = &l->v[l->n - 1];
        if (last->gpu == gpu && last->kind == kind && start - last->end_ms <= merge_ms) {
            if (end > last->end_ms)
                last->end_ms = end;
            return;
        }
    }
    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (gw_band){gpu, kind, start, end};
}

/* The bands of one reason group on one GPU. */
static void gpu_group_bands(const gw_gpu_analysis *g, int slot, gw_throttle kind, int64_t merge_ms,
                            band_list *out)
{
    const gw_series_table *t = &g->gpu->tab;
    const double *mask = gw_series_gpu_values(g->gpu, GW_F_CLOCKS_EVENT_REASONS);
    double max_gap_ms = 5 * g->interval_s * 1000.0;
    for (size_t i = 0; mask && i < t->n; i++) {
        if (!(gw_reasons_of(mask[i]) & group_bits[kind]))
            continue;
        int64_t end = t->t_ms[i] + (int64_t)llround(g->interval_s * 1000.0);
        if (i + 1 < t->n && (double)(t->t_ms[i + 1] - t->t_ms[i]) <= max_gap_ms)
            end = t->t_ms[i + 1];
        band_emit(out, slot, kind, t->t_ms[i], end, merge_ms);
    }
}

size_t gw_chart_bands(const gw_analysis *a, int64_t merge_ms, gw_band **out)
{
    band_list l = {0, 0, NULL};
    for (size_t i = 0; i < a->ngpus; i++)
        for (int k = 0; k < GW_THROTTLE_COUNT; k++)
            gpu_group_bands(&a->gpus[i], (int)i, (gw_throttle)k, merge_ms, &l);
    *out = l.v;
    return l.n;
}

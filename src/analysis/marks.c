/* What the report takes from markers (see marks.h). */
#include "analysis/marks.h"

#include "analysis/thresholds.h"

#include <math.h>
#include <string.h>
#include <strings.h>

bool gw_mark_is(const gw_series_event *e, const char *name)
{
    return e->kind == GW_EV_MARK && strcasecmp(e->text, name) == 0;
}

/* The first field among keys holding a whole number that fits a long, else -1. */
static long field_number(const gw_series_event *e, const char *const *keys)
{
    for (; *keys; keys++) {
        double v = gw_series_event_field_num(e, *keys);
        if (v >= 0 && v <= 1e9 && v == floor(v))
            return (long)v;
    }
    return -1;
}

void gw_mark_epoch(const gw_series_event *e, long fallback, long *number, long *total)
{
    static const char *const number_keys[] = {"n", "epoch", "number", NULL};
    static const char *const total_keys[] = {"total", "of", "epochs", NULL};
    long n = field_number(e, number_keys);
    *number = n >= 0 ? n : fallback;
    *total = field_number(e, total_keys);
}

size_t gw_dips_mark_validation(const gw_series *s, const gw_series_gpu *g, gw_dip *dips, size_t n)
{
    int64_t tol = (int64_t)(GW_TH(GW_TH_DIP_ALIGN_S) * 1000.0);
    size_t marked = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const gw_series_event *e = &s->events[i];
        if (e->kind != GW_EV_MARK || strncasecmp(e->text, "validation", 10) != 0 ||
            strcmp(s->inputs[e->input].source, g->source) != 0)
            continue;
        for (size_t d = 0; d < n; d++)
            if (!dips[d].expected && e->t_ms >= dips[d].span.start_ms - tol &&
                e->t_ms <= dips[d].span.end_ms + tol) {
                dips[d].expected = true;
                marked++;
            }
    }
    return marked;
}

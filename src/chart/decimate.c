/* The time grid of a chart and min/max decimation per pixel column (see chart.h). */
#include "chart/chart.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

size_t gw_chart_sort_unique(int64_t *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || t[u - 1] != t[i])
            t[u++] = t[i];
    return u;
}

/* Every distinct time of the data traces, sorted; NULL (count 0) when there are more than
 * `limit`. */
static int64_t *union_times(const gw_trace *tr, size_t ntr, size_t limit, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < ntr; i++)
        if (!tr[i].reference) {
            if (tr[i].n > limit)
                return *count = 0, NULL;
            total += tr[i].n;
        }
    int64_t *t = xmalloc((total ? total : 1) * sizeof *t);
    size_t k = 0;
    for (size_t i = 0; i < ntr; i++)
        if (!tr[i].reference) {
            memcpy(t + k, tr[i].t_ms, tr[i].n * sizeof *t);
            k += tr[i].n;
        }
    size_t u = gw_chart_sort_unique(t, k);
    if (u > limit) {
        free(t);
        return *count = 0, NULL;
    }
    return *count = u, t;
}

void gw_chart_grid_build(const gw_trace *tr, size_t ntr, int64_t t0_ms, int64_t t1_ms,
                         size_t columns, gw_chart_grid *g)
{
    memset(g, 0, sizeof *g);
    if (columns < 1)
        columns = 1;
    size_t n = 0;
    int64_t *t = union_times(tr, ntr, 2 * columns, &n);
    if (t) { /* every chart spans [t0, t1], so that all of them share one time axis */
        t = xrealloc(t, (n + 2) * sizeof *t);
        if (n == 0 || t0_ms < t[0]) {
            memmove(t + 1, t, n * sizeof *t);
            t[0] = t0_ms;
            n++;
        }
        if (t1_ms > t[n - 1])
            t[n++] = t1_ms;
        g->n = n;
        g->t_ms = t;
        return;
    }
    if (t1_ms <= t0_ms)
        t1_ms = t0_ms + 1;
    g->binned = true;
    g->ncolumns = columns;
    g->t0_ms = t0_ms;
    g->col_ms = (double)(t1_ms - t0_ms) / (double)columns;
    g->n = 2 * columns;
    g->t_ms = xmalloc(g->n * sizeof *g->t_ms);
    for (size_t c = 0; c < columns; c++) {
        g->t_ms[2 * c] = t0_ms + (int64_t)llround(((double)c + 0.25) * g->col_ms);
        g->t_ms[2 * c + 1] = t0_ms + (int64_t)llround(((double)c + 0.75) * g->col_ms);
    }
}

void gw_chart_grid_free(gw_chart_grid *g)
{
    free(g->t_ms);
    memset(g, 0, sizeof *g);
}

static void placed_push(gw_placed *p, size_t *cap, size_t idx, double v)
{
    if (p->n == *cap) {
        size_t c = *cap;
        p->idx = xgrow(p->idx, &c, p->n + 1, sizeof *p->idx);
        p->v = xgrow(p->v, cap, p->n + 1, sizeof *p->v);
    }
    p->idx[p->n] = idx;
    p->v[p->n++] = v;
}

static void place_raw(const gw_chart_grid *g, const gw_trace *tr, gw_placed *out, size_t *cap)
{
    size_t last = (size_t)-1;
    for (size_t i = 0; i < tr->n; i++) {
        size_t k = gw_stats_lower_bound_ms(g->t_ms, g->n, tr->t_ms[i]);
        if (k >= g->n)
            k = g->n - 1;
        double v = tr->v[i] * tr->scale;
        if (k == last) { /* two rows at one time: keep a present value */
            if (!isnan(v))
                out->v[out->n - 1] = v;
            continue;
        }
        placed_push(out, cap, k, v);
        last = k;
    }
}

/* Min/max of one column's rows, and where they occurred. */
typedef struct column_acc {
    size_t rows;
    double min, max;
    int64_t t_min, t_max;
} column_acc;

static void flush_column(const gw_chart_grid *g, size_t c, const column_acc *acc, gw_placed *out,
                         size_t *cap)
{
    if (acc->rows == 0)
        return;
    if (isnan(acc->min)) {
        placed_push(out, cap, 2 * c, NAN);
        return;
    }
    if (acc->min == acc->max) {
        double mid = (double)g->t0_ms + ((double)c + 0.5) * g->col_ms;
        placed_push(out, cap, 2 * c + ((double)acc->t_min >= mid), acc->min);
        return;
    }
    bool min_first = acc->t_min <= acc->t_max;
    placed_push(out, cap, 2 * c, min_first ? acc->min : acc->max);
    placed_push(out, cap, 2 * c + 1, min_first ? acc->max : acc->min);
}

static size_t column_of(const gw_chart_grid *g, int64_t t)
{
    double c = floor((double)(t - g->t0_ms) / g->col_ms);
    if (c < 0)
        return 0;
    if (c >= (double)g->ncolumns)
        return g->ncolumns - 1;
    return (size_t)c;
}

static void place_binned(const gw_chart_grid *g, const gw_trace *tr, gw_placed *out, size_t *cap)
{
    column_acc acc = {0, NAN, NAN, 0, 0};
    size_t col = 0;
    for (size_t i = 0; i < tr->n; i++) {
        size_t c = column_of(g, tr->t_ms[i]);
        if (c != col) {
            flush_column(g, col, &acc, out, cap);
            acc = (column_acc){0, NAN, NAN, 0, 0};
            col = c;
        }
        acc.rows++;
        double v = tr->v[i] * tr->scale;
        if (isnan(v))
            continue;
        if (isnan(acc.min) || v < acc.min)
            acc.min = v, acc.t_min = tr->t_ms[i];
        if (isnan(acc.max) || v > acc.max)
            acc.max = v, acc.t_max = tr->t_ms[i];
    }
    flush_column(g, col, &acc, out, cap);
}

void gw_chart_place(const gw_chart_grid *g, const gw_trace *tr, gw_placed *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    if (g->n == 0 || tr->n == 0)
        return;
    if (g->binned)
        place_binned(g, tr, out, &cap);
    else
        place_raw(g, tr, out, &cap);
}

void gw_placed_free(gw_placed *p)
{
    free(p->idx);
    free(p->v);
    memset(p, 0, sizeof *p);
}

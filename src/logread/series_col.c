/* The tables of the series model and their columns, kept compactly in GPU tables (series.h,
 * gw_col_kind; issue 28). */
#include "logread/series.h"

#include "stats/stats.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DECIMALS = 6, MAX_RECENTERS = 8 };

static const double pow10_d[MAX_DECIMALS + 1] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
static const int64_t pow10_i[MAX_DECIMALS + 1] = {1, 10, 100, 1000, 10000, 100000, 1000000};
/* The largest magnitude of a scaled value: integers up to 2^53 are exact doubles. */
static const int64_t max_scaled = INT64_C(9007199254740992);

/* Codes of each integer kind: [-limit, limit], and -limit - 1 for absent. */
static int64_t limit_of(int kind)
{
    return kind == GW_COL_I8 ? INT8_MAX : kind == GW_COL_I16 ? INT16_MAX : INT32_MAX;
}

static size_t width_of(int kind)
{
    return kind == GW_COL_I8 ? 1 : kind == GW_COL_I16 ? 2 : 4;
}

/* v as a count m of 10^-d for the least d <= MAX_DECIMALS such that m / 10^d gives v back
 * exactly (the division of an exact integer by an exact power of ten is correctly rounded, so the
 * same m at a larger d, times the power of ten between, gives v back too); false when none. */
static bool scaled_of(double v, int *d, int64_t *m)
{
    if (!isfinite(v) || (v == 0 && signbit(v)))
        return false;
    for (int k = 0; k <= MAX_DECIMALS; k++) {
        double x = nearbyint(v * pow10_d[k]);
        if (fabs(x) > (double)max_scaled)
            return false;
        if (x / pow10_d[k] == v) {
            *d = k;
            *m = (int64_t)x;
            return true;
        }
    }
    return false;
}

/* m (in 10^-from) in 10^-to, to >= from; false when it leaves the exact range. */
static bool rescale(int64_t m, int from, int to, int64_t *out)
{
    int64_t f = pow10_i[to - from];
    if (m > max_scaled / f || m < -max_scaled / f)
        return false;
    *out = m * f;
    return true;
}

static int64_t code_at(const gw_series_col *c, size_t row)
{
    switch (c->kind) {
    case GW_COL_I8:
        return ((const int8_t *)c->codes)[row];
    case GW_COL_I16:
        return ((const int16_t *)c->codes)[row];
    default:
        return ((const int32_t *)c->codes)[row];
    }
}

static void code_put(gw_series_col *c, size_t row, int64_t code)
{
    switch (c->kind) {
    case GW_COL_I8:
        ((int8_t *)c->codes)[row] = (int8_t)code;
        break;
    case GW_COL_I16:
        ((int16_t *)c->codes)[row] = (int16_t)code;
        break;
    default:
        ((int32_t *)c->codes)[row] = (int32_t)code;
        break;
    }
}

/* Row `row` (< len) of an integer column: false when absent, else its value in 10^-decimals. */
static bool scaled_at(const gw_series_col *c, size_t row, int64_t *m)
{
    int64_t code = code_at(c, row);
    if (code < -limit_of(c->kind))
        return false;
    *m = c->base + code;
    return true;
}

static double value_at(const gw_series_col *c, size_t row)
{
    if (c->kind == GW_COL_DOUBLE)
        return c->v[row];
    if (row >= c->len)
        return NAN;
    if (c->kind == GW_COL_CONST)
        return c->cval;
    int64_t m;
    if (!scaled_at(c, row, &m))
        return NAN;
    return c->decimals ? (double)m / pow10_d[c->decimals] : (double)m;
}

/* Turns a compact column into doubles ([cap] rows of the table, absent past len). */
static void to_double(gw_series_col *c, size_t n, size_t cap)
{
    if (c->kind == GW_COL_DOUBLE)
        return;
    double *v = xmalloc((cap ? cap : 1) * sizeof *v);
    for (size_t r = 0; r < n; r++)
        v[r] = value_at(c, r);
    free(c->v);
    free(c->codes);
    c->codes = NULL;
    c->v = v;
    c->kind = GW_COL_DOUBLE;
    c->len = c->cap = c->vn = 0;
}

/* Codes the column's rows again, wide enough for the values stored and [lo, hi] (in
 * 10^-dec_in; lo > hi for none), at the larger of the two scales, with room for one row more;
 * false when no integer kind holds them (the caller keeps doubles). */
static bool recode(gw_series_col *c, int dec_in, int64_t lo, int64_t hi)
{
    int from = c->decimals;
    int64_t old_lo = c->lo, old_hi = c->hi, cm = 0;
    bool cpresent = false;
    if (c->kind == GW_COL_CONST) {
        from = 0;
        old_lo = 1, old_hi = 0; /* nothing present */
        if (!isnan(c->cval) && c->len > 0) {
            if (!scaled_of(c->cval, &from, &cm))
                return false;
            cpresent = true;
            old_lo = old_hi = cm;
        }
    }
    int decimals = from > dec_in ? from : dec_in;
    if (lo <= hi && (!rescale(lo, dec_in, decimals, &lo) || !rescale(hi, dec_in, decimals, &hi)))
        return false;
    if (old_lo <= old_hi) {
        if (!rescale(old_lo, from, decimals, &old_lo) || !rescale(old_hi, from, decimals, &old_hi))
            return false;
        if (lo > hi) {
            lo = old_lo;
            hi = old_hi;
        }
        lo = old_lo < lo ? old_lo : lo;
        hi = old_hi > hi ? old_hi : hi;
    }
    if (lo > hi)
        lo = hi = 0;
    int64_t range = hi - lo;
    int kind = GW_COL_I8;
    while (kind <= GW_COL_I32 && range > 2 * limit_of(kind))
        kind++;
    if (kind > GW_COL_I32)
        return false;
    if (c->kind == kind && ++c->recenters > MAX_RECENTERS) { /* a drifting column: go wider */
        if (kind == GW_COL_I32)
            return false;
        kind++;
    }
    if (c->kind != kind)
        c->recenters = 0;
    int64_t base = lo + range / 2;
    size_t cap = c->len + 1 > c->cap ? (c->len + 1) * 3 / 2 + 16 : c->cap;
    void *codes = xmalloc(cap * width_of(kind));
    gw_series_col n = *c;
    n.codes = codes;
    n.kind = (unsigned char)kind;
    for (size_t r = 0; r < c->len; r++) {
        int64_t m = cm;
        bool present = c->kind == GW_COL_CONST ? cpresent : scaled_at(c, r, &m);
        if (present)
            rescale(m, from, decimals, &m); /* within [old_lo, old_hi]: cannot fail */
        code_put(&n, r, present ? m - base : -limit_of(kind) - 1);
    }
    free(c->codes);
    c->codes = codes;
    c->cap = cap;
    c->kind = (unsigned char)kind;
    c->decimals = (unsigned char)decimals;
    c->base = base;
    c->lo = lo;
    c->hi = hi;
    return true;
}

static bool same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* v as a count m of 10^-d when that gives v back exactly (the column's own scale: the common
 * case, one multiplication and one division). */
static inline bool at_scale(double v, int d, int64_t *m)
{
    double x = nearbyint(d ? v * pow10_d[d] : v);
    if (!(fabs(x) <= (double)max_scaled) || (d ? x / pow10_d[d] : x) != v || (v == 0 && signbit(v)))
        return false;
    *m = (int64_t)x;
    return true;
}

/* The common case of put_compact inline: a present value appended to an integer column at its
 * scale, within its width and allocation (an integer column's lo <= hi always). False when the
 * general path must decide. */
static inline bool put_fast(gw_series_col *c, size_t row, double v)
{
    int64_t m;
    if (c->kind < GW_COL_I8 || row != c->len || row >= c->cap || isnan(v) ||
        !at_scale(v, c->decimals, &m))
        return false;
    int64_t code = m - c->base, lim = limit_of(c->kind);
    if (code > lim || code < -lim)
        return false;
    code_put(c, row, code);
    c->len++;
    c->lo = m < c->lo ? m : c->lo;
    c->hi = m > c->hi ? m : c->hi;
    return true;
}

/* Stores v in row `row` of a compact column (row <= len); false when it must keep doubles. */
static bool put_compact(gw_series_col *c, size_t row, double v)
{
    if (c->kind == GW_COL_CONST) {
        if (c->len == 0 || (row == 0 && c->len == 1))
            c->cval = v;
        if (same_value(v, c->cval)) {
            c->len += row == c->len;
            return true;
        }
        if (!recode(c, 0, 1, 0))
            return false;
    }
    int64_t m = 0, lim = limit_of(c->kind);
    bool present = !isnan(v);
    if (present) {
        int d = c->decimals;
        if (!at_scale(v, d, &m) && !scaled_of(v, &d, &m))
            return false;
        if (d < c->decimals) {
            if (!rescale(m, d, c->decimals, &m))
                return false;
            d = c->decimals;
        }
        if (d > c->decimals || m - c->base > lim || m - c->base < -lim) {
            if (!recode(c, d, m, m))
                return false;
            if (c->decimals > d && !rescale(m, d, c->decimals, &m))
                return false;
        }
    }
    if (row == c->len && c->len == c->cap) {
        c->cap = c->cap * 3 / 2 + 16;
        c->codes = xrealloc(c->codes, c->cap * width_of(c->kind));
    }
    code_put(c, row, present ? m - c->base : -limit_of(c->kind) - 1);
    c->len += row == c->len;
    if (present && (c->lo > c->hi || m < c->lo))
        c->lo = m;
    if (present && (c->hi < c->lo || m > c->hi))
        c->hi = m;
    return true;
}

void gw_series_table_set(gw_series_table *t, size_t c, size_t row, double v)
{
    gw_series_col *col = &t->cols[c];
    if (col->kind != GW_COL_DOUBLE) {
        if (put_fast(col, row, v)) {
            if (col->v && row < col->vn)
                col->v[row] = v;
            return;
        }
        bool ok = true;
        while (ok && col->len < row) /* the rows between were absent */
            ok = put_compact(col, col->len, NAN);
        if (ok && put_compact(col, row, v)) {
            if (col->v && row < col->vn)
                col->v[row] = v;
            return;
        }
        to_double(col, t->n, t->cap);
    }
    col->v[row] = v;
}

double gw_series_col_value(const gw_series_table *t, size_t c, size_t row)
{
    return value_at(&t->cols[c], row);
}

void gw_series_col_decode(const gw_series_table *t, size_t c, size_t begin, size_t end, double *out)
{
    const gw_series_col *col = &t->cols[c];
    if (col->kind == GW_COL_DOUBLE || (col->v && col->vn >= end)) {
        memcpy(out, col->v + begin, (end - begin) * sizeof *out);
        return;
    }
    size_t stop = end < col->len ? end : col->len, r = begin;
    if (col->kind == GW_COL_CONST) {
        for (; r < stop; r++)
            out[r - begin] = col->cval;
    } else {
        double scale = pow10_d[col->decimals];
        int64_t absent = -limit_of(col->kind) - 1;
        for (; r < stop; r++) {
            int64_t code = code_at(col, r);
            double x = (double)(col->base + code);
            out[r - begin] = code == absent ? NAN : col->decimals ? x / scale : x;
        }
    }
    for (; r < end; r++)
        out[r - begin] = NAN;
}

/* The value of code `code` (present) of an integer column. */
static double code_value(const gw_series_col *c, int64_t code)
{
    double x = (double)(c->base + code);
    return c->decimals ? x / pow10_d[c->decimals] : x;
}

/* The counted codes of a column: value by rank for gw_stats_quantile_ranked. */
typedef struct counted {
    const gw_series_col *col;
    const uint32_t *counts; /* [bins] by code + offset */
    size_t bins;
    int64_t offset;
} counted;

static double kth_value(void *ctx, size_t k)
{
    const counted *h = ctx;
    size_t seen = 0, b = 0;
    for (; b + 1 < h->bins; b++) {
        seen += h->counts[b];
        if (seen > k)
            break;
    }
    return code_value(h->col, (int64_t)b - h->offset);
}

bool gw_series_col_quantiles(const gw_series_table *t, size_t c, size_t begin, size_t end,
                             const double *q, size_t nq, double *out, size_t *n, double *lo,
                             double *hi)
{
    const gw_series_col *col = &t->cols[c];
    if (col->kind != GW_COL_I8 && col->kind != GW_COL_I16)
        return false;
    int64_t offset = limit_of(col->kind) + 1; /* the absent code counts in bin 0 */
    size_t bins = (size_t)(2 * offset), stop = end < col->len ? end : col->len;
    uint32_t *counts = calloc(bins, sizeof *counts);
    if (!counts || stop - (begin < stop ? begin : stop) > UINT32_MAX) {
        free(counts);
        return false;
    }
    if (col->kind == GW_COL_I8)
        for (size_t r = begin; r < stop; r++)
            counts[((const int8_t *)col->codes)[r] + offset]++;
    else
        for (size_t r = begin; r < stop; r++)
            counts[((const int16_t *)col->codes)[r] + offset]++;
    counts[0] = 0;
    size_t m = 0, first = bins, last = 0;
    for (size_t b = 1; b < bins; b++)
        if (counts[b]) {
            m += counts[b];
            first = first < b ? first : b;
            last = b;
        }
    *n = m;
    *lo = m ? code_value(col, (int64_t)first - offset) : NAN;
    *hi = m ? code_value(col, (int64_t)last - offset) : NAN;
    counted h = {col, counts, bins, offset};
    for (size_t k = 0; k < nq; k++)
        out[k] = gw_stats_quantile_ranked(m, q[k], kth_value, &h);
    free(counts);
    return true;
}

const double *gw_series_col_values(const gw_series_table *t, size_t c)
{
    gw_series_col *col = (gw_series_col *)&t->cols[c]; /* the decoded copy is a cache */
    if (col->kind == GW_COL_DOUBLE || (col->v && col->vn == t->n))
        return col->v;
    free(col->v);
    col->v = NULL;
    double *v = xmalloc((t->n ? t->n : 1) * sizeof *v);
    gw_series_col_decode(t, c, 0, t->n, v);
    col->v = v;
    col->vn = t->n;
    return v;
}

void gw_series_gpu_release(const gw_series_gpu *g)
{
    for (size_t c = 0; c < g->tab.ncols; c++) {
        gw_series_col *col = (gw_series_col *)&g->tab.cols[c];
        if (col->kind != GW_COL_DOUBLE) {
            free(col->v);
            col->v = NULL;
            col->vn = 0;
        }
    }
}

void gw_series_table_drop(gw_series_table *t)
{
    for (size_t c = 0; c < t->ncols; c++) {
        gw_series_col *col = &t->cols[c];
        free(col->v);
        free(col->codes);
        col->v = NULL;
        col->codes = NULL;
        col->len = col->cap = col->vn = 0;
    }
    free(t->t_ms);
    t->t_ms = NULL;
    t->cap = 0;
}

void gw_series_table_free(gw_series_table *t)
{
    gw_series_table_drop(t);
    for (size_t c = 0; c < t->ncols; c++)
        free(t->cols[c].name);
    free(t->cols);
}

size_t gw_series_table_add_row(gw_series_table *t, int64_t t_ms)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        t->t_ms = xrealloc(t->t_ms, cap * sizeof *t->t_ms);
        for (size_t c = 0; c < t->ncols; c++)
            if (t->cols[c].kind == GW_COL_DOUBLE)
                t->cols[c].v = xrealloc(t->cols[c].v, cap * sizeof(double));
        t->cap = cap;
    }
    size_t row = t->n++;
    t->t_ms[row] = t_ms;
    for (size_t c = 0; c < t->ncols; c++)
        if (t->cols[c].kind == GW_COL_DOUBLE)
            t->cols[c].v[row] = NAN;
    return row;
}

long gw_series_table_find(const gw_series_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c].name, name) == 0)
            return (long)c;
    return -1;
}

size_t gw_series_table_col(gw_series_table *t, const char *name, int field)
{
    long found = gw_series_table_find(t, name);
    if (found >= 0)
        return (size_t)found;
    t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof *t->cols);
    gw_series_col *c = &t->cols[t->ncols];
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    c->field = field;
    c->lo = 1; /* lo > hi: nothing stored */
    c->cval = NAN;
    if (t->compact) {
        c->kind = GW_COL_CONST;
    } else {
        c->kind = GW_COL_DOUBLE;
        c->v = xmalloc((t->cap ? t->cap : 1) * sizeof(double));
        for (size_t r = 0; r < t->n; r++)
            c->v[r] = NAN;
    }
    return t->ncols++;
}

/* Column of a known field, created when missing. */
static size_t gpu_col(gw_series_gpu *g, gw_gpu_field f)
{
    if (g->col_of[f] < 0)
        g->col_of[f] = (int)gw_series_table_col(&g->tab, gw_fields[f].csv_header, (int)f);
    return (size_t)g->col_of[f];
}

void gw_series_gpu_set(gw_series_gpu *g, gw_gpu_field f, size_t row, double v)
{
    gw_series_table_set(&g->tab, gpu_col(g, f), row, v);
}

double gw_series_gpu_value(const gw_series_gpu *g, gw_gpu_field f, size_t row)
{
    return g->col_of[f] < 0 ? NAN : value_at(&g->tab.cols[g->col_of[f]], row);
}

bool gw_series_gpu_has(const gw_series_gpu *g, gw_gpu_field f)
{
    return g->col_of[f] >= 0;
}

double gw_series_gpu_max(const gw_series_gpu *g, gw_gpu_field f)
{
    return g->col_of[f] < 0 ? NAN : gw_series_col_max(&g->tab, (size_t)g->col_of[f]);
}

double gw_series_col_max(const gw_series_table *t, size_t col)
{
    const gw_series_col *c = &t->cols[col];
    size_t n = t->n;
    double m = NAN;
    if (c->kind == GW_COL_CONST) /* rows past len are absent */
        return c->len > 0 && n > 0 ? c->cval : NAN;
    if (c->kind == GW_COL_DOUBLE) {
        for (size_t r = 0; r < n; r++)
            if (!isnan(c->v[r]) && (isnan(m) || c->v[r] > m))
                m = c->v[r];
        return m;
    }
    /* integer codes: the value grows with the code, so the largest code's value is the max */
    int64_t best = 0, lim = limit_of(c->kind);
    bool any = false;
    for (size_t r = 0; r < n && r < c->len; r++) {
        int64_t code = code_at(c, r);
        if (code >= -lim && (!any || code > best)) {
            best = code;
            any = true;
        }
    }
    if (!any)
        return NAN;
    int64_t v = c->base + best;
    return c->decimals ? (double)v / pow10_d[c->decimals] : (double)v;
}

double *gw_series_table_writable(gw_series_table *t, const char *name, int field)
{
    size_t c = gw_series_table_col(t, name, field);
    to_double(&t->cols[c], t->n, t->cap);
    return t->cols[c].v;
}

double *gw_series_gpu_writable(gw_series_gpu *g, gw_gpu_field f)
{
    size_t c = gpu_col(g, f);
    to_double(&g->tab.cols[c], g->tab.n, g->tab.cap);
    return g->tab.cols[c].v;
}

const double *gw_series_gpu_values(const gw_series_gpu *g, gw_gpu_field f)
{
    return g->col_of[f] < 0 ? NULL : gw_series_col_values(&g->tab, (size_t)g->col_of[f]);
}

/* ---- sorting by time ---- */

static const int64_t *sort_key; /* qsort has no context argument in C11 */

static int cmp_row(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (sort_key[i] != sort_key[j])
        return sort_key[i] < sort_key[j] ? -1 : 1;
    return i < j ? -1 : i > j; /* stable */
}

/* Reorders a compact column's rows by perm ([n]). */
static void permute_compact(gw_series_col *c, const size_t *perm, size_t n, size_t cap)
{
    while (c->len < n && put_compact(c, c->len, NAN)) /* absent rows at the end take part */
        ;
    if (c->len < n) {
        to_double(c, n, cap);
        return;
    }
    free(c->v); /* the decoded copy is out of date */
    c->v = NULL;
    c->vn = 0;
    if (c->kind == GW_COL_CONST)
        return;
    size_t w = width_of(c->kind);
    unsigned char *src = c->codes, *dst = xmalloc((c->cap ? c->cap : 1) * w);
    for (size_t r = 0; r < n; r++)
        memcpy(dst + r * w, src + perm[r] * w, w);
    free(src);
    c->codes = dst;
}

void gw_series_table_sort(gw_series_table *t)
{
    bool sorted = true;
    for (size_t r = 1; r < t->n && sorted; r++)
        sorted = t->t_ms[r - 1] <= t->t_ms[r];
    if (sorted)
        return;
    size_t *perm = xmalloc(t->n * sizeof *perm);
    for (size_t r = 0; r < t->n; r++)
        perm[r] = r;
    sort_key = t->t_ms;
    qsort(perm, t->n, sizeof *perm, cmp_row);
    int64_t *tt = xmalloc(t->cap * sizeof *tt);
    for (size_t r = 0; r < t->n; r++)
        tt[r] = t->t_ms[perm[r]];
    free(t->t_ms);
    t->t_ms = tt;
    for (size_t c = 0; c < t->ncols; c++) {
        gw_series_col *col = &t->cols[c];
        if (col->kind != GW_COL_DOUBLE) {
            permute_compact(col, perm, t->n, t->cap);
            if (col->kind != GW_COL_DOUBLE)
                continue;
        }
        double *v = xmalloc(t->cap * sizeof *v);
        for (size_t r = 0; r < t->n; r++)
            v[r] = col->v[perm[r]];
        free(col->v);
        col->v = v;
    }
    free(perm);
}

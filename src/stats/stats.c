/* Descriptive statistics (see stats.h). */
#include "stats/stats.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Moves the k-th smallest of a[lo..hi] to a[k], smaller ones before, larger ones after. Hoare
 * partitioning around a median of three splits runs of equal values evenly, which matters for
 * telemetry full of repeated 100s and 0s. */
static void select_kth(double *a, size_t lo, size_t hi, size_t k)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < a[lo])
            swap(&a[mid], &a[lo]);
        if (a[hi] < a[lo])
            swap(&a[hi], &a[lo]);
        if (a[hi] < a[mid])
            swap(&a[hi], &a[mid]);
        double pivot = a[mid];
        size_t i = lo, j = hi;
        for (;;) {
            while (a[i] < pivot)
                i++;
            while (pivot < a[j])
                j--;
            if (i >= j)
                break;
            swap(&a[i], &a[j]);
            i++;
            j--;
        }
        /* a[lo..j] <= pivot <= a[j+1..hi] */
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
}

static double min_of(const double *a, size_t n)
{
    double m = a[0];
    for (size_t i = 1; i < n; i++)
        if (a[i] < m)
            m = a[i];
    return m;
}

/* Quantile within a[lo..hi] where everything before lo is <= and after hi is >= (as left by an
 * earlier selection); k is the global rank of the lower neighbour. */
static double quantile_in(double *a, size_t n, size_t lo, size_t hi, double q)
{
    double h = (double)(n - 1) * q;
    size_t k = (size_t)floor(h);
    if (k < lo)
        lo = 0;
    if (k > hi)
        hi = n - 1;
    select_kth(a, lo, hi, k);
    double frac = h - (double)k;
    if (frac == 0 || k + 1 >= n)
        return a[k];
    double next = min_of(a + k + 1, n - k - 1);
    return a[k] + frac * (next - a[k]);
}

double gw_stats_quantile(double *a, size_t n, double q)
{
    if (n == 0)
        return NAN;
    return quantile_in(a, n, 0, n - 1, q);
}

double gw_stats_quantile_ranked(size_t n, double q, double (*kth)(void *ctx, size_t k), void *ctx)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    size_t k = (size_t)floor(h);
    double a = kth(ctx, k), frac = h - (double)k;
    if (frac == 0 || k + 1 >= n)
        return a;
    return a + frac * (kth(ctx, k + 1) - a);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

size_t gw_stats_sort_present(const double *v, size_t n, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            out[m++] = v[i];
    qsort(out, m, sizeof *out, cmp_double);
    return m;
}

size_t gw_stats_lower_bound_ms(const int64_t *t, size_t n, int64_t want)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid] < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double gw_stats_median_without(const double *s, size_t m, double x)
{
    size_t k = m; /* rank left out; m: none */
    if (!isnan(x)) {
        size_t lo = 0, hi = m;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < m && s[lo] == x)
            k = lo; /* any rank holding an equal value leaves the same sequence */
    }
    size_t n = k < m ? m - 1 : m;
    if (n == 0)
        return NAN;
    /* gw_stats_quantile's rule: rank h = (n - 1) / 2, its neighbours interpolated */
    double h = (double)(n - 1) * 0.5;
    size_t r = (size_t)floor(h);
    double lo_v = s[r + (r >= k)];
    double frac = h - (double)r;
    if (frac == 0)
        return lo_v;
    double hi_v = s[r + 1 + (r + 1 >= k)];
    return lo_v + frac * (hi_v - lo_v);
}

double gw_stats_mean(const double *v, const double *w, size_t n)
{
    return gw_stats_mean_where(v, w, NULL, n);
}

double gw_stats_mean_where(const double *v, const double *w, const unsigned char *skip, size_t n)
{
    double sum = 0, wsum = 0, plain = 0, lo = INFINITY, hi = -INFINITY;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]) && !(skip && skip[i])) {
            if (w) {
                sum += v[i] * w[i];
                wsum += w[i];
            }
            plain += v[i];
            /* fmin(lo, v) and fmax(hi, v) without a call each (v is a number here; on a tie,
             * -0 against +0 too, both keep their first argument, as these do) */
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
            m++;
        }
    if (m == 0)
        return NAN;
    /* no weight at all (one sample at one instant): every sample counts the same */
    double mean = wsum > 0 ? sum / wsum : plain / (double)m;
    /* a mean lies within its values: rounding must not put a steady 50 % at 49.999999 (below a
     * threshold of 50 that the text then shows it "< 50") */
    return fmin(fmax(mean, lo), hi);
}

void gw_stats_summary(const double *v, const double *w, size_t count, double *scratch,
                      gw_stats *out)
{
    double *a = scratch ? scratch : xmalloc((count ? count : 1) * sizeof *a);
    size_t n = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < count; i++)
        if (!isnan(v[i])) {
            a[n++] = v[i];
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
    *out =
        (gw_stats){.n = n, .mean = NAN, .min = NAN, .p5 = NAN, .p50 = NAN, .p95 = NAN, .max = NAN};
    if (n > 0) {
        out->mean = gw_stats_mean(v, w, count);
        out->min = lo;
        out->max = hi;
        if (lo == hi) { /* a constant column (memory.total, power.limit, pstate): no selection */
            out->p5 = out->p50 = out->p95 = lo;
        } else {
            /* The median first: p5 then only needs the lower part and p95 the upper part. */
            size_t k50 = (size_t)floor((double)(n - 1) * 0.5);
            out->p50 = quantile_in(a, n, 0, n - 1, 0.5);
            out->p5 = quantile_in(a, n, 0, k50, 0.05);
            out->p95 = quantile_in(a, n, k50, n - 1, 0.95);
        }
    }
    if (!scratch)
        free(a);
}

static bool in_window(const int64_t *t_ms, size_t i, int64_t from_ms, int64_t to_ms)
{
    return t_ms[i] >= from_ms && t_ms[i] < to_ms;
}

double gw_stats_mean_between(const int64_t *t_ms, const double *v, size_t n, int64_t from_ms,
                             int64_t to_ms)
{
    double sum = 0;
    size_t m = 0;
    for (size_t i = 0; v && i < n; i++)
        if (in_window(t_ms, i, from_ms, to_ms) && !isnan(v[i])) {
            sum += v[i];
            m++;
        }
    return m ? sum / (double)m : NAN;
}

double gw_stats_share_at_least(const int64_t *t_ms, const double *v, size_t n, int64_t from_ms,
                               int64_t to_ms, double at_least)
{
    size_t m = 0, hit = 0;
    for (size_t i = 0; v && i < n; i++)
        if (in_window(t_ms, i, from_ms, to_ms) && !isnan(v[i])) {
            m++;
            hit += v[i] >= at_least;
        }
    return m ? 100.0 * (double)hit / (double)m : NAN;
}

void gw_stats_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
    double sum = 0, sq = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            sum += v[i];
            sq += v[i] * v[i];
            m++;
        }
    *mean = *sd = NAN;
    if (m == 0)
        return;
    *mean = sum / (double)m;
    /* one pass, as the dip period check always had; a rounding below 0 is no spread */
    double var = sq / (double)m - *mean * *mean;
    *sd = sqrt(var > 0 ? var : 0);
}

/* Time of row i relative to t0, in seconds: from milliseconds (t_ms) or seconds (t_s). */
static double rel_s(const int64_t *t_ms, const double *t_s, size_t i, double t0)
{
    return t_ms ? ((double)t_ms[i] - t0) / 1000.0 : t_s[i] - t0;
}

/* The least-squares fit over times in t_ms (ms) or t_s (s), the other NULL. */
static void linfit(const int64_t *t_ms, const double *t_s, const double *v, size_t n, gw_fit *out)
{
    *out = (gw_fit){.slope_per_s = NAN, .intercept = NAN, .r2 = NAN};
    size_t m = 0;
    double t0 = NAN, st = 0, sv = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            if (isnan(t0))
                t0 = t_ms ? (double)t_ms[i] : t_s[i];
            st += rel_s(t_ms, t_s, i, t0);
            sv += v[i];
            m++;
        }
    out->n = m;
    if (m < 3)
        return;
    double mt = st / (double)m, mv = sv / (double)m, stt = 0, stv = 0, svv = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            double dt = rel_s(t_ms, t_s, i, t0) - mt, dv = v[i] - mv;
            stt += dt * dt;
            stv += dt * dv;
            svv += dv * dv;
        }
    if (stt == 0)
        return;
    out->slope_per_s = stv / stt;
    out->intercept = mv - out->slope_per_s * (mt + (t_ms ? t0 / 1000.0 : t0));
    out->r2 = svv == 0 ? 0 : (stv * stv) / (stt * svv);
}

void gw_stats_linfit(const int64_t *t_ms, const double *v, size_t n, gw_fit *out)
{
    linfit(t_ms, NULL, v, n, out);
}

void gw_stats_linfit_s(const double *t_s, const double *v, size_t n, gw_fit *out)
{
    linfit(NULL, t_s, v, n, out);
}

double gw_stats_median_interval_ms(const int64_t *t_ms, size_t n)
{
    double *gaps = xmalloc((n ? n : 1) * sizeof *gaps);
    size_t m = 0;
    for (size_t i = 1; i < n; i++)
        if (t_ms[i] > t_ms[i - 1])
            gaps[m++] = (double)(t_ms[i] - t_ms[i - 1]);
    double med = m ? gw_stats_quantile(gaps, m, 0.5) : 1000.0;
    free(gaps);
    return med;
}

void gw_stats_sample_weights(const int64_t *t_ms, size_t n, double *dt_s)
{
    double med_s = gw_stats_median_interval_ms(t_ms, n) / 1000.0;
    for (size_t i = 0; i < n; i++) {
        double gap = i + 1 < n ? (double)(t_ms[i + 1] - t_ms[i]) / 1000.0 : med_s;
        dt_s[i] = gap < 0 ? 0 : gap > GW_STATS_BRIDGE_INTERVALS * med_s ? med_s : gap;
    }
}

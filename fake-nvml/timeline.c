/* Timeline evaluation; see timeline.h. */
#include "timeline.h"

/* The index of the last point with t[i] <= t, or -1 when t is before the first point. Points may
 * share a time (a jump): the later one wins. */
static long last_at_or_before(const fake_series *s, double t)
{
    size_t lo = 0, hi = s->n; /* the answer + 1 lies in [lo, hi] */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

/* Linear value at t inside segment i (s->t[i] <= t < s->t[i + 1]). */
static double lerp(const fake_series *s, size_t i, double t)
{
    double span = s->t[i + 1] - s->t[i];
    return s->v[i] + (s->v[i + 1] - s->v[i]) * ((t - s->t[i]) / span);
}

double fake_series_at(const fake_series *s, double t, bool step)
{
    long i = last_at_or_before(s, t);
    if (i < 0)
        return s->v[0];
    if ((size_t)i + 1 >= s->n || step)
        return s->v[i];
    return lerp(s, (size_t)i, t);
}

/* The integral from the first point's time to x (negative before it). */
static double primitive(const fake_series *s, double x)
{
    long last = last_at_or_before(s, x);
    if (last < 0)
        return (x - s->t[0]) * s->v[0];
    double sum = 0;
    for (size_t i = 0; i < (size_t)last; i++)
        sum += (s->t[i + 1] - s->t[i]) * (s->v[i] + s->v[i + 1]) / 2;
    size_t i = (size_t)last;
    double end = (i + 1 < s->n) ? lerp(s, i, x) : s->v[i];
    return sum + (x - s->t[i]) * (s->v[i] + end) / 2;
}

double fake_series_integral(const fake_series *s, double a, double b)
{
    return primitive(s, b) - primitive(s, a);
}

/*
 * trend: a sliding window of (time, value) points for the rules' `trend` conditions.
 *
 * Owns: a ring of at most GW_TREND_POINTS points covering the last `window` of a series. Points
 * come every tick but are kept at most every window / (GW_TREND_POINTS - 2), so a window of any
 * length costs the same memory and time. Must not: know about rules or samples.
 */
#ifndef GW_TREND_H
#define GW_TREND_H

#include <stdbool.h>
#include <stdint.h>

enum { GW_TREND_POINTS = 256, GW_TREND_MIN_LINEAR_POINTS = 8 };

typedef struct gw_trend {
    int64_t window_ns;
    int64_t step_ns; /* least spacing between kept points */
    int head, n;     /* oldest point and count */
    int64_t t_ns[GW_TREND_POINTS];
    double v[GW_TREND_POINTS];
} gw_trend;

/* Empties the window and sets its length (ns, > 0). */
void gw_trend_reset(gw_trend *w, int64_t window_ns);

/* Adds value v at monotonic time t_ns (non-decreasing) and forgets points older than the window.
 * The newest point is replaced rather than added when it is closer than step_ns. */
void gw_trend_push(gw_trend *w, int64_t t_ns, double v);

/* The rise of the newest value above the window's lowest value (0 when empty). */
double gw_trend_rise(const gw_trend *w);

/* Least-squares line through the window's points: slope per second and R^2. False with fewer than
 * GW_TREND_MIN_LINEAR_POINTS points or no spread in time or value. */
bool gw_trend_fit(const gw_trend *w, double *slope_per_s, double *r2);

#endif

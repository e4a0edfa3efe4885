/*
 * timeline: the value of a scenario key at a scenario time, and its integral over a time span.
 *
 * A series is held flat before its first point and after its last; between points it is linear,
 * or, for step keys (bit masks, pstate, counters), the earlier point's value. Integrals are exact
 * for the piecewise-linear curve, which is what makes energy (the integral of power) and GPM
 * metrics (time averages) checkable to the millijoule in tests.
 *
 * Must not: know about clocks, devices or NVML; pure functions of their arguments.
 */
#ifndef FAKE_TIMELINE_H
#define FAKE_TIMELINE_H

#include "scenario.h"

/* The value at t. s->n must be > 0. */
double fake_series_at(const fake_series *s, double t, bool step);

/* The integral over [a, b] of the linear curve (value x seconds); negative when b < a. */
double fake_series_integral(const fake_series *s, double a, double b);

#endif

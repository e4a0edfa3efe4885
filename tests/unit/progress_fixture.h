/*
 * progress_fixture: lines fed to logread/progress.h with chosen times, and the figures expected of
 * them, shared by the unit tests of the job's phases (test_progress.c, test_progress_tables.c).
 */
#ifndef GW_PROGRESS_FIXTURE_H
#define GW_PROGRESS_FIXTURE_H

#include "logread/progress.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define BAR  "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88     "
#define FULL BAR BAR
#define KBAR "\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81"

typedef struct line {
    int64_t t_ms;
    const char *text;
} line;

/* Feeds lines; counts the epochs started as the lines came and returns the epochs at the end. */
static inline size_t feed(gw_progress *p, const line *l, size_t n, size_t *starts)
{
    *starts = 0;
    for (size_t i = 0; i < n; i++) {
        long e, t;
        if (gw_progress_feed(p, l[i].text, l[i].t_ms, &e, &t))
            (*starts)++;
    }
    gw_progress_epoch *ep = NULL;
    size_t count = gw_progress_finish(p, &ep);
    free(ep);
    return count;
}

static inline gw_progress_epoch *run(const line *l, size_t n, size_t *count)
{
    gw_progress *p = gw_progress_new(NULL);
    for (size_t i = 0; i < n; i++)
        gw_progress_feed(p, l[i].text, l[i].t_ms, NULL, NULL);
    gw_progress_epoch *e = NULL;
    *count = gw_progress_finish(p, &e);
    gw_progress_free(p);
    return e;
}

static inline void expect(const gw_progress_epoch *e, long number, long total, int64_t start,
                          int64_t end, double val_s, long steps, double rate)
{
    assert_int_equal(e->number, number);
    assert_int_equal(e->total, total);
    assert_int_equal(e->start_ms, start);
    assert_int_equal(e->end_ms, end);
    if (isnan(val_s))
        assert_true(isnan(e->validation_s));
    else
        assert_float_equal(e->validation_s, val_s, 1e-9);
    assert_int_equal(e->steps, steps);
    if (isnan(rate))
        assert_true(isnan(e->steps_per_s));
    else
        assert_float_equal(e->steps_per_s, rate, 1e-9);
}

static inline size_t phases(const line *l, size_t n, gw_phase_span **ph)
{
    gw_progress *p = gw_progress_new(NULL);
    for (size_t i = 0; i < n; i++)
        gw_progress_feed(p, l[i].text, l[i].t_ms, NULL, NULL);
    gw_progress_epoch *e = NULL;
    gw_progress_finish(p, &e);
    free(e);
    size_t k = gw_progress_phases(p, ph);
    gw_progress_free(p);
    return k;
}

#endif

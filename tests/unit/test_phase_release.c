/* gw_phases_end_at_release (analysis/phases.c): the steady state ends where the job lets go of
 * its memory, and only then (issue 15 item 8). */
#include "test_helpers.h"

#include "analysis/analysis.h"
#include "analysis/thresholds.h"

enum { N = 60 };

static int64_t t[N];
static double dt[N], util[N], mem[N];

/* 30 rows of work at 95 % holding 30000 MiB, then 30 rows at util_after holding mem_after. */
static void job_then(double util_after, double mem_after, gw_span ph[GW_PHASE_COUNT])
{
    for (int i = 0; i < N; i++) {
        t[i] = 1000 * (int64_t)i;
        dt[i] = 1;
        util[i] = i < 30 ? 95 : util_after;
        mem[i] = i < 30 ? 30000 : mem_after;
    }
    gw_phases_detect(util, t, dt, N, ph);
    gw_phases_end_at_release(util, mem, t, dt, N, ph);
}

static void desktop_after_the_job_is_the_tail(void **state)
{
    (void)state;
    gw_span ph[GW_PHASE_COUNT];
    job_then(20, 900, ph);
    assert_int_equal(ph[GW_PHASE_STEADY].begin, 0);
    assert_int_equal(ph[GW_PHASE_STEADY].end, 30);
    assert_int_equal(ph[GW_PHASE_TAIL].begin, 30);
    assert_int_equal(ph[GW_PHASE_TAIL].end, N);
    assert_true(ph[GW_PHASE_STEADY].end_ms == ph[GW_PHASE_TAIL].start_ms);
}

static void memory_kept_or_work_continuing_keeps_the_steady_state(void **state)
{
    (void)state;
    gw_span ph[GW_PHASE_COUNT];
    job_then(20, 30000, ph); /* the job still holds its memory: a slow phase of the job */
    assert_int_equal(ph[GW_PHASE_STEADY].end, N);
    job_then(90, 900, ph); /* busy with little memory: still work */
    assert_int_equal(ph[GW_PHASE_STEADY].end, N);
    job_then(20, 0.25 * 30000, ph); /* exactly at tail_release_pct: not below it */
    assert_int_equal(ph[GW_PHASE_STEADY].end, N);
    job_then(20, 0.25 * 30000 - 1, ph);
    assert_int_equal(ph[GW_PHASE_STEADY].end, 30);
}

static void a_short_release_is_not_judged(void **state)
{
    (void)state;
    gw_span ph[GW_PHASE_COUNT];
    job_then(20, 900, ph);
    for (int i = 0; i < N - 9; i++) /* only the last 9 rows (< min_steady_samples) released */
        mem[i] = 30000;
    gw_phases_detect(util, t, dt, N, ph);
    gw_phases_end_at_release(util, mem, t, dt, N, ph);
    assert_true(GW_TH(GW_TH_MIN_STEADY_SAMPLES) == 10);
    assert_int_equal(ph[GW_PHASE_STEADY].end, N);
    gw_phases_end_at_release(util, NULL, t, dt, N, ph); /* no memory column: nothing changes */
    assert_int_equal(ph[GW_PHASE_STEADY].end, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(desktop_after_the_job_is_the_tail),
        cmocka_unit_test(memory_kept_or_work_continuing_keeps_the_steady_state),
        cmocka_unit_test(a_short_release_is_not_judged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

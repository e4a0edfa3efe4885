/* Phase detection, dips, epoch alignment and regular dips on synthetic series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "synth.h"

/* 20 s start-up at 0 %, 100 s at 100 %, 10 s tail at 0 %. */
static void test_phases(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 130);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 130, 0);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 20, 120, 100);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 19, 20, 4); /* below work_util_pct: still start-up */
    synth_set(s, 0, GW_F_POWER_DRAW_W, 0, 130, 360);
    gw_analysis *a = synth_analyze(s);
    const gw_gpu_analysis *g = &a->gpus[0];
    assert_true(g->worked);
    assert_int_equal(g->phase[GW_PHASE_STARTUP].span.begin, 0);
    assert_int_equal(g->phase[GW_PHASE_STARTUP].span.end, 20);
    assert_int_equal(g->phase[GW_PHASE_STEADY].span.begin, 20);
    assert_int_equal(g->phase[GW_PHASE_STEADY].span.end, 120);
    assert_int_equal(g->phase[GW_PHASE_TAIL].span.end, 130);
    assert_int_equal(g->phase[GW_PHASE_STEADY].span.start_ms, SYNTH_T0_MS + 20000);
    assert_int_equal(g->phase[GW_PHASE_STEADY].span.end_ms, SYNTH_T0_MS + 120000);
    /* 360 W for 130 s = 13 Wh; 100 s of steady state = 10 Wh */
    assert_float_equal(g->whole.energy_wh, 13, 1e-9);
    assert_float_equal(g->phase[GW_PHASE_STEADY].energy_wh, 10, 1e-9);
    assert_float_equal(g->whole.time_s[GW_TIME_BUSY], 100, 1e-9);
    assert_float_equal(g->whole.time_s[GW_TIME_IDLE], 30, 1e-9);
    /* per-phase statistics */
    long c = g->gpu->col_of[GW_F_UTIL_GPU_PCT];
    assert_float_equal(g->phase[GW_PHASE_STEADY].stats[c].mean, 100, 0);
    assert_float_equal(g->phase[GW_PHASE_STARTUP].stats[c].max, 4, 0);
    assert_int_equal(g->ndips, 0);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_energy_counter_preferred(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 11);
    synth_set(s, 0, GW_F_POWER_DRAW_W, 0, 11, 100);
    double *e = gw_series_gpu_writable(s->gpus[0], GW_F_ENERGY_MJ);
    for (size_t r = 0; r < 11; r++)
        e[r] = 5e9 + (double)r * 360000.0; /* 360 J per second = 0.1 Wh per second */
    gw_analysis *a = synth_analyze(s);
    assert_true(a->gpus[0].energy_from_counter);
    /* the counter over rows 0..10 (10 s, 1 Wh, not 100 W's 0.28 Wh), then the last row's second
     * from its power */
    assert_float_equal(a->gpus[0].whole.energy_wh, 1.0 + 100 / 3600.0, 1e-9);
    gw_analysis_free(a);
    gw_series_free(s);
}

/* The counter is read every ~10 s: between two readings it is interpolated in time, and the parts
 * of the record outside its first and last reading are integrated from power. */
static void test_energy_counter_read_rarely(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 30);
    synth_set(s, 0, GW_F_POWER_DRAW_W, 0, 30, 360); /* W (the CSV unit): 0.1 Wh per second */
    double *e = gw_series_gpu_writable(s->gpus[0], GW_F_ENERGY_MJ);
    for (size_t r = 0; r < 30; r++) /* readings at rows 0, 10, 20, held in between */
        e[r] = 5e9 + (double)(r / 10 * 10) * 360000.0;
    gw_analysis *a = synth_analyze(s);
    const gw_gpu_analysis *g = &a->gpus[0];
    assert_true(g->energy_from_counter);
    /* counter from row 0 to row 20 (20 s = 2 Wh) plus power over rows 20..29 and the last row's
     * second (10 s = 1 Wh) */
    assert_float_equal(g->whole.energy_wh, 3.0, 1e-9);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_never_worked(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 50);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 50, 0);
    gw_analysis *a = synth_analyze(s);
    assert_false(a->gpus[0].worked);
    assert_int_equal(a->gpus[0].phase[GW_PHASE_STEADY].span.end, 50);
    assert_int_equal(a->verdicts.n, 0);
    gw_analysis_free(a);
    gw_series_free(s);
}

/* 5 cycles of 17 s at 100 % then 3 s at 0 %, after 10 s of start-up. */
static gw_series *cycles(size_t dip_s, size_t period_s)
{
    size_t n = 10 + 5 * period_s + 5;
    gw_series *s = synth_new(1, n);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, n, 0);
    for (size_t k = 0; k < 5; k++)
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + k * period_s, 10 + (k + 1) * period_s - dip_s, 100);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + 5 * period_s, n, 100);
    return s;
}

static void test_dips_regular_without_epochs(void **state)
{
    (void)state;
    gw_series *s = cycles(3, 20);
    gw_analysis *a = synth_analyze(s);
    const gw_gpu_analysis *g = &a->gpus[0];
    assert_int_equal(g->ndips, 5);
    double period, cv;
    assert_true(gw_dips_regular(g->dips, g->ndips, &period, &cv));
    assert_float_equal(period, 20, 1e-9);
    for (size_t d = 0; d < g->ndips; d++)
        assert_true(g->dips[d].expected);
    assert_float_equal(g->busy_pct, 100, 1e-9); /* the dips are left out */
    assert_int_equal(a->epoch_origin, GW_EPOCHS_DIPS);
    assert_int_equal(a->nepochs, 6);
    assert_int_equal(a->epochs[1].start_ms - a->epochs[0].start_ms, 20000); /* dip included */
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_no_empty_epoch_after_a_last_dip_ending_the_steady_state(void **state)
{
    (void)state;
    /* 5 cycles of 17 s busy, 3 s idle; the job lets go of its memory right after the fifth dip
     * (validation, then exit), so the steady state ends where that dip ends: 5 epochs, not a
     * sixth of 0 s after the last dip (the resnet50 recording showed "4 ... 0.0 s") */
    size_t n = 10 + 5 * 20 + 12;
    gw_series *s = synth_new(1, n);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, n, 0);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, n, 0);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 10, 10 + 5 * 20, 20000);
    for (size_t k = 0; k < 5; k++)
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + k * 20, 10 + k * 20 + 17, 100);
    /* the last dip's last row still shows a little work (6 %: work, but idle), as a job's
     * shutdown does, so the steady state runs to its end */
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + 5 * 20 - 1, 10 + 5 * 20, 6);
    gw_analysis *a = synth_analyze(s);
    const gw_gpu_analysis *g = &a->gpus[0];
    assert_int_equal(g->ndips, 5);
    assert_true(g->dips[4].span.end_ms == g->phase[GW_PHASE_STEADY].span.end_ms);
    assert_int_equal(a->epoch_origin, GW_EPOCHS_DIPS);
    assert_int_equal(a->nepochs, 5);
    for (size_t e = 0; e < a->nepochs; e++)
        assert_int_equal(a->epochs[e].end_ms - a->epochs[e].start_ms, 20000);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_dip_shorter_than_min_is_no_dip(void **state)
{
    (void)state;
    gw_series *s = cycles(1, 20); /* 1 s < dip_min_s */
    gw_analysis *a = synth_analyze(s);
    assert_int_equal(a->gpus[0].ndips, 0);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_mark_epochs(void **state)
{
    (void)state;
    gw_dip d[3] = {{.span = {.start_ms = 10000, .end_ms = 14000}},
                   {.span = {.start_ms = 30000, .end_ms = 33000}},
                   {.span = {.start_ms = 50000, .end_ms = 52000}}};
    gw_epoch e[3] = {{.number = 1, .start_ms = 0, .end_ms = 14500},
                     {.number = 2, .start_ms = 14500, .end_ms = 40000},
                     {.number = 3, .start_ms = 40000, .end_ms = 60000}};
    /* boundaries 14.5 s, 40 s and the end 60 s; align tolerance 3 s */
    assert_int_equal(gw_dips_mark_epochs(d, 3, e, 3), 1);
    assert_true(d[0].expected);
    assert_false(d[1].expected);
    assert_false(d[2].expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_energy_counter_preferred),
        cmocka_unit_test(test_energy_counter_read_rarely),
        cmocka_unit_test(test_never_worked),
        cmocka_unit_test(test_dips_regular_without_epochs),
        cmocka_unit_test(test_no_empty_epoch_after_a_last_dip_ending_the_steady_state),
        cmocka_unit_test(test_dip_shorter_than_min_is_no_dip),
        cmocka_unit_test(test_mark_epochs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A recording whose GPU never reached sustained work still gets the verdicts that need no work
 * (issue 14, item 5): a job that allocates memory and sits idle holds memory idly even when its
 * output places validation over the idle time, and a GPU only ever lightly and steadily used is
 * starved (launch-bound), never "expected dips". Phases tile the record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "synth.h"

#include "util/xalloc.h"

enum { EPOCHS = 3, PERIOD = 40, VAL = 10, ROWS = 5 + EPOCHS * PERIOD + 5 };

/* ROWS rows at `util` % (0 % for the first five), memory.used 20000 MiB from row 5 on, SM
 * activity `sm` % (NAN: no GPM column); output 1: three epochs of 40 s whose last 10 s the job's
 * output showed as validation, 2: the same epochs as bare "Epoch N/3" lines (no parts), whose
 * boundaries alone place validation. */
static gw_analysis *run(gw_series **out, double util, double sm, int output)
{
    gw_series *s = synth_new(1, ROWS);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 5, 0);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 5, ROWS, util);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, 5, 600);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 5, ROWS, 20000);
    synth_set(s, 0, GW_F_POWER_DRAW_W, 0, ROWS, 90);
    if (!isnan(sm))
        synth_set(s, 0, GW_F_GPM_SM_ACTIVE_PCT, 0, ROWS, sm);
    if (output) {
        size_t in = gw_series_add_input(s, "run/output.log", "node1", GW_INPUT_RUN_DIR);
        s->progress = xcalloc(EPOCHS, sizeof *s->progress);
        for (size_t k = 0; k < EPOCHS; k++) {
            int64_t t0 = SYNTH_T0_MS + (int64_t)(5 + k * PERIOD) * 1000;
            int64_t val = output == 1 ? t0 + (PERIOD - VAL) * 1000 : 0;
            s->progress[s->nprogress++] =
                (gw_series_epoch){.input = in,
                                  .e = {.number = (long)k + 1,
                                        .total = EPOCHS,
                                        .start_ms = t0,
                                        .end_ms = t0 + PERIOD * 1000,
                                        .train_end_ms = val,
                                        .val_start_ms = val,
                                        .val_end_ms = val ? t0 + PERIOD * 1000 : 0,
                                        .validation_s = output == 1 ? VAL : NAN,
                                        .steps = 30,
                                        .steps_per_s = 1}};
        }
    }
    *out = s;
    return synth_analyze(s);
}

/* The phases of GPU 0 tile [start_ms, record_end_ms) and its rows. */
static void assert_phases_tile(const gw_analysis *a)
{
    const gw_gpu_analysis *g = &a->gpus[0];
    int64_t at = a->start_ms;
    size_t row = 0;
    for (int p = 0; p < GW_PHASE_COUNT; p++) {
        assert_int_equal(g->phase[p].span.start_ms, at);
        assert_int_equal(g->phase[p].span.begin, row);
        at = g->phase[p].span.end_ms;
        row = g->phase[p].span.end;
    }
    assert_int_equal(at, a->record_end_ms);
    assert_int_equal(row, g->gpu->tab.n);
}

static void assert_no_nan_words(const gw_analysis *a)
{
    for (size_t i = 0; i < a->verdicts.n; i++) {
        assert_null(strstr(a->verdicts.v[i].message, "nan"));
        assert_null(strstr(a->verdicts.v[i].message, "inf"));
    }
}

static void test_allocate_then_idle_holds_memory(void **state)
{
    (void)state;
    for (int output = 0; output < 3; output++) {
        gw_series *s;
        gw_analysis *a = run(&s, 0, NAN, output);
        assert_false(a->gpus[0].worked);
        assert_int_equal(a->nepochs, output ? EPOCHS : 0);
        /* the validation the output placed over the idle time makes no dip expected */
        assert_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
        const gw_verdict *v = synth_verdict(a, GW_V_IDLE_HOLDING_MEMORY, 0);
        assert_non_null(v);
        assert_float_equal(synth_evidence(v, "memory_held_mib"), 20000, 1e-9);
        assert_float_equal(synth_evidence(v, "idle_s"), ROWS - 5, 1e-9);
        assert_int_equal(v->start_ms, SYNTH_T0_MS + 5000);
        assert_phases_tile(a);
        assert_no_nan_words(a);
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_light_steady_use_is_launch_bound(void **state)
{
    (void)state;
    for (int output = 0; output < 3; output++) {
        gw_series *s;
        gw_analysis *a = run(&s, 8, 0.1, output);
        assert_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
        assert_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
        const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
        assert_non_null(v);
        assert_int_equal(v->severity, GW_SEV_CRITICAL);
        assert_float_equal(synth_evidence(v, "busy_pct"), 8, 1e-9);
        assert_float_equal(synth_evidence(v, "quiet_share_pct"), 0, 1e-9);
        assert_non_null(strstr(v->message, "launch-bound"));
        assert_non_null(strstr(v->message, "SM activity 0.1%"));
        assert_non_null(strstr(v->suggestion, "CUDA graphs"));
        assert_phases_tile(a);
        assert_no_nan_words(a);
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

/* A starved GPU that waits between bursts (quiet half the time) keeps the starved sentence. */
static void test_bursts_with_quiet_gaps_are_not_launch_bound(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 120);
    for (size_t r = 0; r < 120; r++)
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, r, r + 1, r % 2 ? 90 : 0);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, 120, 20000);
    gw_analysis *a = synth_analyze(s);
    const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
    assert_non_null(v);
    assert_true(isnan(synth_evidence(v, "quiet_share_pct")));
    assert_null(strstr(v->message, "launch-bound"));
    gw_analysis_free(a);
    gw_series_free(s);
}

/* Both sides of launch_quiet_share_pct: 5 of 100 work seconds quiet is launch-bound, 6 not. */
static void test_launch_quiet_share_threshold(void **state)
{
    (void)state;
    for (size_t quiet = 5; quiet <= 6; quiet++) {
        gw_series *s = synth_new(1, 100);
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 100, 40);
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 50, 50 + quiet, 0);
        synth_set(s, 0, GW_F_MEM_USED_MIB, 0, 100, 20000);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
        assert_non_null(v);
        assert_float_equal(a->gpus[0].work_s, 100, 1e-9);
        if (quiet == 5) {
            assert_float_equal(synth_evidence(v, "quiet_share_pct"), 5, 1e-9);
            assert_non_null(strstr(v->message, "launch-bound"));
        } else {
            assert_null(strstr(v->message, "launch-bound"));
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocate_then_idle_holds_memory),
        cmocka_unit_test(test_light_steady_use_is_launch_bound),
        cmocka_unit_test(test_bursts_with_quiet_gaps_are_not_launch_bound),
        cmocka_unit_test(test_launch_quiet_share_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

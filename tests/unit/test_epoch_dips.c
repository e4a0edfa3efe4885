/* Dips judged by the job's own phases (issue 14): validation the output showed is expected, a
 * dip at each epoch's start is an input stall with the epoch_start cause, and regular dips with
 * no support are no validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "synth.h"

#include "util/xalloc.h"

enum { PERIOD = 20, EPOCHS = 5 };

/* Five epochs of 20 s after 10 s of start-up, each with `dip` s at 0 % starting `at` s into it;
 * with_output: the epochs as the job's output showed them (training 0-17 s, validation 17-20 s)
 * in a run directory input. */
static gw_analysis *run(gw_series **out, size_t dip, size_t at, bool with_output)
{
    const size_t n = 10 + EPOCHS * PERIOD + 5;
    gw_series *s = synth_new(1, n);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 10, 0);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10, n, 100);
    synth_set(s, 0, GW_F_POWER_DRAW_W, 0, n, 600);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, n, 10000);
    for (size_t k = 0; k < EPOCHS; k++)
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + k * PERIOD + at, 10 + k * PERIOD + at + dip, 0);
    if (with_output) {
        size_t in = gw_series_add_input(s, "run/output.log", "node1", GW_INPUT_RUN_DIR);
        s->progress = xcalloc(EPOCHS, sizeof *s->progress);
        for (size_t k = 0; k < EPOCHS; k++) {
            int64_t t0 = SYNTH_T0_MS + (int64_t)(10 + k * PERIOD) * 1000;
            s->progress[s->nprogress++] = (gw_series_epoch){.input = in,
                                                            .e = {.number = (long)k + 1,
                                                                  .total = EPOCHS,
                                                                  .start_ms = t0,
                                                                  .end_ms = t0 + PERIOD * 1000,
                                                                  .train_end_ms = t0 + 17000,
                                                                  .val_start_ms = t0 + 17000,
                                                                  .val_end_ms = t0 + PERIOD * 1000,
                                                                  .validation_s = 3,
                                                                  .steps = 100,
                                                                  .steps_per_s = 100.0 / 17}};
        }
    }
    *out = s;
    return synth_analyze(s);
}

static void test_validation_from_the_output_is_expected(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = run(&s, 3, 17, true);
    assert_int_equal(a->epoch_origin, GW_EPOCHS_OUTPUT);
    assert_int_equal(a->nepochs, EPOCHS);
    const gw_verdict *v = synth_verdict(a, GW_V_EXPECTED_DIPS, 0);
    assert_non_null(v);
    assert_true(synth_evidence(v, "dips") >= 4);
    assert_string_equal(v->message + strlen(v->message) - strlen("in between"), "in between");
    assert_non_null(strstr(v->message, "validation in the job's output"));
    assert_null(strstr(v->message, "nan"));
    assert_null(synth_verdict(a, GW_V_GPU_STARVED, 0));
    /* the parts: the GPU worked in training and idled in validation */
    assert_float_equal(a->epoch_parts[1].train_util_pct, 100, 1e-9);
    assert_float_equal(a->epoch_parts[1].val_util_pct, 0, 1e-9);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_dips_at_epoch_starts_are_an_input_stall(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = run(&s, 6, 0, true); /* 6 s of each 20 s epoch, right at its start */
    assert_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
    const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
    assert_non_null(v);
    assert_string_equal(v->cause, "epoch_start");
    assert_true(synth_evidence(v, "epoch_start_dips") >= 3);
    assert_non_null(strstr(v->suggestion, "persistent_workers=True"));
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_regular_dips_without_support_are_no_validation(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = run(&s, 12, 8, false); /* idle 12 s of every 20: a periodic input stall */
    assert_int_equal(a->nepochs, 0);        /* no epochs made up from the dips */
    assert_int_equal(a->epoch_origin, GW_EPOCHS_NONE);
    assert_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
    const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
    assert_non_null(v);
    assert_string_not_equal(v->cause, "epoch_start");
    assert_null(strstr(v->message, "nan"));
    gw_analysis_free(a);
    gw_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validation_from_the_output_is_expected),
        cmocka_unit_test(test_dips_at_epoch_starts_are_an_input_stall),
        cmocka_unit_test(test_regular_dips_without_support_are_no_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Epoch lines that come at their epochs' ends and a bar's closing redraw (logread/progress.h,
 * docs/epochs.md "Epoch lines that sum their epochs up"): fixtures written from how accelerate's
 * examples and tqdm print, fed with chosen times, exact figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "progress_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one bar over all steps (3 epochs of 4), `epoch N: {...}` after each epoch's steps */
static void test_epoch_results_after_the_steps(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "  0%|          | 0/12 [00:00<?, ?it/s]"},
        {1000, " 17%|" BAR "| 2/12 [00:01<00:05,  2.00it/s]"},
        {2000, " 33%|" BAR "| 4/12 [00:02<00:04,  2.00it/s]"},
        {2500, "epoch 0: {'accuracy': 0.6838235294117647, 'f1': 0.8122270742358079}"},
        {3500, " 50%|" BAR "| 6/12 [00:03<00:03,  2.00it/s]"},
        {4500, " 67%|" BAR "| 8/12 [00:04<00:02,  2.00it/s]"},
        {5000, "epoch 1: {'accuracy': 0.7205882352941176, 'f1': 0.8256880733944955}"},
        {6000, " 83%|" BAR "| 10/12 [00:05<00:01,  2.00it/s]"},
        {7000, "100%|" FULL "| 12/12 [00:06<00:00,  2.00it/s]"},
        {7500, "epoch 2: {'accuracy': 0.75, 'f1': 0.838095238095238}"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(e[i].number, (long)i + 1);
        assert_int_equal(e[i].steps, 4);
    }
    assert_int_equal(e[0].start_ms, 0);
    assert_int_equal(e[0].end_ms, 2500);
    assert_int_equal(e[2].end_ms, 7500);
    free(e);
}

/* tqdm's close redraws the finished bar after the evaluation and the saves: no second epoch's
 * steps, no training phase after them */
static void test_closing_redraw(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "  0%|          | 0/8 [00:00<?, ?it/s]"},
        {1000, " 50%|" BAR "| 4/8 [00:01<00:01,  4.00it/s]"},
        {2000, "100%|" FULL "| 8/8 [00:02<00:00,  4.00it/s]"},
        {2100, "Epoch 0 training took 2.1 seconds"},
        {2200, "starting evaluation"},
        {4000, "evaluation completed"},
        {4100, "Model weights saved in /opt/ml/model/pytorch_model.bin"},
        {4200, "100%|" FULL "| 8/8 [00:04<00:00,  1.90it/s]"},
    };
    gw_progress *p = gw_progress_new(NULL);
    for (size_t i = 0; i < sizeof l / sizeof *l; i++)
        gw_progress_feed(p, l[i].text, l[i].t_ms, NULL, NULL);
    gw_progress_epoch *e = NULL;
    size_t n = gw_progress_finish(p, &e);
    assert_int_equal(n, 1);
    assert_int_equal(e[0].steps, 8);
    gw_phase_span *ph = NULL;
    size_t np = gw_progress_phases(p, &ph);
    assert_int_equal(np, 3);
    assert_int_equal(ph[0].kind, GW_PH_TRAIN);
    assert_int_equal(ph[0].steps, 8);
    assert_int_equal(ph[1].kind, GW_PH_EVAL);
    assert_int_equal(ph[2].kind, GW_PH_AFTER);
    free(ph);
    free(e);
    gw_progress_free(p);
}

/* a configuration's `'step': 0` printed at start-up, then the bar that counts the steps: the
 * bar's steps, not one step of a text counter */
static void test_setup_zero_then_bar(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "{'batch_size': 64, 'step': 0, 'lr': 0.1}"},
        {100, "  0%|          | 0/8 [00:00<?, ?it/s]"},
        {1100, " 50%|" BAR "| 4/8 [00:01<00:01,  4.00it/s]"},
        {2100, "100%|" FULL "| 8/8 [00:02<00:00,  4.00it/s]"},
    };
    gw_progress *p = gw_progress_new(NULL);
    for (size_t i = 0; i < sizeof l / sizeof *l; i++)
        gw_progress_feed(p, l[i].text, l[i].t_ms, NULL, NULL);
    gw_progress_epoch *e = NULL;
    assert_int_equal(gw_progress_finish(p, &e), 0);
    gw_phase_span *ph = NULL;
    assert_int_equal(gw_progress_phases(p, &ph), 1);
    assert_int_equal(ph[0].kind, GW_PH_TRAIN);
    assert_int_equal(ph[0].steps, 8);
    char found[256];
    gw_progress_found(p, found, sizeof found);
    assert_non_null(strstr(found, "iterations from progress bars"));
    free(ph);
    free(e);
    gw_progress_free(p);
}

/* CloudWatch's `#015` for the carriage returns of a bar's redraws, all on one line (gluonts on
 * SageMaker): each redraw read, the last one's count */
static void test_escaped_carriage_returns(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "#015  0%|          | 0/250 [00:00<?, ?it/s]#015 61%|" BAR "| 153/250 [00:10<00:06, "
            "15.20it/s]#015100%|" FULL "| 250/250 [00:16<00:00, 15.24it/s]"},
    };
    gw_progress *p = gw_progress_new(NULL);
    gw_progress_feed(p, l[0].text, l[0].t_ms, NULL, NULL);
    gw_progress_epoch *e = NULL;
    gw_progress_finish(p, &e);
    gw_phase_span *ph = NULL;
    assert_int_equal(gw_progress_phases(p, &ph), 1);
    assert_int_equal(ph[0].steps, 250);
    free(ph);
    free(e);
    gw_progress_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epoch_results_after_the_steps),
        cmocka_unit_test(test_closing_redraw),
        cmocka_unit_test(test_setup_zero_then_bar),
        cmocka_unit_test(test_escaped_carriage_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

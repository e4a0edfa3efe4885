/* The job's phases from a trainer's results table (logread/progress.h, logread/result_table.h):
 * fastai's and Hugging Face's epoch tables, spaCy's `E  #` and Hugging Face's `Step` tables,
 * Chainer's PrintReport beside its ProgressBar, in the forms of the logs in
 * tests/data/trainer-logs (README), fed with chosen times, exact figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "progress_fixture.h"

/* A results table (fastai's fine_tune): each row ends its epoch, begun at the row before or at
 * the header; the header again with the epoch back at 0 is a second loop; a table whose header
 * names neither an epoch nor a step column, and a row that does not follow its epoch, count
 * none. */
static void test_results_table(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "epoch     train_loss  valid_loss  error_rate  time    "},
        {7000, "0         1.049577    0.328317    0.070312    00:06   "},
        {7500, "epoch     train_loss  valid_loss  error_rate  time    "},
        {15500, "0         0.361420    0.241619    0.050781    00:08   "},
        {23500, "1         0.240842    0.277644    0.062500    00:08   "},
        {23600, "7         0.240842    0.277644    0.062500    00:08   "},
        {24000, "lr        loss        time"},
        {24100, "2         0.184921    00:08"},
        {25000, "Saving model to fast-ai/lesson2"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 3);
    expect(&e[0], 1, -1, 1000, 7500, NAN, -1, NAN);
    expect(&e[1], 1, -1, 7500, 15500, NAN, -1, NAN);
    assert_int_equal(e[2].number, 2);
    assert_int_equal(e[2].start_ms, 15500);
    assert_int_equal(e[2].end_ms, 23500);
    free(e);
    /* Hugging Face Trainer's notebook table, `No log` for a training loss not logged yet */
    static const line hf[] = {
        {1000, "Epoch\tTraining Loss\tValidation Loss\tAccuracy"},
        {5000, "1\tNo log\t0.412345\t0.851000"},
        {9000, "2\t0.398700\t0.301234\t0.880000"},
    };
    e = run(hf, sizeof hf / sizeof *hf, &n);
    assert_int_equal(n, 2);
    expect(&e[0], 1, -1, 1000, 5000, NAN, -1, NAN);
    expect(&e[1], 2, -1, 5000, 9000, NAN, -1, NAN);
    free(e);
}

/* A results table with a step column (spaCy's `E  #`, rows at each evaluation; Hugging Face's
 * notebook `Step` table): a row is the step counter at its step, its epoch cell the epoch tag,
 * then the evaluation it reports; the row at step 0 is the evaluation before training. The epoch
 * a row's tag opens began after the evaluation before it (the tag may skip epochs that had no
 * row); spaCy's bar after the rows names the epoch from 1 (`Epoch 2` while the rows say E 1): it
 * counts on in that epoch. */
static void test_results_table_steps(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE"},
        {1001, "---  ------  ------------  --------  ------  ------  ------  ------"},
        {2000, "  0       0          0.00     44.28    0.00    0.00    0.00    0.00"},
        {4000, "  0     200         53.51   2262.98   69.75   71.63   67.97    0.70"},
        {6000, "  0     400         44.03   1604.78   77.72   78.03   77.42    0.78"},
        {8000, "  1     600         47.70   1364.43   81.40   80.97   81.84    0.81"},
        {10000, "  1     800         62.73   1692.76   79.85   80.87   78.85    0.80"},
        {11000, "Epoch 2:  50%|" BAR "| 100/200 [00:01<00:01, 100.00it/s]"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 2);
    /* epoch 1 from the row at step 0 (its evaluation before training); the rate is the rows' wall
     * time (evaluations in it) */
    expect(&e[0], 1, -1, 2000, 6000, NAN, 400, 100.0);
    expect(&e[1], 2, -1, 6000, 11000, NAN, 500, 100.0);
    assert_false(isnan(e[0].steps_per_s) || isnan(e[1].steps_per_s));
    free(e);
    gw_phase_span *ph;
    assert_int_equal(phases(l, sizeof l / sizeof *l, &ph), 9);
    static const gw_phase_kind kinds[] = {GW_PH_TRAIN, GW_PH_EVAL,  GW_PH_TRAIN,
                                          GW_PH_EVAL,  GW_PH_TRAIN, GW_PH_EVAL,
                                          GW_PH_TRAIN, GW_PH_EVAL,  GW_PH_TRAIN};
    static const long steps[] = {200, -1, 200, -1, 200, -1, 200, -1, 100};
    for (size_t i = 0; i < 9; i++) {
        assert_int_equal(ph[i].kind, kinds[i]);
        if (kinds[i] == GW_PH_TRAIN)
            assert_int_equal(ph[i].steps, steps[i]);
    }
    free(ph);
    /* epochs shorter than the evaluation interval: the rows' epoch skips those with no row */
    static const line skip[] = {
        {1000, "E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE"},
        {2000, "  0       0          0.00     26.50    0.73    0.39    5.43    0.01"},
        {3000, "  0     200         33.58    847.68   10.88   44.44    6.20    0.11"},
        {4000, "  2     400         70.88    267.65   33.50   45.95   26.36    0.33"},
        {5000, "  5     600         67.56    156.63   45.32   62.16   35.66    0.45"},
    };
    e = run(skip, sizeof skip / sizeof *skip, &n);
    assert_int_equal(n, 3);
    expect(&e[0], 1, -1, 2000, 3000, NAN, 200, NAN);
    expect(&e[1], 3, -1, 3000, 4000, NAN, 200, NAN);
    expect(&e[2], 6, -1, 4000, 5000, NAN, 200, NAN);
    free(e);
    /* Chainer's PrintReport with an iteration column (ESPnet 1), an excerpt: the validation
     * cells are blank but in the row after an evaluation; the steps before the first row, which
     * is not its stride, count none */
    static const line it[] = {
        {1000, "epoch       iteration   main/loss   validation/main/loss  elapsed_time"},
        {2000, "6           89700       63.7861                           136184"},
        {3000, "6           89800       71.5186                           136320"},
        {4000, "7           89900       64.2985     72.506                137936"},
        {5000, "7           90000       81.6931                           138049"},
    };
    e = run(it, sizeof it / sizeof *it, &n);
    assert_int_equal(n, 2);
    expect(&e[0], 6, -1, 1000, 3000, NAN, 100, 100.0);
    expect(&e[1], 7, -1, 3000, 5000, NAN, 200, 100.0); /* its results alone tell no time */
    assert_false(isnan(e[0].steps_per_s) || isnan(e[1].steps_per_s));
    free(e);
    assert_int_equal(phases(it, sizeof it / sizeof *it, &ph), 3);
    assert_int_equal(ph[0].steps, 200);
    assert_int_equal(ph[1].kind, GW_PH_EVAL);
    assert_int_equal(ph[2].steps, 100);
    free(ph);
    /* Hugging Face's notebook: the progress text above the table is no epoch line */
    static const line hf[] = {
        {1000, " [60/60 09:26, Epoch 1/2]"}, {1001, "Step\tTraining Loss\tValidation Loss"},
        {2000, "10\tNo log\t2.238496"},      {3000, "20\t1.537237\t1.518947"},
        {4000, "30\t1.494586\t1.442314"},
    };
    e = run(hf, sizeof hf / sizeof *hf, &n);
    assert_int_equal(n, 0);
    free(e);
    assert_int_equal(phases(hf, sizeof hf / sizeof *hf, &ph), 6);
    assert_int_equal(ph[0].kind, GW_PH_TRAIN);
    assert_int_equal(ph[0].steps, 10);
    assert_int_equal(ph[5].kind, GW_PH_EVAL);
    assert_int_equal(ph[4].steps, 10);
    free(ph);
}

/* Chainer's Trainer: ProgressBar status lines (`100 iter, 0 epoch / 2 epochs`, the running epoch
 * 0-based, its rate on the line after) give epochs and steps; PrintReport's rows (`epoch
 * main/loss validation/main/loss ...`, the epochs done) are the evaluations, not epochs. */
static void test_results_table_beside_counters(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "epoch       main/loss   validation/main/loss  elapsed_time"},
        {2000, "       100 iter, 0 epoch / 2 epochs"},
        {2001, "       inf iters/sec. Estimated time to finish: 0:00:00."},
        {3000, "       200 iter, 0 epoch / 2 epochs"},
        {3001, "       100 iters/sec. Estimated time to finish: 0:00:02."},
        {4000, "1           1.63966     1.37119               7.3451"},
        {5000, "       300 iter, 1 epoch / 2 epochs"},
        {5001, "        50 iters/sec. Estimated time to finish: 0:00:01."},
        {6000, "       400 iter, 1 epoch / 2 epochs"},
        {6001, "       100 iters/sec. Estimated time to finish: 0:00:00."},
        {7000, "2           1.27853     1.19743               14.2082"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 2);
    /* the evaluation a row reports ran since the status line before it; `inf` is no rate */
    expect(&e[0], 1, 2, 2000, 4000, 1.0, 200, 100.0);
    expect(&e[1], 2, 2, 4000, 7000, 1.0, 200, 2 / (1 / 50.0 + 1 / 100.0));
    assert_false(isnan(e[0].validation_s) || isnan(e[1].validation_s)); /* (expect lets a NaN */
    assert_false(isnan(e[0].steps_per_s) || isnan(e[1].steps_per_s));   /* pass) */
    free(e);
    gw_phase_span *ph;
    assert_int_equal(phases(l, sizeof l / sizeof *l, &ph), 4);
    assert_int_equal(ph[1].kind, GW_PH_EVAL);
    assert_int_equal(ph[3].kind, GW_PH_EVAL);
    free(ph);
    /* bars that name no epoch leave the rows their epochs */
    static const line fa[] = {
        {1000, "epoch     train_loss  valid_loss  error_rate  time    "},
        {3000, "100%|" BAR "| 23/23 [00:02<00:00, 9.50it/s]"},
        {4000, "0         1.049577    0.328317    0.070312    00:03   "},
        {6000, "100%|" BAR "| 23/23 [00:02<00:00, 9.50it/s]"},
        {7000, "1         0.361420    0.241619    0.050781    00:03   "},
    };
    e = run(fa, sizeof fa / sizeof *fa, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].number, 1);
    assert_int_equal(e[1].number, 2);
    assert_int_equal(e[1].end_ms, 7000);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_table),
        cmocka_unit_test(test_results_table_steps),
        cmocka_unit_test(test_results_table_beside_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

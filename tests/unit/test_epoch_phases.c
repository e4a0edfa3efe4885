/* Phases from epoch lines when no step is printed (docs/epochs.md, "Epochs and no steps"): the
 * lines of cgcnn2, MACE, a hand-written loop of two runs, nnU-Net and Tianshou's tqdm bar with no
 * total, fed with chosen times; exact kinds, spans and figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/epoch_match.h"
#include "logread/progress.h"
#include "logread/progress_bar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct line {
    int64_t t_ms;
    const char *text;
} line;

typedef struct fed {
    gw_progress_epoch *e;
    size_t ne;
    gw_phase_span *ph;
    size_t nph;
    char found[512];
} fed;

static fed feed(const line *l, size_t n)
{
    fed f = {0};
    gw_progress *p = gw_progress_new(NULL);
    for (size_t i = 0; i < n; i++)
        gw_progress_feed(p, l[i].text, l[i].t_ms, NULL, NULL);
    f.ne = gw_progress_finish(p, &f.e);
    f.nph = gw_progress_phases(p, &f.ph);
    gw_progress_found(p, f.found, sizeof f.found);
    gw_progress_free(p);
    return f;
}

static void done(fed *f)
{
    free(f->e);
    free(f->ph);
}

static void phase(const gw_phase_span *p, gw_phase_kind kind, int64_t start, int64_t end)
{
    assert_int_equal(p->kind, kind);
    assert_int_equal(p->start_ms, start);
    assert_int_equal(p->end_ms, end);
    if (kind == GW_PH_TRAIN) { /* told by epoch lines: no step, no rate */
        assert_int_equal(p->steps, -1);
        assert_int_equal(p->first_step, -1);
        assert_true(isnan(p->steps_per_s));
    }
}

static void test_words(void **state)
{
    (void)state;
    assert_true(gw_epoch_line_results("Epoch 0: loss=30.7212, RMSE_E_per_atom=5323.5 meV"));
    assert_true(gw_epoch_line_results("Epoch [001/300] - Train Loss: 145.13359, Valid Loss: 70.6"));
    assert_false(gw_epoch_line_results("resnet-50 - Epoch 0/49"));
    assert_false(gw_epoch_line_results("2024-04-26 09:39:10.910043: Epoch 0"));
    assert_true(gw_training_over_line("Training complete."));
    assert_true(gw_training_over_line("INFO: Training complete"));
    assert_true(gw_training_over_line("Training complete. [11/07 14:03:13]"));
    assert_true(gw_training_over_line("Finished training, saving the model"));
    assert_true(gw_training_over_line("Training completed in 3h 2m"));
    assert_false(gw_training_over_line("Finished training it 1024/306969 of epoch 0, 7.90 ms/it"));
    assert_false(gw_training_over_line("Epoch: 0 training finished. Time: 312.97s"));
    assert_false(gw_training_over_line("the training complete flag is set"));
    gw_bar b;
    assert_true(
        gw_bar_parse("Epoch #1: 100001it [05:37, 296.68it/s, env_step=100000, len=57]", &b));
    assert_int_equal(b.n, 100001);
    assert_int_equal(b.total, 0);
    assert_true(b.no_total);
    assert_float_equal(b.elapsed_s, 337.0, 1e-9);
    assert_string_equal(b.desc, "Epoch #1");
    assert_false(gw_bar_parse("commit [abc] merged", &b));
    assert_false(gw_bar_parse("it [05:37] was late", &b));
}

/* cgcnn2: the validation inside each epoch's line, a save 3 ms after, `Training complete.`, then
 * the test's result and its CSV: one training stretch (split by the save's mark), after-work. */
static void test_epoch_lines_with_results(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "INFO: {'batch_size': 32, 'epoch': 300}"},
        {5000, "INFO: Epoch [001/300] - Train Loss: 145.13359, Valid Loss: 70.66399, LR: [0.001]"},
        {5003, "INFO:   [SAVE] Best model at epoch 1."},
        {9000, "INFO: Epoch [002/300] - Train Loss: 80.1, Valid Loss: 75.2, LR: [0.001]"},
        {13000, "INFO: Epoch [003/300] - Train Loss: 60.5, Valid Loss: 50.1, LR: [0.001]"},
        {13000, "INFO: Training complete."},
        {15000, "INFO: MSE: 14.2267, R2 Score: 0.9384"},
        {15003, "INFO: Prediction results have been saved to out/test_results.csv"},
    };
    fed f = feed(l, sizeof l / sizeof *l);
    assert_int_equal(f.ne, 3);
    assert_int_equal(f.e[2].number, 3);
    assert_int_equal(f.e[2].total, 300);
    assert_int_equal(f.e[2].steps, -1);
    /* one line per epoch, at its end: each epoch from the line before (the first from the job's
     * first line); the validation inside the line tells no time */
    int64_t span[][2] = {{1000, 5000}, {5000, 9000}, {9000, 13000}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(f.e[i].start_ms, span[i][0]);
        assert_int_equal(f.e[i].end_ms, span[i][1]);
        assert_true(isnan(f.e[i].validation_s));
    }
    assert_int_equal(f.nph, 4);
    phase(&f.ph[0], GW_PH_TRAIN, 1000, 5000); /* the first epoch from the job's first line */
    phase(&f.ph[1], GW_PH_SAVE, 5003, 5003);  /* a mark */
    phase(&f.ph[2], GW_PH_TRAIN, 5003, 13000);
    phase(&f.ph[3], GW_PH_AFTER, 13000, 15003);
    assert_non_null(strstr(f.found, "evaluation inside the epoch lines (`Valid`)"));
    assert_non_null(strstr(f.found, "training from epoch lines, no training steps printed"));
    done(&f);
}

/* MACE: `Epoch 0`, `Epoch 2`, `Epoch 4` (every second epoch: a stride), then the final
 * evaluation after `Training complete` (announced: the training ran up to that line). */
static void test_stride(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "INFO: Started training"},
        {2000, "INFO: Epoch 0: loss=30.7212, RMSE_E_per_atom=5323.5 meV"},
        {4000, "INFO: Epoch 2: loss=10.1, RMSE_E_per_atom=1000.5 meV"},
        {6000, "INFO: Epoch 4: loss=5.2, RMSE_E_per_atom=800.5 meV"},
        {6500, "INFO: Epoch 7: a mention of no epoch's advance"},
        {7000, "INFO: Training complete"},
        {8000, "INFO: Evaluating train, validation and test sets"},
        {9000, "INFO: Saving model to checkpoints/mace.model"},
    };
    fed f = feed(l, sizeof l / sizeof *l);
    assert_int_equal(f.ne, 3);
    assert_int_equal(f.e[0].number, 1);
    assert_int_equal(f.e[1].number, 3);
    assert_int_equal(f.e[2].number, 5);
    assert_int_equal(f.e[1].start_ms, 2000); /* two epochs' time: printed every second */
    assert_int_equal(f.e[1].end_ms, 4000);
    assert_int_equal(f.nph, 2);
    phase(&f.ph[0], GW_PH_TRAIN, 1000, 7000); /* up to `Training complete` */
    phase(&f.ph[1], GW_PH_AFTER, 7000, 9000);
    assert_non_null(strstr(f.found, "epochs from `Epoch N` lines, printed every 2 epochs"));
    done(&f);
}

/* A hand-written loop: progress lines and an average naming the epoch, evaluation lines, a save;
 * epochs 499-500, then a second run from epoch 1 (a reset). */
static void test_reset_and_lines_of_the_epoch(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "Train Epoch: 499 [0/45000 (0%)]\tLoss: 0.000298"},
        {2000, "Train Epoch: 499 [38400/45000 (85%)]\tLoss: 0.000173"},
        {2500, "====> Epoch 499 Average train loss: 0.0005"},
        {3500, "====> Validation loss: 0.3578,  acc: 93.56%"},
        {4000, "Train Epoch: 500 [0/45000 (0%)]\tLoss: 0.000570"},
        {5000, "====> Epoch 500 Average train loss: 0.0005"},
        {6000, "====> Validation loss: 0.3611,  acc: 93.60%"},
        {6100, ">>> Training the second model"},
        {7000, "Train Epoch: 1 [0/45000 (0%)]\tLoss: 2.3"},
        {8000, "====> Epoch 1 Average train loss: 2.7274"},
        {9000, "====> Validation loss: 2.2828,  acc: 12.70%"},
        {9100, "====> New best model saved to best_drop.pth"},
        {10000, "Train Epoch: 2 [0/45000 (0%)]\tLoss: 2.27"},
        {11000, "====> Epoch 2 Average train loss: 2.1727"},
        {12000, "====> Validation loss: 1.9822,  acc: 25.54%"},
    };
    fed f = feed(l, sizeof l / sizeof *l);
    assert_int_equal(f.ne, 4);
    long want[] = {499, 500, 1, 2};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(f.e[i].number, want[i]);
    assert_int_equal(f.e[0].start_ms, 1000); /* progress lines: each epoch from its first */
    assert_int_equal(f.e[2].start_ms, 7000);
    gw_phase_kind kinds[] = {GW_PH_TRAIN, GW_PH_EVAL, GW_PH_TRAIN, GW_PH_EVAL, GW_PH_TRAIN,
                             GW_PH_EVAL,  GW_PH_SAVE, GW_PH_TRAIN, GW_PH_EVAL};
    assert_int_equal(f.nph, sizeof kinds / sizeof *kinds);
    for (size_t i = 0; i < f.nph; i++)
        assert_int_equal(f.ph[i].kind, kinds[i]);
    phase(&f.ph[0], GW_PH_TRAIN, 1000, 2500);
    phase(&f.ph[1], GW_PH_EVAL, 2500, 3500);
    phase(&f.ph[2], GW_PH_TRAIN, 3500, 5000);
    phase(&f.ph[6], GW_PH_SAVE, 9100, 9100);
    phase(&f.ph[7], GW_PH_TRAIN, 9100, 11000);
    done(&f);
}

/* nnU-Net: a bare `Epoch 0` announces the epoch: its training runs to the result lines (from
 * the end of the phase before). */
static void test_announced_epochs(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "Epoch 0"},           {1100, "Current learning rate: 0.01"},
        {5000, "train_loss 0.7088"}, {5010, "val_loss 0.4628"},
        {6000, "Epoch 1"},           {9000, "train_loss 0.4043"},
        {9010, "val_loss 0.3847"},
    };
    fed f = feed(l, sizeof l / sizeof *l);
    assert_int_equal(f.ne, 2);
    assert_int_equal(f.nph, 4);
    phase(&f.ph[0], GW_PH_TRAIN, 1000, 5010);
    phase(&f.ph[1], GW_PH_EVAL, 5010, 5010); /* results alone: no time of their own */
    phase(&f.ph[2], GW_PH_TRAIN, 5010, 9010);
    phase(&f.ph[3], GW_PH_EVAL, 9010, 9010);
    done(&f);
}

/* Tianshou: one final state of a bar with no total per epoch, then its test line: the bars count
 * the steps (the steps' phases, not the epoch lines'). */
static void test_bar_with_no_total(void **state)
{
    (void)state;
    static const line l[] = {
        {1000, "Epoch #1: 100001it [05:37, 296.68it/s, env_step=100000, len=57, loss=0.124]"},
        {1100, "Epoch #1: test_reward: 14.891028 +- 47.278584, best_reward: 14.891028 in #1"},
        {2000, "Epoch #2: 100001it [05:38, 295.19it/s, env_step=200000, len=44, loss=0.141]"},
        {2100, "Epoch #2: test_reward: 15.198612 +- 39.677467, best_reward: 15.198612 in #2"},
    };
    fed f = feed(l, sizeof l / sizeof *l);
    assert_int_equal(f.ne, 2);
    assert_int_equal(f.e[0].steps, 100001);
    assert_int_equal(f.e[1].steps, 100001);
    assert_float_equal(f.e[0].steps_per_s, 100001.0 / 337.0, 1e-9);
    assert_int_equal(f.nph, 4);
    assert_int_equal(f.ph[0].kind, GW_PH_TRAIN);
    assert_int_equal(f.ph[0].steps, 100001);
    assert_int_equal(f.ph[1].kind, GW_PH_EVAL);
    assert_int_equal(f.ph[2].steps, 100001);
    assert_int_equal(f.ph[3].kind, GW_PH_EVAL);
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_epoch_lines_with_results),
        cmocka_unit_test(test_stride),
        cmocka_unit_test(test_reset_and_lines_of_the_epoch),
        cmocka_unit_test(test_announced_epochs),
        cmocka_unit_test(test_bar_with_no_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* One text line read for progress (logread/counter_line.h): lines of real trainers' output
 * (tests/data/trainer-logs/README.md names them), exact fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/counter_line.h"
#include "logread/progress_bar.h"
#include "logread/step_time.h"
#include "logread/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gw_counter read_line(const char *line, bool want)
{
    gw_counter c;
    assert_int_equal(gw_counter_line(line, &c), want);
    return c;
}

static void test_iteration_counters(void **state)
{
    (void)state;
    gw_counter c = read_line("2023-03-22 09:31:56 iter 2990: loss 3.8853, time 1096.65ms, mfu "
                             "15.34%",
                             true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 2990);
    assert_int_equal(c.total, -1);
    assert_int_equal(c.epoch, -1);
    assert_float_equal(c.step_s, 1.09665, 1e-9);
    assert_string_equal(c.shape, "iter N");

    c = read_line(" iteration      201/  250000 | consumed samples:       205824 | elapsed time "
                  "per iteration (ms): 139113.4 | lm loss: 2.373574E+00 |",
                  true);
    assert_int_equal(c.n, 201);
    assert_int_equal(c.total, 250000);
    assert_float_equal(c.step_s, 139.1134, 1e-9);

    c = read_line("[03/15 07:48:04 d2.utils.events]:  eta: 0:01:23  iter: 19  total_loss: 1.475  "
                  "time: 0.2951  data_time: 0.0589  lr: 6.1638e-06  max_mem: 824M",
                  true);
    assert_int_equal(c.n, 19);
    assert_float_equal(c.step_s, 0.2951, 1e-9); /* not data_time, not the eta */

    /* sizes and settings are no counters */
    read_line("device cuda, model resnet50, batch 256, workers 4", false);
    read_line("Total optimization steps = 1000", false);
    read_line("max_iter: 90000", false);
}

static void test_epoch_tags(void **state)
{
    (void)state;
    gw_counter c = read_line("2020-05-08 18:56:16,649 - mmdet - INFO - Epoch [1][2400/7517]\tlr: "
                             "0.00125, eta: 4:33:09, time: 0.595, data_time: 0.032",
                             true);
    assert_int_equal(c.epoch, 1);
    assert_int_equal(c.n, 2400);
    assert_int_equal(c.total, 7517);
    assert_float_equal(c.step_s, 0.595, 1e-9);

    c = read_line("[07/21 14:43:00] ppdet.engine INFO: Epoch: [0] [ 20/200] learning_rate: "
                  "0.000025 batch_cost: 6.6231 data_cost: 6.0753 ips: 4.8315 images/s",
                  true);
    assert_int_equal(c.epoch, 0);
    assert_int_equal(c.n, 20);
    assert_float_equal(c.step_s, 6.6231, 1e-9);

    c = read_line("| epoch 001:    450 / 1891 loss=11.521, wps=52922, ups=0.5, wpb=104928", true);
    assert_int_equal(c.epoch, 1);
    assert_int_equal(c.n, 450);
    assert_int_equal(c.total, 1891);
    assert_float_equal(c.step_s, 2.0, 1e-9); /* 0.5 updates a second */

    c = read_line("2024-11-07 11:16:48 | INFO | yolox.core.trainer:270 - epoch: 1/300, iter: "
                  "10/134, iter_time: 0.677s, data_time: 0.059s",
                  true);
    assert_int_equal(c.epoch, 1);
    assert_int_equal(c.epoch_total, 300);
    assert_int_equal(c.n, 10);
    assert_int_equal(c.total, 134);
    assert_float_equal(c.step_s, 0.677, 1e-9);

    c = read_line("30/42 of epoch 28/30 class : 0.014 - acc class : 100.00 [bs:128]", true);
    assert_int_equal(c.epoch, 28);
    assert_int_equal(c.n, 30);
    assert_int_equal(c.total, 42);

    /* an epoch line without a counter is the epoch matcher's, not this reader's */
    read_line("Epoch 3/10", false);
}

static void test_kinds(void **state)
{
    (void)state;
    gw_counter c =
        read_line("2023-03-22 09:32:32 step 3000: train loss 4.0390, val loss 4.0427", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_string_equal(c.kind_word, "val");
    assert_false(c.announce); /* it reports values: the evaluation is done */

    c = read_line("12/06 10:51:38 - mmengine - INFO - Evaluating bbox...", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_true(c.announce);

    c = read_line("saving checkpoint to out", true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
    assert_string_equal(c.kind_word, "saving");

    /* evaluation wins over the counter's training */
    c = read_line("Iter(val) [10/20]    eta: 0:00:01  time: 0.0500", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_int_equal(c.n, 10);

    /* "interval", "retrieval", "data_time" hold no word of a kind */
    c = read_line("iter 5: loss 1.0, eval_interval 250, retrieval 3", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
}

/* The held-out logs' forms (OpenPCDet, nnU-Net; tests/data/trainer-logs/README.md). */
static void test_held_out_forms(void **state)
{
    (void)state;
    gw_counter c = read_line("2022-10-23 03:18:58,579   INFO  epoch: 4/120, acc_iter=1100, "
                             "cur_iter=15/271, batch_size=4, loss=4.744986057281494",
                             true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.epoch, 4);
    assert_int_equal(c.epoch_total, 120);
    assert_int_equal(c.n, 15); /* the counter with its total, not the bare acc_iter */
    assert_int_equal(c.total, 271);

    c = read_line("2023-01-05 16:34:49,377   INFO  Train:    1/3 ( 33%) [  49/323 ( 15%)]  Loss: "
                  "36.77 (81.7)  LR: 1.351e-04  Time cost: 00:15/01:25 [00:15/04:48]  Acc_iter 50"
                  "          Data time: 0.00(0.02)  Forward time: 0.31(0.29)  Batch time: "
                  "0.31(0.31)",
                  true);
    assert_int_equal(c.epoch, 1);
    assert_int_equal(c.epoch_total, 3);
    assert_int_equal(c.n, 49);
    assert_int_equal(c.total, 323);
    assert_float_equal(c.step_s, 0.31, 1e-9); /* Batch time, not Data time */
    assert_string_equal(c.shape, "E/T [N/M]");

    c = read_line("[1/5][50/1583]\tLoss_D: 0.8862\tLoss_G: 2.9001", true);
    assert_int_equal(c.epoch, 1);
    assert_int_equal(c.n, 50);
    assert_int_equal(c.total, 1583);

    /* a clock's "00:15/01:25 [00:15/04:48]" is no pair of loops */
    read_line("Time cost: 00:15/01:25 [00:15/04:48]", false);

    c = read_line("2024-04-26 09:41:39.498914: val_loss 0.4628", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_string_equal(c.kind_word, "val_loss");
    assert_false(c.announce);                /* a result: the work is done */
    read_line("eval_interval: 2000", false); /* a setting */
    read_line("2024-04-26 09:41:39.493872: train_loss 0.7088", false);
}

/* Forms of the second held-out set (sockeye, MaxText): a bracketed batch index, a step time
 * named "seconds", a rate printed before its unit. */
static void test_second_held_out_forms(void **state)
{
    (void)state;
    gw_counter c = read_line("[INFO:sockeye.training] Epoch[0] Batch [2900]   Speed: 186.94 "
                             "samples/sec 8556.4  0 tokens/sec 1.59 updates/sec   "
                             "perplexity=38.950971",
                             true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.epoch, 0);
    assert_int_equal(c.n, 2900);
    assert_int_equal(c.total, -1);
    assert_float_equal(c.step_s, 1 / 1.59, 1e-9);
    assert_string_equal(c.shape, "Epoch E, Batch [N]");

    c = read_line("I0811 21:55:06.119312 138304841739136 metric_logger.py:226] completed step: 2, "
                  "seconds: 10.228, TFLOP/s/device: 350.869, Tokens/s/device: 19222.175, loss: "
                  "12.980",
                  true);
    assert_int_equal(c.n, 2);
    assert_float_equal(c.step_s, 10.228, 1e-9);

    /* a bare batch number is still a size; "seconds" without a colon is no step time */
    read_line("training with batch 256 for 10 seconds", false);
    c = read_line("step 30 took 12 seconds", true);
    assert_true(isnan(c.step_s));
}

/* A counter leading a line that reports a loss (modded-llama2's "250 | loss 4.0938 | ..."); a
 * table row or a clock is none. */
static void test_leading_counter(void **state)
{
    (void)state;
    gw_counter c = read_line("250 | loss 4.0938 | lr 3.000000e-04 | 13707.39ms", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 250);
    assert_int_equal(c.total, -1);
    assert_string_equal(c.shape, "N | loss");
    read_line("0 | 0.52 0.48 | 00:12", false);
    read_line("12:30:01 loss 0.31", false);
    read_line("2023-06-25 | loss 0.31", false);
    read_line("d[ 0.4 ] = [{'LABEL_0': 1.0334709184616804, 'n': 'grs'}]", false);
    /* yolact: an outer bracketed number (no epoch claimed), a time per step named timer */
    c = read_line(
        "[  0]      10 || B: 6.981 | C: 6.276 | M: 5.049 | S: 1.818 | T: 20.124 || ETA: 2 "
        "days, 22:15:24 || timer: 0.290",
        true);
    assert_int_equal(c.n, 10);
    assert_int_equal(c.epoch, -1);
    assert_float_equal(c.step_s, 0.290, 1e-9);
    assert_string_equal(c.shape, "[K] N ||");
    read_line("[0] 10 | 0.52 0.48", false); /* neither a loss nor a time per step */
}

/* A logger's line run into a bar that the terminal's width cut (Lightning 1.x's
 * ModelCheckpoint): found where the bar's last value runs into words; a metric named
 * 'val/accuracy' is no evaluation, the save is one. */
static void test_line_on_a_cut_bar(void **state)
{
    (void)state;
    static const char cut_bar[] =
        "Epoch 0: 100%|\xe2\x96\x88| 7/7 [00:07<00:00,  1.04s/it, loss=0.693, v_num=d-21, "
        "val/accuracy=0.639, train/loss=0.6Epoch 0, global step 6: 'val/accuracy' reached 0.63918 "
        "(best 0.63918), saving model to 'checkpoints/val/accuracy.ckpt' as top 1";
    bool cut = false;
    const char *rest = gw_bar_rest(cut_bar, &cut);
    assert_non_null(rest);
    assert_true(cut);
    assert_int_equal(strncmp(rest, "Epoch 0, global step 6:", 23), 0);
    gw_counter c = read_line(rest, true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
    assert_string_equal(c.kind_word, "saving");
    c = read_line("Epoch 2, global step 18: 'val/accuracy' was not in top 1", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN); /* progress.c reads no steps from it on a bar */
    c = read_line("epoch 3 val/loss: 0.689", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);

    /* a closed bar: the text after it; a cut bar whose values run into nothing: none */
    rest = gw_bar_rest("  3%|#| 5/200 [00:10<06:30,  2.0s/it][INFO|trainer.py:3158] ***** Running "
                       "Evaluation *****",
                       &cut);
    assert_non_null(rest);
    assert_false(cut);
    assert_int_equal(strncmp(rest, "[INFO|", 6), 0);
    assert_null(
        gw_bar_rest("Epoch 3: 100%|#| 7/7 [00:04<00:00,  1.74it/s, loss=0.679, v_num=d-2", &cut));
}

/* A save verb before the evaluation's word is a save (for that result); a checkpoint noun is
 * not; a time per step printed before its unit. */
static void test_save_verb_and_unit_times(void **state)
{
    (void)state;
    gw_counter c = read_line("Saving model at Epoch 1 with Validation Accuracy: 33.73%", true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
    assert_string_equal(c.kind_word, "Saving");
    c = read_line("[INFO:sockeye.training] Checkpoint [3]  Validation-perplexity=19.245108", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_string_equal(c.kind_word, "Validation");
    c = read_line("Validation loss improved, saving model to best.pt", true);
    assert_int_equal(c.kind, GW_LINE_EVAL); /* the evaluation's word first */
    c = read_line("[INFO:root] Saved params to \"/home/paper/model/params.00003\"", true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
    assert_string_equal(c.kind_word, "Saved");

    c = read_line("Train Epoch: 0/100 Step: 10/965 | 2.057s/batch | lr 5.0000e-04 || Mask_Loss "
                  "1.6780",
                  true);
    assert_int_equal(c.n, 10);
    assert_float_equal(c.step_s, 2.057, 1e-9);
    c = read_line("step 40 | loss 2.1 | 95ms/step", true);
    assert_float_equal(c.step_s, 0.095, 1e-9);
    c = read_line("iter 7 | loss 2.1 | 0.5 s/it", true);
    assert_float_equal(c.step_s, 0.5, 1e-9);
    c = read_line("INFO:tensorflow:global step 61: loss = 7.6624 (1.332 sec/step)", true);
    assert_float_equal(c.step_s, 1.332, 1e-9);
    c = read_line(
        "[2024/08/06 18:03:31] openrec INFO: epoch: [1/2], global_step: 100, lr: 0.000005, "
        "loss: 69.376022, avg_reader_cost: 0.00971 s, avg_batch_cost: 0.18023 s",
        true);
    assert_float_equal(c.step_s, 0.18023, 1e-9); /* an average's key, not avg_reader_cost */
    c = read_line("iter 9 | data_time: 0.5", true);
    assert_true(isnan(c.step_s));
    c = read_line("iter 8 | 64 samples/s", true);
    assert_true(isnan(c.step_s)); /* samples are no steps */
}

/* The timeline: a first counter equal to its stride was logged from the loop's start (TF's
 * "Step 100", "Step 200": 100 steps before the first line); a later first value counts none; a
 * line repeated by a second logger adds no step and no time sample. */
static void test_timeline_stride_and_repeats(void **state)
{
    (void)state;
    gw_timeline *tl = gw_timeline_new();
    gw_timeline_add(tl, GW_PH_TRAIN, 0, 100, 0, 1, 0.8, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 10, 200, 0, 1, 0.7, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 11, 200, 0, 1, 0.7, NULL, 0); /* the glog copy */
    gw_timeline_add(tl, GW_PH_TRAIN, 20, 300, 0, 1, 0.7, NULL, 0);
    gw_phase_span *ph;
    assert_int_equal(gw_timeline_finish(tl, 30, false, &ph), 1);
    assert_int_equal(ph[0].steps, 300);
    assert_float_equal(ph[0].steps_per_s, 1 / 0.7, 1e-9); /* median of 0.8, 0.7, 0.7 */
    free(ph);
    gw_timeline_free(tl);

    tl = gw_timeline_new();
    gw_timeline_add(tl, GW_PH_TRAIN, 0, 380000, 0, 1, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 10, 509900, 0, 1, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 20, 510000, 0, 1, NAN, NULL, 0);
    assert_int_equal(gw_timeline_finish(tl, 30, false, &ph), 1);
    assert_int_equal(ph[0].steps, 130000);
    free(ph);
    gw_timeline_free(tl);
}

/* Numbers glued before their words (ESPnet2's trainer): "7epoch:train:7126-7500batch" is
 * epoch 7 at batch 7500 (a range counts to its end), "8/20epoch started" epoch 8 of 20; the
 * step's time is train_time, not iter_time (its wait for data). A number glued to a word
 * elsewhere ("256batch", "3epochs") is none. */
static void test_glued_numbers(void **state)
{
    (void)state;
    gw_counter c = read_line("[PC] 2020-11-11 16:41:00,521 (trainer:486) INFO: "
                             "7epoch:train:7126-7500batch: iter_time=0.001, forward_time=0.005, "
                             "loss=1.601, backward_time=0.005, lr_0=0.100, train_time=0.014",
                             true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.epoch, 7);
    assert_int_equal(c.epoch_total, -1);
    assert_int_equal(c.n, 7500);
    assert_int_equal(c.total, -1);
    assert_float_equal(c.step_s, 0.014, 1e-9);
    assert_string_equal(c.shape, "epoch E, A-Nbatch");
    c = read_line("[PC] 2020-11-11 16:41:04,070 (trainer:243) INFO: 7epoch results: [train] "
                  "loss=1.613, train_time=0.014, [valid] loss=1.854, time=3.12 seconds",
                  true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_int_equal(c.epoch, 7);
    assert_int_equal(c.n, -1);
    c = read_line("train 256batch of 3epochs, 10-20 items", false);
    assert_int_equal(c.epoch, -1);
    gw_counter d;
    memset(&d, 0, sizeof d);
    (void)gw_counter_line("INFO: 8/20epoch started. Estimated time to finish: 23 minutes", &d);
    assert_int_equal(d.epoch, 8);
    assert_int_equal(d.epoch_total, 20);
}

static void test_median(void **state)
{
    (void)state;
    const double v[] = {1.0, 35.4, 1.02, 1.01};
    assert_float_equal(gw_timeline_median(v, 4), 1.015, 1e-12);
    assert_float_equal(gw_timeline_median(v, 3), 1.02, 1e-12);
}

/* Two counters of different labels: the step counter is the first, the other's lines between
 * its own count nothing; two of another label's lines in a row take over from the first. */
static void test_two_counters_by_label(void **state)
{
    (void)state;
    gw_counter_pick pk = {0};
    gw_counter c;
    const char *const tflearn[] = {
        "Training Step: 8  | total loss: 2.03040 | time: 0.275s",
        "| Adam | epoch: 001 | loss: 2.03040 - acc: 0.2720 -- iter: 00512/55000",
        "Training Step: 9  | total loss: 1.94953 | time: 0.186s",
        "| Adam | epoch: 001 | loss: 1.94953 - acc: 0.2935 -- iter: 00576/55000",
        "Training Step: 10  | total loss: 1.87821 | time: 8.900s",
    };
    const gw_counter_role want[] = {GW_COUNTER_STEP, GW_COUNTER_OTHER, GW_COUNTER_STEP,
                                    GW_COUNTER_OTHER, GW_COUNTER_STEP};
    for (size_t i = 0; i < 5; i++) {
        assert_true(gw_counter_line(tflearn[i], &c));
        assert_int_equal(gw_counter_is_step(&pk, &c, (long long)i), want[i]);
    }
    assert_int_equal(c.n, 10);
    /* detectron2: a one-off "iteration 0", then the `iter: N` lines are the steps */
    gw_counter_pick d = {0};
    assert_true(gw_counter_line("Starting training from iteration 0", &c));
    assert_int_equal(gw_counter_is_step(&d, &c, 1), GW_COUNTER_STEP);
    assert_true(gw_counter_line(" eta: 0:01:23  iter: 19  total_loss: 1.475  time: 0.2951", &c));
    assert_int_equal(gw_counter_is_step(&d, &c, 2), GW_COUNTER_OTHER);
    assert_true(gw_counter_line(" eta: 0:01:17  iter: 39  total_loss: 1.383  time: 0.3084", &c));
    assert_int_equal(gw_counter_is_step(&d, &c, 3), GW_COUNTER_TAKEOVER);
    assert_int_equal(d.held.n, 19); /* the first of them, fed first */
    assert_int_equal(d.held_t, 2);
    assert_true(gw_counter_line(" eta: 0:01:09  iter: 59  total_loss: 1.339  time: 0.3054", &c));
    assert_int_equal(gw_counter_is_step(&d, &c, 4), GW_COUNTER_STEP);
    /* the same label with or without its total is one counter */
    assert_true(gw_counter_line("iter: 10/134 loss 1.0", &c));
    assert_int_equal(gw_counter_is_step(&d, &c, 5), GW_COUNTER_STEP);

    /* by their advance: the samples counter read first (+64 a step), the steps (+1 a line) take
     * over from their second line, the first fed first; the samples are a second counter again */
    gw_counter_pick r = {0};
    const char *const reversed[] = {
        "| Adam | epoch: 001 | loss: 2.03040 - acc: 0.2720 -- iter: 00512/55000",
        "Training Step: 8  | total loss: 2.03040 | time: 0.275s",
        "| Adam | epoch: 001 | loss: 1.94953 - acc: 0.2935 -- iter: 00576/55000",
        "Training Step: 9  | total loss: 1.94953 | time: 0.186s",
        "| Adam | epoch: 001 | loss: 1.87821 - acc: 0.3264 -- iter: 00640/55000",
        "Training Step: 10  | total loss: 1.87821 | time: 8.900s",
    };
    const gw_counter_role rwant[] = {GW_COUNTER_STEP,     GW_COUNTER_OTHER, GW_COUNTER_STEP,
                                     GW_COUNTER_TAKEOVER, GW_COUNTER_OTHER, GW_COUNTER_STEP};
    for (size_t i = 0; i < 6; i++) {
        assert_true(gw_counter_line(reversed[i], &c));
        assert_int_equal(gw_counter_is_step(&r, &c, (long long)i), rwant[i]);
        if (rwant[i] == GW_COUNTER_TAKEOVER)
            assert_int_equal(r.held.n, 8);
    }
    assert_string_equal(r.label, "step");
}

/* The eighth held-out set's forms (tests/data/trainer-logs/README.md): a key-value table row
 * that names the step (Stable-Baselines3), a counter whose word is its time's unit (StyleGAN2-ADA),
 * a plural step word beside an epoch tag (pytorch-CycleGAN-and-pix2pix). */
static void test_eighth_set_forms(void **state)
{
    (void)state;
    gw_counter c = read_line("|    iterations           | 2           |", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.epoch, -1);
    assert_string_equal(c.shape, "| iterations | N |");
    assert_true(isnan(c.step_s));
    read_line("|    total_timesteps      | 4096        |", false); /* samples */
    read_line("|    n_updates            | 10          |", false);
    read_line("|    fps                  | 254         |", false);
    read_line("| time/                   |             |", false);
    read_line("| iterations | 2 | 3 |", false); /* not a two-cell row */

    c = read_line("tick 5     kimg 20.0     time 1h 08m 11s   sec/tick 581.7   sec/kimg 145.43  "
                  "maintenance 0.1    cpumem 4.36   gpumem 7.72   augment 0.031",
                  true);
    assert_int_equal(c.n, 5);
    assert_string_equal(c.shape, "tick N");
    assert_float_equal(c.step_s, 581.7, 1e-9); /* not sec/kimg, not the time so far */
    c = read_line("round 3 | loss 0.2 | 2.5 s/round", true);
    assert_int_equal(c.n, 3);
    assert_float_equal(c.step_s, 2.5, 1e-9);
    read_line("tick 5 kimg 20.0 sec/kimg 145.43", false); /* its time names another unit */

    c = read_line("(epoch: 2, iters: 78, time: 0.070, data: 0.003) G_GAN: 1.461 G_L1: 44.868 "
                  "D_real: 0.135 D_fake: 0.097 ",
                  true);
    assert_int_equal(c.epoch, 2);
    assert_int_equal(c.n, 78);
    assert_float_equal(c.step_s, 0.070, 1e-9);
    read_line("iters: 100, lr: 0.1", false); /* a plural without an epoch: a setting */
    c = read_line("saving the model at the end of epoch 5, iters 2610", true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
}

/* A save that printed its step places the counter (gw_timeline_place): the training after it
 * counts from there; a loop first seen in a later epoch of one bar over all epochs counts from its
 * base (gw_timeline_base). */
static void test_timeline_place_and_base(void **state)
{
    (void)state;
    gw_timeline *tl = gw_timeline_new();
    gw_timeline_add(tl, GW_PH_TRAIN, 0, 550, 0, 1, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 10, 700, 0, 1, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_SAVE, 20, -1, 0, 0, NAN, "saving", 0);
    gw_timeline_place(tl, 1250);
    gw_timeline_place(tl, 900); /* never back */
    gw_timeline_add(tl, GW_PH_TRAIN, 30, 1300, 0, 1, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 40, 1400, 0, 1, NAN, NULL, 0);
    gw_phase_span *ph;
    assert_int_equal(gw_timeline_finish(tl, 50, false, &ph), 3);
    assert_int_equal(ph[0].steps, 150);
    assert_int_equal(ph[2].steps, 150);
    free(ph);
    gw_timeline_free(tl);

    tl = gw_timeline_new();
    gw_timeline_base(tl, 160);
    gw_timeline_add(tl, GW_PH_TRAIN, 0, 176, 800, 1, NAN, NULL, 1);
    gw_timeline_add(tl, GW_PH_TRAIN, 10, 192, 800, 1, NAN, NULL, 0);
    assert_int_equal(gw_timeline_finish(tl, 20, false, &ph), 1);
    assert_int_equal(ph[0].steps, 32);
    free(ph);
    gw_timeline_free(tl);
}

/* The ninth, blind set's line forms (tests/data/trainer-logs/README.md). */
static void test_ninth_set_forms(void **state)
{
    (void)state;
    /* the widely copied EarlyStopping class: a save verb opening a clause after the results */
    gw_counter c =
        read_line("Validation loss decreased (inf --> 0.723953).  Saving model ...", true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
    assert_string_equal(c.kind_word, "Saving");
    c = read_line("val_loss 0.41; saved checkpoint to best.pt", true);
    assert_int_equal(c.kind, GW_LINE_SAVE);
    c = read_line("Validation loss 0.72 saving nothing", true); /* no clause of its own */
    assert_int_equal(c.kind, GW_LINE_EVAL);
    read_line("Checkpoints will be saved to /tmp/run by HardDiskBackend.", false); /* future */

    /* Flair's DEV line; a device path or a word that begins with dev is none */
    c = read_line("2020-07-02 14:42:58,579 DEV : loss 0.4148 - score 0.8584", true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    assert_string_equal(c.kind_word, "DEV");
    read_line("mounted /dev on /mnt/dev", false);
    read_line("device: cuda:0, devices 1", false);

    /* a setting keyed by an evaluation word, its value a name */
    read_line("main: evaluation order = LEFT_TO_RIGHT", false);
    c = read_line("val loss = 0.5", true); /* a value: a result */
    assert_int_equal(c.kind, GW_LINE_EVAL);

    /* llama.cpp's per-iteration delta time as a clock; its eta is none */
    c = read_line("train_opt_callback: iter=     7 sample=57/10322099 sched=0.070000 loss=9.4 "
                  "dt=00:03:06 eta=12:47:43 |---->",
                  true);
    assert_int_equal(c.n, 7);
    assert_float_equal(c.step_s, 186.0, 1e-9);
    c = read_line("iter 3: loss 2.1, dt 35.5ms", true);
    assert_float_equal(c.step_s, 0.0355, 1e-9);

    /* a time per step on a line of its own (after the counter's), not samples per second */
    assert_float_equal(gw_step_time_alone("\tspeed: 0.0867s/iter; left time: 445.8729s"), 0.0867,
                       1e-9);
    assert_float_equal(gw_step_time_alone("INFO:tensorflow:global_step/sec: 2.5"), 0.4, 1e-9);
    assert_true(isnan(gw_step_time_alone("INFO:tensorflow:examples/sec: 314.469")));
    assert_true(isnan(gw_step_time_alone("Epoch: 2 cost time: 24.55042862892151")));

    /* boosting rounds: a leading counter, then the round's metrics, the eval set's among them */
    c = read_line("100:\tlearn: 80.7203422\ttest: 76.3503910\tbest: 76.3503910 (100)\ttotal: "
                  "830ms\tremaining: 23.8s",
                  true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 100);
    assert_string_equal(c.shape, "N: metric:");
    c = read_line("[7]\ttrain-rmse:2.81\teval-rmse:3.02", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 7);
    c = read_line("[100]\ttraining's l2: 0.21\tvalid_1's l2: 0.31", true);
    assert_int_equal(c.n, 100);
    /* one metric on a bracketed round's line of its own (LightGBM, one validation set) */
    c = read_line("[10]\tvalid_0's auc: 0.62", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 10);
    assert_string_equal(c.shape, "[N] metric:");
    read_line("[100]\tvalid_0's l2: 0.31 (best)", false); /* more after it: no round's line */
    read_line("0: cuda:0 memory: 12.5", false);

    /* tqdm drawn without its bar (a notebook's text): the percentage, the counts, the clock */
    gw_bar b;
    assert_true(gw_bar_parse("100% 2774/2774 [14:15<00:00,  3.24it/s, train_loss=3.3]", &b));
    assert_int_equal(b.n, 2774);
    assert_int_equal(b.total, 2774);
    assert_float_equal(b.elapsed_s, 855.0, 1e-9);
    assert_string_equal(b.desc, "");
    assert_true(gw_bar_parse("Epoch 3:  45% 45/100 [00:05<00:06,  8.80it/s]", &b));
    assert_int_equal(b.n, 45);
    assert_string_equal(b.desc, "Epoch 3");
    assert_false(gw_bar_parse("accuracy 45% 45/100 correct", &b));
    assert_false(gw_bar_parse("45% 45/100 [done]", &b));
    assert_false(gw_bar_parse("a45% 45/100 [00:05<00:06]", &b));
}

/* The first time per step after an evaluation or a save, more than twice the rest's, held the
 * pause (a timer not reset); a training counter's reset with no epochs starts a phase. */
static void test_paused_time_and_new_loop(void **state)
{
    (void)state;
    const double v[] = {0.2044, 0.0867};
    assert_float_equal(gw_timeline_step_median(v, 2, 0), 0.0867, 1e-12);
    assert_float_equal(gw_timeline_step_median(v, 2, SIZE_MAX), (0.2044 + 0.0867) / 2, 1e-12);
    const double w[] = {0.1, 0.15, 0.1};
    assert_float_equal(gw_timeline_step_median(w, 3, 1), 0.1, 1e-12); /* kept: not twice */

    gw_timeline *tl = gw_timeline_new();
    gw_timeline_add(tl, GW_PH_TRAIN, 0, 0, 0, 1, NAN, NULL, 1);
    gw_timeline_add(tl, GW_PH_TRAIN, 10, 500, 0, 1, NAN, NULL, 0);
    gw_timeline_new_loop(tl);
    gw_timeline_add(tl, GW_PH_TRAIN, 20, 0, 0, 2, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_TRAIN, 30, 600, 0, 2, NAN, NULL, 0);
    gw_timeline_add(tl, GW_PH_SAVE, 40, -1, 0, 0, NAN, "SAVE", 0);
    gw_phase_span *ph;
    assert_int_equal(gw_timeline_finish(tl, 50, false, &ph), 3);
    assert_int_equal(ph[0].kind, GW_PH_TRAIN);
    assert_int_equal(ph[0].steps, 500);
    assert_int_equal(ph[1].kind, GW_PH_TRAIN);
    assert_int_equal(ph[1].steps, 600);
    assert_int_equal(ph[2].kind, GW_PH_AFTER);
    free(ph);
    gw_timeline_free(tl);
}

/* Issue 23's eleventh and twelfth blind sets (tests/data/trainer-logs/README.md): rate keys with
 * the value after a blank or named with "per", times since the counter's last line, an
 * abbreviated step word, "batch N" with a time, the future tense, a part's time. */
static void test_eleventh_twelfth_forms(void **state)
{
    (void)state;
    gw_counter c = read_line("Iter 10: Train loss 0.476, Learning Rate 1.000e-05, It/sec 0.066, "
                             "Tokens/sec 65.688, Trained Tokens 9935, Peak mem 8.743 GB",
                             true);
    assert_int_equal(c.n, 10);
    assert_float_equal(c.step_s, 1 / 0.066, 1e-9);
    assert_false(c.span);
    c = read_line(
        "08/31/2024 14:37:31 [INFO|DP=0|PP=0|TP=0]: iteration: 1 / 15 | consumed_tokens: "
        "512 | elapsed_time_per_iteration_ms: 4.71K | tokens_per_sec: 109 | lm_loss: 5.32",
        true);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.total, 15);
    assert_float_equal(c.step_s, 4.71, 1e-9);
    assert_float_equal(gw_step_time("iteration: 3 / 15 | elapsed_time_per_iteration_ms: 10 | "
                                    "tokens_per_sec: 51.2K"),
                       0.010, 1e-12);
    assert_float_equal(gw_step_time_alone("    throughput/device/batches_per_second=0.0869"),
                       1 / 0.0869, 1e-9);
    assert_true(isnan(gw_step_time_alone("    throughput/device/tokens_per_second=45,538")));
    c = read_line(" 80: 2.927711, 3.411124 avg loss, 0.001000 rate, 2.848000 seconds, 64 images, "
                  "12.345 hours left",
                  true);
    assert_int_equal(c.n, 80);
    assert_float_equal(c.step_s, 2.848, 1e-9);
    assert_true(c.span);
    assert_false(gw_counter_line("Loaded: 0.000024 seconds", &c));
    bool span;
    assert_true(isnan(gw_step_time_span("iter 5 | saved, took 5 seconds", &span)));
    c = read_line("[2018-11-24 15:54:56] Ep. 24 : Up. 201000 : Sen. 46900 : Cost 68.63 : Time "
                  "93.69s : 11027.58 words/s : L.r. 8.4641e-05",
                  true);
    assert_int_equal(c.n, 201000);
    assert_string_equal(c.shape, "Up. N");
    assert_float_equal(c.step_s, 93.69, 1e-9);
    assert_true(c.span);
    c = read_line("[2018-11-24 16:07:29] [valid] Ep. 24 : Up. 205000 : cross-entropy : 46.4642",
                  true);
    assert_int_equal(c.kind, GW_LINE_EVAL);
    read_line("[2018-11-24 15:48:18] [config] mini-batch-fit-step: 10", false);
    c = read_line("DEEPMD INFO    batch    1000 training time 9.93 s, testing time 0.04 s", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 1000);
    assert_float_equal(c.step_s, 9.93, 1e-9);
    assert_true(c.span);
    /* a step's own time is no span: TF Object Detection's per-step time */
    c = read_line("Step 200 per-step time 0.831s loss=1.192", true);
    assert_float_equal(c.step_s, 0.831, 1e-9);
    assert_false(c.span);
    read_line("Will train until eval-rmse hasn't improved in 100 rounds.", false);
    read_line(
        "Multiple eval metrics have been passed: 'eval-rmse' will be used for early stopping.",
        false);
}

/* Tenth set: PaddleNLP's `speed: 20.07 step/s`; each first time after a pause in an epoch that
 * held two, more than twice the rest's median, is left out; Ignite's `Test Results - ...` after
 * `Validation Results - ...` at the end is after-training work, a test after each validation
 * amid training is that evaluation's. */
static void test_tenth_set_forms(void **state)
{
    (void)state;
    assert_float_equal(gw_step_time("global step 20, epoch: 1, batch: 20, loss: 0.32429, accu: "
                                    "0.70781, speed: 20.00 step/s"),
                       0.05, 1e-12);
    const double v[] = {0.1, 0.05, 0.8, 0.05, 0.04, 0.06};
    const bool pv[] = {true, false, true, false, false, false};
    assert_float_equal(gw_timeline_step_median_of(v, pv, 6), 0.05, 1e-12);
    const bool none[] = {false, false, false, false, false, false};
    assert_float_equal(gw_timeline_step_median_of(v, none, 6), 0.055, 1e-12);

    for (int amid = 0; amid < 2; amid++) {
        gw_timeline *tl = gw_timeline_new();
        gw_timeline_add(tl, GW_PH_TRAIN, 0, 0, 0, 1, NAN, NULL, 1);
        gw_timeline_add(tl, GW_PH_TRAIN, 10, 125, 0, 1, NAN, NULL, 0);
        gw_timeline_add(tl, GW_PH_EVAL, 20, -1, 0, 0, NAN, "Validation", 10);
        if (amid)
            gw_timeline_add(tl, GW_PH_EVAL, 21, -1, 0, 0, NAN, "Test", 10);
        gw_timeline_add(tl, GW_PH_TRAIN, 30, 250, 0, 1, NAN, NULL, 0);
        gw_timeline_add(tl, GW_PH_EVAL, 40, -1, 0, 0, NAN, "Validation", 30);
        gw_timeline_add(tl, GW_PH_EVAL, 41, -1, 0, 0, NAN, "Test", 30);
        gw_phase_span *ph;
        size_t n = gw_timeline_finish(tl, 50, false, &ph);
        assert_int_equal(n, amid ? 4 : 5);
        assert_int_equal(ph[3].kind, GW_PH_EVAL);
        if (!amid)
            assert_int_equal(ph[4].kind, GW_PH_AFTER);
        free(ph);
        gw_timeline_free(tl);
    }
}

/* Chainer's ProgressBar status line puts each count before its word: the step counter, the
 * running epoch (0-based) and the run's length, in epochs or in iterations; its rate on the line
 * after, `inf` (no time yet) none. */
static void test_counts_before_words(void **state)
{
    (void)state;
    gw_counter c = read_line("       100 iter, 0 epoch / 20 epochs", true);
    assert_int_equal(c.n, 100);
    assert_int_equal(c.total, -1);
    assert_int_equal(c.epoch, 0);
    assert_int_equal(c.epoch_total, 20);
    assert_string_equal(c.shape, "N iter, E epoch / T");
    c = read_line("100 iter, 0 epoch / 500 iterations", true);
    assert_int_equal(c.total, 500);
    assert_int_equal(c.epoch_total, -1);
    read_line("     total [####..........................................]  6.40%", false);
    read_line("this epoch [######################################....]  79.97%", false);
    read_line("100 iterations of warm-up, 2 epochs / 3 done", false);
    assert_float_equal(gw_step_time_alone("    113.72 iters/sec. Estimated time to finish: "
                                          "0:01:30."),
                       1 / 113.72, 1e-12);
    assert_true(
        isnan(gw_step_time_alone("       inf iters/sec. Estimated time to finish: 0:00:00.")));
}

/* A JSON object or dict that keys the step is a metrics line; a configuration's is none */
static void test_json_keys(void **state)
{
    (void)state;
    gw_counter c = read_line("{\"epoch\": 2, \"step\": 40, \"loss\": 2.31, \"lr\": 0.001}", true);
    assert_int_equal(c.kind, GW_LINE_TRAIN);
    assert_int_equal(c.n, 40);
    assert_int_equal(c.epoch, 2);
    assert_string_equal(c.shape, "epoch E, step N");
    c = read_line("{'train/global_step': 120, 'train/loss': 1.5}", true);
    assert_int_equal(c.n, 120);
    assert_string_equal(c.shape, "global_step N");
    /* settings: a plural or prefixed key is no counter, an object without a step key is none */
    read_line("{'max_steps': 1000, 'eval_steps': 500, 'save_steps': 500}", false);
    read_line("{\"lr\": 0.001, \"batch_size\": 32, \"epochs\": 100}", false);
    read_line("{\"stepsize\": 3, \"iters_per_epoch\": 100}", false);
}

/* a step word's dt (minGPT's `iter_dt 18.60ms; iter 100: train loss 0.2`); another word's none */
static void test_named_dt(void **state)
{
    (void)state;
    assert_float_equal(gw_step_time("iter_dt 18.60ms; iter 100: train loss 0.2"), 0.0186, 1e-12);
    assert_true(isnan(gw_step_time("valid_dt 3s")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iteration_counters),
        cmocka_unit_test(test_epoch_tags),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_held_out_forms),
        cmocka_unit_test(test_second_held_out_forms),
        cmocka_unit_test(test_leading_counter),
        cmocka_unit_test(test_line_on_a_cut_bar),
        cmocka_unit_test(test_save_verb_and_unit_times),
        cmocka_unit_test(test_timeline_stride_and_repeats),
        cmocka_unit_test(test_glued_numbers),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_two_counters_by_label),
        cmocka_unit_test(test_eighth_set_forms),
        cmocka_unit_test(test_timeline_place_and_base),
        cmocka_unit_test(test_ninth_set_forms),
        cmocka_unit_test(test_paused_time_and_new_loop),
        cmocka_unit_test(test_tenth_set_forms),
        cmocka_unit_test(test_eleventh_twelfth_forms),
        cmocka_unit_test(test_counts_before_words),
        cmocka_unit_test(test_json_keys),
        cmocka_unit_test(test_named_dt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The job's own phases from its output (logread/progress.h): fixtures written from how each
 * trainer prints (tqdm's meter, YOLOv9 train_dual.py / val_dual.py, ultralytics, Lightning,
 * Hugging Face Trainer, timm train.py, Keras' progbar), fed with chosen times, exact figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress_fixture.h"

/* YOLOv9 train_dual.py: header, a bar first drawn without description, then "0/2  5.12G ..." as
 * its first column (0-based, inclusive total), bar format "| n/total elapsed"; val_dual.py's
 * "Class Images ..." bar; after the last epoch a final evaluation that is no epoch's. */
static void test_yolov9(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"},
        {100, "  0%|          | 0/4 00:00"},
        {200, "        0/2      5.12G      1.234      2.345      1.111         45        640:   "
              "0%|          | 0/4 00:00"},
        {1000, "        0/2      5.12G      1.234      2.345      1.111         45        640:  "
               "50%|" BAR "| 2/4 00:04"},
        {2000, "        0/2      5.12G      1.234      2.345      1.111         45        640: "
               "100%|" FULL "| 4/4 00:08"},
        {2100, "                 Class     Images  Instances          P          R      mAP50   "
               "mAP50-95:   0%|          | 0/2 00:00"},
        {3100, "                 Class     Images  Instances          P          R      mAP50   "
               "mAP50-95: 100%|" FULL "| 2/2 00:03"},
        {3200, "                   all        100        200      0.512      0.433      0.41    "
               "  0.25"},
        {4000, "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"},
        {4100, "  0%|          | 0/4 00:00"},
        {4200, "        1/2      5.12G      1.1      2.1      1.0         45        640: 100%|" FULL
               "| 4/4 00:04"},
        {4300, "                 Class     Images  Instances          P          R      mAP50   "
               "mAP50-95: 100%|" FULL "| 2/2 00:02"},
        {5000, "  0%|          | 0/4 00:00"},
        {5100, "        2/2      5.12G      1.0      2.0      0.9         45        640: 100%|" FULL
               "| 4/4 00:02"},
        {5200, "                 Class     Images  Instances          P          R      mAP50   "
               "mAP50-95: 100%|" FULL "| 2/2 00:01"},
        {5300, "3 epochs completed in 0.002 hours."},
        {5350, "                 Class     Images  Instances          P          R      mAP50   "
               "mAP50-95:   0%|          | 0/2 00:00"},
        {5400, "                 Class     Images  Instances          P          R      mAP50   "
               "mAP50-95: 100%|" FULL "| 2/2 00:05"},
        {6000, "Results saved to runs/train/exp"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 3);
    expect(&e[0], 1, 3, 100, 4100, 3.0, 4, 0.5);
    assert_int_equal(e[0].train_end_ms, 2000);
    assert_int_equal(e[0].val_start_ms, 2100);
    assert_int_equal(e[0].val_end_ms, 3100);
    expect(&e[1], 2, 3, 4100, 5000, 2.0, 4, 1.0);
    expect(&e[2], 3, 3, 5000, 5200, 1.0, 4, 2.0); /* not the final evaluation's 5 s */
    free(e);
}

/* ultralytics: 1-based "1/3" rows under the header, tqdm's "[elapsed<remaining, rate]", its
 * "Box(P R mAP50 mAP50-95)" validation bar, and the early-stopping line. */
static void test_ultralytics(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"},
        {0, "        1/3      2.1G      1.234      2.345      1.111         45        640:   "
            "0%|          | 0/8 [00:00<?, ?it/s]"},
        {4000, "        1/3      2.1G      1.234      2.345      1.111         45        640: "
               "100%|" FULL "| 8/8 [00:04<00:00,  2.00it/s]"},
        {4100, "                 Class     Images  Instances      Box(P          R      mAP50  "
               "mAP50-95): 100%|" FULL "| 2/2 [00:01<00:00,  2.00it/s]"},
        {5000, "        2/3      2.1G      1.2      2.3      1.1         45        640: 100%|" FULL
               "| 8/8 [00:02<00:00,  4.00it/s]"},
        {5100, "                 Class     Images  Instances      Box(P          R      mAP50  "
               "mAP50-95): 100%|" FULL "| 2/2 [00:01<00:00,  2.00it/s]"},
        {6000, "        3/3      2.1G      1.2      2.3      1.1         45        640: 100%|" FULL
               "| 8/8 [00:04<00:00,  2.00it/s]"},
        {6100, "                 Class     Images  Instances      Box(P          R      mAP50  "
               "mAP50-95): 100%|" FULL "| 2/2 [00:02<00:00,  1.00it/s]"},
        {6200, "Stopping training early as no improvement observed in last 2 epochs. Best results "
               "observed at epoch 1, best model saved as best.pt."},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 3);
    expect(&e[0], 1, 3, 0, 5000, 1.0, 8, 2.0);
    expect(&e[1], 2, 3, 5000, 6000, 1.0, 8, 4.0);
    expect(&e[2], 3, 3, 6000, 6100, 2.0, 8, 2.0);
    free(e);
}

/* Lightning: a sanity check before training, "Epoch 0:" bars (0-based, reset each epoch) whose
 * elapsed goes on during validation, "Validation DataLoader 0" bars. */
static void test_lightning(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "Sanity Checking DataLoader 0: 100%|" FULL "| 2/2 [00:00<00:00, 10.00it/s]"},
        {100, "Epoch 0:   0%|          | 0/10 [00:00<?, ?it/s]"},
        {2100, "Epoch 0:  50%|" BAR "| 5/10 [00:02<00:02,  2.50it/s, v_num=0]"},
        {4100, "Epoch 0: 100%|" FULL "| 10/10 [00:04<00:00,  2.50it/s, v_num=0]"},
        {4200, "Validation DataLoader 0: 100%|" FULL "| 3/3 [00:01<00:00,  3.00it/s]"},
        {5100, "Epoch 0: 100%|" FULL "| 10/10 [00:05<00:00,  2.00it/s, v_num=0, val_loss=0.5]"},
        {5200, "Epoch 1:   0%|          | 0/10 [00:00<?, ?it/s, v_num=0, val_loss=0.5]"},
        {7200, "Epoch 1: 100%|" FULL "| 10/10 [00:02<00:00,  5.00it/s, v_num=0, val_loss=0.5]"},
        {7300, "Validation DataLoader 0: 100%|" FULL "| 3/3 [00:02<00:00,  1.50it/s]"},
        {9300, "Epoch 1: 100%|" FULL "| 10/10 [00:04<00:00,  2.50it/s, v_num=0, val_loss=0.4]"},
        {9400, "`Trainer.fit` stopped: `max_epochs=2` reached."},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 2);
    expect(&e[0], 1, -1, 100, 5200, 1.0, 10, 2.5);
    expect(&e[1], 2, -1, 5200, 9300, 2.0, 10, 5.0);
    free(e);
}

/* Hugging Face Trainer: one bar over all 30 steps, an evaluation bar of another total after each
 * epoch, log dicts with 'epoch'. The bar's clock runs on through evaluation. */
static void test_hf_trainer(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "  0%|          | 0/30 [00:00<?, ?it/s]"},
        {5000, " 17%|" BAR "| 5/30 [00:05<00:25,  1.00it/s]"},
        {5001, "{'loss': 0.6931, 'grad_norm': 1.25, 'learning_rate': 4.5e-05, 'epoch': 0.5}"},
        {10000, " 33%|" BAR "| 10/30 [00:10<00:20,  1.00it/s]"},
        {10000, "  0%|          | 0/5 [00:00<?, ?it/s]"},
        {12000, "100%|" FULL "| 5/5 [00:02<00:00,  2.50it/s]"},
        {12000, "{'eval_loss': 0.52, 'eval_runtime': 2.0, 'eval_samples_per_second': 20.0, "
                "'eval_steps_per_second': 2.5, 'epoch': 1.0}"},
        {13000, " 37%|" BAR "| 11/30 [00:13<00:21,  0.90it/s]"},
        {22000, " 67%|" BAR "| 20/30 [00:22<00:11,  1.00it/s]"},
        {22000, "  0%|          | 0/5 [00:00<?, ?it/s]"},
        {24000, "100%|" FULL "| 5/5 [00:02<00:00,  2.50it/s]"},
        {24000, "{'eval_loss': 0.41, 'eval_runtime': 2.0, 'epoch': 2.0}"},
        {25000, " 70%|" BAR "| 21/30 [00:25<00:10,  0.90it/s]"},
        {34000, "100%|" FULL "| 30/30 [00:34<00:00,  1.00it/s]"},
        {34000, "  0%|          | 0/5 [00:00<?, ?it/s]"},
        {36000, "100%|" FULL "| 5/5 [00:02<00:00,  2.50it/s]"},
        {36000, "{'eval_loss': 0.38, 'eval_runtime': 2.0, 'epoch': 3.0}"},
        {36002, "{'train_runtime': 36.0, 'train_samples_per_second': 6.6, "
                "'train_steps_per_second': 0.83, 'train_loss': 0.5, 'epoch': 3.0}"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 3);
    expect(&e[0], 1, 3, 0, 13000, 2.0, 10, 1.0);
    expect(&e[1], 2, 3, 13000, 25000, 2.0, 10, 1.0);
    expect(&e[2], 3, 3, 25000, 36000, 2.0, 10, 1.0);
    free(e);
}

/* timm train.py: "Train: E [idx/updates (pct)]" lines (0-based epoch, 0-based batch index),
 * "Test: [idx/last]" lines; no bar clock: wall times of the lines. */
static void test_timm(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "Train: 0 [   0/100 (  1%)]  Loss: 6.91 (6.91)  Time: 1.000s,  256.00/s  (1.000s,  "
            "256.00/s)  LR: 1.000e-05  Data: 0.5 (0.5)"},
        {5000, "Train: 0 [  50/100 ( 51%)]  Loss: 6.50 (6.70)  Time: 0.100s, 2560.00/s  (0.110s, "
               "2327.27/s)  LR: 1.000e-05  Data: 0.01 (0.02)"},
        {9900, "Train: 0 [  99/100 (100%)]  Loss: 6.20 (6.50)  Time: 0.100s, 2560.00/s  (0.100s, "
               "2560.00/s)  LR: 1.000e-05  Data: 0.01 (0.02)"},
        {10000, "Test: [   0/9]  Time: 0.500 (0.500)  Loss:  6.0 ( 6.0)  Acc@1:  1.0 (  1.0)"},
        {11500, "Test: [   9/9]  Time: 0.100 (0.150)  Loss:  6.0 ( 6.0)  Acc@1:  1.0 (  1.0)"},
        {11600, "Current checkpoints:"},
        {11601, " ('./output/train/checkpoint-0.pth.tar', 1.0)"},
        {12000, "Train: 1 [   0/100 (  1%)]  Loss: 6.00 (6.00)  Time: 0.200s,  1280.00/s"},
        {16950, "Train: 1 [  99/100 (100%)]  Loss: 5.00 (5.50)  Time: 0.050s,  5120.00/s"},
        {17000, "Test: [   0/9]  Time: 0.500 (0.500)  Loss:  5.0 ( 5.0)"},
        {18000, "Test: [   9/9]  Time: 0.100 (0.150)  Loss:  5.0 ( 5.0)"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 2);
    /* batch index 0..99 is steps 1..100: 99 steps in 9.9 s */
    expect(&e[0], 1, -1, 0, 12000, 1.5, 100, 10.0);
    expect(&e[1], 2, -1, 12000, 18000, 1.0, 100, 20.0);
    free(e);
}

/* Keras 3: "Epoch 1/2" lines, then progbars "n/50 ━━━ ETA s/step - metrics" whose last draw,
 * after validation, adds val_ metrics. */
static void test_keras(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "Epoch 1/2"},
        {100, " 1/50 " KBAR " 10s 200ms/step - accuracy: 0.1000 - loss: 2.3026"},
        {2600, "25/50 " KBAR " 2s 100ms/step - accuracy: 0.5000 - loss: 1.5"},
        {5000, "50/50 " KBAR " 0s 100ms/step - accuracy: 0.8000 - loss: 0.6"},
        {6000, "50/50 " KBAR " 6s 100ms/step - accuracy: 0.8000 - loss: 0.6 - val_accuracy: "
               "0.7000 - val_loss: 0.7"},
        {6000, "Epoch 2/2"},
        {6100, " 1/50 " KBAR " 5s 100ms/step - accuracy: 0.8000 - loss: 0.5"},
        {8500, "50/50 " KBAR " 0s 50ms/step - accuracy: 0.9000 - loss: 0.3"},
        {9000, "50/50 " KBAR " 3s 50ms/step - accuracy: 0.9000 - loss: 0.3 - val_accuracy: "
               "0.8000 - val_loss: 0.4"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 2);
    expect(&e[0], 1, 2, 0, 6000, 1.0, 50, 10.0);
    expect(&e[1], 2, 2, 6000, 9000, 0.5, 50, 20.0);
    free(e);
}

/* Lines that mention an epoch make none; the default's forms still do. */
static void test_mentions(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "Epoch 1/10"},
        {1, "Best results observed at epoch 57, best model saved as best.pt."},
        {2, "saving checkpoint epoch_3.pt"},
        {3, "Saving checkpoint to ckpt/epoch3.pt"},
        {4, "Saving model checkpoint epoch 4"},
        {5, "resuming from epoch 7"},
        {6, "loaded weights of epoch 8/10"},
        {7, "Train Epoch: 2 [0/60000 (0%)]\tLoss: 2.3"},
        {8, "epoch=3 step=10 loss=0.5"},
    };
    gw_progress *p = gw_progress_new(NULL);
    size_t starts;
    size_t n = feed(p, l, sizeof l / sizeof *l, &starts);
    gw_progress_free(p);
    assert_int_equal(starts, 3);
    assert_int_equal(n, 3);
}

/* Lines that report an epoch's end, with no step printed (MST's "===> Epoch 49 Complete", NCRF++'s
 * "Epoch: 0 training finished"): the epoch began where the work before it ended (the last
 * evaluation or save line; the first epoch at the first line), and the evaluation after the line
 * is its own. A line that sums up the whole epoch ("Epoch 2 took 4.0 s") began at the epoch
 * line before it. */
static void test_epoch_end_lines(void **state)
{
    (void)state;
    assert_int_equal(gw_epoch_line_ends("===> Epoch 49 Complete: Avg. Loss: 0.018"),
                     GW_EPOCH_TRAINED);
    assert_int_equal(gw_epoch_line_ends("Epoch: 0 training finished. Time: 312.97s"),
                     GW_EPOCH_TRAINED);
    assert_int_equal(gw_epoch_line_ends("Epoch 1 cost time: 273 second"), GW_EPOCH_OVER);
    assert_int_equal(gw_epoch_line_ends("Epoch 3/10"), GW_EPOCH_STARTS);
    assert_int_equal(gw_epoch_line_ends("Epoch 3 [10/20] done 5"), GW_EPOCH_STARTS);
    assert_int_equal(gw_epoch_line_ends("no epoch here, done"), GW_EPOCH_STARTS);
    static const line mst[] = {
        {0, "===> Epoch 1 Complete: Avg. Loss: 0.018209 time: 676.82"},
        {500, "===> Epoch 1: testing psnr = 33.15, ssim = 0.918, time: 0.02"},
        {600, "Checkpoint saved to ./model/model_epoch_1.pth"},
        {10000, "===> Epoch 2 Complete: Avg. Loss: 0.018250 time: 675.18"},
        {10400, "===> Epoch 2: testing psnr = 33.29, ssim = 0.923, time: 0.02"},
        {20000, "===> Epoch 3 Complete: Avg. Loss: 0.016923 time: 674.62"},
        {20300, "===> Epoch 3: testing psnr = 33.60, ssim = 0.926, time: 0.02"},
    };
    size_t n;
    gw_progress_epoch *e = run(mst, sizeof mst / sizeof *mst, &n);
    assert_int_equal(n, 3);
    expect(&e[0], 1, -1, 0, 600, 0.5, -1, NAN);
    expect(&e[1], 2, -1, 600, 10400, 0.4, -1, NAN);
    expect(&e[2], 3, -1, 10400, 20300, 0.3, -1, NAN);
    free(e);
    static const line ncrf[] = {
        {0, "     Instance: 500; Time: 5.24s; loss: 395.6849; acc: 45476/54430=0.8355"},
        {3000, "Epoch: 0 training finished. Time: 312.97s, speed: 16.36st/s"},
        {3500, "Dev: time: 9.23s, speed: 278.56st/s; acc: 0.8978, f: -1.0000"},
        {3600, "Save current best model in file: ../models/ncrfpp_model.0.model"},
        {4000, "Test: time: 9.31s, speed: 276.26st/s; acc: 0.9007, f: 0.0005"},
        {4100, "Epoch: 1/10"},
        {7000, "     Instance: 500; Time: 5.24s; loss: 395.6849; acc: 45476/54430=0.8355"},
    };
    e = run(ncrf, sizeof ncrf / sizeof *ncrf, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].number, 1);
    assert_int_equal(e[0].start_ms, 0);
    assert_int_equal(e[1].number, 2);
    assert_int_equal(e[1].total, 10);
    assert_int_equal(e[1].start_ms, 4100);
    free(e);
    static const line took[] = {
        {0, "loading data"},
        {5000, "Epoch 1 took 5.0 s"},
        {6000, "val_loss 0.3000"},
        {9000, "Epoch 2 took 4.0 s"},
    };
    e = run(took, sizeof took / sizeof *took, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].start_ms, 0);
    assert_int_equal(e[1].start_ms, 5000);
    assert_int_equal(e[1].end_ms, 9000); /* the line that sums it up ends it */
    free(e);
    /* NeuralNLP-NeuralClassifier: the evaluation lines come before the line that sums the epoch
     * up, and before any epoch line: they are epoch 1's; it ends at its line, and epoch 2's
     * result lines after it (only "at epoch 2" mentions) are none of epoch 1's */
    static const line cost[] = {
        {0, "Size of doc_label dict is 100"},
        {4000, "Train performance at epoch 1 is precision: 0.1, recall: 0.2"},
        {4500, "Validate performance at epoch 1 is precision: 0.1, recall: 0.2"},
        {4800, "test performance at epoch 1 is precision: 0.1, recall: 0.2"},
        {5000, "Epoch 1 cost time: 273 second"},
        {9000, "Train performance at epoch 2 is precision: 0.1, recall: 0.2"},
        {9500, "Validate performance at epoch 2 is precision: 0.1, recall: 0.2"},
    };
    e = run(cost, sizeof cost / sizeof *cost, &n);
    assert_int_equal(n, 1);
    expect(&e[0], 1, -1, 0, 5000, 0.3, -1, NAN);
    free(e);
}

/* A user's expression replaces the built-in understanding of epochs; bars still give steps. */
static void test_user_regex(void **state)
{
    (void)state;
    gw_epoch_matcher *m = NULL;
    gw_error err;
    assert_int_equal(gw_epoch_matcher_new("^round ([0-9]+)", &m, &err), GW_OK);
    gw_progress *p = gw_progress_new(m);
    long e = -7, t = -7;
    assert_false(gw_progress_feed(p, "Epoch 1/3", 0, &e, &t));
    assert_true(gw_progress_feed(p, "round 1", 10, &e, &t));
    assert_int_equal(e, 1);
    assert_int_equal(t, -1);
    assert_false(gw_progress_feed(p, "        0/2      5.12G   640: 100%|" FULL "| 4/4 00:02", 2010,
                                  &e, &t));
    assert_true(gw_progress_feed(p, "round 2", 3000, &e, &t));
    gw_progress_epoch *ep = NULL;
    assert_int_equal(gw_progress_finish(p, &ep), 2);
    expect(&ep[0], 1, -1, 10, 3000, 0.99, 4, 2.0);
    free(ep);
    gw_progress_free(p);
    gw_epoch_matcher_free(m);
}

/* A real YOLOv9 epoch on an H200: the bar's clock prints whole seconds ("38/38 00:20", "2/2
 * 00:00"); the wall time of its draws agrees with it and is finer, so it is taken. */
static void test_wall_refines_the_clock(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "  0%|          | 0/38 00:00"},
        {6030, "        0/2      34.8G      4.9      5.3      5.5        140        640:   "
               "0%|          | 0/38 00:06"},
        {20430,
         "        0/2      34.8G      4.5      5.2      5.4        122        640: 100%|" FULL
         "| 38/38 00:20"},
        {20500, "                 Class     Images  Instances          P          R      mAP50   "
                "mAP50-95:   0%|          | 0/2 00:00"},
        {21300, "                 Class     Images  Instances          P          R      mAP50   "
                "mAP50-95: 100%|" FULL "| 2/2 00:00"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 1);
    expect(&e[0], 1, 3, 0, 21300, 0.8, 38, 38 / 20.43);
    free(e);
}

/* The step-rate series: steps per second between kept draws of the training bar. */
static void test_rates(void **state)
{
    (void)state;
    /* the bar's close redraws its count (no point); the next epoch's bar starts a gap */
    static const line l[] = {
        {0, "Epoch 0:   0%|          | 0/10 [00:00<?, ?it/s]"},
        {2000, "Epoch 0:  50%|" BAR "| 4/10 [00:02<00:03,  2.00it/s]"},
        {4000, "Epoch 0: 100%|" FULL "| 10/10 [00:04<00:00,  2.50it/s]"},
        {4100, "Epoch 0: 100%|" FULL "| 10/10 [00:04<00:00,  2.50it/s]"},
        {5000, "Epoch 1:   0%|          | 0/10 [00:00<?, ?it/s]"},
        {6000, "Epoch 1:  50%|" BAR "| 5/10 [00:01<00:01,  5.00it/s]"},
    };
    gw_progress *p = gw_progress_new(NULL);
    for (size_t i = 0; i < sizeof l / sizeof *l; i++)
        gw_progress_feed(p, l[i].text, l[i].t_ms, NULL, NULL);
    gw_progress_epoch *e = NULL;
    assert_int_equal(gw_progress_finish(p, &e), 2);
    free(e);
    gw_progress_rate *r = NULL;
    assert_int_equal(gw_progress_rates(p, &r), 4);
    assert_int_equal(r[0].t_ms, 2000);
    assert_float_equal(r[0].steps_per_s, 2.0, 1e-9);
    assert_float_equal(r[1].steps_per_s, 3.0, 1e-9);
    assert_int_equal(r[2].t_ms, 5000);
    assert_true(isnan(r[2].steps_per_s));
    assert_float_equal(r[3].steps_per_s, 5.0, 1e-9);
    free(r);
    gw_progress_free(p);
}

/* DGL's GraphSAGE example (tests/data/trainer-logs/dgl-graphsage.log), as a loaded machine reads
 * it: the first epoch's lines and the second's first line in one read, so at one time. Each
 * epoch's counters are in view (0 and 20: 21 steps); the second epoch's first line, not the time,
 * parts them. Likewise two Lightning bars drawn in one read. */
static void test_one_read_two_epochs(void **state)
{
    (void)state;
#define DGL(e, s)                                                                                  \
    "Epoch 0000" #e " | Step 000" #s " | Loss 2.6650 | Train Acc 0.3400 | GPU 401.2 MB"
    static const line l[] = {
        {1000, DGL(0, 00)}, {1000, DGL(0, 20)}, {1000, "Epoch Time(s): 8.7072"},
        {1000, DGL(1, 00)}, {1500, DGL(1, 20)}, {1600, "Epoch Time(s): 7.2513"},
        {1700, DGL(2, 00)}, {2200, DGL(2, 20)}, {2300, "Epoch Time(s): 7.1966"},
    };
#undef DGL
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(e[i].number, (long)i + 1);
        assert_int_equal(e[i].steps, 21);
    }
    assert_int_equal(e[0].start_ms, 1000);
    assert_int_equal(e[1].start_ms, 1000);
    assert_true(isnan(e[0].steps_per_s)); /* all its draws at one time: no rate */
    assert_float_equal(e[1].steps_per_s, 20 / 0.5, 1e-9);
    free(e);
    static const line b[] = {
        {0, "Epoch 0:   0%|          | 0/10 [00:00<?, ?it/s]"},
        {3000, "Epoch 0: 100%|" FULL "| 10/10 [00:03<00:00,  3.33it/s]"},
        {3000, "Epoch 1:   0%|          | 0/10 [00:00<?, ?it/s]"},
        {3000, "Epoch 1:  40%|" BAR "| 4/10 [00:00<00:01,  5.00it/s]"},
        {5000, "Epoch 1: 100%|" FULL "| 10/10 [00:02<00:00,  5.00it/s]"},
    };
    e = run(b, sizeof b / sizeof *b, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].steps, 10);
    assert_int_equal(e[1].steps, 10);
    free(e);
}

/* The phases of a line list (kinds and training steps), for the eighth held-out set's forms. */

/* Times printed since the counter's last line (issue 23's eleventh and twelfth blind sets):
 * DeePMD's `training time` per 200 batches is per step over the counter's advance (its first
 * line, 200 from an unseen start, gives none); Darknet's seconds field with a stride of 1 is the
 * step's own; an elapsed clock (never down, doubled) is per step by its advance. */
static void test_time_since_last_line(void **state)
{
    (void)state;
    static const line deepmd[] = {
        {0, "DEEPMD INFO    batch     200 training time 11.42 s, testing time 0.24 s"},
        {100, "DEEPMD INFO    batch     400 training time 9.99 s, testing time 0.04 s"},
        {200, "DEEPMD INFO    batch     600 training time 9.90 s, testing time 0.04 s"},
        {300, "DEEPMD INFO    batch     800 training time 9.94 s, testing time 0.04 s"},
        {400, "DEEPMD INFO    saved checkpoint model.ckpt"},
        {500, "DEEPMD INFO    batch    1000 training time 9.93 s, testing time 0.04 s"},
    };
    gw_phase_span *ph;
    size_t n = phases(deepmd, sizeof deepmd / sizeof *deepmd, &ph);
    assert_int_equal(n, 3);
    assert_int_equal(ph[0].kind, GW_PH_TRAIN);
    assert_int_equal(ph[1].kind, GW_PH_SAVE);
    assert_float_equal(ph[0].steps_per_s, 200 / 9.94, 1e-9); /* median of 9.99, 9.90, 9.94 */
    free(ph);
    static const line darknet[] = {
        {0, " 1: 4173.809082, 4173.809082 avg loss, 0.000000 rate, 12.090222 seconds, 32 images"},
        {100, " 2: 4149.802734, 4171.408203 avg loss, 0.000000 rate, 11.797990 seconds, 64 images"},
        {200, " 3: 4226.664062, 4176.933594 avg loss, 0.000000 rate, 12.455998 seconds, 96 images"},
    };
    n = phases(darknet, sizeof darknet / sizeof *darknet, &ph);
    assert_int_equal(n, 1);
    assert_int_equal(ph[0].steps, 3);
    assert_float_equal(ph[0].steps_per_s, 1 / 12.090222, 1e-9);
    free(ph);
    static const line clock[] = {
        {0, "iter 10 | loss 2.5 | 5.0 seconds |"},    {100, "iter 20 | loss 2.4 | 10.0 seconds |"},
        {200, "iter 30 | loss 2.3 | 15.0 seconds |"}, {300, "iter 40 | loss 2.2 | 20.0 seconds |"},
        {400, "iter 50 | loss 2.1 | 25.0 seconds |"},
    };
    n = phases(clock, sizeof clock / sizeof *clock, &ph);
    assert_int_equal(n, 1);
    assert_float_equal(ph[0].steps_per_s, 2.0, 1e-9); /* 5 s per 10 iterations once it doubled */
    free(ph);
}

/* gaussian-splatting's pasted final states: a bar made in this run (start-up lines before it, its
 * clock running) counts its 7000 steps; the bar after a checkpoint save's line is training, not
 * an upload's; its last save is the loop's (saves ran amid training). Without the start-up lines
 * (an output that begins with the bar) its first draw counts none. */
static void test_bar_after_startup_and_save(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "Loading Test Cameras [11/07 13:56:52]"},
        {100, "Training progress:  23%|" BAR "| 7000/30000 [01:45<04:24, 86.86it/s, Loss=0.21]"},
        {200, "[ITER 7000] Evaluating train: L1 0.2186211347579956 PSNR 12.067031860351562"},
        {300, "[ITER 7000] Saving Gaussians [11/07 13:58:39]"},
        {400, "Training progress: 100%|" FULL "| 30000/30000 [06:19<00:00, 78.99it/s, Loss=0.23]"},
        {500, "[ITER 30000] Saving Gaussians [11/07 14:03:11]"},
        {600, "Training complete. [11/07 14:03:13]"},
    };
    gw_phase_span *ph;
    size_t n = phases(l, sizeof l / sizeof *l, &ph);
    assert_int_equal(n, 5);
    static const gw_phase_kind kinds[] = {GW_PH_TRAIN, GW_PH_EVAL, GW_PH_SAVE, GW_PH_TRAIN,
                                          GW_PH_SAVE};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ph[i].kind, kinds[i]);
    assert_int_equal(ph[0].steps, 7000);
    assert_int_equal(ph[3].steps, 23000);
    free(ph);
    n = phases(l + 1, sizeof l / sizeof *l - 1, &ph);
    assert_int_equal(ph[0].steps, 0);
    assert_int_equal(ph[3].steps, 23000);
    free(ph);
}

/* kohya sd-scripts: "epoch 11/50" lines, each followed by the one bar over all 800 steps: the
 * first epoch seen counts its share (16), not the bar's 176. */
static void test_one_bar_over_all_epochs(void **state)
{
    (void)state;
    static const line l[] = {
        {0, "epoch 11/50"},
        {100, "steps:  22%|" BAR "| 176/800 [00:46<02:44,  3.79it/s, avr_loss=0]"},
        {200, "epoch 12/50"},
        {300, "steps:  24%|" BAR "| 192/800 [00:50<02:39,  3.80it/s, avr_loss=0]"},
    };
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].number, 11);
    assert_int_equal(e[0].total, 50);
    assert_int_equal(e[0].steps, 16);
    assert_float_equal(e[0].steps_per_s, 176 / 46.0, 1e-9);
    assert_int_equal(e[1].steps, 16);
    free(e);
    gw_phase_span *ph;
    assert_int_equal(phases(l, sizeof l / sizeof *l, &ph), 1);
    assert_int_equal(ph[0].steps, 32);
    free(ph);
}

/* Two counters told apart by their advance: TFLearn's lines with the samples counter read first
 * (+64 a step) and the step counter (+1 a line) after it: the steps count, 3 of them after the
 * first (8, the first line of a counter past 1, counts none), the samples none. */
static void test_counter_by_advance(void **state)
{
    (void)state;
#define SAMPLES(k) "| Adam | epoch: 001 | loss: 2.03040 - acc: 0.2720 -- iter: 00" #k "/55000"
#define STEP(k)    "Training Step: " #k "  | total loss: 2.03040 | time: 0.275s"
    static const line l[] = {
        {0, SAMPLES(512)},  {10, STEP(8)},  {20, SAMPLES(576)}, {30, STEP(9)},
        {40, SAMPLES(640)}, {50, STEP(10)}, {60, SAMPLES(704)}, {70, STEP(11)},
    };
#undef SAMPLES
#undef STEP
    size_t n;
    gw_progress_epoch *e = run(l, sizeof l / sizeof *l, &n);
    assert_int_equal(n, 1);
    assert_int_equal(e[0].steps, 3);
    assert_float_equal(e[0].steps_per_s, 1 / 0.275, 1e-9);
    free(e);
    gw_phase_span *ph;
    assert_int_equal(phases(l, sizeof l / sizeof *l, &ph), 1);
    assert_int_equal(ph[0].steps, 3);
    free(ph);
}

/* The ninth, blind set: SpeechBrain's tqdm drawn without its bar (Colab), its second bar with
 * no description the evaluation; Time-Series-Library's `speed:` on a line of its own after the
 * counter's, its first after the save that ended the epoch before left out (it held the pause). */
static void test_ninth_set_bars_and_speed(void **state)
{
    (void)state;
    static const line sb[] = {
        {0, "speechbrain.utils.epoch_loop - Going into epoch 17"},
        {1000, "100% 2774/2774 [14:15<00:00,  3.24it/s, train_loss=3.3]"},
        {1100, "100% 736/736 [00:27<00:00, 27.20it/s]"},
        {1200, "speechbrain.utils.train_logger - Epoch: 17, lr: 5.03e-05 - train loss: 3.30 - "
               "valid loss: 4.13, valid error: 2.87e-01"},
        {1300, "speechbrain.utils.checkpoints - Saved an end-of-epoch checkpoint in "
               "results/save/CKPT+2021-08-15+12-54-11+00"},
        {1400, "speechbrain.utils.epoch_loop - Going into epoch 18"},
        {2400, "100% 2774/2774 [14:14<00:00,  3.24it/s, train_loss=3.16]"},
        {2500, "100% 736/736 [00:27<00:00, 27.16it/s]"},
    };
    size_t n;
    gw_progress_epoch *e = run(sb, sizeof sb / sizeof *sb, &n);
    assert_int_equal(n, 2);
    expect(&e[0], 17, -1, 0, 1400, 27.0, 2774, 2774.0 / 855.0);
    assert_int_equal(e[1].steps, 2774);
    free(e);
    gw_phase_span *ph;
    assert_int_equal(phases(sb, sizeof sb / sizeof *sb, &ph), 5);
    static const gw_phase_kind kinds[] = {GW_PH_TRAIN, GW_PH_EVAL, GW_PH_SAVE, GW_PH_TRAIN,
                                          GW_PH_EVAL};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(ph[i].kind, kinds[i]);
    free(ph);

    static const line ts[] = {
        {0, "Validation loss decreased (inf --> 0.723953).  Saving model ..."},
        {100, "\titers: 100, epoch: 2 | loss: 0.6173640"},
        {110, "\tspeed: 0.2044s/iter; left time: 1071.2935s"},
        {200, "\titers: 200, epoch: 2 | loss: 0.6137844"},
        {210, "\tspeed: 0.0867s/iter; left time: 445.8729s"},
        {300, "Epoch: 2, Steps: 281 | Train Loss: 0.6680108 Vali Loss: 0.6862536 Test Loss: "
              "0.3416217"},
        {310, "Validation loss decreased (0.723953 --> 0.686254).  Saving model ..."},
        {400, "\titers: 100, epoch: 3 | loss: 0.6730509"},
        {410, "\tspeed: 0.2076s/iter; left time: 1029.5066s"},
        {500, "\titers: 200, epoch: 3 | loss: 0.6434111"},
        {510, "\tspeed: 0.0866s/iter; left time: 420.6864s"},
    };
    e = run(ts, sizeof ts / sizeof *ts, &n);
    assert_int_equal(n, 2);
    assert_int_equal(e[0].number, 2);
    assert_int_equal(e[0].steps, 200);
    assert_float_equal(e[0].steps_per_s, 1 / 0.0867, 1e-9);
    assert_float_equal(e[1].steps_per_s, 1 / 0.0866, 1e-9);
    free(e);
    assert_int_equal(phases(ts, sizeof ts / sizeof *ts, &ph), 4);
    assert_int_equal(ph[1].kind, GW_PH_EVAL);
    assert_int_equal(ph[2].kind, GW_PH_SAVE);
    assert_float_equal(ph[0].steps_per_s, 1 / 0.0867, 1e-9);
    assert_float_equal(ph[3].steps_per_s, 1 / 0.0866, 1e-9);
    free(ph);
}

/* llama.cpp's finetune: its `iter= 0` line (loss 0, no `dt=`) is printed before the first
 * step, the later ones with their `dt=` after theirs: iterations 1..9 then the save are 9 steps
 * (a start-up `opt iter 0` before them counts none); a `0` line without a time when no line
 * prints one (the DCGAN example's) stays the index of the step just done. */
static void test_zero_printed_before_the_first_step(void **state)
{
    (void)state;
#define IT(k, dt) "train_opt_callback: iter=     " #k " sample=1/100 loss=2.5" dt " |->"
    static const line l[] = {
        {0, "main: opt iter 0"},
        {10, IT(0, "")},
        {20, IT(1, " dt=00:03:25 eta=14:34:59")},
        {30, IT(9, " dt=00:03:06 eta=13:00:00")},
        {40, "save_checkpoint_lora_file: saving to checkpoint-10.gguf"},
        {50, IT(10, " dt=00:03:05 eta=12:57:00")},
    };
#undef IT
    gw_phase_span *ph;
    assert_int_equal(phases(l, sizeof l / sizeof *l, &ph), 3);
    assert_int_equal(ph[0].steps, 9);
    assert_float_equal(ph[0].steps_per_s, 1 / 195.5, 1e-12); /* the median of 205 and 186 s */
    assert_int_equal(ph[1].kind, GW_PH_SAVE);
    assert_int_equal(ph[2].steps, 1);
    free(ph);
    static const line d[] = {
        {0, "[0/5][0/1583]\tLoss_D: 1.7136\tLoss_G: 5.0266"},
        {10, "[0/5][50/1583]\tLoss_D: 0.2416\tLoss_G: 7.6342"},
    };
    size_t n;
    gw_progress_epoch *e = run(d, sizeof d / sizeof *d, &n);
    assert_int_equal(n, 1);
    assert_int_equal(e[0].steps, 51);
    free(e);
}

/* DeepSpeed's engine prints `step=0, skipped=0, lr=[...]` at its set-up, the job's first counter
 * line with neither a loss nor a time per step: printed before the first step, so `step=10` is 10
 * steps; a first `0` line that names a loss (`iter 0: loss 4.2`) stays the index of the step
 * just done (`iter 10` is the 11th). */
static void test_zero_printed_at_set_up(void **state)
{
    (void)state;
#define DS(k) "[INFO] [logging.py:96:log_dist] [Rank 0] step=" #k ", skipped=0, lr=[0.0001]"
    static const line l[] = {
        {0, DS(0)},   {10, "[INFO] [config.py:960:print] DeepSpeedEngine configuration:"},
        {20, DS(10)}, {30, "Saved model to experiments/bert"},
        {40, DS(20)},
    };
#undef DS
    gw_phase_span *ph;
    assert_int_equal(phases(l, sizeof l / sizeof *l, &ph), 3);
    assert_int_equal(ph[0].steps, 10);
    assert_int_equal(ph[1].kind, GW_PH_SAVE);
    assert_int_equal(ph[2].steps, 10);
    free(ph);
    static const line n[] = {
        {0, "iter 0: loss 4.2000, lr 0.0006"},
        {10, "iter 10: loss 3.9000, lr 0.0006"},
    };
    assert_int_equal(phases(n, sizeof n / sizeof *n, &ph), 1);
    assert_int_equal(ph[0].steps, 11);
    free(ph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yolov9),
        cmocka_unit_test(test_ultralytics),
        cmocka_unit_test(test_lightning),
        cmocka_unit_test(test_hf_trainer),
        cmocka_unit_test(test_timm),
        cmocka_unit_test(test_keras),
        cmocka_unit_test(test_mentions),
        cmocka_unit_test(test_user_regex),
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_wall_refines_the_clock),
        cmocka_unit_test(test_epoch_end_lines),
        cmocka_unit_test(test_one_read_two_epochs),
        cmocka_unit_test(test_bar_after_startup_and_save),
        cmocka_unit_test(test_one_bar_over_all_epochs),
        cmocka_unit_test(test_counter_by_advance),
        cmocka_unit_test(test_ninth_set_bars_and_speed),
        cmocka_unit_test(test_zero_printed_before_the_first_step),
        cmocka_unit_test(test_zero_printed_at_set_up),
        cmocka_unit_test(test_time_since_last_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

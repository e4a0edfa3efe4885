/*
 * progress: what a training job's own output says about its phases — epochs, training steps and
 * their rate, validation — read line by line, with no flag (docs/epochs.md).
 *
 * Understands: tqdm and tqdm-like bars ("45%|####  | 45/100 [00:05<00:06, 8.8it/s]", "s/it",
 * YOLOv9's "| 38/38 00:17" without rate), YOLOv5/v7/v9 and ultralytics epoch columns ("0/2 5.1G
 * ..." as a bar's first column, 0- or 1-based), their "Class Images Instances" validation bar,
 * Lightning ("Epoch 3: ...%|" bars, "Validation DataLoader 0" bars), Hugging Face Trainer (one bar
 * over all steps, {'loss': .., 'epoch': 0.5} and {'eval_loss': .., 'epoch': 1.0} lines), timm
 * ("Train: 3 [ 100/1251 (  8%)]", "Test: [ 10/48]"), Keras ("Epoch 3/10" then "12/100 ━━━ 2s
 * 20ms/step" progbars), the lines of the default epoch matcher ("Epoch 3/100", "epoch=3", ...) and
 * any trainer's text counters, evaluation and save lines (logread/counter_line.h): epochs only
 * where the numbers advance, and the phases in order (logread/timeline.h).
 * A line that only mentions an epoch ("best results observed at epoch 57", "saving checkpoint
 * epoch_3.pt") makes none. With a user's expression (--epoch-regex) only its lines start epochs;
 * bars still give steps and validation.
 * Epoch numbers are 1-based: a job whose first epoch is printed as 0 counts from 0, and its
 * numbers and an inclusive total ("0/2" of a 3-epoch YOLO run) are shifted by one.
 * Must not: read files or print. Lines come without line ends and escape sequences
 * (util/line_split.h).
 */
#ifndef GW_PROGRESS_H
#define GW_PROGRESS_H

#include "logread/epoch_match.h"
#include "logread/timeline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One epoch as the job's output showed it. */
typedef struct gw_progress_epoch {
    long number;          /* 1-based */
    long total;           /* number of epochs, -1 when unknown */
    int64_t start_ms;     /* its first line (the bar's first draw when a bar carries it) */
    int64_t end_ms;       /* the next epoch's start; the last epoch: its last line */
    int64_t train_end_ms; /* when the training bar reached its total, 0 when unknown */
    int64_t val_start_ms; /* first validation line or bar draw of the epoch, 0 when none */
    int64_t val_end_ms;   /* last one, 0 when none */
    double validation_s;  /* time in validation bars (their own elapsed when printed), else
                             after the training bar ended; NAN when unknown */
    long steps;           /* training steps (the bar's count), -1 when unknown */
    double steps_per_s;   /* steps / the bar's own elapsed time (wall time of its draws when
                             it prints none); NAN when unknown */
} gw_progress_epoch;

/* One point of the step-rate series: the steps per second between two training-bar draws
 * (NAN at the first draw of a new bar: a gap in the line). */
typedef struct gw_progress_rate {
    int64_t t_ms;
    double steps_per_s;
} gw_progress_rate;

typedef struct gw_progress gw_progress;

/* A new tracker. user: the --epoch-regex matcher (not owned; must outlive the tracker), or NULL
 * for the built-in understanding. */
gw_progress *gw_progress_new(const gw_epoch_matcher *user);

/* Feeds one line printed at t_ms (non-decreasing). Returns true when the line starts a new epoch
 * and stores its 1-based number and total (-1 unknown). Hugging Face epochs are only known at
 * gw_progress_finish. */
bool gw_progress_feed(gw_progress *p, const char *line, int64_t t_ms, long *epoch, long *total);

/* The epochs seen, in order (newly allocated array in *out, NULL when none); the tracker may not
 * be fed afterwards. */
size_t gw_progress_finish(gw_progress *p, gw_progress_epoch **out);

/* The step-rate series of the training bars (newly allocated, NULL when none). Call after
 * gw_progress_finish. */
size_t gw_progress_rates(const gw_progress *p, gw_progress_rate **out);

/* The phases in order: training, evaluation, saves, the work after training (timeline.h);
 * newly allocated in *out, NULL when none. Call after gw_progress_finish. */
size_t gw_progress_phases(const gw_progress *p, gw_phase_span **out);

/* One line saying what was found and from what, and what was not ("iterations from `iter N/M`
 * lines; evaluation from `Evaluation` lines; no epoch boundaries printed"), or "no phases
 * found"; NUL-terminated in buf (truncated to size). Call after gw_progress_finish. */
void gw_progress_found(const gw_progress *p, char *buf, size_t size);

/* NULL is accepted. */
void gw_progress_free(gw_progress *p);

#endif

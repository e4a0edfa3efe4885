/*
 * counter_line: what one plain text line of a training job's output says about progress, read
 * the same way for every trainer (docs/epochs.md): a step counter (`iter: 19`, `iter 100:`,
 * `iteration 201/ 250000`, `iter: 10/134`, `[ 50/977]` after an epoch tag, fairseq's
 * `epoch 001:  100 / 1102`, `Inference done 11/500`, `Batch [2900]`, a bare `250 | loss ...`
 * leading a line that reports a loss), an epoch tag (`Epoch [3]`, `Epoch(train) [1]`,
 * `epoch: 1/300`, `Epoch: [0]`), the time per step the line prints (`time: 0.33`,
 * `iter_time: 0.57s`, `time 107.20ms`, `batch_cost: 0.21`, `elapsed time per iteration (ms):
 * 139113.4`, `seconds: 10.2`, `1.59 updates/sec`), and what kind of work it reports: evaluation
 * (a word such as valid, validation, val, eval, evaluating, test, inference) or a checkpoint
 * save (save, saving, saved, checkpoint), else training.
 * Must not: allocate, print or keep state: a line is read alone (logread/progress.h decides what
 * a counter's reset or an epoch number's advance means).
 */
#ifndef GW_COUNTER_LINE_H
#define GW_COUNTER_LINE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gw_line_kind {
    GW_LINE_TRAIN = 0, /* no word of the other kinds */
    GW_LINE_EVAL,      /* evaluation, validation, test, inference */
    GW_LINE_SAVE,      /* a checkpoint or a model saved */
} gw_line_kind;

enum { GW_COUNTER_SHAPE_MAX = 48, GW_COUNTER_WORD_MAX = 24 };

/* One line, read. */
typedef struct gw_counter {
    gw_line_kind kind;
    char kind_word[GW_COUNTER_WORD_MAX]; /* the word that decided an eval/save kind, as printed */
    long n;                              /* the step counter, -1 when the line has none */
    long total;                          /* its total, -1 when not printed */
    long epoch, epoch_total;             /* the epoch tag, -1 when none / not printed */
    double step_s;                       /* seconds per step the line prints, NAN when none */
    bool span; /* step_s is the time since the counter's last line ("Time 92.9s"), not a step's:
                  per step it is over the counter's advance (step_time.h) */
    char shape[GW_COUNTER_SHAPE_MAX]; /* the counter's form, e.g. "iter N/M", "Epoch [E][N/M]" */
    bool loss;     /* the line names a loss ("loss", "val_loss", "Loss:") or is a boosting round's
                      metrics ("0:  learn: 167.03  test: 153.59"): it reports a step's result */
    bool announce; /* an evaluation line without counter or measured value ("Evaluating bbox...",
                      "epoch 4/4 validation+checkpoint"): the work starts there; a line with a
                      value ("val loss 4.0427", "96.75", "3.72%") reports work already done */
} gw_counter;

/* Reads one line (no line end). Returns true when the line has a step counter, an epoch tag
 * with a counter, or an evaluation/save word; *c is filled either way. Progress bars
 * ("45%|###| 45/100") and log dicts ("{'loss': ...}") are not this reader's: false. */
bool gw_counter_line(const char *line, gw_counter *c);

/* Which of the counters a job prints, each known by its label (the last word of two letters or
 * more in its shape: "Step N" is `step`, "epoch E, iter N/M" is `iter`), counts the steps. The
 * first label read is the step counter; another label's line between two of its own is a second
 * counter's (TFLearn's `iter: 00640/55000` counts samples between `Training Step: 10` lines) and
 * counts no step. Two lines of another label in a row, with none of the step counter's between
 * ("Starting training from iteration 0", then `iter: 19` lines), make it the step counter from
 * the first of them on; so does another label that advances by one between its lines while the
 * step counter advances by more (a samples counter read first, by the batch size: 64, then the
 * steps 9, 10): the step is the counter that counts one a line. Zero-initialise. */
typedef struct gw_counter_pick {
    char label[GW_COUNTER_WORD_MAX]; /* the step counter's, "" before one */
    bool chosen;
    bool holding;     /* held is another label's line since the step counter's last */
    gw_counter held;  /* another label's latest line, as read */
    long long held_t; /* and its time, as the caller gave it */
    long last_n, adv; /* the step counter's last value and its last advance (0: unknown) */
    long other_adv;   /* the held label's last advance (0: unknown) */
} gw_counter_pick;

typedef enum gw_counter_role {
    GW_COUNTER_OTHER = 0, /* a second counter's line: no step */
    GW_COUNTER_STEP,      /* the step counter's */
    GW_COUNTER_TAKEOVER,  /* the step counter's from now on, pk->held (at pk->held_t) first */
} gw_counter_role;

/* The role of c (a training line with a counter) read at time t; updates *pk. */
gw_counter_role gw_counter_is_step(gw_counter_pick *pk, const gw_counter *c, long long t);

#endif

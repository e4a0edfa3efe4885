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
    char shape[GW_COUNTER_SHAPE_MAX];    /* the counter's form, e.g. "iter N/M", "Epoch [E][N/M]" */
    bool announce; /* an evaluation line without counter or measured value ("Evaluating bbox...",
                      "epoch 4/4 validation+checkpoint"): the work starts there; a line with a
                      value ("val loss 4.0427", "96.75", "3.72%") reports work already done */
} gw_counter;

/* Reads one line (no line end). Returns true when the line has a step counter, an epoch tag
 * with a counter, or an evaluation/save word; *c is filled either way. Progress bars
 * ("45%|###| 45/100") and log dicts ("{'loss': ...}") are not this reader's: false. */
bool gw_counter_line(const char *line, gw_counter *c);

#endif

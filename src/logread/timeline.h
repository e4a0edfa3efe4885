/*
 * timeline: the job's phases in the order its output showed them — training, evaluation,
 * checkpoint saves, and the work after the last training step (uploads, exports, a final test) —
 * for trainers that count iterations as well as those that count epochs (docs/epochs.md).
 *
 * Owns: gw_timeline, fed by logread/progress.c one activity at a time; the rule of a phase's
 * span: phases tile the time from the first training line on; an evaluation or training phase
 * runs from the end of the one before to its last line (its lines report work already done); a
 * save runs from its line to the next activity (a save line is printed before the save).
 * Must not: read files or print.
 */
#ifndef GW_TIMELINE_H
#define GW_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gw_phase_kind {
    GW_PH_TRAIN = 0,
    GW_PH_EVAL,
    GW_PH_SAVE,
    GW_PH_AFTER, /* after the last training step (not the loop's regular evaluation) */
    GW_PH_OTHER, /* only while reading: a bar that is neither (an upload, an export) */
} gw_phase_kind;

enum { GW_PHASE_WORD_MAX = 24 };

/* One phase. */
typedef struct gw_phase_span {
    gw_phase_kind kind;
    int64_t start_ms, end_ms;
    long steps;                   /* training: steps counted in it, -1 unknown / other kinds */
    long first_step, last_step;   /* training: the counter's first and last value, -1 unknown */
    double steps_per_s;           /* training: from the printed time per step, else the lines'
                                     wall time; NAN unknown */
    char what[GW_PHASE_WORD_MAX]; /* the word that named it ("Evaluating", "saving", "upload") */
} gw_phase_span;

typedef struct gw_timeline gw_timeline;

gw_timeline *gw_timeline_new(void);

/* One activity at t_ms (non-decreasing). Training: n is the counter after the step (1-based),
 * total its total (<= 0 unknown), inst the counter's instance (a new one when it starts over),
 * step_s the printed seconds per step (NAN none). word: what named an evaluation, save or other
 * activity (may be NULL). since: training: nonzero when the loop began in view (its first line
 * counts its n steps, else a resumed counter's first line counts none); evaluation: when the work
 * it reports began (unix ms; 0 unknown): a result line or a loop first seen past its start covers
 * the time since the previous activity, a save printed just before it included. */
void gw_timeline_add(gw_timeline *tl, gw_phase_kind kind, int64_t t_ms, long n, long total,
                     unsigned inst, double step_s, const char *word, int64_t since);

/* The seconds per step a line of its own printed right after the latest training line (`speed:
 * 0.0867s/iter`, `global_step/sec: 2.45`): that line's, when it printed none. */
void gw_timeline_step_s(gw_timeline *tl, double step_s);

/* The latest training line's counter stood one lower than it was given (a 0-based loop's 0 line
 * turned out to be printed before its first step): it counted one step less. */
void gw_timeline_uncount(gw_timeline *tl);

/* The training phase going on counts k steps fewer (a first line counted from 0 whose next line
 * showed its counter had not started there). */
void gw_timeline_uncount_steps(gw_timeline *tl, long k);

/* The counter of a job with no epochs started over (CatBoost's second model, `0:` again): the
 * next training line starts a training phase of its own. */
void gw_timeline_new_loop(gw_timeline *tl);

/* The loop whose first line comes next stood at base before it (a bar over all epochs' steps
 * first seen in a later epoch; a counter that took over from another one: its own value): that
 * line counts its n - base steps where it would count n. */
void gw_timeline_base(gw_timeline *tl, long base);

/* The steps the current training phase counted so far came from a counter now known to be
 * another one (a samples counter read before the steps): they count none, nor do their times. */
void gw_timeline_recount(gw_timeline *tl);

/* The training counter stood at n (a save line printed the step it was made at): the next
 * training line of the same loop counts its steps from there; the steps before n that no training
 * line showed (an excerpt's cut) are no phase's. */
void gw_timeline_place(gw_timeline *tl, long n);

/* A boundary at t_ms that is no activity (an epoch line): a save or an announced evaluation
 * running to the next activity ends there. */
void gw_timeline_mark(gw_timeline *tl, int64_t t_ms);

/* Training reported by an epoch line in an output that prints no step (its steps unknown):
 * open, a line that announces the epoch ("Epoch 3/10"), whose work runs from the end of the
 * phase before to the next activity;
 * else one that reports the work done up to t_ms ("Epoch 3: loss=0.41"), begun at since (unix ms,
 * 0 unknown) when it is the first phase. */
void gw_timeline_epoch(gw_timeline *tl, int64_t t_ms, bool open, int64_t since);

/* A line said the training ended ("Training complete."): what follows is after-training work,
 * never the loop's own evaluation or save, from t_ms on. */
void gw_timeline_over(gw_timeline *tl, int64_t t_ms);

/* The phases (newly allocated in *out, NULL when none); end_ms: the time of the output's last
 * line. What follows the last training step is GW_PH_AFTER, except an evaluation right after it
 * when evaluations ran amid training too, when last_eval_is_loops (a single epoch's validation),
 * or when the counter stopped short of its total (the output ends mid-training), and a save
 * right after it when saves ran amid training too or that evaluation follows the save. */
size_t gw_timeline_finish(const gw_timeline *tl, int64_t end_ms, bool last_eval_is_loops,
                          gw_phase_span **out);

/* The median of n > 0 values (the printed times per step: one that held an evaluation is an
 * outlier). */
double gw_timeline_median(const double *v, size_t n);

/* The median of the printed times per step v, where v[paused] (SIZE_MAX: none) is the first one
 * printed after an evaluation or a save: left out when it is more than twice the median of the
 * rest (a timer not reset ran on through the pause: Time-Series-Library's first `speed:` of an
 * epoch, of two). */
double gw_timeline_step_median(const double *v, size_t n, size_t paused);

/* The same where paused[i] marks each v[i] printed first after a pause (an epoch or a run of
 * steps with several evaluations in it): each is left out when more than twice the median of
 * the times not after a pause. n > 0. */
double gw_timeline_step_median_of(const double *v, const bool *paused, size_t n);

/* "train", "eval", "save", "after_training". */
const char *gw_phase_kind_name(gw_phase_kind k);

/* NULL is accepted. */
void gw_timeline_free(gw_timeline *tl);

#endif

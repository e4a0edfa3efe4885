/*
 * progress_priv: the state of logread/progress.c's tracker, shared with progress_feed.c (its
 * life), progress_found.c (the rate series, the phases and what was found, read after
 * gw_progress_finish) and progress_figures.c (an epoch's figures). Private to those four files.
 */
#ifndef GW_PROGRESS_PRIV_H
#define GW_PROGRESS_PRIV_H

#include "logread/counter_line.h"
#include "logread/line_prefix.h"
#include "logread/progress.h"
#include "logread/progress_bar.h"
#include "logread/result_table.h"
#include "logread/timeline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef gw_bar bar;

typedef struct start {
    long raw, total;
    int64_t t_ms;
    bool inclusive;      /* a YOLO column: the total is the last epoch's number */
    size_t first_sample; /* its first training sample's index, SIZE_MAX: by time alone */
    int64_t end_ms;      /* a line that sums the epoch up ended it there; 0: not printed */
    bool results;        /* its line reports results (`Epoch 0: loss=30.72`): its epoch's end */
} start;

typedef struct sample {
    int64_t t_ms;
    long n, total;
    double elapsed_s, step_s;
    unsigned inst; /* bar instance: a new one whenever the count starts over */
    bool keep;     /* false: the latest draw, replaced by the next one of the same instance */
    long base;     /* the count its instance stood at before it was first seen, 0 usually */
    bool paused;   /* its step_s is the first printed after an evaluation or a save */
} sample;

typedef struct val_run {
    int64_t first_ms, last_ms;
    double elapsed_s; /* the bar's own, NAN when none */
    long last_n;
} val_run;

typedef struct hf_dict {
    int64_t t_ms;
    double epoch;
    long n; /* the training bar's count when it was printed, -1 unknown */
} hf_dict;

struct gw_progress {
    const gw_epoch_matcher *user;
    gw_epoch_matcher *dflt;
    bool header_seen;      /* "Epoch GPU_mem ..." */
    gw_result_table table; /* a results table's header and its last row (fastai's) */
    gw_line_prefix prefix; /* launchers' and collectors' prefixes before each line */
    size_t lines;          /* lines fed */
    char first_line[512];  /* the first one, prefix and all ("" when longer) */
    int64_t first_line_ms;
    bool loop_reset;  /* a table's header came again after epochs: its rows start a loop */
    bool ends_epochs; /* epoch lines come at their epochs' ends, with results */
    bool epoch_over;  /* the latest epoch line ended its epoch ("Epoch 0 training took 19 s") */
    size_t summed_sm;
    bool work_since_step; /* an evaluation, a save or other work since the last training line */
    long hf_per;
    /* Hugging Face: steps per epoch from its log dicts, 0 unknown */ /* ... the samples up to
                                                                         the last one's are its
                                                                         epoch's and before */
    bool table_row;    /* a results table's row is being fed as a counter line */
    bool table_steps;  /* training steps came from a results table's step column */
    int64_t table_ms;  /* the time of the table's header or of its last row */
    bool table_zero;   /* the table's row at step 0 was seen: its step counter began in view */
    bool table_epochs; /* a results table's epoch column started epochs */
    int zero_based;    /* -1 not decided yet */
    start *st;
    size_t nst, capst;
    sample *sm;
    size_t nsm, capsm;
    int64_t last_keep_ms;
    unsigned inst;
    int64_t inst_start_ms; /* when the current training bar was made */
    size_t inst_first;     /* its first draw's sample */
    long train_total;      /* the training bar's total, -1 before one is seen */
    int last_kind;         /* 0 none, 1 training bar, 2 validation, 3 save */
    val_run *vr;
    size_t nvr, capvr;
    hf_dict *hf;
    size_t nhf, caphf;
    int64_t last_ms, first_ms; /* the latest line's time, the first's (INT64_MIN: none yet) */
    int64_t over_ms;           /* the latest epoch line's time */
    gw_timeline *tl;
    int64_t last_act_ms; /* the last line that showed work (training, evaluation, a save) */
    long last_raw;       /* a text counter's last printed value */
    long first_raw;      /* and the first of its loop */
    double span_first, span_prev; /* a time since the counter's last line: its loop's first, last */
    bool span_clock;              /* ... never went down and doubled: an elapsed clock */
    bool text_draw;               /* the draw being read is a text counter's line */
    long opened_n;                /* a text counter's first count, taken from 0 as an epoch line
                                     opened its loop; -1 none (its next line checks it) */
    bool text_zero;               /* its loop printed 0 first: it prints the 0-based index */
    bool text_from_one;           /* the first text counter ever is 1: its loop began in view */
    bool zero_no_time;            /* the last text counter line was 0 with no time per step */
    bool zero_set_up;             /* ... the job's first, naming no loss either */
    bool train_bars;              /* training steps came from progress bars */
    bool train_bars_labelled;     /* ... whose descriptions name the epoch */
    size_t nst_at_sample;         /* epochs started before the latest training sample */
    bool after_download;          /* the line before spoke of a download or an upload */
    bool val_open;                /* the last validation run was announced: it runs to the next
                                     activity */
    bool saved_after_val;         /* a save right after an evaluation: results next are its */
    bool paused;                  /* an evaluation or a save since the last time per step */
    bool after_counter;           /* the line before was a training counter's (its time per step may
                                     follow on a line of its own) */
    const char *cur_src;          /* what the epoch being fed comes from (for gw_progress_found) */
    char epoch_src[GW_COUNTER_SHAPE_MAX + 16];
    char train_shape[GW_COUNTER_SHAPE_MAX];
    gw_counter_pick pick; /* which counter counts steps when lines print two */
    long pending_base;    /* the next training loop's base (gw_timeline_base), 0 none */
    int64_t pre_val[2];   /* evaluation lines before any epoch or step: first, last (0: none) */
    char eval_word[GW_COUNTER_WORD_MAX];
    char pre_eval_word[GW_COUNTER_WORD_MAX]; /* an evaluation word before training ("Loading Test
                                                Cameras"), named only when no later one is */
    char save_word[GW_COUNTER_WORD_MAX];
    gw_timeline *etl; /* the phases from epoch lines: an output that prints no step (below) */
    long stride;      /* epochs printed every stride (MACE's 0, 2, 4, ...); 0: every one */
    bool fold_eval;   /* the evaluation line being read starts an epoch: it sums that up */
    bool folded;      /* ... one did */
};

/* Steps and their rate in [from, to) (samples kfrom..kto when known, SIZE_MAX: by time) into
 * e->steps, e->steps_per_s and e->train_end_ms (progress_figures.c). */
void gw_progress_train_figures(const gw_progress *p, int64_t from, int64_t to, size_t kfrom,
                               size_t kto, gw_progress_epoch *e);

/* Validation in [from, to) into e->validation_s, e->val_start_ms and e->val_end_ms; the last
 * epoch keeps only its first validation (progress_figures.c). */
void gw_progress_val_figures(const gw_progress *p, int64_t from, int64_t to, bool last,
                             gw_progress_epoch *e);

/* How an epoch number advances on the last one: not at all (a mention), the same epoch, the
 * next one, the second epoch a stride after the first, back to 0 or 1 after two or more (a
 * second loop), or a first number above 1 that gives way to a run from 0 or 1. */
typedef enum {
    GW_EPOCH_NONE,
    GW_EPOCH_SAME,
    GW_EPOCH_NEXT,
    GW_EPOCH_STRIDE,
    GW_EPOCH_RESET,
    GW_EPOCH_RESTART
} gw_epoch_step;

/* progress_epochs.c: raw's step after the epochs so far. */
gw_epoch_step gw_progress_epoch_step(const gw_progress *p, long raw);

/* An evaluation, save or other work at t_ms, in both timelines (the steps' and the epoch
 * lines'); in the epoch lines' a save is a mark at its line (no step tells its length). */
void gw_progress_activity(gw_progress *p, gw_phase_kind kind, int64_t t_ms, const char *word,
                          int64_t since);

/* At the end: an output with no step whose every epoch line reported results (one line per
 * epoch, at its end: cgcnn2's, MACE's) has each epoch end at its line and begin at the line
 * before (the first at the job's first line). */
void gw_progress_summed_epochs(gw_progress *p);

/* gw_timeline_mark and gw_timeline_over in both. */
void gw_progress_mark(gw_progress *p, int64_t t_ms);
void gw_progress_over(gw_progress *p, int64_t t_ms);

/* Training reported by an epoch line while no step has been printed: one that started an epoch
 * (announcing it, unless it sums the epoch up or reports results), or another line of the epoch
 * being run. */
void gw_progress_epoch_work(gw_progress *p, const char *line, int64_t t_ms, bool started,
                            bool sums_up);

/* One line, its launcher's prefix taken off (progress_feed.c): as gw_progress_feed. */
bool gw_progress_feed_line(gw_progress *p, const char *line, int64_t t_ms, long *epoch,
                           long *total);

/* A text counter's values (progress_count.c), c a training line's counter: */
/* its loop's 0 printed first, or before the first step (the job's set-up line) */
void gw_progress_zero_lines(gw_progress *p, const gw_counter *c);
/* c repeats a value the counter passed, not its loop's start (LightGBM's best round) */
bool gw_progress_repeated_step(const gw_progress *p, const gw_counter *c);
/* c's seconds per step (a time since the counter's last line over its advance); the counter
 * moves on to c's value */
double gw_progress_counter_step_s(gw_progress *p, const gw_counter *c);
/* the line after a loop's first that an epoch line opened, at count n */
void gw_progress_opened_check(gw_progress *p, long n);

/* progress_epochs.c: an epoch line's results (gw_epoch_line_results) and no step counter in it:
 * the line sums its epoch up. */
bool gw_progress_results_line(const char *line);

/* progress_feed.c: back to a new tracker's state, the prefixes, the line count and the first and
 * latest lines' times kept (what was read so far was start-up). */
void gw_progress_restart(gw_progress *p);

/* progress.c: a new epoch when raw differs from the last one (first: its first sample). */
bool gw_progress_add_start(gw_progress *p, long raw, long total, bool inclusive, int64_t t_ms,
                           size_t first, long *epoch, long *tot);

/* progress_hf.c: the epochs of a Hugging Face run from its log dicts; the bar's last count. */
void gw_progress_hf_starts(gw_progress *p);
long gw_progress_hf_count(const gw_progress *p);

#endif

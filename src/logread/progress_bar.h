/*
 * progress_bar: one line of a job's output read as a progress bar draw — tqdm ("45%|###| 45/100
 * [00:05<00:06, 8.8it/s]"), ultralytics' and Keras' bars ("45/100 ━━━━ 2s 20ms/step",
 * "147/147 [=====] - 116s 746ms/step"), timm's "Train: 3 [ 100/1251 (  8%)]" and "Test: [ 10/48]"
 * lines — and the words of a bar's description. Private to logread/progress.c.
 * Must not: allocate, print or keep state.
 */
#ifndef GW_PROGRESS_BAR_H
#define GW_PROGRESS_BAR_H

#include <stdbool.h>
#include <stddef.h>

enum { GW_BAR_DESC_MAX = 256 };

/* A bar draw (or a timm line), parsed. */
typedef struct gw_bar {
    long n, total;    /* total 0: not printed (tqdm with no total: "100001it [05:37, ...]") */
    double elapsed_s; /* the bar's own elapsed time, NAN when it prints none */
    double step_s;    /* seconds per step when the bar prints it (Keras "20ms/step"), else NAN */
    char desc[GW_BAR_DESC_MAX];
    long epoch, epoch_total; /* a timm "Train: 3 [" line's epoch, else -1 */
    int val;                 /* 1 validation by its own words, 0 not said */
    bool no_total;           /* tqdm's bar with no total ("100001it [05:37, ...]") */
} gw_bar;

/* An empty draw: counts 0, times NAN, no epoch. */
void gw_bar_init(gw_bar *b);

/* Reads a bar draw from line; false when it is none. */
bool gw_bar_parse(const char *line, gw_bar *b);

/* "n/total" at *s (spaces allowed around '/'), total > 0 and n <= total; advances *s. */
bool gw_bar_read_counts(const char **s, long *n, long *total);

/* The YOLO epoch column of a bar's description d: its first word is "e/E" and the second a GPU
 * memory ("5.1G"), or a header "Epoch GPU_mem" came before (header_seen). */
bool gw_bar_yolo_column(const char *d, bool header_seen, long *e, long *t);

/* w in s as a whole word, case-insensitively. */
bool gw_bar_has_word(const char *s, const char *w);

/* A description of an evaluation bar (valid, eval, test, sanity, YOLO's Class Images). */
bool gw_bar_val_desc(const char *d);

/* A bar that counts no steps: one over the epochs themselves (its description is "epochs"), or,
 * when beside_lines (text lines count the training), one whose description says train. */
bool gw_bar_no_steps(const char *d, bool beside_lines);

/* A description that saves: a save verb first, then what it writes (`Saving model`, Hugging
 * Face's `Writing model shards`). */
bool gw_bar_save_desc(const char *d);

/* A bar that is neither training nor evaluation: an upload, a download, an export. */
bool gw_bar_other_desc(const char *d);

/* A line about such work (a download, an upload, an export; not a checkpoint save): a bar right
 * after it is that work's. */
bool gw_bar_other_line(const char *line);
/* A line that opens with such work's verb ("Downloading file gs://...", "Uploading ...",
 * "Exporting ..."): that work itself, not only what a bar after it is. */
bool gw_bar_other_verb(const char *line);

/* The text of another line printed onto a bar without a line end, NULL when none: after the
 * bar's closing "it/s]" ("s/it]", "it]") when it holds words, or, in a bar the terminal's width
 * cut (no closing ']'), where a postfix value runs into words ("train/loss=0.6Epoch 0, global
 * step 6: ... saving model to ..."). *cut (may be NULL) says which. */
const char *gw_bar_rest(const char *line, bool *cut);

/* The seconds a bar took: its own clock prints whole seconds (tqdm's "00:17"), the wall time of
 * its draws is finer; the wall time when it agrees with the clock (output replayed faster than it
 * was made does not), else the clock (printed NAN: the wall time). */
double gw_bar_clock_or_wall(double printed, double wall);

/* A bar that prepares data (scanning, caching, loading, tokenizing, extracting), whatever its
 * prefix ("val: Scanning ..."): not a phase of training or evaluation. */
bool gw_bar_prep_desc(const char *d);

#endif

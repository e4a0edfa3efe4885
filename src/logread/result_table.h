/*
 * result_table: a results table a trainer prints, one row per epoch (docs/epochs.md, "Results
 * tables"): a header row that names an epoch column first (`epoch`, `Epoch`, `E`) among metric
 * names (fastai's `epoch  train_loss  valid_loss  error_rate  time`, Hugging Face Trainer's
 * notebook `Epoch  Training Loss  Validation Loss  Accuracy`), then rows of numbers under it
 * (`0  1.049577  0.328317  0.070312  00:06`). Used by logread/progress.c, which keeps one
 * gw_result_table per output.
 * Must not: allocate, print or keep state outside the gw_result_table it is given.
 */
#ifndef GW_RESULT_TABLE_H
#define GW_RESULT_TABLE_H

#include <stdbool.h>

typedef struct gw_result_table {
    int ncols; /* the header's words; 0: no table open */
    long last; /* the last row's epoch, -1 none since the header */
} gw_result_table;

typedef enum {
    GW_TABLE_NONE,   /* neither a header nor a row of the open table */
    GW_TABLE_HEADER, /* a header with an epoch column: a table (a loop) begins */
    GW_TABLE_ROW,    /* a row: the epoch in *epoch ended (its first column, as printed) */
} gw_table_line;

/* Reads line against the table t holds (zeroed before the first line): a header opens one (a
 * header of metric names with no epoch column first, or with a step column beside it, spaCy's
 * `E  #  LOSS ...`, closes it); a row counts when its first
 * cell is a whole number, the first row after the header or the last row's epoch + 1, and its
 * other cells are numbers or times, one of them a measured value (`0.3283`, `00:06`). */
gw_table_line gw_result_table_read(gw_result_table *t, const char *line, long *epoch);

#endif

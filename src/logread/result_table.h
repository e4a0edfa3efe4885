/*
 * result_table: a results table a trainer prints, one row per epoch (docs/epochs.md, "Results
 * tables"): a header row that names an epoch column first (`epoch`, `Epoch`, `E`) among metric
 * names (fastai's `epoch  train_loss  valid_loss  error_rate  time`, Hugging Face Trainer's
 * notebook `Epoch  Training Loss  Validation Loss  Accuracy`), then rows of numbers under it
 * (`0  1.049577  0.328317  0.070312  00:06`); or a step column (spaCy's `E  #  LOSS TOK2VEC ...
 * SCORE`, Hugging Face's `Step  Training Loss  Validation Loss`), a row at each evaluation. Used
 * by logread/progress.c, which keeps one
 * gw_result_table per output.
 * Must not: allocate, print or keep state outside the gw_result_table it is given.
 */
#ifndef GW_RESULT_TABLE_H
#define GW_RESULT_TABLE_H

#include <stdbool.h>

typedef struct gw_result_table {
    int ncols;      /* the header's words; 0: no table open */
    bool epoch_col; /* its first column is the epoch */
    bool step_col;  /* a step column first or right after the epoch (`#`, `Step`, `iteration`) */
    bool eval;      /* a column names an evaluation's result (`validation/main/loss`, `SCORE`) */
    char eval_name[24]; /* that column's name, as printed */
    char step_name[16]; /* the step column's, as printed */
    int neval;          /* the evaluation columns: where each name stands in the header line */
    int eval_from[8], eval_to[8];
    bool tabs;      /* tab-separated (a rendered notebook's table): no cell is left blank */
    long last;      /* the last row's epoch, -1 none since the header */
    long last_step; /* the last row's step, -1 none since the header */
} gw_result_table;

typedef enum {
    GW_TABLE_NONE,   /* neither a header nor a row of the open table */
    GW_TABLE_HEADER, /* a header with an epoch or a step column: a table (a loop) begins */
    GW_TABLE_ROW,    /* a row: its epoch and its step in *row */
} gw_table_line;

/* A row's figures: the epoch (first column, as printed) and the step, -1 where the table has no
 * such column. */
typedef struct gw_table_row {
    long epoch, step;
    bool eval; /* a cell stands under a column that names an evaluation's result (Chainer leaves
                  them blank in the rows between its evaluations) */
} gw_table_row;

/* Reads line against the table t holds (zeroed before the first line): a header opens one (a
 * header of metric names with neither an epoch nor a step column first closes it); a row counts
 * when its epoch and step cells are whole numbers and its other cells numbers or times, one of
 * them a measured value (`0.3283`, `00:06`). In a table of epochs alone the row's epoch is the
 * row before's + 1 (the first after the header any); with a step column the step grows and the
 * epoch does not go down (spaCy's `E  #` rows at each evaluation, several in an epoch). */
gw_table_line gw_result_table_read(gw_result_table *t, const char *line, gw_table_row *row);

#endif

/*
 * epochs: the epoch list of a job — building the epochs (start, end) from "epoch" events, which
 * come from lines recognised by gw_epoch_matcher (logread/epoch_match.h, included here for the
 * callers that need both).
 * Must not: read files or print.
 */
#ifndef GW_EPOCHS_H
#define GW_EPOCHS_H

#include "logread/epoch_match.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One epoch of the job. */
typedef struct gw_epoch {
    long number;      /* as printed by the script (or 1, 2, ... when detected from dips) */
    long total;       /* -1 when unknown */
    int64_t start_ms; /* first line / event of this epoch number */
    int64_t end_ms;   /* start of the next epoch, or the end given for the last one */
    /* What the job's output showed (logread/progress.h); unknown without it: */
    int64_t train_end_ms;             /* the training bar reached its total, 0 unknown */
    int64_t val_start_ms, val_end_ms; /* validation, 0 when none was seen */
    double validation_s;              /* NAN unknown */
    long steps;                       /* -1 unknown */
    double steps_per_s;               /* NAN unknown */
} gw_epoch;

/* Builds epochs from a time-ordered list of (time, epoch number, total): a new epoch starts
 * wherever the number differs from the previous entry's (repeated progress lines of one epoch are
 * one epoch). The last epoch ends at last_end_ms. Returns the number of epochs stored in *out
 * (newly allocated, NULL when zero). */
size_t gw_epochs_build(const int64_t *t_ms, const long *number, const long *total, size_t n,
                       int64_t last_end_ms, gw_epoch **out);

#endif

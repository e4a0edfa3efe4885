/*
 * epochs: recognising epoch lines in a training script's output, and the epoch list of a job.
 *
 * Owns: gw_epoch_matcher, a compiled regular expression that turns one output line into an epoch
 * number and an optional total ("Epoch 3/100", "Epoch 3:", "epoch 3/4", "[Epoch 3]", "epoch=3",
 * "Epoch [3/100]", "epoch 3 of 10" by default). `gpuwatch run` calls it on each output line to
 * write "epoch" events; the report uses it on --log files. Also owns building the list of epochs
 * (start, end) from "epoch" events.
 * Must not: read files or print. A matcher is immutable after creation and may be shared between
 * threads (regexec is thread-safe).
 */
#ifndef GW_EPOCHS_H
#define GW_EPOCHS_H

#include "util/gw_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* POSIX extended regular expression used when none is given; matched case-insensitively. */
#define GW_EPOCH_DEFAULT_REGEX                                                                     \
    "(^|[^[:alnum:]_])epoch[[:space:]]*[:=#]?[[:space:]]*\\[?[[:space:]]*([0-9]+)"                 \
    "([[:space:]]*(/|of)[[:space:]]*([0-9]+))?"

typedef struct gw_epoch_matcher gw_epoch_matcher;

/* Compiles `regex` (NULL: GW_EPOCH_DEFAULT_REGEX) as a case-insensitive POSIX extended regular
 * expression; "\d" is accepted as a shorthand for [0-9]. In a match, the first parenthesised
 * group whose text is all digits is the epoch number and the next such group the total.
 * On success stores a new matcher in *out (free with gw_epoch_matcher_free). Errors: GW_E_USAGE
 * when the expression does not compile (with regerror's words) or has no group. */
gw_rc gw_epoch_matcher_new(const char *regex, gw_epoch_matcher **out, gw_error *err);

/* Matches one line (no newline needed). Returns true and stores the epoch number in *epoch and
 * the total in *total (-1 when the line has none) when the line is an epoch line. Either pointer
 * may be NULL. A line gpuwatch printed ("gpuwatch: ...", "gpuwatch mark: ...") never is one; with
 * the default expression, neither is "epoch" right after a command-line option ("--field
 * epoch=3", "--epoch 3": usage texts and command lines). */
bool gw_epoch_matcher_match(const gw_epoch_matcher *m, const char *line, long *epoch, long *total);

/* NULL is accepted. */
void gw_epoch_matcher_free(gw_epoch_matcher *m);

/* One epoch of the job. */
typedef struct gw_epoch {
    long number;      /* as printed by the script (or 1, 2, ... when detected from dips) */
    long total;       /* -1 when unknown */
    int64_t start_ms; /* first line / event of this epoch number */
    int64_t end_ms;   /* start of the next epoch, or the end given for the last one */
} gw_epoch;

/* Builds epochs from a time-ordered list of (time, epoch number, total): a new epoch starts
 * wherever the number differs from the previous entry's (repeated progress lines of one epoch are
 * one epoch). The last epoch ends at last_end_ms. Returns the number of epochs stored in *out
 * (newly allocated, NULL when zero). */
size_t gw_epochs_build(const int64_t *t_ms, const long *number, const long *total, size_t n,
                       int64_t last_end_ms, gw_epoch **out);

#endif

/*
 * epoch_match: recognising epoch lines in a training script's output.
 *
 * Owns: gw_epoch_matcher, a compiled regular expression that turns one output line into an epoch
 * number and an optional total ("Epoch 3/100", "Epoch 3:", "epoch 3/4", "[Epoch 3]", "epoch=3",
 * "Epoch [3/100]", "epoch 3 of 10" by default). `gpuwatch run` calls it on each output line to
 * write "epoch" events; the report reads --log files with it (trainlog.c).
 * Must not: read files or print. A matcher is immutable after creation and may be shared between
 * threads (regexec is thread-safe).
 */
#ifndef GW_EPOCH_MATCH_H
#define GW_EPOCH_MATCH_H

#include "util/gw_error.h"

#include <stdbool.h>

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
GW_MUST_USE gw_rc gw_epoch_matcher_new(const char *regex, gw_epoch_matcher **out, gw_error *err);

/* Matches one line (no newline needed). Returns true and stores the epoch number in *epoch and
 * the total in *total (-1 when the line has none) when the line is an epoch line. Either pointer
 * may be NULL. A line gpuwatch printed ("gpuwatch: ...", "gpuwatch mark: ...") never is one; with
 * the default expression, neither is "epoch" right after a command-line option ("--field
 * epoch=3", "--epoch 3": usage texts and command lines). */
bool gw_epoch_matcher_match(const gw_epoch_matcher *m, const char *line, long *epoch, long *total);

/* Whether a line the default expression matches only mentions an epoch and starts none: its
 * first "epoch N" has a word such as "at", "best", "checkpoint", "resuming" right before it
 * ("best results observed at epoch 57"), or names a file ("epoch_3.pt", "epoch3-model"); nor does
 * Hugging Face's notebook progress text (`[60/60 09:26, Epoch 1/2]`: the epochs done so far). */
bool gw_epoch_line_mention(const char *line);

/* Whether an epoch line reports the epoch's end rather than its start, from the words right after
 * "epoch N" (an optional "training" or "train" first): GW_EPOCH_TRAINED when its training ended
 * and its evaluation may follow ("Epoch 49 Complete: Avg. Loss", "Epoch: 0 training finished.",
 * "epoch 3 done"), GW_EPOCH_OVER when the line sums up the whole epoch, its evaluation included
 * ("Epoch 1 cost time: 273 second", "Epoch 4 took 61 s"); else GW_EPOCH_STARTS (also for a line
 * with no "epoch N"). `line` is the whole line. */
typedef enum { GW_EPOCH_STARTS, GW_EPOCH_TRAINED, GW_EPOCH_OVER } gw_epoch_line_end;
gw_epoch_line_end gw_epoch_line_ends(const char *line);

/* Whether an epoch line reports results after its "epoch N": a decimal number follows it
 * ("Epoch 0: loss=30.7212", "Epoch [001/300] - Train Loss: 145.13"), where a bare "Epoch 3/10"
 * or "Epoch 0" announces the epoch before its work, and a line with a counter in brackets after
 * the epoch ("Train Epoch: 491 [12800/45000 (28%)]  Loss: 0.0001") reports progress within it. */
bool gw_epoch_line_results(const char *line);

/* Whether a line says the whole training ended ("Training complete.", "INFO: Training finished",
 * "Finished training", "Training completed in 3h"): the phrase, with nothing but upper-case
 * tags, numbers and punctuation before it, and a line end, punctuation, "in", "after" or a
 * bracket after it ("Finished training it 1024/306969" counts steps). */
bool gw_training_over_line(const char *line);

/* NULL is accepted. */
void gw_epoch_matcher_free(gw_epoch_matcher *m);

#endif

/*
 * round_line: a boosting round's line of a training job's output (docs/epochs.md, "Boosting
 * rounds"), read the same way for every trainer: a counter leading the line ("0:", "[100]") and
 * right after it the round's metrics as "key: value" pairs (CatBoost, XGBoost, LightGBM). Used
 * by logread/counter_line.c.
 * Must not: allocate, print or keep state.
 */
#ifndef GW_ROUND_LINE_H
#define GW_ROUND_LINE_H

#include "logread/counter_line.h"

#include <stdbool.h>

/* True when line is a round's: its counter, shape and kind (training) into *c, which the caller
 * filled for a line with no counter. */
bool gw_round_line(const char *line, gw_counter *c);

#endif

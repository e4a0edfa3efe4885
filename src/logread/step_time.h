/*
 * step_time: the seconds per step a line of a training job's output prints (docs/epochs.md,
 * "Times per step the trainer prints"), read the same way for every trainer. Used by
 * logread/counter_line.c for a line with its counter and by logread/progress.c for a line of its
 * own after the counter's.
 * Must not: allocate, print or keep state.
 */
#ifndef GW_STEP_TIME_H
#define GW_STEP_TIME_H

#include <stdbool.h>

/* The seconds per step printed with a line's counter: "time: 0.3326", "iter_time: 0.571s",
 * "time 107.20ms", "batch_cost: 0.2063", "elapsed time per iteration (ms): 139113.4", "ups=0.5",
 * llama.cpp's "dt=00:03:06", else gw_step_per_unit's forms. NAN when none. */
double gw_step_time(const char *line);

/* gw_step_time, and in *span whether the figure is the time since the counter's last line
 * rather than one step's (a time in seconds keyed plainly: Marian's "Time 92.9s", DeePMD's
 * "training time 9.93 s", Darknet's field ", 2.848000 seconds,"): per step it is that over
 * the counter's advance (docs/epochs.md). */
double gw_step_time_span(const char *line, bool *span);

/* A figure before its unit, as seconds per step: a rate ("1.59 updates/sec", "8.00 it/s") or a
 * time ("2.057s/batch", "0.86 s/it", "95ms/step"); not a bar's "it/s]". NAN when none. */
double gw_step_per_unit(const char *line);

/* The seconds per step a line with no counter prints with its unit (a trainer that prints it on
 * a line of its own after the counter's): a time or rate before its unit (Time-Series-Library's
 * "speed: 0.0867s/iter") or a rate keyed by the step's unit over seconds (TF Estimator's
 * "global_step/sec: 2.44562"; "examples/sec" is samples). NAN when none. */
double gw_step_time_alone(const char *line);

#endif

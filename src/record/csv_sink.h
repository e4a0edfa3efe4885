/*
 * csv_sink: writes a run directory's gpu.csv, host.csv and processes.csv from samples.
 *
 * Owns: the three files (csv_file.h: whole rows, flushed within a second). Formats follow
 * `nvidia-smi --format=csv,nounits` (design/spec.md "Run directory"): a header with units in
 * brackets, ", " between cells, plain numbers, an empty cell for an absent value. gpu.csv has one
 * row per GPU per tick, host.csv one row per tick, processes.csv one row per GPU process per slow
 * read. Process names are /proc comm values with ',' and control characters replaced by '_'; an
 * empty name means the pid is not visible here (another container) or has exited.
 *
 * Must not: call NVML or read /proc.
 */
#ifndef GW_CSV_SINK_H
#define GW_CSV_SINK_H

#include "sampler/sampler.h"
#include "util/gw_error.h"

typedef struct gw_csv_sink gw_csv_sink;

/* The gpu.csv header line (with '\n'), shared with readers and tests. */
const char *gw_csv_gpu_header(void);

/* Creates gpu.csv, host.csv and processes.csv in the run directory dirfd (never overwriting,
 * never following a link); dir names it in messages. interval_ms sets the flush policy. The
 * caller frees with gw_csv_sink_close. */
GW_MUST_USE gw_rc gw_csv_sink_open(int dirfd, const char *dir, int64_t interval_ms,
                                   gw_csv_sink **out, gw_error *err);

/* The sampler sink that feeds this writer. */
gw_sink gw_csv_sink_as_sink(gw_csv_sink *cs);

/* When a file could not be written (disk full...), fills err once and returns true; later calls
 * return false. Thread-safe. From that failure on no CSV file gets rows: they end together. */
bool gw_csv_sink_take_error(gw_csv_sink *cs, gw_error *err);

/* 0, or the errno of the first file that could not be written (*path: that file). Thread-safe
 * once the sampler stopped. */
int gw_csv_sink_failed(gw_csv_sink *cs, const char **path);

/* Flushes and closes the files. NULL is accepted. */
void gw_csv_sink_close(gw_csv_sink *cs);

#endif

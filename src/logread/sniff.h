/*
 * sniff: what a log file is, from its first lines, before a reader is chosen: nvidia-smi
 * --query-gpu CSV (or our gpu.csv), GPM CSV, `nvidia-smi dmon` (dmon.c), `nvidia-smi` / `-l`
 * tables (nvtable.c; with CSV rows after them: the CSV reader, the tables skipped), `gpustat`
 * screens (gpustat.c), or a format that is no GPU log (`-q` reports, `pmon`,
 * --query-compute-apps CSV, nvidia-bug-report.sh's log, compressed files and archives), refused
 * in one line that names it and how to record or unpack a log instead.
 * Must not: read past the first lines, except to look for CSV rows after a table; the stream is
 * rewound.
 */
#ifndef GW_SNIFF_H
#define GW_SNIFF_H

#include "util/gw_error.h"

#include <stdbool.h>
#include <stdio.h>

typedef enum gw_shape {
    GW_SHAPE_CSV,
    GW_SHAPE_GPM,
    GW_SHAPE_DMON,
    GW_SHAPE_TABLE,     /* `nvidia-smi` / `-l` tables (nvtable.c) */
    GW_SHAPE_TABLE_CSV, /* tables, then CSV rows: read as CSV, the tables skipped and said */
    GW_SHAPE_GPUSTAT,   /* `gpustat` screens (gpustat.c) */
    GW_SHAPE_QUERY,     /* `nvidia-smi -q` reports (nvquery.c) */
    GW_SHAPE_FOREIGN,   /* *what names it */
} gw_shape;

/* How to record what the report reads, for the refusals. */
#define GW_LOGREAD_HOW_TO_RECORD                                                                   \
    "record with `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,"             \
    "power.draw --format=csv -l 1` or `nvidia-smi dmon`, or run the job under `gpuwatch run`"

/* The shape of f, from its first non-empty lines; f is rewound. */
gw_shape gw_logread_sniff(FILE *f, const char **what);

/* The format a line of a CSV file belongs to when it is a section of another format ("an
 * nvidia-smi table", "a dmon/pmon section"), or NULL. Such lines start with '+', '|', '#' or
 * '=': any other line costs one test. */
const char *gw_logread_foreign_line(const char *line);

/* True when a line is an nvidia-smi table's (starts with '+' or '|'). */
bool gw_logread_table_line(const char *line);

/* Sets err for a file that is `what` (GW_E_FORMAT, one line, the format and the fix). */
GW_MUST_USE gw_rc gw_logread_refuse(gw_error *err, const char *path, const char *what);

#endif

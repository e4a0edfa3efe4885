/* GPU CSV reader, what the report says about how a file was read (see nvsmi_priv.h). */
#include "logread/nvsmi_priv.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void nvsmi_note_add(char **note, const char *text)
{
    char *joined = xasprintf("%s%s%s", *note, **note ? "; " : "", text);
    free(*note);
    *note = joined;
}

/* True when a GPU's utilization.gpu is a 0-1 ratio rather than percent: never above 1, with
 * fractions (nvidia-smi and NVML write whole percents). Said, not rescaled. */
static bool util_looks_like_ratio(const reader *r)
{
    for (size_t i = 0; i < r->ngpus; i++) {
        const gw_series_gpu *g = r->gpus[i].g;
        bool fraction = false, above = false;
        for (size_t k = 0; gw_series_gpu_has(g, GW_F_UTIL_GPU_PCT) && k < g->tab.n && !above; k++) {
            double u = gw_series_gpu_value(g, GW_F_UTIL_GPU_PCT, k);
            above |= u > 1;
            fraction |= u > 0 && u < 1;
        }
        if (fraction && !above)
            return true;
    }
    return false;
}

void nvsmi_reading_notes(reader *r, const gw_lines *l)
{
    char buf[320];
    if (util_looks_like_ratio(r))
        nvsmi_note_add(&r->note,
                       "utilization.gpu is never above 1 and has fractions: read as percent, "
                       "but if it is a 0-1 ratio, write it x 100");
    if (r->quoted_breaks) {
        snprintf(buf, sizeof buf, "%ld line breaks inside quoted cells joined (RFC 4180)",
                 r->quoted_breaks);
        nvsmi_note_add(&r->note, buf);
    }
    if (r->table_lines) {
        snprintf(buf, sizeof buf,
                 "%ld lines of `nvidia-smi` tables (%ld snapshots) and text between lines %ld "
                 "and %ld skipped: only the CSV rows are read",
                 r->table_lines, r->table_snapshots, r->table_first, r->table_last);
        nvsmi_note_add(&r->note, buf);
    }
    if (r->alt_split)
        nvsmi_note_add(&r->note,
                       "GPUs told apart by index and the second id column (gpu) together: "
                       "index alone names one GPU for rows of several");
    if (r->jitter)
        nvsmi_note_add(&r->note, "rows stamped within 10 ms of each other taken as one poll of "
                                 "several GPUs");
    if (r->same_second) {
        snprintf(buf, sizeof buf,
                 "%zu rows for a GPU in a second it already had skipped: the times count whole "
                 "seconds (if several GPUs share one id, add index or uuid)",
                 r->same_second);
        nvsmi_note_add(&r->note, buf);
    }
    if (r->duplicates) {
        snprintf(buf, sizeof buf, "%zu rows repeated verbatim skipped", r->duplicates);
        nvsmi_note_add(&r->note, buf);
    }
    if (r->lead_date)
        nvsmi_note_add(&r->note,
                       "a date column before nvidia-smi's timestamp (one cell more than the "
                       "header names) was ignored");
    if (r->order.max >= 2) {
        snprintf(buf, sizeof buf,
                 "%zu GPUs told apart by their order within each timestamp (no index, uuid or "
                 "pci.bus_id column)",
                 r->order.max);
        nvsmi_note_add(&r->note, buf);
    }
    if (!r->has_time && !r->has_id && r->ncols > 0)
        nvsmi_note_add(&r->note,
                       "no timestamp or index column: every row taken as one GPU's (a log of "
                       "several GPUs needs timestamp,index)");
    if (r->forced)
        nvsmi_note_add(&r->note, "columns named by --columns");
    if (*r->mapped) {
        snprintf(buf, sizeof buf, "columns read as: %s", r->mapped);
        nvsmi_note_add(&r->note, buf);
    }
    if (*r->ignored) {
        snprintf(buf, sizeof buf, "columns ignored: %s", r->ignored);
        nvsmi_note_add(&r->note, buf);
    }
    if (r->comma_ms)
        nvsmi_note_add(&r->note,
                       "timestamps with ',' before the milliseconds (Python logging's) read "
                       "as one cell");
    if (r->elapsed)
        nvsmi_note_add(&r->note,
                       "times are seconds since the start of the file: the date is unknown");
    if (l->nul_bytes) {
        snprintf(buf, sizeof buf,
                 "%zu NUL bytes removed from %zu line%s (the first at line %ld: the file was cut "
                 "or overwritten there, rows beside them may be incomplete)",
                 l->nul_bytes, l->nul_lines, l->nul_lines == 1 ? "" : "s", l->first_nul_line);
        nvsmi_note_add(&r->note, buf);
    }
}

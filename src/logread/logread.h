/*
 * logread: turns recordings into the series model (series.h).
 *
 * Owns: recognising what an input is and reading it — a gpuwatch run directory (meta.json,
 * gpu.csv, host.csv, processes.csv, events.jsonl), our gpu.csv, CSV written by
 * `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` in every variant spec.md lists
 * (any column order; units in the header or in values; [N/A] / [Not Supported] / N/A / - as
 * absent; repeated header lines; several GPUs interleaved and told apart by uuid, pci.bus_id or
 * index; timestamps in nvidia-smi's local "YYYY/MM/DD HH:MM:SS.mmm", RFC 3339 or unix seconds),
 * GPM CSV (unix_time, sm_util_pct, sm_occupancy_pct, tensor_util_pct, dram_bw_util_pct), and
 * training logs whose lines start with a time (epoch lines become "epoch" events).
 * Real-world shapes (docs/report.md "Accepted shapes"): GPUs without an id column told apart by
 * their order within a timestamp (refused when ambiguous), a logger's date before nvidia-smi's
 * timestamp, camelCase and home-made header names (synonyms.c), --columns over a header, UTF-8
 * BOM, UTF-16 (converted), NUL runs (removed and counted, lines.c), ctime and elapsed-seconds
 * times, `nvidia-smi dmon` (dmon.c), `nvidia-smi -l` tables (nvtable.c; CSV rows after a table
 * are read, the table skipped and said), `gpustat` screens (gpustat.c), RFC 4180 quoting
 * (cells.c); -q reports, pmon, --query-compute-apps CSV, bundles of sections, archives and
 * directories that are no run are refused naming the format and the fix (sniff.c, not_a_log.c).
 * Never two GPUs in one: two different rows of one GPU id at one time are refused (rows of one
 * poll without an id column are told apart by their order, also when stamped ms apart). What was
 * assumed goes to the input's note. A row that cannot be read is skipped and counted with its line
 * number (series inputs[]); a file with no readable row is an error that names it. A value absurd
 * for its field (not finite, beyond GW_FMT_MAX_ABS in its unit, a bit mask outside 64 bits) is
 * dropped at read: the cell is absent, the row is kept. A file may hold at most GW_LOGREAD_MAX_GPUS
 * distinct GPUs (GW_E_FORMAT beyond, naming the file, the line and the limit). Must not: analyse or
 * print; the caller decides what to do with notes and skipped rows.
 */
#ifndef GW_LOGREAD_H
#define GW_LOGREAD_H

#include "logread/epoch_match.h"
#include "logread/series.h"
#include "util/gw_error.h"

#include <stdio.h>

/* The most distinct GPUs (by uuid, pci.bus_id or index) one GPU CSV may hold: eight 8-GPU nodes.
 * More is a mis-read id column, not a machine (docs/report.md). */
#ifndef GW_LOGREAD_MAX_GPUS
#define GW_LOGREAD_MAX_GPUS 64
#endif

typedef struct gw_logread_opts {
    /* The --query-gpu field list ("timestamp,index,utilization.gpu,...") of CSV written with
     * noheader, or new names for the columns of a file's header (its width must match: else
     * GW_E_FORMAT); NULL to use the files' headers. */
    const char *columns;
    /* Spacing of rows (seconds) in CSV without a timestamp column; 0 means 1 s. */
    double interval_s;
    /* Set by gw_logread_input for a file that opens with `nvidia-smi` tables and has CSV rows
     * after them: the tables (and the lines between them) are skipped, counted and said. */
    bool skip_tables;
} gw_logread_opts;

/* Reads one input given on the command line: a directory is a run directory; a file whose header
 * has unix_time and sm_util_pct is GPM CSV (merged by gw_series_finish); any other file is GPU
 * CSV. Errors: GW_E_IO (cannot open), GW_E_FORMAT (no readable row, bad header), each naming the
 * file. o may be NULL. */
GW_MUST_USE gw_rc gw_logread_input(gw_series *s, const char *path, const gw_logread_opts *o,
                                   gw_error *err);

/* Reads GPU CSV from an open stream into GPUs of input `input` labelled `source`. path names the
 * stream in messages. Errors as gw_logread_input, and GW_E_FORMAT for a file with more than
 * GW_LOGREAD_MAX_GPUS GPUs. */
GW_MUST_USE gw_rc gw_logread_gpu_csv(gw_series *s, FILE *f, size_t input, const char *source,
                                     const gw_logread_opts *o, gw_error *err);

/* Reads `nvidia-smi dmon` output (the "# gpu pwr gtemp ..." header, an optional units line,
 * whitespace-separated rows, '-' for absent; -o D and -o T add Date and Time columns) into GPUs
 * of input `input` by their gpu index. Without Date, times count from the start of the file
 * (dateless; without Time, rows are spaced by o->interval_s, 1 s by default). Errors as
 * gw_logread_gpu_csv. */
GW_MUST_USE gw_rc gw_logread_dmon(gw_series *s, FILE *f, size_t input, const char *source,
                                  const gw_logread_opts *o, gw_error *err);

/* Reads `nvidia-smi` / `nvidia-smi -l` output (the table repeated, with or without the time line
 * nvidia-smi prints above it, lines between snapshots ignored) into GPUs of input `input` keyed
 * by bus id: per snapshot GPU-Util, memory used/total, power draw/limit, temperature, fan,
 * pstate, and the process table (s->procs: pid, name, memory). The time line counts seconds: a
 * snapshot in a second already read is skipped and counted; without time lines snapshots are
 * spaced by o->interval_s (dateless). Errors: GW_E_FORMAT when no GPU row can be read. */
GW_MUST_USE gw_rc gw_logread_nvsmi_table(gw_series *s, FILE *f, size_t input, const char *source,
                                         const gw_logread_opts *o, gw_error *err);

/* Reads `nvidia-smi -q` reports (`nvidia-smi -q -l 1`, `-q -d UTILIZATION,MEMORY,...`): each
 * "NVSMI LOG" report's Timestamp gives its time (whole seconds: a report in a second already read
 * is skipped and said; without one, --interval after the last), each "GPU 00000000:07:00.0"
 * block a row of that GPU (by bus id, numbered in order): FB memory used/total/free,
 * utilization gpu/memory, temperatures, power draw/limit, clocks, fan, performance state, and
 * its Processes (pid, name, memory). Errors: GW_E_FORMAT when no reading is found (refused as a
 * report without readings). */
GW_MUST_USE gw_rc gw_logread_nvsmi_query(gw_series *s, FILE *f, size_t input, const char *source,
                                         const gw_logread_opts *o, gw_error *err);

/* Reads `gpustat` output (`gpustat -i 1 > FILE`, with or without --show-power, --show-fan,
 * -p/-c, colour escapes): each screen's header line ("HOST  Tue Nov  5 14:03:01 2024  550.54.15")
 * gives its time (whole seconds: a screen in a second already read is skipped and said), each
 * "[i] NAME | T°C, U %[, P / L W] | USED / TOTAL MB | PROCS" line a row of GPU i (memory in MiB,
 * as gpustat counts it); processes shown with a pid become s->procs. Without header lines screens
 * are spaced by o->interval_s (dateless). Errors: GW_E_FORMAT when no GPU line can be read. */
GW_MUST_USE gw_rc gw_logread_gpustat(gw_series *s, FILE *f, size_t input, const char *source,
                                     const gw_logread_opts *o, gw_error *err);

/* Reads a CSV whose first column is a time (timestamp or unix_time) and whose other columns are
 * numbers into table t (host.csv, GPM CSV). field_of maps a header key ("sm_util_pct") to a
 * gw_gpu_field or -1; a mapped column is named by gw_fields[], any other by its header cell.
 * Rows that cannot be read are counted in s->inputs[input]. Errors: GW_E_FORMAT when no row is
 * readable. */
GW_MUST_USE gw_rc gw_logread_table_csv(gw_series *s, FILE *f, size_t input, gw_series_table *t,
                                       int (*field_of)(const char *key), gw_error *err);

/* The gw_gpu_field a GPM CSV column key stands for ("sm_util_pct" -> GPM SM active), or -1. */
int gw_logread_gpm_field(const char *key);
/* The host or job field a host.csv header key stands for ("job.cpu" -> GW_F_JOB_CPU_PCT), or -1. */
int gw_logread_host_field(const char *key);

/* Reads a run directory (see spec.md "Run directory"). gpu.csv is required; meta.json, host.csv,
 * processes.csv and events.jsonl are read when present. */
GW_MUST_USE gw_rc gw_logread_run_dir(gw_series *s, const char *dir, gw_error *err);

/* Reads a training log. With an index beside it (gw_logread_index_path: a run's output.log and
 * output.idx) every line has the time it arrived; otherwise every line (split at LF or CR) that
 * starts with a time (optionally in '[' ']') is read at that time and lines without one are
 * ignored. The lines go through logread/progress.h with m (NULL: the built-in understanding):
 * its epochs become "epoch" events and s->progress entries; a final "log_end" event marks the
 * last line. Errors: GW_E_IO, GW_E_FORMAT when no line has a time. */
GW_MUST_USE gw_rc gw_logread_train_log(gw_series *s, const char *path, const gw_epoch_matcher *m,
                                       gw_error *err);

/* The index of an output log: "DIR/output.log" -> "DIR/output.idx", "x.log" -> "x.idx", any
 * other name + ".idx" (newly allocated). */
char *gw_logread_index_path(const char *log_path);

/* Reads a job's output (log_path) with its index (idx_path: lines "OFFSET UNIX_MS", the bytes
 * from OFFSET on arrived then; "# epoch-regex: RE" names the expression the run used, taken
 * when m is NULL) into input `input`: lines split and cleaned as gpuwatch run split them
 * (util/line_split.h), read by logread/progress.h; epochs become "epoch" events and
 * s->progress entries; *last_ms (may be NULL) gets the last line's time. Errors: GW_E_IO,
 * GW_E_FORMAT when the run's expression does not compile. */
GW_MUST_USE gw_rc gw_logread_output(gw_series *s, size_t input, const char *log_path,
                                    const char *idx_path, const gw_epoch_matcher *m,
                                    int64_t *last_ms, gw_error *err);

/* Finishes p and stores its epochs in the series for input `input` (s->progress entries, and
 * "epoch" events for training logs) and its training bars' step rate (s->rate_*). */
void gw_logread_keep_epochs(gw_series *s, size_t input, gw_progress *p);

#endif

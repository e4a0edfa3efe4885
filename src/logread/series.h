/*
 * series: the in-memory model of one job's recordings. The readers in logread/ fill it; the
 * analysis (analysis/), the text and JSON report (report/) and the charts read it.
 *
 * Owns:
 * - per GPU: identity (node/source label, index, uuid, name, PCI bus id, memory total, power limit,
 *   slowdown temperature; NAN or "" when unknown) and a table: a time axis in unix milliseconds
 *   and one column of doubles per metric, NAN = absent. Known GPU metrics are the fields of
 *   sampler/sample.h (gw_fields[]): a column of field f is named gw_fields[f].csv_header and holds
 *   values in gw_fields[f].unit, the unit a sample holds them in (MiB, W, %, MHz, mJ; the
 *   clocks_event_reasons mask as a number; pstate as 0..15): readers convert at the text edge.
 *   Other measured columns keep their CSV header as name.
 * - per node: the host table of host.csv, whose columns are the host and job fields
 *   (GW_F_HOST_CPU_UTIL_PCT, GW_F_HOST_MEM_USED_MIB, GW_F_JOB_*) under their CSV headers.
 * - GPU processes (processes.csv) and discrete events (events.jsonl — with the members of marks,
 *   alerts and job_exit — epoch lines of a training log, gpu_lost markers found in nvidia-smi
 *   output), and the end of each run's output.log.
 * - the inputs that were read, with their row counts and skipped rows.
 * Every string and array is owned by the series; gw_series_free releases all of it.
 * Must not: read files (the readers do), interpret values (analysis/ does), print.
 */
#ifndef GW_SERIES_H
#define GW_SERIES_H

#include "events/events.h"
#include "logread/progress.h"
#include "record/job.h"
#include "sampler/sample.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a column keeps its values. GPU tables keep them compactly (issue 28: a recording of 20 M
 * rows in under 1 GB): a column whose rows all hold one value keeps only that value; a column of
 * decimals with at most 6 places keeps each as a 1-, 2- or 4-byte integer count of 10^-decimals
 * from a base, the least code meaning absent; any other column (or one that no longer fits)
 * keeps doubles. Every value reads back exactly as it was stored, bit for bit. Host tables keep
 * doubles. */
typedef enum gw_col_kind {
    GW_COL_DOUBLE, /* v holds the values, [table n], NAN = absent */
    GW_COL_CONST,  /* each of the first len rows is cval (NAN: absent) */
    GW_COL_I8,     /* codes: value = (base + code) / 10^decimals; INT8_MIN etc. = absent */
    GW_COL_I16,
    GW_COL_I32
} gw_col_kind;

/* One column of a table. Read a column through gw_series_col_values (or gw_series_gpu_values,
 * gw_series_gpu_value), write it through gw_series_table_set (or gw_series_gpu_set). */
typedef struct gw_series_col {
    char *name; /* CSV header with unit: "utilization.gpu [%]", "job.cpu [%]" */
    int field;  /* the gw_field this column holds (GPU fields in GPU tables, host and job
                   fields in host tables), or -1 */
    double *v;  /* GW_COL_DOUBLE: the values [table n]; NAN = absent. Other kinds: their decoded
                   copy ([vn] rows) once asked for, freed by gw_series_gpu_release; else NULL */
    unsigned char kind;      /* gw_col_kind */
    unsigned char decimals;  /* integer kinds: the values' scale */
    unsigned char recenters; /* integer kinds: times the base moved at this width */
    size_t len;              /* compact kinds: rows stored; rows from len to the table's n are
                                absent */
    size_t cap;              /* integer kinds: codes allocated */
    size_t vn;               /* compact kinds: rows in v */
    int64_t base, lo, hi;    /* integer kinds: the base, the least and largest value stored, in
                                10^-decimals (lo > hi: none) */
    double cval;             /* GW_COL_CONST: the value of every row */
    void *codes;             /* integer kinds: [cap] int8_t, int16_t or int32_t */
} gw_series_col;

/* Rows sharing one time axis. After gw_series_finish, t_ms is non-decreasing. */
typedef struct gw_series_table {
    size_t n;      /* rows */
    size_t cap;    /* allocated rows of t_ms and of every GW_COL_DOUBLE column */
    int64_t *t_ms; /* [n] unix milliseconds */
    size_t ncols;
    gw_series_col *cols;
    bool compact; /* new columns start compact (GPU tables), else as doubles */
} gw_series_table;

typedef struct gw_series_gpu {
    size_t input; /* index into gw_series.inputs of the input the GPU came from */
    char *source; /* node/source label: run directory host or path, or the CSV path */
    int index;    /* NVML/nvidia-smi index; order of first appearance when the input has none */
    char *key;    /* the identity the reader grouped rows by (uuid, bus id or index), "" if one */
    char *uuid;   /* "" when unknown */
    char *name;   /* "" when unknown */
    char *pci_bus_id;        /* "" when unknown */
    double memory_total_mib; /* NAN when unknown */
    double power_limit_w;    /* NAN when unknown */
    double slowdown_temp_c;  /* NAN when unknown */
    int col_of[GW_F_COUNT];  /* column of each known field in tab.cols, -1 when absent */
    int in_job; /* 1: one of the job's GPUs (meta.json "job"), 0: another job's GPU, recorded
                   and shown but never judged (--scope node), -1: unknown (judged) */
    gw_series_table tab;
} gw_series_gpu;

typedef struct gw_series_host {
    size_t input;
    char *source;
    gw_series_table tab;
} gw_series_host;

typedef struct gw_series_proc {
    size_t input;
    int64_t t_ms;
    int gpu_index; /* NVML index of the GPU */
    long pid;
    char *name;      /* "" when unknown */
    double used_mib; /* NAN when unknown */
    int in_job;      /* 1 in the wrapped command's tree, 0 not, -1 unknown */
} gw_series_proc;

/* One field of a mark event ("fields": {"n": 3, "phase": "warmup"}). */
typedef struct gw_series_field {
    char *key;
    double num; /* the value when it is a number; NAN otherwise */
    char *text; /* the value as text when it is not a number ("true", "false", JSON for null,
                   arrays and objects), else NULL */
} gw_series_field;

/* gw_series_event.kind beyond gw_event_kind: a training log's last timed line, other types. */
enum { GW_SERIES_EV_LOG_END = GW_EV_KIND_COUNT, GW_SERIES_EV_OTHER };

typedef struct gw_series_event {
    size_t input;
    int64_t t_ms;
    char *type;       /* "epoch", "job_start", "job_exit", "gpu_lost", "alert", "log_end", ... */
    int kind;         /* what readers dispatch on: the gw_event_kind of a type gpuwatch writes,
                         else GW_SERIES_EV_LOG_END or GW_SERIES_EV_OTHER (another tool's) */
    int gpu_index;    /* -1 when the event is not about one GPU */
    long epoch;       /* "epoch" events: the epoch number; else -1 */
    long total;       /* "epoch" events: the number of epochs when known; else -1 */
    double code;      /* job_exit: exit status; xid: the Xid; else NAN */
    char *text;       /* the matched line or message; mark: its text; "" when none */
    char *rule;       /* alert, alert_resolved: the rule ("job_stalled"); "" otherwise */
    double value;     /* alert, alert_resolved: the rule's value (job_stalled: seconds without
                         activity); NAN otherwise */
    double threshold; /* alert, alert_resolved: the rule's threshold; NAN otherwise */
    int signal;       /* job_exit: the signal that ended the job, 0 when none */
    char *detail;     /* job_exit: the signal's name ("KILL"); alert job_stalled: what the
                         job's processes were doing, "PID NAME STATE SYSCALL in WCHAN; ...";
                         alert_resolved: its reason ("output"); else "" */
    size_t nfields;   /* mark: its fields, in the order written */
    gw_series_field *fields;
} gw_series_event;

/* The last lines of a run's output.log, read for the crash verdicts. */
typedef struct gw_series_tail {
    size_t input; /* the run directory's gpu.csv input */
    char *source;
    char *text; /* whole lines joined with '\n', escape sequences removed */
    size_t lines;
} gw_series_tail;

typedef enum gw_input_kind {
    GW_INPUT_RUN_DIR,   /* a gpuwatch run directory */
    GW_INPUT_GPU_CSV,   /* our gpu.csv or nvidia-smi --query-gpu CSV */
    GW_INPUT_GPM_CSV,   /* unix_time, sm_util_pct, ...: GPM columns for another input's GPU */
    GW_INPUT_TRAIN_LOG, /* a training log whose lines start with a time */
} gw_input_kind;

/* An epoch as the job's output showed it (a --log file, a run's output.log with its index). */
typedef struct gw_series_epoch {
    size_t input;
    gw_progress_epoch e;
} gw_series_epoch;

typedef struct gw_series_input {
    char *path;
    char *source; /* node/source label of what it holds (run host or path) */
    gw_input_kind kind;
    size_t rows;         /* rows (or lines) read */
    size_t rows_skipped; /* rows that could not be read */
    long first_bad_line; /* 1-based line number of the first skipped row, 0 when none */
    bool untimed;        /* the CSV had no timestamp column: rows were spaced by an interval */
    bool dateless;       /* times count from the start of the file (rows at an interval, elapsed
                            seconds, a time of day without a date): the date is unknown */
    char *note;          /* what the reader wants the user to know, "" when nothing */
    int complete;        /* run directory: 1 when meta.json says the recording ended whole, 0 when
                            not (killed, disk full), -1 unknown or not a run directory */
    char *incomplete;    /* when complete is 0: why, one short line; else "" */
    /* Values of GPU field f that no GPU can report (outside gw_field_bounds_of[f], or
     * memory.used above memory.total), dropped when read: impossible[f] of them. */
    size_t impossible[GW_F_COUNT];
    size_t time_back;         /* rows whose time went back before their GPU's previous row */
    long time_back_line;      /* 1-based line of the first such row, 0 when none */
    double time_back_s;       /* the largest step back in seconds: not counted as time, the rows
                                 after it continue one interval after the row before it */
    gw_job *job;              /* run directory: meta.json's "job" (record/job.h), else NULL */
    struct gw_inproc *inproc; /* run directory: its in-job data (logread/inproc.h), else NULL */
} gw_series_input;

/* Which GPUs a report keeps (--scope): the run's own choice (meta.json "job".scope, job when
 * none), only the job's GPUs, or every GPU with the others shown as not this job. */
typedef enum gw_series_scope {
    GW_SERIES_SCOPE_FROM_RUN,
    GW_SERIES_SCOPE_JOB,
    GW_SERIES_SCOPE_NODE
} gw_series_scope;

typedef struct gw_series {
    size_t ninputs;
    gw_series_input *inputs;
    size_t ngpus, gpus_cap;
    gw_series_gpu **gpus;
    bool several_sources; /* the GPUs come from more than one source (labels name it) */
    size_t nhosts;
    gw_series_host **hosts;
    size_t nprocs, procs_cap;
    gw_series_proc *procs;
    size_t nevents, events_cap;
    gw_series_event *events;
    size_t ntails;
    gw_series_tail *tails;
    /* GPM tables waiting for gw_series_finish to merge them into a GPU (input index in input). */
    size_t ngpm;
    gw_series_host **gpm;
    /* Epochs from the job's output, in input order then time (logread/progress.h). */
    size_t nprogress;
    gw_series_epoch *progress;
    /* The training bars' step rate from the same output: [nrates] unix ms and steps/s. */
    size_t nrates;
    int64_t *rate_t_ms;
    double *rate_steps_per_s;
    /* The phases the same output showed in order (logread/timeline.h), of every input that
     * has one, and what was found there, one line per input read ("" before). */
    size_t nphases;
    gw_phase_span *phases;
    char *phases_found;
    /* The report's --epoch-regex for the readers (not owned), NULL for the built-in reading. */
    const gw_epoch_matcher *epoch_matcher;
    /* --scope, set before gw_series_finish; after it, scope_node says what was applied. */
    gw_series_scope scope;
    bool scope_node;
} gw_series;

/* A copy of a string read from a file (a GPU or host name, a process name, an event's text), safe
 * to print on a terminal: control bytes (but '\n' with keep_newlines) and DEL become '?', so an
 * escape sequence planted in meta.json or a CSV cannot drive the terminal showing the report;
 * then C1 controls, bidi controls and invalid UTF-8 as util/gw_utf8.h's gw_utf8_sanitize says. */
char *gw_series_text(const char *text, bool keep_newlines);

gw_series *gw_series_new(void);
void gw_series_free(gw_series *s);
/* Frees the samples (times and values) of every GPU and host table once they are analysed,
 * keeping row counts, columns and names (what summary.json says of them): `report DIR...` over
 * a thousand ranks holds the analyses, not a thousand recordings. */
void gw_series_drop_samples(gw_series *s);

/* Registers an input; returns its index. path and source are copied (source NULL: path). */
size_t gw_series_add_input(gw_series *s, const char *path, const char *source, gw_input_kind kind);

/* Adds a GPU (index -1 until known, identity "" / NAN); source and key are copied. */
gw_series_gpu *gw_series_add_gpu(gw_series *s, size_t input, const char *source, const char *key);
/* Finds the GPU of input `input` with that NVML index, or NULL. */
gw_series_gpu *gw_series_find_gpu(const gw_series *s, size_t input, int index);
/* Adds a host table (host.csv) or a GPM table waiting to be merged. */
gw_series_host *gw_series_add_host(gw_series *s, size_t input, const char *source);
gw_series_host *gw_series_add_gpm(gw_series *s, size_t input, const char *source);

/* Appends a row at t_ms with every column absent; returns its row number. */
size_t gw_series_table_add_row(gw_series_table *t, int64_t t_ms);
/* Returns the column named `name`, creating it (all absent so far) when missing. */
size_t gw_series_table_col(gw_series_table *t, const char *name, int field);
/* Returns the column named `name`, or -1. */
long gw_series_table_find(const gw_series_table *t, const char *name);

/* Stores v (NAN: absent) in row `row` (< n) of column c / of field f (created when missing). */
void gw_series_table_set(gw_series_table *t, size_t c, size_t row, double v);
void gw_series_gpu_set(gw_series_gpu *g, gw_gpu_field f, size_t row, double v);
/* The value of one row (< n) of column c / of field f: NAN when absent or when there is no such
 * column. Reads the compact storage itself: no copy is made. */
double gw_series_col_value(const gw_series_table *t, size_t c, size_t row);
double gw_series_gpu_value(const gw_series_gpu *g, gw_gpu_field f, size_t row);
/* Whether the GPU has a column of field f. */
bool gw_series_gpu_has(const gw_series_gpu *g, gw_gpu_field f);
/* The largest present value of column c / of field f's column, NAN when none (or no column):
 * what comparing gw_series_col_value row by row gives, read from the codes. */
double gw_series_col_max(const gw_series_table *t, size_t c);
double gw_series_gpu_max(const gw_series_gpu *g, gw_gpu_field f);
/* Rows [begin, end) of column c as doubles (NAN = absent) into out[end - begin]. */
void gw_series_col_decode(const gw_series_table *t, size_t c, size_t begin, size_t end,
                          double *out);

/* Exact q[k]-quantiles (0 <= q <= 1; linear between the two neighbouring values, as
 * gw_stats_quantile) of the present values of rows [begin, end) of column c into out[k], with
 * their count, least and largest, counted from the codes of a 1- or 2-byte column without copying
 * or selecting (issue 28). False, nothing set, for other kinds: the caller selects. */
bool gw_series_col_quantiles(const gw_series_table *t, size_t c, size_t begin, size_t end,
                             const double *q, size_t nq, double *out, size_t *n, double *lo,
                             double *hi);

/* The values of a column ([tab.n]): of a compact column a decoded copy, made on the first call
 * and kept until gw_series_gpu_release (8 bytes a row: callers over big records release it when
 * done). The pointer is valid until the next row or column is added, or the release. */
const double *gw_series_col_values(const gw_series_table *t, size_t c);
/* Values of field f ([tab.n]), or NULL when the GPU has no such column (as above). */
const double *gw_series_gpu_values(const gw_series_gpu *g, gw_gpu_field f);
/* Frees the decoded copies of a GPU's compact columns; pointers gw_series_gpu_values returned
 * for it become invalid. Not thread-safe for one GPU; different GPUs may be released and read
 * in different threads. */
void gw_series_gpu_release(const gw_series_gpu *g);

/* The values of a column as a writable array of doubles, created when missing: the column keeps
 * doubles from then on. The pointer is valid until the next row or column is added (creating a
 * column may move the column array, so take the pointer after creating). For tests and small
 * tables; readers of big files use gw_series_gpu_set. */
double *gw_series_gpu_writable(gw_series_gpu *g, gw_gpu_field f);
double *gw_series_table_writable(gw_series_table *t, const char *name, int field);

/* Sorts the rows of t by time, stably (gw_series_finish does it). */
void gw_series_table_sort(gw_series_table *t);
/* Frees a table's samples / everything it holds (series.c). */
void gw_series_table_drop(gw_series_table *t);
void gw_series_table_free(gw_series_table *t);

/* Appends an event / a process row; strings are copied (NULL means ""). */
gw_series_event *gw_series_add_event(gw_series *s, size_t input, int64_t t_ms, const char *type,
                                     const char *text);
gw_series_proc *gw_series_add_proc(gw_series *s, size_t input, int64_t t_ms, int gpu_index,
                                   long pid, const char *name, double used_mib, int in_job);

/* Adds a field to a mark event; key and text are copied (text NULL: the value is num). */
void gw_series_event_add_field(gw_series_event *e, const char *key, double num, const char *text);
/* Sets an event's rule / detail (copied; NULL means ""). */
void gw_series_event_set(char **member, const char *value);
/* The value of a mark's field as a number (NAN when absent or text). */
double gw_series_event_field_num(const gw_series_event *e, const char *key);
/* Keeps the end of a run's output.log; source and text are copied. */
void gw_series_add_tail(gw_series *s, size_t input, const char *source, const char *text,
                        size_t lines);

/* Human label of a GPU: "GPU 0", or "SOURCE GPU 0" when the series has several sources. The
 * returned string is newly allocated. */
char *gw_series_gpu_label(const gw_series *s, const gw_series_gpu *g);

/* Drops the GPUs whose drop[slot] is set, with their processes and the events about them. */
void gw_series_drop_gpus(gw_series *s, const bool *drop);

/* Marks each GPU of a run directory with a "job" as the job's or not (in_job), from its GPU list
 * (or, when the recording ended before the command's processes chose, from processes.csv), and
 * applies s->scope: job drops the other GPUs (unless none is the job's), node keeps them
 * (job_scope.c). Called by gw_series_finish. */
void gw_series_apply_job(gw_series *s);

/* Completes the model after every input was read: sorts tables and events by time, fills GPU
 * identity from columns (memory.total, power.limit) where no meta data gave it, and merges each
 * GPM table into the GPU whose time span it overlaps (by nearest time, within 1 s or two GPM
 * intervals), then applies the job's GPUs and the scope (gw_series_apply_job). Fails
 * (GW_E_FORMAT, naming the file) when a GPM table overlaps no GPU or several. */
GW_MUST_USE gw_rc gw_series_finish(gw_series *s, gw_error *err);

#endif

/*
 * analysis: everything the report says about a series, computed once, as data.
 *
 * Owns: per GPU the phases (start-up before the GPU first works, steady state, tail after it last
 * works), statistics of every column per phase and for the whole record, energy (Wh), time spent
 * above/below thresholds, dips inside the steady state and which of them are expected
 * (validation/checkpoint at epoch boundaries or validation marks, or regular); the job's epochs
 * (from a --log file, epoch marks or epoch events of a run directory, or detected from regular
 * dips) with per-GPU utilisation and energy; and the verdicts (verdict.h).
 * The analysis is a pure function of the series: no I/O, no printing. It keeps pointers into the
 * series, which must outlive it.
 */
#ifndef GW_ANALYSIS_H
#define GW_ANALYSIS_H

#include "analysis/epochs.h"
#include "analysis/inproc.h"
#include "stats/stats.h"
#include "analysis/verdict.h"
#include "logread/series.h"

#include <stdbool.h>

typedef enum gw_phase { GW_PHASE_STARTUP, GW_PHASE_STEADY, GW_PHASE_TAIL, GW_PHASE_COUNT } gw_phase;

/* "startup", "steady", "tail". */
const char *gw_phase_name(gw_phase p);

/* Rows [begin, end) of one GPU's table; start_ms is the first row's time, end_ms the time of the
 * row after the span (or the last row plus its weight). begin == end: the span is empty. */
typedef struct gw_span {
    size_t begin, end;
    int64_t start_ms, end_ms;
} gw_span;

/* An idle run inside the steady state. */
typedef struct gw_dip {
    gw_span span;
    bool expected;       /* validation/checkpointing placed there by the job's output, its marks
                            or its epochs (at a boundary), in a GPU-bound run */
    bool at_epoch_start; /* not expected: at the start of an epoch's training part */
} gw_dip;

/* Time (s) a GPU spent in each of these conditions. */
typedef enum gw_time_check {
    GW_TIME_IDLE,         /* utilization.gpu < idle_util_pct */
    GW_TIME_BUSY,         /* utilization.gpu >= busy_util_pct */
    GW_TIME_HOT,          /* temperature.gpu > hot_temp_c */
    GW_TIME_MEMORY_HIGH,  /* memory.used / total > memory_capacity_pct */
    GW_TIME_POWER_CAPPED, /* SW power cap or HW power brake (or power near the limit) */
    GW_TIME_THERMAL,      /* SW/HW thermal slowdown, or temperature >= slowdown threshold */
    GW_TIME_COUNT
} gw_time_check;

/* "idle", "busy", "hot", "memory_high", "power_capped", "thermal_slowdown". */
const char *gw_time_check_name(gw_time_check c);

typedef struct gw_phase_result {
    gw_span span;
    gw_stats *stats;     /* [gpu->tab.ncols], in the order of the table's columns */
    double energy_wh;    /* NAN when neither an energy counter nor power.draw is present */
    bool energy_partial; /* a gap of more than five intervals was not bridged (stats.h) */
    double time_s[GW_TIME_COUNT];
} gw_phase_result;

typedef struct gw_gpu_analysis {
    const gw_series_gpu *gpu;
    size_t slot;                /* index in series->gpus */
    const gw_series_host *host; /* host.csv of the same node, NULL when none */
    double *dt_s;               /* [n] weight of each row in seconds (stats.h) */
    double interval_s;          /* median sampling interval */
    bool worked;                /* utilization.gpu reached work_util_pct at least once */
    bool participant;           /* compared with its peers (worked, or a job process used it) */
    bool energy_from_counter;   /* the whole record's energy used the counter */
    gw_phase_result whole;
    gw_phase_result phase[GW_PHASE_COUNT];
    size_t ndips;
    gw_dip *dips;
    unsigned char *in_expected_dip; /* [n] 1 for rows inside an expected dip */
    double work_s;                  /* steady-state time outside expected dips */
    double busy_pct; /* time-weighted mean utilization.gpu over that time, NAN without util */
} gw_gpu_analysis;

typedef enum gw_epoch_origin {
    GW_EPOCHS_NONE,
    GW_EPOCHS_EVENTS, /* "epoch" events of a run directory */
    GW_EPOCHS_LOG,    /* a --log file */
    GW_EPOCHS_DIPS,   /* detected from regular dips of one GPU */
    GW_EPOCHS_MARKS,  /* "epoch" marks of a run directory (gpuwatch mark, python/gpuwatch.py) */
    GW_EPOCHS_OUTPUT, /* a run directory's output.log read again with its output.idx */
    GW_EPOCHS_PYTHON, /* the training DataLoader's passes, in-job data (analysis/inproc.h) */
} gw_epoch_origin;

/* "none", "events", "log", "dips", "marks", "output", "python". */
const char *gw_epoch_origin_name(gw_epoch_origin o);

/* One GPU in the training and the validation part of an epoch (epochs whose output showed
 * them, see gw_epoch): time-weighted means, NAN when unknown. */
typedef struct gw_epoch_parts {
    double train_util_pct, val_util_pct; /* utilization.gpu: the GPU's busy share */
    double train_sm_pct, val_sm_pct;     /* GPM SM activity */
} gw_epoch_parts;

/* One GPU over a span outside the epochs: NAN when unknown or the span is empty. */
typedef struct gw_span_figures {
    double util_pct;  /* mean utilization.gpu */
    double energy_wh; /* one method for every span (docs/report.md) */
} gw_span_figures;

typedef struct gw_analysis {
    const gw_series *series;
    int64_t start_ms, end_ms; /* first and last row of any GPU */
    int64_t record_end_ms;    /* where the last row's interval ends (its weight after it): the
                                 record is [start_ms, record_end_ms), which each GPU's phases
                                 tile exactly, so they never add up to more than the record */
    size_t ngpus;
    gw_gpu_analysis *gpus; /* [ngpus], same order as series->gpus */
    gw_epoch_origin epoch_origin;
    size_t nepochs;
    gw_epoch *epochs;
    double *epoch_util_pct;         /* [nepochs * ngpus]: mean utilization.gpu, NAN when unknown */
    double *epoch_energy_wh;        /* [nepochs * ngpus] */
    gw_epoch_parts *epoch_parts;    /* [nepochs * ngpus]: the training and validation parts */
    gw_span_figures *before_epochs; /* [ngpus]: the record's start to the first epoch's */
    gw_span_figures *after_epochs;  /* [ngpus]: the last epoch's end to the record's end */
    double *job_phase_util_pct;     /* [series->nphases * ngpus]: mean utilization.gpu in each of
                                       the job's phases (logread/timeline.h), NAN when unknown */
    gw_verdict_list verdicts;       /* sorted: critical first */
    gw_inproc_analysis *inproc;     /* the in-job data (analysis/inproc.h); never NULL */
} gw_analysis;

/* Analyses a finished series (gw_series_finish done). Never fails; the result is freed with
 * gw_analysis_free. A big record of several GPUs (500,000 rows or more) is analysed on two
 * threads where the machine has two cores (each GPU's basics, figures and own checks; the
 * result does not depend on it). */
gw_analysis *gw_analyze(const gw_series *s);
/* 2 (the default): as said above; 1: always one thread (tests compare the two). */
extern int gw_analysis_threads;
void gw_analysis_free(gw_analysis *a);

/* ---- helpers shared by the checkers, exposed for tests ---- */

/* Start-up / steady / tail from utilization.gpu (util may be NULL: all steady). */
void gw_phases_detect(const double *util, const int64_t *t_ms, const double *dt_s, size_t n,
                      gw_span out[GW_PHASE_COUNT]);

/* Ends the steady state where the job let go of the GPU: from the first row of a final stretch in
 * which memory.used stays below tail_release_pct of its steady peak (and utilisation averages
 * below busy_util_pct: a desktop's 4-30 %, not the job) to the end, that stretch becomes the
 * tail. Needs min_steady_samples rows in the stretch; mem or util NULL: nothing changes. */
void gw_phases_end_at_release(const double *util, const double *mem, const int64_t *t_ms,
                              const double *dt_s, size_t n, gw_span out[GW_PHASE_COUNT]);

/* Idle runs (util < idle_util_pct) of at least dip_min_s inside steady; *out newly allocated. */
size_t gw_dips_find(const double *util, const int64_t *t_ms, const double *dt_s, size_t n,
                    gw_span steady, gw_dip **out);

/* Marks dips as expected that lie mostly in the job's evaluation, save or after-training
 * phases (logread/timeline.h, with dip_align_s of tolerance): an iteration trainer's
 * evaluation pauses. Returns how many it marked. */
size_t gw_dips_mark_job_phases(gw_dip *dips, size_t n, const gw_phase_span *ph, size_t nph);

/* Marks dips as expected where the epochs place validation or checkpointing: for epochs whose
 * output showed their parts (train_end_ms, val_start_ms), dips lying mostly between the end of
 * training and the next epoch's start; for others, dips at an epoch boundary. A dip at the start
 * of an epoch's training part is marked at_epoch_start instead. Returns how many are expected. */
size_t gw_dips_mark_epochs(gw_dip *dips, size_t n, const gw_epoch *epochs, size_t nepochs);

/* True when at least dip_min_regular dips start at regular intervals (CV <= dip_period_cv);
 * stores the mean period and the CV. */
bool gw_dips_regular(const gw_dip *dips, size_t n, double *period_s, double *cv);

/* The span of rows [begin, end) with times; end_ms as described for gw_span. */
gw_span gw_span_make(const gw_series_gpu *g, const double *dt_s, size_t begin, size_t end);

/* Time-weighted mean of v over the rows of span; with work_only, rows inside expected dips are
 * left out. NAN when no row has a value. */
double gw_gpu_mean(const gw_gpu_analysis *g, const double *v, gw_span span, bool work_only);
/* The same for field f of the GPU (NAN without the column), decoding only the span's rows: for
 * checks that look at every GPU of a big record at once (series.h keeps columns compactly). */
double gw_gpu_mean_field(const gw_gpu_analysis *g, gw_gpu_field f, gw_span span, bool work_only);

/* Per-row conditions behind the time checks. */
/* The job's CPU by role over a GPU's steady state (host.csv, issue 13), NAN where absent;
 * present is false without a host.csv with roles (starved_cause.c). */
typedef struct gw_roles_summary {
    bool present;
    double train_cpu_pct, train_cpu_max_pct; /* means; % of one core */
    double workers, workers_cpu_pct, workers_cpu_max_pct;
    double iowait_pct, steal_pct, others_pct; /* means; % of all CPUs */
} gw_roles_summary;
gw_roles_summary gw_roles_of(const gw_gpu_analysis *g);

bool gw_row_thermal(const gw_gpu_analysis *g, size_t row);
bool gw_row_power_capped(const gw_gpu_analysis *g, size_t row);

#endif

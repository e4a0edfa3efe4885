/*
 * chart: what the charts show, as data shared by the HTML report (report/html*.c) and the PNG/SVG
 * plots (plot/).
 *
 * Owns:
 * - the chart metrics (GPU-Util, SM and tensor activity, memory, temperature, power, SM clock, the
 *   job's CPU % and RSS, per-process GPU memory, the job's training steps per second): key, label,
 * unit and the series column each comes from, with the conversion to the unit shown (MiB -> GiB);
 * - traces: one line per GPU (or per node, or per GPU process) of a metric, and the reference
 *   lines drawn against it (memory total, slowdown temperature, power limit);
 * - throttle bands: the time intervals in which clocks_event_reasons has a slowdown reason set;
 * - decimation: a shared time grid per chart and, for long recordings, the minimum and maximum
 *   of each trace per pixel column (in the order they occurred), so that a 24-hour, 10 Hz
 *   recording keeps its spikes in a few thousand points.
 * Must not: read files, render (HTML and cairo are the callers' business) or judge anything
 * (verdicts, epochs and phases come from the analysis).
 */
#ifndef GW_CHART_H
#define GW_CHART_H

#include "analysis/analysis.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gw_chart_metric {
    GW_CM_UTIL,     /* utilization.gpu [%] */
    GW_CM_SM,       /* gpm.sm_active [%] */
    GW_CM_TENSOR,   /* gpm.tensor_active [%] */
    GW_CM_MEMORY,   /* memory.used [MiB], shown in GiB; reference: memory total */
    GW_CM_TEMP,     /* temperature.gpu (C); reference: the slowdown temperature */
    GW_CM_POWER,    /* power.draw [W]; reference: power.limit */
    GW_CM_CLOCK,    /* clocks.current.sm [MHz] */
    GW_CM_CPU,      /* host.csv job.cpu [%] (100 % = one core) */
    GW_CM_RSS,      /* host.csv job.rss [MiB], shown in GiB */
    GW_CM_PROC_MEM, /* processes.csv used_memory [MiB] per GPU process, shown in GiB */
    GW_CM_STEPS,    /* training steps per second, from the job's progress bars */
    GW_CM_ROLES,    /* host.csv: the busiest training process and worker, % of one core;
                       reference: one core (100 %) */
    GW_CM_COUNT
} gw_chart_metric;

typedef struct gw_chart_metric_info {
    const char *key;   /* name for --metrics: "util", "sm", "tensor", "memory", ... */
    const char *label; /* "GPU-Util", "memory used", ... */
    const char *unit;  /* unit shown on the axis: "%", "GiB", "°C", "W", "MHz" */
    int decimals;      /* digits kept in the HTML data */
} gw_chart_metric_info;

/* Indexed by gw_chart_metric. */
extern const gw_chart_metric_info gw_chart_metrics[GW_CM_COUNT];

/* The metric whose key is `key` ("temp"; "temperature", "mem", "utilization" are accepted too),
 * or -1. */
int gw_chart_metric_parse(const char *key);

/* One line of a chart. Times and values are borrowed from the series, or owned by the trace
 * (processes, references); values are in the metric's shown unit times `scale`. */
typedef struct gw_trace {
    char *label; /* "GPU 0", "GPU 0 python3 (4242)", "power limit", "GPU 1 limit" */
    gw_chart_metric metric;
    int gpu;         /* slot in series->gpus, -1 for host and job traces */
    bool reference;  /* a limit or threshold: drawn dashed, constant (`constant` is its value) */
    double constant; /* references: the value; NAN for data traces */
    size_t n;
    const int64_t *t_ms; /* [n] unix ms, non-decreasing */
    const double *v;     /* [n] NAN = absent */
    double scale;        /* shown value = v[i] * scale */
    int64_t *owned_t;    /* freed with the list (NULL when borrowed) */
    double *owned_v;
} gw_trace;

typedef struct gw_trace_list {
    size_t n, cap;
    gw_trace *v;
} gw_trace_list;

/* Appends the traces of metric m to out: per GPU (GPU metrics), per node (CPU, RSS) or per GPU
 * process (at most max_procs processes with the highest peak, the rest summed as "other
 * processes"; 0 = no cap). GPUs or nodes without any value of the metric get no trace. Then the
 * reference lines: memory total, slowdown temperature, power limit — one line when every GPU has
 * the same value, else one per GPU. Returns the number of traces added. */
size_t gw_chart_traces(const gw_analysis *a, gw_chart_metric m, size_t max_procs,
                       gw_trace_list *out);

/* The per-process part of gw_chart_traces for GW_CM_PROC_MEM: one trace per (GPU, pid) of
 * processes.csv on the times the process list was read, absent where the process was not listed;
 * the max_procs processes (0: all) with the highest peak, the rest summed as "other processes".
 * Labels: "GPU 0 python3 (4242)", with ", not in job" for processes outside the wrapped command. */
size_t gw_chart_proc_traces(const gw_analysis *a, size_t max_procs, gw_trace_list *out);

/* Appends an empty trace of metric m (label owned by the list, values NAN-initialised by the
 * caller) and returns it; the pointer is valid until the next append. */
gw_trace *gw_trace_add(gw_trace_list *l, gw_chart_metric m, char *label, int gpu);

/* Frees every trace and the list's array; the list can be reused after. */
void gw_trace_list_free(gw_trace_list *l);

/* The time span of everything a chart can show: GPU rows, host.csv rows and process lists. */
void gw_chart_span(const gw_analysis *a, int64_t *t0_ms, int64_t *t1_ms);

/* ---- throttle bands ---- */

/* Reason groups shown as bands on the clock chart (bits of clocks_event_reasons). */
typedef enum gw_throttle {
    GW_THROTTLE_POWER,   /* GW_REASON_SW_POWER_CAP */
    GW_THROTTLE_THERMAL, /* GW_REASONS_THERMAL (SW and HW thermal slowdown) */
    GW_THROTTLE_HW,      /* GW_REASONS_HW (HW slowdown, HW power brake) */
    GW_THROTTLE_COUNT
} gw_throttle;

/* "power cap", "thermal", "HW slowdown". */
const char *gw_throttle_name(gw_throttle k);

typedef struct gw_band {
    int gpu; /* slot in series->gpus */
    gw_throttle kind;
    int64_t start_ms, end_ms;
} gw_band;

/* The intervals in which each GPU had a reason of each group active, from its
 * clocks_event_reasons column. A row's reason lasts until the next row (at most five sample
 * intervals); intervals closer than merge_ms are joined, so a flapping reason at 10 Hz gives one
 * band per pixel column at most. Returns the count; *out is newly allocated (NULL when zero). */
size_t gw_chart_bands(const gw_analysis *a, int64_t merge_ms, gw_band **out);

/* ---- decimation ---- */

/* The x positions of one chart. Either every distinct time of its traces plus t0 and t1 (raw: no
 * trace loses a point), or two points per pixel column of [t0, t1] (binned) when the traces have
 * more than 2 * columns distinct times. Charts built over the same [t0, t1] share a time axis. */
typedef struct gw_chart_grid {
    bool binned;
    size_t n;        /* points */
    int64_t *t_ms;   /* [n] times of the points */
    int64_t t0_ms;   /* binned: start of column 0 */
    double col_ms;   /* binned: width of a column */
    size_t ncolumns; /* binned: columns (n = 2 * ncolumns) */
} gw_chart_grid;

/* Builds the grid of traces tr[0..ntr) over [t0_ms, t1_ms] for `columns` pixel columns
 * (columns >= 1). Reference traces do not count. Free with gw_chart_grid_free. */
void gw_chart_grid_build(const gw_trace *tr, size_t ntr, int64_t t0_ms, int64_t t1_ms,
                         size_t columns, gw_chart_grid *g);
void gw_chart_grid_free(gw_chart_grid *g);

/* One trace placed on a grid: the grid points it has a value or a gap at, in increasing order.
 * Points not listed have no sample of the trace (a line is drawn across them); a listed point
 * with a NAN value is a gap (an absent value: the line breaks). */
typedef struct gw_placed {
    size_t n;
    size_t *idx; /* [n] grid indices, increasing */
    double *v;   /* [n] shown values (scaled), NAN = gap */
} gw_placed;

/* Places a trace on the grid. Raw grid: each row at its time. Binned grid: per column, the
 * minimum and the maximum present value in the order they occurred (one point when the column
 * has one distinct value, placed in the half of the column where it occurred); a column whose
 * rows are all absent is one gap. Rows outside the grid's span go to the nearest column. */
void gw_chart_place(const gw_chart_grid *g, const gw_trace *tr, gw_placed *out);
void gw_placed_free(gw_placed *p);

/* Sorts t[0..n) and removes repeated times; returns the count left. */
size_t gw_chart_sort_unique(int64_t *t, size_t n);

#endif

/*
 * compare: several recordings of one job side by side (`gpuwatch compare RUN_A RUN_B ...`,
 * `gpuwatch report --compare`), for the user who changed one setting and ran again.
 *
 * Owns: the figures compared (per run: steps/s, epoch time, GPU busy and SM activity of the steady
 * state, the data-wait share, energy per epoch and per step, peak memory, the first verdict and
 * its cause), each run's noise (the spread between its epochs, or without epochs between fifths
 * of its steady state), the ratio of every run to the first and whether it is beyond that noise;
 * and their text (80 columns), JSON and HTML (overlaid charts on a relative time axis) forms.
 * Must not: analyse (it reads each run's gw_analysis) or read files (src/cli wires the inputs).
 */
#ifndef GW_COMPARE_H
#define GW_COMPARE_H

#include "analysis/analysis.h"
#include "util/gw_error.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum gw_cmp_metric {
    GW_CMP_STEPS_PER_S,     /* mean over epochs of the job's own steps/s (progress bars) */
    GW_CMP_EPOCH_S,         /* mean epoch duration [s] */
    GW_CMP_BUSY_PCT,        /* utilization.gpu, steady state outside expected dips [%] */
    GW_CMP_SM_PCT,          /* gpm.sm_active over the same time [%] */
    GW_CMP_DATA_WAIT_PCT,   /* the training loop's time waiting for data (in-job data) [%] */
    GW_CMP_ENERGY_EPOCH_WH, /* energy per epoch, every GPU of the run [Wh] */
    GW_CMP_ENERGY_STEP_J,   /* energy per step [J] */
    GW_CMP_PEAK_MEM_MIB,    /* the largest memory.used of any GPU [MiB] */
    GW_CMP_COUNT
} gw_cmp_metric;

typedef struct gw_cmp_metric_info {
    const char *key;   /* JSON name, unit in the name: "steps_per_s" */
    const char *label; /* text: "steps/s" */
    int better;        /* +1 higher is better, -1 lower is better, 0 neither */
} gw_cmp_metric_info;

extern const gw_cmp_metric_info gw_cmp_metrics[GW_CMP_COUNT];

/* Noise below this many parts (epochs or windows) is unknown. */
#define GW_CMP_MIN_PARTS 2
/* A ratio is beyond the noise when |ratio - 1| exceeds this many times the two runs' spreads
 * combined (sqrt(a^2 + b^2)). */
#define GW_CMP_NOISE_K 1.0

typedef struct gw_cmp_run {
    const char *path;                /* as given */
    char *name;                      /* short name: the directory's last part, or the path */
    const gw_analysis *a;            /* borrowed */
    double duration_s;               /* the record */
    size_t ngpus, nepochs;           /* GPUs judged, epochs found */
    const gw_verdict *lead;          /* the first (most severe) verdict, NULL when none */
    double value[GW_CMP_COUNT];      /* NAN when unknown */
    double spread[GW_CMP_COUNT];     /* relative spread (stddev / mean, 0.05 = 5 %); NAN unknown */
    int nparts[GW_CMP_COUNT];        /* epochs or windows the spread came from */
    bool from_windows[GW_CMP_COUNT]; /* the spread came from windows of the steady state */
} gw_cmp_run;

/* One figure of run `run` against the first run. */
typedef struct gw_cmp_diff {
    double ratio; /* NAN when either value is unknown or the first is 0 */
    int beyond;   /* 1 beyond the noise, 0 within it, -1 noise unknown */
} gw_cmp_diff;

typedef struct gw_cmp {
    size_t nruns;
    gw_cmp_run *runs;
} gw_cmp;

/* Builds the comparison of nruns analyses (paths[i] names analysis a[i]; both borrowed and must
 * outlive the result). Never fails; free with gw_cmp_free. */
gw_cmp *gw_cmp_build(const gw_analysis *const *a, const char *const *paths, size_t nruns);
void gw_cmp_free(gw_cmp *c);

/* Run r (>= 1) against run 0 on metric m. */
gw_cmp_diff gw_cmp_diff_of(const gw_cmp *c, size_t r, gw_cmp_metric m);

/* The training loop's data-wait share [%] from the in-job data (RUN/python/, analysis/inproc.h:
 * the time inside the DataLoader's __next__ over its training passes), NAN when the run has none.
 */
double gw_cmp_data_wait_pct(const gw_analysis *a);

/* The text form, lines of at most `width` columns (80 in a pipe). */
void gw_cmp_text(FILE *out, const gw_cmp *c, int width);
/* The JSON form (docs/compare.md); the caller frees it with cJSON_Delete. */
cJSON *gw_cmp_json(const gw_cmp *c);
/* The HTML form: the table and overlaid charts of every run on a time axis from each run's start.
 */
void gw_cmp_html(FILE *out, const gw_cmp *c);

/* Writes the JSON or HTML form to path ("-": stdout), whole or not at all. Errors: GW_E_IO. */
GW_MUST_USE gw_rc gw_cmp_write_json(const gw_cmp *c, const char *path, gw_error *err);
GW_MUST_USE gw_rc gw_cmp_write_html(const gw_cmp *c, const char *path, gw_error *err);

/* The decimals metric m prints with in every run (*dec) and its spreads in % (*sdec): one
 * count across a row ("0.92 / 1.91", never "0.923 / 1.91"), chosen for the largest value;
 * spreads with two significant digits for the largest ("±19% / ±9%"). */
void gw_cmp_row_decimals(const gw_cmp *c, gw_cmp_metric m, int *dec, int *sdec);

#endif

/* Synthetic series for unit tests: GPUs sampled every second from a fixed origin. Header-only so
 * each test executable can include it (static functions, some unused in a given test). */
#ifndef GW_TEST_SYNTH_H
#define GW_TEST_SYNTH_H

#include "analysis/analysis.h"
#include "logread/series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYNTH_T0_MS INT64_C(1800000000000)

/* A series with ngpu GPUs of n rows 1 s apart; memory total 80000 MiB, power limit 700 W. */
static inline gw_series *synth_new(size_t ngpu, size_t n)
{
    gw_series *s = gw_series_new();
    size_t in = gw_series_add_input(s, "synth.csv", "node1", GW_INPUT_GPU_CSV);
    for (size_t i = 0; i < ngpu; i++) {
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        gw_series_gpu *g = gw_series_add_gpu(s, in, "node1", key);
        g->index = (int)i;
        g->memory_total_mib = 80000;
        g->power_limit_w = 700;
        for (size_t r = 0; r < n; r++)
            gw_series_table_add_row(&g->tab, SYNTH_T0_MS + (int64_t)r * 1000);
    }
    return s;
}

/* Sets field f of GPU gpu to v on rows [from, to). */
static inline void synth_set(gw_series *s, size_t gpu, gw_gpu_field f, size_t from, size_t to,
                             double v)
{
    double *col = gw_series_gpu_writable(s->gpus[gpu], f);
    for (size_t r = from; r < to && r < s->gpus[gpu]->tab.n; r++)
        col[r] = v;
}

/* Finishes and analyses. */
static inline gw_analysis *synth_analyze(gw_series *s)
{
    gw_error err;
    if (gw_series_finish(s, &err) != GW_OK) {
        fprintf(stderr, "synth: %s\n", err.msg);
        abort();
    }
    return gw_analyze(s);
}

/* The first verdict with that id (any GPU when gpu < 0), or NULL. */
static inline const gw_verdict *synth_verdict(const gw_analysis *a, gw_verdict_id id, int gpu)
{
    for (size_t i = 0; i < a->verdicts.n; i++)
        if (a->verdicts.v[i].id == id && (gpu < 0 || a->verdicts.v[i].gpu == gpu))
            return &a->verdicts.v[i];
    return NULL;
}

/* The evidence value under key (NAN when missing). */
static inline double synth_evidence(const gw_verdict *v, const char *key)
{
    for (size_t e = 0; v && e < v->nevidence; e++)
        if (strcmp(v->evidence[e].key, key) == 0)
            return v->evidence[e].value;
    return NAN;
}

/* Writes text to a new temporary file; returns its path (static buffer per call site is not
 * safe, so the caller frees it). */
static inline char *synth_temp_file(const char *text)
{
    char *path = strdup("/tmp/gwtestXXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Removes a temporary directory made by a test (rm -r). */
static inline int synth_remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -r '%s'", dir);
    return system(cmd);
}

#endif

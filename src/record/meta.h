/*
 * meta: a run directory's meta.json — what was recorded, where, when, and how it ended.
 *
 * Owns: the JSON layout (docs/run-directory.md). Written when recording starts (end_time null,
 * exit null) and rewritten when it ends, each time through a temporary file and rename(), so a
 * reader never sees half a file. Must not: call NVML (the caller passes versions and devices).
 */
#ifndef GW_META_H
#define GW_META_H

#include "sampler/sample.h"
#include "util/gw_error.h"

#include <stdint.h>

typedef struct gw_meta {
    const char *mode; /* "run" or "record" */
    int argc;         /* the wrapped command (run), else 0 */
    char **argv;
    const char *nvml_library;   /* the path or soname loaded */
    const char *driver_version; /* nvmlSystemGetDriverVersion, "" when absent */
    const char *nvml_version;   /* nvmlSystemGetNVMLVersion, "" when absent */
    int cuda_driver_version;    /* nvmlSystemGetCudaDriverVersion_v2, 0 when absent */
    const gw_device_info *devices;
    unsigned device_count;
    int64_t interval_ms;
    int64_t start_wall_ms;
    int64_t end_wall_ms;    /* 0 while recording */
    int64_t job_pid;        /* 0 when there is no job */
    int exit_code;          /* the job's exit code, -1 when unknown or killed */
    int exit_signal;        /* the signal that killed the job, 0 if none */
    uint64_t ticks;         /* samples taken */
    uint64_t ticks_skipped; /* scheduled ticks skipped because one ran late */
    double max_tick_read_ms;
    const char *end_reason; /* "job_exit", "signal", "duration", ... or NULL */
} gw_meta;

/* Writes DIR/meta.json atomically. */
GW_MUST_USE gw_rc gw_meta_write(const char *dir, const gw_meta *m, gw_error *err);

#endif

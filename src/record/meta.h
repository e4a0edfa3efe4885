/*
 * meta: a run directory's meta.json — what was recorded, where, when, and how it ended.
 *
 * Owns: the JSON layout (docs/run-directory.md). Written when recording starts (end_time null,
 * exit null) and rewritten when it ends, each time through a temporary file and rename(), so a
 * reader never sees half a file. Must not: call NVML (the caller passes versions and devices).
 */
#ifndef GW_META_H
#define GW_META_H

#include "record/job.h"
#include "sampler/sample.h"
#include "util/gw_error.h"

#include <stdbool.h>
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
    bool complete;          /* ended, and every file was written whole */
    const char *incomplete; /* when not complete: "recording" (not finalised), "write_error" */
    const char *incomplete_detail;      /* one line saying what is missing, or NULL */
    const gw_job *job;                  /* the "job" object (job.h); NULL: none written */
    const char *python_instrumentation; /* run: "on" or "off (WHY)" (docs/inproc.md); NULL:
                                           not written (record) */
} gw_meta;

/* The incomplete_detail written while recording: what a reader concludes when it is still there
 * after gpuwatch ended. */
#define GW_META_NOT_FINALISED                                                                      \
    "meta.json was not finalised: gpuwatch is still recording, or it was killed (or could not "    \
    "write meta.json) before the end; the data stops at the last rows written"

/* Writes meta.json in the run directory dirfd (dir names it in messages): a temporary file
 * renamed over meta.json, so a reader sees the old or the new file, never half of one. Each
 * written meta.json keeps 16 KiB of blocks reserved (fallocate, size unchanged); when the disk is
 * full (ENOSPC, EDQUOT) and no new file can be written, meta.json is overwritten in place in
 * them instead, so that the end of a run, its write error included, still reaches it. */
GW_MUST_USE gw_rc gw_meta_write(int dirfd, const char *dir, const gw_meta *m, gw_error *err);

#endif

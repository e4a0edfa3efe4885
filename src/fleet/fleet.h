/*
 * fleet: `gpuwatch report --fleet` for administrators: GPU-hours by user and by job, split by
 * what the GPUs really did (docs/report.md, "Fleet"): idle holding memory, underfilled (GPU-Util
 * high while SM activity is low), starved (GPU-Util between idle and busy), saturated (busy with
 * SM activity), other (start-up, tails, unjudged). SM activity is what tells underfilled from
 * saturated: GPU-Util alone counts a GPU running one tiny kernel at a time as busy.
 *
 * Owns: reading per-job summary.json files (a file, or a directory of them: the Slurm epilog's
 * jobstats-like directory), querying Prometheus' HTTP API (fleet_prom.c, libcurl loaded lazily
 * by curl_dl.c), the ranking and its text and JSON.
 * Must not: judge recordings (the per-job summaries carry the verdicts).
 */
#ifndef GW_FLEET_H
#define GW_FLEET_H

#include "util/gw_error.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef enum gw_fleet_class {
    GW_FLEET_IDLE,        /* idle holding memory */
    GW_FLEET_UNDERFILLED, /* GPU-Util high, SM activity low */
    GW_FLEET_STARVED,     /* GPU-Util between idle and busy: waiting for input */
    GW_FLEET_SATURATED,   /* busy with SM activity: doing the work */
    GW_FLEET_OTHER,       /* the rest of the GPU's time */
    GW_FLEET_NCLASS
} gw_fleet_class;

/* "idle_holding_memory", "underfilled", "starved", "saturated", "other". */
const char *gw_fleet_class_name(gw_fleet_class c);

typedef struct gw_fleet_job {
    char *job_id; /* never NULL: the summary's job id, else its file name */
    char *user;   /* NULL: unknown */
    char *source; /* the file or URL it came from */
    size_t ngpus;
    double hours[GW_FLEET_NCLASS]; /* GPU-hours in each class; they add up to gpu_hours */
    double gpu_hours;
    double sm_hours;     /* GPU-hours with an SM activity figure ... */
    double sm_weight;    /* ... and sum of SM activity (%) x those hours */
    double server_hours; /* GPU-hours from the Prometheus server being read (fleet_prom.c) */
} gw_fleet_job;

typedef struct gw_fleet_file {
    bool used;
    dev_t dev;
    ino_t ino;
} gw_fleet_file;

typedef struct gw_fleet {
    size_t njobs, cap;
    gw_fleet_job *jobs;
    size_t nslots;
    size_t *slots; /* hash of (job id, user) -> index + 1 into jobs (0: empty) */
    size_t nsources;
    size_t files_skipped; /* files of a directory that were no summary.json */
    size_t
        files_repeated; /* files given again (the same file twice, or its directory): read once */
    size_t subdir_summaries; /* subdirectories with a summary.json (run directories): not read */
    char *first_subdir;
    size_t nfiles, nfile_slots;
    gw_fleet_file *file_slots; /* (device, inode) of the files read */
    char *first_skipped;
} gw_fleet;

/* A ranking row: one user or one job. */
typedef struct gw_fleet_row {
    const char *key; /* user ("unknown" when no summary said) or job id */
    const char *user;
    size_t njobs, ngpus;
    double hours[GW_FLEET_NCLASS];
    double gpu_hours;
    double wasted_hours;  /* idle + underfilled + starved */
    double sm_active_pct; /* GPU-hour weighted mean, NAN when no GPU had GPM */
} gw_fleet_row;

void gw_fleet_init(gw_fleet *f);
void gw_fleet_free(gw_fleet *f);

/* Adds a summary.json file, or every *.json file of a directory (not its subdirectories). A
 * job already added (same job id and user) is added to. Errors: GW_E_NOTFOUND for a path that
 * does not exist, GW_E_FORMAT naming a file given by name that is no summary.json, GW_E_IO. */
GW_MUST_USE gw_rc gw_fleet_add_path(gw_fleet *f, const char *path, gw_error *err);

/* Adds one parsed summary.json (the job report of several ranks too); source names it. Returns
 * false when doc is no summary.json. */
bool gw_fleet_add_summary(gw_fleet *f, const cJSON *doc, const char *source, const char *stem);

/* Adds the jobs of a Prometheus server (base URL "http://host:9090") over the last window_s
 * seconds at step_s resolution: dcgm-exporter's or gpuwatch serve's series with an hpc_job label,
 * users from gpuwatch_job_info. Errors: GW_E_USAGE for a URL that is not http(s)://,
 * GW_E_NOTFOUND when libcurl is missing, GW_E_IO when the server cannot be reached or answers
 * with an error (its message quoted). */
GW_MUST_USE gw_rc gw_fleet_add_prometheus(gw_fleet *f, const char *url, double window_s,
                                          double step_s, gw_error *err);

/* The ranking, most wasted GPU-hours first (then most GPU-hours, then key): by user (by_user)
 * or by job. *out is newly allocated; rows point into f. Returns the row count. */
size_t gw_fleet_rank(const gw_fleet *f, bool by_user, gw_fleet_row **out);

/* Text (80 columns): the fleet's totals, then the users, then the jobs (at most top_n rows
 * each, 0: all). */
void gw_fleet_text(FILE *out, const gw_fleet *f, size_t top_n);
/* {"kind": "fleet", "totals", "users": [...], "jobs": [...]}: docs/summary-json.md. */
cJSON *gw_fleet_json(const gw_fleet *f);
GW_MUST_USE gw_rc gw_fleet_write_json(const gw_fleet *f, const char *path, gw_error *err);

/* For fleet_prom.c: the job of (job_id, user), created when new. */
gw_fleet_job *gw_fleet_job_of(gw_fleet *f, const char *job_id, const char *user,
                              const char *source);
/* The job of (job_id, user), NULL when there is none yet. */
gw_fleet_job *gw_fleet_job_find(gw_fleet *f, const char *job_id, const char *user);

#endif

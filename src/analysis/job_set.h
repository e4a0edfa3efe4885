/*
 * job_set: the run directories of one or more jobs (several nodes, several ranks), each analysed
 * on its own, gathered by job id and step and ordered by node and rank (docs/report.md, "One job,
 * several ranks"). For `gpuwatch report DIR...` when the directories' meta.json name their job.
 *
 * Owns: the grouping, the order, the missing ranks (world size known) and the job's totals:
 * GPU-hours, energy, busy share and SM activity over the job's GPUs (the "gpus" of each
 * directory's job), a GPU recorded by several ranks of one node counted once (torchrun ranks
 * sharing a GPU: the record of the first rank in order).
 * Must not: read files (the caller hands in the series and its analysis) or format anything.
 */
#ifndef GW_JOB_SET_H
#define GW_JOB_SET_H

#include "analysis/analysis.h"
#include "record/job.h"

/* Missing ranks kept in gw_job_group.missing (a world size can be up to 1e9). */
enum { GW_JOB_MAX_LISTED = 1 << 16 };

typedef struct gw_job_figures {
    size_t ngpus;         /* GPUs counted */
    double gpu_hours;     /* sum of their record durations, hours */
    double energy_wh;     /* NAN when no GPU had energy */
    double busy_pct;      /* work-time weighted mean of busy_pct, NAN when unknown */
    double sm_active_pct; /* time-weighted mean gpm.sm_active, NAN without GPM */
} gw_job_figures;

typedef struct gw_job_member {
    char *path;
    gw_job ref;       /* meta.json "job" (logread/job_meta.h) */
    const char *node; /* ref.node, else the series' source of its first GPU, else path */
    gw_series *series;
    gw_analysis *a;
    gw_job_figures fig; /* this directory's GPUs of the job, none shared-out */
} gw_job_member;

typedef struct gw_job_group {
    const char *job_id; /* NULL: directories without a job id */
    const char *step;   /* the Slurm step: each step of a job is a world of its own, NULL: none */
    const char *scheduler;
    long world_size; /* the largest known, -1 when none says */
    size_t nworld_sizes;
    long *world_sizes; /* the distinct world sizes said, ascending (more than one: they disagree) */
    size_t nmembers;
    gw_job_member **members; /* ordered by node, then rank */
    size_t nranks;           /* distinct ranks present (below the world size when known) */
    size_t nmissing;         /* ranks 0..world_size-1 with no directory */
    long *missing;           /* the first GW_JOB_MAX_LISTED of them, ascending */
    size_t nduplicated;
    long *duplicated; /* ranks with more than one directory, ascending */
    size_t noutside;
    long *outside; /* ranks at or past the world size (a directory of another run?), ascending */
    gw_job_figures total; /* GPUs shared by ranks of one node counted once */
} gw_job_group;

typedef struct gw_job_set {
    size_t nmembers, cap;
    gw_job_member *members;
    size_t ngroups;
    gw_job_group *groups; /* in order of their first directory as given */
} gw_job_set;

gw_job_set *gw_job_set_new(void);
/* Adds one directory; the set takes ref (moved), s and a (freed with the set). */
void gw_job_set_add(gw_job_set *js, const char *path, gw_job *ref, gw_series *s, gw_analysis *a);
/* Groups, orders and adds up; call once after the last gw_job_set_add. */
void gw_job_set_finish(gw_job_set *js);
void gw_job_set_free(gw_job_set *js);

/* Whether GPU g of member m belongs to the job (its "gpus", all when it names none). */
bool gw_job_member_has_gpu(const gw_job_member *m, const gw_gpu_analysis *g);

#endif

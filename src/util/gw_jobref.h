/*
 * gw_jobref: the identity of the job a recording belongs to, as meta.json and summary.json carry
 * it in their "job" object (docs/run-directory.md; scheduler, job_id, rank, world_size, node,
 * user, the job's GPUs). Read by `gpuwatch report` when it gathers the run directories of one job
 * and by `gpuwatch report --fleet` over per-job summaries.
 *
 * Owns: reading that object into plain C values; absent members are NULL / -1, never "" or 0.
 * Must not: read files (the callers do), or write the object (src/record does).
 */
#ifndef GW_JOBREF_H
#define GW_JOBREF_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct gw_jobref {
    bool present; /* the "job" object existed */
    char *scheduler, *job_id, *step, *array_job_id, *array_task, *node, *user; /* NULL: absent */
    long rank, local_rank, world_size;                                         /* -1: absent */
    size_t ngpus;
    int *gpus; /* NVML indices the run belongs to; ngpus 0 and NULL when the list is absent */
    bool has_gpus;
} gw_jobref;

/* Fills r from a "job" object (NULL or not an object: r->present false, everything absent).
 * Strings are copied through the UTF-8 sanitiser; numbers outside 0..1e9 are absent. */
void gw_jobref_read(gw_jobref *r, const cJSON *job);
void gw_jobref_free(gw_jobref *r);
/* Whether GPU index belongs to the job (true when the job names no GPUs). */
bool gw_jobref_has_gpu(const gw_jobref *r, int index);

#endif

/*
 * job: whose run this is — the job's identity (scheduler, job id, step, array task, ranks, node,
 * user) and the GPUs it belongs to, for meta.json's "job" object (docs/run-directory.md "The
 * job") and the report (summary.json "job", verdicts' job_id and rank).
 *
 * Owns: reading both from the environment gpuwatch runs in (Slurm, torchrun, MPI, Kubernetes
 * variables; CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, SLURM_STEP_GPUS, SLURM_JOB_GPUS, in
 * that order of trust), mapping device names to NVML indices by UUID (CUDA's device order is not
 * NVML's), the "job" JSON object and reading it back.
 * Must not: call NVML (the caller passes the devices and MIG instances it read) or print (problems
 * come back as one line each in gw_job.warnings).
 */
#ifndef GW_JOB_H
#define GW_JOB_H

#include "sampler/sample.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

enum { GW_JOB_MAX_WARNINGS = 8 };

typedef struct gw_job {
    const char *scheduler;   /* "slurm", "torchrun", "mpi", "kubernetes", "none" (static) */
    char *job_id;            /* NULL = absent (null in JSON), never "" */
    char *step;              /* SLURM_STEP_ID */
    char *array_job_id;      /* SLURM_ARRAY_JOB_ID */
    char *array_task;        /* SLURM_ARRAY_TASK_ID */
    long rank;               /* -1 = absent */
    long local_rank;         /* -1 = absent */
    long world_size;         /* -1 = absent */
    char *node;              /* host name */
    char *user;              /* the job's user */
    size_t ngpus;            /* the GPUs the run belongs to, NVML indices, ascending */
    unsigned *gpus;          /* [ngpus] */
    char **gpu_uuids;        /* [ngpus], "" when unknown */
    const char *gpus_source; /* "CUDA_VISIBLE_DEVICES", ..., "processes", "all" (static) */
    char *gpus_note;         /* how the choice was made when it is not exact, or NULL */
    bool gpus_pending;       /* from the job's processes, not known yet (gw_job_set_from_procs) */
    bool gpus_unlisted;      /* read back from a "job" object without a "gpus" list */
    bool scope_node;         /* --scope node: other GPUs are shown (never judged) */
    size_t nwarnings;        /* one line each: a variable that names no GPU, a bad number */
    char *warnings[GW_JOB_MAX_WARNINGS];
} gw_job;

/* The environment to read: "NAME=VALUE" strings, NULL-terminated (NULL: the process's environ). */
typedef char *const *gw_job_env;

/* Reads the identity from env: scheduler, ids, ranks, node (gethostname), user. */
void gw_job_identity(gw_job *j, gw_job_env env);

/* Chooses the run's GPUs from env among the devices (and their MIG instances, for MIG-UUIDs).
 * With no variable that names GPUs: from the job's processes when have_job (gpus_pending, until
 * gw_job_set_from_procs), else every GPU ("all"). */
void gw_job_choose_gpus(gw_job *j, gw_job_env env, const gw_device_info *devs, unsigned ndevs,
                        const gw_mig_device *migs, unsigned nmigs, bool have_job);

/* Completes a pending choice: used[i] says whether a process of the job held device i. No device
 * used: every GPU ("all", with a note). */
void gw_job_set_from_procs(gw_job *j, const bool *used, const gw_device_info *devs, unsigned ndevs);

/* Whether NVML index `index` belongs to the run. */
bool gw_job_has_gpu(const gw_job *j, unsigned index);

/* The "job" object of meta.json and summary.json (schema: docs/run-directory.md). */
cJSON *gw_job_json(const gw_job *j);

/* Reads a "job" object back into j (overwritten, not freed): what gw_job_json wrote, and what a
 * person or another tool may write (docs/run-directory.md): a job id as a number, ranks as text.
 * Unknown members are ignored; wrong types, an unknown scheduler, a world size of 0 and numbers
 * outside 0..1e9 are absent (NULL, -1). Returns false (j absent) when o is not an object. */
bool gw_job_from_json(gw_job *j, const cJSON *o);

/* "job 4242 step 0, rank 1 of 4, node1": the report's header line (buf of size n); "" when the
 * job has no identity beyond its node. */
const char *gw_job_line(const gw_job *j, char *buf, size_t n);

/* Frees what j holds and zeroes it. */
void gw_job_clear(gw_job *j);

#endif

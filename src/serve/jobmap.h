/*
 * jobmap: dcgm-exporter's HPC job mapping directory for `gpuwatch serve --hpc-job-mapping-dir DIR`
 * (also DCGM_HPC_JOB_MAPPING_DIR), as written by deploy/slurm/gpuwatch-prolog.
 *
 * DIR holds a file per GPU, named after its NVML index ("0", "1", ...) or index.MIG for a MIG
 * instance ("0.3": GPU 0, GPU instance 3), listing one job id a line. As dcgm-exporter does, each
 * of a GPU's series is repeated once per distinct job id with an `hpc_job` label; a GPU with no
 * file, or an empty one, keeps its series without the label. gpuwatch serves whole GPUs, so the
 * job ids of a MIG file join its GPU's. Only the first word of a line is the id (Princeton
 * jobstats' "JOBID UID" lines work too; the second word is then the user). DIR/.jobs/JOBID, when
 * present, holds "user=NAME": the `user` label of gpuwatch_job_info{hpc_job,gpu,UUID,...} 1, one
 * series per GPU and job, so that dashboards can join on it. Other names are ignored, and so are
 * symlinks, FIFOs and other non-regular files (never followed nor waited on), files with NUL
 * bytes, lines whose id is not 1-128 characters of [A-Za-z0-9._+@-] (one warning) and ids past
 * the 256th of a GPU: only job ids reach the labels, never another file's contents.
 *
 * The directory is read again at each scrape (a few small files); the labels are rebuilt only
 * when what it says changed. A missing or unreadable DIR gives one warning (through the
 * callback) and no labels, and is retried at every scrape.
 *
 * Must not: call NVML or print (warnings go to the callback).
 */
#ifndef GW_JOBMAP_H
#define GW_JOBMAP_H

#include "prom/prom_store.h"
#include "prom/prom_text.h"
#include "util/gw_buf.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct gw_jobmap gw_jobmap;

/* warn(ctx, message) is called once when DIR becomes unreadable (and again after it recovered
 * and failed anew); warn may be NULL. */
typedef void (*gw_jobmap_warn_fn)(void *ctx, const char *message);

/* A map reading dir (copied). Nothing is read until gw_jobmap_reload. */
gw_jobmap *gw_jobmap_new(const char *dir, gw_jobmap_warn_fn warn, void *ctx);
void gw_jobmap_free(gw_jobmap *m);

/* Reads DIR again. Returns true when the mapping differs from the last read. */
bool gw_jobmap_reload(gw_jobmap *m);

/* The job ids of GPU `index` (MIG files included), in file order, without repeats; *n is their
 * count. Valid until the next reload. */
const char *const *gw_jobmap_jobs(const gw_jobmap *m, unsigned index, unsigned *n);

/* What a scrape renders: snap and labels with each GPU repeated once per job id and
 * `,hpc_job="ID"` appended to its labels (processes follow their GPU). When no GPU has a job,
 * *out_snap = snap and *out_labels = labels. Valid until the next call or reload. */
void gw_jobmap_apply(gw_jobmap *m, const gw_prom_snapshot *snap, const char *const *labels,
                     const gw_prom_snapshot **out_snap, const char *const **out_labels);

/* gpuwatch_job_info{<GPU labels>,hpc_job,user[,GPU_I_ID]} 1 for each GPU and job of snap; nothing
 * when no GPU has a job. labels are the GPUs' own (without hpc_job). */
void gw_jobmap_render_info(const gw_jobmap *m, gw_buf *b, gw_prom_format f,
                           const gw_prom_snapshot *snap, const char *const *labels);

#endif

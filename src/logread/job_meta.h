/*
 * job_meta: the job a run directory belongs to, from its meta.json "job" object (gw_jobref.h),
 * for `gpuwatch report` gathering the directories of one job (docs/report.md, "One job, several
 * ranks").
 *
 * Must not: read anything else of the directory (rundir.c does).
 */
#ifndef GW_LOGREAD_JOB_META_H
#define GW_LOGREAD_JOB_META_H

#include "util/gw_error.h"
#include "util/gw_jobref.h"

/* Fills r from path/meta.json's "job" object. A path that is not a directory, a directory
 * without meta.json, or a meta.json without "job" give r->present false and GW_OK. Errors:
 * GW_E_FORMAT naming the file when meta.json is not JSON. */
GW_MUST_USE gw_rc gw_logread_job(const char *path, gw_jobref *r, gw_error *err);

#endif

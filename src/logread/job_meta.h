/*
 * job_meta: the job a run directory belongs to, from its meta.json "job" object (record/job.h),
 * its text made safe to print and to write into JSON: for the series of a run directory (rundir.c)
 * and for `gpuwatch report` gathering the directories of one job (docs/report.md, "One job, several
 * ranks").
 *
 * Must not: read anything else of the directory (rundir.c does).
 */
#ifndef GW_LOGREAD_JOB_META_H
#define GW_LOGREAD_JOB_META_H

#include "record/job.h"
#include "util/gw_error.h"

#include <cjson/cJSON.h>

/* Fills j from meta's "job" object (gw_job_from_json), its strings through gw_utf8_clean_dup
 * (valid UTF-8 without control characters: util/gw_utf8.h).
 * Returns false (j absent: NULL, -1) when meta has no "job" object. */
bool gw_logread_job_of_meta(gw_job *j, const cJSON *meta);

/* Fills j from path/meta.json's "job" object (gw_job_clear it). A path that is not a directory, a
 * directory without meta.json, or a meta.json without "job" leave j absent and give GW_OK.
 * Errors: GW_E_FORMAT naming the file when meta.json is not JSON. */
GW_MUST_USE gw_rc gw_logread_job(const char *path, gw_job *j, gw_error *err);

#endif

/*
 * report/jobs: the report of several run directories gathered by job (analysis/job_set.h): per
 * rank/node lines, the job's totals, the missing ranks, each directory's verdicts under the rank
 * and node they belong to; as text and as summary.json (docs/summary-json.md, "Job reports").
 *
 * Must not: compute anything job_set and the analysis did not.
 */
#ifndef GW_REPORT_JOBS_H
#define GW_REPORT_JOBS_H

#include "analysis/job_set.h"
#include "report/report.h"

/* "2 of 4 ranks: rank 1 and 3 missing", "4 of 4 ranks", "2 ranks (world size unknown)", "3
 * directories (no ranks)". */
char *gw_report_job_ranks_line(const gw_job_group *grp); /* newly allocated */

/* What does not add up in the ranks, one line each, or NULL when nothing: "World sizes
 * disagree: 4 and 8; counted against 8.", "Rank 1 has more than one directory.", "Rank 5 is at
 * or past the world size (4)." Newly allocated. */
char *gw_report_job_rank_notes(const gw_job_group *grp);

/* The text report: one line when the directories belong to several jobs, then per job its head
 * line, a table of its directories, its totals and each directory's verdicts. */
void gw_report_jobs_text(FILE *out, const gw_job_set *js, const gw_report_opts *o);

/* summary.json of a job report; the caller frees it with cJSON_Delete. */
cJSON *gw_report_jobs_json(const gw_job_set *js);

/* Writes it to path ("-": stdout), whole or not at all. Errors: GW_E_IO naming the path. */
GW_MUST_USE gw_rc gw_report_write_jobs_json(const gw_job_set *js, const char *path, gw_error *err);

#endif

/*
 * report_jobs: the two forms of `gpuwatch report` beside the single report (cmd_report.c):
 * run directories gathered by job (docs/report.md, "One job, several ranks") and the fleet view
 * over per-job summaries or Prometheus (docs/report.md, "Fleet").
 *
 * Must not: hold grouping, ranking or rendering logic (analysis/job_set, report/jobs, fleet/).
 */
#ifndef GW_CLI_REPORT_JOBS_H
#define GW_CLI_REPORT_JOBS_H

#include "cli/inputs.h"

#include <stdbool.h>

/* Whether the inputs are run directories of named jobs: two or more, every one a directory whose
 * meta.json has a "job" object, at least one with a job id. Such inputs make a job report. */
bool gw_cli_inputs_are_jobs(const gw_cli_inputs *in);

/* The job report: each directory read and judged on its own, gathered by job id. json: NULL or
 * the --json target; html: NULL or --html (refused: one page per directory is run's); fail_on:
 * gw_severity or -1. Returns the exit status. */
int gw_cli_report_jobs(const gw_cli_inputs *in, const char *json, const char *html, int fail_on);

/* Whether argv asks for the fleet view (--fleet before a lone "--"). */
bool gw_cli_wants_fleet(int argc, char **argv);
/* `gpuwatch report --fleet SRC...`: returns the exit status. */
int gw_cmd_report_fleet(int argc, char **argv);

#endif

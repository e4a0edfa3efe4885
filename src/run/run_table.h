/*
 * run_table: fills the end-of-run table (summary/run_summary.h) from the analysis of the recorded
 * run, so that the table shows the figures summary.json holds (one statistics engine, src/stats).
 * Must not: compute statistics itself (it only picks them and names their units).
 */
#ifndef GW_RUN_TABLE_H
#define GW_RUN_TABLE_H

#include "analysis/analysis.h"
#include "summary/run_summary.h"

/* Sets the figures of every GPU and of the job in rs. */
void gw_run_table_fill(const gw_analysis *a, gw_run_summary *rs);

/* A gw_report_hook (report/report.h) that fills the table and prints it, before the report
 * prints its verdict lines. */
typedef struct gw_run_table {
    gw_run_summary *rs;
    FILE *to;
    bool printed;
} gw_run_table;
void gw_run_table_hook(const gw_analysis *a, void *ctx);

/* Prints the table when the hook did not run (the recording could not be analysed), with the
 * job's figures from run_dir/host.csv when it has rows. */
void gw_run_table_finish(gw_run_table *t, const char *run_dir);

#endif

/*
 * report: renders an analysis (analysis/analysis.h) for people and programs.
 *
 * Owns: the text report (verdicts first, then a table per GPU, then epochs and marks), the one-line
 * verdict form printed by `gpuwatch run` at the end of a job, summary.json (schema in
 * docs/summary-json.md), the self-contained HTML report with its charts (docs/charts.md; uPlot
 * and the page's script are embedded at build time, see assets.h), and gw_report_finish_run,
 * which does read + analyse + write for a finished run directory.
 * Must not: compute anything the analysis did not (only formatting and unit conversion), or read
 * inputs other than through logread/ (finish_run only wires).
 */
#ifndef GW_REPORT_H
#define GW_REPORT_H

#include "analysis/analysis.h"
#include "util/gw_error.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct gw_report_opts {
    bool color;          /* ANSI colour for severities (the caller checks NO_COLOR and isatty) */
    int width;           /* the columns the report's own wrapped lines fit: 0 = 80 (a pipe); the
                            terminal's width on a terminal (gw_wrap_width_of) */
    bool short_evidence; /* the Evidence section lists of a verdict with more than 8 figures
                            only those compared with a threshold, its cause and what was
                            missing, and how many more there are (`report` without -v) */
} gw_report_opts;

/* Writes the text report. o may be NULL (no colour, 80 columns, every evidence figure). */
void gw_report_text(FILE *out, const gw_analysis *a, const gw_report_opts *o);

/* Writes one line per verdict, severity first:
 * "warning   memory_leak  GPU 0  memory.used grows ...". Nothing when there is no verdict. */
void gw_report_verdict_lines(FILE *out, const gw_analysis *a, const gw_report_opts *o);

/* The job's markers (mark events of run directories): the "Marks" section of the text report
 * (every mark, except that a text marked more than 10 times gets one summary line), and the
 * "marks" (at most 1000) and "marks_total" members of summary.json. */
void gw_report_marks_text(FILE *out, const gw_analysis *a);
/* A verdict's evidence number as the text and the HTML report print it (the same digits in
 * both: 0 decimals from 100 and for integers, 1 from 10, 2 from 1, else 3); "unknown" when
 * absurd. */
const char *gw_report_evidence_num(double x, char *buf, size_t size);
/* True when no input knows the date (rows at an interval, elapsed seconds, dmon without Date):
 * times are then shown as seconds from the start of the file, never as 1970 (text and HTML). */
bool gw_report_dateless(const gw_series *s);

/* Whether the epochs' rows hold what the job's phases (logread/timeline.h) showed: the epochs
 * have training and validation parts, or the phases hold no evaluation. Then the text and HTML
 * reports show the epochs alone; else the job's phases too (text_epochs.c). */
bool gw_report_epochs_cover_phases(const gw_analysis *a);
/* A time: RFC 3339, or "+12.5 s" from the start of the file when the date is unknown; buf holds
 * GW_RFC3339_LEN bytes. */
const char *gw_report_when(const gw_analysis *a, int64_t ms, char *buf);
/* Why no verdict was given, in the words of what is missing (text and HTML say the same). */
const char *gw_report_no_verdict_reason(const gw_analysis *a);
void gw_report_marks_json(cJSON *root, const gw_analysis *a);

/* The job a verdict about GPU slot gpu belongs to (meta.json "job" of the GPU's run directory;
 * gpu -1: the first run directory's), or NULL when the inputs say nothing about a job. */
const gw_job *gw_report_job(const gw_analysis *a, int gpu);
/* Builds summary.json (docs/summary-json.md); the caller frees it with cJSON_Delete. */
cJSON *gw_report_json(const gw_analysis *a);

/* Writes summary.json to path, or to stdout when path is "-". The file appears whole or not at
 * all (util/gw_file.h: a temporary file renamed into place; a link at path is replaced, not
 * followed). Errors: GW_E_IO naming the path. */
GW_MUST_USE gw_rc gw_report_write_json(const gw_analysis *a, const char *path, gw_error *err);
/* The same for name in the directory dirfd; label names it in messages. */
GW_MUST_USE gw_rc gw_report_write_json_at(const gw_analysis *a, int dirfd, const char *name,
                                          const char *label, gw_error *err);

/* Pixel columns of the HTML charts' time axis: a longer recording keeps the minimum and maximum
 * of each column (two points), so spikes stay visible at any length. */
#define GW_HTML_COLUMNS 1600
/* Processes shown one by one in the per-process memory chart; the rest are summed. */
#define GW_HTML_MAX_PROCS 16

typedef struct gw_html_opts {
    size_t columns;   /* 0: GW_HTML_COLUMNS */
    size_t max_procs; /* 0: every process on its own */
} gw_html_opts;

/* Writes the HTML report: inputs, verdicts, per-GPU summary and epochs as tables, then the charts
 * (GPU-Util with SM/tensor activity, memory, temperature, power, SM clock with throttle bands,
 * job CPU/RSS, per-process memory) with epochs and verdict spans on each. Everything taken from
 * the inputs is HTML-escaped; nothing is fetched when the page is viewed. o may be NULL
 * (defaults). */
void gw_report_html(FILE *out, const gw_analysis *a, const gw_html_opts *o);

/* Writes the HTML report to path, or to stdout when path is "-", whole or not at all (as
 * gw_report_write_json). Errors: GW_E_IO naming the path. */
GW_MUST_USE gw_rc gw_report_write_html(const gw_analysis *a, const char *path,
                                       const gw_html_opts *o, gw_error *err);
/* The same for name in the directory dirfd; label names it in messages. */
GW_MUST_USE gw_rc gw_report_write_html_at(const gw_analysis *a, int dirfd, const char *name,
                                          const char *label, const gw_html_opts *o, gw_error *err);

/* For `gpuwatch run`: reads the finished run directory run_dir, analyses it, prints the verdict
 * lines to out, or "no verdict: why" (NULL: print nothing) and writes summary.json and report.html
 * into dirfd (the run directory's descriptor; each file whole or not at all). The verdict lines are
 * printed whatever the writes do. Errors: those of the reader (GW_E_IO, GW_E_FORMAT: nothing
 * printed or written), of writing summary.json or report.html (GW_E_IO, one message naming what is
 * missing and how to write it again), or GW_E_IO when run_dir no longer names the directory dirfd
 * (it was moved or replaced while recording: nothing is read from the replacement). */
GW_MUST_USE gw_rc gw_report_finish_run(const char *run_dir, int dirfd, FILE *out, gw_error *err);

/* The same with a hook that receives the analysis before anything is written (the end-of-run
 * table takes its figures from it: one statistics engine); write_files false only reads and
 * analyses (`run --no-report`). */
typedef void (*gw_report_hook)(const gw_analysis *a, void *ctx);
GW_MUST_USE gw_rc gw_report_finish_run_with(const char *run_dir, int dirfd, bool write_files,
                                            gw_report_hook hook, void *ctx, FILE *out,
                                            gw_error *err);

#endif

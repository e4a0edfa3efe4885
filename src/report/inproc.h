/*
 * report/inproc: the in-job data (analysis/inproc.h) in the three outputs: the text section
 * "Inside the job" (80 columns), summary.json's "inproc" block (docs/report.md) and the HTML
 * section with a flame graph per role (inline SVG, no script, offline).
 * Must not: decide anything (the analysis did) or read files.
 */
#ifndef GW_REPORT_INPROC_H
#define GW_REPORT_INPROC_H

#include "analysis/analysis.h"
#include "util/gw_buf.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

/* The section; when the inputs include a run directory without in-job data, one line why.
 * Lines fit width columns (80 in a pipe). */
void gw_report_inproc_text(FILE *out, const gw_analysis *a, int width);
/* Adds "inproc" to summary.json's root: an object, with "present": false and "why" without
 * in-job data. */
void gw_report_inproc_json(cJSON *root, const gw_analysis *a);
/* Writes the HTML section (without in-job data, a one-line note when an input is a run
 * directory). */
void gw_report_inproc_html(FILE *out, const gw_analysis *a);
/* True when an input of the analysis is a run directory (where in-job data could be). */
bool gw_report_inproc_expected(const gw_analysis *a);
/* The training process's settings in one sentence ("torch threads 8 (interop 8; in a worker 1),
 * cv2 threads 8 (in a worker 0), autocast no, ..."), appended to b; false (nothing written)
 * when it wrote none. */
bool gw_report_inproc_settings(gw_buf *b, const gw_inproc_analysis *ia);
/* The allocator in one phrase ("allocated at epoch ends 21.9, 22 GiB (peak 22), reserved up to
 * 28.9 GiB, max_allocated 24.4 GiB"), appended to b. */
void gw_report_inproc_memory(gw_buf *b, const gw_inproc_analysis *ia);
/* The "where:", validation-loader and per-rank lines of the text section (each "  ...\n"), for
 * the HTML page. */
void gw_report_inproc_notes(gw_buf *b, const gw_inproc_analysis *ia);
/* A function name cut to fit a table column: its end kept after "..." (buf of size bytes). */
const char *gw_report_inproc_fn_cut(const char *name, char *buf, size_t size);

#endif

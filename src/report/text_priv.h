/*
 * text_priv: what the parts of the text report share (text.c: header, inputs, evidence, GPU
 * tables, epochs; text_findings.c: the first screen).
 * Must not: be included outside src/report/.
 */
#ifndef GW_TEXT_PRIV_H
#define GW_TEXT_PRIV_H

#include "analysis/analysis.h"

#include <stdbool.h>
#include <stdio.h>

/* The ANSI colour of a severity (bold red, yellow, cyan). */
const char *gw_text_sev_color(gw_severity s);

/* The first screen: each verdict's one-line finding and its one suggestion, GPUs sharing a
 * verdict (same id, severity and cause) in one block; "none: why" without verdicts. Lines are
 * written whole; the caller's wrap stream fits them to the width. */
void gw_report_findings_text(FILE *out, const gw_analysis *a, bool color);

/* "GPU 0", "GPUs 0-3, 6" or "node1 GPU 0, node2 GPU 1" for the verdicts v[idx[0..n)] of a. */
char *gw_report_gpu_group(const gw_analysis *a, const gw_verdict *const *v, size_t n);

/* The job's epochs in one table (each epoch's time, steps, GPU busy share and energy, with the
 * time before the first and after the last), and the job's phases from its output when it has
 * no epochs or its epochs do not show them (text_epochs.c). Its "found:" line fits width. */
void gw_report_epochs_text(FILE *out, const gw_analysis *a, int width);

#endif

/*
 * html_priv: what the two halves of the HTML report share (html.c writes the page, the chart data
 * and the embedded assets; html_tables.c the verdict, summary and epoch tables).
 * Must not: be included outside src/report/.
 */
#ifndef GW_HTML_PRIV_H
#define GW_HTML_PRIV_H

#include "analysis/analysis.h"

#include <stdio.h>

/* Writes s with &, <, >, " and ' replaced by entities (safe in text and in quoted attributes). */
void gw_html_escape(FILE *out, const char *s);

/* Writes the header (inputs, time span) and the verdicts, per-GPU summary and epochs tables. */
void gw_html_tables(FILE *out, const gw_analysis *a);

#endif

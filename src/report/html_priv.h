/*
 * html_priv: what the two halves of the HTML report share (html.c writes the page, the chart data
 * and the embedded assets; html_tables.c the verdict, summary and epoch tables).
 * Must not: be included outside src/report/.
 */
#ifndef GW_HTML_PRIV_H
#define GW_HTML_PRIV_H

#include "analysis/analysis.h"
#include "chart/chart.h"
#include "util/gw_buf.h"

#include <stdio.h>

/* Writes s with &, <, >, " and ' replaced by entities (safe in text and in quoted attributes). */
void gw_html_escape(FILE *out, const char *s);

/* Writes the header (inputs, time span) and the verdicts, per-GPU summary and epochs tables. */
void gw_html_tables(FILE *out, const gw_analysis *a);

/* The page up to <body> (title HTML-escaped), and from the charts to the end: the chart data
 * (docs/charts.md), uPlot and the page's script. compare_html.c writes its own page with them. */
void gw_html_head(FILE *out, const char *title);
void gw_html_charts_tail(FILE *out, const gw_buf *data);
/* A JSON string safe inside the data block; one trace on a grid as the page's script reads it. */
void gw_html_json_str(gw_buf *b, const char *s);
void gw_html_series_json(gw_buf *b, const gw_chart_grid *g, const gw_trace *t, const char *label,
                         int axis);
/* The marks the charts draw (gpuwatch mark, python/gpuwatch.py): ,"marks":[{"t": unix s, "label"}]
 * in the page's data; a text marked more often than the text report lists (epoch, step) is
 * left out, and at most GW_HTML_MAX_MARKS are drawn (marks.c). */
#define GW_HTML_MAX_MARKS 200
void gw_report_marks_chart_json(gw_buf *b, const gw_analysis *a);

#endif

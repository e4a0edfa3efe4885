/*
 * plot: static charts of a recording as PNG or SVG, drawn with cairo, for chats and papers.
 *
 * Owns: the layout of `gpuwatch plot` images — one panel per pair of metrics (the first on the
 * left axis, solid; the second on the right axis, dashed), time since the start on the x axis,
 * axes with units, a legend per panel, reference lines (memory total, slowdown temperature, power
 * limit) and epoch boundaries; long recordings are decimated to the panel's pixel columns (min
 * and max per column, chart/chart.h) so spikes stay visible. Also nice axis ticks.
 * Must not: read inputs or analyse (it draws what chart/ and the analysis give it). After drawing
 * it releases cairo's and fontconfig's font caches (a plot is drawn once per process).
 */
#ifndef GW_PLOT_H
#define GW_PLOT_H

#include "analysis/analysis.h"
#include "chart/chart.h"
#include "util/gw_error.h"

#include <stddef.h>

enum { GW_PLOT_MAX_PANELS = 4, GW_PLOT_WIDTH_PX = 1200, GW_PLOT_PANEL_HEIGHT_PX = 400 };

/* The default panels: temperature + memory, then utilisation + power. */
#define GW_PLOT_DEFAULT_METRICS "temp,memory,util,power"

typedef enum gw_plot_format { GW_PLOT_PNG, GW_PLOT_SVG } gw_plot_format;

typedef struct gw_plot_opts {
    int width_px;        /* image width; 0: GW_PLOT_WIDTH_PX */
    int panel_height_px; /* 0: GW_PLOT_PANEL_HEIGHT_PX */
    int npanels;
    int metric[GW_PLOT_MAX_PANELS][2]; /* gw_chart_metric on the left and right axis; -1: none */
} gw_plot_opts;

/* Parses a --metrics list ("temp,memory,util,power": names of gw_chart_metrics, paired into
 * panels in order; an odd last one gets a panel of its own) into o's panels. Errors: GW_E_USAGE
 * naming an unknown metric (with the list of known ones), an empty list, or more than
 * 2 * GW_PLOT_MAX_PANELS metrics. */
GW_MUST_USE gw_rc gw_plot_parse_metrics(const char *list, gw_plot_opts *o, gw_error *err);

/* The format a file name asks for by its extension (.png, .svg; any case), or -1. */
int gw_plot_format_of(const char *path);

/* Draws the panels of o for analysis a into path as PNG or SVG. A panel whose metrics have no
 * data says so in its middle. Errors: GW_E_IO naming the path when cairo cannot write it. */
GW_MUST_USE gw_rc gw_plot_write(const gw_analysis *a, const gw_plot_opts *o, const char *path,
                                gw_plot_format fmt, gw_error *err);

/* ---- axis helpers, exposed for tests ---- */

/* A step of 1, 2 or 5 times a power of ten such that [lo, hi] holds about `ticks` steps. */
double gw_plot_nice_step(double lo, double hi, int ticks);

/* A step in seconds for a time axis of span_s seconds with about `ticks` labels: 1, 2, 5, 10,
 * 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, then whole days. */
double gw_plot_time_step(double span_s, int ticks);

/* Formats an elapsed time for a tick: "45 s" style is not used; "m:ss" below an hour of span,
 * "h:mm" from an hour, "Nd h:mm" from a day. */
void gw_plot_format_elapsed(double t_s, double span_s, char *buf, size_t len);

#endif

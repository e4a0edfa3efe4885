/* Axis ticks and labels of the plots, and the --metrics list (see plot.h). */
#include "plot/plot.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gw_plot_nice_step(double lo, double hi, int ticks)
{
    double span = hi - lo;
    if (!(span > 0) || ticks < 1)
        return 1;
    double raw = span / ticks;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

double gw_plot_time_step(double span_s, int ticks)
{
    static const double steps[] = {1,   2,   5,    10,   15,   30,    60,    120,   300,
                                   600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
    if (ticks < 1)
        ticks = 1;
    double raw = span_s / ticks;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] >= raw)
            return steps[i];
    return 86400 * ceil(raw / 86400);
}

void gw_plot_format_elapsed(double t_s, double span_s, char *buf, size_t len)
{
    long s = lround(t_s);
    if (span_s < 3600)
        snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
    else if (span_s < 86400 || s < 86400)
        snprintf(buf, len, "%ld:%02ld", s / 3600, (s / 60) % 60);
    else
        snprintf(buf, len, "%ldd %ld:%02ld", s / 86400, (s / 3600) % 24, (s / 60) % 60);
}

int gw_plot_format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return -1;
    char ext[8] = "";
    for (size_t i = 0; i + 1 < sizeof ext && dot[i + 1]; i++)
        ext[i] = (char)tolower((unsigned char)dot[i + 1]), ext[i + 1] = '\0';
    if (strlen(dot + 1) >= sizeof ext)
        return -1;
    return strcmp(ext, "png") == 0 ? GW_PLOT_PNG : strcmp(ext, "svg") == 0 ? GW_PLOT_SVG : -1;
}

static gw_rc unknown_metric(const char *name, gw_error *err)
{
    char known[256] = "";
    for (int m = 0; m < GW_CM_COUNT; m++) {
        strncat(known, gw_chart_metrics[m].key, sizeof known - strlen(known) - 1);
        if (m + 1 < GW_CM_COUNT)
            strncat(known, ", ", sizeof known - strlen(known) - 1);
    }
    return gw_error_set(err, GW_E_USAGE, "--metrics: unknown metric '%s'; known: %s", name, known);
}

gw_rc gw_plot_parse_metrics(const char *list, gw_plot_opts *o, gw_error *err)
{
    int m[2 * GW_PLOT_MAX_PANELS], n = 0;
    char *copy = xstrdup(list), *save = NULL;
    gw_rc rc = GW_OK;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        tok[strcspn(tok, " \t")] = '\0';
        int k = gw_chart_metric_parse(tok);
        if (k < 0)
            rc = unknown_metric(tok, err);
        else if (n == 2 * GW_PLOT_MAX_PANELS)
            rc = gw_error_set(err, GW_E_USAGE, "--metrics: at most %d metrics (%d panels of two)",
                              2 * GW_PLOT_MAX_PANELS, GW_PLOT_MAX_PANELS);
        else
            m[n++] = k;
    }
    free(copy);
    if (!rc && n == 0)
        rc = gw_error_set(err, GW_E_USAGE, "--metrics: give metrics such as temp,memory");
    if (rc)
        return rc;
    o->npanels = (n + 1) / 2;
    for (int p = 0; p < o->npanels; p++) {
        o->metric[p][0] = m[2 * p];
        o->metric[p][1] = 2 * p + 1 < n ? m[2 * p + 1] : -1;
    }
    return GW_OK;
}

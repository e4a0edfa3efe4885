/* PNG/SVG panels drawn with cairo (see plot.h). */
#include "plot/plot.h"

#include "util/gw_file.h"
#include "plot/cairo_dl.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double palette[][3] = {
    {0.12, 0.47, 0.71}, {0.84, 0.15, 0.16}, {0.17, 0.63, 0.17}, {0.58, 0.40, 0.74},
    {1.00, 0.50, 0.05}, {0.09, 0.75, 0.81}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76},
};
enum { NPALETTE = sizeof palette / sizeof palette[0] };
/* Colours by axis when one GPU is shown: left metric red, right metric blue. */
static const double axis_color[2][3] = {{0.80, 0.15, 0.15}, {0.12, 0.40, 0.75}};
static const double axis_grey[3] = {0.2, 0.2, 0.2};

enum { MARGIN_L = 78, MARGIN_R = 78, MARGIN_B = 52 };
static const char *const FONT = "DejaVu Sans";

/* Where one panel draws and the mapping of its axes. */
typedef struct panel {
    double x, y, w, h;   /* plot area in device units */
    int64_t t0, t1;      /* time span */
    double lo[2], hi[2]; /* y range of the left and right axis */
    int metric[2];
    bool per_gpu_color; /* several GPUs: colour by GPU, else by axis */
} panel;

/* The traces of each axis, placed on a grid of the panel's pixel columns. */
typedef struct panel_data {
    gw_trace_list traces[2];
    gw_chart_grid grid[2];
    gw_placed *placed[2];
} panel_data;

static double px_of_t(const panel *p, double t_ms)
{
    return p->x + (t_ms - (double)p->t0) / (double)(p->t1 - p->t0) * p->w;
}

static double py_of(const panel *p, int axis, double v)
{
    return p->y + p->h - (v - p->lo[axis]) / (p->hi[axis] - p->lo[axis]) * p->h;
}

static void set_rgb(cairo_t *cr, const double c[3])
{
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}

static void text_at(cairo_t *cr, double x, double y, const char *s, double align, double size,
                    bool bold)
{
    cairo_text_extents_t e;
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align * e.x_advance, y);
    cairo_show_text(cr, s);
}

/* The y range of one axis: the placed values and references, widened to nice steps; 0..100 for
 * percentages of a GPU, from 0 for amounts. */
static void axis_range(const panel_data *d, int axis, int metric, double *lo, double *hi)
{
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < d->traces[axis].n; i++) {
        const gw_trace *t = &d->traces[axis].v[i];
        if (t->reference) {
            mn = fmin(mn, t->constant), mx = fmax(mx, t->constant);
            continue;
        }
        for (size_t k = 0; k < d->placed[axis][i].n; k++)
            if (!isnan(d->placed[axis][i].v[k]))
                mn = fmin(mn, d->placed[axis][i].v[k]), mx = fmax(mx, d->placed[axis][i].v[k]);
    }
    if (!isfinite(mn))
        mn = 0, mx = 1;
    bool pct = metric == GW_CM_UTIL || metric == GW_CM_SM || metric == GW_CM_TENSOR;
    if (metric != GW_CM_TEMP)
        mn = fmin(mn, 0);
    if (pct)
        mx = fmax(mx, 100);
    if (mx <= mn)
        mx = mn + 1;
    double step = gw_plot_nice_step(mn, mx, 5);
    *lo = floor(mn / step) * step;
    *hi = ceil(mx / step) * step;
    if (*hi - mx < step * 0.02 && !pct)
        *hi += step;
}

static void x_axis(cairo_t *cr, const panel *p, bool labels)
{
    double span_s = (double)(p->t1 - p->t0) / 1000.0;
    double step = gw_plot_time_step(span_s, (int)(p->w / 110));
    cairo_set_line_width(cr, 1);
    for (double s = 0; s <= span_s + 1e-9; s += step) {
        double x = px_of_t(p, (double)p->t0 + s * 1000.0);
        cairo_set_source_rgb(cr, 0.90, 0.90, 0.90);
        cairo_move_to(cr, floor(x) + 0.5, p->y);
        cairo_line_to(cr, floor(x) + 0.5, p->y + p->h);
        cairo_stroke(cr);
        if (labels) {
            char buf[32];
            gw_plot_format_elapsed(s, span_s, buf, sizeof buf);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            text_at(cr, x, p->y + p->h + 18, buf, 0.5, 12, false);
        }
    }
}

static void y_axis(cairo_t *cr, const panel *p, int axis, const double color[3])
{
    const gw_chart_metric_info *mi = &gw_chart_metrics[p->metric[axis]];
    double step = gw_plot_nice_step(p->lo[axis], p->hi[axis], 5);
    /* Counted, not accumulated: lo + step can equal lo when the values are huge. */
    for (int k = 0; k <= 64; k++) {
        double v = p->lo[axis] + k * step;
        if (!(v <= p->hi[axis] + step * 1e-6))
            break;
        double y = py_of(p, axis, v);
        char buf[GW_FMT_SIZE];
        gw_fmt_sig(buf, sizeof buf, fabs(v) < step * 1e-6 ? 0 : v, 6, "");
        if (axis == 0) {
            cairo_set_source_rgb(cr, 0.90, 0.90, 0.90);
            cairo_move_to(cr, p->x, floor(y) + 0.5);
            cairo_line_to(cr, p->x + p->w, floor(y) + 0.5);
            cairo_stroke(cr);
        }
        set_rgb(cr, color);
        text_at(cr, axis == 0 ? p->x - 6 : p->x + p->w + 6, y + 4, buf, axis == 0 ? 1 : 0, 12,
                false);
    }
    char label[96];
    snprintf(label, sizeof label, "%s [%s]", mi->label, mi->unit);
    cairo_save(cr);
    cairo_translate(cr, axis == 0 ? p->x - 58 : p->x + p->w + 62, p->y + p->h / 2);
    cairo_rotate(cr, axis == 0 ? -M_PI / 2 : M_PI / 2);
    set_rgb(cr, color);
    text_at(cr, 0, 0, label, 0.5, 13, true);
    cairo_restore(cr);
}

static const double *trace_color(const panel *p, int axis, const gw_trace *t)
{
    static const double grey[3] = {0.45, 0.45, 0.45};
    if (t->reference)
        return p->per_gpu_color || p->metric[1] < 0 ? grey : axis_color[axis];
    if (p->per_gpu_color && t->gpu >= 0)
        return palette[t->gpu % NPALETTE];
    return axis_color[axis];
}

static void line_style(cairo_t *cr, int axis, const gw_trace *t)
{
    static const double dash[] = {7, 4};
    static const double ref_dash[] = {3, 3};
    cairo_set_line_width(cr, t->reference ? 1.2 : 1.4);
    if (t->reference)
        cairo_set_dash(cr, ref_dash, 2, 0);
    else
        cairo_set_dash(cr, dash, axis == 1 ? 2 : 0, 0);
}

/* One trace: a polyline through its placed points, broken where a value is absent. */
static void draw_trace(cairo_t *cr, const panel *p, int axis, const gw_chart_grid *g,
                       const gw_trace *t, const gw_placed *pl)
{
    set_rgb(cr, trace_color(p, axis, t));
    line_style(cr, axis, t);
    if (t->reference) {
        double y = py_of(p, axis, t->constant);
        char label[160];
        cairo_move_to(cr, p->x, y);
        cairo_line_to(cr, p->x + p->w, y);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        char c[GW_FMT_SIZE];
        snprintf(label, sizeof label, "%s %s %s", t->label,
                 gw_fmt_auto(c, sizeof c, t->constant, "?"), gw_chart_metrics[t->metric].unit);
        text_at(cr, axis == 0 ? p->x + 6 : p->x + p->w - 6, y - 4, label, axis == 0 ? 0 : 1, 11,
                false);
        return;
    }
    bool pen = false;
    for (size_t k = 0; k < pl->n; k++) {
        if (isnan(pl->v[k])) {
            pen = false;
            continue;
        }
        double x = px_of_t(p, (double)g->t_ms[pl->idx[k]]), y = py_of(p, axis, pl->v[k]);
        if (pen)
            cairo_line_to(cr, x, y);
        else
            cairo_move_to(cr, x, y), cairo_line_to(cr, x + 0.01, y);
        pen = true;
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

static void draw_epochs(cairo_t *cr, const panel *p, const gw_analysis *a)
{
    static const double dash[] = {2, 3};
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_line_width(cr, 1);
    double last_label = -1e9;
    for (size_t k = 0; k < a->nepochs; k++) {
        double x = px_of_t(p, (double)a->epochs[k].start_ms);
        if (x < p->x || x > p->x + p->w)
            continue;
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, floor(x) + 0.5, p->y);
        cairo_line_to(cr, floor(x) + 0.5, p->y + p->h);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        char buf[32];
        snprintf(buf, sizeof buf, "epoch %ld", a->epochs[k].number);
        if (x - last_label > 60) /* labels of dense epochs would overlap */
            text_at(cr, x + 3, p->y + 12, buf, 0, 10, false), last_label = x;
    }
}

/* One legend entry: a line sample and a label. */
typedef struct legend_entry {
    const double *color;
    int style; /* 0 solid, 1 dashed (right axis), 2 reference */
    char label[128];
} legend_entry;

/* With several GPUs: a colour per GPU, then a line style per metric and the references; with one:
 * an entry per trace. Returns the count (at most max). */
static size_t legend_entries(const panel *p, const panel_data *d, legend_entry *e, size_t max)
{
    static const double grey[3] = {0.35, 0.35, 0.35};
    size_t n = 0;
    bool seen[64] = {false};
    for (int axis = 0; axis < 2; axis++)
        for (size_t i = 0; i < d->traces[axis].n && n < max; i++) {
            const gw_trace *t = &d->traces[axis].v[i];
            if (t->reference || !p->per_gpu_color || t->gpu < 0 || t->gpu >= 64)
                continue;
            if (!seen[t->gpu]) {
                seen[t->gpu] = true;
                char *l = strstr(t->label, "GPU") ? xstrdup(t->label) : xasprintf("GPU %d", t->gpu);
                e[n] = (legend_entry){palette[t->gpu % NPALETTE], 0, ""};
                snprintf(e[n++].label, sizeof e->label, "%s", l);
                free(l);
            }
        }
    for (int axis = 0; axis < 2; axis++) {
        bool style_shown = false;
        for (size_t i = 0; i < d->traces[axis].n && n < max; i++) {
            const gw_trace *t = &d->traces[axis].v[i];
            const char *metric = gw_chart_metrics[t->metric].label;
            if (t->reference) {
                char c[GW_FMT_SIZE];
                e[n] = (legend_entry){trace_color(p, axis, t), 2, ""};
                snprintf(e[n++].label, sizeof e->label, "%s %s %s", t->label,
                         gw_fmt_auto(c, sizeof c, t->constant, "?"),
                         gw_chart_metrics[t->metric].unit);
            } else if (!p->per_gpu_color) {
                e[n] = (legend_entry){axis_color[axis], axis, ""};
                snprintf(e[n++].label, sizeof e->label, "%s %s", t->label, metric);
            } else if (!style_shown) {
                style_shown = true;
                e[n] = (legend_entry){grey, axis, ""};
                snprintf(e[n++].label, sizeof e->label, "%s: %s", axis ? "dashed" : "solid",
                         metric);
            }
        }
    }
    return n;
}

static double label_width(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

/* Lays the entries out in rows of the panel's width from y (draw: false only counts rows).
 * Returns the number of rows. */
static int legend_rows(cairo_t *cr, const panel *p, const legend_entry *e, size_t n, double y,
                       bool draw)
{
    static const double dash[] = {7, 4}, ref_dash[] = {3, 3};
    double x = p->x;
    int rows = n ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        double w = 28 + label_width(cr, e[i].label) + 16;
        if (x > p->x && x + w > p->x + p->w)
            x = p->x, y += 17, rows++;
        if (draw) {
            set_rgb(cr, e[i].color);
            cairo_set_line_width(cr, e[i].style == 2 ? 1.2 : 2);
            cairo_set_dash(cr, e[i].style == 2 ? ref_dash : dash, e[i].style ? 2 : 0, 0);
            cairo_move_to(cr, x, y - 4);
            cairo_line_to(cr, x + 24, y - 4);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
            cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
            text_at(cr, x + 28, y, e[i].label, 0, 12, false);
        }
        x += w;
    }
    return rows;
}

static void panel_data_build(const gw_analysis *a, panel *p, panel_data *d)
{
    memset(d, 0, sizeof *d);
    for (int axis = 0; axis < 2; axis++) {
        if (p->metric[axis] < 0)
            continue;
        gw_chart_traces(a, (gw_chart_metric)p->metric[axis], 8, &d->traces[axis]);
        gw_chart_grid_build(d->traces[axis].v, d->traces[axis].n, p->t0, p->t1, (size_t)p->w,
                            &d->grid[axis]);
        d->placed[axis] = xcalloc(d->traces[axis].n + 1, sizeof *d->placed[axis]);
        for (size_t i = 0; i < d->traces[axis].n; i++)
            gw_chart_place(&d->grid[axis], &d->traces[axis].v[i], &d->placed[axis][i]);
        axis_range(d, axis, p->metric[axis], &p->lo[axis], &p->hi[axis]);
    }
}

static void panel_data_free(panel_data *d)
{
    for (int axis = 0; axis < 2; axis++) {
        for (size_t i = 0; i < d->traces[axis].n; i++)
            gw_placed_free(&d->placed[axis][i]);
        free(d->placed[axis]);
        gw_chart_grid_free(&d->grid[axis]);
        gw_trace_list_free(&d->traces[axis]);
    }
}

static void panel_title(cairo_t *cr, const panel *p, const gw_analysis *a, double y)
{
    char title[256], start[GW_RFC3339_LEN];
    int n = snprintf(title, sizeof title, "%s", gw_chart_metrics[p->metric[0]].label);
    if (p->metric[1] >= 0)
        snprintf(title + n, sizeof title - (size_t)n, " and %s",
                 gw_chart_metrics[p->metric[1]].label);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, p->x, y, title, 0, 15, true);
    char sub[96];
    snprintf(sub, sizeof sub, "%zu GPU%s, from %s", a->series->ngpus,
             a->series->ngpus == 1 ? "" : "s", gw_rfc3339_ms(p->t0, start));
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    text_at(cr, p->x + p->w, y, sub, 1, 12, false);
}

/* Draws one panel in the band [top, top + height) of the image. */
static void draw_panel(cairo_t *cr, const gw_analysis *a, panel *p, double top, double height)
{
    panel_data d;
    panel_data_build(a, p, &d);
    legend_entry entries[48];
    size_t nentries = legend_entries(p, &d, entries, sizeof entries / sizeof entries[0]);
    int rows = legend_rows(cr, p, entries, nentries, 0, false);
    p->y = top + 30 + 17 * rows + 8;
    p->h = top + height - MARGIN_B - p->y;
    bool any = false;
    for (int axis = 0; axis < 2; axis++)
        for (size_t i = 0; i < d.traces[axis].n; i++)
            any = any || !d.traces[axis].v[i].reference;
    panel_title(cr, p, a, top + 22);
    legend_rows(cr, p, entries, nentries, top + 30 + 14, true);
    x_axis(cr, p, true);
    for (int axis = 0; axis < 2; axis++)
        if (p->metric[axis] >= 0)
            y_axis(cr, p, axis,
                   p->per_gpu_color || p->metric[1] < 0 ? axis_grey : axis_color[axis]);
    draw_epochs(cr, p, a);
    cairo_save(cr);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_clip(cr);
    for (int axis = 1; axis >= 0; axis--)
        for (size_t i = 0; i < d.traces[axis].n; i++)
            draw_trace(cr, p, axis, &d.grid[axis], &d.traces[axis].v[i], &d.placed[axis][i]);
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x + 0.5, p->y + 0.5, p->w - 1, p->h - 1);
    cairo_stroke(cr);
    if (!any)
        text_at(cr, p->x + p->w / 2, p->y + p->h / 2, "not recorded", 0.5, 14, false);
    panel_data_free(&d);
}

static void draw_all(cairo_t *cr, const gw_analysis *a, const gw_plot_opts *o, int width,
                     int panel_h)
{
    int64_t t0, t1;
    gw_chart_span(a, &t0, &t1);
    if (t1 <= t0)
        t1 = t0 + 1000;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    for (int k = 0; k < o->npanels; k++) {
        panel p = {.x = MARGIN_L,
                   .w = width - MARGIN_L - MARGIN_R,
                   .t0 = t0,
                   .t1 = t1,
                   .metric = {o->metric[k][0], o->metric[k][1]},
                   .per_gpu_color = a->series->ngpus > 1};
        draw_panel(cr, a, &p, k * panel_h, panel_h);
        double span_s = (double)(t1 - t0) / 1000.0;
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        text_at(cr, p.x + p.w / 2, p.y + p.h + 40,
                span_s < 3600    ? "time since start [m:ss]"
                : span_s < 86400 ? "time since start [h:mm]"
                                 : "time since start [days h:mm]",
                0.5, 12, false);
    }
}

/* cairo's output, into the file being written. */
static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

/* Written like report's --json/--html (gw_file_out_open_path): another user's symbolic link at
 * path is replaced, never written through (cairo's own file output followed it and overwrote
 * what it pointed to), and the image appears whole or not at all. */
gw_rc gw_plot_write(const gw_analysis *a, const gw_plot_opts *o, const char *path,
                    gw_plot_format fmt, gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_path(&out, path, err);
    if (rc)
        return rc;
    int width = o->width_px > 0 ? o->width_px : GW_PLOT_WIDTH_PX;
    int panel_h = o->panel_height_px > 0 ? o->panel_height_px : GW_PLOT_PANEL_HEIGHT_PX;
    int height = panel_h * (o->npanels > 0 ? o->npanels : 1);
    gw_rc lrc = gw_cairo_load(err);
    if (lrc)
        return lrc;
    cairo_surface_t *surf = fmt == GW_PLOT_SVG
                                ? cairo_svg_surface_create_for_stream(to_file, out.f, width, height)
                                : cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(surf);
    draw_all(cr, a, o, width, panel_h);
    cairo_destroy(cr);
    cairo_status_t st;
    if (fmt == GW_PLOT_PNG)
        st = cairo_surface_write_to_png_stream(surf, to_file, out.f);
    else {
        cairo_surface_finish(surf);
        st = cairo_surface_status(surf);
    }
    cairo_surface_destroy(surf);
    /* cairo and fontconfig keep fonts cached for the process; a plot is drawn once, so release
     * them and leak checkers see a clean exit */
    cairo_debug_reset_static_data();
    FcFini();
    if (st != CAIRO_STATUS_SUCCESS) {
        int e = out.err_no; /* the failed write's errno (a full disk), 0 if cairo failed */
        gw_file_out_abort(&out);
        return gw_error_set(err, GW_E_IO,
                            "cannot write %s: %s; nothing partial was kept: free some space or "
                            "choose a writable path",
                            path, e ? strerror(e) : cairo_status_to_string(st));
    }
    return gw_file_out_commit(&out, err);
}

/* The live view as text: header, one line per GPU, MIG devices and processes (see view.h). */
#include "view/utf8.h"
#include "view/view.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RED    "\x1b[31m"
#define GREEN  "\x1b[32m"
#define YELLOW "\x1b[33m"
#define BOLD   "\x1b[1m"
#define DIM    "\x1b[2m"
#define RESET  "\x1b[0m"

enum { NAME_MAX_COLS = 32, USER_MAX_COLS = 16, CMD_MIN_COLS = 12 };

/* A line being built: counts display columns and drops what passes the width. */
typedef struct line {
    gw_buf *out;
    const gw_view_style *st;
    int cols;
    bool full;
} line;

static void put_color(line *l, const char *color, const char *s)
{
    if (l->full || !*s)
        return;
    bool paint = color && l->st->color;
    if (paint)
        gw_buf_puts(l->out, color);
    int w = gw_utf8_width(s);
    if (l->st->width_cols > 0 && l->cols + w > l->st->width_cols) {
        l->cols += gw_utf8_fit(s, l->st->width_cols - l->cols, l->out);
        l->full = true;
    } else {
        gw_buf_puts(l->out, s);
        l->cols += w;
    }
    if (paint)
        gw_buf_puts(l->out, RESET);
}

static void put(line *l, const char *s)
{
    put_color(l, NULL, s);
}

/* s right-aligned in `width` columns. */
static void put_right(line *l, const char *color, const char *s, int width)
{
    for (int pad = width - gw_utf8_width(s); pad > 0; pad--)
        put(l, " ");
    put_color(l, color, s);
}

/* s left-aligned in `width` columns (shortened with "..." when wider). */
static void put_left(line *l, const char *color, const char *s, int width)
{
    gw_buf cut = {0};
    int w = gw_utf8_fit(s, width, &cut);
    put_color(l, color, cut.data ? cut.data : "");
    gw_buf_free(&cut);
    for (; w < width; w++)
        put(l, " ");
}

static int end_line(line *l)
{
    if (l->st->clear_eol)
        gw_buf_puts(l->out, "\x1b[K");
    gw_buf_puts(l->out, "\n");
    l->cols = 0;
    l->full = false;
    return 1;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* The texts of one GPU line, formatted before the columns are aligned. */
typedef struct gpu_cells {
    char idx[16], temp[16], util[16], sm[16], used[24], total[24], draw[16], limit[16];
    const char *temp_color, *util_color, *sm_color, *mem_color, *power_color;
} gpu_cells;

/* Column widths across all GPUs. */
typedef struct gpu_widths {
    int idx, name, temp, util, sm, used, total, draw, limit;
    bool any_gpm;
} gpu_widths;

static const char *util_color(double pct)
{
    return pct >= GW_VIEW_UTIL_GREEN_PCT ? GREEN : pct >= GW_VIEW_UTIL_YELLOW_PCT ? YELLOW : NULL;
}

static void fmt_pct(const gw_gpu_sample *g, gw_gpu_field f, char *buf, size_t len,
                    const char **color)
{
    char n[GW_FMT_SIZE];
    if (!gw_has(g, f) || !gw_fmt_sane(g->v[f])) {
        snprintf(buf, len, "n/a");
        return;
    }
    snprintf(buf, len, "%s %%", gw_fmt_fixed(n, sizeof n, g->v[f], 0, 0, "n/a"));
    *color = util_color(g->v[f]);
}

static void fmt_temp(const gw_device_info *d, const gw_gpu_sample *g, gpu_cells *c)
{
    double t = g->v[GW_F_TEMP_GPU_C];
    if (!gw_has(g, GW_F_TEMP_GPU_C) || !gw_fmt_sane(t)) {
        snprintf(c->temp, sizeof c->temp, "n/a");
        return;
    }
    char n[GW_FMT_SIZE];
    snprintf(c->temp, sizeof c->temp,
             "%s\xC2\xB0"
             "C",
             gw_fmt_fixed(n, sizeof n, t, 0, 0, "n/a"));
    if (!isnan(d->slowdown_temp_c))
        c->temp_color = t >= d->slowdown_temp_c - GW_VIEW_TEMP_RED_MARGIN_C      ? RED
                        : t >= d->slowdown_temp_c - GW_VIEW_TEMP_YELLOW_MARGIN_C ? YELLOW
                                                                                 : GREEN;
}

/* A whole number, or "n/a". */
static void fmt_num(char *buf, size_t len, bool valid, double v)
{
    gw_fmt_fixed(buf, len, valid ? v : NAN, 0, 0, "n/a");
}

static void fmt_memory(const gw_gpu_sample *g, gpu_cells *c)
{
    bool used = gw_has(g, GW_F_MEM_USED_MIB), total = gw_has(g, GW_F_MEM_TOTAL_MIB);
    /* MiB rounded up, as nvidia-smi prints them */
    fmt_num(c->used, sizeof c->used, used, ceil(g->v[GW_F_MEM_USED_MIB]));
    fmt_num(c->total, sizeof c->total, total, ceil(g->v[GW_F_MEM_TOTAL_MIB]));
    if (used && total && g->v[GW_F_MEM_TOTAL_MIB] > 0) {
        double pct = 100.0 * g->v[GW_F_MEM_USED_MIB] / g->v[GW_F_MEM_TOTAL_MIB];
        c->mem_color = pct >= GW_VIEW_MEM_RED_PCT      ? RED
                       : pct >= GW_VIEW_MEM_YELLOW_PCT ? YELLOW
                                                       : NULL;
    }
}

static void fmt_power(const gw_gpu_sample *g, gpu_cells *c)
{
    bool draw = gw_has(g, GW_F_POWER_DRAW_W), limit = gw_has(g, GW_F_POWER_LIMIT_W);
    fmt_num(c->draw, sizeof c->draw, draw, g->v[GW_F_POWER_DRAW_W]);
    fmt_num(c->limit, sizeof c->limit, limit, g->v[GW_F_POWER_LIMIT_W]);
    if (draw && limit && g->v[GW_F_POWER_LIMIT_W] > 0 &&
        g->v[GW_F_POWER_DRAW_W] >= g->v[GW_F_POWER_LIMIT_W] * GW_VIEW_POWER_YELLOW_PCT / 100.0)
        c->power_color = YELLOW;
}

static void fmt_gpu(const gw_device_info *d, const gw_gpu_sample *g, gpu_cells *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->idx, sizeof c->idx, "[%u]", d->index);
    fmt_temp(d, g, c);
    fmt_pct(g, GW_F_UTIL_GPU_PCT, c->util, sizeof c->util, &c->util_color);
    fmt_pct(g, GW_F_GPM_SM_ACTIVE_PCT, c->sm, sizeof c->sm, &c->sm_color);
    fmt_memory(g, c);
    fmt_power(g, c);
}

static void widen(gpu_widths *w, const gw_device_info *d, const gpu_cells *c)
{
    w->idx = imax(w->idx, gw_utf8_width(c->idx));
    int name = gw_utf8_width(d->name);
    w->name = imax(w->name, name < NAME_MAX_COLS ? name : NAME_MAX_COLS);
    w->temp = imax(w->temp, gw_utf8_width(c->temp));
    w->util = imax(w->util, (int)strlen(c->util));
    w->sm = imax(w->sm, (int)strlen(c->sm));
    w->used = imax(w->used, (int)strlen(c->used));
    w->total = imax(w->total, (int)strlen(c->total));
    w->draw = imax(w->draw, (int)strlen(c->draw));
    w->limit = imax(w->limit, (int)strlen(c->limit));
    w->any_gpm = w->any_gpm || d->gpm_supported;
}

static int gpu_line(line *l, const gw_device_info *d, const gw_gpu_sample *g, const gpu_cells *c,
                    const gpu_widths *w)
{
    put_right(l, NULL, c->idx, w->idx);
    put(l, " ");
    put_left(l, BOLD, d->name[0] ? d->name : "(unknown GPU)", w->name);
    if (g->lost) {
        put(l, " | ");
        put_color(l, RED, "lost: the GPU fell off the bus (look for Xid 79 in dmesg)");
        return end_line(l);
    }
    put(l, " | ");
    put_right(l, c->temp_color, c->temp, w->temp);
    put(l, " | ");
    put_right(l, c->util_color, c->util, w->util);
    if (w->any_gpm) {
        put(l, "  SM ");
        put_right(l, c->sm_color, c->sm, w->sm);
    }
    put(l, " | ");
    put_right(l, c->mem_color, c->used, w->used);
    put(l, " / ");
    put_right(l, NULL, c->total, w->total);
    put(l, " MiB | ");
    put_right(l, c->power_color, c->draw, w->draw);
    put(l, " / ");
    put_right(l, NULL, c->limit, w->limit);
    put(l, " W");
    return end_line(l);
}

static int mig_lines(line *l, const gw_sample *s, unsigned gpu)
{
    int n = 0;
    for (unsigned k = 0; k < s->mig_count; k++) {
        const gw_mig_device *m = &s->migs[k];
        if (m->gpu != gpu)
            continue;
        char buf[64];
        snprintf(buf, sizeof buf, "    MIG %u  ", m->slot);
        put(l, buf);
        put(l, m->name[0] ? m->name : "(unnamed)");
        if (m->memory_valid) {
            char u[GW_FMT_SIZE], t[GW_FMT_SIZE];
            snprintf(buf, sizeof buf, "  %s / %s MiB",
                     gw_fmt_fixed(u, sizeof u, ceil(m->mem_used_mib), 0, 0, "n/a"),
                     gw_fmt_fixed(t, sizeof t, ceil(m->mem_total_mib), 0, 0, "n/a"));
        } else {
            snprintf(buf, sizeof buf, "  n/a MiB");
        }
        put(l, buf);
        n += end_line(l);
    }
    return n;
}

/* Column widths of the process lines of the whole view. */
typedef struct proc_widths {
    int user, pid, cmd, mem;
} proc_widths;

static const char *proc_user(const gw_view *v, unsigned k)
{
    if (!v->procs || !v->sample->procs[k].visible)
        return "-";
    return v->procs[k].user[0] ? v->procs[k].user : "?";
}

static const char *proc_command(const gw_view *v, unsigned k)
{
    const gw_gpu_process *p = &v->sample->procs[k];
    if (!p->visible)
        return "(another container)";
    if (v->procs && v->procs[k].command && v->procs[k].command[0])
        return v->procs[k].command;
    return p->name[0] ? p->name : "?";
}

static void fmt_proc_mem(const gw_gpu_process *p, char *buf, size_t len)
{
    if (p->used_valid && gw_fmt_sane(p->used_mib)) {
        char n[GW_FMT_SIZE];
        snprintf(buf, len, "%s MiB", gw_fmt_fixed(n, sizeof n, ceil(p->used_mib), 0, 0, ""));
    } else {
        snprintf(buf, len, "n/a");
    }
}

static proc_widths measure_procs(const gw_view *v, int width_cols)
{
    proc_widths w = {4, 5, 0, 3};
    const gw_sample *s = v->sample;
    for (unsigned k = 0; k < s->proc_count; k++) {
        char buf[32];
        int u = gw_utf8_width(proc_user(v, k));
        w.user = imax(w.user, u < USER_MAX_COLS ? u : USER_MAX_COLS);
        w.pid = imax(w.pid, snprintf(buf, sizeof buf, "%u", s->procs[k].pid));
        fmt_proc_mem(&s->procs[k], buf, sizeof buf);
        w.mem = imax(w.mem, (int)strlen(buf));
        w.cmd = imax(w.cmd, gw_utf8_width(proc_command(v, k)));
    }
    /* "    user  pid  command  mem": the command gets what the width leaves */
    int fixed = 4 + w.user + 2 + w.pid + 2 + 2 + w.mem;
    if (width_cols > 0 && w.cmd > width_cols - fixed)
        w.cmd = imax(width_cols - fixed, CMD_MIN_COLS);
    return w;
}

static int proc_lines(line *l, const gw_view *v, unsigned gpu, const proc_widths *w)
{
    int n = 0;
    const gw_sample *s = v->sample;
    for (unsigned k = 0; k < s->proc_count; k++) {
        const gw_gpu_process *p = &s->procs[k];
        if (p->gpu != gpu)
            continue;
        char pid[16], mem[32];
        snprintf(pid, sizeof pid, "%u", p->pid);
        fmt_proc_mem(p, mem, sizeof mem);
        put(l, "    ");
        put_left(l, NULL, proc_user(v, k), w->user);
        put(l, "  ");
        put_right(l, NULL, pid, w->pid);
        put(l, "  ");
        put_left(l, p->visible ? NULL : DIM, proc_command(v, k), w->cmd);
        put(l, "  ");
        put_right(l, NULL, mem, w->mem);
        n += end_line(l);
    }
    return n;
}

static int header_line(line *l, const gw_view *v)
{
    char when[32] = "";
    time_t t = (time_t)(v->wall_ms / 1000) + v->utc_offset_s;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    put_color(l, BOLD, v->hostname && v->hostname[0] ? v->hostname : "localhost");
    put(l, "  ");
    put(l, when);
    if (v->driver_version && v->driver_version[0]) {
        put(l, "  driver ");
        put(l, v->driver_version);
    }
    return end_line(l);
}

int gw_view_text(const gw_view *v, const gw_view_style *style, gw_buf *out)
{
    line l = {.out = out, .st = style};
    int n = header_line(&l, v);
    if (v->device_count == 0) {
        put(&l, "No NVIDIA GPU found.");
        return n + end_line(&l);
    }
    gpu_cells *cells = xcalloc(v->device_count, sizeof *cells);
    gpu_widths gw = {0};
    for (unsigned i = 0; i < v->device_count; i++) {
        fmt_gpu(&v->devices[i], &v->sample->gpus[i], &cells[i]);
        widen(&gw, &v->devices[i], &cells[i]);
    }
    proc_widths pw = measure_procs(v, style->width_cols);
    for (unsigned i = 0; i < v->device_count; i++) {
        n += gpu_line(&l, &v->devices[i], &v->sample->gpus[i], &cells[i], &gw);
        n += mig_lines(&l, v->sample, v->devices[i].index);
        n += proc_lines(&l, v, v->devices[i].index, &pw);
    }
    free(cells);
    return n;
}

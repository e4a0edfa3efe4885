/* top's model: history rings, throttle reasons, the process table and its arrangement (top.h). */
#include "top/top.h"

#include "sampler/clock_reasons.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gw_top_ring_push(gw_top_ring *r, double v)
{
    r->v[r->head] = (float)v;
    r->head = (r->head + 1) % GW_TOP_HIST;
    if (r->len < GW_TOP_HIST)
        r->len++;
}

double gw_top_ring_ago(const gw_top_ring *r, unsigned ago)
{
    if (ago >= r->len)
        return NAN;
    return r->v[(r->head + GW_TOP_HIST - 1 - ago) % GW_TOP_HIST];
}

void gw_top_ring_columns(const gw_top_ring *r, unsigned span, unsigned cols, double *out)
{
    if (cols == 0)
        return;
    if (span > GW_TOP_HIST)
        span = GW_TOP_HIST;
    if (span < cols) /* a tick per column, the newest at the right */
        span = cols;
    for (unsigned c = 0; c < cols; c++) {
        /* column c covers ticks [lo, hi) counted from the oldest of the span */
        unsigned lo = (unsigned)((uint64_t)c * span / cols);
        unsigned hi = (unsigned)((uint64_t)(c + 1) * span / cols);
        double best = NAN;
        for (unsigned t = lo; t < hi; t++) {
            double v = gw_top_ring_ago(r, span - 1 - t);
            if (!isnan(v) && (isnan(best) || v > best))
                best = v;
        }
        out[c] = best;
    }
}

const char *gw_top_reasons(uint64_t mask, char *buf, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {
        {GW_REASON_SW_POWER_CAP, "power cap"},
        {GW_REASON_HW_SLOWDOWN, "HW slowdown"},
        {GW_REASON_HW_THERMAL, "HW thermal"},
        {GW_REASON_SW_THERMAL, "SW thermal"},
        {GW_REASON_HW_POWER_BRAKE, "power brake"},
        {GW_REASON_SYNC_BOOST, "sync boost"},
        {GW_REASON_APPLICATIONS_CLOCKS_SETTING, "app clocks"},
        {GW_REASON_DISPLAY_CLOCK_SETTING, "display clocks"},
        {GW_REASON_GPU_IDLE, "idle"},
    };
    buf[0] = '\0';
    if (len == 0)
        return buf;
    size_t used = 0;
    uint64_t known = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        known |= names[i].bit;
        if (!(mask & names[i].bit))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].name);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* whole names only */
            return buf;
        }
        used += (size_t)n;
    }
    if (mask & ~known)
        snprintf(buf + used, len - used, "%sother 0x%llx", used ? ", " : "",
                 (unsigned long long)(mask & ~known));
    else if (used == 0)
        snprintf(buf, len, "none");
    return buf;
}

bool gw_top_low_sm(const gw_top_gpu *g)
{
    if (!g->have || g->cur.lost || !gw_has(&g->cur, GW_F_UTIL_GPU_PCT) ||
        !gw_has(&g->cur, GW_F_GPM_SM_ACTIVE_PCT))
        return false;
    return g->cur.v[GW_F_UTIL_GPU_PCT] >= GW_TOP_HIGH_UTIL_PCT &&
           g->cur.v[GW_F_GPM_SM_ACTIVE_PCT] <= GW_TOP_LOW_SM_PCT;
}

const char *gw_top_sort_name(gw_top_sort s)
{
    static const char *const names[GW_TOP_SORT_COUNT] = {"gpu-mem", "cpu",  "host-mem", "time",
                                                         "pid",     "user", "command"};
    return s < GW_TOP_SORT_COUNT ? names[s] : "?";
}

void gw_top_model_init(gw_top_model *m, const gw_device_info *devs, unsigned n, double interval_s)
{
    memset(m, 0, sizeof *m);
    m->ngpu = n;
    m->gpus = n ? xcalloc(n, sizeof *m->gpus) : NULL;
    for (unsigned i = 0; i < n; i++)
        m->gpus[i].info = devs[i];
    m->interval_s = interval_s > 0 ? interval_s : 1.0;
}

void gw_top_model_free(gw_top_model *m)
{
    free(m->gpus);
    free(m->procs);
    free(m->shown);
    memset(m, 0, sizeof *m);
}

static double pct_of(const gw_gpu_sample *g, gw_gpu_field f, double total)
{
    if (!gw_has(g, f) || !(total > 0))
        return NAN;
    return 100.0 * g->v[f] / total;
}

void gw_top_model_push(gw_top_model *m, const gw_sample *s)
{
    m->wall_ms = s->wall_ms;
    for (unsigned i = 0; i < m->ngpu && i < s->gpu_count; i++) {
        gw_top_gpu *g = &m->gpus[i];
        const gw_gpu_sample *c = &s->gpus[i];
        g->cur = *c;
        g->have = true;
        double total =
            gw_has(c, GW_F_MEM_TOTAL_MIB) ? c->v[GW_F_MEM_TOTAL_MIB] : g->info.memory_total_mib;
        double limit =
            gw_has(c, GW_F_POWER_LIMIT_W) ? c->v[GW_F_POWER_LIMIT_W] : g->info.power_limit_w;
        gw_top_ring_push(&g->util, gw_has(c, GW_F_UTIL_GPU_PCT) ? c->v[GW_F_UTIL_GPU_PCT] : NAN);
        gw_top_ring_push(&g->sm,
                         gw_has(c, GW_F_GPM_SM_ACTIVE_PCT) ? c->v[GW_F_GPM_SM_ACTIVE_PCT] : NAN);
        gw_top_ring_push(&g->mem_pct, pct_of(c, GW_F_MEM_USED_MIB, total));
        gw_top_ring_push(&g->power_pct, pct_of(c, GW_F_POWER_DRAW_W, limit));
    }
}

void gw_top_model_set_procs(gw_top_model *m, const gw_top_proc *p, unsigned n)
{
    free(m->procs);
    free(m->shown);
    m->procs = n ? xmalloc(n * sizeof *p) : NULL;
    m->shown = n ? xmalloc(n * sizeof *m->shown) : NULL;
    if (n)
        memcpy(m->procs, p, n * sizeof *p);
    m->nproc = n;
    gw_top_model_arrange(m);
}

static bool matches(const gw_top_proc *p, const char *filter)
{
    if (!filter[0])
        return true;
    char pid[16];
    snprintf(pid, sizeof pid, "%u", p->pid);
    return strcasestr(p->cmd, filter) || strcasestr(p->user, filter) ||
           strcasestr(p->run, filter) || strcmp(pid, filter) == 0;
}

/* Numbers: absent last whatever the direction. */
static int cmp_num(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

static const gw_top_model *sort_model; /* qsort has no context argument in C11 */

static int cmp_proc(const void *pa, const void *pb)
{
    const gw_top_model *m = sort_model;
    const gw_top_proc *a = &m->procs[*(const unsigned *)pa], *b = &m->procs[*(const unsigned *)pb];
    int c = 0, dir = m->reverse ? -1 : 1;
    switch (m->sort) {
    case GW_TOP_SORT_GPU_MEM: /* numbers: largest first by default */
        c = -cmp_num(a->gpu_mib, b->gpu_mib);
        break;
    case GW_TOP_SORT_CPU:
        c = -cmp_num(a->cpu_pct, b->cpu_pct);
        break;
    case GW_TOP_SORT_HOST_MEM:
        c = -cmp_num(a->rss_mib, b->rss_mib);
        break;
    case GW_TOP_SORT_TIME:
        c = -cmp_num(a->elapsed_s, b->elapsed_s);
        break;
    case GW_TOP_SORT_PID: /* names and pids: ascending by default */
        c = (a->pid > b->pid) - (a->pid < b->pid);
        break;
    case GW_TOP_SORT_USER:
        c = strcmp(a->user, b->user);
        break;
    case GW_TOP_SORT_COMMAND:
    default:
        c = strcmp(a->cmd, b->cmd);
        break;
    }
    bool absent_a = (m->sort == GW_TOP_SORT_GPU_MEM && isnan(a->gpu_mib)) ||
                    (m->sort == GW_TOP_SORT_CPU && isnan(a->cpu_pct)) ||
                    (m->sort == GW_TOP_SORT_HOST_MEM && isnan(a->rss_mib)) ||
                    (m->sort == GW_TOP_SORT_TIME && isnan(a->elapsed_s));
    bool absent_b = (m->sort == GW_TOP_SORT_GPU_MEM && isnan(b->gpu_mib)) ||
                    (m->sort == GW_TOP_SORT_CPU && isnan(b->cpu_pct)) ||
                    (m->sort == GW_TOP_SORT_HOST_MEM && isnan(b->rss_mib)) ||
                    (m->sort == GW_TOP_SORT_TIME && isnan(b->elapsed_s));
    if (absent_a != absent_b)
        return absent_a ? 1 : -1;
    if (c == 0) /* stable across refreshes: GPU, then pid */
        return a->gpu != b->gpu ? (a->gpu > b->gpu) - (a->gpu < b->gpu)
                                : (a->pid > b->pid) - (a->pid < b->pid);
    return c * dir;
}

/* The shown entry whose pid is `pid` (the first, a process may hold several GPUs), or -1. */
static long find_shown(const gw_top_model *m, const unsigned *order, unsigned n, unsigned pid)
{
    for (unsigned i = 0; i < n; i++)
        if (m->procs[order[i]].pid == pid)
            return i;
    return -1;
}

/* Tree order: each process right after its nearest shown ancestor (by ppid), children in sort
 * order; depth counts the levels. */
static void tree_order(gw_top_model *m)
{
    unsigned n = m->nshown;
    if (n == 0)
        return;
    unsigned *out = xmalloc(n * sizeof *out);
    long *parent = xmalloc(n * sizeof *parent);
    bool *placed = xcalloc(n, sizeof *placed);
    for (unsigned i = 0; i < n; i++) {
        const gw_top_proc *p = &m->procs[m->shown[i]];
        parent[i] = p->ppid && p->ppid != p->pid ? find_shown(m, m->shown, n, p->ppid) : -1;
        if (parent[i] == (long)i)
            parent[i] = -1;
    }
    unsigned k = 0;
    /* a depth-first walk with an explicit stack of shown indices */
    unsigned *stack = xmalloc(n * sizeof *stack);
    for (unsigned r = 0; r < n; r++) {
        if (parent[r] >= 0 || placed[r])
            continue;
        unsigned top = 0;
        stack[top++] = r;
        while (top) {
            unsigned i = stack[--top];
            if (placed[i])
                continue;
            placed[i] = true;
            out[k++] = m->shown[i];
            unsigned d = 0;
            for (long a = parent[i]; a >= 0 && d < n; a = parent[a])
                d++;
            m->procs[m->shown[i]].depth = d;
            for (unsigned c = n; c-- > 0;) /* pushed in reverse: popped in sort order */
                if (parent[c] == (long)i && !placed[c] && top < n)
                    stack[top++] = c;
        }
    }
    for (unsigned r = 0; r < n; r++) /* cycles (pid reuse): appended flat */
        if (!placed[r]) {
            m->procs[m->shown[r]].depth = 0;
            out[k++] = m->shown[r];
        }
    memcpy(m->shown, out, n * sizeof *out);
    free(out);
    free(parent);
    free(placed);
    free(stack);
}

void gw_top_model_arrange(gw_top_model *m)
{
    m->nshown = 0;
    for (unsigned i = 0; i < m->nproc; i++) {
        m->procs[i].depth = 0;
        if (matches(&m->procs[i], m->filter))
            m->shown[m->nshown++] = i;
    }
    sort_model = m;
    if (m->nshown > 1)
        qsort(m->shown, m->nshown, sizeof *m->shown, cmp_proc);
    sort_model = NULL;
    if (m->tree)
        tree_order(m);
    long at = m->sel_pid ? find_shown(m, m->shown, m->nshown, m->sel_pid) : -1;
    if (at >= 0) {
        m->sel = (unsigned)at;
    } else if (m->nshown) {
        if (m->sel >= m->nshown)
            m->sel = m->nshown - 1;
        m->sel_pid = m->procs[m->shown[m->sel]].pid;
    } else {
        m->sel = 0;
        m->sel_pid = 0;
    }
}

const gw_top_proc *gw_top_model_selected(const gw_top_model *m)
{
    if (m->nshown == 0 || m->sel >= m->nshown)
        return NULL;
    return &m->procs[m->shown[m->sel]];
}

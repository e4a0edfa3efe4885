/* Chart metrics and the traces of each (see chart.h). */
#include "chart/chart.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const gw_chart_metric_info gw_chart_metrics[GW_CM_COUNT] = {
    [GW_CM_UTIL] = {"util", "GPU-Util", "%", 0},
    [GW_CM_SM] = {"sm", "SM active", "%", 1},
    [GW_CM_TENSOR] = {"tensor", "tensor active", "%", 1},
    [GW_CM_MEMORY] = {"memory", "memory used", "GiB", 2},
    [GW_CM_TEMP] = {"temp", "temperature", "°C", 0},
    [GW_CM_POWER] = {"power", "power", "W", 1},
    [GW_CM_CLOCK] = {"clock", "SM clock", "MHz", 0},
    [GW_CM_CPU] = {"cpu", "CPU", "%", 1},
    [GW_CM_RSS] = {"rss", "RSS", "GiB", 2},
    [GW_CM_PROC_MEM] = {"procmem", "process GPU memory", "GiB", 2},
    [GW_CM_STEPS] = {"steps", "training steps", "steps/s", 2},
    [GW_CM_ROLES] = {"roles", "CPU by role", "% core", 1},
};

int gw_chart_metric_parse(const char *key)
{
    static const struct {
        const char *alias;
        gw_chart_metric m;
    } aliases[] = {
        {"utilization", GW_CM_UTIL}, {"mem", GW_CM_MEMORY},         {"temperature", GW_CM_TEMP},
        {"sm_active", GW_CM_SM},     {"processes", GW_CM_PROC_MEM},
    };
    for (int m = 0; m < GW_CM_COUNT; m++)
        if (strcmp(key, gw_chart_metrics[m].key) == 0)
            return m;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(key, aliases[i].alias) == 0)
            return (int)aliases[i].m;
    return -1;
}

/* The series field behind a GPU metric, or -1 for host and process metrics. */
static int metric_field(gw_chart_metric m)
{
    switch (m) {
    case GW_CM_UTIL:
        return GW_F_UTIL_GPU_PCT;
    case GW_CM_SM:
        return GW_F_GPM_SM_ACTIVE_PCT;
    case GW_CM_TENSOR:
        return GW_F_GPM_TENSOR_ACTIVE_PCT;
    case GW_CM_MEMORY:
        return GW_F_MEM_USED_MIB;
    case GW_CM_TEMP:
        return GW_F_TEMP_GPU_C;
    case GW_CM_POWER:
        return GW_F_POWER_DRAW_W;
    case GW_CM_CLOCK:
        return GW_F_CLOCK_SM_MHZ;
    default:
        return -1;
    }
}

/* Memory columns are MiB; charts show GiB. */
static double metric_scale(gw_chart_metric m)
{
    return m == GW_CM_MEMORY || m == GW_CM_RSS || m == GW_CM_PROC_MEM ? 1.0 / 1024.0 : 1.0;
}

gw_trace *gw_trace_add(gw_trace_list *l, gw_chart_metric m, char *label, int gpu)
{
    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
    gw_trace *t = &l->v[l->n++];
    memset(t, 0, sizeof *t);
    t->label = label;
    t->metric = m;
    t->gpu = gpu;
    t->constant = NAN;
    t->scale = metric_scale(m);
    return t;
}

static bool any_present(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            return true;
    return false;
}

static size_t gpu_traces(const gw_analysis *a, gw_chart_metric m, gw_trace_list *out)
{
    size_t added = 0;
    for (size_t i = 0; i < a->series->ngpus; i++) {
        const gw_series_gpu *g = a->series->gpus[i];
        const double *v = gw_series_gpu_values(g, (gw_gpu_field)metric_field(m));
        if (!v || !any_present(v, g->tab.n))
            continue;
        gw_trace *t = gw_trace_add(out, m, gw_series_gpu_label(a->series, g), (int)i);
        t->n = g->tab.n;
        t->t_ms = g->tab.t_ms;
        t->v = v;
        added++;
    }
    return added;
}

static void reference_add(gw_trace_list *out, gw_chart_metric m, char *label, int gpu, double v,
                          int64_t t0, int64_t t1);

/* The job's CPU % (with its roles: the training process, the workers, and the host's iowait) or
 * RSS of each node's host.csv. */
static size_t host_traces(const gw_analysis *a, gw_chart_metric m, gw_trace_list *out)
{
    static const struct {
        gw_field f;
        const char *label;
    } cpu[] = {{GW_F_JOB_CPU_PCT, "job"},
               {GW_F_TRAIN_CPU_PCT, "training process"},
               {GW_F_WORKERS_CPU_PCT, "workers"},
               {GW_F_HOST_IOWAIT_PCT, "host iowait"}},
      rss[] = {{GW_F_JOB_RSS_MIB, "job"}},
      /* what proves cpu_bound against input_pipeline: each role's busiest member against one
       * core (issue 27) */
        roles[] = {{GW_F_TRAIN_CPU_MAX_PCT, "training process (busiest)"},
                   {GW_F_WORKERS_CPU_MAX_PCT, "worker (busiest)"}};
    const gw_series *s = a->series;
    size_t added = 0, n = m == GW_CM_CPU     ? sizeof cpu / sizeof cpu[0]
                          : m == GW_CM_ROLES ? sizeof roles / sizeof roles[0]
                                             : 1;
    for (size_t h = 0; h < s->nhosts; h++) {
        const gw_series_table *tab = &s->hosts[h]->tab;
        for (size_t k = 0; k < n; k++) {
            gw_field f = m == GW_CM_CPU ? cpu[k].f : m == GW_CM_ROLES ? roles[k].f : rss[k].f;
            const char *what = m == GW_CM_CPU     ? cpu[k].label
                               : m == GW_CM_ROLES ? roles[k].label
                                                  : rss[k].label;
            long c = gw_series_table_find(tab, gw_fields[f].csv_header);
            if (c < 0 || !any_present(tab->cols[c].v, tab->n))
                continue;
            char *label =
                s->nhosts > 1 ? xasprintf("%s %s", s->hosts[h]->source, what) : xstrdup(what);
            gw_trace *t = gw_trace_add(out, m, label, -1);
            t->n = tab->n;
            t->t_ms = tab->t_ms;
            t->v = tab->cols[c].v;
            added++;
        }
    }
    /* against one core: a training process or a worker at the line is CPU-bound (issue 27) */
    if (m == GW_CM_ROLES && added)
        reference_add(out, m, xstrdup("one core"), -1, 100.0, a->start_ms, a->record_end_ms);
    return added;
}

/* The value of a GPU's reference line for metric m, NAN when none. */
static double reference_value(const gw_series_gpu *g, gw_chart_metric m)
{
    switch (m) {
    case GW_CM_MEMORY:
        return g->memory_total_mib;
    case GW_CM_TEMP:
        return g->slowdown_temp_c;
    case GW_CM_POWER:
        return g->power_limit_w;
    default:
        return NAN;
    }
}

static const char *reference_name(gw_chart_metric m)
{
    return m == GW_CM_MEMORY ? "total" : m == GW_CM_TEMP ? "slowdown" : "limit";
}

static void reference_add(gw_trace_list *out, gw_chart_metric m, char *label, int gpu, double v,
                          int64_t t0, int64_t t1)
{
    gw_trace *t = gw_trace_add(out, m, label, gpu);
    t->reference = true;
    t->constant = v * t->scale;
    t->n = 2;
    t->owned_t = xmalloc(2 * sizeof *t->owned_t);
    t->owned_v = xmalloc(2 * sizeof *t->owned_v);
    t->owned_t[0] = t0, t->owned_t[1] = t1;
    t->owned_v[0] = t->owned_v[1] = v;
    t->t_ms = t->owned_t;
    t->v = t->owned_v;
}

/* Reference lines of the GPUs that have a trace of m (traces [first, out->n)). */
static size_t reference_traces(const gw_analysis *a, gw_chart_metric m, size_t first,
                               gw_trace_list *out)
{
    size_t end = out->n, added = 0;
    double common = NAN;
    bool same = true;
    for (size_t i = first; i < end; i++) {
        double r = reference_value(a->series->gpus[out->v[i].gpu], m);
        same = same && !isnan(r) && (i == first || r == common);
        common = r;
    }
    if (end == first)
        return 0;
    if (same && end - first > 1) {
        reference_add(out, m, xasprintf("%s (all GPUs)", reference_name(m)), -1, common,
                      a->start_ms, a->end_ms);
        return 1;
    }
    for (size_t i = first; i < end; i++) {
        const gw_series_gpu *g = a->series->gpus[out->v[i].gpu];
        double r = reference_value(g, m);
        if (isnan(r) || g->tab.n == 0)
            continue;
        char *label = end - first > 1 ? xasprintf("%s %s", out->v[i].label, reference_name(m))
                                      : xstrdup(reference_name(m));
        reference_add(out, m, label, out->v[i].gpu, r, g->tab.t_ms[0], g->tab.t_ms[g->tab.n - 1]);
        added++;
    }
    return added;
}

/* The job's training steps per second, one trace (its progress bars, logread/progress.h). */
static size_t steps_traces(const gw_analysis *a, gw_trace_list *out)
{
    const gw_series *s = a->series;
    if (s->nrates == 0)
        return 0;
    gw_trace *t = gw_trace_add(out, GW_CM_STEPS, xstrdup("job"), -1);
    t->n = s->nrates;
    t->t_ms = s->rate_t_ms;
    t->v = s->rate_steps_per_s;
    return 1;
}

size_t gw_chart_traces(const gw_analysis *a, gw_chart_metric m, size_t max_procs,
                       gw_trace_list *out)
{
    size_t first = out->n;
    if (m == GW_CM_STEPS)
        return steps_traces(a, out);
    if (m == GW_CM_CPU || m == GW_CM_RSS || m == GW_CM_ROLES)
        return host_traces(a, m, out);
    if (m == GW_CM_PROC_MEM)
        return gw_chart_proc_traces(a, max_procs, out);
    size_t n = gpu_traces(a, m, out);
    return n + reference_traces(a, m, first, out);
}

static void widen(int64_t *t0, int64_t *t1, int64_t a, int64_t b)
{
    if (a < *t0)
        *t0 = a;
    if (b > *t1)
        *t1 = b;
}

void gw_chart_span(const gw_analysis *a, int64_t *t0_ms, int64_t *t1_ms)
{
    const gw_series *s = a->series;
    *t0_ms = a->start_ms;
    *t1_ms = a->end_ms;
    for (size_t h = 0; h < s->nhosts; h++) {
        const gw_series_table *t = &s->hosts[h]->tab;
        if (t->n)
            widen(t0_ms, t1_ms, t->t_ms[0], t->t_ms[t->n - 1]);
    }
    for (size_t i = 0; i < s->nprocs; i++)
        widen(t0_ms, t1_ms, s->procs[i].t_ms, s->procs[i].t_ms);
}

void gw_trace_list_free(gw_trace_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].label);
        free(l->v[i].owned_t);
        free(l->v[i].owned_v);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

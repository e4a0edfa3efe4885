/* Per-process GPU memory traces from processes.csv (see chart.h). */
#include "chart/chart.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One process on one GPU. */
typedef struct proc_key {
    size_t input;
    int gpu_index;
    long pid;
    const char *name;
    int in_job;
    double peak_mib;
    double *v; /* [ntimes] */
} proc_key;

static int cmp_peak_desc(const void *a, const void *b)
{
    const proc_key *x = a, *y = b;
    double px = isnan(x->peak_mib) ? -1 : x->peak_mib, py = isnan(y->peak_mib) ? -1 : y->peak_mib;
    return px > py ? -1 : px < py;
}

static proc_key *find_or_add(proc_key **keys, size_t *n, size_t *cap, const gw_series_proc *p,
                             size_t ntimes)
{
    for (size_t i = 0; i < *n; i++) {
        proc_key *k = &(*keys)[i];
        if (k->input == p->input && k->gpu_index == p->gpu_index && k->pid == p->pid &&
            strcmp(k->name, p->name) == 0)
            return k;
    }
    *keys = xgrow(*keys, cap, *n + 1, sizeof **keys);
    proc_key *k = &(*keys)[(*n)++];
    *k = (proc_key){p->input, p->gpu_index, p->pid, p->name, p->in_job, NAN, NULL};
    k->v = xmalloc(ntimes * sizeof *k->v);
    for (size_t i = 0; i < ntimes; i++)
        k->v[i] = NAN;
    return k;
}

/* The distinct times of the process lists of input `input` (all inputs when input is -1),
 * sorted. */
static int64_t *proc_times(const gw_series *s, long input, size_t *count)
{
    int64_t *t = xmalloc((s->nprocs ? s->nprocs : 1) * sizeof *t);
    size_t k = 0;
    for (size_t i = 0; i < s->nprocs; i++)
        if (input < 0 || s->procs[i].input == (size_t)input)
            t[k++] = s->procs[i].t_ms;
    *count = gw_chart_sort_unique(t, k);
    return t;
}

static int gpu_slot(const gw_series *s, size_t input, int index)
{
    const gw_series_gpu *g = gw_series_find_gpu(s, input, index);
    for (size_t i = 0; g && i < s->ngpus; i++)
        if (s->gpus[i] == g)
            return (int)i;
    return -1;
}

static char *proc_label(const gw_series *s, const proc_key *k, int slot)
{
    char *gpu =
        slot >= 0 ? gw_series_gpu_label(s, s->gpus[slot]) : xasprintf("GPU %d", k->gpu_index);
    char *who = *k->name ? xasprintf("%s (%ld)", k->name, k->pid) : xasprintf("pid %ld", k->pid);
    char *label = xasprintf("%s %s%s", gpu, who, k->in_job == 0 ? ", not in job" : "");
    free(gpu);
    free(who);
    return label;
}

/* Adds one trace owning times t (copied) and values v (taken). */
static void add_owned(gw_trace_list *out, char *label, int slot, const int64_t *t, size_t n,
                      double *v)
{
    gw_trace *tr = gw_trace_add(out, GW_CM_PROC_MEM, label, slot);
    tr->n = n;
    tr->owned_t = xmalloc(n * sizeof *tr->owned_t);
    memcpy(tr->owned_t, t, n * sizeof *t);
    tr->owned_v = v;
    tr->t_ms = tr->owned_t;
    tr->v = v;
}

/* The time axis of each input's process lists. */
typedef struct input_times {
    size_t n;
    int64_t *t;
} input_times;

/* Sums the processes keys[from..nkeys) on the times of every input. */
static void add_others(const gw_series *s, proc_key *keys, size_t from, size_t nkeys,
                       const input_times *per_input, gw_trace_list *out)
{
    size_t n = 0;
    int64_t *all = proc_times(s, -1, &n);
    double *sum = xmalloc((n ? n : 1) * sizeof *sum);
    for (size_t t = 0; t < n; t++)
        sum[t] = NAN;
    for (size_t i = from; i < nkeys; i++) {
        const input_times *it = &per_input[keys[i].input];
        for (size_t t = 0; t < it->n; t++) {
            size_t k = gw_stats_lower_bound_ms(all, n, it->t[t]);
            if (!isnan(keys[i].v[t]))
                sum[k] = (isnan(sum[k]) ? 0 : sum[k]) + keys[i].v[t];
        }
    }
    add_owned(out, xasprintf("%zu other processes", nkeys - from), -1, all, n, sum);
    free(all);
}

size_t gw_chart_proc_traces(const gw_analysis *a, size_t max_procs, gw_trace_list *out)
{
    const gw_series *s = a->series;
    if (s->nprocs == 0)
        return 0;
    input_times *per_input = xcalloc(s->ninputs, sizeof *per_input);
    for (size_t i = 0; i < s->ninputs; i++)
        per_input[i].t = proc_times(s, (long)i, &per_input[i].n);
    size_t nkeys = 0, cap = 0;
    proc_key *keys = NULL;
    for (size_t i = 0; i < s->nprocs; i++) {
        const gw_series_proc *p = &s->procs[i];
        const input_times *it = &per_input[p->input];
        proc_key *k = find_or_add(&keys, &nkeys, &cap, p, it->n);
        k->v[gw_stats_lower_bound_ms(it->t, it->n, p->t_ms)] = p->used_mib;
        if (!isnan(p->used_mib) && (isnan(k->peak_mib) || p->used_mib > k->peak_mib))
            k->peak_mib = p->used_mib;
    }
    if (keys)
        qsort(keys, nkeys, sizeof *keys, cmp_peak_desc);
    size_t shown = max_procs && nkeys > max_procs ? max_procs : nkeys;
    for (size_t i = 0; i < shown; i++) {
        const input_times *it = &per_input[keys[i].input];
        int slot = gpu_slot(s, keys[i].input, keys[i].gpu_index);
        add_owned(out, proc_label(s, &keys[i], slot), slot, it->t, it->n, keys[i].v);
        keys[i].v = NULL;
    }
    if (shown < nkeys)
        add_others(s, keys, shown, nkeys, per_input, out);
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i].v);
    free(keys);
    for (size_t i = 0; i < s->ninputs; i++)
        free(per_input[i].t);
    free(per_input);
    return shown + (shown < nkeys);
}

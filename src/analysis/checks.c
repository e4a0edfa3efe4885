/* Running the verdict checkers of the registry, and their shared helpers (see checks.h). */
#include "analysis/checks.h"

#include "analysis/inproc.h"
#include "analysis/registry.h"

#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether an earlier row of the registry already ran the checker of row i. */
static bool ran_before(size_t i)
{
    const gw_verdict_def *d = &gw_verdict_registry[i];
    for (size_t k = 0; k < i; k++)
        if ((d->job && gw_verdict_registry[k].job == d->job) ||
            (d->gpu && gw_verdict_registry[k].gpu == d->gpu))
            return true;
    return false;
}

/* The per-GPU checkers of registry rows [from, to) for GPUs [g0, g1), GPU by GPU. Checkers look
 * at their own GPU only, so two ranges of GPUs can be checked at once, each into its own list:
 * view is the analysis with this range's list, row[k] the registry row of its verdict k. */
typedef struct gpu_checks {
    gw_analysis view;
    size_t from, to, g0, g1;
    size_t *row, row_cap;
} gpu_checks;

static void *gpu_checks_range(void *arg)
{
    gpu_checks *j = arg;
    for (size_t i = j->g0; i < j->g1; i++)
        for (size_t c = j->from; c < j->to; c++) {
            size_t had = j->view.verdicts.n;
            if (ran_before(c))
                continue;
            gw_verdict_registry[c].gpu(&j->view, &j->view.gpus[i]);
            gw_series_gpu_release(j->view.gpus[i].gpu);
            j->row = xgrow(j->row, &j->row_cap, j->view.verdicts.n + 1, sizeof *j->row);
            for (size_t k = had; k < j->view.verdicts.n; k++)
                j->row[k] = c;
        }
    return NULL;
}

/* Where checks go on two threads: on a big record of several GPUs without in-job data (whose
 * cause finder keeps one suggestion for all GPUs), the GPUs past half the rows on the second;
 * 0 (one thread) otherwise. */
static size_t second_thread_from(const gw_analysis *a)
{
    size_t rows = 0, split = 0, seen = 0;
    for (size_t i = 0; i < a->ngpus; i++)
        rows += a->gpus[i].gpu->tab.n;
    if (a->ngpus < 2 || rows < 500000 || (a->inproc && a->inproc->in) || gw_analysis_threads < 2 ||
        sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return 0;
    while (split < a->ngpus && 2 * seen < rows)
        seen += a->gpus[split++].gpu->tab.n;
    return split < a->ngpus ? split : 0;
}

/* Registry rows [from, to) of per-GPU checkers on two threads (second_thread_from); the
 * verdicts in the order one thread gives (row by row, GPU by GPU). False when not done. */
static bool gpu_checks_both_cores(gw_analysis *a, size_t from, size_t to)
{
    size_t split = second_thread_from(a);
    if (split == 0)
        return false;
    gpu_checks j[2] = {{.view = *a, .from = from, .to = to, .g0 = 0, .g1 = split},
                       {.view = *a, .from = from, .to = to, .g0 = split, .g1 = a->ngpus}};
    j[0].view.verdicts = j[1].view.verdicts = (gw_verdict_list){0};
    pthread_t t;
    if (pthread_create(&t, NULL, gpu_checks_range, &j[1]) != 0)
        return false;
    gpu_checks_range(&j[0]);
    pthread_join(t, NULL);
    for (size_t c = from; c < to; c++)
        for (int h = 0; h < 2; h++)
            for (size_t k = 0; k < j[h].view.verdicts.n; k++)
                if (j[h].row[k] == c) {
                    gw_verdict_list *l = &a->verdicts;
                    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
                    l->v[l->n++] = j[h].view.verdicts.v[k]; /* moved: owned by a now */
                }
    for (int h = 0; h < 2; h++) {
        free(j[h].view.verdicts.v);
        free(j[h].row);
    }
    return true;
}

/* One job checker's part for GPUs [g0, g1), into view's own verdict list. */
typedef struct each_gpu_job {
    gw_analysis view;
    gw_check_one one;
    const void *ctx;
    size_t g0, g1;
} each_gpu_job;

static void *each_gpu_range(void *arg)
{
    each_gpu_job *j = arg;
    for (size_t i = j->g0; i < j->g1; i++) {
        j->one(&j->view, &j->view.gpus[i], j->ctx);
        gw_series_gpu_release(j->view.gpus[i].gpu);
    }
    return NULL;
}

void gw_checks_each_gpu(gw_analysis *a, gw_check_one one, const void *ctx)
{
    size_t split = second_thread_from(a);
    each_gpu_job j[2] = {{.view = *a, .one = one, .ctx = ctx, .g0 = 0, .g1 = split},
                         {.view = *a, .one = one, .ctx = ctx, .g0 = split, .g1 = a->ngpus}};
    j[0].view.verdicts = j[1].view.verdicts = (gw_verdict_list){0};
    pthread_t t;
    if (split == 0 || pthread_create(&t, NULL, each_gpu_range, &j[1]) != 0) {
        each_gpu_job whole = {.view = *a, .one = one, .ctx = ctx, .g0 = 0, .g1 = a->ngpus};
        each_gpu_range(&whole);
        a->verdicts = whole.view.verdicts; /* the same list, grown */
        return;
    }
    each_gpu_range(&j[0]);
    pthread_join(t, NULL);
    for (int h = 0; h < 2; h++) {
        gw_verdict_list *l = &a->verdicts, *from = &j[h].view.verdicts;
        l->v = xgrow(l->v, &l->cap, l->n + from->n + 1, sizeof *l->v);
        if (from->n)
            memcpy(l->v + l->n, from->v, from->n * sizeof *from->v); /* moved: owned by a now */
        l->n += from->n;
        free(from->v);
    }
}

void gw_checks_run(gw_analysis *a)
{
    for (size_t c = 0; c < GW_V_COUNT; c++) {
        const gw_verdict_def *d = &gw_verdict_registry[c];
        size_t to = c; /* a run of per-GPU checkers: [c, to) */
        while (to < GW_V_COUNT && !gw_verdict_registry[to].job && gw_verdict_registry[to].gpu)
            to++;
        if (to > c && gpu_checks_both_cores(a, c, to)) {
            c = to - 1;
            continue;
        }
        if (ran_before(c))
            continue;
        if (d->job)
            d->job(a);
        /* the columns a check decoded are freed after it (series.h: big records) */
        for (size_t i = 0; d->job && i < a->ngpus; i++)
            gw_series_gpu_release(a->gpus[i].gpu);
        for (size_t i = 0; d->gpu && i < a->ngpus; i++) {
            d->gpu(a, &a->gpus[i]);
            gw_series_gpu_release(a->gpus[i].gpu);
        }
        for (size_t i = 0; d->gpu && i < a->ngpus; i++) /* a check may look at its peers */
            gw_series_gpu_release(a->gpus[i].gpu);
    }
}

double gw_check_p50(const gw_gpu_analysis *g, const double *values,
                    bool (*keep)(const gw_gpu_analysis *, size_t))
{
    size_t n = g->gpu->tab.n, m = 0;
    if (!values)
        return NAN;
    double *a = xmalloc((n ? n : 1) * sizeof *a);
    for (size_t r = 0; r < n; r++)
        if (!isnan(values[r]) && keep(g, r))
            a[m++] = values[r];
    double p50 = m >= 3 ? gw_stats_quantile(a, m, 0.5) : NAN;
    free(a);
    return p50;
}

gw_span gw_check_span_of_time(const gw_gpu_analysis *g, int64_t start_ms, int64_t end_ms)
{
    const int64_t *t = g->gpu->tab.t_ms;
    size_t n = g->gpu->tab.n;
    size_t b = gw_stats_lower_bound_ms(t, n, start_ms);
    size_t e = b + gw_stats_lower_bound_ms(t + b, n - b, end_ms);
    return gw_span_make(g->gpu, g->dt_s, b, e);
}

/* job_set: run directories gathered by job, ordered, with missing ranks and totals (job_set.h). */
#include "analysis/job_set.h"

#include "util/xalloc.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

gw_job_set *gw_job_set_new(void)
{
    return xcalloc(1, sizeof(gw_job_set));
}

void gw_job_set_add(gw_job_set *js, const char *path, gw_job *ref, gw_series *s, gw_analysis *a)
{
    if (js->nmembers == js->cap) {
        js->cap = js->cap ? 2 * js->cap : 8;
        js->members = xrealloc(js->members, js->cap * sizeof *js->members);
    }
    gw_job_member *m = &js->members[js->nmembers++];
    memset(m, 0, sizeof *m);
    m->path = xstrdup(path);
    m->ref = *ref;
    memset(ref, 0, sizeof *ref);
    m->series = s;
    m->a = a;
    m->node = m->ref.node                            ? m->ref.node
              : s && s->ngpus && *s->gpus[0]->source ? s->gpus[0]->source
                                                     : m->path;
}

bool gw_job_member_has_gpu(const gw_job_member *m, const gw_gpu_analysis *g)
{
    return m->ref.gpus_unlisted ||
           (g->gpu->index >= 0 && gw_job_has_gpu(&m->ref, (unsigned)g->gpu->index));
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Running sums behind gw_job_figures. */
typedef struct sums {
    size_t ngpus;
    double s, energy, work, busy_work, sm_s, sm;
    bool has_energy;
} sums;

/* new_gpu: false for a GPU counted already, recorded again at another time (a requeued job) */
static void add_gpu(sums *t, const gw_gpu_analysis *g, bool new_gpu)
{
    double s = (double)(g->whole.span.end_ms - g->whole.span.start_ms) / 1000.0;
    if (!(s > 0))
        s = 0;
    t->ngpus += new_gpu;
    t->s += s;
    if (!isnan(g->whole.energy_wh)) {
        t->energy += g->whole.energy_wh;
        t->has_energy = true;
    }
    if (!isnan(g->busy_pct) && g->work_s > 0) {
        t->work += g->work_s;
        t->busy_work += g->busy_pct * g->work_s;
    }
    int col = g->gpu->col_of[GW_F_GPM_SM_ACTIVE_PCT];
    if (col >= 0 && g->whole.stats && g->whole.stats[col].n > 0 &&
        !isnan(g->whole.stats[col].mean)) {
        t->sm_s += s;
        t->sm += g->whole.stats[col].mean * s;
    }
}

static gw_job_figures figures_of(const sums *t)
{
    return (gw_job_figures){
        .ngpus = t->ngpus,
        .gpu_hours = t->s / 3600.0,
        .energy_wh = t->has_energy ? t->energy : NAN,
        .busy_pct = t->work > 0 ? t->busy_work / t->work : NAN,
        .sm_active_pct = t->sm_s > 0 ? t->sm / t->sm_s : NAN,
    };
}

static int cmp_long(const void *pa, const void *pb)
{
    long a = *(const long *)pa, b = *(const long *)pb;
    return a < b ? -1 : a > b;
}

static int cmp_member(const void *pa, const void *pb)
{
    const gw_job_member *a = *(gw_job_member *const *)pa, *b = *(gw_job_member *const *)pb;
    int c = strcmp(a->node, b->node);
    if (c)
        return c;
    long ra = a->ref.rank < 0 ? LONG_MAX : a->ref.rank,
         rb = b->ref.rank < 0 ? LONG_MAX : b->ref.rank;
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* The identity of a GPU within one job: its node and its UUID (index when unknown). */
static bool same_gpu(const gw_job_member *ma, const gw_gpu_analysis *a, const gw_job_member *mb,
                     const gw_gpu_analysis *b)
{
    if (strcmp(ma->node, mb->node) != 0)
        return false;
    if (*a->gpu->uuid && *b->gpu->uuid)
        return strcmp(a->gpu->uuid, b->gpu->uuid) == 0;
    return a->gpu->index == b->gpu->index;
}

static bool overlap(const gw_gpu_analysis *a, const gw_gpu_analysis *b)
{
    return a->whole.span.start_ms <= b->whole.span.end_ms &&
           b->whole.span.start_ms <= a->whole.span.end_ms;
}

/* GPU g of group member k as an earlier member saw it: SEEN_NOT when none did, SEEN_APART when
 * only at other times (a requeued job's earlier run: its hours add up), SEEN_MEANWHILE when
 * over the same time (ranks sharing the GPU: counted once). */
typedef enum { SEEN_NOT, SEEN_APART, SEEN_MEANWHILE } seen_as;

static seen_as counted_before(const gw_job_group *grp, size_t k, const gw_gpu_analysis *g)
{
    seen_as seen = SEEN_NOT;
    for (size_t j = 0; j < k; j++) {
        const gw_job_member *o = grp->members[j];
        for (size_t i = 0; i < o->a->ngpus; i++) {
            const gw_gpu_analysis *og = &o->a->gpus[i];
            if (gw_job_member_has_gpu(o, og) && same_gpu(o, og, grp->members[k], g)) {
                if (overlap(og, g))
                    return SEEN_MEANWHILE;
                seen = SEEN_APART;
            }
        }
    }
    return seen;
}

static void finish_group(gw_job_group *grp)
{
    qsort(grp->members, grp->nmembers, sizeof *grp->members, cmp_member);
    grp->world_size = -1;
    long *ws = xcalloc(grp->nmembers + 1, sizeof *ws),
         *ranks = xcalloc(grp->nmembers + 1, sizeof *ranks);
    size_t nws = 0, nr = 0;
    for (size_t k = 0; k < grp->nmembers; k++) {
        const gw_job *r = &grp->members[k]->ref;
        if (r->world_size > 0)
            ws[nws++] = r->world_size;
        if (r->rank >= 0)
            ranks[nr++] = r->rank;
        if (!grp->scheduler && r->scheduler)
            grp->scheduler = r->scheduler;
    }
    if (nws)
        qsort(ws, nws, sizeof *ws, cmp_long);
    grp->world_sizes = ws;
    for (size_t i = 0; i < nws; i++)
        if (i == 0 || ws[i] != ws[i - 1])
            ws[grp->nworld_sizes++] = ws[i];
    if (grp->nworld_sizes)
        grp->world_size = ws[grp->nworld_sizes - 1];
    /* distinct ranks, those given twice, those past the world size, those missing below it */
    if (nr)
        qsort(ranks, nr, sizeof *ranks, cmp_long);
    grp->duplicated = xcalloc(nr + 1, sizeof *grp->duplicated);
    grp->outside = xcalloc(nr + 1, sizeof *grp->outside);
    size_t nu = 0;
    for (size_t i = 0; i < nr; i++) {
        if (i > 0 && ranks[i] == ranks[i - 1]) {
            if (i == 1 || ranks[i - 2] != ranks[i])
                grp->duplicated[grp->nduplicated++] = ranks[i];
            continue;
        }
        if (grp->world_size > 0 && ranks[i] >= grp->world_size)
            grp->outside[grp->noutside++] = ranks[i];
        else
            ranks[nu++] = ranks[i]; /* distinct, below the world size */
    }
    grp->nranks = nu;
    if (grp->world_size > 0) {
        grp->nmissing = (size_t)grp->world_size - nu;
        size_t cap = grp->nmissing;
        if (cap > GW_JOB_MAX_LISTED)
            cap = GW_JOB_MAX_LISTED;
        grp->missing = xcalloc(cap + 1, sizeof *grp->missing);
        size_t listed = 0, p = 0;
        for (long r = 0; r < grp->world_size && listed < cap; r++) {
            while (p < nu && ranks[p] < r)
                p++;
            if (p == nu || ranks[p] != r)
                grp->missing[listed++] = r;
        }
    }
    free(ranks);
    sums total = {0};
    for (size_t k = 0; k < grp->nmembers; k++) {
        gw_job_member *m = grp->members[k];
        sums own = {0};
        for (size_t i = 0; i < m->a->ngpus; i++) {
            const gw_gpu_analysis *g = &m->a->gpus[i];
            if (!gw_job_member_has_gpu(m, g))
                continue;
            add_gpu(&own, g, true);
            seen_as seen = counted_before(grp, k, g);
            if (seen != SEEN_MEANWHILE)
                add_gpu(&total, g, seen == SEEN_NOT);
        }
        m->fig = figures_of(&own);
    }
    grp->total = figures_of(&total);
}

void gw_job_set_finish(gw_job_set *js)
{
    js->groups = xcalloc(js->nmembers + 1, sizeof *js->groups);
    for (size_t i = 0; i < js->nmembers; i++) {
        gw_job_member *m = &js->members[i];
        gw_job_group *grp = NULL;
        for (size_t g = 0; g < js->ngroups && !grp; g++)
            if (same_str(js->groups[g].job_id, m->ref.job_id) &&
                same_str(js->groups[g].step, m->ref.step))
                grp = &js->groups[g];
        if (!grp) {
            grp = &js->groups[js->ngroups++];
            grp->job_id = m->ref.job_id;
            grp->step = m->ref.step;
            grp->members = xcalloc(js->nmembers, sizeof *grp->members);
        }
        grp->members[grp->nmembers++] = m;
    }
    for (size_t g = 0; g < js->ngroups; g++)
        finish_group(&js->groups[g]);
}

void gw_job_set_free(gw_job_set *js)
{
    if (!js)
        return;
    for (size_t g = 0; g < js->ngroups; g++) {
        free(js->groups[g].members);
        free(js->groups[g].missing);
        free(js->groups[g].world_sizes);
        free(js->groups[g].duplicated);
        free(js->groups[g].outside);
    }
    free(js->groups);
    for (size_t i = 0; i < js->nmembers; i++) {
        gw_job_member *m = &js->members[i];
        gw_analysis_free(m->a);
        gw_series_free(m->series);
        gw_job_clear(&m->ref);
        free(m->path);
    }
    free(js->members);
    free(js);
}

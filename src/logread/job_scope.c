/* The job's GPUs in a series and the report's --scope (series.h: gw_series_apply_job). */
#include "logread/series.h"

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Whether a process of the job (processes.csv in_job = 1) held the GPU; *any: one held any GPU of
 * the GPU's node. */
static bool procs_used(const gw_series *s, const gw_series_gpu *g, bool *any)
{
    bool used = false;
    for (size_t i = 0; i < s->nprocs; i++) {
        const gw_series_proc *p = &s->procs[i];
        if (p->in_job != 1 || strcmp(s->inputs[p->input].source, g->source) != 0)
            continue;
        *any = true;
        used |= p->gpu_index == g->index;
    }
    return used;
}

static int in_job_of(const gw_series *s, const gw_series_gpu *g)
{
    const gw_job *j = s->inputs[g->input].job;
    if (!j || strcmp(j->gpus_source, "all") == 0)
        return -1;
    if (j->gpus_pending) { /* not finalised: the command's processes as processes.csv saw them */
        bool any = false;
        bool used = procs_used(s, g, &any);
        return any ? used : -1;
    }
    return g->index >= 0 && gw_job_has_gpu(j, (unsigned)g->index);
}

void gw_series_apply_job(gw_series *s)
{
    bool node = s->scope == GW_SERIES_SCOPE_NODE;
    if (s->scope == GW_SERIES_SCOPE_FROM_RUN)
        for (size_t i = 0; i < s->ninputs; i++)
            node |= s->inputs[i].job && s->inputs[i].job->scope_node;
    size_t mine = 0, others = 0;
    for (size_t i = 0; i < s->ngpus; i++) {
        s->gpus[i]->in_job = in_job_of(s, s->gpus[i]);
        mine += s->gpus[i]->in_job != 0;
        others += s->gpus[i]->in_job == 0;
    }
    /* job scope with none of the job's GPUs recorded (CUDA_VISIBLE_DEVICES empty): the others are
     * kept, shown as not this job, so the report still shows what was recorded */
    if (!node && others && mine) {
        bool *drop = xcalloc(s->ngpus, sizeof *drop);
        for (size_t i = 0; i < s->ngpus; i++)
            drop[i] = s->gpus[i]->in_job == 0;
        gw_series_drop_gpus(s, drop);
        free(drop);
    }
    s->scope_node = node || (others && !mine);
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].job)
            s->inputs[i].job->scope_node = s->scope_node;
}

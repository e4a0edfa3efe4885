/* The gpu_starved cause from the in-job data: where, per epoch, and bounded suggestions
 * (analysis/inproc_cause.h). */
#include "analysis/inproc_cause.h"

#include "host/host_sample.h"
#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The top function of a role by self samples and its share (%) of the role's busy samples. */
static const gw_inproc_fn *hot(const gw_inproc_analysis *ia, int role, size_t k, double *pct)
{
    const gw_inproc_role_view *rv = &ia->roles[role];
    double busy = rv->busy;
    if (k >= rv->nfns || !(busy > 0)) {
        *pct = NAN;
        return NULL;
    }
    *pct = 100.0 * rv->fns[k].self / busy;
    return &rv->fns[k];
}

static void num(gw_buf *b, double x, int dec)
{
    gw_fmt_buf_fixed(b, x, dec, GW_FMT_TRIM, "?");
}

/* "F1 34%, F2 21%" of a role's top self functions (at most n, each at least 5%). */
static void hot_list(gw_buf *b, const gw_inproc_analysis *ia, int role, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        double pct;
        const gw_inproc_fn *f = hot(ia, role, k, &pct);
        if (!f || (k > 0 && pct < 5))
            break;
        gw_buf_printf(b, "%s%s ", k ? ", " : "", gw_inproc_fn_short(f->name));
        num(b, pct, 0);
        gw_buf_puts(b, "%");
    }
}

/* The share (%) of the training process's samples inside __next__ that are its own work
 * (receiving, unpickling, rebuilding a batch) rather than idle waiting for a worker; NAN when it
 * was not sampled there. */
static double next_busy_pct(const gw_inproc_analysis *ia)
{
    const gw_inproc_role_view *m = &ia->roles[GW_INPROC_MAIN];
    return m->in_next > 0 ? 100.0 * (m->in_next - m->in_next_idle) / m->in_next : NAN;
}

static void settings_evidence(gw_verdict *v, const gw_inproc_analysis *ia)
{
    const gw_inproc_loader *l = &ia->in->loaders[ia->train_loader];
    gw_verdict_num(v, "python_num_workers", l->num_workers);
    gw_verdict_num(v, "python_batch_size", l->batch_size);
    gw_verdict_num(v, "python_cores", gw_inproc_cores(ia));
    gw_verdict_num(v, "python_wait_own_work_pct", next_busy_pct(ia));
    double pct;
    const gw_inproc_fn *f = hot(ia, GW_INPROC_MAIN, 0, &pct);
    if (f) {
        gw_verdict_text(v, "python_main_hot_function", gw_inproc_fn_short(f->name));
        gw_verdict_num(v, "python_main_hot_self_pct", pct);
    }
    if ((f = hot(ia, GW_INPROC_WORKER, 0, &pct))) {
        gw_verdict_text(v, "python_worker_hot_function", gw_inproc_fn_short(f->name));
        gw_verdict_num(v, "python_worker_hot_self_pct", pct);
    }
}

/* Per epoch, when the bound changes: "1 input 62%, 2 main 8%". */
/* Per epoch, when the bound changes: "1 input 62%, 2 main 6%"; with bounds, each epoch's most a
 * faster input could gain: "1 input 62% (<= 2.67x), 2 main 6% (<= 1.07x)". */
static void per_epoch(gw_buf *b, const gw_inproc_analysis *ia, size_t max, bool bounds)
{
    for (size_t k = 0; k < ia->nepochs && k < max; k++) {
        const gw_inproc_epoch *e = &ia->epochs[k];
        gw_buf_printf(b, "%s%ld %s ", k ? ", " : "", e->train->pass + 1,
                      gw_inproc_bound_name(e->bound));
        num(b, e->wait_share_pct, 0);
        gw_buf_puts(b, "%");
        if (bounds && e->wait_share_pct < 100) {
            gw_buf_puts(b, " (<= ");
            num(b, 100.0 / (100.0 - e->wait_share_pct), 2);
            gw_buf_puts(b, "x)");
        }
    }
    if (ia->nepochs > max)
        gw_buf_puts(b, ", ...");
}

static void suggest_input(gw_buf *b, const gw_inproc_analysis *ia, const gw_roles_summary *r)
{
    const gw_inproc_loader *l = &ia->in->loaders[ia->train_loader];
    double own = next_busy_pct(ia);
    if (own >= 50) {
        gw_buf_puts(b, "But the training process itself works ");
        num(b, own, 0);
        gw_buf_puts(b, "% of the time it waits (receiving and rebuilding batches inside "
                       "__next__), so more workers cannot shorten that part: send smaller "
                       "batches or uint8 tensors, decode on the GPU. ");
    }
    double pct;
    const gw_inproc_fn *f = hot(ia, GW_INPROC_WORKER, 0, &pct);
    if (f) {
        gw_buf_puts(b, "The workers spend their time in ");
        hot_list(b, ia, GW_INPROC_WORKER, 3);
        gw_buf_puts(b, " (self, of their busy samples): make that lighter or move it to the "
                       "GPU. ");
    }
    const gw_inproc_settings *ws = ia->worker ? &ia->worker->settings : NULL;
    if (ws && ws->cv2_num_threads > 1) {
        gw_buf_puts(b, "cv2 runs ");
        num(b, ws->cv2_num_threads, 0);
        gw_buf_puts(b, " threads in each worker: call cv2.setNumThreads(0) in the workers. ");
    }
    double cores = gw_inproc_cores(ia), nw = l->num_workers;
    if (!isnan(cores) && !isnan(nw) && cores - 1 > nw) {
        gw_buf_puts(b, "Raise num_workers from ");
        num(b, nw, 0);
        gw_buf_puts(b, " towards ");
        num(b, cores - 1, 0);
        gw_buf_puts(b, " (the job may use ");
        num(b, cores, 0);
        gw_buf_puts(b, " cores). ");
    } else if (!isnan(cores) && !isnan(nw)) {
        gw_buf_puts(b, "num_workers=");
        num(b, nw, 0);
        gw_buf_puts(b, " already fills the ");
        num(b, cores, 0);
        gw_buf_puts(b, " cores the job may use: more workers need more cores. ");
    }
    /* persistent workers save the start-up of every epoch but the first */
    double first = 0;
    size_t later = 0;
    for (size_t k = 1; k < ia->nepochs; k++)
        if (!isnan(ia->epochs[k].train->first_wait_s)) {
            first += ia->epochs[k].train->first_wait_s;
            later++;
        }
    first = later ? first / (double)later : NAN;
    if (l->persistent_workers == 0 && first >= 0.5) {
        gw_buf_puts(b, "persistent_workers=True saves the ");
        num(b, first, 1);
        gw_buf_puts(b, " s each epoch after the first waits for its first batch. ");
    }
    if (l->pin_memory == 0)
        gw_buf_puts(b, "Set pin_memory=True. ");
    if (r->present && r->train_cpu_max_pct >= GW_ROLE_SATURATED_PCT) {
        gw_buf_puts(b, "The training process already runs at ");
        num(b, r->train_cpu_max_pct, 0);
        gw_buf_puts(b, "% of a core: it becomes the limit before that bound. ");
    }
}

static void suggest_main(gw_buf *b, const gw_inproc_analysis *ia)
{
    const gw_inproc_loader *l = &ia->in->loaders[ia->train_loader];
    const gw_inproc_settings *s = &ia->main->settings;
    double pct;
    if (hot(ia, GW_INPROC_MAIN, 0, &pct)) {
        gw_buf_puts(b, "The step's time goes to ");
        hot_list(b, ia, GW_INPROC_MAIN, 3);
        gw_buf_puts(b, " of the training process's busy samples (self). ");
    }
    if (s->present && s->autocast_used == 0)
        gw_buf_puts(b, "Use AMP (torch.autocast, bf16): it is not used. ");
    if (s->present && s->torch_compile_used == 0)
        gw_buf_puts(b, "torch.compile or CUDA graphs cut the per-step launch cost: not used. ");
    if (!isnan(l->batch_size)) {
        gw_buf_puts(b, "A larger batch than batch_size=");
        num(b, l->batch_size, 0);
        gw_buf_puts(b, " spreads that per-step cost over more samples. ");
    }
    if (s->present && s->cudnn_benchmark == 0)
        gw_buf_puts(b, "Set torch.backends.cudnn.benchmark=True. ");
    gw_buf_puts(b, "Remove synchronising calls (.item(), .cpu()) from the step.");
}

/* The evidence of the in-job data on v, and the cause it proves (NULL: it proves none). */
static const char *evidence(gw_verdict *v, const gw_inproc_analysis *ia)
{
    double w = ia->wait_share_pct;
    if (ia->bound == GW_INPROC_BOUND_INPUT)
        gw_verdict_check(v, "python_data_wait_share_pct", w, ">=", GW_TH_PY_INPUT_BOUND_PCT);
    else if (ia->bound == GW_INPROC_BOUND_MAIN)
        gw_verdict_check(v, "python_data_wait_share_pct", w, "<=", GW_TH_PY_MAIN_BOUND_PCT);
    else
        gw_verdict_num(v, "python_data_wait_share_pct", w);
    gw_verdict_num(v, "python_input_speedup_max", ia->speedup_input_max);
    gw_verdict_num(v, "python_training_steps", ia->steps);
    gw_verdict_text(v, "python_bound", gw_inproc_bound_name(ia->bound));
    settings_evidence(v, ia);
    if (ia->bound == GW_INPROC_BOUND_INPUT)
        return "input_pipeline";
    if (ia->bound == GW_INPROC_BOUND_MAIN)
        return "cpu_bound";
    if (!ia->bound_changes)
        return NULL;
    return w >= (GW_INPROC_INPUT_PCT + GW_INPROC_MAIN_PCT) / 2 ? "input_pipeline" : "cpu_bound";
}

/* The verdict's "why": the data-wait share, per epoch when it changes, the hot function. */
static void say_why(const gw_inproc_analysis *ia, bool input, char *why, size_t len)
{
    gw_buf b = {0};
    gw_buf_puts(&b, "the training loop waited for data ");
    num(&b, ia->wait_share_pct, 0);
    gw_buf_puts(&b, "% of its step time");
    if (ia->bound_changes) {
        gw_buf_puts(&b, "; per epoch: ");
        per_epoch(&b, ia, 4, false);
    }
    double pct;
    const gw_inproc_fn *f = hot(ia, input ? GW_INPROC_WORKER : GW_INPROC_MAIN, 0, &pct);
    if (f) {
        gw_buf_printf(&b, "; %s %s ", input ? "workers" : "training process",
                      gw_inproc_fn_short(f->name));
        num(&b, pct, 0);
        gw_buf_puts(&b, "%");
    }
    snprintf(why, len, "%s", b.data ? b.data : "");
    gw_buf_free(&b);
}

/* The suggestion into ia->suggestion: the settings, the bound, then what to change. */
static void suggest(gw_inproc_analysis *ia, const gw_roles_summary *r, const char *cause,
                    const char *fallback, double gpu_bound)
{
    gw_buf b = {0}, set = {0};
    const gw_inproc_loader *l = &ia->in->loaders[ia->train_loader];
    gw_inproc_loader_settings(l, &set);
    gw_buf_printf(&b, "In-job data (loader %ld: %s): the training loop waits for data ", l->id,
                  set.data ? set.data : "settings unknown");
    gw_buf_free(&set);
    num(&b, ia->wait_share_pct, 0);
    gw_buf_puts(&b, "% of its step time, so a faster input pipeline (more or faster workers) "
                    "can make training at most ");
    /* the GPU saturates first when it would be busy all the time before the wait is gone */
    bool gpu_first = gpu_bound < ia->speedup_input_max;
    num(&b, gpu_first ? gpu_bound : ia->speedup_input_max, 2);
    gw_buf_puts(&b, "x faster");
    if (gpu_first) {
        gw_buf_puts(&b, " (the GPU, busy ");
        num(&b, 100.0 / gpu_bound, 0);
        gw_buf_puts(&b, "% now, is saturated there; without the wait the loop alone would run ");
        num(&b, ia->speedup_input_max, 2);
        gw_buf_puts(&b, "x faster)");
    }
    gw_buf_puts(&b, ". ");
    if (ia->bound_changes) {
        gw_buf_puts(&b, "The cause changes between epochs (data wait per epoch: ");
        per_epoch(&b, ia, 8, true);
        gw_buf_puts(&b, "): input work helps the input-bound epochs only, step work the "
                        "others. ");
        suggest_input(&b, ia, r);
        suggest_main(&b, ia);
    } else if (strcmp(cause, "input_pipeline") == 0) {
        suggest_input(&b, ia, r);
    } else if (strcmp(cause, "cpu_bound") == 0) {
        gw_buf_puts(&b, "More DataLoader workers cannot help past that. ");
        suggest_main(&b, ia);
    } else {
        gw_buf_puts(&b, fallback ? fallback : "");
    }
    snprintf(ia->suggestion, sizeof ia->suggestion, "%s", b.data ? b.data : "");
    gw_buf_free(&b);
    size_t n = strlen(ia->suggestion); /* the sentences end with a space for the next one */
    while (n > 0 && ia->suggestion[n - 1] == ' ')
        ia->suggestion[--n] = '\0';
}

void gw_inproc_cause(gw_analysis *a, const gw_gpu_analysis *g, gw_verdict *v, const char **cause,
                     const char **suggestion, char *why, size_t len)
{
    gw_inproc_analysis *ia = a->inproc;
    if (!gw_inproc_covers(ia, g->gpu))
        return; /* no in-job data of this GPU's job: the report says why once, not per verdict */
    if (!ia->has_steps) {
        gw_verdict_text(v, "python_missing", ia->why_none);
        return;
    }
    const char *mine = evidence(v, ia);
    if (mine && strcmp(mine, *cause) != 0) {
        gw_verdict_text(v, "host_cause", *cause);
        *cause = mine;
    }
    say_why(ia, strcmp(*cause, "input_pipeline") == 0, why, len);
    gw_roles_summary r = gw_roles_of(g);
    double gpu_bound = g->busy_pct > 0 ? 100.0 / g->busy_pct : NAN;
    /* what a faster input pipeline can gain: the loop's own bound, or the GPU's when it
     * saturates first (the figure the suggestion quotes) */
    gw_verdict_num(v, "python_input_gain_max", fmin(gpu_bound, ia->speedup_input_max));
    suggest(ia, &r, *cause, *suggestion, gpu_bound);
    *suggestion = ia->suggestion;
}

void gw_inproc_leak(gw_analysis *a, gw_verdict *v)
{
    const gw_inproc_analysis *ia = a->inproc;
    if (v->gpu < 0 || (size_t)v->gpu >= a->ngpus || !gw_inproc_covers(ia, a->gpus[v->gpu].gpu) ||
        ia->nmemory < 3)
        return;
    const double gib = 1024.0 * 1024 * 1024;
    double grew = ia->alloc_last - ia->alloc_first, res = ia->reserved_last - ia->reserved_first;
    gw_verdict_num(v, "python_allocated_first_gib", ia->alloc_first / gib);
    gw_verdict_num(v, "python_allocated_last_gib", ia->alloc_last / gib);
    gw_verdict_num(v, "python_reserved_first_gib", ia->reserved_first / gib);
    gw_verdict_num(v, "python_reserved_last_gib", ia->reserved_last / gib);
    gw_verdict_text(v, "python_allocator_leak", ia->leak ? "yes" : "no");
    bool flat = !(grew >= GW_TH(GW_TH_PY_LEAK_MIN_MIB) * 1048576.0) &&
                !(grew >= GW_TH(GW_TH_PY_LEAK_MIN_PCT) / 100.0 * ia->alloc_first);
    gw_buf b = {0};
    gw_buf_puts(&b, v->message ? v->message : "");
    gw_buf_puts(&b, "; torch allocator (in-job): allocated ");
    num(&b, ia->alloc_first / gib, 2);
    gw_buf_puts(&b, " -> ");
    num(&b, ia->alloc_last / gib, 2);
    gw_buf_puts(&b, " GiB, reserved ");
    num(&b, ia->reserved_first / gib, 2);
    gw_buf_puts(&b, " -> ");
    num(&b, ia->reserved_last / gib, 2);
    gw_buf_puts(&b, " GiB");
    free(v->message);
    v->message = xstrdup(b.data);
    if (flat) {
        gw_buf_reset(&b);
        gw_buf_puts(&b, "Tensors do not leak: the torch allocator's allocated memory stayed flat "
                        "while memory.used grew. ");
        if (res >= GW_TH(GW_TH_PY_LEAK_MIN_MIB) * 1048576.0)
            gw_buf_puts(&b, "Its reserve grew (the caching allocator keeps freed blocks, "
                            "fragmentation): see torch.cuda.memory_summary() and try "
                            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True. ");
        else
            gw_buf_puts(&b, "Nor did its reserve: the growth is outside torch's allocator "
                            "(cuDNN/cuBLAS workspaces, NCCL buffers, another library or process "
                            "on the GPU). ");
        free(v->suggestion);
        v->suggestion = xstrdup(b.data);
    }
    gw_buf_free(&b);
}

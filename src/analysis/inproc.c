/* What the in-job data says: training and validation loaders, data-wait shares per epoch, the
 * allocator (analysis/inproc.h). The stacks per role: inproc_stacks.c. */
#include "analysis/inproc.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A leak seen by the allocator: allocated grew at every pass end, by at least
 * python_leak_min_mib and python_leak_min_pct of the first (thresholds.h). */
#define LEAK_MIN_BYTES (GW_TH(GW_TH_PY_LEAK_MIN_MIB) * 1048576.0)
#define LEAK_MIN_SHARE (GW_TH(GW_TH_PY_LEAK_MIN_PCT) / 100.0)

static const char *const bound_names[] = {"unknown", "input", "main", "mixed"};

const char *gw_inproc_bound_name(gw_inproc_bound b)
{
    return (unsigned)b < 4 ? bound_names[b] : "unknown";
}

void gw_inproc_roles_build(gw_inproc_analysis *ia); /* inproc_stacks.c */
void gw_inproc_roles_free(gw_inproc_analysis *ia);

static double loader_steps(const gw_inproc *in, size_t l, size_t *passes)
{
    double steps = 0;
    *passes = 0;
    for (size_t i = 0; i < in->npasses; i++)
        if (in->passes[i].loader == l) {
            steps += in->passes[i].steps;
            (*passes)++;
        }
    return steps;
}

static double proc_steps(const gw_inproc *in, long pid)
{
    double steps = 0;
    size_t np;
    for (size_t l = 0; l < in->nloaders; l++)
        if (in->loaders[l].pid == pid)
            steps += loader_steps(in, l, &np);
    return steps;
}

/* The training process: role main with the most steps (rank 0 first); else the first main. */
static const gw_inproc_proc *pick_main(const gw_inproc *in)
{
    const gw_inproc_proc *best = NULL;
    double best_steps = -1;
    for (size_t i = 0; i < in->nprocs; i++) {
        const gw_inproc_proc *p = &in->procs[i];
        if (p->role != GW_INPROC_MAIN)
            continue;
        double st = proc_steps(in, p->pid);
        bool better = !best || (p->rank == 0 && best->rank > 0 && st > 0) ||
                      ((p->rank == best->rank || best_steps <= 0) && st > best_steps);
        if (better) {
            best = p;
            best_steps = st;
        }
    }
    for (size_t i = 0; !best && i < in->nprocs; i++) /* no role written: the most steps */
        if (proc_steps(in, in->procs[i].pid) > best_steps) {
            best = &in->procs[i];
            best_steps = proc_steps(in, best->pid);
        }
    return best;
}

/* Does a pass of loader l start after the first pass of loader t began (between its passes)? */
static size_t interleaved(const gw_inproc *in, size_t l, size_t t)
{
    double first = NAN;
    for (size_t i = 0; i < in->npasses && isnan(first); i++)
        if (in->passes[i].loader == t)
            first = in->passes[i].t_start;
    size_t n = 0;
    for (size_t i = 0; i < in->npasses; i++)
        n += in->passes[i].loader == l && in->passes[i].t_start >= first;
    return n;
}

static void pick_loaders(gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    ia->train_loader = ia->val_loader = -1;
    double best = 0;
    size_t best_passes = 0, np;
    for (size_t l = 0; ia->main && l < in->nloaders; l++) {
        double st = loader_steps(in, l, &np);
        if (in->loaders[l].pid == ia->main->pid && st > best) {
            best = st;
            best_passes = np;
            ia->train_loader = (long)l;
        }
    }
    if (ia->train_loader < 0)
        return;
    size_t t = (size_t)ia->train_loader, best_val = 0;
    for (size_t l = 0; l < in->nloaders; l++) {
        size_t n = l == t || in->loaders[l].pid != ia->main->pid ? 0 : interleaved(in, l, t);
        if (n > best_val) {
            best_val = n;
            ia->val_loader = (long)l;
        }
    }
    int len = snprintf(
        ia->how, sizeof ia->how, "training: loader %ld, the most steps (%s in %zu pass%s%s",
        in->loaders[t].id, GW_FIXED(best, 0), best_passes, best_passes == 1 ? "" : "es",
        in->loaders[t].objects > 1 ? ", a new DataLoader for each" : ")");
    if (in->loaders[t].objects > 1 && len > 0 && (size_t)len < sizeof ia->how)
        len += snprintf(ia->how + len, sizeof ia->how - (size_t)len, ": %ld made at %s)",
                        in->loaders[t].objects, in->loaders[t].created_at);
    if (ia->val_loader >= 0 && len > 0 && (size_t)len < sizeof ia->how) {
        double vs = loader_steps(in, (size_t)ia->val_loader, &np);
        snprintf(ia->how + len, sizeof ia->how - (size_t)len,
                 "; validation: loader %ld, %zu shorter pass%s after training passes (%s "
                 "steps)",
                 in->loaders[ia->val_loader].id, best_val, best_val == 1 ? "" : "es",
                 GW_FIXED(vs, 0));
    }
}

static double share_pct(double wait, double between)
{
    return wait + between > 0 ? 100.0 * wait / (wait + between) : NAN;
}

static gw_inproc_bound bound_of(double share)
{
    if (isnan(share))
        return GW_INPROC_BOUND_UNKNOWN;
    return share >= GW_INPROC_INPUT_PCT  ? GW_INPROC_BOUND_INPUT
           : share <= GW_INPROC_MAIN_PCT ? GW_INPROC_BOUND_MAIN
                                         : GW_INPROC_BOUND_MIXED;
}

static void build_epochs(gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    size_t t = (size_t)ia->train_loader;
    ia->epochs = xcalloc(in->npasses + 1, sizeof *ia->epochs);
    for (size_t i = 0; i < in->npasses; i++) {
        const gw_inproc_pass *p = &in->passes[i];
        if (p->loader != t)
            continue;
        gw_inproc_epoch *e = &ia->epochs[ia->nepochs++];
        e->train = p;
        e->wait_share_pct = share_pct(p->wait_s, p->between_s);
        e->steps_per_s = p->t_end > p->t_start ? p->steps / (p->t_end - p->t_start) : NAN;
        e->bound =
            p->steps >= GW_INPROC_MIN_STEPS ? bound_of(e->wait_share_pct) : GW_INPROC_BOUND_UNKNOWN;
        ia->steps += p->steps;
        ia->wait_s += p->wait_s;
        ia->between_s += p->between_s;
        if (!isnan(p->first_wait_s))
            ia->first_wait_s = (isnan(ia->first_wait_s) ? 0 : ia->first_wait_s) + p->first_wait_s;
    }
    /* validation passes belong to the epoch whose training pass they follow */
    for (size_t i = 0; ia->val_loader >= 0 && i < in->npasses; i++) {
        const gw_inproc_pass *p = &in->passes[i];
        if (p->loader != (size_t)ia->val_loader)
            continue;
        for (size_t k = ia->nepochs; k-- > 0;)
            if (ia->epochs[k].train->t_start <= p->t_start) {
                ia->epochs[k].val_steps += p->steps;
                ia->epochs[k].val_s += p->t_end - p->t_start;
                ia->epochs[k].val_wait_s += p->wait_s;
                ia->epochs[k].val_between_s += p->between_s;
                break;
            }
    }
    ia->wait_share_pct = share_pct(ia->wait_s, ia->between_s);
    if (!(ia->between_s > 0)) /* passes of one batch each: the loop's own time is unknown */
        for (size_t k = 0; k < ia->nepochs; k++) {
            ia->epochs[k].wait_share_pct = ia->wait_share_pct = NAN;
            ia->epochs[k].bound = GW_INPROC_BOUND_UNKNOWN;
        }
    double w = ia->wait_share_pct / 100.0;
    ia->speedup_input_max = w < 1 ? 1.0 / (1.0 - w) : NAN;
    /* a pass of one batch (a new iterator for each step) ends before the loop's own work: with
     * no time between batches the share waiting is no measure */
    ia->has_steps = ia->steps >= GW_INPROC_MIN_STEPS && ia->between_s > 0;
    bool input = false, main_b = false;
    for (size_t k = 0; k < ia->nepochs; k++) {
        input |= ia->epochs[k].bound == GW_INPROC_BOUND_INPUT;
        main_b |= ia->epochs[k].bound == GW_INPROC_BOUND_MAIN;
    }
    ia->bound_changes = input && main_b;
    ia->bound = !ia->has_steps      ? GW_INPROC_BOUND_UNKNOWN
                : ia->bound_changes ? GW_INPROC_BOUND_MIXED
                                    : bound_of(ia->wait_share_pct);
}

/* The training process's last allocator record in [t0, t1]; NULL when none. */
static const gw_inproc_memory *memory_at(const gw_inproc *in, long pid, double t0, double t1)
{
    const gw_inproc_memory *m = NULL;
    for (size_t i = 0; i < in->nmemory; i++)
        if (in->memory[i].pid == pid && in->memory[i].t >= t0 && in->memory[i].t <= t1 &&
            !isnan(in->memory[i].allocated_bytes))
            m = &in->memory[i];
    return m;
}

static void memory(gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    ia->alloc_first = ia->alloc_last = ia->alloc_peak = NAN;
    ia->reserved_last = ia->reserved_peak = ia->max_allocated = ia->reserved_first = NAN;
    for (size_t i = 0; ia->main && i < in->nmemory; i++) {
        const gw_inproc_memory *m = &in->memory[i];
        if (m->pid != ia->main->pid)
            continue;
        if (ia->nmemory++ == 0) {
            ia->alloc_first = m->allocated_bytes;
            ia->reserved_first = m->reserved_bytes;
        }
        ia->alloc_last = m->allocated_bytes;
        ia->reserved_last = m->reserved_bytes;
        ia->alloc_peak = fmax(ia->alloc_peak, m->allocated_bytes);
        ia->reserved_peak = fmax(ia->reserved_peak, m->reserved_bytes);
        ia->max_allocated = fmax(ia->max_allocated, m->max_allocated_bytes);
    }
    double first = NAN, prev = NAN;
    bool grows = true;
    ia->leak_epochs = 0;
    for (size_t k = 0; ia->main && k < ia->nepochs; k++) {
        const gw_inproc_pass *p = ia->epochs[k].train;
        const gw_inproc_memory *m = memory_at(in, ia->main->pid, p->t_start, p->t_end + 1.0);
        ia->epochs[k].alloc_end_bytes = m ? m->allocated_bytes : NAN;
        ia->epochs[k].reserved_end_bytes = m ? m->reserved_bytes : NAN;
        if (!m)
            continue;
        if (ia->leak_epochs++ == 0)
            first = m->allocated_bytes;
        else if (!(m->allocated_bytes > prev))
            grows = false;
        prev = m->allocated_bytes;
    }
    ia->leak_bytes = ia->leak_epochs >= 2 ? prev - first : NAN;
    ia->leak = grows && ia->leak_epochs >= 3 && ia->leak_bytes >= LEAK_MIN_BYTES &&
               ia->leak_bytes >= LEAK_MIN_SHARE * first;
}

static void overhead(gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    ia->sampler_cpu_s = ia->sampled_s = 0;
    for (size_t i = 0; i < in->nprocs; i++) {
        const gw_inproc_proc *p = &in->procs[i];
        if (isnan(p->sampler_cpu_s) || !(p->t_last > p->t_first))
            continue;
        ia->sampler_cpu_s += p->sampler_cpu_s;
        ia->sampled_s += p->t_last - p->t_first;
    }
    ia->sampler_overhead_pct = ia->sampled_s > 0 ? 100.0 * ia->sampler_cpu_s / ia->sampled_s : NAN;
}

static const gw_inproc *first_inproc(const gw_series *s, bool *off, const char **state,
                                     size_t *input)
{
    *off = false;
    *state = NULL;
    for (size_t i = 0; i < s->ninputs; i++) {
        const gw_inproc *in = s->inputs[i].inproc;
        if (!in)
            continue;
        *input = i;
        if (in->dir_found)
            return in;
        if (*in->instrumentation && !*state)
            *state = in->instrumentation;
        *off = true;
    }
    return NULL;
}

/* Why there is no step timing. A "loader" record is written at a loader's first pass: with no
 * pass and no steps after it, the process ended before its first records of steps (flushed
 * every 2 s), most often killed (SIGTERM, SIGKILL, os._exit) before it could write them. */
static void why_no_steps(gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    if (ia->train_loader >= 0 && ia->steps >= GW_INPROC_MIN_STEPS) {
        snprintf(ia->why_none, sizeof ia->why_none,
                 "no time between batches recorded: each of the %zu passes over loader %ld "
                 "ended after its first batch (a new iterator for each step, "
                 "next(iter(loader))?), so the loop's own time and its share waiting for data "
                 "are unknown",
                 ia->nepochs, in->loaders[ia->train_loader].id);
        return;
    }
    if (ia->train_loader >= 0) {
        snprintf(ia->why_none, sizeof ia->why_none, "fewer than %s training steps recorded",
                 GW_FIXED(GW_INPROC_MIN_STEPS, 0));
        return;
    }
    for (size_t l = 0; l < in->nloaders; l++) {
        const gw_inproc_proc *p = gw_inproc_proc_of(in, in->loaders[l].pid);
        if (p && p->role == GW_INPROC_WORKER)
            continue;
        snprintf(ia->why_none, sizeof ia->why_none,
                 "a DataLoader was iterated (pid %ld, loader %ld%s%s) but no step was "
                 "recorded: %s",
                 in->loaders[l].pid, in->loaders[l].id, *in->loaders[l].created_at ? ", " : "",
                 in->loaders[l].created_at,
                 p && p->exited ? "its records were lost"
                                : "the process was killed (a signal, os._exit) before its "
                                  "first records of steps (every 2 s)");
        return;
    }
    snprintf(ia->why_none, sizeof ia->why_none,
             "no DataLoader was iterated in the job's Python processes");
}

gw_inproc_analysis *gw_inproc_analyze(const gw_series *s)
{
    gw_inproc_analysis *ia = xcalloc(1, sizeof *ia);
    ia->train_loader = ia->val_loader = -1;
    ia->first_wait_s = NAN;
    bool run_dir;
    const char *state;
    ia->in = first_inproc(s, &run_dir, &state, &ia->input);
    if (!ia->in) {
        if (state && strncmp(state, "on", 2) != 0)
            snprintf(ia->why_none, sizeof ia->why_none, "Python instrumentation was %s", state);
        else if (state)
            snprintf(ia->why_none, sizeof ia->why_none,
                     "no Python process of the job loaded gpuwatch's sitecustomize: not a "
                     "Python job, python -I/-E/-S, or the job put its own sitecustomize "
                     "before gpuwatch's on PYTHONPATH without a user site (-s, a venv)");
        else if (run_dir)
            snprintf(ia->why_none, sizeof ia->why_none,
                     "no python/ in the run directory: not a Python job, python -I/-S, or "
                     "recorded by an older gpuwatch");
        else
            snprintf(ia->why_none, sizeof ia->why_none,
                     "the inputs are no run directory of `gpuwatch run`");
        return ia;
    }
    ia->main = pick_main(ia->in);
    for (size_t i = 0; i < ia->in->nprocs && !ia->worker; i++)
        if (ia->in->procs[i].role == GW_INPROC_WORKER && ia->in->procs[i].settings.present)
            ia->worker = &ia->in->procs[i];
    pick_loaders(ia);
    if (ia->train_loader >= 0)
        build_epochs(ia);
    if (!ia->has_steps)
        why_no_steps(ia);
    memory(ia);
    overhead(ia);
    gw_inproc_roles_build(ia);
    return ia;
}

void gw_inproc_analysis_free(gw_inproc_analysis *ia)
{
    if (!ia)
        return;
    gw_inproc_roles_free(ia);
    free(ia->epochs);
    free(ia);
}

bool gw_inproc_passes_are_epochs(const gw_inproc_analysis *ia)
{
    if (ia->train_loader < 0)
        return false;
    double batches = ia->in->loaders[ia->train_loader].batches;
    for (size_t k = 0; k < ia->nepochs; k++)
        if (batches > 0 && ia->epochs[k].train->steps > 1.5 * batches + 1)
            return false; /* an iterator that never ends (a repeating sampler) */
    return true;
}

bool gw_inproc_covers(const gw_inproc_analysis *ia, const gw_series_gpu *gpu)
{
    return ia && ia->in && gpu && gpu->input == ia->input;
}

size_t gw_inproc_epochs(const gw_inproc_analysis *ia, gw_epoch **out)
{
    *out = NULL;
    if (!ia->has_steps || ia->nepochs == 0 || !gw_inproc_passes_are_epochs(ia))
        return 0;
    gw_epoch *e = xcalloc(ia->nepochs, sizeof *e);
    for (size_t k = 0; k < ia->nepochs; k++) {
        const gw_inproc_pass *p = ia->epochs[k].train;
        int64_t start = (int64_t)llround(p->t_start * 1000.0);
        int64_t end = (int64_t)llround(p->t_end * 1000.0);
        int64_t next =
            k + 1 < ia->nepochs ? (int64_t)llround(ia->epochs[k + 1].train->t_start * 1000.0) : end;
        e[k] = (gw_epoch){.number = p->pass + 1,
                          .total = -1,
                          .start_ms = start,
                          .end_ms = next,
                          .train_end_ms = end,
                          .validation_s = NAN,
                          .steps = (long)p->steps,
                          .steps_per_s = ia->epochs[k].steps_per_s};
        /* the validation passes of this epoch: from the first after training to the last */
        for (size_t i = 0; ia->val_loader >= 0 && i < ia->in->npasses; i++) {
            const gw_inproc_pass *v = &ia->in->passes[i];
            int64_t vs = (int64_t)llround(v->t_start * 1000.0),
                    ve = (int64_t)llround(v->t_end * 1000.0);
            if (v->loader != (size_t)ia->val_loader || vs < start ||
                (k + 1 < ia->nepochs && vs >= next))
                continue;
            if (!e[k].val_start_ms)
                e[k].val_start_ms = vs;
            e[k].val_end_ms = ve;
            if (k + 1 == ia->nepochs && ve > e[k].end_ms)
                e[k].end_ms = ve;
        }
        if (e[k].val_start_ms)
            e[k].validation_s = ia->epochs[k].val_s;
    }
    *out = e;
    return ia->nepochs;
}

static void setting_num(gw_buf *b, const char *key, double x)
{
    if (isnan(x))
        return;
    gw_buf_printf(b, "%s%s=", b->len ? ", " : "", key);
    gw_fmt_buf_fixed(b, x, 0, 0, "?");
}

static void setting_bool(gw_buf *b, const char *key, int x)
{
    if (x >= 0)
        gw_buf_printf(b, "%s%s=%s", b->len ? ", " : "", key, x ? "True" : "False");
}

void gw_inproc_loader_settings(const gw_inproc_loader *l, gw_buf *out)
{
    gw_buf b = {0};
    setting_num(&b, "num_workers", l->num_workers);
    setting_num(&b, "batch_size", l->batch_size);
    setting_bool(&b, "pin_memory", l->pin_memory);
    setting_bool(&b, "persistent_workers", l->persistent_workers);
    setting_num(&b, "prefetch_factor", l->prefetch_factor);
    if (b.len)
        gw_buf_append(out, b.data, b.len);
    gw_buf_free(&b);
}

double gw_inproc_cores(const gw_inproc_analysis *ia)
{
    const gw_inproc_settings *s = ia->main ? &ia->main->settings : NULL;
    if (!s || !s->present)
        return NAN;
    double c = s->affinity_cores;
    if (s->cgroup_cpu_limit_cores > 0 && !(c <= s->cgroup_cpu_limit_cores))
        c = s->cgroup_cpu_limit_cores;
    return c;
}

size_t gw_inproc_timeline(const gw_inproc_analysis *ia, size_t max, gw_inproc_steps **out)
{
    *out = NULL;
    const gw_inproc *in = ia->in;
    if (!in || ia->train_loader < 0 || max == 0)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < in->nsteps; i++)
        n += in->steps[i].loader == (size_t)ia->train_loader;
    if (n == 0)
        return 0;
    size_t group = (n + max - 1) / max, k = 0, m = 0;
    gw_inproc_steps *v = xcalloc((n + group - 1) / group, sizeof *v);
    for (size_t i = 0; i < in->nsteps; i++) {
        const gw_inproc_steps *s = &in->steps[i];
        if (s->loader != (size_t)ia->train_loader)
            continue;
        gw_inproc_steps *b = &v[m];
        if (k == 0) {
            *b = *s;
        } else {
            b->t0 = fmin(b->t0, s->t0);
            b->t1 = fmax(b->t1, s->t1);
            b->steps += s->steps;
            b->wait_s += s->wait_s;
            b->between_s += s->between_s;
        }
        if (++k == group) {
            k = 0;
            m++;
        }
    }
    *out = v;
    return m + (k > 0);
}

size_t gw_inproc_ranks(const gw_inproc_analysis *ia, gw_inproc_rank **out)
{
    *out = NULL;
    const gw_inproc *in = ia->in;
    if (!in)
        return 0;
    gw_inproc_rank *v = xcalloc(in->nprocs + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < in->nprocs; i++) {
        const gw_inproc_proc *p = &in->procs[i];
        /* its loader with the most steps, as for the training process */
        double best = 0, wait = 0, between = 0;
        for (size_t l = 0; l < in->nloaders; l++) {
            size_t np;
            double st = in->loaders[l].pid == p->pid ? loader_steps(in, l, &np) : 0;
            if (st <= best)
                continue;
            best = st;
            wait = between = 0;
            for (size_t k = 0; k < in->npasses; k++)
                if (in->passes[k].loader == l) {
                    wait += in->passes[k].wait_s;
                    between += in->passes[k].between_s;
                }
        }
        if (best > 0)
            v[n++] = (gw_inproc_rank){p, best, share_pct(wait, between)};
    }
    if (n < 2) {
        free(v);
        return 0;
    }
    *out = v;
    return n;
}

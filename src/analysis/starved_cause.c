/* Why a starved GPU waits: the cause of gpu_starved, proved from the job's processes by role in
 * host.csv (docs/report.md, "Why the GPU waits"). */
#include "analysis/checks.h"
#include "stats/stats.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const suggest_input =
    "The input pipeline cannot keep up: raise DataLoader num_workers up to the free cores, make "
    "augmentation lighter or move it to the GPU (torchvision.transforms.v2 on CUDA tensors, "
    "NVIDIA DALI), call cv2.setNumThreads(0) in the workers, and set pin_memory=True and "
    "persistent_workers=True.";
static const char *const suggest_cpu =
    "The training process itself is CPU-bound (Python and kernel launches); more DataLoader "
    "workers will not help. Raise the batch size, capture the step with CUDA graphs or "
    "torch.compile, use AMP (bf16/fp16 autocast), fuse small operations, and move CPU-side "
    "loss/target work onto the GPU.";
static const char *const suggest_cpu_no_workers =
    "One busy process does all CPU work with no DataLoader workers: move preprocessing into a "
    "DataLoader with num_workers > 0 (or onto the GPU, e.g. DALI), and remove synchronising calls "
    "such as .item() or .cpu() from the training step.";
static const char *const suggest_io =
    "The job waits for storage: copy the data set to a local SSD (or RAM disk), cache decoded "
    "samples, pack many small files into few large ones (WebDataset, LMDB, TFRecord), and "
    "raise prefetch_factor.";
static const char *const suggest_host =
    "The host's CPUs are busy with processes outside this job: run it on a less loaded node, "
    "ask the scheduler for dedicated cores, or stop what else runs here (see `top`).";
static const char *const suggest_epoch =
    "The GPU waits at the start of each epoch while the DataLoader workers start again and fill "
    "their queues: set persistent_workers=True (and a prefetch_factor of 2-4) on the DataLoader.";
static const char *const suggest_no_cpu_side =
    "This recording has no CPU side of the job (host.csv), so the cause cannot be proven: wrap "
    "the training command with `gpuwatch run` to record which process the GPU waits for.";
static const char *const suggest_no_roles =
    "This host.csv has no process roles (recorded by an older gpuwatch or without a process "
    "list), so which process the GPU waits for cannot be proven: record the job again with "
    "`gpuwatch run`; meanwhile try more DataLoader workers, pin_memory=True and "
    "persistent_workers=True.";

/* Host rows of the steady state. */
typedef struct host_view {
    const gw_series_table *t;
    int64_t start_ms, end_ms;
} host_view;

static const double *column(const host_view *h, gw_field f)
{
    long c = gw_series_table_find(h->t, gw_fields[f].csv_header);
    return c >= 0 ? h->t->cols[c].v : NULL;
}

static bool in_view(const host_view *h, size_t r)
{
    return h->t->t_ms[r] >= h->start_ms && h->t->t_ms[r] < h->end_ms;
}

/* Mean of f over the steady rows with a value (each row counts the same); NAN when none. */
static double mean_of(const host_view *h, gw_field f)
{
    return gw_stats_mean_between(h->t->t_ms, column(h, f), h->t->n, h->start_ms, h->end_ms);
}

/* Share (%) of the steady rows with a value where f >= at_least; NAN when none. */
static double share_of(const host_view *h, gw_field f, double at_least)
{
    return gw_stats_share_at_least(h->t->t_ms, column(h, f), h->t->n, h->start_ms, h->end_ms,
                                   at_least);
}

/* Idle seconds of the GPU in the first moments of each epoch started inside the steady state
 * (window: epoch_start_window_s, at most half the epoch), and how many epochs had one. */
static void epoch_start_idle(const gw_analysis *a, const gw_gpu_analysis *g, double *idle_s,
                             double *all_idle_s, size_t *epochs, size_t *stalled)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    *idle_s = *all_idle_s = 0;
    *epochs = *stalled = 0;
    for (size_t r = st.begin; r < st.end; r++)
        *all_idle_s += u[r] < GW_TH(GW_TH_IDLE_UTIL_PCT) ? g->dt_s[r] : 0;
    for (size_t e = 0; e < a->nepochs; e++) {
        const gw_epoch *ep = &a->epochs[e];
        if (ep->start_ms < st.start_ms || ep->start_ms >= st.end_ms)
            continue;
        double win_s =
            fmin(GW_TH(GW_TH_EPOCH_START_WINDOW_S), (double)(ep->end_ms - ep->start_ms) / 2000.0);
        gw_span w = gw_check_span_of_time(g, ep->start_ms, ep->start_ms + (int64_t)(win_s * 1000));
        double idle = 0;
        for (size_t r = w.begin; r < w.end; r++)
            idle +=
                r >= st.begin && r < st.end && u[r] < GW_TH(GW_TH_IDLE_UTIL_PCT) ? g->dt_s[r] : 0;
        (*epochs)++;
        *stalled += idle >= GW_TH(GW_TH_EPOCH_START_STALL_S);
        *idle_s += idle;
    }
}

/* Recordings whose host.csv predates the roles: the job's total CPU and process count only. */
static const char *legacy_cause(const host_view *h, gw_verdict *v, const char **sugg, char *why,
                                size_t len)
{
    double job_cpu = mean_of(h, GW_F_JOB_CPU_PCT), host_cpu = mean_of(h, GW_F_HOST_CPU_UTIL_PCT);
    const double *pv = column(h, GW_F_JOB_PROCESSES);
    double *buf = xmalloc((h->t->n ? h->t->n : 1) * sizeof *buf);
    size_t np = 0;
    for (size_t r = 0; pv && r < h->t->n; r++)
        if (in_view(h, r) && !isnan(pv[r]))
            buf[np++] = pv[r];
    double procs = np ? round(gw_stats_quantile(buf, np, 0.5)) : NAN;
    free(buf);
    double workers = isnan(procs) ? NAN : procs - 1;
    double per_worker = workers >= 1 ? job_cpu / workers : NAN;
    gw_verdict_num(v, "job_processes_p50", procs);
    gw_verdict_num(v, "dataloader_workers", workers);
    if (per_worker > GW_TH(GW_TH_WORKER_BUSY_PCT)) {
        gw_verdict_check(v, "job_cpu_per_worker_pct", per_worker, ">", GW_TH_WORKER_BUSY_PCT);
        gw_verdict_num(v, "host_cpu_mean_pct", host_cpu);
        snprintf(why, len, "job CPU %s%% of a core per worker", GW_FIXED(per_worker, 0));
        *sugg = suggest_input;
        return "input_pipeline";
    }
    if (workers >= 1 && host_cpu > GW_TH(GW_TH_HOST_CPU_BUSY_PCT)) {
        gw_verdict_num(v, "job_cpu_per_worker_pct", per_worker);
        gw_verdict_check(v, "host_cpu_mean_pct", host_cpu, ">", GW_TH_HOST_CPU_BUSY_PCT);
        snprintf(why, len, "host CPUs %s%% busy", GW_FIXED(host_cpu, 0));
        *sugg = suggest_input;
        return "input_pipeline";
    }
    if (workers == 0 && job_cpu > GW_TH(GW_TH_MAIN_BUSY_PCT)) {
        gw_verdict_check(v, "job_cpu_mean_pct", job_cpu, ">", GW_TH_MAIN_BUSY_PCT);
        gw_verdict_num(v, "host_cpu_mean_pct", host_cpu);
        snprintf(why, len, "the one process at %s%% of a core", GW_FIXED(job_cpu, 0));
        *sugg = suggest_cpu_no_workers;
        return "cpu_bound";
    }
    gw_verdict_num(v, "job_cpu_mean_pct", job_cpu);
    gw_verdict_num(v, "host_cpu_mean_pct", host_cpu);
    gw_verdict_text(v, "missing", "process roles in host.csv");
    snprintf(why, len, "host.csv has no process roles to tell");
    *sugg = suggest_no_roles;
    return "unknown";
}

gw_roles_summary gw_roles_of(const gw_gpu_analysis *g)
{
    gw_roles_summary r = {false, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    if (!g->host || g->host->tab.n == 0)
        return r;
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    host_view h = {&g->host->tab, st.start_ms, st.end_ms};
    if (!column(&h, GW_F_TRAIN_CPU_PCT))
        return r;
    r.train_cpu_pct = mean_of(&h, GW_F_TRAIN_CPU_PCT);
    r.train_cpu_max_pct = mean_of(&h, GW_F_TRAIN_CPU_MAX_PCT);
    r.workers = round(mean_of(&h, GW_F_WORKERS_PROCESSES));
    r.workers_cpu_pct = mean_of(&h, GW_F_WORKERS_CPU_PCT);
    r.workers_cpu_max_pct = mean_of(&h, GW_F_WORKERS_CPU_MAX_PCT);
    r.iowait_pct = mean_of(&h, GW_F_HOST_IOWAIT_PCT);
    r.steal_pct = mean_of(&h, GW_F_HOST_STEAL_PCT);
    r.others_pct = mean_of(&h, GW_F_HOST_OTHERS_PCT);
    r.present = !isnan(r.train_cpu_pct) || !isnan(r.workers_cpu_pct);
    return r;
}

/* The job's roles over the steady state, as gw_starved_cause weighs them. */
typedef struct role_facts {
    double train_n, t_max, t_sat, t_sleep, t_d;
    double w_cpu, w_max, w_sat, w_d, workers;
    double iowait, steal, host_cpu, others;
} role_facts;

/* What a cause check found: the cause, its suggestion and a short "why" with the numbers. */
typedef struct cause_out {
    const char *cause, *sugg;
    char *why;
    size_t len;
} cause_out;

static bool found(cause_out *o, const char *cause, const char *sugg)
{
    o->cause = cause;
    o->sugg = sugg;
    return true;
}

static const char *plural(double n)
{
    return n == 1 ? "" : "s";
}

/* The roles' numbers over the steady state, each also put on v as evidence. */
static role_facts role_facts_of(const host_view *h, gw_verdict *v)
{
    role_facts f;
    f.train_n = mean_of(h, GW_F_TRAIN_PROCESSES);
    f.t_max = mean_of(h, GW_F_TRAIN_CPU_MAX_PCT);
    f.t_sat = share_of(h, GW_F_TRAIN_SATURATED, 1);
    f.t_sleep = mean_of(h, GW_F_TRAIN_SLEEPING_PCT);
    f.t_d = mean_of(h, GW_F_TRAIN_DISK_WAIT_PCT);
    double w_n = mean_of(h, GW_F_WORKERS_PROCESSES);
    f.w_cpu = mean_of(h, GW_F_WORKERS_CPU_PCT);
    f.w_max = mean_of(h, GW_F_WORKERS_CPU_MAX_PCT);
    f.w_sat = share_of(h, GW_F_WORKERS_SATURATED, 1);
    f.w_d = mean_of(h, GW_F_WORKERS_DISK_WAIT_PCT);
    f.iowait = mean_of(h, GW_F_HOST_IOWAIT_PCT);
    f.steal = mean_of(h, GW_F_HOST_STEAL_PCT);
    f.host_cpu = mean_of(h, GW_F_HOST_CPU_UTIL_PCT);
    f.others = mean_of(h, GW_F_HOST_OTHERS_PCT);
    f.workers = w_n > 0 ? round(w_n) : 0;
    gw_verdict_num(v, "train_processes", round(f.train_n));
    gw_verdict_num(v, "train_cpu_max_mean_pct", f.t_max);
    gw_verdict_num(v, "train_sleeping_pct", f.t_sleep);
    gw_verdict_num(v, "dataloader_workers", f.workers);
    gw_verdict_num(v, "workers_cpu_mean_pct", f.w_cpu);
    gw_verdict_num(v, "workers_cpu_max_mean_pct", f.w_max);
    gw_verdict_num(v, "host_cpu_mean_pct", f.host_cpu);
    gw_verdict_num(v, "cpu_others_mean_pct", f.others);
    gw_verdict_num(v, "iowait_mean_pct", f.iowait);
    gw_verdict_num(v, "steal_mean_pct", f.steal);
    gw_verdict_num(v, "saturated_core_pct", GW_TH(GW_TH_ROLE_SATURATED_PCT));
    return f;
}

static bool workers_busy(const role_facts *f)
{
    return f->w_sat > GW_TH(GW_TH_SATURATED_SHARE_PCT);
}

static bool train_busy(const role_facts *f)
{
    return f->t_sat > GW_TH(GW_TH_SATURATED_SHARE_PCT);
}

/* A DataLoader worker saturated while the GPU waits; where the training process is saturated
 * too, the workers more of the time. */
static bool cause_input_pipeline(const role_facts *f, gw_verdict *v, cause_out *o)
{
    if (!workers_busy(f) || (train_busy(f) && f->w_sat < f->t_sat))
        return false;
    gw_verdict_check(v, "workers_saturated_share_pct", f->w_sat, ">", GW_TH_SATURATED_SHARE_PCT);
    gw_verdict_num(v, "train_saturated_share_pct", f->t_sat);
    snprintf(o->why, o->len,
             "a DataLoader worker at >= %s%% of a core %s%% of the time (busiest %s%%, "
             "%s worker%s); the training process at %s%%, asleep %s%% of the time",
             GW_FIXED(GW_TH(GW_TH_ROLE_SATURATED_PCT), 0), GW_FIXED(f->w_sat, 0),
             GW_FIXED(f->w_max, 0), GW_FIXED(f->workers, 0), plural(f->workers),
             GW_FIXED(f->t_max, 0), GW_FIXED(f->t_sleep, 0));
    return found(o, "input_pipeline", suggest_input);
}

/* The training process (the GPU context's holder) saturated: the step itself. */
static bool cause_cpu_bound(const role_facts *f, gw_verdict *v, cause_out *o)
{
    if (!train_busy(f))
        return false;
    gw_verdict_check(v, "train_saturated_share_pct", f->t_sat, ">", GW_TH_SATURATED_SHARE_PCT);
    gw_verdict_num(v, "workers_saturated_share_pct", f->w_sat);
    snprintf(o->why, o->len,
             "the training process at >= %s%% of a core %s%% of the time (mean %s%%); "
             "its %s worker%s at %s%% at most",
             GW_FIXED(GW_TH(GW_TH_ROLE_SATURATED_PCT), 0), GW_FIXED(f->t_sat, 0),
             GW_FIXED(f->t_max, 0), GW_FIXED(f->workers, 0), plural(f->workers),
             GW_FIXED(f->w_max, 0));
    return found(o, "cpu_bound", f->workers >= 1 ? suggest_cpu : suggest_cpu_no_workers);
}

/* Job processes in disk wait (D), or the host in iowait. */
static bool cause_io_wait(const role_facts *f, gw_verdict *v, cause_out *o)
{
    double d = fmax(isnan(f->w_d) ? 0 : f->w_d, isnan(f->t_d) ? 0 : f->t_d);
    bool disk = d > GW_TH(GW_TH_DISK_WAIT_PCT), iowait = f->iowait > GW_TH(GW_TH_IOWAIT_PCT);
    if (!disk && !iowait)
        return false;
    if (disk)
        gw_verdict_check(v, "disk_wait_pct", d, ">", GW_TH_DISK_WAIT_PCT);
    else
        gw_verdict_num(v, "disk_wait_pct", d);
    if (iowait)
        gw_verdict_check(v, "iowait_pct", f->iowait, ">", GW_TH_IOWAIT_PCT);
    snprintf(o->why, o->len, "job processes in disk wait (D) %s%% of the time, host iowait %s%%",
             GW_FIXED(d, 0), GW_FIXED(f->iowait, 0));
    return found(o, "io_wait", suggest_io);
}

/* The host's CPUs busy outside the job, or taken by the hypervisor (steal). */
static bool cause_host_contention(const role_facts *f, gw_verdict *v, cause_out *o)
{
    bool steal = f->steal > GW_TH(GW_TH_STEAL_PCT);
    bool crowded =
        f->host_cpu > GW_TH(GW_TH_HOST_CPU_BUSY_PCT) && f->others > GW_TH(GW_TH_OTHERS_CPU_PCT);
    if (!steal && !crowded)
        return false;
    if (steal)
        gw_verdict_check(v, "steal_pct", f->steal, ">", GW_TH_STEAL_PCT);
    else {
        gw_verdict_check(v, "host_cpu_pct", f->host_cpu, ">", GW_TH_HOST_CPU_BUSY_PCT);
        gw_verdict_check(v, "cpu_others_pct", f->others, ">", GW_TH_OTHERS_CPU_PCT);
    }
    snprintf(o->why, o->len,
             "host CPUs %s%% busy, %s%% of them outside the job (steal %s%%); no job "
             "process saturated",
             GW_FIXED(f->host_cpu, 0), GW_FIXED(f->others, 0), GW_FIXED(f->steal, 0));
    return found(o, "host_contention", suggest_host);
}

/* The GPU idles in the first seconds of most epochs, and that is most of its idle time. */
static bool cause_epoch_start(const gw_analysis *a, const gw_gpu_analysis *g, gw_verdict *v,
                              cause_out *o)
{
    double e_idle, all_idle;
    size_t ne, stalled;
    epoch_start_idle(a, g, &e_idle, &all_idle, &ne, &stalled);
    double e_share = all_idle > 0 ? 100.0 * e_idle / all_idle : NAN;
    double stalled_pct = ne ? 100.0 * (double)stalled / (double)ne : NAN;
    if ((double)ne < GW_TH(GW_TH_EPOCH_START_MIN_EPOCHS) ||
        !(stalled_pct >= GW_TH(GW_TH_EPOCH_START_STALLED_PCT)) ||
        !(e_share > GW_TH(GW_TH_EPOCH_START_IDLE_SHARE_PCT)))
        return false;
    gw_verdict_num(v, "epochs", (double)ne);
    gw_verdict_num(v, "epochs_stalled", (double)stalled);
    gw_verdict_num(v, "epoch_start_idle_mean_s", e_idle / (double)ne);
    gw_verdict_check(v, "epoch_start_idle_share_pct", e_share, ">",
                     GW_TH_EPOCH_START_IDLE_SHARE_PCT);
    snprintf(o->why, o->len, "idle %s s at the start of %zu of %zu epochs, %s%% of all idle time",
             GW_FIXED(e_idle / (double)ne, 1), stalled, ne, GW_FIXED(e_share, 0));
    return found(o, "epoch_start", suggest_epoch);
}

/* No signature passed its threshold: the role nearer to a saturated core, said as weak. */
static void cause_weak(const role_facts *f, gw_verdict *v, cause_out *o)
{
    gw_verdict_text(v, "strength", "weak");
    gw_verdict_text(v, "missing", "no process saturated, no disk wait, no contention");
    bool input = f->workers >= 1 && f->w_max > f->t_max;
    snprintf(o->why, o->len,
             "weak: no process saturated; busiest %s at %s%% of a core (training %s%%, "
             "workers %s%%)",
             input ? "worker" : "training process", GW_FIXED(input ? f->w_max : f->t_max, 0),
             GW_FIXED(f->t_max, 0), GW_FIXED(f->w_max, 0));
    if (input)
        found(o, "input_pipeline", suggest_input);
    else
        found(o, "cpu_bound", f->workers >= 1 ? suggest_cpu : suggest_cpu_no_workers);
}

/* No CPU side at all: nothing to prove a cause with. */
static void cause_unknown(gw_verdict *v, cause_out *o)
{
    gw_verdict_text(v, "missing", "host.csv (the job's CPU side)");
    snprintf(o->why, o->len, "no CPU side recorded");
    found(o, "unknown", suggest_no_cpu_side);
}

const char *gw_starved_cause(const gw_analysis *a, const gw_gpu_analysis *g, gw_verdict *v,
                             const char **sugg, char *why, size_t len)
{
    cause_out o = {"unknown", suggest_no_cpu_side, why, len};
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    if (!g->host || g->host->tab.n == 0) {
        cause_unknown(v, &o);
        *sugg = o.sugg;
        return o.cause;
    }
    host_view h = {&g->host->tab, st.start_ms, st.end_ms};
    double train_n = mean_of(&h, GW_F_TRAIN_PROCESSES);
    if (!(train_n > 0) || isnan(mean_of(&h, GW_F_TRAIN_CPU_MAX_PCT)))
        return legacy_cause(&h, v, sugg, why, len);
    role_facts f = role_facts_of(&h, v);
    bool proven = cause_input_pipeline(&f, v, &o) || cause_cpu_bound(&f, v, &o);
    if (!proven) {
        gw_verdict_num(v, "workers_saturated_share_pct", f.w_sat);
        gw_verdict_num(v, "train_saturated_share_pct", f.t_sat);
        proven = cause_io_wait(&f, v, &o) || cause_host_contention(&f, v, &o) ||
                 cause_epoch_start(a, g, v, &o);
    }
    if (!proven)
        cause_weak(&f, v, &o);
    *sugg = o.sugg;
    return o.cause;
}

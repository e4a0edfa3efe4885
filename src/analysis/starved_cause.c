/* Why a starved GPU waits: the cause of gpu_starved, proved from the job's processes by role in
 * host.csv (docs/report.md, "Why the GPU waits"). */
#include "analysis/checks.h"

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

/* Mean of f over the steady rows with a value; NAN when none. */
static double mean_of(const host_view *h, gw_field f)
{
    const double *v = column(h, f);
    double sum = 0;
    size_t n = 0;
    for (size_t r = 0; v && r < h->t->n; r++)
        if (in_view(h, r) && !isnan(v[r])) {
            sum += v[r];
            n++;
        }
    return n ? sum / (double)n : NAN;
}

/* Share (%) of the steady rows with a value where f >= at_least; NAN when none. */
static double share_of(const host_view *h, gw_field f, double at_least)
{
    const double *v = column(h, f);
    size_t n = 0, hit = 0;
    for (size_t r = 0; v && r < h->t->n; r++)
        if (in_view(h, r) && !isnan(v[r])) {
            n++;
            hit += v[r] >= at_least;
        }
    return n ? 100.0 * (double)hit / (double)n : NAN;
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
        *stalled += idle >= GW_TH(GW_TH_DIP_MIN_S) / 2;
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
        snprintf(why, len, "job CPU %.0f%% of a core per worker", per_worker);
        *sugg = suggest_input;
        return "input_pipeline";
    }
    if (workers >= 1 && host_cpu > GW_TH(GW_TH_HOST_CPU_BUSY_PCT)) {
        gw_verdict_num(v, "job_cpu_per_worker_pct", per_worker);
        gw_verdict_check(v, "host_cpu_mean_pct", host_cpu, ">", GW_TH_HOST_CPU_BUSY_PCT);
        snprintf(why, len, "host CPUs %.0f%% busy", host_cpu);
        *sugg = suggest_input;
        return "input_pipeline";
    }
    if (workers == 0 && job_cpu > GW_TH(GW_TH_MAIN_BUSY_PCT)) {
        gw_verdict_check(v, "job_cpu_mean_pct", job_cpu, ">", GW_TH_MAIN_BUSY_PCT);
        gw_verdict_num(v, "host_cpu_mean_pct", host_cpu);
        snprintf(why, len, "the one process at %.0f%% of a core", job_cpu);
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

const char *gw_starved_cause(const gw_analysis *a, const gw_gpu_analysis *g, gw_verdict *v,
                             const char **sugg, char *why, size_t len)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    if (!g->host || g->host->tab.n == 0) {
        gw_verdict_text(v, "missing", "host.csv (the job's CPU side)");
        snprintf(why, len, "no CPU side recorded");
        *sugg = suggest_no_cpu_side;
        return "unknown";
    }
    host_view h = {&g->host->tab, st.start_ms, st.end_ms};
    double train_n = mean_of(&h, GW_F_TRAIN_PROCESSES);
    if (!(train_n > 0) || isnan(mean_of(&h, GW_F_TRAIN_CPU_MAX_PCT)))
        return legacy_cause(&h, v, sugg, why, len);

    const double sat = GW_ROLE_SATURATED_PCT;
    double t_max = mean_of(&h, GW_F_TRAIN_CPU_MAX_PCT),
           t_sat = share_of(&h, GW_F_TRAIN_SATURATED, 1);
    double t_sleep = mean_of(&h, GW_F_TRAIN_SLEEPING_PCT);
    double w_n = mean_of(&h, GW_F_WORKERS_PROCESSES), w_cpu = mean_of(&h, GW_F_WORKERS_CPU_PCT);
    double w_max = mean_of(&h, GW_F_WORKERS_CPU_MAX_PCT);
    double w_sat = share_of(&h, GW_F_WORKERS_SATURATED, 1);
    double w_d = mean_of(&h, GW_F_WORKERS_DISK_WAIT_PCT),
           t_d = mean_of(&h, GW_F_TRAIN_DISK_WAIT_PCT);
    double iowait = mean_of(&h, GW_F_HOST_IOWAIT_PCT), steal = mean_of(&h, GW_F_HOST_STEAL_PCT);
    double host_cpu = mean_of(&h, GW_F_HOST_CPU_UTIL_PCT),
           others = mean_of(&h, GW_F_HOST_OTHERS_PCT);
    double workers = w_n > 0 ? round(w_n) : 0;
    gw_verdict_num(v, "train_processes", round(train_n));
    gw_verdict_num(v, "train_cpu_max_mean_pct", t_max);
    gw_verdict_num(v, "train_sleeping_pct", t_sleep);
    gw_verdict_num(v, "dataloader_workers", workers);
    gw_verdict_num(v, "workers_cpu_mean_pct", w_cpu);
    gw_verdict_num(v, "workers_cpu_max_mean_pct", w_max);
    gw_verdict_num(v, "host_cpu_mean_pct", host_cpu);
    gw_verdict_num(v, "cpu_others_mean_pct", others);
    gw_verdict_num(v, "iowait_mean_pct", iowait);
    gw_verdict_num(v, "steal_mean_pct", steal);
    gw_verdict_num(v, "saturated_core_pct", sat);

    /* A saturated worker while the GPU waits: the input pipeline; the training process
     * saturated: the step itself. Where both, the role saturated more of the time. */
    bool w_busy = w_sat > GW_TH(GW_TH_SATURATED_SHARE_PCT);
    bool t_busy = t_sat > GW_TH(GW_TH_SATURATED_SHARE_PCT);
    if (w_busy && (!t_busy || w_sat >= t_sat)) {
        gw_verdict_check(v, "workers_saturated_share_pct", w_sat, ">", GW_TH_SATURATED_SHARE_PCT);
        gw_verdict_num(v, "train_saturated_share_pct", t_sat);
        snprintf(why, len,
                 "a DataLoader worker at >= %.0f%% of a core %.0f%% of the time (busiest %.0f%%, "
                 "%.0f worker%s); the training process at %.0f%%, asleep %.0f%% of the time",
                 sat, w_sat, w_max, workers, workers == 1 ? "" : "s", t_max, t_sleep);
        *sugg = suggest_input;
        return "input_pipeline";
    }
    if (t_busy) {
        gw_verdict_check(v, "train_saturated_share_pct", t_sat, ">", GW_TH_SATURATED_SHARE_PCT);
        gw_verdict_num(v, "workers_saturated_share_pct", w_sat);
        snprintf(why, len,
                 "the training process at >= %.0f%% of a core %.0f%% of the time (mean %.0f%%); "
                 "its %.0f worker%s at %.0f%% at most",
                 sat, t_sat, t_max, workers, workers == 1 ? "" : "s", w_max);
        *sugg = workers >= 1 ? suggest_cpu : suggest_cpu_no_workers;
        return "cpu_bound";
    }
    gw_verdict_num(v, "workers_saturated_share_pct", w_sat);
    gw_verdict_num(v, "train_saturated_share_pct", t_sat);
    double d = fmax(isnan(w_d) ? 0 : w_d, isnan(t_d) ? 0 : t_d);
    if (d > GW_TH(GW_TH_DISK_WAIT_PCT) || iowait > GW_TH(GW_TH_IOWAIT_PCT)) {
        if (d > GW_TH(GW_TH_DISK_WAIT_PCT))
            gw_verdict_check(v, "disk_wait_pct", d, ">", GW_TH_DISK_WAIT_PCT);
        else
            gw_verdict_num(v, "disk_wait_pct", d);
        if (iowait > GW_TH(GW_TH_IOWAIT_PCT))
            gw_verdict_check(v, "iowait_pct", iowait, ">", GW_TH_IOWAIT_PCT);
        snprintf(why, len, "job processes in disk wait (D) %.0f%% of the time, host iowait %.0f%%",
                 d, iowait);
        *sugg = suggest_io;
        return "io_wait";
    }
    if ((host_cpu > GW_TH(GW_TH_HOST_CPU_BUSY_PCT) && others > GW_TH(GW_TH_OTHERS_CPU_PCT)) ||
        steal > GW_TH(GW_TH_STEAL_PCT)) {
        if (steal > GW_TH(GW_TH_STEAL_PCT))
            gw_verdict_check(v, "steal_pct", steal, ">", GW_TH_STEAL_PCT);
        else {
            gw_verdict_check(v, "host_cpu_pct", host_cpu, ">", GW_TH_HOST_CPU_BUSY_PCT);
            gw_verdict_check(v, "cpu_others_pct", others, ">", GW_TH_OTHERS_CPU_PCT);
        }
        snprintf(why, len,
                 "host CPUs %.0f%% busy, %.0f%% of them outside the job (steal %.0f%%); no job "
                 "process saturated",
                 host_cpu, others, steal);
        *sugg = suggest_host;
        return "host_contention";
    }
    double e_idle, all_idle;
    size_t ne, stalled;
    epoch_start_idle(a, g, &e_idle, &all_idle, &ne, &stalled);
    double e_share = all_idle > 0 ? 100.0 * e_idle / all_idle : NAN;
    if (ne >= 2 && 3 * stalled >= 2 * ne && e_share > GW_TH(GW_TH_EPOCH_START_IDLE_SHARE_PCT)) {
        gw_verdict_num(v, "epochs", (double)ne);
        gw_verdict_num(v, "epochs_stalled", (double)stalled);
        gw_verdict_num(v, "epoch_start_idle_mean_s", e_idle / (double)ne);
        gw_verdict_check(v, "epoch_start_idle_share_pct", e_share, ">",
                         GW_TH_EPOCH_START_IDLE_SHARE_PCT);
        snprintf(why, len, "idle %.1f s at the start of %zu of %zu epochs, %.0f%% of all idle time",
                 e_idle / (double)ne, stalled, ne, e_share);
        *sugg = suggest_epoch;
        return "epoch_start";
    }
    /* No signature passed its threshold: the role nearer to a saturated core, said as weak. */
    gw_verdict_text(v, "strength", "weak");
    gw_verdict_text(v, "missing", "no process saturated, no disk wait, no contention");
    bool input = workers >= 1 && w_max > t_max;
    snprintf(why, len,
             "weak: no process saturated; busiest %s at %.0f%% of a core (training %.0f%%, "
             "workers %.0f%%)",
             input ? "worker" : "training process", input ? w_max : t_max, t_max, w_max);
    *sugg = input ? suggest_input : (workers >= 1 ? suggest_cpu : suggest_cpu_no_workers);
    return input ? "input_pipeline" : "cpu_bound";
}

/* The job_stalled detector (see stall.h). */
#include "stall/stall.h"

#include "host/proc_wait.h"
#include "host/procfs.h"
#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/gw_termline.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SUMMARY_PROCESSES = 8 }; /* processes named on the stderr line */

struct gw_stall {
    gw_stall_config cfg;
    gw_events *bus;
    pthread_mutex_t lock;
    pid_t root, self;
    bool have_job;
    unsigned ndev;
    unsigned *dev_index; /* [ndev] NVML index of each sample slot */
    bool *job_gpu;       /* [ndev] a process of the job was listed on this GPU */
    bool any_job_gpu;
    unsigned *named; /* [nnamed] the job's GPUs as its variables name them (NVML indices) */
    size_t nnamed;   /* 0: the GPUs where NVML lists a process of the job */
    /* Monotonic times (ns) of the job's start and of the last activity of each kind; 0 = never. */
    int64_t start_ns, last_output_ns, last_gpu_ns, last_cpu_ns;
    int64_t last_output_wall_ms; /* 0 = never printed */
    int64_t prev_tick_ns;        /* the previous sample, 0 before the first */
    int64_t window_start_ns;     /* the CPU window being filled, 0 = none yet */
    double window_cpu_s;         /* CPU seconds of the job in that window */
    double cpu_pct;              /* the last whole window's mean, NAN before one */
    double gpu_util_pct;         /* highest GPU-Util of the job's GPUs at the last tick, NAN */
    bool firing;
    int64_t fire_ns, quiet_since_ns, quiet_since_wall_ms; /* of the open alert */
    unsigned fired, resolved;
};

gw_stall_config gw_stall_config_default(int64_t timeout_ms)
{
    return (gw_stall_config){.timeout_ms = timeout_ms,
                             .gpu_idle_pct = GW_STALL_GPU_IDLE_PCT,
                             .cpu_idle_pct = GW_STALL_CPU_IDLE_PCT,
                             .cpu_window_ms = GW_STALL_CPU_WINDOW_MS,
                             .print = true};
}

gw_stall *gw_stall_new(const gw_stall_config *cfg, gw_events *bus)
{
    gw_stall *st = xcalloc(1, sizeof *st);
    st->cfg = *cfg;
    st->bus = bus;
    st->cpu_pct = NAN;
    st->gpu_util_pct = NAN;
    pthread_mutex_init(&st->lock, NULL);
    return st;
}

void gw_stall_free(gw_stall *st)
{
    if (!st)
        return;
    pthread_mutex_destroy(&st->lock);
    free(st->dev_index);
    free(st->job_gpu);
    free(st->named);
    free(st);
}

static void on_start(void *ctx, const gw_device_info *devices, unsigned count)
{
    gw_stall *st = ctx;
    pthread_mutex_lock(&st->lock);
    st->ndev = count;
    st->dev_index = xcalloc(count + 1, sizeof *st->dev_index);
    st->job_gpu = xcalloc(count + 1, sizeof *st->job_gpu);
    for (unsigned i = 0; i < count; i++)
        st->dev_index[i] = devices[i].index;
    pthread_mutex_unlock(&st->lock);
}

void gw_stall_set_job(gw_stall *st, pid_t root, pid_t self, int64_t mono_ns)
{
    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    st->root = root;
    st->self = self;
    st->start_ns = mono_ns;
    st->have_job = true;
    pthread_mutex_unlock(&st->lock);
}

void gw_stall_set_gpus(gw_stall *st, const unsigned *gpus, size_t n)
{
    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    free(st->named);
    st->named = xmemdup(gpus, n * sizeof *gpus);
    st->nnamed = n;
    pthread_mutex_unlock(&st->lock);
}

void gw_stall_counts(gw_stall *st, unsigned *fired, unsigned *resolved)
{
    pthread_mutex_lock(&st->lock);
    *fired = st->fired;
    *resolved = st->resolved;
    pthread_mutex_unlock(&st->lock);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Wall time (ms) of monotonic time t_ns, given a pair (now_ns, now_wall_ms) read together. */
static int64_t wall_of(int64_t t_ns, int64_t now_ns, int64_t now_wall_ms)
{
    return now_wall_ms - (now_ns - t_ns) / INT64_C(1000000);
}

/* One line on stderr, written at once so that it does not mix with the job's output. */
static void print_line(const gw_stall *st, const char *text)
{
    if (!st->cfg.print)
        return;
    gw_termline_fresh(stderr);
    /* In pty mode gpuwatch's terminal is raw: a bare '\n' would not return the carriage. */
    char *line = xasprintf("gpuwatch: %s%s", text, isatty(STDERR_FILENO) ? "\r\n" : "\n");
    ssize_t ignored = write(STDERR_FILENO, line, strlen(line));
    (void)ignored;
    free(line);
}

/* The common members of both events. */
static gw_event alert_event(const gw_stall *st, gw_event_kind kind, int64_t wall_ms, double value_s,
                            int64_t since_wall_ms)
{
    gw_event ev = gw_event_make(kind, wall_ms);
    ev.alert.has = GW_EVA_SINCE;
    ev.alert.rule = "job_stalled";
    ev.alert.severity = "warning";
    ev.alert.value = round(value_s * 1000.0) / 1000.0;
    ev.alert.threshold = (double)st->cfg.timeout_ms / 1000.0;
    ev.alert.since_ms = since_wall_ms;
    return ev;
}

/* Adds "processes" (what each process of the job's tree is doing) and names the first few on
 * the summary line. */
static void add_processes(const gw_stall *st, gw_event_alert *ev, gw_buf *line)
{
    gw_procfs *p = gw_procfs_new(st->cfg.proc_root);
    gw_procfs_set_job(p, st->root, st->self);
    gw_host_sample h;
    gw_procfs_sample(p, gw_mono_ns(), &h);
    pid_t pids[GW_STALL_MAX_PROCESSES];
    size_t n = gw_procfs_job_pids(p, pids, GW_STALL_MAX_PROCESSES);
    gw_procfs_free(p);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        gw_proc_wait w;
        if (!gw_proc_wait_read(st->cfg.proc_root, pids[i], &w))
            continue;
        char sc[32], state[2] = {w.state ? w.state : '?', '\0'};
        gw_proc_wait_syscall_text(&w, sc, sizeof sc);
        if (ev->nprocesses < GW_EVENT_MAX_PROCESSES) {
            gw_event_process *o = &ev->processes[ev->nprocesses++];
            o->pid = w.pid;
            o->ppid = w.ppid;
            snprintf(o->name, sizeof o->name, "%s", w.name);
            snprintf(o->state, sizeof o->state, "%s", state);
            snprintf(o->wchan, sizeof o->wchan, "%s", w.wchan);
            snprintf(o->syscall, sizeof o->syscall, "%s", sc);
        }
        if (shown++ < SUMMARY_PROCESSES)
            gw_buf_printf(line, "%s%d %s %s%s%s%s%s", shown > 1 ? ", " : "", (int)w.pid, w.name,
                          state, *sc ? " " : "", sc, *w.wchan ? " in " : "", w.wchan);
    }
    if (shown > SUMMARY_PROCESSES)
        gw_buf_printf(line, ", and %zu more", shown - SUMMARY_PROCESSES);
    ev->processes_total = isnan(h.job_processes) ? (double)n : h.job_processes;
}

/* The job's CPU (% of a core) over the last whole window, else over the window being filled. */
static double cpu_pct_now(const gw_stall *st, int64_t now_ns)
{
    double len_s = (double)(now_ns - st->window_start_ns) / 1e9;
    if (!isnan(st->cpu_pct) || st->window_start_ns == 0 || len_s <= 0)
        return st->cpu_pct;
    return 100.0 * st->window_cpu_s / len_s;
}

static void fire(gw_stall *st, int64_t since_ns, int64_t now_ns, int64_t wall_ms)
{
    st->firing = true;
    st->fired++;
    st->fire_ns = now_ns;
    st->quiet_since_ns = since_ns;
    st->quiet_since_wall_ms = wall_of(since_ns, now_ns, wall_ms);
    double quiet_s = (double)(now_ns - since_ns) / 1e9;
    gw_event ev = alert_event(st, GW_EV_ALERT, wall_ms, quiet_s, st->quiet_since_wall_ms);
    ev.alert.has |= GW_EVA_STALL | GW_EVA_MESSAGE;
    for (unsigned i = 0; i < st->ndev && ev.alert.ngpus < GW_EVENT_MAX_GPUS; i++)
        if (!st->any_job_gpu || st->job_gpu[i])
            ev.alert.gpus[ev.alert.ngpus++] = st->dev_index[i];
    ev.alert.gpu_util_pct = st->gpu_util_pct;
    ev.alert.job_cpu_pct = cpu_pct_now(st, now_ns);
    ev.alert.last_output_ms = st->last_output_wall_ms;
    gw_buf line = {0};
    gw_buf_printf(&line,
                  "job_stalled (warning): no output, GPU%s idle and the job's CPU below %s%% of a "
                  "core for %s s; ",
                  ev.alert.ngpus == 1 ? "" : "s", GW_SIG(st->cfg.cpu_idle_pct, 6),
                  GW_FIXED(quiet_s, 0));
    gw_buf procs = {0};
    add_processes(st, &ev.alert, &procs);
    gw_buf_printf(&line, "processes: %s", procs.len ? procs.data : "none found");
    char *message = xasprintf("no output, GPU idle and job CPU below %s%% of a core for %s s",
                              GW_SIG(st->cfg.cpu_idle_pct, 6), GW_FIXED(quiet_s, 0));
    ev.alert.message = message;
    gw_events_emit(st->bus, &ev);
    free(message);
    print_line(st, line.data);
    gw_buf_free(&line);
    gw_buf_free(&procs);
}

static void resolve(gw_stall *st, const char *reason, int64_t at_ns, int64_t wall_ms)
{
    st->firing = false;
    st->resolved++;
    double quiet_s = (double)(at_ns - st->quiet_since_ns) / 1e9;
    gw_event ev = alert_event(st, GW_EV_ALERT_RESOLVED, wall_ms, quiet_s, st->quiet_since_wall_ms);
    ev.alert.has |= GW_EVA_DURATION | GW_EVA_REASON;
    ev.alert.duration_s = round((double)(at_ns - st->fire_ns) / 1e8) / 10.0;
    ev.alert.reason = reason;
    gw_events_emit(st->bus, &ev);
    const char *what = strcmp(reason, "output") == 0 ? "the job printed again"
                       : strcmp(reason, "gpu") == 0  ? "a GPU of the job works again"
                                                     : "the job uses CPU again";
    char *line = xasprintf("job_stalled resolved: %s after %s s without activity", what,
                           GW_FIXED(quiet_s, 0));
    print_line(st, line);
    free(line);
}

static int slot_of(const gw_stall *st, unsigned nvml_index)
{
    for (unsigned i = 0; i < st->ndev; i++)
        if (st->dev_index[i] == nvml_index)
            return (int)i;
    return -1;
}

/* GPU activity: a GPU of the job at or above gpu_idle_pct. */
static void note_gpus(gw_stall *st, const gw_sample *smp)
{
    for (unsigned i = 0; i < st->ndev; i++) /* named by the job's variables */
        for (size_t k = 0; k < st->nnamed; k++)
            if (st->named[k] == st->dev_index[i])
                st->job_gpu[i] = st->any_job_gpu = true;
    for (unsigned k = 0; !st->nnamed && smp->procs_fresh && k < smp->proc_count; k++) {
        int slot = smp->procs[k].in_job ? slot_of(st, smp->procs[k].gpu) : -1;
        if (slot >= 0)
            st->job_gpu[slot] = st->any_job_gpu = true;
    }
    double top = NAN;
    for (unsigned i = 0; i < st->ndev && i < smp->gpu_count; i++) {
        const gw_gpu_sample *g = &smp->gpus[i];
        if ((st->any_job_gpu && !st->job_gpu[i]) || !gw_has(g, GW_F_UTIL_GPU_PCT))
            continue;
        double u = g->v[GW_F_UTIL_GPU_PCT];
        if (isnan(top) || u > top)
            top = u;
        if (u >= st->cfg.gpu_idle_pct)
            st->last_gpu_ns = smp->mono_ns;
    }
    st->gpu_util_pct = top;
}

/* CPU activity: the job's CPU time per window. A window counts as busy as soon as it holds
 * cpu_idle_pct of a whole window, so that a busy job is seen within one window. */
static void note_cpu(gw_stall *st, const gw_sample *smp)
{
    double cpu = smp->host.job_cpu_pct;
    int64_t now = smp->mono_ns;
    if (st->prev_tick_ns == 0 || isnan(cpu) || now <= st->prev_tick_ns)
        return;
    if (st->window_start_ns == 0)
        st->window_start_ns = st->prev_tick_ns;
    st->window_cpu_s += cpu / 100.0 * (double)(now - st->prev_tick_ns) / 1e9;
    double len_s = (double)(now - st->window_start_ns) / 1e9;
    double window_s = (double)st->cfg.cpu_window_ms / 1000.0;
    bool busy = st->window_cpu_s >= st->cfg.cpu_idle_pct / 100.0 * fmax(len_s, window_s);
    if (busy || len_s >= window_s) {
        st->cpu_pct = 100.0 * st->window_cpu_s / len_s;
        if (busy)
            st->last_cpu_ns = now;
        st->window_start_ns = now;
        st->window_cpu_s = 0;
    }
}

static void decide(gw_stall *st, int64_t now_ns, int64_t wall_ms)
{
    int64_t since =
        max64(max64(st->start_ns, st->last_output_ns), max64(st->last_gpu_ns, st->last_cpu_ns));
    if (st->firing) {
        if (since > st->fire_ns)
            resolve(st,
                    since == st->last_output_ns ? "output"
                    : since == st->last_gpu_ns  ? "gpu"
                                                : "cpu",
                    since, wall_of(since, now_ns, wall_ms));
    } else if (now_ns - since >= st->cfg.timeout_ms * INT64_C(1000000)) {
        fire(st, since, now_ns, wall_ms);
    }
}

static void on_sample(void *ctx, const gw_sample *smp)
{
    gw_stall *st = ctx;
    pthread_mutex_lock(&st->lock);
    /* No job yet, or none left (the tree is gone: an open alert stays open). */
    if (st->have_job && st->ndev == smp->gpu_count && !(smp->host.job_processes < 1)) {
        note_gpus(st, smp);
        note_cpu(st, smp);
        decide(st, smp->mono_ns, smp->wall_ms);
    }
    st->prev_tick_ns = smp->mono_ns;
    pthread_mutex_unlock(&st->lock);
}

void gw_stall_note_output(gw_stall *st, int64_t mono_ns, int64_t wall_ms)
{
    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    st->last_output_ns = mono_ns;
    st->last_output_wall_ms = wall_ms;
    if (st->firing)
        resolve(st, "output", mono_ns, wall_ms);
    pthread_mutex_unlock(&st->lock);
}

gw_sink gw_stall_as_sink(gw_stall *st)
{
    return (gw_sink){.ctx = st, .on_start = on_start, .on_sample = on_sample};
}

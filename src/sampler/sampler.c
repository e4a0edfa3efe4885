#include "sampler/sampler.h"

#include "host/procfs.h"
#include "sampler/gpu_dev.h"
#include "sampler/nvml_events.h"
#include "sampler/probe.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { GW_MAX_SINKS = 16, GW_MAX_EXCLUDED_PIDS = 16 };
#define NS_PER_MS INT64_C(1000000)

struct gw_sampler {
    gw_nvml *nvml;
    bool owns_nvml;     /* opened by gw_sampler_load: closed with the sampler */
    gw_system_info sys; /* read once at open */
    gw_sampler_config cfg;
    gw_events *bus;
    gw_gpu_dev *devs;
    unsigned ndev;
    gw_call_errors call_errors; /* failed NVML calls by name, all devices */
    gw_device_info *infos;
    gw_sink sinks[GW_MAX_SINKS];
    int nsinks;
    gw_procfs *procfs;  /* tick thread only */
    unsigned *gpu_pids; /* tick thread only: pids of the process list, for procfs's roles */
    size_t gpu_pids_cap;

    /* job changes, applied by the tick thread */
    pthread_mutex_t job_lock;
    bool job_dirty;
    pid_t job_root, job_self;
    pid_t excluded[GW_MAX_EXCLUDED_PIDS];
    bool excluded_dirty;

    /* values published by the slow thread */
    pthread_mutex_t slow_lock;
    gw_gpu_sample *slow_vals; /* [ndev], slow fields only */
    gw_gpu_process *slow_procs;
    size_t slow_nprocs, slow_procs_cap;
    gw_mig_device *slow_migs;
    size_t slow_nmigs, slow_migs_cap;
    uint64_t slow_procs_seq;
    int64_t slow_procs_wall_ms;

    /* the tick thread's sample */
    gw_sample sample;
    size_t procs_cap, migs_cap;
    uint64_t seen_procs_seq;

    gwn_gpm_metrics_get *mg; /* GPM scratch (tick thread) */

    /* slow thread scratch */
    gw_gpu_sample *scratch_vals;
    gw_gpu_process *scratch_procs;
    size_t scratch_nprocs, scratch_cap;
    gw_mig_device *scratch_migs;
    size_t scratch_nmigs, scratch_migs_cap;

    /* threads */
    pthread_mutex_t run_lock;
    pthread_cond_t run_cond;
    bool stop;
    bool running;
    pthread_t tick_thr, slow_thr;
    int64_t start_ns;
    int64_t rare_ns;        /* how long the last pass took to read the rare values (slow thread) */
    int64_t last_rare_ns;   /* gw_sampler_read_now: when SLOW_RARE values were last read */
    gw_nvml_events *events; /* the NVML event watcher, when cfg.nvml_events */
    atomic_uint event_gpus; /* GPUs it listens on, for other threads (gw_sampler_event_gpus) */

    /* stats */
    atomic_uint_fast64_t ticks, skipped;
    atomic_int_fast64_t last_read_ns, max_read_ns;
};

gw_rc gw_sampler_open(gw_nvml *nvml, const gw_sampler_config *cfg, gw_events *bus, gw_sampler **out,
                      gw_error *err)
{
    *out = NULL;
    gw_sampler *s = xcalloc(1, sizeof *s);
    s->nvml = nvml;
    s->cfg = *cfg;
    s->bus = bus;
    gw_system_read(nvml, &s->sys);
    gw_rc rc = gw_gpu_devs_open_some(nvml, cfg->info_skip, &s->devs, &s->ndev, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->infos = xcalloc(s->ndev, sizeof *s->infos);
    pthread_mutex_init(&s->call_errors.lock, NULL);
    for (unsigned i = 0; i < s->ndev; i++) {
        s->infos[i] = s->devs[i].info;
        s->devs[i].call_errors = &s->call_errors;
    }
    s->slow_vals = xcalloc(s->ndev, sizeof *s->slow_vals);
    s->scratch_vals = xcalloc(s->ndev, sizeof *s->scratch_vals);
    s->sample.gpus = xcalloc(s->ndev, sizeof *s->sample.gpus);
    s->sample.gpu_count = s->ndev;
    s->mg = xcalloc(1, sizeof *s->mg);
    if (cfg->host)
        s->procfs = gw_procfs_new(cfg->proc_root);
    pthread_mutex_init(&s->job_lock, NULL);
    pthread_mutex_init(&s->slow_lock, NULL);
    pthread_mutex_init(&s->run_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->run_cond, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->ticks, 0);
    atomic_init(&s->skipped, 0);
    atomic_init(&s->last_read_ns, 0);
    atomic_init(&s->max_read_ns, 0);
    atomic_init(&s->event_gpus, 0);
    *out = s;
    return GW_OK;
}

const gw_device_info *gw_sampler_devices(const gw_sampler *s, unsigned *count)
{
    *count = s->ndev;
    return s->infos;
}

gw_mig_device *gw_sampler_read_migs(gw_sampler *s, unsigned *count)
{
    gw_mig_device *migs = NULL;
    size_t used = 0, cap = 0;
    for (unsigned i = 0; i < s->ndev; i++)
        gw_gpu_read_migs(s->nvml, &s->devs[i], &migs, &used, &cap);
    *count = (unsigned)used;
    return migs;
}

void gw_sampler_add_sink(gw_sampler *s, const gw_sink *sink)
{
    if (s->nsinks < GW_MAX_SINKS)
        s->sinks[s->nsinks++] = *sink;
}

void gw_sampler_set_job(gw_sampler *s, pid_t root, pid_t self)
{
    pthread_mutex_lock(&s->job_lock);
    s->job_root = root;
    s->job_self = self;
    s->job_dirty = true;
    pthread_mutex_unlock(&s->job_lock);
}

void gw_sampler_exclude_pid(gw_sampler *s, pid_t pid, bool excluded)
{
    pthread_mutex_lock(&s->job_lock);
    for (int i = 0; i < GW_MAX_EXCLUDED_PIDS; i++) {
        if (excluded ? s->excluded[i] == 0 : s->excluded[i] == pid) {
            s->excluded[i] = excluded ? pid : 0;
            break;
        }
    }
    s->excluded_dirty = true;
    pthread_mutex_unlock(&s->job_lock);
}

/* Applies job changes queued by other threads to the procfs reader (tick thread). */
static void apply_job(gw_sampler *s)
{
    if (!s->procfs)
        return;
    pthread_mutex_lock(&s->job_lock);
    if (s->job_dirty)
        gw_procfs_set_job(s->procfs, s->job_root, s->job_self);
    if (s->excluded_dirty || s->job_dirty)
        gw_procfs_set_excluded(s->procfs, s->excluded, GW_MAX_EXCLUDED_PIDS);
    s->job_dirty = s->excluded_dirty = false;
    pthread_mutex_unlock(&s->job_lock);
}

/* The values the slow thread publishes (GPM is read in the tick itself: see read_tick). */
static const gw_gpu_field slow_fields[] = {GW_F_ENERGY_MJ, GW_F_POWER_LIMIT_W};

/* What a pass of the slow thread reads: process lists and MIG devices, the rare values. */
enum { SLOW_FULL = 2, SLOW_RARE = 4 };

/* SLOW_RARE values (the energy counter: 4.5 ms of CPU per call on an H200; the power limit:
 * 530 us) change slowly or are integrated anyway: read every max(interval, 10 s). */
#define RARE_PERIOD_MS 10000

static void emit_lost(gw_sampler *s, unsigned i, int64_t wall_ms)
{
    gw_gpu_dev *d = &s->devs[i];
    if (atomic_exchange(&d->lost_reported, true))
        return;
    gw_event ev = gw_event_make(GW_EV_GPU_LOST, wall_ms);
    ev.gpu_lost.gpu = (int)d->info.index;
    ev.gpu_lost.uuid = d->info.uuid;
    ev.gpu_lost.pci_bus_id = d->info.pci_bus_id;
    const char *call = atomic_load(&d->lost_call);
    ev.gpu_lost.call = call ? call : "";
    gw_events_emit(s->bus, &ev);
}

/* Copies the slow thread's latest values and process list into the sample. */
static void merge_slow(gw_sampler *s, gw_sample *smp)
{
    uint64_t want = s->cfg.fields & GW_FIELDS_SLOW;
    smp->procs_fresh = false;
    pthread_mutex_lock(&s->slow_lock);
    for (unsigned i = 0; i < s->ndev; i++) {
        gw_gpu_sample *g = &smp->gpus[i];
        if (g->lost)
            continue;
        for (size_t k = 0; k < sizeof slow_fields / sizeof slow_fields[0]; k++) {
            gw_gpu_field f = slow_fields[k];
            if ((want & GW_FIELD_BIT(f)) && gw_has(&s->slow_vals[i], f))
                gw_set(g, f, s->slow_vals[i].v[f]);
        }
        if (gw_has(g, GW_F_ENERGY_MJ))
            g->energy = s->slow_vals[i].energy;
        if (gw_has(g, GW_F_POWER_LIMIT_W))
            g->power_limit = s->slow_vals[i].power_limit;
    }
    if (s->slow_procs_seq != s->seen_procs_seq) {
        s->sample.procs =
            xgrow(s->sample.procs, &s->procs_cap, s->slow_nprocs, sizeof *s->sample.procs);
        if (s->slow_nprocs)
            memcpy(s->sample.procs, s->slow_procs, s->slow_nprocs * sizeof *s->slow_procs);
        smp->proc_count = (unsigned)s->slow_nprocs;
        s->sample.migs = xgrow(s->sample.migs, &s->migs_cap, s->slow_nmigs, sizeof *s->sample.migs);
        if (s->slow_nmigs)
            memcpy(s->sample.migs, s->slow_migs, s->slow_nmigs * sizeof *s->slow_migs);
        smp->mig_count = (unsigned)s->slow_nmigs;
        smp->procs_wall_ms = s->slow_procs_wall_ms;
        smp->procs_fresh = true;
        s->seen_procs_seq = s->slow_procs_seq;
    }
    pthread_mutex_unlock(&s->slow_lock);
}

/* Reads one tick into s->sample: fast values, GPM over the window that ends now, then the slow
 * thread's latest. GPM is sampled in the tick (GpmSampleGet + GpmMetricsGet: ~230 us of CPU per
 * GPU on an H200, docs/performance.md) so that a row's gpm.* cells describe the interval that
 * ends at the row, like its GPU-Util; a slow thread's window ended up to a window earlier and was
 * held, so SM activity lagged GPU-Util by one to two seconds. */
static void read_tick(gw_sampler *s)
{
    gw_sample *smp = &s->sample;
    int64_t t0 = gw_mono_ns();
    smp->mono_ns = t0;
    smp->wall_ms = gw_wall_ms();
    apply_job(s);
    for (unsigned i = 0; i < s->ndev; i++) {
        gw_gpu_sample *g = &smp->gpus[i];
        gw_gpu_read_fast(s->nvml, &s->devs[i], s->cfg.fields, g);
        g->gpm = g->gpm_gr = g->energy = g->power_limit = (gw_time_span){0, 0};
        if (s->cfg.fields & GW_FIELDS_GPM)
            gw_gpu_read_gpm(s->nvml, &s->devs[i], s->mg, s->cfg.fields, g);
    }
    merge_slow(s, smp);
    if (s->procfs) {
        s->gpu_pids = xgrow(s->gpu_pids, &s->gpu_pids_cap, smp->proc_count ? smp->proc_count : 1,
                            sizeof *s->gpu_pids);
        for (unsigned k = 0; k < smp->proc_count; k++)
            s->gpu_pids[k] = smp->procs[k].pid;
        gw_procfs_set_gpu_pids(s->procfs, s->gpu_pids, smp->proc_count);
        gw_procfs_sample(s->procfs, t0, &smp->host);
        for (unsigned k = 0; smp->procs_fresh && k < smp->proc_count; k++)
            smp->procs[k].in_job = gw_procfs_in_job(s->procfs, smp->procs[k].pid);
    } else {
        smp->host = gw_host_sample_absent();
    }
    for (unsigned i = 0; i < s->ndev; i++)
        if (smp->gpus[i].lost)
            emit_lost(s, i, smp->wall_ms);
    smp->read_ns = gw_mono_ns() - t0;
    atomic_store(&s->last_read_ns, smp->read_ns);
    if (smp->read_ns > atomic_load(&s->max_read_ns))
        atomic_store(&s->max_read_ns, smp->read_ns);
}

/* Waits until the monotonic deadline or a stop request; false when stopping. */
static bool wait_until(gw_sampler *s, int64_t deadline_ns)
{
    pthread_mutex_lock(&s->run_lock);
    while (!s->stop)
        if (gw_cond_wait_until(&s->run_cond, &s->run_lock, deadline_ns))
            break;
    bool go = !s->stop;
    pthread_mutex_unlock(&s->run_lock);
    return go;
}

/* Advances a schedule past `now`: returns the next deadline on the grid start + k * period,
 * counting the grid points that were missed entirely in *missed. A grid point at or before
 * `began` (when the tick just taken started: it ran late) is that tick's own, never a second
 * sample at the same moment. */
static int64_t next_deadline(int64_t deadline, int64_t period, int64_t began, int64_t now,
                             uint64_t *missed)
{
    deadline += period;
    if (began >= deadline) {
        int64_t k = (began - deadline) / period + 1;
        deadline += k * period;
        *missed += (uint64_t)k;
    }
    if (now > deadline) {
        int64_t k = (now - deadline) / period;
        deadline += k * period;
        *missed += (uint64_t)k;
    }
    return deadline;
}

static void *tick_main(void *arg)
{
    gw_sampler *s = arg;
    pthread_setname_np(pthread_self(), "gw-tick");
    int64_t period = s->cfg.interval_ms * NS_PER_MS;
    int64_t deadline = s->start_ns;
    do {
        int64_t began = gw_mono_ns();
        read_tick(s);
        s->sample.seq = atomic_fetch_add(&s->ticks, 1);
        for (int i = 0; i < s->nsinks; i++)
            if (s->sinks[i].on_sample)
                s->sinks[i].on_sample(s->sinks[i].ctx, &s->sample);
        uint64_t missed = 0;
        deadline = next_deadline(deadline, period, began, gw_mono_ns(), &missed);
        if (missed)
            atomic_fetch_add(&s->skipped, missed);
    } while (wait_until(s, deadline));
    gw_clock_thread_done();
    return NULL;
}

/* One pass of slow reads into the scratch buffers: SLOW_FULL processes and MIG devices,
 * SLOW_RARE the power limit and the energy counter. */
static void slow_read(gw_sampler *s, int what)
{
    uint64_t f = s->cfg.fields;
    int64_t rare_ns = 0;
    s->scratch_nprocs = s->scratch_nmigs = 0;
    for (unsigned i = 0; i < s->ndev; i++) {
        s->scratch_vals[i].valid = 0;
        int64_t t0 = gw_mono_ns();
        if ((what & SLOW_RARE) && (f & GW_FIELD_BIT(GW_F_POWER_LIMIT_W)))
            gw_gpu_read_power_limit(s->nvml, &s->devs[i], &s->scratch_vals[i]);
        if ((what & SLOW_RARE) && (f & GW_FIELD_BIT(GW_F_ENERGY_MJ)))
            gw_gpu_read_energy(s->nvml, &s->devs[i], &s->scratch_vals[i]);
        rare_ns += gw_mono_ns() - t0;
        if ((what & SLOW_FULL) && s->cfg.processes)
            gw_gpu_read_processes(s->nvml, &s->devs[i], s->cfg.proc_root, &s->scratch_procs,
                                  &s->scratch_nprocs, &s->scratch_cap);
        if ((what & SLOW_FULL) && s->cfg.migs)
            gw_gpu_read_migs(s->nvml, &s->devs[i], &s->scratch_migs, &s->scratch_nmigs,
                             &s->scratch_migs_cap);
    }
    if (what & SLOW_RARE)
        s->rare_ns = rare_ns;
}

/* Publishes what the last slow_read(what) read; values it did not read stay as they were. */
static void slow_publish(gw_sampler *s, int what)
{
    uint64_t mine = 0;
    if (what & SLOW_RARE)
        mine |= GW_FIELD_BIT(GW_F_POWER_LIMIT_W) | GW_FIELD_BIT(GW_F_ENERGY_MJ);
    pthread_mutex_lock(&s->slow_lock);
    for (unsigned i = 0; i < s->ndev; i++) {
        gw_gpu_sample *dst = &s->slow_vals[i];
        const gw_gpu_sample *src = &s->scratch_vals[i];
        dst->valid = (dst->valid & ~mine) | (src->valid & mine);
        for (size_t k = 0; k < sizeof slow_fields / sizeof slow_fields[0]; k++)
            if (src->valid & mine & GW_FIELD_BIT(slow_fields[k]))
                dst->v[slow_fields[k]] = src->v[slow_fields[k]];
        if (src->valid & mine & GW_FIELD_BIT(GW_F_ENERGY_MJ))
            dst->energy = src->energy;
        if (src->valid & mine & GW_FIELD_BIT(GW_F_POWER_LIMIT_W))
            dst->power_limit = src->power_limit;
    }
    if ((what & SLOW_FULL) && (s->cfg.processes || s->cfg.migs)) {
        s->slow_procs =
            xgrow(s->slow_procs, &s->slow_procs_cap, s->scratch_nprocs, sizeof *s->slow_procs);
        if (s->scratch_nprocs)
            memcpy(s->slow_procs, s->scratch_procs, s->scratch_nprocs * sizeof *s->slow_procs);
        s->slow_nprocs = s->scratch_nprocs;
        s->slow_migs =
            xgrow(s->slow_migs, &s->slow_migs_cap, s->scratch_nmigs, sizeof *s->slow_migs);
        if (s->scratch_nmigs)
            memcpy(s->slow_migs, s->scratch_migs, s->scratch_nmigs * sizeof *s->slow_migs);
        s->slow_nmigs = s->scratch_nmigs;
        s->slow_procs_wall_ms = gw_wall_ms();
        s->slow_procs_seq++;
    }
    pthread_mutex_unlock(&s->slow_lock);
}

static int64_t at_least(int64_t interval_ms, int64_t floor_ms)
{
    return (interval_ms < floor_ms ? floor_ms : interval_ms) * NS_PER_MS;
}

static void *slow_main(void *arg)
{
    gw_sampler *s = arg;
    pthread_setname_np(pthread_self(), "gw-slow");
    int64_t full_period = at_least(s->cfg.interval_ms, 1000);
    int64_t energy_period = at_least(s->cfg.interval_ms, RARE_PERIOD_MS);
    /* gw_sampler_start made the first pass of every kind. */
    int64_t full_deadline = s->start_ns + full_period;
    int64_t energy_deadline = s->start_ns + energy_period;
    uint64_t ignored = 0;
    for (;;) {
        /* The rare values are read just before the tick due at energy_deadline, so that they
         * reach that tick's row: read with the tick, they reached the next row, one interval
         * after the counter's reading, and the report takes a cell's counter value as the row's
         * (a 0.2 s interval at 650 W lost 130 J per reading). The lead: twice the last read's
         * time and 2 ms, at most half an interval. */
        int64_t lead = 2 * s->rare_ns + 2 * NS_PER_MS, half = s->cfg.interval_ms * NS_PER_MS / 2;
        int64_t rare_at = energy_deadline - (lead < half ? lead : half);
        if (!wait_until(s, full_deadline < rare_at ? full_deadline : rare_at))
            break;
        int64_t now = gw_mono_ns();
        int what = (now >= full_deadline ? SLOW_FULL : 0) | (now >= rare_at ? SLOW_RARE : 0);
        slow_read(s, what);
        slow_publish(s, what);
        now = gw_mono_ns();
        if (what & SLOW_FULL)
            full_deadline = next_deadline(full_deadline, full_period, INT64_MIN, now, &ignored);
        if (what & SLOW_RARE)
            energy_deadline =
                next_deadline(energy_deadline, energy_period, INT64_MIN, now, &ignored);
    }
    gw_clock_thread_done();
    return NULL;
}

/* Watches XID and double-bit ECC events on the GPUs that are not lost. */
static void start_event_watcher(gw_sampler *s)
{
    gwn_device *handles = xcalloc(s->ndev ? s->ndev : 1, sizeof *handles);
    unsigned *indices = xcalloc(s->ndev ? s->ndev : 1, sizeof *indices);
    unsigned n = 0;
    for (unsigned i = 0; i < s->ndev; i++) {
        if (atomic_load(&s->devs[i].lost))
            continue;
        handles[n] = s->devs[i].handle;
        indices[n++] = s->devs[i].info.index;
    }
    s->events = gw_nvml_events_start(s->nvml, handles, indices, n, s->bus);
    atomic_store(&s->event_gpus, s->events ? gw_nvml_events_gpus(s->events) : 0);
    free(handles);
    free(indices);
}

gw_rc gw_sampler_start(gw_sampler *s, gw_error *err)
{
    for (int i = 0; i < s->nsinks; i++)
        if (s->sinks[i].on_start)
            s->sinks[i].on_start(s->sinks[i].ctx, s->infos, s->ndev);
    /* One slow pass now, so that the first tick already has the power limit, the energy counter
     * and the process list, and a GPM sample that the second tick's window starts from. */
    slow_read(s, SLOW_FULL | SLOW_RARE);
    slow_publish(s, SLOW_FULL | SLOW_RARE);
    if (s->cfg.fields & GW_FIELDS_GPM)
        for (unsigned i = 0; i < s->ndev; i++)
            gw_gpu_read_gpm(s->nvml, &s->devs[i], s->mg, s->cfg.fields, &s->scratch_vals[i]);
    s->start_ns = gw_mono_ns();
    s->stop = false;
    /* The slow thread first, so that a process list is usually ready for early ticks. */
    gw_clock_thread_add();
    if (pthread_create(&s->slow_thr, NULL, slow_main, s) != 0) {
        gw_clock_thread_done();
        return gw_error_set(err, GW_E_SYSTEM, "cannot start the sampling thread: %s",
                            strerror(errno));
    }
    gw_clock_thread_add();
    if (pthread_create(&s->tick_thr, NULL, tick_main, s) != 0) {
        gw_clock_thread_done();
        pthread_mutex_lock(&s->run_lock);
        s->stop = true;
        pthread_cond_broadcast(&s->run_cond);
        pthread_mutex_unlock(&s->run_lock);
        gw_clock_wake();
        pthread_join(s->slow_thr, NULL);
        return gw_error_set(err, GW_E_SYSTEM, "cannot start the sampling thread: %s",
                            strerror(errno));
    }
    s->running = true;
    if (s->cfg.nvml_events)
        start_event_watcher(s);
    return GW_OK;
}

void gw_sampler_stop(gw_sampler *s)
{
    if (!s->running)
        return;
    pthread_mutex_lock(&s->run_lock);
    s->stop = true;
    pthread_cond_broadcast(&s->run_cond);
    pthread_mutex_unlock(&s->run_lock);
    gw_clock_wake();
    /* The caller waits for the threads here, not on the clock (a virtual clock runs on). */
    gw_clock_thread_done();
    pthread_join(s->tick_thr, NULL);
    pthread_join(s->slow_thr, NULL);
    gw_clock_thread_add();
    /* Last: the event watcher notices the stop only when its wait times out (up to
     * GW_NVML_EVENTS_WAIT_MS), and no tick may be taken meanwhile. */
    gw_nvml_events_stop(s->events);
    s->events = NULL;
    atomic_store(&s->event_gpus, 0);
    s->running = false;
    for (int i = 0; i < s->nsinks; i++)
        if (s->sinks[i].on_stop)
            s->sinks[i].on_stop(s->sinks[i].ctx);
}

const gw_sample *gw_sampler_read_now(gw_sampler *s)
{
    /* Repeated one-shot reads (the live view, query -l) take the rare values every 10 s too. */
    int64_t now = gw_mono_ns();
    int what = SLOW_FULL;
    if (s->last_rare_ns == 0 || now - s->last_rare_ns >= RARE_PERIOD_MS * NS_PER_MS) {
        what |= SLOW_RARE;
        s->last_rare_ns = now;
    }
    slow_read(s, what);
    slow_publish(s, what);
    read_tick(s);
    s->sample.seq = atomic_fetch_add(&s->ticks, 1);
    return &s->sample;
}

const gw_sample *gw_sampler_read_first(gw_sampler *s)
{
    bool gpm = false;
    for (unsigned i = 0; i < s->ndev; i++)
        gpm = gpm || s->devs[i].info.gpm_supported;
    if (!gpm || !(s->cfg.fields & GW_FIELDS_GPM))
        return gw_sampler_read_now(s);
    /* GPM first: the first read's calls (in a fresh process each kind of value costs 2-4 ms on
     * an H200, docs/performance.md) then fall inside the window instead of before it. The second
     * read's window starts at the newest sample at least GW_GPM_MIN_WINDOW_MS old: the first
     * read's, or this one. */
    gw_gpu_sample *primer = xcalloc(1, sizeof *primer);
    for (unsigned i = 0; i < s->ndev; i++)
        gw_gpu_read_gpm(s->nvml, &s->devs[i], s->mg, s->cfg.fields, primer);
    free(primer);
    int64_t primed_ns = gw_mono_ns();
    gw_sampler_read_now(s);
    gw_sleep_until_mono_ns(primed_ns + GW_GPM_FIRST_WINDOW_MS * NS_PER_MS);
    return gw_sampler_read_now(s);
}

void gw_sampler_get_stats(gw_sampler *s, gw_sampler_stats *out)
{
    memset(out, 0, sizeof *out);
    out->ticks = atomic_load(&s->ticks);
    out->ticks_skipped = atomic_load(&s->skipped);
    out->last_read_ns = atomic_load(&s->last_read_ns);
    out->max_read_ns = atomic_load(&s->max_read_ns);
    for (unsigned i = 0; i < s->ndev; i++) {
        out->nvml_errors += atomic_load(&s->devs[i].errors);
        out->lost_gpus += atomic_load(&s->devs[i].lost) ? 1 : 0;
    }
}

unsigned gw_sampler_event_gpus(gw_sampler *s)
{
    return atomic_load(&s->event_gpus);
}

unsigned gw_sampler_call_errors(gw_sampler *s, gw_nvml_call_error *out, unsigned max)
{
    pthread_mutex_lock(&s->call_errors.lock);
    unsigned n = s->call_errors.n < max ? s->call_errors.n : max;
    for (unsigned i = 0; i < n; i++)
        out[i] = (gw_nvml_call_error){s->call_errors.call[i], s->call_errors.count[i]};
    pthread_mutex_unlock(&s->call_errors.lock);
    return n;
}

void gw_sampler_close(gw_sampler *s)
{
    if (!s)
        return;
    gw_sampler_stop(s);
    gw_gpu_devs_close(s->nvml, s->devs, s->ndev);
    gw_procfs_free(s->procfs);
    free(s->gpu_pids);
    pthread_mutex_destroy(&s->job_lock);
    pthread_mutex_destroy(&s->slow_lock);
    pthread_mutex_destroy(&s->run_lock);
    pthread_mutex_destroy(&s->call_errors.lock);
    pthread_cond_destroy(&s->run_cond);
    free(s->infos);
    free(s->slow_vals);
    free(s->scratch_vals);
    free(s->slow_procs);
    free(s->scratch_procs);
    free(s->slow_migs);
    free(s->scratch_migs);
    free(s->sample.migs);
    free(s->sample.gpus);
    free(s->sample.procs);
    free(s->mg);
    if (s->owns_nvml)
        gw_nvml_close(s->nvml);
    free(s);
}

gw_rc gw_sampler_load(const gw_sampler_config *cfg, gw_events *bus, gw_sampler **out, gw_error *err)
{
    *out = NULL;
    gw_nvml *nvml = NULL;
    gw_rc rc = gw_nvml_open(NULL, &nvml, err);
    if (!rc)
        rc = gw_sampler_open(nvml, cfg, bus, out, err);
    if (rc) {
        gw_nvml_close(nvml);
        return rc;
    }
    (*out)->owns_nvml = true;
    return GW_OK;
}

const gw_system_info *gw_sampler_system(const gw_sampler *s)
{
    return &s->sys;
}

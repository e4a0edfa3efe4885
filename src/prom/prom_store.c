#include "prom/prom_store.h"

#include "host/procinfo.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gw_prom_store {
    pthread_mutex_t lock;
    bool per_process, cmdline;
    char *proc_root;
    gw_prom_snapshot cur; /* the store's state, under lock */
    /* tick thread only: this tick's processes, summed before they are published */
    gw_prom_proc *scratch;
    size_t scratch_n, scratch_cap;
};

gw_prom_store *gw_prom_store_new(bool per_process, bool cmdline, const char *proc_root)
{
    gw_prom_store *st = xcalloc(1, sizeof *st);
    pthread_mutex_init(&st->lock, NULL);
    st->per_process = per_process;
    st->cmdline = per_process && cmdline;
    st->proc_root = proc_root ? xstrdup(proc_root) : NULL;
    st->cur.generation = 1;
    st->cur.job_rss_mib = NAN;
    return st;
}

void gw_prom_snapshot_free(gw_prom_snapshot *snap)
{
    free(snap->devs);
    free(snap->gpus);
    free(snap->last_xid);
    free(snap->xid_count);
    free(snap->procs);
    memset(snap, 0, sizeof *snap);
}

void gw_prom_store_free(gw_prom_store *st)
{
    if (!st)
        return;
    gw_prom_snapshot_free(&st->cur);
    pthread_mutex_destroy(&st->lock);
    free(st->scratch);
    free(st->proc_root);
    free(st);
}

/* Position of the device with NVML index `index`, or -1. */
static int dev_pos(const gw_prom_snapshot *s, unsigned index)
{
    for (unsigned i = 0; i < s->ndev; i++)
        if (s->devs[i].index == index)
            return (int)i;
    return -1;
}

static void on_start(void *ctx, const gw_device_info *devices, unsigned count)
{
    gw_prom_store *st = ctx;
    pthread_mutex_lock(&st->lock);
    gw_prom_snapshot *c = &st->cur;
    uint64_t generation = c->generation;
    gw_prom_snapshot_free(c);
    c->ndev = count;
    c->devs = xmemdup(devices, count * sizeof *devices);
    c->gpus = xcalloc(count ? count : 1, sizeof *c->gpus);
    c->last_xid = xcalloc(count ? count : 1, sizeof *c->last_xid);
    c->xid_count = xcalloc(count ? count : 1, sizeof *c->xid_count);
    for (unsigned i = 0; i < count; i++)
        c->last_xid[i] = -1;
    c->job_rss_mib = NAN;
    c->generation = generation + 1;
    pthread_mutex_unlock(&st->lock);
}

/* The command line of pid with its arguments joined by spaces, cut to fit; "" when unreadable. */
static void read_cmdline(const char *proc_root, unsigned pid, char *buf, size_t len)
{
    size_t n = 0;
    if (!gw_procinfo_cmdline(proc_root, pid, buf, len - 1, &n))
        n = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0' || buf[i] == '\n')
            buf[i] = ' ';
    buf[n] = '\0';
}

/* Sums this slow read's processes by (GPU, name, command line) into st->scratch. The device list
 * is only written by on_start, which runs before the tick thread starts. */
static void sum_processes(gw_prom_store *st, const gw_sample *smp)
{
    st->scratch_n = 0;
    for (unsigned k = 0; k < smp->proc_count; k++) {
        const gw_gpu_process *p = &smp->procs[k];
        int dev = dev_pos(&st->cur, p->gpu);
        if (!p->used_valid || dev < 0)
            continue;
        gw_prom_proc key = {.dev = (unsigned)dev};
        snprintf(key.name, sizeof key.name, "%s", p->visible && p->name[0] ? p->name : "unknown");
        if (st->cmdline)
            read_cmdline(st->proc_root, p->pid, key.cmdline, sizeof key.cmdline);
        size_t i = 0;
        while (i < st->scratch_n &&
               (st->scratch[i].dev != key.dev || strcmp(st->scratch[i].name, key.name) != 0 ||
                strcmp(st->scratch[i].cmdline, key.cmdline) != 0))
            i++;
        if (i == st->scratch_n) {
            st->scratch = xgrow(st->scratch, &st->scratch_cap, i + 1, sizeof *st->scratch);
            st->scratch[st->scratch_n++] = key;
        }
        st->scratch[i].used_mib += p->used_mib;
    }
}

static void on_sample(void *ctx, const gw_sample *smp)
{
    gw_prom_store *st = ctx;
    bool procs = st->per_process && smp->procs_fresh;
    if (procs)
        sum_processes(st, smp);
    pthread_mutex_lock(&st->lock);
    gw_prom_snapshot *c = &st->cur;
    unsigned n = smp->gpu_count < c->ndev ? smp->gpu_count : c->ndev;
    if (n)
        memcpy(c->gpus, smp->gpus, n * sizeof *c->gpus);
    c->have_sample = true;
    c->seq = smp->seq;
    c->mono_ns = smp->mono_ns;
    c->wall_ms = smp->wall_ms;
    c->job_rss_mib = smp->host.job_rss_mib;
    if (procs) {
        c->procs = xgrow(c->procs, &c->procs_cap, st->scratch_n, sizeof *c->procs);
        if (st->scratch_n)
            memcpy(c->procs, st->scratch, st->scratch_n * sizeof *c->procs);
        c->nprocs = st->scratch_n;
    }
    c->generation++;
    pthread_mutex_unlock(&st->lock);
}

gw_sink gw_prom_store_as_sink(gw_prom_store *st)
{
    return (gw_sink){.ctx = st, .on_start = on_start, .on_sample = on_sample, .on_stop = NULL};
}

void gw_prom_store_on_event(void *ctx, const gw_event *ev)
{
    gw_prom_store *st = ctx;
    if (ev->kind != GW_EV_XID || ev->xid.gpu < 0 || ev->xid.xid < 0 || ev->xid.xid > 1000000000)
        return;
    pthread_mutex_lock(&st->lock);
    int dev = dev_pos(&st->cur, (unsigned)ev->xid.gpu);
    if (dev >= 0) {
        st->cur.last_xid[dev] = (int)ev->xid.xid;
        st->cur.xid_count[dev]++;
        st->cur.generation++;
    }
    pthread_mutex_unlock(&st->lock);
}

/* Makes an array of `count` elements of `size` bytes, reallocating when the count changed. */
static void *resize(void *p, unsigned old_count, unsigned count, size_t size)
{
    if (p && old_count == count)
        return p;
    free(p);
    return xcalloc(count ? count : 1, size);
}

bool gw_prom_store_snapshot(gw_prom_store *st, gw_prom_snapshot *snap)
{
    pthread_mutex_lock(&st->lock);
    const gw_prom_snapshot *c = &st->cur;
    if (snap->generation == c->generation) {
        pthread_mutex_unlock(&st->lock);
        return false;
    }
    unsigned n = c->ndev;
    snap->devs = resize(snap->devs, snap->ndev, n, sizeof *snap->devs);
    snap->gpus = resize(snap->gpus, snap->ndev, n, sizeof *snap->gpus);
    snap->last_xid = resize(snap->last_xid, snap->ndev, n, sizeof *snap->last_xid);
    snap->xid_count = resize(snap->xid_count, snap->ndev, n, sizeof *snap->xid_count);
    snap->ndev = n;
    if (n) {
        memcpy(snap->devs, c->devs, n * sizeof *c->devs);
        memcpy(snap->gpus, c->gpus, n * sizeof *c->gpus);
        memcpy(snap->last_xid, c->last_xid, n * sizeof *c->last_xid);
        memcpy(snap->xid_count, c->xid_count, n * sizeof *c->xid_count);
    }
    snap->procs = xgrow(snap->procs, &snap->procs_cap, c->nprocs, sizeof *snap->procs);
    if (c->nprocs)
        memcpy(snap->procs, c->procs, c->nprocs * sizeof *c->procs);
    snap->nprocs = c->nprocs;
    snap->have_sample = c->have_sample;
    snap->seq = c->seq;
    snap->mono_ns = c->mono_ns;
    snap->wall_ms = c->wall_ms;
    snap->job_rss_mib = c->job_rss_mib;
    snap->generation = c->generation;
    pthread_mutex_unlock(&st->lock);
    return true;
}

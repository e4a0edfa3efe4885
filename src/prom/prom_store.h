/*
 * prom_store: the latest sample, kept for the Prometheus exporter.
 *
 * Owns: a copy of the devices' static facts (from the sink's on_start), of the last tick's GPU
 * values and job RSS (on_sample), of the per-process GPU memory of the last slow read (summed by
 * GPU and process name, and by command line when asked), and the XID state per GPU fed by "xid"
 * events
 * ({"type": "xid", "gpu": N, "xid": 79}) from the events bus. Writers (the sampler's tick thread,
 * the bus) and readers (HTTP scrapes) meet under one mutex; a reader copies a snapshot and renders
 * it outside the lock, so a scrape never waits for NVML and the tick never waits for a scrape.
 *
 * Must not: call NVML, render text or know about HTTP. /proc is read only for command lines, in
 * the tick thread, when `cmdline` is on.
 */
#ifndef GW_PROM_STORE_H
#define GW_PROM_STORE_H

#include "sampler/sampler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gw_prom_store gw_prom_store;

/* GPU memory of the processes with one name (and command line) on one GPU, summed. */
typedef struct gw_prom_proc {
    unsigned dev;      /* position in the snapshot's devices */
    char name[64];     /* /proc/PID/comm, "unknown" when the pid is not visible here */
    char cmdline[256]; /* arguments joined by spaces; "" unless the store keeps them */
    double used_mib;   /* sum of usedGpuMemory (MiB); processes without a value are left out */
} gw_prom_proc;

/* A consistent copy of the store: what one scrape renders. Zero-initialise before the first
 * gw_prom_store_snapshot; free with gw_prom_snapshot_free. */
typedef struct gw_prom_snapshot {
    uint64_t generation; /* changes whenever anything below changes; 0 = never filled */
    unsigned ndev;
    gw_device_info *devs; /* [ndev] */
    bool have_sample;     /* false until the first tick */
    uint64_t seq;         /* the tick's sequence number */
    int64_t mono_ns;      /* CLOCK_MONOTONIC when the tick was read */
    int64_t wall_ms;
    double job_rss_mib;  /* the wrapped job's RSS (`run`), NAN when absent */
    gw_gpu_sample *gpus; /* [ndev]: the last tick's values */
    int *last_xid;       /* [ndev]: the last XID number, -1 before the first one */
    uint64_t *xid_count; /* [ndev]: XID events seen */
    size_t nprocs;
    gw_prom_proc *procs; /* [nprocs] (only when the store keeps processes) */
    size_t procs_cap;    /* allocated entries of procs (the store's business) */
} gw_prom_snapshot;

/* A store; `per_process` keeps process memory, `cmdline` adds command lines (read from
 * proc_root, NULL = /proc). Free with gw_prom_store_free. */
gw_prom_store *gw_prom_store_new(bool per_process, bool cmdline, const char *proc_root);
void gw_prom_store_free(gw_prom_store *st);

/* The sink that feeds the store (add it to the sampler before gw_sampler_start). */
gw_sink gw_prom_store_as_sink(gw_prom_store *st);

/* Events bus listener (gw_event_fn) for the store: counts "xid" events; others are ignored. */
void gw_prom_store_on_event(void *ctx, const gw_event *event);

/* Copies the store into snap when its generation differs from snap->generation (growing snap's
 * arrays as needed). Returns true when it copied. Thread-safe. */
bool gw_prom_store_snapshot(gw_prom_store *st, gw_prom_snapshot *snap);
void gw_prom_snapshot_free(gw_prom_snapshot *snap);

#endif

/*
 * alerts: the engine that evaluates alert rules on every tick of `run` and `record` (and of any
 * other sampler, such as `serve`'s) and announces when one fires or resolves.
 *
 * Owns: one state per rule and GPU (ok, pending, firing, clearing) with the times that decide
 * duration and hysteresis, the trend windows and the job memory baseline, the XID / double-bit ECC
 * events it took from the bus, and the hook runner (hook.h). It is a gw_sink: samples are judged
 * in the tick thread; NVML events ("xid", "ecc_double_bit", emitted by the sampler's event watcher)
 * are queued by a bus listener and judged at the next tick. When a rule fires or resolves it emits
 * an "alert" / "alert_resolved" event on the bus (docs/events.md), prints one line to its log
 * stream (stderr unless changed) and hands the alert to the hook runner, which never blocks the
 * tick.
 *
 * Must not: call NVML, read /proc, or wait on anything in the tick thread.
 */
#ifndef GW_ALERTS_H
#define GW_ALERTS_H

#include "alerts/rules.h"
#include "events/events.h"
#include "sampler/sampler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct gw_alerts gw_alerts;

/* Creates the engine for a validated configuration (copied; see config.h) and listens on bus
 * (borrowed: it must outlive the engine, or be freed after it). Starts the hook runner when the
 * configuration has a hook. Free with gw_alerts_free. */
gw_alerts *gw_alerts_new(const gw_alerts_config *cfg, gw_events *bus);

/* Where the one-line messages go (default stderr; NULL: nowhere). Call before sampling starts. */
void gw_alerts_set_log(gw_alerts *a, FILE *log);

/* Lets the hook runner keep its processes out of the job's tree (gw_sampler_exclude_pid) and gives
 * hooks GPUWATCH_RUN_DIR. Both may be NULL. Call before sampling starts. */
void gw_alerts_attach(gw_alerts *a, gw_sampler *sampler, const char *run_dir);

/* The job's GPUs (record/job.h), as NVML indices: rules per GPU judge only these; with node
 * (--scope node) they judge the others too and their alerts say "GPU 1 (not this job)". Until it
 * is called every GPU counts as the job's. Call before sampling starts, or from a sink (the tick
 * thread) as the job's processes show its GPUs; an alert open on a GPU that is no longer the
 * job's then resolves at the next tick ("not this job's: no longer watched"). */
void gw_alerts_set_job_gpus(gw_alerts *a, const unsigned *gpus, size_t n, bool node);

/* The sink to add to a sampler. on_start sizes the per-GPU states; on_stop lets the hook runner
 * finish (bounded by one hook timeout) and stops it. */
gw_sink gw_alerts_as_sink(gw_alerts *a);

/* Counters, for tests and self-monitoring. */
typedef struct gw_alerts_stats {
    unsigned fired, resolved, active;
    unsigned hooks_run, hooks_killed, hooks_dropped;
} gw_alerts_stats;
void gw_alerts_get_stats(gw_alerts *a, gw_alerts_stats *out);

/* Stops listening on the bus, stops the hook runner, frees everything. NULL is accepted. */
void gw_alerts_free(gw_alerts *a);

#endif

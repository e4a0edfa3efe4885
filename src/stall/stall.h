/*
 * stall: the job_stalled alert of `gpuwatch run` — notices a job that hangs.
 *
 * Owns: the decision "the job is stalled": every GPU the job uses reads idle (GPU-Util below
 * gpu_idle_pct; the job's GPUs are those its variables name (gw_stall_set_gpus), else those where
 * NVML lists a process of the job's tree, else all),
 * the job's process tree uses almost no CPU (less than cpu_idle_pct of one core over each
 * cpu_window_ms), and the job printed nothing — all three for timeout_ms. Then one "alert" event
 * (rule "job_stalled") goes to the bus, carrying what each process of the tree is doing (state,
 * wait channel and system call from /proc, proc_wait.h); one "alert_resolved" follows when
 * output, GPU work or CPU work returns, and the next quiet stretch may fire again. An alert still
 * open when the job ends stays open: no "alert_resolved" is written for it (the report closes the
 * span at the job's end). A value that cannot be read (MIG hides GPU-Util; the first tick has no
 * job CPU) is no evidence of activity.
 *
 * It is a sampler sink (GPU-Util, the job's CPU, the GPU process lists) plus one input from the
 * session: gw_stall_note_output when the command prints. Must not: call NVML, read the command's
 * output, or decide what listeners (events.jsonl, hooks) do with the alerts.
 * Thread-safety: the sink runs in the tick thread and gw_stall_note_output in the session's
 * thread; both take the detector's mutex, and events are emitted under it (so an alert always
 * precedes its resolution on the bus).
 */
#ifndef GW_STALL_H
#define GW_STALL_H

#include "events/events.h"
#include "sampler/sampler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Defaults: `--stall-timeout` 5 minutes; a GPU below 5 % GPU-Util runs no kernels worth the name
 * (the report's work_util_pct); a hung Python job uses well under 1 % of a core (a DataLoader
 * checks its workers every 5 s), a working one tens of percent. */
#define GW_STALL_TIMEOUT_DEFAULT_MS INT64_C(300000)
#define GW_STALL_GPU_IDLE_PCT       5.0
#define GW_STALL_CPU_IDLE_PCT       5.0
#define GW_STALL_CPU_WINDOW_MS      INT64_C(1000)
#define GW_STALL_MAX_PROCESSES      32 /* processes described in one alert */

typedef struct gw_stall_config {
    int64_t timeout_ms;    /* quiet time before the alert fires; must be > 0 */
    double gpu_idle_pct;   /* GPU-Util below this is idle */
    double cpu_idle_pct;   /* job CPU (100 = one core) below this over a window is idle */
    int64_t cpu_window_ms; /* the CPU is judged per window of this length */
    const char *proc_root; /* where to read process states; NULL = /proc */
    bool print;            /* one line on stderr per alert and resolution */
} gw_stall_config;

typedef struct gw_stall gw_stall;

/* The defaults above with the given timeout, printing on. */
gw_stall_config gw_stall_config_default(int64_t timeout_ms);

/* A detector that emits to bus (borrowed, may be NULL). cfg is copied (proc_root is borrowed). */
gw_stall *gw_stall_new(const gw_stall_config *cfg, gw_events *bus);

/* The sampler sink that feeds it (add before gw_sampler_start). */
gw_sink gw_stall_as_sink(gw_stall *st);

/* The job started at monotonic time mono_ns: root is its pid, self gpuwatch's own (the job's
 * child subreaper, whose other children belong to the job), 0 when not. Detection begins here.
 * st may be NULL (no-op). */
void gw_stall_set_job(gw_stall *st, pid_t root, pid_t self, int64_t mono_ns);

/* The job's GPUs as its variables name them (record/job.h), NVML indices: only these are judged,
 * whatever the process lists say. n 0: the GPUs where NVML lists a process of the job (the
 * default). Call before sampling starts. st may be NULL (no-op). */
void gw_stall_set_gpus(gw_stall *st, const unsigned *gpus, size_t n);

/* The command printed something at mono_ns / wall_ms (resolves an open alert at once). st may be
 * NULL (no-op). */
void gw_stall_note_output(gw_stall *st, int64_t mono_ns, int64_t wall_ms);

/* How many alerts fired and resolved so far (for tests and the end-of-run summary). */
void gw_stall_counts(gw_stall *st, unsigned *fired, unsigned *resolved);

/* NULL is accepted. */
void gw_stall_free(gw_stall *st);

#endif

/*
 * hook: runs the user's alert command (`--on-alert CMD [ARGS...] ;`, [hook] command) for each
 * alert that fires or resolves, without a shell and without ever delaying sampling.
 *
 * Owns: a bounded queue (the engine only enqueues, from the tick thread; a full queue drops the
 * alert and counts it) and one runner thread that takes alerts in order and runs each hook to its
 * end or its timeout. The hook gets the alert in GPUWATCH_ALERT, GPUWATCH_SEVERITY, GPUWATCH_GPU
 * ("" for job and tick rules), GPUWATCH_VALUE, GPUWATCH_THRESHOLD, GPUWATCH_STATE (firing |
 * resolved), GPUWATCH_METRIC, GPUWATCH_MESSAGE, GPUWATCH_TIMESTAMP and GPUWATCH_RUN_DIR (when
 * recording), stdin from /dev/null, gpuwatch's stdout and stderr, its own process group, an empty
 * signal mask and no other inherited descriptors.
 *
 * Processes: gpuwatch is the job's child subreaper and reaps any child it sees exit, so the runner
 * does not fork the hook itself: it forks a small supervisor process (excluded from the job's tree
 * through gw_sampler_exclude_pid), a child subreaper itself, that forks
 * and execs the hook in its own process group and waits for it. Everything the hook starts stays
 * below the supervisor: at the timeout, and as soon as the hook exits (leftovers), the hook's
 * group and the supervisor's other children get SIGTERM, then SIGKILL after 1 s, until none is
 * left; then it writes how the hook ended (and how many it left) into a pipe the runner reads.
 * PR_SET_PDEATHSIG(SIGTERM) does the same when the runner thread or gpuwatch dies. Whoever reaps
 * the supervisor, the runner learns the hook's exit status.
 *
 * Must not: evaluate rules, or run anything through /bin/sh.
 */
#ifndef GW_HOOK_H
#define GW_HOOK_H

#include "sampler/sampler.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One alert as the hook sees it; the strings are the environment variables' values. */
typedef struct gw_hook_alert {
    char rule[48];      /* GPUWATCH_ALERT */
    char severity[16];  /* GPUWATCH_SEVERITY: warning | critical */
    char state[16];     /* GPUWATCH_STATE: firing | resolved */
    char gpu[16];       /* GPUWATCH_GPU: NVML index, "" when the rule is not about one GPU */
    char value[32];     /* GPUWATCH_VALUE */
    char threshold[32]; /* GPUWATCH_THRESHOLD ("" for events) */
    char metric[32];    /* GPUWATCH_METRIC */
    char message[256];  /* GPUWATCH_MESSAGE: the line gpuwatch printed */
    int64_t wall_ms;    /* GPUWATCH_TIMESTAMP (RFC 3339) */
} gw_hook_alert;

typedef struct gw_hook_runner gw_hook_runner;

enum { GW_HOOK_QUEUE_MAX = 32 };

/* Starts the runner thread for the resolved program path and argv (both copied). Messages about
 * hooks that failed, were killed or dropped go to log (may be NULL). */
gw_hook_runner *gw_hook_runner_new(const char *path, char *const argv[], int64_t timeout_ms,
                                   FILE *log);

/* Where the supervisors' pids are excluded from the job's tree, and GPUWATCH_RUN_DIR (both may be
 * NULL; copied). Call before the first alert. */
void gw_hook_runner_attach(gw_hook_runner *r, gw_sampler *sampler, const char *run_dir);

/* Queues an alert; never blocks on a running hook. Returns false when the queue was full and the
 * alert was dropped. */
bool gw_hook_runner_enqueue(gw_hook_runner *r, const gw_hook_alert *a);

typedef struct gw_hook_stats {
    unsigned run;     /* hooks started */
    unsigned failed;  /* exited with a status other than 0, or by a signal */
    unsigned killed;  /* killed at the timeout */
    unsigned dropped; /* queue full, or still queued when the runner stopped */
} gw_hook_stats;
void gw_hook_runner_get_stats(gw_hook_runner *r, gw_hook_stats *out);

/* Lets queued hooks run for at most one more timeout in all (then kills the running one and drops
 * the rest), and joins the thread. Idempotent. */
void gw_hook_runner_stop(gw_hook_runner *r);

/* Stops and frees. NULL is accepted. */
void gw_hook_runner_free(gw_hook_runner *r);

#endif

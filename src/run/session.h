/*
 * session: one recording from start to end — `gpuwatch run` (with a command) and `gpuwatch
 * record` (without).
 *
 * Owns the order of things: resolve the command (before anything is created), load NVML, open the
 * devices, create the run directory, start sampling, start the command, relay its output and
 * forward signals until it exits (or, for record, until SIGINT/SIGTERM/SIGHUP or the duration),
 * stop sampling, write meta.json, print the end-of-run table. Exit statuses follow
 * docs/exit-codes.md. Must not: sample, format files or parse arguments itself; it wires the
 * sampler, the sinks and the child.
 */
#ifndef GW_SESSION_H
#define GW_SESSION_H

#include "alerts/rules.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct gw_session_config {
    bool is_run; /* run: a command is wrapped; record: none */
    int argc;    /* the command (run) */
    char **argv;
    const char *out_dir;     /* -o DIR, or NULL for runs/<UTC date-time>-<name> */
    int64_t interval_ms;     /* -i */
    int64_t duration_ms;     /* record --duration; 0 = until a signal */
    bool no_report;          /* skip the analysis at the end */
    const char *epoch_regex; /* --epoch-regex, NULL for the default (analysis/epochs.h) */
    const char *listen;      /* --listen HOST:PORT: serve /metrics while recording; NULL = no */
    const gw_alerts_config *alerts; /* validated alert rules and hook (config.h); NULL: none */
    int64_t stall_timeout_ms; /* run --stall-timeout: quiet time before job_stalled; 0 = off */
    bool scope_node;          /* --scope node: the report shows other GPUs (never judged) */
    bool no_python;           /* run --no-python: no sitecustomize on the job's PYTHONPATH */
    bool python_config_off;   /* the configuration's [run] python = false */
} gw_session_config;

/* Runs the session; returns the process exit status. Prints its own one-line errors. */
int gw_session_main(const gw_session_config *cfg);

#endif

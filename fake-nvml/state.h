/*
 * state: the fake library's mutable global state and the rules every entry point follows.
 *
 * Owns: the one lock, the nvmlInit reference count (as NVML: each successful nvmlInit needs one
 * nvmlShutdown; the last one frees everything), the loaded scenario, the scenario clock
 * (t = $FAKE_NVML_TIME_OFFSET + seconds since nvmlInit x $FAKE_NVML_TIME_SCALE, from
 * CLOCK_MONOTONIC), and device handles. Handles are not pointers: they encode (GPU index, MIG
 * instance) so that a stale or garbage handle is rejected with INVALID_ARGUMENT instead of being
 * dereferenced, and a handle stays meaningful across init/shutdown cycles as NVML's do.
 *
 * Every entry point counts itself, then calls fake_begin or fake_begin_device, which on success
 * return with the lock held and the checks every NVML call makes done (initialised, valid handle,
 * the call's latency slept, GPU not lost, group supported); the entry point then computes its
 * answer and returns through fake_end, which unlocks. Sleeps (latency, event waits) and /proc
 * scans happen with the lock released (fake_pause / fake_resume), so that a slow call on one
 * thread never delays a fast one on another.
 *
 * Must not: print, except the one stderr line of a failed nvmlInit.
 */
#ifndef FAKE_STATE_H
#define FAKE_STATE_H

#include "scenario.h"
#include "stats.h"

#include <stdint.h>

/* Exported functions; every other symbol is hidden (CMake builds with -fvisibility=hidden). */
#define FAKE_EXPORT __attribute__((visibility("default")))

typedef struct fake_call {
    const fake_scenario *sc; /* the loaded scenario (valid while the lock is held) */
    const fake_device *dev;  /* the GPU (or the MIG instance's parent); NULL without a device */
    unsigned int index;      /* the GPU's index */
    int mig;                 /* the MIG instance's index, -1 for a physical GPU handle */
    double t;                /* scenario seconds at the call (after its latency) */
    double t_init;           /* scenario seconds at nvmlInit ($FAKE_NVML_TIME_OFFSET) */
    unsigned long gen;       /* init generation, to notice a shutdown while unlocked */
} fake_call;

/* nvmlInit: on the first reference, reads $FAKE_NVML_SCENARIO and the time variables and starts
 * the clock; a broken scenario prints one "fake-nvml: " line and gives GWN_ERROR_UNKNOWN. */
gwn_return fake_state_init(void);

/* nvmlShutdown: drops one reference; the last frees the scenario, GPM samples and event sets,
 * wakes event waiters and writes the stats file. */
gwn_return fake_state_shutdown(void);

/* Counts the call, locks, and checks that NVML is initialised. On success the lock is held and
 * c->sc and c->t are set; on failure the lock is released. */
gwn_return fake_begin(fake_call *c, fake_call_id id);

/* fake_begin, then resolves the handle (INVALID_ARGUMENT), sleeps the group's latency, and checks
 * GPU_IS_LOST, MIG (only "info" and "memory" calls work on MIG instance handles) and the
 * "unsupported" list (NOT_SUPPORTED). */
gwn_return fake_begin_device(fake_call *c, fake_call_id id, gwn_device h, fake_group g);

/* Unlocks and returns r. */
gwn_return fake_end(fake_call *c, gwn_return r);

/* Releases the lock for slow work. */
void fake_pause(fake_call *c);
/* Takes the lock back; UNINITIALIZED (lock released) when NVML was shut down meanwhile. c->t is
 * brought up to date. */
gwn_return fake_resume(fake_call *c);

/* Waits with the lock held (released while waiting) until CLOCK_MONOTONIC deadline_ns or a wake-up
 * by fake_wake_all. Returns like fake_resume. */
gwn_return fake_wait(fake_call *c, int64_t deadline_ns);
/* Wakes every fake_wait (lock held). */
void fake_wake_all(void);

/* Test hooks, exported (not NVML): fakeNvmlSetTime pins the scenario clock at t seconds until
 * the next call; fakeNvmlSetSleep makes the calls' latencies (latency_ms) call fn instead of
 * sleeping (NULL: sleep again). With both, a test drives the fake from its own virtual clock. */
FAKE_EXPORT void fakeNvmlSetTime(double t);
FAKE_EXPORT void fakeNvmlSetSleep(void (*fn)(double ms));

/* The CLOCK_MONOTONIC time at which the scenario reaches t (lock held); INT64_MAX if never (time
 * frozen by scale 0, or too far). */
int64_t fake_mono_ns_at(double t);

/* The handle of GPU `index` (mig -1) or of its MIG instance `mig`. */
gwn_device fake_handle(unsigned int index, int mig);

/* Copies s into buf[len] as NVML's string getters do: INVALID_ARGUMENT for a NULL buffer,
 * INSUFFICIENT_SIZE when s and its terminator do not fit. */
gwn_return fake_copy_string(char *buf, unsigned int len, const char *s);

/* The value of timeline key k at the call's time; false when the device's timeline lacks it. */
bool fake_value(const fake_call *c, fake_key k, double *out);

#endif

/*
 * gw_time: clocks and time formats.
 *
 * Samples carry two times (as htop does): wall-clock time (CLOCK_REALTIME) for the timestamps users
 * read, and monotonic time (CLOCK_MONOTONIC) for intervals, rates and scheduling, which must not
 * jump when the system clock is set. Tests may swap both for a virtual clock (gw_vclock_start).
 * Must not: allocate.
 */
#ifndef GW_TIME_H
#define GW_TIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
int64_t gw_mono_ns(void);
/* Milliseconds since the Unix epoch from CLOCK_REALTIME. */
int64_t gw_wall_ms(void);

enum { GW_RFC3339_LEN = 32 };
/* Formats unix milliseconds as RFC 3339 UTC with milliseconds: "2026-11-30T03:22:23.578Z".
 * buf must hold GW_RFC3339_LEN bytes. Returns buf. */
char *gw_rfc3339_ms(int64_t wall_ms, char *buf);

/* Seconds east of UTC of the local time zone at unix time wall_ms (tm_gmtoff), 0 when unknown:
 * local time = UTC + this. */
int gw_utc_offset_s(int64_t wall_ms);

/* Parses an interval such as "0.5", "500ms", "2s", "1.5m", "1h" into milliseconds (a bare number
 * is seconds). Returns false on syntax errors; range checks are the caller's. */
bool gw_parse_duration_ms(const char *s, double *out_ms);

/* Sleeps until the CLOCK_MONOTONIC deadline (ns), restarting after signals. */
void gw_sleep_until_mono_ns(int64_t deadline_ns);

/* Waits on cond, with mutex held as for pthread_cond_timedwait (cond made with CLOCK_MONOTONIC),
 * until the monotonic deadline or a wake-up. Returns true when the deadline has passed. Returns
 * may be spurious: callers loop on their own condition. */
bool gw_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, int64_t deadline_ns);
/* A thread that waits with these functions: gw_clock_thread_add before creating it (so that the
 * virtual clock waits for it from the start), gw_clock_thread_done when it ends; also around a
 * wait on something else (pthread_join), which would stop a virtual clock. Nothing on the
 * system clocks. */
void gw_clock_thread_add(void);
void gw_clock_thread_done(void);
/* After changing the condition that gw_cond_wait_until callers loop on (and signalling their
 * cond): wakes those waiting on the virtual clock. Nothing when no virtual clock runs. */
void gw_clock_wake(void);

/* A virtual clock, for tests that need exact schedules (tests/unit/test_sampler_clock.c). While
 * it runs, gw_mono_ns and gw_wall_ms read it, and gw_cond_wait_until and gw_sleep_until_mono_ns
 * wait on it instead of the system clocks. Time stands still while any thread that takes part
 * works: the caller, and the threads announced with gw_clock_thread_add; once all of them wait,
 * it jumps to the earliest deadline among them, calls hook (may be NULL) with the new time, and
 * wakes the threads whose deadline came. A thread models work that takes time by sleeping. So a
 * schedule runs the same on a loaded machine as on a quiet one. */
typedef void gw_vclock_hook(int64_t mono_ns, void *ctx);
void gw_vclock_start(int64_t mono_ns, int64_t wall_ms, gw_vclock_hook *hook, void *ctx);
/* Back to the system clocks; call after the other threads have ended. */
void gw_vclock_stop(void);

#endif

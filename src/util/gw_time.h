/*
 * gw_time: clocks and time formats.
 *
 * Samples carry two times (as htop does): wall-clock time (CLOCK_REALTIME) for the timestamps users
 * read, and monotonic time (CLOCK_MONOTONIC) for intervals, rates and scheduling, which must not
 * jump when the system clock is set. Must not: allocate.
 */
#ifndef GW_TIME_H
#define GW_TIME_H

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

#endif

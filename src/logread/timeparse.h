/*
 * timeparse: reading the timestamps found in logs into unix milliseconds.
 *
 * Owns: the three timestamp families of spec.md "Reading logs" — RFC 3339 / ISO 8601
 * ("2026-11-30T03:22:23.578Z", "+02:00", a space instead of "T", "," before the fraction; no zone
 * means local time), nvidia-smi's local "2026/11/30 03:22:23.578", and unix time (9-11 digits:
 * seconds with an optional fraction; 12-13 digits: milliseconds), and C's ctime / date(1)
 * ("Tue Nov  5 14:03:01 2024", "Tue Nov  5 14:03:01 UTC 2024").
 * Local times are converted with the process's time zone (TZ), as nvidia-smi wrote them.
 * Must not: allocate or print.
 */
#ifndef GW_TIMEPARSE_H
#define GW_TIMEPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a timestamp at the start of s. On success stores unix milliseconds in *out_ms and returns
 * the number of bytes consumed (> 0); returns 0 when s does not start with a timestamp (then
 * *out_ms is untouched). A unix time must be followed by the end of s, whitespace or a
 * non-digit that is not '.' so that "12 steps" is not a time. */
size_t gw_timeparse(const char *s, int64_t *out_ms);

/* From gw_timeparse_refuse_local(true) on, gw_timeparse on the calling thread returns 0 for a
 * timestamp in local time (no zone) instead of converting it. The conversion of the hour that
 * repeats when daylight saving time ends (mktime with tm_isdst -1) follows the process's earlier
 * conversions, whichever thread made them: so one thread converts local times, in the file's
 * order, and a helper thread leaves them to it (nvsmi_pipe.c). */
void gw_timeparse_refuse_local(bool refuse);

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
int64_t gw_timeparse_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif

/*
 * args: argument helpers shared by the subcommands.
 *
 * Must not: print or exit; callers turn errors into a usage message and exit status 2.
 */
#ifndef GW_ARGS_H
#define GW_ARGS_H

#include "util/gw_error.h"

#include <stdint.h>

enum { GW_INTERVAL_MIN_MS = 50, GW_INTERVAL_MAX_MS = 86400000, GW_INTERVAL_DEFAULT_MS = 500 };

/* Parses a sampling interval ("0.5", "200ms", "2s", "1m", "1h"; bare numbers are seconds) and
 * checks it lies in [GW_INTERVAL_MIN_MS, GW_INTERVAL_MAX_MS]. `flag` names the option in the
 * message. */
GW_MUST_USE gw_rc gw_args_interval(const char *flag, const char *s, int64_t *out_ms, gw_error *err);

/* Parses a duration of at least 1 ms with the same syntax. */
GW_MUST_USE gw_rc gw_args_duration(const char *flag, const char *s, int64_t *out_ms, gw_error *err);

/* Parses a timeout with the same syntax, where 0 means "off": 0, or 1 ms to a year. */
GW_MUST_USE gw_rc gw_args_timeout(const char *flag, const char *s, int64_t *out_ms, gw_error *err);

#endif

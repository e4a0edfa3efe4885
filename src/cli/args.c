#include "cli/args.h"

#include "util/gw_time.h"

#include <math.h>

gw_rc gw_args_interval(const char *flag, const char *s, int64_t *out_ms, gw_error *err)
{
    double ms = 0;
    if (!gw_parse_duration_ms(s, &ms) || ms < GW_INTERVAL_MIN_MS - 1e-9 || ms > GW_INTERVAL_MAX_MS)
        return gw_error_set(err, GW_E_USAGE,
                            "bad interval '%s' for %s: give seconds from 0.05 to 86400 "
                            "(e.g. %s 0.5, %s 200ms, %s 1h)",
                            s, flag, flag, flag, flag);
    *out_ms = (int64_t)llround(ms);
    return GW_OK;
}

gw_rc gw_args_duration(const char *flag, const char *s, int64_t *out_ms, gw_error *err)
{
    double ms = 0;
    if (!gw_parse_duration_ms(s, &ms) || ms < 1 || ms > 1e12)
        return gw_error_set(err, GW_E_USAGE,
                            "bad duration '%s' for %s: give seconds (e.g. %s 60, %s 10m, %s 2h)", s,
                            flag, flag, flag, flag);
    *out_ms = (int64_t)llround(ms);
    return GW_OK;
}

gw_rc gw_args_timeout(const char *flag, const char *s, int64_t *out_ms, gw_error *err)
{
    double ms = 0;
    if (!gw_parse_duration_ms(s, &ms) || (ms != 0 && ms < 1) || ms > 366 * 86400e3)
        return gw_error_set(err, GW_E_USAGE,
                            "bad timeout '%s' for %s: give seconds, or 0 to turn it off (e.g. "
                            "%s 300, %s 10m, %s 0)",
                            s, flag, flag, flag, flag);
    *out_ms = (int64_t)llround(ms);
    return GW_OK;
}

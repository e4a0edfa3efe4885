#include "gw_time.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t gw_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t gw_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *gw_rfc3339_ms(int64_t wall_ms, char *buf)
{
    time_t secs = (time_t)(wall_ms / 1000);
    int ms = (int)(wall_ms % 1000);
    if (ms < 0) {
        ms += 1000;
        secs -= 1;
    }
    struct tm tm;
    gmtime_r(&secs, &tm);
    /* strftime bounds every field; years past 9999 are not a concern for sample times. */
    size_t n = strftime(buf, GW_RFC3339_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, GW_RFC3339_LEN - n, ".%03dZ", ms);
    return buf;
}

int gw_utc_offset_s(int64_t wall_ms)
{
    time_t t = (time_t)(wall_ms / 1000);
    struct tm tm;
    return localtime_r(&t, &tm) ? (int)tm.tm_gmtoff : 0;
}

bool gw_parse_duration_ms(const char *s, double *out_ms)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return false;
    double scale = 1000.0;
    if (*end == '\0' || strcmp(end, "s") == 0)
        scale = 1000.0;
    else if (strcmp(end, "ms") == 0)
        scale = 1.0;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        scale = 60000.0;
    else if (strcmp(end, "h") == 0)
        scale = 3600000.0;
    else
        return false;
    *out_ms = v * scale;
    return true;
}

void gw_sleep_until_mono_ns(int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

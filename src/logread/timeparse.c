/* Timestamp parsing for the log readers (see timeparse.h). */
#include "logread/timeparse.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t gw_timeparse_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    /* Howard Hinnant's days_from_civil: exact for every proleptic Gregorian date. */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* Reads exactly n digits. */
static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* Reads a fraction of a second after '.' or ','; returns bytes consumed (0: none). */
static size_t fraction_ms(const char *s, int *ms)
{
    if (*s != '.' && *s != ',')
        return 0;
    if (!isdigit((unsigned char)s[1]))
        return 0;
    size_t i = 1;
    int v = 0, places = 0;
    while (isdigit((unsigned char)s[i])) {
        if (places < 3) {
            v = v * 10 + (s[i] - '0');
            places++;
        }
        i++;
    }
    while (places++ < 3)
        v *= 10;
    *ms = v;
    return i;
}

/* gw_timeparse_refuse_local: this thread leaves local times alone; whether the last parse met one
 */
static _Thread_local bool refuse_local, refused;

void gw_timeparse_refuse_local(bool refuse)
{
    refuse_local = refuse;
}

/* Local time -> unix seconds. mktime is slow (it re-reads the zone), and log rows come in order,
 * so the start of the current hour is cached: zone offsets change on hour boundaries. */
static int64_t local_to_unix(int y, int mo, int d, int h, int mi, int sec)
{
    if (refuse_local) { /* not even a mktime: its guess for the next call is the process's */
        refused = true;
        return 0;
    }
    static _Thread_local int cy = -1, cmo, cd, ch;
    static _Thread_local int64_t chour;
    static _Thread_local char ctz[64];
    const char *tz = getenv("TZ"); /* a changed TZ invalidates the cache */
    if (!tz)
        tz = "";
    if (y != cy || mo != cmo || d != cd || h != ch || strncmp(tz, ctz, sizeof ctz) != 0) {
        snprintf(ctz, sizeof ctz, "%s", tz);
        struct tm tm = {
            .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_isdst = -1};
        chour = (int64_t)mktime(&tm);
        cy = y;
        cmo = mo;
        cd = d;
        ch = h;
    }
    return chour + mi * 60 + sec;
}

static bool valid_date_time(int mo, int d, int h, int mi, int sec)
{
    return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && sec <= 60;
}

/* "YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|+hh:mm|-hh:mm]" or "YYYY/MM/DD HH:MM:SS[.fff]". */
static size_t parse_calendar(const char *s, int64_t *out_ms)
{
    int y, mo, d, h, mi, sec, ms = 0;
    /* Checks run left to right and each stops at the terminator, so no read passes it. */
    if (!digits(s, 4, &y))
        return 0;
    char sep = s[4];
    if ((sep != '-' && sep != '/') || !digits(s + 5, 2, &mo) || s[7] != sep ||
        !digits(s + 8, 2, &d))
        return 0;
    if (s[10] != 'T' && s[10] != ' ' && s[10] != 't')
        return 0;
    if (!digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
        !digits(s + 17, 2, &sec))
        return 0;
    if (!valid_date_time(mo, d, h, mi, sec))
        return 0;
    size_t i = 19;
    i += fraction_ms(s + i, &ms);
    int64_t secs;
    if (s[i] == 'Z' || s[i] == 'z') {
        secs = gw_timeparse_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
               mi * 60 + sec;
        i++;
    } else if ((s[i] == '+' || s[i] == '-') && sep == '-') {
        int oh, om = 0;
        if (!digits(s + i + 1, 2, &oh))
            return 0;
        size_t j = i + 3;
        if (s[j] == ':')
            j++;
        if (isdigit((unsigned char)s[j])) {
            if (!digits(s + j, 2, &om))
                return 0;
            j += 2;
        }
        int sign = s[i] == '+' ? 1 : -1;
        secs = gw_timeparse_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
               mi * 60 + sec - sign * (oh * 3600 + om * 60);
        i = j;
    } else {
        secs = local_to_unix(y, mo, d, h, mi, sec);
    }
    *out_ms = secs * 1000 + ms;
    return i;
}

/* Unix seconds (9-11 digits, optional fraction) or milliseconds (12-13 digits). */
static size_t parse_unix(const char *s, int64_t *out_ms)
{
    size_t i = 0;
    int64_t v = 0;
    while (i < 14 && isdigit((unsigned char)s[i]))
        v = v * 10 + (s[i++] - '0');
    if (i < 9 || i > 13)
        return 0;
    int ms = 0;
    size_t f = i <= 11 ? fraction_ms(s + i, &ms) : 0;
    if (f == 0 && s[i] == '.')
        return 0;
    size_t end = i + f;
    if (isdigit((unsigned char)s[end]) || s[end] == '.' || s[end] == ',' || s[end] == ':' ||
        s[end] == '-' || s[end] == '/')
        return 0;
    *out_ms = i <= 11 ? v * 1000 + ms : v;
    return end;
}

/* C's ctime and date(1): "Tue Nov  5 14:03:01 2024", "Tue Nov  5 14:03:01 UTC 2024", en_US's
 * "Tue Nov  5 02:03:01 PM UTC 2024" (a zone name other than UTC or GMT is taken as the local
 * zone: the machine that wrote it). */
static size_t parse_ctime(const char *s, int64_t *out_ms)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    static const char days[] = "SunMonTueWedThuFriSat";
    int mo = 0, d, h, mi, sec, y;
    bool day_ok = false;
    for (int i = 0; i < 7; i++)
        day_ok |= strncmp(s, days + 3 * i, 3) == 0;
    if (!day_ok || s[3] != ' ')
        return 0;
    for (int i = 0; i < 12 && !mo; i++)
        if (strncmp(s + 4, months + 3 * i, 3) == 0)
            mo = i + 1;
    if (!mo || s[7] != ' ')
        return 0;
    size_t i = 8;
    while (s[i] == ' ')
        i++;
    if (!isdigit((unsigned char)s[i]))
        return 0;
    d = s[i++] - '0';
    if (isdigit((unsigned char)s[i]))
        d = d * 10 + (s[i++] - '0');
    if (s[i++] != ' ' || !digits(s + i, 2, &h) || s[i + 2] != ':' || !digits(s + i + 3, 2, &mi) ||
        s[i + 5] != ':' || !digits(s + i + 6, 2, &sec))
        return 0;
    i += 8;
    if (s[i++] != ' ')
        return 0;
    if ((s[i] == 'A' || s[i] == 'P') && s[i + 1] == 'M' && s[i + 2] == ' ') { /* en_US date(1) */
        if (h < 1 || h > 12)
            return 0;
        h = h % 12 + (s[i] == 'P' ? 12 : 0);
        i += 3;
    }
    bool utc = false;
    if (isupper((unsigned char)s[i])) { /* a zone name */
        size_t z = i;
        while (isupper((unsigned char)s[i]) && i - z < 6)
            i++;
        utc = (i - z == 3 && (strncmp(s + z, "UTC", 3) == 0 || strncmp(s + z, "GMT", 3) == 0));
        if (s[i++] != ' ')
            return 0;
    }
    if (!digits(s + i, 4, &y) || isdigit((unsigned char)s[i + 4]) ||
        !valid_date_time(mo, d, h, mi, sec))
        return 0;
    int64_t secs = utc ? gw_timeparse_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
                             h * 3600 + mi * 60 + sec
                       : local_to_unix(y, mo, d, h, mi, sec);
    *out_ms = secs * 1000;
    return i + 4;
}

size_t gw_timeparse(const char *s, int64_t *out_ms)
{
    refused = false;
    int64_t ms = 0;
    size_t n = 0;
    if (s && isalpha((unsigned char)s[0]))
        n = parse_ctime(s, &ms);
    else if (s && isdigit((unsigned char)s[0]))
        n = parse_calendar(s, &ms);
    if (refused)
        return 0;
    if (n == 0 && s && isdigit((unsigned char)s[0]))
        n = parse_unix(s, &ms);
    if (n)
        *out_ms = ms;
    return n;
}

/* The bounded number formatter (see gw_fmt.h). */
#include "util/gw_fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gw_fmt_sane(double x)
{
    return isfinite(x) && fabs(x) <= GW_FMT_MAX_ABS;
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Copies s into buf whole, or writes "" when it does not fit: a cut number is a wrong number. */
static const char *put(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n >= size)
        n = 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

/* Writes absent when the number in tmp (length n, or snprintf's failure) does not fit buf. */
static const char *finish(char *buf, size_t size, const char *tmp, int n, const char *absent)
{
    if (n < 0 || (size_t)n >= GW_FMT_SIZE || (size_t)n >= size)
        return put(buf, size, absent ? absent : "");
    return put(buf, size, tmp);
}

/* x with d decimals (0-9) into tmp without printf, when the correctly rounded result is certain:
 * x * 10^d is one rounding away from the exact product (10^d is exact), so under 2^40 it is
 * within 2^-13 of it, and a product at most 0.499 from an integer rounds to that integer however
 * printf would break a tie. Returns the length, or -1 (a value near a half, or too large: printf
 * decides). No "-0": a value that rounds to zero is written unsigned, as gw_fmt_fixed shows it. */
static int fixed_fast(char *tmp, double x, int d)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    double a = fabs(x * p10[d]);
    if (!(a < 1099511627776.0)) /* 2^40 */
        return -1;
    double r = floor(a + 0.5);
    if (fabs(a - r) > 0.499)
        return -1;
    unsigned long long u = (unsigned long long)r;
    char digits[24];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (nd <= d)
        digits[nd++] = '0'; /* "0.05": a units digit before the decimals */
    int n = 0;
    if (x < 0 && r != 0)
        tmp[n++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        tmp[n++] = digits[i];
        if (i == d && d > 0)
            tmp[n++] = '.';
    }
    tmp[n] = '\0';
    return n;
}

const char *gw_fmt_fixed(char *buf, size_t size, double x, int decimals, unsigned flags,
                         const char *absent)
{
    if (size == 0)
        return buf;
    if (!gw_fmt_sane(x))
        return put(buf, size, absent ? absent : "");
    char tmp[GW_FMT_SIZE];
    int d = clamp(decimals, 0, 9);
    int n = fixed_fast(tmp, x, d);
    if (n < 0)
        n = snprintf(tmp, sizeof tmp, "%.*f", d, x);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return finish(buf, size, tmp, -1, absent);
    if ((flags & GW_FMT_TRIM) && d > 0) {
        while (n > 0 && tmp[n - 1] == '0')
            n--;
        if (n > 0 && tmp[n - 1] == '.')
            n--;
        tmp[n] = '\0';
    }
    if (strcmp(tmp, "-0") == 0 || (tmp[0] == '-' && strspn(tmp + 1, "0.") == strlen(tmp + 1))) {
        memmove(tmp, tmp + 1, (size_t)n); /* "-0.00" is "0.00" */
        n--;
    }
    return finish(buf, size, tmp, n, absent);
}

const char *gw_fmt_sig(char *buf, size_t size, double x, int sig, const char *absent)
{
    if (size == 0)
        return buf;
    if (!gw_fmt_sane(x))
        return put(buf, size, absent ? absent : "");
    char tmp[GW_FMT_SIZE];
    int n = snprintf(tmp, sizeof tmp, "%.*g", clamp(sig, 1, 17), x);
    if (strcmp(tmp, "-0") == 0)
        n = snprintf(tmp, sizeof tmp, "0");
    return finish(buf, size, tmp, n, absent);
}

const char *gw_fmt_exact(char *buf, size_t size, double x)
{
    if (size == 0)
        return buf;
    if (!isfinite(x))
        return put(buf, size, "");
    char tmp[GW_FMT_SIZE];
    int n = snprintf(tmp, sizeof tmp, "%.15g", x);
    /* A whole number (a counter of bytes or millijoules) is printed exactly at any size; a
     * fraction is a measurement, whose 16th and 17th digits are arithmetic noise
     * (0.031000000000000007), not information. */
    if (x == floor(x) && strtod(tmp, NULL) != x)
        n = snprintf(tmp, sizeof tmp, "%.17g", x);
    return finish(buf, size, tmp, n, "");
}

/* gw_fmt_auto's decimals for a number of magnitude a, integer or not. */
static int decimals_of(double a)
{
    return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}

const char *gw_fmt_auto(char *buf, size_t size, double x, const char *absent)
{
    int dec = x == floor(x) ? 0 : decimals_of(fabs(x));
    return gw_fmt_fixed(buf, size, x, dec, 0, absent);
}

int gw_fmt_decimals(const double *v, size_t n)
{
    double largest = -1;
    bool fraction = false;
    for (size_t i = 0; i < n; i++) {
        if (!gw_fmt_sane(v[i]))
            continue;
        fraction |= v[i] != floor(v[i]);
        if (fabs(v[i]) > largest)
            largest = fabs(v[i]);
    }
    return fraction ? decimals_of(largest) : 0;
}

void gw_fmt_buf_fixed(gw_buf *b, double x, int decimals, unsigned flags, const char *absent)
{
    if (!gw_fmt_sane(x)) {
        gw_buf_puts(b, absent ? absent : "");
        return;
    }
    char tmp[GW_FMT_SIZE];
    gw_buf_puts(b, gw_fmt_fixed(tmp, sizeof tmp, x, decimals, flags, absent));
}

void gw_fmt_buf_sig(gw_buf *b, double x, int sig, const char *absent)
{
    if (!gw_fmt_sane(x)) {
        gw_buf_puts(b, absent ? absent : "");
        return;
    }
    char tmp[GW_FMT_SIZE];
    gw_buf_puts(b, gw_fmt_sig(tmp, sizeof tmp, x, sig, absent));
}

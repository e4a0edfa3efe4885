/*
 * line_scan: the small scanning steps shared by the readers of a training job's text lines
 * (logread/counter_line.c, logread/step_time.c): where a word starts, a run of digits, blanks.
 * Must not: allocate, print or keep state.
 */
#ifndef GW_LINE_SCAN_H
#define GW_LINE_SCAN_H

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* True when p (inside line) starts a word: the line's start, or after neither a letter, a digit
 * nor '_'. */
static inline bool gw_scan_word_start(const char *line, const char *p)
{
    return p == line || (!isalnum((unsigned char)p[-1]) && p[-1] != '_');
}

/* Digits at *s (at most 12, and not followed by a 13th) into *v, *s moved past them; false (both
 * untouched) when there are none. */
static inline bool gw_scan_digits(const char **s, long *v)
{
    const char *p = *s;
    long x = 0;
    int d = 0;
    while (isdigit((unsigned char)*p) && d < 12) {
        x = x * 10 + (*p++ - '0');
        d++;
    }
    if (d == 0 || isdigit((unsigned char)*p))
        return false;
    *s = p;
    *v = x;
    return true;
}

/* p past its spaces and tabs. */
static inline const char *gw_scan_spaces(const char *p)
{
    return p + strspn(p, " \t");
}

#endif

/*
 * utf8: the width of text on screen. The sanitiser itself (untrusted bytes to valid UTF-8 without
 * control characters) is util/gw_utf8.h, included here for the view's callers.
 *
 * Owns: display-width counting and width-bounded copying that never cuts a character in two.
 * Must not: allocate beyond the caller's gw_buf, or depend on the C locale (the rules are fixed:
 * output is always UTF-8).
 */
#ifndef GW_UTF8_H
#define GW_UTF8_H

#include "util/gw_buf.h"
#include "util/gw_utf8.h" /* gw_utf8_sanitize: the one sanitiser */

#include <stddef.h>

/* Display columns of a valid UTF-8 string: East Asian wide and fullwidth characters and most
 * emoji count 2, combining marks and zero-width characters 0, everything else 1. */
int gw_utf8_width(const char *s);

/* Appends valid UTF-8 s to out in at most max_cols columns. When s is wider, as many whole
 * characters as fit before "..." are kept, then "...". Returns the columns appended. max_cols < 3
 * appends at most max_cols dots when s does not fit. */
int gw_utf8_fit(const char *s, int max_cols, gw_buf *out);

#endif

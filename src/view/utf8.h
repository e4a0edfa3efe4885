/*
 * utf8: making untrusted bytes (process command lines) safe to show and to put in JSON.
 *
 * Owns: UTF-8 validation with replacement, display-width counting and width-bounded copying that
 * never cuts a character in two. Must not: allocate beyond the caller's gw_buf, or depend on the
 * C locale (the rules are fixed: output is always UTF-8).
 */
#ifndef GW_UTF8_H
#define GW_UTF8_H

#include "util/gw_buf.h"

#include <stddef.h>

/* Appends s[0..n) to out as valid UTF-8 without control characters: each byte that does not
 * start a well-formed sequence (stray continuation bytes, overlong forms, surrogates, code points
 * past U+10FFFF, sequences cut short) becomes U+FFFD; C0 controls, DEL and C1 controls (escape
 * sequences could otherwise drive the terminal) become '?', except that NUL, tab and newline
 * become a space (command-line argument separators). */
void gw_utf8_sanitize(const char *s, size_t n, gw_buf *out);

/* Display columns of a valid UTF-8 string: East Asian wide and fullwidth characters and most
 * emoji count 2, combining marks and zero-width characters 0, everything else 1. */
int gw_utf8_width(const char *s);

/* Appends valid UTF-8 s to out in at most max_cols columns. When s is wider, as many whole
 * characters as fit before "..." are kept, then "...". Returns the columns appended. max_cols < 3
 * appends at most max_cols dots when s does not fit. */
int gw_utf8_fit(const char *s, int max_cols, gw_buf *out);

#endif

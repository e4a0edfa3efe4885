/*
 * gw_utf8: the one sanitiser of untrusted text (GPU names and ids from NVML or from files, process
 * command lines): whatever bytes come in, what goes out is valid UTF-8 without control
 * characters, safe for a terminal and for JSON. Text is sanitised once, where it enters
 * (src/sampler for NVML's strings, src/logread for strings read from files, src/live for command
 * lines); outputs may then trust it.
 * Must not: depend on the C locale (the rules are fixed: output is always UTF-8).
 */
#ifndef GW_UTF8_UTIL_H
#define GW_UTF8_UTIL_H

#include "util/gw_buf.h"

#include <stddef.h>
#include <stdint.h>

/* Decodes one well-formed UTF-8 sequence at s (n bytes available): returns its length and sets
 * *cp, or 0 when the bytes there are not a well-formed sequence (RFC 3629 table). */
size_t gw_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Appends s[0..n) to out as valid UTF-8 without control characters: each byte that does not
 * start a well-formed sequence (stray continuation bytes, overlong forms, surrogates, code points
 * past U+10FFFF, sequences cut short) becomes U+FFFD; C0 controls, DEL and C1 controls (escape
 * sequences could otherwise drive the terminal) and bidi controls (U+202A-U+202E, U+2066-U+2069,
 * U+200E, U+200F, U+061C, U+2028, U+2029: they reorder what follows) become '?', except that NUL,
 * tab and newline
 * become a space (command-line argument separators). */
void gw_utf8_sanitize(const char *s, size_t n, gw_buf *out);

/* Sanitises src[0..n) into dst (cap bytes, NUL-terminated), cut at a character boundary when it
 * does not fit. Returns the length written. */
size_t gw_utf8_clean(char *dst, size_t cap, const char *src, size_t n);

/* Sanitises buf in place: buf holds at most cap bytes, NUL-terminated or not (an API may fill
 * all of them); it ends NUL-terminated, cut at a character boundary when the sanitised text (a
 * bad byte becomes 3) no longer fits. */
void gw_utf8_clean_buf(char *buf, size_t cap);

/* A newly allocated sanitised copy of the string s (NULL: ""). */
char *gw_utf8_clean_dup(const char *s);

#endif

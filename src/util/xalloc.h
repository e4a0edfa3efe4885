/*
 * xalloc: allocation that cannot fail from the caller's point of view.
 *
 * gpuwatch treats out-of-memory as fatal: these wrappers print one line and abort(), so that no
 * caller needs to check for NULL. Must not: be used for sizes that come from untrusted input
 * without a bound (callers cap those first).
 */
#ifndef GW_XALLOC_H
#define GW_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows an array of count elements of size bytes to at least need elements (doubling). */
void *xgrow(void *p, size_t *count, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A copy of the n bytes at p; never NULL, also for n == 0 (the caller frees it). */
void *xmemdup(const void *p, size_t n);
/* printf into a newly allocated string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with the arguments as a va_list (ap is used up). */
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif

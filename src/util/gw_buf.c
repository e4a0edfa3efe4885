#include "util/gw_buf.h"

#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(gw_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void gw_buf_append(gw_buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void gw_buf_puts(gw_buf *b, const char *s)
{
    gw_buf_append(b, s, strlen(s));
}

void gw_buf_printf(gw_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        gw_buf_append(b, small, (size_t)n);
        return;
    }
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void gw_buf_reset(gw_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void gw_buf_free(gw_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

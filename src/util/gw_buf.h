/*
 * gw_buf: a growable byte buffer for building rows and documents.
 *
 * Owns its bytes (data is always NUL-terminated). Allocation failure aborts (xalloc.h).
 */
#ifndef GW_BUF_H
#define GW_BUF_H

#include <stddef.h>

typedef struct gw_buf {
    char *data;
    size_t len;
    size_t cap;
} gw_buf;

void gw_buf_append(gw_buf *b, const char *s, size_t n);
void gw_buf_puts(gw_buf *b, const char *s);
void gw_buf_printf(gw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forgets the contents, keeping the allocation. */
void gw_buf_reset(gw_buf *b);
void gw_buf_free(gw_buf *b);

#endif

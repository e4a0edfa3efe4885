/* UTF-8 validation and sanitising of untrusted text (see gw_utf8.h). */
#include "util/gw_utf8.h"

#include "util/xalloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

size_t gw_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* nothing past U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if (i > 1 && (s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    *cp = v;
    return len;
}

/* Characters that reorder or split what follows on screen (U+202E shows "exe.txt" as
 * "txt.exe"): the bidi embeddings, overrides, isolates and marks, and the line and paragraph
 * separators. */
static bool bidi_control(uint32_t cp)
{
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

void gw_utf8_sanitize(const char *s, size_t n, gw_buf *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp = 0;
        size_t len = gw_utf8_decode(p + i, n - i, &cp);
        if (len == 0) {
            gw_buf_append(out, REPLACEMENT, 3);
            i++;
            continue;
        }
        if (cp == 0 || cp == '\t' || cp == '\n')
            gw_buf_append(out, " ", 1);
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || bidi_control(cp))
            gw_buf_append(out, "?", 1);
        else
            gw_buf_append(out, s + i, len);
        i += len;
    }
}

char *gw_utf8_clean_dup(const char *s)
{
    gw_buf b = {0};
    gw_utf8_sanitize(s ? s : "", s ? strlen(s) : 0, &b);
    char *out = xstrdup(b.data ? b.data : "");
    gw_buf_free(&b);
    return out;
}

size_t gw_utf8_clean(char *dst, size_t cap, const char *src, size_t n)
{
    if (cap == 0)
        return 0;
    gw_buf b = {0};
    gw_utf8_sanitize(src, n, &b);
    size_t len = b.len < cap - 1 ? b.len : cap - 1;
    /* never cut a character in two: step back over continuation bytes */
    while (len > 0 && len < b.len && ((unsigned char)b.data[len] & 0xC0) == 0x80)
        len--;
    if (len)
        memcpy(dst, b.data, len);
    dst[len] = '\0';
    gw_buf_free(&b);
    return len;
}

void gw_utf8_clean_buf(char *buf, size_t cap)
{
    if (cap == 0)
        return;
    size_t n = strnlen(buf, cap);
    char *copy = xmalloc(n + 1);
    memcpy(copy, buf, n);
    gw_utf8_clean(buf, cap, copy, n);
    free(copy);
}

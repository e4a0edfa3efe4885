/* UTF-8 validation, width and shortening for the live view (see utf8.h). */
#include "view/utf8.h"

#include <stdint.h>
#include <string.h>

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Decodes one well-formed UTF-8 sequence at s (n bytes available): returns its length and sets
 * *cp, or 0 when the bytes there are not a well-formed sequence (RFC 3629 table). */
static size_t decode(const unsigned char *s, size_t n, uint32_t *cp)
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

void gw_utf8_sanitize(const char *s, size_t n, gw_buf *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp = 0;
        size_t len = decode(p + i, n - i, &cp);
        if (len == 0) {
            gw_buf_append(out, REPLACEMENT, 3);
            i++;
            continue;
        }
        if (cp == 0 || cp == '\t' || cp == '\n')
            gw_buf_append(out, " ", 1);
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            gw_buf_append(out, "?", 1);
        else
            gw_buf_append(out, s + i, len);
        i += len;
    }
}

/* Columns of one code point (a small table instead of the locale's wcwidth). */
static int cp_width(uint32_t cp)
{
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0xFEFF ||
        (cp >= 0xFE00 && cp <= 0xFE0F))
        return 0;
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
        (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
        (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
        return 2;
    return 1;
}

/* Steps over one character of valid UTF-8 s (a malformed byte counts as one column). */
static size_t step(const char *s, int *cols)
{
    uint32_t cp = 0;
    size_t len = decode((const unsigned char *)s, strlen(s), &cp);
    if (len == 0) {
        *cols = 1;
        return 1;
    }
    *cols = cp_width(cp);
    return len;
}

int gw_utf8_width(const char *s)
{
    int total = 0, w = 0;
    while (*s) {
        s += step(s, &w);
        total += w;
    }
    return total;
}

int gw_utf8_fit(const char *s, int max_cols, gw_buf *out)
{
    if (max_cols <= 0)
        return 0;
    int width = gw_utf8_width(s);
    if (width <= max_cols) {
        gw_buf_puts(out, s);
        return width;
    }
    int dots = max_cols < 3 ? max_cols : 3;
    int budget = max_cols - dots, used = 0, w = 0;
    while (*s) {
        size_t len = step(s, &w);
        if (used + w > budget)
            break;
        gw_buf_append(out, s, len);
        used += w;
        s += len;
    }
    gw_buf_append(out, "...", (size_t)dots);
    return used + dots;
}

/* UTF-8 validation, width and shortening for the live view (see utf8.h). */
#include "view/utf8.h"
#include "util/gw_utf8.h"

#include <stdint.h>
#include <string.h>

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
    size_t len = gw_utf8_decode((const unsigned char *)s, strlen(s), &cp);
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

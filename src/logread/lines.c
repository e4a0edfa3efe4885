/* Line framing of log files (see lines.h). */
#include "logread/lines.h"

#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t gw_lines_drop_nuls(char *s, size_t n)
{
    char *z = memchr(s, '\0', n);
    if (!z)
        return n;
    size_t w = (size_t)(z - s);
    for (size_t i = w + 1; i < n; i++)
        if (s[i])
            s[w++] = s[i];
    return w;
}

void gw_lines_count_nuls(gw_lines *l, size_t removed)
{
    if (!removed)
        return;
    l->nul_bytes += removed;
    if (l->nul_lines++ == 0)
        l->first_nul_line = l->line_no;
}

ssize_t gw_lines_next(gw_lines *l)
{
    ssize_t n = getline(&l->line, &l->cap, l->f);
    if (n < 0)
        return -1;
    l->line_no++;
    if (l->line_no == 1 && n >= 3 && memcmp(l->line, "\xef\xbb\xbf", 3) == 0) {
        memmove(l->line, l->line + 3, (size_t)n - 2); /* with the terminating NUL */
        n -= 3;
    }
    size_t w = gw_lines_drop_nuls(l->line, (size_t)n);
    if (w != (size_t)n) {
        l->line[w] = '\0';
        gw_lines_count_nuls(l, (size_t)n - w);
        n = (ssize_t)w;
    }
    return n;
}

void gw_lines_free(gw_lines *l)
{
    free(l->line);
    l->line = NULL;
    l->cap = 0;
}

/* Appends code point c as UTF-8. */
static size_t put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xc0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xe0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        o[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    o[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

/* Converts the UTF-16 text of f (after its byte order mark) into a memory stream. */
static FILE *utf16_to_utf8(FILE *f, bool big_endian)
{
    size_t cap = 0, len = 0;
    char *out = NULL;
    unsigned char b[2];
    uint32_t high = 0; /* a pending high surrogate */
    while (fread(b, 1, 2, f) == 2) {
        uint32_t u = big_endian ? (uint32_t)(b[0] << 8 | b[1]) : (uint32_t)(b[1] << 8 | b[0]);
        out = xgrow(out, &cap, len + 8, 1);
        if (u >= 0xd800 && u < 0xdc00) {
            if (high)
                len += put_utf8(out + len, 0xfffd);
            high = u;
            continue;
        }
        if (u >= 0xdc00 && u < 0xe000) {
            u = high ? 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00) : 0xfffd;
            high = 0;
        } else if (high) {
            len += put_utf8(out + len, 0xfffd);
            high = 0;
        }
        len += put_utf8(out + len, u);
    }
    fclose(f);
    if (len == 0) /* fmemopen needs a buffer: an empty file stays empty */
        return fopen("/dev/null", "r");
    /* A stream opened with a NULL buffer owns it (freed by fclose): the text is copied in. */
    FILE *m = fmemopen(NULL, len + 1, "w+");
    if (m) {
        fwrite(out, 1, len, m);
        rewind(m);
    }
    free(out);
    return m;
}

static bool ascii(unsigned char c)
{
    return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\r' || c == '\n';
}

FILE *gw_lines_open_utf8(const char *path, bool *converted)
{
    *converted = false;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_SET) != 0) {
        /* A pipe (`report <(nvidia-smi ...)`, /dev/stdin): read into memory first, since the
         * readers look ahead and rewind (the first line was lost and the file refused). */
        char *buf = NULL;
        size_t n = 0, cap = 0, got;
        do {
            buf = xgrow(buf, &cap, n + 65536, 1);
            got = fread(buf + n, 1, cap - n, f);
            n += got;
        } while (got > 0);
        fclose(f);
        f = fmemopen(NULL, n + 1, "w+"); /* a copy that fclose frees */
        if (f && (fwrite(buf, 1, n, f) != n || fseek(f, 0, SEEK_SET) != 0)) {
            fclose(f);
            f = NULL;
        }
        free(buf);
        if (!f)
            return NULL;
    }
    unsigned char bom[4];
    size_t n = fread(bom, 1, 4, f);
    bool le = n >= 2 && bom[0] == 0xff && bom[1] == 0xfe;
    bool be = n >= 2 && bom[0] == 0xfe && bom[1] == 0xff;
    /* no byte order mark (Windows tools, iconv -t UTF-16LE): two ASCII characters, each with a
     * NUL byte beside it, cannot start UTF-8 text */
    bool le_bare = n == 4 && ascii(bom[0]) && !bom[1] && ascii(bom[2]) && !bom[3];
    bool be_bare = n == 4 && !bom[0] && ascii(bom[1]) && !bom[2] && ascii(bom[3]);
    if (fseek(f, le || be ? 2 : 0, SEEK_SET) != 0 || (!le && !be && !le_bare && !be_bare))
        return f;
    *converted = true;
    return utf16_to_utf8(f, be || be_bare);
}

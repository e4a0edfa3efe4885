/* gw_wrap: long lines wrapped with a hanging indent (gw_wrap.h). */
#include "util/gw_wrap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Bytes of an ANSI CSI sequence starting at s[i] (ESC '[' ... final byte), else 0. */
static size_t csi_len(const char *s, size_t i, size_t n)
{
    if (s[i] != '\033' || i + 1 >= n || s[i + 1] != '[')
        return 0;
    size_t j = i + 2;
    while (j < n && !(s[j] >= 0x40 && s[j] <= 0x7e))
        j++;
    return j < n ? j - i + 1 : n - i;
}

static bool continuation(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

/* The column each byte starts at is computed on the fly; returns the hanging indent. */
static int hang_of(const char *s, size_t n, int width)
{
    int col = 0, lead = -1, gap_end = -1, label_end = -1, spaces = 0;
    for (size_t i = 0; i < n && col < 40; i++) {
        size_t esc = csi_len(s, i, n);
        if (esc) {
            i += esc - 1;
            continue;
        }
        if (continuation((unsigned char)s[i]))
            continue;
        if (s[i] == ' ') {
            spaces++;
        } else {
            if (lead < 0)
                lead = col;
            else if (spaces >= 2)
                gap_end = col;
            if (label_end < 0 && s[i] == ':' && i + 1 < n && s[i + 1] == ' ' && col < 30)
                label_end = col + 2;
            spaces = 0;
        }
        col++;
    }
    if (lead <= 0) /* prose: a paragraph, no hanging indent ("Exit status: ...") */
        return gap_end >= 0 && gap_end <= width / 2 ? gap_end : 0;
    int hang = gap_end >= 0 ? gap_end : label_end >= 0 ? label_end : lead + 2;
    return hang > width / 2 ? lead + 2 : hang;
}

/* Whether the space at s[i] joins a number to its unit ("100 %", "70618 MiB;"): no break there. */
static bool number_unit(const char *s, size_t i, size_t n)
{
    static const char *const units[] = {"%", "MiB", "GiB", "KiB", "W", "C",
                                        "s", "ms",  "MHz", "Wh",  "J"};
    if (i == 0 || s[i - 1] < '0' || s[i - 1] > '9')
        return false;
    size_t e = i + 1;
    while (e < n && s[e] != ' ')
        e++;
    while (e > i + 1 && strchr(")],;:.", s[e - 1]))
        e--;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (e - (i + 1) == strlen(units[u]) && memcmp(s + i + 1, units[u], e - (i + 1)) == 0)
            return true;
    return false;
}

static void pad(FILE *out, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', out);
}

/* hang < 0: computed from the line (hang_of) when it needs a second line. */
static void wrap_line(FILE *out, const char *s, size_t n, int width, int hang)
{
    int indent = 0;
    size_t start = 0; /* first byte not yet written */
    for (;;) {
        /* the last break before the width (outside [...] when there is one: a synopsis keeps
         * "[-i ID]" together), the first byte past the width */
        size_t brk = 0, brk_any = 0, over = n;
        int col = indent, depth = 0;
        for (size_t i = start; i < n; i++) {
            size_t esc = csi_len(s, i, n);
            if (esc) {
                i += esc - 1;
                continue;
            }
            if (continuation((unsigned char)s[i]))
                continue;
            depth += s[i] == '[' ? 1 : s[i] == ']' && depth > 0 ? -1 : 0;
            if (s[i] == ' ' && i > start && s[i - 1] != ' ' && !number_unit(s, i, n)) {
                brk_any = i;
                if (depth == 0)
                    brk = i;
            }
            if (++col > width) {
                over = i;
                break;
            }
        }
        size_t end = n;
        if (over < n) {
            end = brk ? brk : brk_any;
            /* a short lead-in stays with the word after it ("input /a/long/path") */
            size_t lead = start, we = end + 1;
            while (lead < end && s[lead] == ' ')
                lead++;
            while (we < n && s[we] != ' ')
                we++;
            if (end > lead && end - lead < 8)
                end = we;
            if (!brk) { /* one word wider than the line: keep it whole */
                end = over;
                while (end < n && s[end] != ' ')
                    end++;
            }
        }
        fwrite(s + start, 1, end - start, out);
        start = end;
        while (start < n && s[start] == ' ')
            start++;
        if (start >= n)
            return;
        fputc('\n', out);
        if (hang < 0)
            hang = hang_of(s, n, width);
        pad(out, hang);
        indent = hang;
    }
}

void gw_wrap_write(FILE *out, const char *text, size_t len, int width)
{
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        wrap_line(out, text + i, end - i, width, -1);
        if (nl)
            fputc('\n', out);
        i = end + 1;
    }
}

/* Leading spaces of the line at s (n bytes), n when it is blank. */
static size_t lead_of(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    return i;
}

void gw_wrap_reflow(FILE *out, const char *text, size_t len, int width)
{
    char *para = malloc(len + 1);
    if (!para) {
        gw_wrap_write(out, text, len, width);
        return;
    }
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t n = end - i;
        memcpy(para, text + i, n);
        int hang = -1;
        /* continuation lines: indented 8 or more, not an option, under a line that is not blank;
         * under prose (no indent), also unindented lines that do not start a sentence */
        bool prose = lead_of(para, n) == 0;
        while (nl && lead_of(para, n) < n) {
            size_t j = end + 1;
            const char *nl2 = memchr(text + j, '\n', len - j);
            size_t end2 = nl2 ? (size_t)(nl2 - text) : len;
            size_t lead = lead_of(text + j, end2 - j);
            bool goes_on = (lead >= 8 && lead < end2 - j && text[j + lead] != '-') ||
                           (prose && lead == 0 && j < end2 && !(text[j] >= 'A' && text[j] <= 'Z'));
            if (!goes_on)
                break;
            if (hang < 0 && lead > 0)
                hang = (int)lead;
            para[n++] = ' ';
            memcpy(para + n, text + j + lead, end2 - j - lead);
            n += end2 - j - lead;
            end = end2;
            nl = nl2;
        }
        wrap_line(out, para, n, width, hang);
        if (nl)
            fputc('\n', out);
        i = end + 1;
    }
    free(para);
}

void gw_wrap_puts(const char *text, FILE *out)
{
    gw_wrap_reflow(out, text, strlen(text), GW_WRAP_WIDTH);
}

int gw_wrap_width_of(FILE *out)
{
    struct winsize ws;
    int fd = fileno(out);
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= GW_WRAP_MIN)
        return ws.ws_col;
    return GW_WRAP_WIDTH;
}

static FILE *begin(gw_wrap_stream *w, FILE *out, bool always)
{
    w->out = out;
    w->buf = NULL;
    w->len = 0;
    w->width = gw_wrap_width_of(out);
    w->mem = always || isatty(fileno(out)) ? open_memstream(&w->buf, &w->len) : NULL;
    return w->mem ? w->mem : out;
}

FILE *gw_wrap_begin(gw_wrap_stream *w, FILE *out)
{
    return begin(w, out, false);
}

FILE *gw_wrap_begin_always(gw_wrap_stream *w, FILE *out)
{
    return begin(w, out, true);
}

void gw_wrap_end(gw_wrap_stream *w)
{
    if (!w->mem)
        return;
    fclose(w->mem);
    w->mem = NULL;
    gw_wrap_write(w->out, w->buf, w->len, w->width);
    fflush(w->out);
    free(w->buf);
    w->buf = NULL;
}

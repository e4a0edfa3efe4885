/* output.log cleaned: bar redraws collapsed, lines with their times (see outclean.h). */
#include "logread/outclean.h"

#include "util/gw_buf.h"
#include "util/gw_file.h"
#include "util/gw_utf8.h"
#include "util/line_split.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 65536, SEGMENT_MAX = 1 << 20 }; /* a redraw longer than 1 MiB is cut */

typedef struct clean {
    gw_buf seg, keep;        /* the redraw being read; the line's last non-blank redraw */
    gw_buf safe;             /* keep, sanitised for delivery */
    int64_t seg_ms, keep_ms; /* when their last character arrived */
    bool open;               /* bytes of a line not yet delivered */
    int esc;                 /* util/line_split.h's gw_esc_step state */
    gw_outclean_fn fn;
    void *ctx;
} clean;

static bool blank(const gw_buf *b)
{
    for (size_t i = 0; i < b->len; i++)
        if (b->data[i] != ' ' && b->data[i] != '\t')
            return false;
    return true;
}

static void end_redraw(clean *c)
{
    if (c->seg.len && !blank(&c->seg)) {
        gw_buf t = c->keep;
        c->keep = c->seg;
        c->seg = t;
        c->keep_ms = c->seg_ms;
    }
    gw_buf_reset(&c->seg);
}

static void end_line(clean *c, int64_t ms)
{
    end_redraw(c);
    /* the job's bytes, shown on a terminal: C0 and C1 controls, bidi controls and invalid UTF-8
     * are made safe by util/gw_utf8.h's one rule */
    gw_buf_reset(&c->safe);
    gw_utf8_sanitize(c->keep.data ? c->keep.data : "", c->keep.len, &c->safe);
    /* a line of blank redraws only (an empty line) is as old as its line end */
    c->fn(c->ctx, c->safe.len ? c->safe.data : "", c->safe.len, c->keep.len ? c->keep_ms : ms);
    gw_buf_reset(&c->keep);
    c->open = false;
}

/* Where the next line end, carriage return and escape are in the chunk being read: found by
 * memchr (vectorised) over the whole chunk, and looked for again only once passed, so plain text
 * is scanned once however finely output.idx cuts the chunk. */
typedef struct marks {
    const char *nl, *cr, *esc; /* NULL: none from there to the chunk's end */
    const char *end;           /* the chunk's end */
} marks;

static void marks_init(marks *m, const char *chunk, size_t n)
{
    m->nl = memchr(chunk, '\n', n);
    m->cr = memchr(chunk, '\r', n);
    m->esc = memchr(chunk, 0x1b, n);
    m->end = chunk + n;
}

/* The next byte b at or after p (*at: the last one found); NULL when none in the chunk. */
static const char *next_of(const char **at, const char *p, const char *end, int b)
{
    if (*at && *at < p)
        *at = memchr(p, b, (size_t)(end - p));
    return *at;
}

/* Feeds data[0..n), a piece of m's chunk whose bytes arrived at ms. */
static void feed(clean *c, const char *data, size_t n, int64_t ms, marks *m)
{
    const char *p = data, *end = data + n;
    while (p < end) {
        if (c->esc == GW_ESC_NONE) {
            const char *q = end, *x;
            if ((x = next_of(&m->nl, p, m->end, '\n')) && x < q)
                q = x;
            if ((x = next_of(&m->cr, p, m->end, '\r')) && x < q)
                q = x;
            if ((x = next_of(&m->esc, p, m->end, 0x1b)) && x < q)
                q = x;
            if (q > p) { /* a run of plain bytes, appended at once */
                c->open = true;
                size_t len = (size_t)(q - p);
                size_t room = c->seg.len < SEGMENT_MAX ? SEGMENT_MAX - c->seg.len : 0;
                if (len > room)
                    len = room;
                if (len) {
                    gw_buf_append(&c->seg, p, len);
                    c->seg_ms = ms;
                }
                p = q;
                continue;
            }
        }
        unsigned char ch = (unsigned char)*p++;
        c->open = true;
        if (!gw_esc_step(&c->esc, ch))
            continue;
        if (ch == '\n') {
            end_line(c, ms);
        } else if (ch == '\r') {
            end_redraw(c);
        } else if (c->seg.len < SEGMENT_MAX) {
            gw_buf_append(&c->seg, (const char *)&ch, 1);
            c->seg_ms = ms;
        }
    }
}

/* Unsigned decimal of at most 18 digits at *s; advances *s. */
static bool digits(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;
    while (*p >= '0' && *p <= '9' && p - *s < 18)
        x = x * 10 + (uint64_t)(*p++ - '0');
    if (p == *s || (*p >= '0' && *p <= '9'))
        return false;
    *s = p;
    *v = x;
    return true;
}

/* "OFFSET MS" as gpuwatch run writes it, parsed by hand (sscanf was a third of `gpuwatch log`'s
 * time on a log of redraws, issue 28); anything else goes to sscanf, which decides as before. */
static bool parse_entry(const char *line, uint64_t *off, int64_t *ms)
{
    const char *p = line;
    uint64_t o, m;
    if (digits(&p, &o) && *p == ' ') {
        p++;
        bool neg = *p == '-';
        p += neg;
        if (digits(&p, &m) && *p == '\0') {
            *off = o;
            *ms = neg ? -(int64_t)m : (int64_t)m;
            return true;
        }
    }
    return sscanf(line, "%" SCNu64 " %" SCNd64, off, ms) == 2;
}

/* output.idx read in blocks; lines cut in place (getline was a cost per entry, issue 28). */
typedef struct idx_reader {
    FILE *f;
    char *buf;
    size_t cap, pos, len; /* unread bytes are buf[pos..len) */
} idx_reader;

/* The next line, NUL-terminated in place without its '\n'; NULL at the end. */
static char *idx_line(idx_reader *r)
{
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        if (nl) {
            char *line = r->buf + r->pos;
            *nl = '\0';
            r->pos = (size_t)(nl - r->buf) + 1;
            return line;
        }
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        if (r->len + 1 >= r->cap) { /* one line longer than the buffer: it grows */
            r->cap *= 2;
            r->buf = xrealloc(r->buf, r->cap);
        }
        size_t got = fread(r->buf + r->len, 1, r->cap - 1 - r->len, r->f);
        if (got == 0) { /* the end: a last line without '\n' still counts */
            if (r->len == 0)
                return NULL;
            r->buf[r->len] = '\0';
            r->pos = r->len;
            return r->buf;
        }
        r->len += got;
    }
}

/* The next "OFFSET MS" entry of output.idx (its header lines start with '#'). */
static bool next_entry(idx_reader *idx, uint64_t *off, int64_t *ms)
{
    char *line;
    while (idx->f && (line = idx_line(idx)) != NULL)
        if (line[0] != '#' && parse_entry(line, off, ms))
            return true;
    return false;
}

gw_rc gw_outclean_read(const char *log_path, const char *idx_path, gw_outclean_fn fn, void *ctx,
                       gw_error *err)
{
    /* regular files only: a FIFO would block forever, /dev/zero never end */
    FILE *idx = NULL;
    if (idx_path && !(idx = gw_file_open_run_file(idx_path, "r", err)))
        return GW_E_IO;
    FILE *log = gw_file_open_run_file(log_path, "rb", err);
    if (!log) {
        if (idx)
            fclose(idx);
        return GW_E_IO;
    }
    clean c = {.fn = fn, .ctx = ctx};
    char *buf = xmalloc(CHUNK);
    idx_reader ir = {.f = idx, .buf = xmalloc(CHUNK), .cap = CHUNK};
    uint64_t pos = 0, next_off = 0, off0 = 0;
    int64_t ms = 0, next_ms = 0;
    next_entry(&ir, &off0, &ms); /* bytes before the first entry: its time */
    bool more = next_entry(&ir, &next_off, &next_ms);
    gw_rc rc = GW_OK;
    while (more && next_off == 0) { /* entries at offset 0 after the first (pos is 0) */
        ms = next_ms;
        more = next_entry(&ir, &next_off, &next_ms);
    }
    for (;;) {
        size_t got = fread(buf, 1, CHUNK, log);
        if (got == 0) {
            if (ferror(log))
                rc = gw_error_set(err, GW_E_IO, "%s: %s", log_path, strerror(errno));
            break;
        }
        /* the chunk in pieces, each up to the next entry's offset: its bytes arrived at ms */
        marks m;
        marks_init(&m, buf, got);
        for (size_t i = 0; i < got;) {
            size_t take = got - i;
            if (more && next_off - pos < take)
                take = (size_t)(next_off - pos);
            feed(&c, buf + i, take, ms, &m);
            pos += take;
            i += take;
            while (more && pos >= next_off) { /* bytes from next_off on arrived at next_ms */
                ms = next_ms;
                more = next_entry(&ir, &next_off, &next_ms);
            }
        }
    }
    if (!rc && c.open)
        end_line(&c, ms);
    gw_buf_free(&c.seg);
    gw_buf_free(&c.keep);
    gw_buf_free(&c.safe);
    free(buf);
    free(ir.buf);
    fclose(log);
    if (idx)
        fclose(idx);
    return rc;
}

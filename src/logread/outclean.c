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
enum { BLOCK = 4 << 20 };                      /* bytes of the log read at a time */

struct timeline;

typedef struct clean {
    gw_buf seg, keep;           /* the redraw being read; the line's last non-blank redraw */
    gw_buf safe;                /* keep, sanitised for delivery */
    uint64_t seg_end, keep_end; /* the log offset of their last character: its time is looked up
                                   only when the line is delivered */
    bool open;                  /* bytes of a line not yet delivered */
    int esc;                    /* util/line_split.h's gw_esc_step state */
    struct timeline *tl;        /* output.idx, or NULL */
    gw_outclean_fn fn;
    void *ctx;
} clean;

static int64_t ms_at(struct timeline *tl, uint64_t off);

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
        c->keep_end = c->seg_end;
    }
    gw_buf_reset(&c->seg);
}

/* The line ending at log offset nl (its '\n', or the log's end) is complete. */
static void end_line(clean *c, uint64_t nl)
{
    end_redraw(c);
    /* the job's bytes, shown on a terminal: C0 and C1 controls, bidi controls and invalid UTF-8
     * are made safe by util/gw_utf8.h's one rule */
    gw_buf_reset(&c->safe);
    gw_utf8_sanitize(c->keep.data ? c->keep.data : "", c->keep.len, &c->safe);
    /* a line of blank redraws only (an empty line) is as old as its line end */
    int64_t ms = c->tl ? ms_at(c->tl, c->keep.len ? c->keep_end : nl) : 0;
    c->fn(c->ctx, c->safe.len ? c->safe.data : "", c->safe.len, ms);
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

/* Feeds data[0..n), m's chunk, which starts at log offset base. */
static void feed(clean *c, const char *data, size_t n, uint64_t base, marks *m)
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
                    c->seg_end = base + (uint64_t)(p - data) + len - 1;
                }
                p = q;
                continue;
            }
        }
        unsigned char ch = (unsigned char)*p++;
        c->open = true;
        if (!gw_esc_step(&c->esc, ch))
            continue;
        uint64_t at = base + (uint64_t)(p - 1 - data);
        if (ch == '\n') {
            end_line(c, at);
        } else if (ch == '\r') {
            end_redraw(c);
        } else if (c->seg.len < SEGMENT_MAX) {
            gw_buf_append(&c->seg, (const char *)&ch, 1);
            c->seg_end = at;
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

/* output.idx as a function of the log offset, asked with offsets that never go back. */
typedef struct timeline {
    idx_reader r;
    int64_t ms;        /* the time of the entries applied so far */
    bool more;         /* next_off/next_ms hold the next entry */
    uint64_t next_off; /* bytes from next_off on arrived at next_ms */
    int64_t next_ms;
} timeline;

/* The start of the first whole line after byte at of the block and before hi; 0 when none. */
static size_t line_after(const idx_reader *r, size_t at, size_t hi)
{
    const char *nl = memchr(r->buf + at, '\n', hi - at);
    return nl && (size_t)(nl + 1 - r->buf) < hi ? (size_t)(nl + 1 - r->buf) : 0;
}

/* Whether the whole line at ls is an entry at or before off. */
static bool entry_at_or_before(idx_reader *r, size_t ls, uint64_t off)
{
    char *nl = memchr(r->buf + ls, '\n', r->len - ls);
    if (!nl)
        return false;
    uint64_t o;
    int64_t ms;
    *nl = '\0';
    bool yes = r->buf[ls] != '#' && parse_entry(r->buf + ls, &o, &ms) && o <= off;
    *nl = '\n';
    return yes;
}

/* Entries come in offset order (gpuwatch run appends them), so every entry before one at or
 * before off is too, and only the last of them counts: the block's unread lines are skipped to
 * it by galloping then bisecting, a few parses instead of one per entry (a bar redraws hundreds
 * of times per line delivered). The entry skipped to is read next, as usual. */
static void skip_entries(timeline *tl, uint64_t off)
{
    idx_reader *r = &tl->r;
    size_t lo = r->pos, hi = r->len, step = 256;
    for (;;) { /* gallop: a plain log asks for the very next entry, one probe */
        size_t ls = lo + step < hi ? line_after(r, lo + step, hi) : 0;
        if (!ls || !entry_at_or_before(r, ls, off)) {
            hi = lo + step < hi ? lo + step : hi;
            break;
        }
        r->pos = lo = ls;
        step *= 2;
    }
    while (hi - lo > 256) {
        size_t ls = line_after(r, lo + (hi - lo) / 2, hi);
        if (ls && entry_at_or_before(r, ls, off))
            r->pos = lo = ls;
        else
            hi = lo + (hi - lo) / 2;
    }
}

static int64_t ms_at(timeline *tl, uint64_t off)
{
    while (tl->more && tl->next_off <= off) {
        tl->ms = tl->next_ms;
        skip_entries(tl, off);
        tl->more = next_entry(&tl->r, &tl->next_off, &tl->next_ms);
    }
    return tl->ms;
}

/* The text of one redraw [s, e) (no line end inside; it starts outside any escape sequence,
 * since a line end ends any) into c->seg, as feed() would append it; s is at log offset off. */
static void redraw_text(clean *c, const char *s, const char *e, uint64_t off)
{
    int esc = GW_ESC_NONE;
    gw_buf_reset(&c->seg);
    for (const char *p = s; p < e; p++) {
        if (!gw_esc_step(&esc, (unsigned char)*p) || c->seg.len >= SEGMENT_MAX)
            continue;
        gw_buf_append(&c->seg, p, 1);
        c->seg_end = off + (uint64_t)(p - s);
    }
}

/* A whole line [s, e), e at its '\n', s at log offset off, with nothing of it fed before: only
 * its last redraw that is not blank matters, so redraws are read back from the end instead of
 * every one from the start (a bar redraws hundreds of times a line: reading them all was most of
 * `gpuwatch log`'s time, issue 28). The same line as feed() makes of it. */
static void whole_line(clean *c, const char *s, const char *e, uint64_t off)
{
    for (const char *end = e;;) {
        const char *cr = memrchr(s, '\r', (size_t)(end - s));
        const char *start = cr ? cr + 1 : s;
        redraw_text(c, start, end, off + (uint64_t)(start - s));
        if (c->seg.len && !blank(&c->seg)) {
            end_redraw(c); /* kept */
            break;
        }
        if (!cr)
            break;
        end = cr;
    }
    gw_buf_reset(&c->seg);
    end_line(c, off + (uint64_t)(e - s));
}

/* Reads the log in blocks of BLOCK: whole lines in a block go to whole_line; a line longer than
 * a block is fed byte stream by byte stream (feed) until its end, in bounded memory. */
static gw_rc read_lines(clean *c, FILE *log, const char *log_path, gw_error *err)
{
    char *buf = xmalloc(BLOCK);
    size_t len = 0;
    uint64_t base = 0; /* the log offset of buf[0] */
    bool streaming = false;
    gw_rc rc = GW_OK;
    for (;;) {
        size_t got = fread(buf + len, 1, BLOCK - len, log);
        if (got == 0 && ferror(log)) {
            rc = gw_error_set(err, GW_E_IO, "%s: %s", log_path, strerror(errno));
            break;
        }
        len += got;
        size_t p = 0;
        if (streaming) {
            const char *nl = memchr(buf, '\n', len);
            size_t n = nl ? (size_t)(nl - buf) + 1 : len;
            marks m;
            marks_init(&m, buf, n);
            feed(c, buf, n, base, &m);
            p = n;
            streaming = nl == NULL;
        }
        const char *nl;
        while (!streaming && (nl = memchr(buf + p, '\n', len - p)) != NULL) {
            whole_line(c, buf + p, nl, base + p);
            p = (size_t)(nl - buf) + 1;
        }
        if (got == 0 || (!streaming && p == 0 && len == BLOCK)) {
            /* the end (a last line without '\n'), or a line longer than a block */
            marks m;
            marks_init(&m, buf + p, len - p);
            feed(c, buf + p, len - p, base + p, &m);
            p = len;
            streaming = got != 0;
        }
        memmove(buf, buf + p, len - p);
        base += p;
        len -= p;
        if (got == 0)
            break;
    }
    if (!rc && c->open)
        end_line(c, base + len);
    free(buf);
    return rc;
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
    timeline tl = {.r = {.f = idx, .buf = xmalloc(CHUNK), .cap = CHUNK}};
    uint64_t off0 = 0;
    if (idx) {
        next_entry(&tl.r, &off0, &tl.ms); /* bytes before the first entry: its time */
        tl.more = next_entry(&tl.r, &tl.next_off, &tl.next_ms);
        c.tl = &tl;
    }
    gw_rc rc = read_lines(&c, log, log_path, err);
    gw_buf_free(&c.seg);
    gw_buf_free(&c.keep);
    gw_buf_free(&c.safe);
    free(tl.r.buf);
    fclose(log);
    if (idx)
        fclose(idx);
    return rc;
}

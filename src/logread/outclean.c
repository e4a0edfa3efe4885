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

static void feed(clean *c, const char *data, size_t n, int64_t ms)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)data[i];
        c->open = true;
        if (!gw_esc_step(&c->esc, ch))
            continue;
        if (ch == '\n') {
            end_line(c, ms);
        } else if (ch == '\r') {
            end_redraw(c);
        } else if (c->seg.len < SEGMENT_MAX) {
            gw_buf_append(&c->seg, (const char *)&data[i], 1);
            c->seg_ms = ms;
        }
    }
}

/* The next "OFFSET MS" entry of output.idx (its header lines start with '#'). */
static bool next_entry(FILE *idx, char **line, size_t *cap, uint64_t *off, int64_t *ms)
{
    while (idx && getline(line, cap, idx) >= 0)
        if ((*line)[0] != '#' && sscanf(*line, "%" SCNu64 " %" SCNd64, off, ms) == 2)
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
    char *line = NULL, *buf = xmalloc(CHUNK);
    size_t cap = 0;
    uint64_t pos = 0, next_off = 0, off0 = 0;
    int64_t ms = 0, next_ms = 0;
    next_entry(idx, &line, &cap, &off0, &ms); /* bytes before the first entry: its time */
    bool more = next_entry(idx, &line, &cap, &next_off, &next_ms);
    gw_rc rc = GW_OK;
    for (;;) {
        size_t want = CHUNK;
        if (more && next_off - pos < want)
            want = (size_t)(next_off - pos);
        size_t got = want ? fread(buf, 1, want, log) : 0;
        if (want && got == 0) {
            if (ferror(log))
                rc = gw_error_set(err, GW_E_IO, "%s: %s", log_path, strerror(errno));
            break;
        }
        feed(&c, buf, got, ms);
        pos += got;
        while (more && pos >= next_off) { /* bytes from next_off on arrived at next_ms */
            ms = next_ms;
            more = next_entry(idx, &line, &cap, &next_off, &next_ms);
        }
    }
    if (!rc && c.open)
        end_line(&c, ms);
    gw_buf_free(&c.seg);
    gw_buf_free(&c.keep);
    gw_buf_free(&c.safe);
    free(buf);
    free(line);
    fclose(log);
    if (idx)
        fclose(idx);
    return rc;
}

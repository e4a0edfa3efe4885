/* The tracker's life (progress.h): made, fed line by line with each launcher's prefix taken off
 * (logread/line_prefix.h), freed. The reading of a line is progress.c's. */
#include "logread/progress.h"
#include "logread/progress_priv.h"

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void init(gw_progress *p, const gw_epoch_matcher *user, gw_epoch_matcher *dflt)
{
    p->user = user;
    p->dflt = dflt;
    p->zero_based = -1;
    p->train_total = -1;
    p->last_raw = -1;
    p->first_ms = INT64_MIN;
    p->tl = gw_timeline_new();
    p->etl = gw_timeline_new();
}

gw_progress *gw_progress_new(const gw_epoch_matcher *user)
{
    gw_progress *p = xcalloc(1, sizeof *p);
    gw_epoch_matcher *dflt = NULL;
    gw_error err = {0};
    if (!user && gw_epoch_matcher_new(NULL, &dflt, &err))
        dflt = NULL; /* the default always compiles */
    init(p, user, dflt);
    return p;
}

static void free_parts(gw_progress *p)
{
    free(p->st);
    free(p->sm);
    free(p->vr);
    free(p->hf);
    gw_timeline_free(p->tl);
    gw_timeline_free(p->etl);
}

void gw_progress_free(gw_progress *p)
{
    if (!p)
        return;
    gw_epoch_matcher_free(p->dflt);
    free_parts(p);
    free(p);
}

void gw_progress_restart(gw_progress *p)
{
    gw_line_prefix keep = p->prefix;
    size_t lines = p->lines;
    int64_t first_ms = p->first_ms, last_ms = p->last_ms;
    const gw_epoch_matcher *user = p->user;
    gw_epoch_matcher *dflt = p->dflt;
    free_parts(p);
    memset(p, 0, sizeof *p);
    init(p, user, dflt);
    p->prefix = keep;
    p->lines = lines;
    p->first_ms = first_ms; /* the output's first line and latest line stay what they were */
    p->last_ms = last_ms;
}

static bool feed_one(gw_progress *p, const char *line, int64_t t_ms, long *epoch, long *total);

/* CloudWatch's and syslog's `#015` for a carriage return inside a line: each redraw a line of
 * its own (what follows the last one is the one on screen). */
bool gw_progress_feed(gw_progress *p, const char *line, int64_t t_ms, long *epoch, long *total)
{
    const char *cr = strstr(line, "#015");
    if (!cr)
        return feed_one(p, line, t_ms, epoch, total);
    bool started = false;
    char piece[4096];
    for (const char *s = line; s;) {
        const char *e = strstr(s, "#015");
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n >= sizeof piece)
            n = sizeof piece - 1;
        memcpy(piece, s, n);
        piece[n] = '\0';
        if (n)
            started |= feed_one(p, piece, t_ms, epoch, total);
        s = e ? e + 4 : NULL;
    }
    return started;
}

static bool feed_one(gw_progress *p, const char *line, int64_t t_ms, long *epoch, long *total)
{
    bool had_label = p->prefix.label[0] != '\0';
    const char *s = gw_line_prefix_skip(&p->prefix, line);
    if (p->lines++ == 0 && strlen(line) < sizeof p->first_line) {
        strcpy(p->first_line, line);
        p->first_line_ms = t_ms;
    }
    /* a label repeated from the job's first line on ("0: " of srun --label): the first line was
     * read with its label; read again without */
    if (!had_label && p->prefix.label[0] && p->lines == 2 && p->first_line[0]) {
        char first[sizeof p->first_line];
        int64_t first_ms = p->first_line_ms;
        memcpy(first, p->first_line, sizeof first);
        gw_progress_restart(p);
        const char *f = gw_line_prefix_skip(&p->prefix, first);
        gw_progress_feed_line(p, f, first_ms, NULL, NULL);
    }
    return gw_progress_feed_line(p, s, t_ms, epoch, total);
}

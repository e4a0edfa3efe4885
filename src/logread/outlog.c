/* A job's output with its index: every line at the time it arrived (see logread.h). */
#include "logread/logread.h"

#include "util/line_split.h"
#include "util/gw_file.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CHUNK = 65536 };

char *gw_logread_index_path(const char *log_path)
{
    size_t n = strlen(log_path);
    if (n > 4 && strcmp(log_path + n - 4, ".log") == 0)
        return xasprintf("%.*s.idx", (int)(n - 4), log_path);
    return xasprintf("%s.idx", log_path);
}

typedef struct feed_ctx {
    gw_progress *p;
    size_t lines;
    int64_t last_ms;
} feed_ctx;

static void on_line(void *ctx, const char *line, int64_t wall_ms)
{
    feed_ctx *c = ctx;
    gw_progress_feed(c->p, line, wall_ms, NULL, NULL);
    c->lines++;
    c->last_ms = wall_ms;
}

/* The next "OFFSET MS" entry; header lines ("# key: value") give the epoch regex the run used. */
static bool next_entry(FILE *idx, char **line, size_t *cap, uint64_t *off, int64_t *ms,
                       char **regex)
{
    while (getline(line, cap, idx) >= 0) {
        char *l = *line;
        if (l[0] == '#') {
            static const char key[] = "# epoch-regex: ";
            if (regex && !*regex && strncmp(l, key, sizeof key - 1) == 0) {
                l[strcspn(l, "\n")] = '\0';
                *regex = xstrdup(l + sizeof key - 1);
            }
            continue;
        }
        if (sscanf(l, "%" SCNu64 " %" SCNd64, off, ms) == 2)
            return true;
    }
    return false;
}

void gw_logread_keep_epochs(gw_series *s, size_t input, gw_progress *p)
{
    gw_progress_epoch *e = NULL;
    size_t n = gw_progress_finish(p, &e);
    s->progress = xrealloc(s->progress, (s->nprogress + n + 1) * sizeof *s->progress);
    for (size_t i = 0; i < n; i++) {
        s->progress[s->nprogress++] = (gw_series_epoch){.input = input, .e = e[i]};
        if (s->inputs[input].kind != GW_INPUT_TRAIN_LOG)
            continue; /* a run's own epoch events are in its events.jsonl */
        gw_series_event *ev = gw_series_add_event(s, input, e[i].start_ms, "epoch", "");
        ev->epoch = e[i].number;
        ev->total = e[i].total;
    }
    free(e);
    gw_phase_span *ph = NULL;
    size_t nph = gw_progress_phases(p, &ph);
    s->phases = xrealloc(s->phases, (s->nphases + nph + 1) * sizeof *s->phases);
    if (nph)
        memcpy(s->phases + s->nphases, ph, nph * sizeof *ph);
    s->nphases += nph;
    free(ph);
    char found[512];
    gw_progress_found(p, found, sizeof found);
    if (!s->phases_found ||
        (!s->phases_found[0] || strcmp(s->phases_found, "no phases found") == 0)) {
        free(s->phases_found);
        s->phases_found = xstrdup(found);
    }
    gw_progress_rate *r = NULL;
    size_t nr = gw_progress_rates(p, &r);
    s->rate_t_ms = xrealloc(s->rate_t_ms, (s->nrates + nr + 1) * sizeof *s->rate_t_ms);
    s->rate_steps_per_s =
        xrealloc(s->rate_steps_per_s, (s->nrates + nr + 1) * sizeof *s->rate_steps_per_s);
    for (size_t i = 0; i < nr; i++) {
        /* in time order over all inputs (one chart line): insert from the end */
        size_t k = s->nrates++;
        while (k > 0 && s->rate_t_ms[k - 1] > r[i].t_ms) {
            s->rate_t_ms[k] = s->rate_t_ms[k - 1];
            s->rate_steps_per_s[k] = s->rate_steps_per_s[k - 1];
            k--;
        }
        s->rate_t_ms[k] = r[i].t_ms;
        s->rate_steps_per_s[k] = r[i].steps_per_s;
    }
    free(r);
}

gw_rc gw_logread_output(gw_series *s, size_t input, const char *log_path, const char *idx_path,
                        const gw_epoch_matcher *m, int64_t *last_ms, gw_error *err)
{
    /* regular files only: a FIFO would block forever, /dev/zero never end */
    FILE *idx = gw_file_open_run_file(idx_path, "r", err);
    if (!idx)
        return GW_E_IO;
    FILE *log = gw_file_open_run_file(log_path, "rb", err);
    if (!log) {
        fclose(idx);
        return GW_E_IO;
    }
    char *line = NULL, *regex = NULL;
    size_t cap = 0;
    uint64_t off = 0, next_off = 0; /* the first entry's offset is 0: bytes are read in order */
    int64_t ms = 0, next_ms = 0;
    bool have = next_entry(idx, &line, &cap, &off, &ms, m ? NULL : &regex);
    gw_epoch_matcher *own = NULL;
    gw_rc rc = GW_OK;
    if (regex && gw_epoch_matcher_new(regex, &own, err))
        rc = GW_E_FORMAT; /* the run's own --epoch-regex no longer compiles: say so */
    feed_ctx c = {.p = gw_progress_new(m ? m : own)};
    gw_line_splitter ls = {.fn = on_line, .ctx = &c};
    char *buf = xmalloc(CHUNK);
    uint64_t pos = 0;
    while (!rc && have) {
        bool more = next_entry(idx, &line, &cap, &next_off, &next_ms, NULL);
        /* bytes [off, next_off) arrived at ms; the last entry runs to the end of the file */
        while (!more || pos < next_off) {
            size_t want = CHUNK;
            if (more && next_off - pos < want)
                want = (size_t)(next_off - pos);
            size_t got = fread(buf, 1, want, log);
            if (got == 0)
                break;
            gw_line_splitter_feed(&ls, buf, got, ms);
            pos += got;
        }
        if (!more)
            break;
        ms = next_ms;
    }
    gw_line_splitter_finish(&ls, ms);
    s->inputs[input].rows += c.lines;
    if (!rc)
        gw_logread_keep_epochs(s, input, c.p);
    if (last_ms)
        *last_ms = c.last_ms;
    gw_progress_free(c.p);
    gw_epoch_matcher_free(own);
    free(buf);
    free(regex);
    free(line);
    fclose(log);
    fclose(idx);
    return rc;
}

/* Training log reader: the job's output -> "epoch" events and epochs (see logread.h). */
#include "logread/logread.h"
#include "logread/timeparse.h"

#include "util/gw_time.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Handles one line; returns true when it started with a time. */
static bool timed_line(gw_progress *p, char *line, int64_t *first_ms, int64_t *last_ms)
{
    char *s = line + strspn(line, " \t");
    bool bracket = *s == '[';
    int64_t t_ms;
    size_t n = gw_timeparse(s + bracket, &t_ms);
    if (n == 0)
        return false;
    char *text = s + bracket + n;
    if (bracket && *text == ']')
        text++;
    text += strspn(text, " \t:-|");
    if (*first_ms == INT64_MIN || t_ms < *first_ms)
        *first_ms = t_ms;
    *last_ms = t_ms;
    gw_progress_feed(p, text, t_ms, NULL, NULL);
    return true;
}

static gw_rc timed_log(gw_series *s, size_t input, FILE *f, const gw_epoch_matcher *m,
                       int64_t *first_ms, int64_t *last_ms)
{
    gw_series_input *in = &s->inputs[input];
    gw_progress *p = gw_progress_new(m);
    char *line = NULL;
    size_t cap = 0;
    /* getline splits at LF; progress bars redraw with CR, so each CR piece is a line too. */
    while (getline(&line, &cap, f) >= 0) {
        for (char *piece = line, *cr; piece; piece = cr) {
            cr = strpbrk(piece, "\r\n");
            if (cr)
                *cr++ = '\0';
            if (*piece && timed_line(p, piece, first_ms, last_ms))
                in->rows++;
            if (cr && *cr == '\0')
                break;
        }
    }
    free(line);
    gw_logread_keep_epochs(s, input, p);
    gw_progress_free(p);
    return GW_OK;
}

/* A training log whose times miss every dated GPU row belongs to another run (or another time
 * zone): its epochs would come out empty. Refused, naming both ranges. */
static gw_rc check_overlap(const gw_series *s, const char *path, int64_t first_ms, int64_t last_ms,
                           gw_error *err)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < s->ngpus; i++) {
        const gw_series_gpu *g = s->gpus[i];
        if (g->tab.n == 0 || s->inputs[g->input].dateless)
            continue;
        lo = g->tab.t_ms[0] < lo ? g->tab.t_ms[0] : lo;
        hi = g->tab.t_ms[g->tab.n - 1] > hi ? g->tab.t_ms[g->tab.n - 1] : hi;
    }
    if (hi == INT64_MIN || (last_ms >= lo && first_ms <= hi))
        return GW_OK;
    char a[GW_RFC3339_LEN], b[GW_RFC3339_LEN], c[GW_RFC3339_LEN], d[GW_RFC3339_LEN];
    return gw_error_set(err, GW_E_FORMAT,
                        "%s: its times (%s to %s) do not overlap the GPU log's (%s to %s): give "
                        "the training log of the same run, or write both in one time zone (TZ)",
                        path, gw_rfc3339_ms(first_ms, a), gw_rfc3339_ms(last_ms, b),
                        gw_rfc3339_ms(lo, c), gw_rfc3339_ms(hi, d));
}

gw_rc gw_logread_train_log(gw_series *s, const char *path, const gw_epoch_matcher *m, gw_error *err)
{
    char *idx = gw_logread_index_path(path);
    bool indexed = access(idx, R_OK) == 0;
    FILE *f = indexed ? NULL : fopen(path, "r");
    if (!indexed && !f) {
        free(idx);
        return gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    }
    size_t input = gw_series_add_input(s, path, NULL, GW_INPUT_TRAIN_LOG);
    int64_t first_ms = INT64_MIN, last_ms = 0;
    gw_rc rc = indexed ? gw_logread_output(s, input, path, idx, m, &last_ms, err)
                       : timed_log(s, input, f, m, &first_ms, &last_ms);
    free(idx);
    if (f)
        fclose(f);
    if (rc)
        return rc;
    if (s->inputs[input].rows == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no line starts with a time (unix seconds or RFC 3339); "
                            "epochs need timed lines, or the output.idx gpuwatch run writes "
                            "beside its output.log",
                            path);
    if (first_ms != INT64_MIN)
        rc = check_overlap(s, path, first_ms, last_ms, err);
    if (rc)
        return rc;
    gw_series_add_event(s, input, last_ms, "log_end", "last timed line of the log");
    return GW_OK;
}

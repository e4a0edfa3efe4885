/* Training log reader: the job's output -> "epoch" events and epochs (see logread.h). */
#include "logread/logread.h"
#include "logread/timeparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Handles one line; returns true when it started with a time. */
static bool timed_line(gw_progress *p, char *line, int64_t *last_ms)
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
    *last_ms = t_ms;
    gw_progress_feed(p, text, t_ms, NULL, NULL);
    return true;
}

static gw_rc timed_log(gw_series *s, size_t input, FILE *f, const gw_epoch_matcher *m,
                       int64_t *last_ms)
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
            if (*piece && timed_line(p, piece, last_ms))
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
    int64_t last_ms = 0;
    gw_rc rc = indexed ? gw_logread_output(s, input, path, idx, m, &last_ms, err)
                       : timed_log(s, input, f, m, &last_ms);
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
    gw_series_add_event(s, input, last_ms, "log_end", "last timed line of the log");
    return GW_OK;
}

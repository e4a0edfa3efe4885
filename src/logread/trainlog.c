/* Training log reader: timed lines -> "epoch" and "log_end" events (see logread.h). */
#include "logread/logread.h"
#include "logread/timeparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Handles one line; returns true when it started with a time. */
static bool timed_line(gw_series *s, size_t input, char *line, const gw_epoch_matcher *m,
                       long *last_epoch, int64_t *last_ms)
{
    char *p = line + strspn(line, " \t");
    bool bracket = *p == '[';
    int64_t t_ms;
    size_t n = gw_timeparse(p + bracket, &t_ms);
    if (n == 0)
        return false;
    char *text = p + bracket + n;
    if (bracket && *text == ']')
        text++;
    text += strspn(text, " \t:-|");
    *last_ms = t_ms;
    long epoch, total;
    if (gw_epoch_matcher_match(m, text, &epoch, &total) && epoch != *last_epoch) {
        gw_series_event *e = gw_series_add_event(s, input, t_ms, "epoch", text);
        e->epoch = epoch;
        e->total = total;
        *last_epoch = epoch;
    }
    return true;
}

gw_rc gw_logread_train_log(gw_series *s, const char *path, const gw_epoch_matcher *m, gw_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    size_t input = gw_series_add_input(s, path, NULL, GW_INPUT_TRAIN_LOG);
    gw_series_input *in = &s->inputs[input];
    char *line = NULL;
    size_t cap = 0;
    long last_epoch = -1;
    int64_t last_ms = 0;
    ssize_t len;
    /* getline splits at LF; progress bars redraw with CR, so each CR piece is a line too. */
    while ((len = getline(&line, &cap, f)) >= 0) {
        for (char *piece = line, *cr; piece; piece = cr) {
            cr = strpbrk(piece, "\r\n");
            if (cr)
                *cr++ = '\0';
            if (*piece && timed_line(s, input, piece, m, &last_epoch, &last_ms))
                in->rows++;
            if (cr && *cr == '\0')
                break;
        }
    }
    free(line);
    fclose(f);
    if (in->rows == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no line starts with a time (unix seconds or RFC 3339); "
                            "epochs need timed lines",
                            path);
    gw_series_add_event(s, input, last_ms, "log_end", "last timed line of the log");
    return GW_OK;
}

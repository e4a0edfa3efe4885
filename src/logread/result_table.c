/* A trainer's results table: a header naming an epoch or a step column, rows of numbers
 * (result_table.h). */
#include "logread/result_table.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CELLS 64

/* Splits line at blanks into at most MAX_CELLS words (start, length); -1: more than that. */
static int split(const char *line, const char **w, size_t *len)
{
    int n = 0;
    for (const char *p = line; *p;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        if (n == MAX_CELLS)
            return -1;
        w[n] = p;
        len[n] = strcspn(p, " \t");
        p += len[n++];
    }
    return n;
}

static bool word_in(const char *w, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && strncmp(w, list[i], n) == 0)
            return true;
    return false;
}

/* A column name: letters, digits, '_', '-', '/', '.', '@', starting with a letter. */
static bool name_word(const char *w, size_t n)
{
    if (!isalpha((unsigned char)w[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)w[i]) && !strchr("_-/.@", w[i]))
            return false;
    return true;
}

/* A metric's name: a loss, a score, an accuracy, an error rate, a time. */
static bool metric_word(const char *w, size_t n)
{
    static const char *const parts[] = {"loss", "score", "acc",  "error", "time", "f1",
                                        "bleu", "ppl",   "perp", "rouge", "wer",  "mae"};
    char low[32];
    if (n >= sizeof low)
        return false;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)w[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strstr(low, parts[i]))
            return true;
    return false;
}

/* A cell of a row: a number or a time (`0.328317`, `-1.5e-3`, `00:06`, `95.2%`, `nan`, fastai's
 * `#na#`); *measured: it is a decimal or a time, not a whole number. */
static bool value_word(const char *w, size_t n, bool *measured)
{
    if ((n == 3 && (strncasecmp(w, "nan", 3) == 0 || strncasecmp(w, "inf", 3) == 0)) ||
        (n == 4 && strncmp(w, "#na#", 4) == 0))
        return true;
    bool digit = false;
    for (size_t i = 0; i < n; i++) {
        if (isdigit((unsigned char)w[i]))
            digit = true;
        else if (w[i] == '.' || w[i] == ':')
            *measured = true;
        else if (!strchr("+-eE%", w[i]))
            return false;
    }
    return digit;
}

static bool whole_number(const char *w, size_t n, long *v)
{
    if (n == 0 || n > 9 || strspn(w, "0123456789") < n)
        return false;
    *v = strtol(w, NULL, 10);
    return true;
}

/* A column that names an evaluation's result: a part (between '/', '_', '-', '.') that says
 * valid, validation, val, eval, dev or test (`validation/main/loss`, `valid_loss`, Hugging Face's
 * `Validation Loss`), or a score (spaCy's `SCORE`, its weighted score on the dev set). */
static bool eval_word(const char *w, size_t n)
{
    static const char *const parts[] = {"valid", "validation", "val",  "eval",
                                        "dev",   "test",       "score"};
    for (size_t i = 0; i < n;) {
        size_t k = strcspn(w + i, "/_-. \t");
        if (k > n - i)
            k = n - i;
        for (size_t j = 0; j < sizeof parts / sizeof *parts; j++)
            if (strlen(parts[j]) == k && strncasecmp(w + i, parts[j], k) == 0)
                return true;
        i += k + 1;
    }
    return false;
}

static bool step_word(const char *w, size_t n)
{
    static const char *const names[] = {"#", "step", "iteration", "iter"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == n && strncasecmp(w, names[i], n) == 0)
            return true;
    return false;
}

/* A header: its columns into t; false when line is none (words, or no metric named). */
static bool read_header(gw_result_table *t, const char *line, const char **w, const size_t *len,
                        int n)
{
    static const char *const epoch_names[] = {"epoch", "Epoch", "EPOCH", "E"};
    bool metric = false;
    for (int i = 1; i < n; i++) {
        if (!name_word(w[i], len[i]) && !(len[i] == 1 && w[i][0] == '#'))
            return false;
        metric |= metric_word(w[i], len[i]);
    }
    if (!metric)
        return false; /* words, not a table's header */
    t->epoch_col = word_in(w[0], len[0], epoch_names, 4);
    t->step_col = step_word(w[t->epoch_col], len[t->epoch_col]);
    snprintf(t->step_name, sizeof t->step_name, "%.*s", t->step_col ? (int)len[t->epoch_col] : 0,
             w[t->epoch_col]);
    t->eval_name[0] = '\0';
    t->neval = 0;
    for (int i = t->epoch_col + t->step_col; i < n && t->neval < 8; i++)
        if (eval_word(w[i], len[i])) {
            if (!t->neval)
                snprintf(t->eval_name, sizeof t->eval_name, "%.*s", (int)len[i], w[i]);
            t->eval_from[t->neval] = (int)(w[i] - line);
            t->eval_to[t->neval++] = (int)(w[i] - line + (ptrdiff_t)len[i]);
        }
    t->eval = t->neval > 0;
    t->tabs = strchr(line, '\t') != NULL;
    /* another table's header (no epoch nor step column first) closes it */
    t->ncols = t->epoch_col || t->step_col ? n : 0;
    t->last = t->last_step = -1;
    return true;
}

gw_table_line gw_result_table_read(gw_result_table *t, const char *line, gw_table_row *row)
{
    const char *w[MAX_CELLS];
    size_t len[MAX_CELLS];
    int n = split(line, w, len);
    if (n < 2)
        return GW_TABLE_NONE;
    if (name_word(w[0], len[0]))
        return read_header(t, line, w, len, n) && t->ncols ? GW_TABLE_HEADER : GW_TABLE_NONE;
    long e = -1, st = -1;
    int k = t->epoch_col + t->step_col; /* the figures' first cell */
    if (!t->ncols || n > t->ncols || n <= k || (t->epoch_col && !whole_number(w[0], len[0], &e)) ||
        (t->step_col && !whole_number(w[k - 1], len[k - 1], &st)))
        return GW_TABLE_NONE;
    if (t->step_col ? st <= t->last_step || e < t->last : t->last >= 0 && e != t->last + 1)
        return GW_TABLE_NONE;
    bool measured = false;
    for (int i = k; i < n; i++) {
        if (i + 1 < n && len[i] == 2 && len[i + 1] == 3 && strncmp(w[i], "No", 2) == 0 &&
            strncmp(w[i + 1], "log", 3) == 0) {
            i++; /* Hugging Face's absent training loss */
            continue;
        }
        if (!value_word(w[i], len[i], &measured))
            return GW_TABLE_NONE;
    }
    if (!measured)
        return GW_TABLE_NONE;
    t->last = e;
    t->last_step = st;
    *row = (gw_table_row){.epoch = e, .step = st, .eval = t->eval && t->tabs};
    /* a cell under an evaluation's column: the two overlap (Chainer aligns its cells to the
     * columns' left, spaCy to their right) */
    for (int i = k; i < n && !row->eval; i++)
        for (int j = 0; j < t->neval; j++)
            row->eval |=
                w[i] - line < t->eval_to[j] && w[i] - line + (ptrdiff_t)len[i] > t->eval_from[j];
    return GW_TABLE_ROW;
}

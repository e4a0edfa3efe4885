/* A trainer's results table: a header naming an epoch column, rows of numbers (result_table.h). */
#include "logread/result_table.h"

#include <ctype.h>
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

gw_table_line gw_result_table_read(gw_result_table *t, const char *line, long *epoch)
{
    static const char *const epoch_names[] = {"epoch", "Epoch", "EPOCH", "E"};
    static const char *const step_names[] = {"#", "step", "Step"};
    const char *w[MAX_CELLS];
    size_t len[MAX_CELLS];
    int n = split(line, w, len);
    if (n < 2)
        return GW_TABLE_NONE;
    if (name_word(w[0], len[0])) {
        bool names = true, metric = false;
        for (int i = 1; i < n && names; i++) {
            names = name_word(w[i], len[i]) || (len[i] == 1 && w[i][0] == '#');
            metric |= names && metric_word(w[i], len[i]);
        }
        if (!names)
            return GW_TABLE_NONE;
        if (!metric)
            return GW_TABLE_NONE; /* words, not a table's header */
        /* a step column beside it (spaCy's `E  #  LOSS ...`): its rows mark steps and
         * evaluations, not epochs' ends (not read yet) */
        bool header =
            word_in(w[0], len[0], epoch_names, 4) && !word_in(w[1], len[1], step_names, 3);
        t->ncols = header ? n : 0; /* another table's header closes it */
        t->last = -1;
        return header ? GW_TABLE_HEADER : GW_TABLE_NONE;
    }
    long e;
    if (!t->ncols || n > t->ncols || !whole_number(w[0], len[0], &e) ||
        (t->last >= 0 && e != t->last + 1))
        return GW_TABLE_NONE;
    bool measured = false;
    for (int i = 1; i < n; i++) {
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
    *epoch = e;
    return GW_TABLE_ROW;
}

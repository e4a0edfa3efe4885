/* A boosting round's line (see round_line.h). */
#include "logread/round_line.h"
#include "logread/line_scan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A metric "key: value" at *s ("learn: 80.72", "train-rmse:17.59", "valid_0's l2: 0.31"): a
 * key of letters, digits, '-', '_', '\'' and inner spaces (one word at most after the first),
 * then a decimal number; advances *s past the number. */
static bool metric_pair(const char **s)
{
    const char *p = gw_scan_spaces(*s);
    if (!isalpha((unsigned char)*p))
        return false;
    int words = 1;
    while (*p && *p != ':') {
        if (*p == ' ' && isalpha((unsigned char)p[1]) && words++ < 2) {
            p++;
            continue;
        }
        if (!isalnum((unsigned char)*p) && !strchr("-_'", *p))
            return false;
        p++;
    }
    if (*p != ':')
        return false;
    const char *v = gw_scan_spaces(p + 1);
    char *end;
    (void)strtod(v, &end);
    if (end == v || (!isdigit((unsigned char)*v) && *v != '-') ||
        !memchr(v, '.', (size_t)(end - v)))
        return false; /* a measured value: a decimal ("cuda:0" is none) */
    *s = end;
    return true;
}

/* A boosting round: a counter leading the line ("0:", "[100]") and right after it the round's
 * metrics as "key: value" pairs, two or more (CatBoost's "100:  learn: 80.72  test: 76.35 ...
 * total: 830ms", XGBoost's "[0]  train-rmse:17.59  eval-rmse:17.21", LightGBM's "[100]
 * training's l2: 0.2  valid_1's l2: 0.3"): a training round that prints its evaluation-set
 * metric in its own line, with no pause for it. */
bool gw_round_line(const char *line, gw_counter *c)
{
    const char *v = line;
    long n;
    bool bracket = *v == '[';
    if (bracket)
        v++;
    if (!gw_scan_digits(&v, &n) || *v != (bracket ? ']' : ':') || (v[1] != ' ' && v[1] != '\t'))
        return false;
    const char *m = v + 1;
    int pairs = 0;
    while (metric_pair(&m)) {
        pairs++;
        m += strcspn(m, " \t");
    }
    /* one pair on a bracketed round's line of its own: LightGBM's "[10]\tvalid_0's auc: 0.62" */
    if (pairs < 2 && !(pairs == 1 && bracket && *gw_scan_spaces(m) == '\0'))
        return false;
    c->n = n;
    c->total = -1;
    c->kind = GW_LINE_TRAIN;
    c->kind_word[0] = '\0';
    snprintf(c->shape, sizeof c->shape, bracket ? "[N] metric:" : "N: metric:");
    return true;
}

/* Epoch line matcher (see epoch_match.h). */
#include "logread/epoch_match.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { MAX_GROUPS = 16 };

struct gw_epoch_matcher {
    regex_t re;
    bool is_default; /* GW_EPOCH_DEFAULT_REGEX: an option's value is no epoch line */
};

/* "\d" -> "[0-9]"; every other escape is kept as written. */
static char *expand_digits(const char *re)
{
    size_t n = strlen(re);
    char *out = xmalloc(n * 5 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (re[i] == '\\' && re[i + 1] == 'd') {
            memcpy(out + o, "[0-9]", 5);
            o += 5;
            i++;
        } else if (re[i] == '\\' && re[i + 1] != '\0') {
            out[o++] = re[i++];
            out[o++] = re[i];
        } else {
            out[o++] = re[i];
        }
    }
    out[o] = '\0';
    return out;
}

gw_rc gw_epoch_matcher_new(const char *regex, gw_epoch_matcher **out, gw_error *err)
{
    const char *src = regex ? regex : GW_EPOCH_DEFAULT_REGEX;
    char *expanded = expand_digits(src);
    gw_epoch_matcher *m = xcalloc(1, sizeof *m);
    m->is_default = strcmp(src, GW_EPOCH_DEFAULT_REGEX) == 0;
    int rc = regcomp(&m->re, expanded, REG_EXTENDED | REG_ICASE);
    free(expanded);
    if (rc != 0) {
        char why[256];
        regerror(rc, &m->re, why, sizeof why);
        free(m);
        return gw_error_set(err, GW_E_USAGE, "epoch regex '%s': %s", src, why);
    }
    if (m->re.re_nsub == 0) {
        regfree(&m->re);
        free(m);
        return gw_error_set(err, GW_E_USAGE,
                            "epoch regex '%s' has no group: put the epoch number in "
                            "parentheses, e.g. 'Epoch ([0-9]+)'",
                            src);
    }
    *out = m;
    return GW_OK;
}

static bool all_digits(const char *s, regoff_t from, regoff_t to, long *value)
{
    if (from < 0 || to <= from || to - from > 9)
        return false;
    long v = 0;
    for (regoff_t i = from; i < to; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *value = v;
    return true;
}

/* A line gpuwatch printed: "gpuwatch: ..." or "gpuwatch mark: ..." (its errors and alerts reach
 * the job's output when the job runs gpuwatch, and they quote examples such as --field epoch=3). */
static bool own_line(const char *line)
{
    line += strspn(line, " \t\r");
    if (strncmp(line, "gpuwatch", 8) != 0)
        return false;
    line += 8;
    if (*line == ' ')
        line += 1 + strspn(line + 1, "abcdefghijklmnopqrstuvwxyz");
    return *line == ':';
}

/* True when the word before line[at] is a command-line option ("--field epoch=3", "--epoch 3",
 * "--resume=epoch 3"): a usage text or a command line, not the script's progress. */
static bool after_option(const char *line, size_t at)
{
    size_t end = at;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
        end--;
    size_t start = end;
    while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t')
        start--;
    /* -x, --name, --name= : dashes, then a letter, then letters, digits, '-' or '_' */
    size_t i = start;
    while (i < end && i - start < 2 && line[i] == '-')
        i++;
    if (i == start || i == end || !isalpha((unsigned char)line[i]))
        return i - start == 2 && i == end; /* "--epoch 3": the dashes right before it */
    while (i < end && (isalnum((unsigned char)line[i]) || line[i] == '-' || line[i] == '_'))
        i++;
    return i == end || (line[i] == '=' && i + 1 == end);
}

bool gw_epoch_matcher_match(const gw_epoch_matcher *m, const char *line, long *epoch, long *total)
{
    regmatch_t g[MAX_GROUPS];
    if (own_line(line))
        return false;
    size_t off = 0;
    for (;;) {
        if (regexec(&m->re, line + off, MAX_GROUPS, g, off ? REG_NOTBOL : 0) != 0)
            return false;
        /* The default's first group is the character before "epoch" (or nothing at the start). */
        size_t word = off + (size_t)g[0].rm_so + (size_t)(g[1].rm_eo - g[1].rm_so);
        if (!m->is_default || !after_option(line, word))
            break;
        off += (size_t)g[0].rm_eo; /* past this match: never empty, it holds "epoch" */
    }
    const char *text = line + off;
    long found[2] = {-1, -1};
    int nfound = 0;
    size_t groups = m->re.re_nsub < MAX_GROUPS - 1 ? m->re.re_nsub : MAX_GROUPS - 1;
    for (size_t i = 1; i <= groups && nfound < 2; i++)
        if (all_digits(text, g[i].rm_so, g[i].rm_eo, &found[nfound]))
            nfound++;
    if (nfound == 0)
        return false;
    if (epoch)
        *epoch = found[0];
    if (total)
        *total = found[1];
    return true;
}

void gw_epoch_matcher_free(gw_epoch_matcher *m)
{
    if (!m)
        return;
    regfree(&m->re);
    free(m);
}

/* The word at *s (letters only), moved past; its length in *n. */
static const char *next_word(const char **s, size_t *n)
{
    const char *w = *s + strspn(*s, " \t:,.-");
    size_t k = 0;
    while (isalpha((unsigned char)w[k]))
        k++;
    *s = w + k;
    *n = k;
    return w;
}

static bool word_is(const char *w, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && strncasecmp(w, list[i], n) == 0)
            return true;
    return false;
}

/* The number after the first "epoch" of line that is a word of its own and is followed (after
 * " \t:=#[") by a digit: a pointer to that digit, *at to that "epoch"; NULL when none. */
static const char *first_epoch_number(const char *line, const char **at)
{
    for (const char *q = line; (q = strcasestr(q, "epoch")) != NULL; q += 5) {
        if (q > line && (isalnum((unsigned char)q[-1]) || q[-1] == '_'))
            continue;
        const char *d = q + 5;
        d += strspn(d, " \t:=#[");
        if (isdigit((unsigned char)*d)) {
            *at = q;
            return d;
        }
    }
    return NULL;
}

gw_epoch_line_end gw_epoch_line_ends(const char *line)
{
    static const char *const trained[] = {"complete", "completed", "finished",
                                          "done",     "ended",     "over"};
    static const char *const over[] = {"took", "cost", "lasted"};
    static const char *const part[] = {"training", "train"};
    const char *q = line, *d = first_epoch_number(line, &q);
    if (!d)
        return GW_EPOCH_STARTS;
    d += strspn(d, "0123456789");
    if (*d == '/') /* "Epoch 3/10 done" */
        d += 1 + strspn(d + 1, "0123456789");
    d += strspn(d, "]");
    size_t n;
    const char *w = next_word(&d, &n);
    if (word_is(w, n, part, 2))
        w = next_word(&d, &n);
    if (word_is(w, n, trained, sizeof trained / sizeof *trained))
        return GW_EPOCH_TRAINED;
    return word_is(w, n, over, sizeof over / sizeof *over) ? GW_EPOCH_OVER : GW_EPOCH_STARTS;
}

/* Words that, right before "epoch N", make the line a mention and not an epoch's start. */
static bool mention_before(const char *line, const char *at)
{
    static const char *const words[] = {
        "at",       "from",     "of",     "after",   "since",   "until",      "to",
        "in",       "best",     "saving", "saved",   "save",    "checkpoint", "last",
        "previous", "resuming", "resume", "resumed", "loading", "loaded",     "load"};
    const char *e = at;
    while (e > line && !isalnum((unsigned char)e[-1]))
        e--;
    const char *s = e;
    while (s > line && isalpha((unsigned char)s[-1]))
        s--;
    return word_is(s, (size_t)(e - s), words, sizeof words / sizeof *words);
}

/* Hugging Face's notebook progress text, rendered: `[ 500/1500 02:31 < 05:03, 3.30 it/s, Epoch
 * 1/3]`, its count, then its clock. */
static bool notebook_progress(const char *line)
{
    const unsigned char *p = (const unsigned char *)line + strspn(line, " \t");
    if (*p++ != '[')
        return false;
    p += strspn((const char *)p, " ");
    for (int part = 0; part < 3; part++) { /* "500/", "1500 ", "02:" */
        if (!isdigit(*p))
            return false;
        while (isdigit(*p))
            p++;
        if (*p++ != "/ :"[part])
            return false;
    }
    return line[strlen(line) - 1] == ']';
}

bool gw_epoch_line_mention(const char *line)
{
    const char *q = line, *d = first_epoch_number(line, &q);
    if (!d)
        return false;
    if (notebook_progress(line))
        return true; /* its epoch is the epochs done so far (`Epoch 1.88/3` while it runs) */
    if (mention_before(line, q))
        return true;
    while (isdigit((unsigned char)*d))
        d++;
    return (*d == '.' || *d == '_' || *d == '-') && isalpha((unsigned char)d[1]);
}

bool gw_epoch_line_results(const char *line)
{
    const char *q = line, *d = first_epoch_number(line, &q);
    if (!d)
        return false;
    d += strspn(d, "0123456789");
    if (*d == '/') /* its total: "Epoch [001/300]" */
        d += 1 + strspn(d + 1, "0123456789");
    for (; *d; d++) {
        if (*d == '[' && isdigit((unsigned char)d[1 + strspn(d + 1, " ")]))
            return false; /* a counter within the epoch: "Epoch: 491 [12800/45000 (28%)]" */
        if (*d == '.' && isdigit((unsigned char)d[-1]) && isdigit((unsigned char)d[1]))
            return true;
    }
    return false;
}

bool gw_training_over_line(const char *line)
{
    static const char *const said[] = {
        "training complete", "training completed",   "training finished",     "training done",
        "training is done",  "training is complete", "training has finished", "training ended",
        "finished training", "done training"};
    const char *s = line + strspn(line, " \t");
    for (size_t i = 0; i < sizeof said / sizeof *said; i++) {
        const char *at = strcasestr(s, said[i]);
        if (!at || (at > s && isalnum((unsigned char)at[-1])))
            continue;
        bool tags = true; /* "INFO: ", "[I 10:00:00] ": no lower-case word before it */
        for (const char *c = s; c < at && tags; c++)
            tags = !islower((unsigned char)*c);
        if (!tags)
            continue;
        const char *e = at + strlen(said[i]);
        if (!*e || strchr(".!,;:", *e))
            return true;
        e += strspn(e, " \t");
        size_t n = 0;
        while (isalpha((unsigned char)e[n]))
            n++;
        if (!*e || *e == '[' || *e == '(' || (n == 2 && strncasecmp(e, "in", 2) == 0) ||
            (n == 5 && strncasecmp(e, "after", 5) == 0))
            return true;
    }
    return false;
}

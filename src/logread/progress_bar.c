/* One output line read as a progress bar draw (see progress_bar.h). */
#include "logread/progress_bar.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- reading numbers and times ---- */

static bool read_long(const char **s, long *v)
{
    const char *p = *s;
    if (!isdigit((unsigned char)*p))
        return false;
    long x = 0;
    int d = 0;
    while (isdigit((unsigned char)*p) && d < 12) {
        x = x * 10 + (*p++ - '0');
        d++;
    }
    if (isdigit((unsigned char)*p))
        return false;
    *s = p;
    *v = x;
    return true;
}

/* "n/total" (spaces allowed around '/'); total must be > 0 and n <= total. */
bool gw_bar_read_counts(const char **s, long *n, long *total)
{
    const char *p = *s;
    if (!read_long(&p, n))
        return false;
    p += strspn(p, " ");
    if (*p++ != '/')
        return false;
    p += strspn(p, " ");
    if (!read_long(&p, total) || *total <= 0 || *n > *total)
        return false;
    *s = p;
    return true;
}

/* A time token: "01:23", "1:02:03", "14.1s", "5s", "120ms"; "<..." after it is ignored. */
static bool time_token(const char *t, size_t len, double *sec)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, t, len);
    buf[len] = '\0';
    char *lt = strchr(buf, '<');
    if (lt)
        *lt = '\0';
    if (!isdigit((unsigned char)buf[0]))
        return false;
    if (strchr(buf, ':')) {
        double v = 0;
        const char *p = buf;
        for (int parts = 0; *p; parts++) {
            long x;
            if (parts > 2 || !read_long(&p, &x))
                return false;
            v = v * 60 + (double)x;
            if (*p == ':')
                p++;
            else if (*p)
                return false;
        }
        *sec = v;
        return true;
    }
    char *end;
    double v = strtod(buf, &end);
    if (strcmp(end, "s") == 0)
        *sec = v;
    else if (strcmp(end, "ms") == 0)
        *sec = v / 1000.0;
    else
        return false;
    return true;
}

/* The part of a bar after its counts: elapsed time and seconds per step, in any of the forms
 * "[00:05<00:06, 8.80it/s, loss=1]", "00:17", "3.2it/s 14.1s<17.2s", "2s 20ms/step - loss". */
static void read_timing(const char *p, gw_bar *b)
{
    while (*p) {
        p += strspn(p, " [],");
        size_t len = strcspn(p, " [],");
        if (len == 0)
            break;
        double v;
        const char *slash = memchr(p, '/', len);
        if (slash && len > 5 && strncmp(p + len - 5, "/step", 5) == 0) {
            if (time_token(p, (size_t)(slash - p), &v) && v > 0)
                b->step_s = v;
        } else if (!slash && isnan(b->elapsed_s) && time_token(p, len, &v)) {
            b->elapsed_s = v;
        }
        if (strspn(p, "=>.") == len) {
            p += len; /* Keras 2's bar "[=====>....]" */
            continue;
        }
        if (len == 1 && *p == '-') {
            const char *q = p + 1 + strspn(p + 1, " ");
            size_t ql = strcspn(q, " ");
            if (ql == 0 || q[ql - 1] == ':')
                break; /* "- loss: 0.3": metrics from here on */
        } else if (*p == '-' || memchr(p, '=', len)) {
            break;
        }
        p += len; /* Keras 2 puts its times after a dash: "] - 116s 746ms/step - loss: .." */
    }
}

/* The text before "NN%": a bar's description, trimmed, without its final ':'. */
static void set_desc(gw_bar *b, const char *line, const char *pct)
{
    const char *e = pct;
    while (e > line && (isdigit((unsigned char)e[-1]) || e[-1] == '.'))
        e--;
    while (e > line && (e[-1] == ' ' || e[-1] == ':'))
        e--;
    const char *s = line + strspn(line, " ");
    size_t len = e > s ? (size_t)(e - s) : 0;
    if (len >= GW_BAR_DESC_MAX)
        len = GW_BAR_DESC_MAX - 1;
    memcpy(b->desc, s, len);
    b->desc[len] = '\0';
}

static bool is_glyph(const char *p)
{
    /* '━' U+2501, '─' U+2500 (Keras 3, ultralytics), '=' '>' '.' '[' (Keras 2) */
    return strncmp(p, "\xe2\x94\x81", 3) == 0 || strncmp(p, "\xe2\x94\x80", 3) == 0 ||
           strncmp(p, "\xe2\x95\xb8", 3) == 0 || strncmp(p, "\xe2\x95\xba", 3) == 0 || *p == '[';
}

void gw_bar_init(gw_bar *b)
{
    memset(b, 0, sizeof *b);
    b->elapsed_s = NAN;
    b->step_s = NAN;
    b->epoch = b->epoch_total = -1;
}

/* timm: "Train: 3 [ 100/1251 (  8%)]  Loss: ..." and "Test: [  10/48]  Time: ..." */
static bool parse_timm(const char *line, gw_bar *b)
{
    const char *p = line + strspn(line, " ");
    bool train = strncmp(p, "Train: ", 7) == 0;
    if (!train && strncmp(p, "Test: ", 6) != 0 && strncmp(p, "Test (EMA): ", 12) != 0)
        return false;
    p = strchr(p, ':') + 1;
    p += strspn(p, " ");
    if (train && !read_long(&p, &b->epoch))
        return false;
    p += strspn(p, " ");
    if (*p++ != '[')
        return false;
    p += strspn(p, " ");
    if (!gw_bar_read_counts(&p, &b->n, &b->total))
        return false;
    b->val = !train;
    if (!train)
        snprintf(b->desc, sizeof b->desc, "Test"); /* what names the evaluation */
    if (train)
        b->n++; /* a 0-based batch index, printed when that batch is done */
    else
        b->epoch = -1;
    return true;
}

/* tqdm drawn without its bar (a notebook's text, Colab): "desc: 45% 45/100 [00:05<00:06, ...]":
 * the '%' of a percentage right before the counts and a bracketed clock "elapsed<left"; NULL
 * when line is none. */
static const char *plain_percent(const char *line)
{
    for (const char *p = strchr(line, '%'); p; p = strchr(p + 1, '%')) {
        const char *d = p;
        while (d > line && isdigit((unsigned char)d[-1]))
            d--;
        if (d == p || p - d > 3 || (d > line && d[-1] != ' ' && d[-1] != ':') || p[1] != ' ')
            continue;
        const char *c = p + 1 + strspn(p + 1, " ");
        long n, t;
        if (!gw_bar_read_counts(&c, &n, &t) || strncmp(c, " [", 2) != 0)
            continue;
        const char *lt = c + 2 + strcspn(c + 2, "<],");
        double sec;
        if (*lt == '<' && time_token(c + 2, (size_t)(lt - c - 2), &sec))
            return p;
    }
    return NULL;
}

/* tqdm with no total: "desc: 100001it [05:37, 296.68it/s, ...]", a count before "it [" and the
 * bar's clock first in the brackets: its count, total 0 (unknown). */
static bool parse_no_total(const char *line, gw_bar *b)
{
    for (const char *p = strstr(line, "it ["); p; p = strstr(p + 1, "it [")) {
        const char *d = p;
        while (d > line && isdigit((unsigned char)d[-1]))
            d--;
        if (d == p || (d > line && d[-1] != ' ') || p - d > 12)
            continue;
        const char *c = p + 4;
        double sec;
        if (!time_token(c, strcspn(c, ",]"), &sec))
            continue;
        set_desc(b, line, p);
        b->n = strtol(d, NULL, 10);
        b->total = 0;
        b->no_total = true;
        read_timing(p + 2, b);
        return true;
    }
    return false;
}

/* A progress bar draw: tqdm ("desc: 45%|###  | 45/100 ...", or without its bar: "45% 45/100
 * [00:05<...]"), ultralytics' own bar ("desc: 45% ━━━─── 45/100 ..."), Keras ("45/100 ━━━━ 2s
 * 20ms/step - loss: ..."). */
bool gw_bar_parse(const char *line, gw_bar *b)
{
    gw_bar_init(b);
    if (parse_timm(line, b) || parse_no_total(line, b))
        return true;
    const char *p = strstr(line, "%|"), *counts = NULL;
    const char *plain = p ? NULL : plain_percent(line);
    if (plain) {
        set_desc(b, line, plain);
        counts = plain + 1;
    } else if (p) {
        const char *q = strchr(p + 2, '|');
        if (!q)
            return false;
        set_desc(b, line, p);
        counts = q + 1;
    } else {
        const char *g = strstr(line, "\xe2\x94\x81");
        if (!g)
            g = strstr(line, "\xe2\x94\x80");
        const char *lead = line + strspn(line, " ");
        if (g && g > line + 1 && g[-1] == ' ' && g[-2] == '%') {
            set_desc(b, line, g - 2);
            counts = g;
            while (is_glyph(counts))
                counts += counts[0] == '[' ? 1 : 3;
        } else if (g && g > lead && g[-1] == ' ' && !isdigit((unsigned char)*lead)) {
            /* rich (Lightning's RichProgressBar): "Epoch 0/9 ━━━━╸━━━ 100/250 0:00:05 • ..." */
            set_desc(b, line, g);
            counts = g;
            while (is_glyph(counts))
                counts += counts[0] == '[' ? 1 : 3;
        } else if (isdigit((unsigned char)*lead)) { /* Keras */
            const char *c = lead;
            long n, t;
            if (!gw_bar_read_counts(&c, &n, &t) || *c != ' ' || !is_glyph(c + 1))
                return false;
            counts = lead;
        } else {
            return false;
        }
    }
    bool keras = counts == line + strspn(line, " ");
    counts += strspn(counts, " ");
    if (!gw_bar_read_counts(&counts, &b->n, &b->total))
        return false;
    /* the counts end the line or come before "[", a time, a rate or a glyph: a bar whose line
     * ran on into other text (a warning printed without '\r') tells no reliable time */
    if (*counts && *counts != ' ')
        return false;
    const char *next = counts + strspn(counts, " ");
    size_t len = strcspn(next, " ,]");
    double sec;
    bool rate = len > 2 && len < 24 && (isdigit((unsigned char)*next) || *next == '?') &&
                (strncmp(next + len - 2, "/s", 2) == 0 || strncmp(next + len - 3, "/it", 3) == 0);
    if (*next && *next != '[' && !keras && !time_token(next, len, &sec) && !rate)
        return false;
    read_timing(counts, b);
    if (keras)
        b->elapsed_s = NAN; /* Keras shows the time left while running: only its s/step counts */
    return true;
}

/* ---- what a bar or a line says ---- */

bool gw_bar_has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; (p = strcasestr(p, w)) != NULL; p += n)
        if ((p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
            return true;
    return false;
}

/* A validation or evaluation bar by its description. */
bool gw_bar_val_desc(const char *d)
{
    return strcasestr(d, "valid") || strcasestr(d, "eval") || gw_bar_has_word(d, "test") ||
           strcasestr(d, "sanity") || (gw_bar_has_word(d, "Class") && gw_bar_has_word(d, "Images"));
}

/* A bar that prepares data (scanning or caching a data set, loading, tokenizing, extracting):
 * neither training nor evaluation, also when its description starts with "val:". */
bool gw_bar_prep_desc(const char *d)
{
    static const char *const words[] = {"scanning", "caching",    "loading", "extract",
                                        "tokeniz",  "preprocess", "unzip",   "decompress"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasestr(d, words[i]))
            return true;
    return false;
}

/* A bar that counts no steps: one over the epochs themselves ("epochs:  3%|▎  | 4/120"), or,
 * beside text lines that count the training, one that says it trains ("train:"). */
bool gw_bar_no_steps(const char *d, bool beside_lines)
{
    if (beside_lines && (gw_bar_has_word(d, "train") || gw_bar_has_word(d, "training")))
        return true;
    const char *p = d + strspn(d, " ");
    if (strncasecmp(p, "epoch", 5) != 0)
        return false;
    p += 5 + (p[5] == 's' || p[5] == 'S');
    return p[strspn(p, " :")] == '\0';
}

/* Words of work that is neither training nor evaluation; the last one, "saving", only in a
 * bar's own description ("Saving model: 45%|..."): a line that saves a checkpoint is followed by
 * more training. */
static bool other_words(const char *d, bool desc)
{
    static const char *const words[] = {"upload",  "push",  "download", "export",
                                        "convert", "fetch", "lfs",      "saving"};
    size_t n = sizeof words / sizeof *words - !desc;
    for (size_t i = 0; i < n; i++)
        if (strcasestr(d, words[i]))
            return true;
    return false;
}

/* A bar's description that saves once training has begun: `Saving model`, `Writing model
 * shards` (a save verb first, then what it writes). */
bool gw_bar_save_desc(const char *d)
{
    static const char *const verbs[] = {"saving ", "writing "};
    static const char *const what[] = {"model", "checkpoint", "shard", "weights", "state"};
    d += strspn(d, " ");
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
        if (strncasecmp(d, verbs[i], strlen(verbs[i])) == 0)
            for (size_t k = 0; k < sizeof what / sizeof *what; k++)
                if (strcasestr(d, what[k]))
                    return true;
    return false;
}

bool gw_bar_other_desc(const char *d)
{
    return other_words(d, true);
}

bool gw_bar_other_line(const char *line)
{
    return other_words(line, false);
}

bool gw_bar_other_verb(const char *line)
{
    const char *w = line + strspn(line, " \t");
    size_t len = 0;
    while (isalpha((unsigned char)w[len]))
        len++;
    char word[24];
    if (len < 6 || len >= sizeof word || strncasecmp(w + len - 3, "ing", 3) != 0)
        return false;
    memcpy(word, w, len);
    word[len] = '\0';
    return other_words(word, false);
}

/* In a postfix "k=v, k=v" after the rate ("1.04s/it, loss=0.693, ...") with no closing ']',
 * the first numeric value that runs into letters: there the other line starts. */
static const char *cut_rest(const char *line)
{
    static const char *const rates[] = {"it/s, ", "s/it, "};
    const char *p = NULL;
    for (size_t i = 0; i < sizeof rates / sizeof *rates && !p; i++) {
        p = strstr(line, rates[i]);
        if (p)
            p += strlen(rates[i]);
    }
    if (!p || strchr(p, ']'))
        return NULL;
    while (*p) {
        const char *eq = p + strcspn(p, "=, ");
        if (*eq != '=')
            return NULL;
        const char *v = eq + 1;
        size_t vl = strcspn(v, ", ");
        char *end;
        (void)strtod(v, &end);
        if (end > v && end < v + vl && isalpha((unsigned char)*end))
            return end;
        p = v + vl;
        if (strncmp(p, ", ", 2) != 0)
            return NULL;
        p += 2;
    }
    return NULL;
}

const char *gw_bar_rest(const char *line, bool *cut)
{
    static const char *const ends[] = {"it/s]", "s/it]", "it]"};
    if (cut)
        *cut = false;
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        const char *e = strstr(line, ends[i]);
        if (!e)
            continue;
        e += strlen(ends[i]);
        for (const char *q = e; *q; q++)
            if (isalpha((unsigned char)*q))
                return e;
        return NULL;
    }
    const char *r = cut_rest(line);
    if (r && cut)
        *cut = true;
    return r;
}

double gw_bar_clock_or_wall(double printed, double wall)
{
    if (isnan(printed))
        return wall;
    return printed <= wall + 0.5 && wall < printed + 1.5 ? wall : printed;
}

bool gw_bar_yolo_column(const char *d, bool header_seen, long *e, long *t)
{
    const char *s = d;
    if (!gw_bar_read_counts(&s, e, t) || *s != ' ')
        return false;
    s += strspn(s, " ");
    const char *w = s;
    while (isdigit((unsigned char)*w) || *w == '.')
        w++;
    return header_seen || (w > s && (*w == 'G' || *w == 'M') && w[1] == ' ');
}

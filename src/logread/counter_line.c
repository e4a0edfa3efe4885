/* What one text line says about progress (see counter_line.h). */
#include "logread/counter_line.h"
#include "logread/line_scan.h"
#include "logread/round_line.h"
#include "logread/step_time.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A number written right before a word with no space (ESPnet's "7epoch", "8/20epoch",
 * "7126-7500batch"), the word at p: its value in *n (a range's end), what came before the dash or
 * the slash in *other (-1 none, sep its character); false when p is not glued to such a number at
 * a word's start. */
static bool glued_number(const char *line, const char *p, long *n, long *other, char *sep)
{
    const char *b = p;
    while (b > line && isdigit((unsigned char)b[-1]))
        b--;
    if (b == p || p - b > 12)
        return false;
    *other = -1;
    *sep = 0;
    const char *a = b;
    if (a > line + 1 && (a[-1] == '-' || a[-1] == '/') && isdigit((unsigned char)a[-2])) {
        *sep = a[-1];
        a--;
        while (a > line && isdigit((unsigned char)a[-1]))
            a--;
        *other = strtol(a, NULL, 10);
    }
    if (!gw_scan_word_start(line, a))
        return false;
    *n = strtol(b, NULL, 10);
    return true;
}

/* "n" or "n/total" ("n / total"), ending at a non-alphanumeric: the counter at *s. */
static bool counts(const char **s, long *n, long *total)
{
    const char *p = *s;
    long a, b = -1;
    if (!gw_scan_digits(&p, &a))
        return false;
    const char *q = gw_scan_spaces(p);
    if (*q == '/') {
        q = gw_scan_spaces(q + 1);
        if (!gw_scan_digits(&q, &b) || b <= 0 || a > b)
            return false;
        p = q;
    }
    if (isalpha((unsigned char)*p) || *p == '.' || *p == '_')
        return false; /* "10s", "2.5", "3_000": not a counter */
    *n = a;
    *total = b;
    *s = p;
    return true;
}

/* The first of `words` that starts a word of line and ends one (or, with prefix, any word it
 * begins); its text as printed goes to out. */
static const char *find_word(const char *line, const char *const *words, size_t nw, bool prefix,
                             char *out)
{
    for (const char *p = line; *p; p++) {
        if (!isalpha((unsigned char)*p) || !gw_scan_word_start(line, p))
            continue;
        for (size_t i = 0; i < nw; i++) {
            size_t len = strlen(words[i]);
            if (strncasecmp(p, words[i], len) != 0)
                continue;
            if (!prefix && (isalnum((unsigned char)p[len]) || p[len] == '_'))
                continue;
            size_t end = len;
            while (isalpha((unsigned char)p[end]))
                end++;
            if (p[end] == '_' || p[end] == '/')
                continue; /* an identifier: "eval_interval", "val_loss", "save_dir"; a metric's
                             or a path's part: "val/accuracy", "data/test/" */
            if (out) {
                size_t k = end < GW_COUNTER_WORD_MAX ? end : GW_COUNTER_WORD_MAX - 1;
                memcpy(out, p, k);
                out[k] = '\0';
            }
            return p;
        }
    }
    return NULL;
}

/* A measured evaluation result named by an identifier: "val_loss 0.4628", "test_acc: 91.2",
 * "eval_loss=0.31" (a decimal value: "eval_interval 2000", "val_split: 0.1" at start-up are
 * settings, but a setting printed with a fraction is read only before training, where
 * evaluation lines open nothing). */
static const char *eval_metric(const char *line, char *word)
{
    static const char *const heads[] = {"val_", "valid_", "validation_", "eval_", "test_",
                                        "val/", "valid/", "eval/",       "test/"};
    for (const char *p = line; *p; p++) {
        if (!isalpha((unsigned char)*p) || !gw_scan_word_start(line, p))
            continue;
        for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
            size_t len = strlen(heads[i]);
            if (strncasecmp(p, heads[i], len) != 0)
                continue;
            const char *q = p + len;
            while (isalnum((unsigned char)*q) || *q == '_' || *q == '/')
                q++;
            const char *v = gw_scan_spaces(q);
            if (*v == ':' || *v == '=')
                v = gw_scan_spaces(v + 1);
            if (*v == '-')
                v++;
            size_t d = strspn(v, "0123456789");
            if (d == 0 || v[d] != '.' || !isdigit((unsigned char)v[d + 1]))
                continue;
            size_t k =
                (size_t)(q - p) < GW_COUNTER_WORD_MAX ? (size_t)(q - p) : GW_COUNTER_WORD_MAX - 1;
            memcpy(word, p, k);
            word[k] = '\0';
            return p;
        }
    }
    return NULL;
}

/* The earlier of two finds (NULL: none), its word kept in *word. */
static const char *earlier(const char *a, const char *wa, const char *b, const char *wb, char *word)
{
    const char *p = a && (!b || a <= b) ? a : b;
    if (p)
        snprintf(word, GW_COUNTER_WORD_MAX, "%s", p == a ? wa : wb);
    return p;
}

/* A save verb that opens a clause of its own after the results ("Validation loss decreased
 * (inf --> 0.72).  Saving model ..."): a progressive or past form (prefix, the "saving"/"saved"
 * find) starting a sentence, after '.' or ';' (after a comma it is the evaluation's line:
 * "Validation loss improved, saving model to best.pt"). */
static bool clause_verb(const char *line, const char *verb, const char *prefix)
{
    if (verb != prefix)
        return false;
    const char *b = verb;
    while (b > line && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    return b > line && b < verb && strchr(".;", b[-1]);
}

/* A line in the future tense ("Checkpoints will be saved to ...", "will save every 10",
 * XGBoost's "Will train until eval-rmse hasn't improved in 100 rounds.", "'eval-rmse' will be
 * used for early stopping"): a setting or a plan, no save and no evaluation. */
static bool future_tense(const char *line)
{
    static const char *const will[] = {"will"};
    return find_word(line, will, 1, false, NULL) != NULL;
}

/* The evaluation word at ev names the time of its part of a training line (DeePMD's "batch 200
 * training time 9.93 s, testing time 0.04 s"): a measure of the step's line, no evaluation. */
static bool part_time(const char *ev)
{
    const char *p = ev;
    while (isalpha((unsigned char)*p))
        p++;
    p = gw_scan_spaces(p);
    return strncasecmp(p, "time", 4) == 0 && !isalpha((unsigned char)p[4]);
}

/* The evaluation word at ev is the key of a setting: words, then " = " and a value that is a
 * name, not a number ("evaluation order = LEFT_TO_RIGHT", "test = True"). */
static bool setting(const char *ev)
{
    const char *p = ev;
    while (isalpha((unsigned char)*p) || *p == ' ' || *p == '_')
        p++;
    if (*p != '=' || p == ev || p[-1] != ' ' || p[1] != ' ')
        return false;
    const char *v = gw_scan_spaces(p + 1);
    return isalpha((unsigned char)*v);
}

/* Evaluation wins over save, save over training; but a save verb before the evaluation's word
 * makes the line a save for its evaluation's result ("Saving model at Epoch 1 with Validation
 * Accuracy: 33.73%"), where a noun does not ("Checkpoint [3]  Validation-perplexity=19.2"), and
 * so does one opening a clause after the results (clause_verb). */
static gw_line_kind line_kind(const char *line, char *word)
{
    static const char *const eval_prefix[] = {"valid", "eval", "inference", "testing"};
    static const char *const eval_word[] = {"val", "test", "dev"};
    static const char *const save_prefix[] = {"saving", "saved"};
    static const char *const save_word[] = {"save", "saves"};
    static const char *const noun[] = {"checkpoint"};
    char w1[GW_COUNTER_WORD_MAX] = "", w2[GW_COUNTER_WORD_MAX] = "", ew[GW_COUNTER_WORD_MAX];
    const char *e1 = find_word(line, eval_prefix, 4, true, w1);
    const char *e2 = find_word(line, eval_word, 3, false, w2);
    if (e2 && e2 > line && e2[-1] == '/' && strncasecmp(e2, "dev", 3) == 0)
        e2 = find_word(line, eval_word, 2, false, w2); /* "/dev/shm": a path */
    char w3[GW_COUNTER_WORD_MAX] = "";
    const char *ev = earlier(e1, w1, e2, w2, w3);
    e1 = eval_metric(line, w1);
    ev = earlier(ev, w3, e1, w1, ew);
    char sw[GW_COUNTER_WORD_MAX];
    e1 = find_word(line, save_prefix, 2, true, w1);
    e2 = find_word(line, save_word, 2, false, w2);
    const char *verb = earlier(e1, w1, e2, w2, sw);
    if (ev && (setting(ev) || part_time(ev))) /* "evaluation order = LEFT_TO_RIGHT" at start-up */
        ev = NULL;
    if (future_tense(line)) { /* "Checkpoints will be saved to ...": where, not a save */
        verb = NULL;
        ev = NULL;
    }
    if (verb && (!ev || verb < ev || clause_verb(line, verb, e1))) {
        snprintf(word, GW_COUNTER_WORD_MAX, "%s", sw);
        return GW_LINE_SAVE;
    }
    if (ev) {
        snprintf(word, GW_COUNTER_WORD_MAX, "%s", ew);
        return GW_LINE_EVAL;
    }
    if (find_word(line, noun, 1, true, word) && !future_tense(line))
        return GW_LINE_SAVE; /* (a verb alone returned above) */
    word[0] = '\0';
    return GW_LINE_TRAIN;
}

/* 1 when the word at p, ending at q, ends a quoted key ("step", 'train/global_step'): q is the
 * closing quote of one opened earlier in the same token; else 0. */
static int quoted_key(const char *line, const char *p, const char *q)
{
    if (*q != '"' && *q != '\'')
        return 0;
    for (const char *b = p; b > line && b[-1] != ' ' && b[-1] != ','; b--)
        if (b[-1] == *q)
            return 1;
    return 0;
}

/* A counter after one of the step words: "iter: 19", "iter 100:", "iteration 201/ 250000",
 * "Iter [50/500]", "Inference done 11/500"; a plural one ("iters: 100") needs a total, or an
 * epoch tag in the line (tagged: "(epoch: 1, iters: 100, time: 0.103)"), else it is a setting. */
/* p is the last part of a hyphenated name ("mini-batch-fit-step: 10", a setting). */
static bool hyphen_tail(const char *line, const char *p)
{
    return p > line + 1 && p[-1] == '-' && isalpha((unsigned char)p[-2]);
}

/* A step word abbreviated with a full stop at p (Marian's "Up. 205000 :", update; "It. 30"):
 * two letters or more that begin "update" or "iteration", then the counter. */
static bool abbreviated_counter(const char *line, const char *p, gw_counter *c)
{
    static const char *const words[] = {"update", "iteration"};
    size_t len = 0;
    while (isalpha((unsigned char)p[len]))
        len++;
    if (len < 2 || p[len] != '.' || !gw_scan_word_start(line, p))
        return false;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if (len >= strlen(words[i]) || strncasecmp(p, words[i], len) != 0)
            continue;
        const char *v = gw_scan_spaces(p + len + 1);
        if (*v == ':' || *v == '=')
            v = gw_scan_spaces(v + 1);
        long n, t;
        if (v == p + len + 1 || !counts(&v, &n, &t))
            return false;
        c->n = n;
        c->total = t;
        snprintf(c->shape, sizeof c->shape, "%.*s. N%s", (int)len, p, t >= 0 ? "/M" : "");
        return true;
    }
    return false;
}

static bool keyword_counter(const char *line, gw_counter *c, bool tagged)
{
    static const char *const words[] = {"iteration", "iter", "step",        "batch",
                                        "progress",  "done", "global_step", "num_updates"};
    gw_counter bare = {.n = -1};
    int timed = -1; /* the line prints a time (-1: not looked at yet) */
    for (const char *p = line; *p; p++) {
        if (bare.n < 0 && isalpha((unsigned char)*p) && abbreviated_counter(line, p, &bare))
            continue;
        /* the last part of an identifier counts with a total: "cur_iter=15/271" (a bare
         * "max_iter: 90000" is a setting) */
        bool suffix = p > line + 1 && p[-1] == '_' && isalnum((unsigned char)p[-2]);
        long gn, ga;
        char gs;
        /* a range glued before the word counts to its end: "7126-7500batch" */
        bool glued = isalpha((unsigned char)*p) && p > line && isdigit((unsigned char)p[-1]) &&
                     glued_number(line, p, &gn, &ga, &gs) && gs == '-' && ga <= gn;
        if (!isalpha((unsigned char)*p) || (!gw_scan_word_start(line, p) && !suffix && !glued) ||
            hyphen_tail(line, p))
            continue;
        for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
            size_t len = strlen(words[i]);
            if (strncasecmp(p, words[i], len) != 0)
                continue;
            const char *q = p + len;
            bool plural = *q == 's' && i < 4;
            if (plural)
                q++; /* "iters", "steps" need a total: "steps = 1000" is a setting */
            if (isalnum((unsigned char)*q) || *q == '_')
                continue;
            int quoted = quoted_key(line, p, q);
            q += quoted; /* a JSON or dict key: {"step": 10, ...} */
            if (glued) {
                c->n = gn;
                c->total = -1;
                snprintf(c->shape, sizeof c->shape, "A-N%s", words[i]);
                return true;
            }
            if (*q == '(') { /* mmengine's Iter(train) [  50/80000] */
                const char *r = strchr(q, ')');
                if (!r || r - q > 8)
                    continue;
                q = r + 1;
            }
            const char *v = gw_scan_spaces(q);
            if (*v == ':' || *v == '=')
                v = gw_scan_spaces(v + 1);
            bool bracket = *v == '[';
            if (bracket)
                v = gw_scan_spaces(v + 1);
            long n, t;
            if (!counts(&v, &n, &t))
                continue;
            v = gw_scan_spaces(v);
            if (t < 0 && !bracket && i == 3 && timed < 0)
                timed = !isnan(gw_step_time(v));
            if ((bracket && *v != ']') ||
                (t < 0 && ((plural && !tagged) || suffix ||
                           (!bracket && ((i == 3 && !timed) || i == 4 || i == 5)))))
                continue; /* "batch 256" is a size, "Batch [2900]" an index, "batch 200
                             training time 9.93 s" a counter; "iter 100", "step 3000" are
                             counters */
            gw_counter *to = t >= 0 ? c : &bare;
            if (to == &bare && bare.n >= 0)
                continue;
            to->n = n;
            to->total = t;
            snprintf(to->shape, sizeof to->shape, "%.*s %sN%s%s", (int)(q - p - quoted), p,
                     bracket ? "[" : "", t >= 0 ? "/M" : "", bracket ? "]" : "");
            if (t >= 0)
                return true; /* a counter with its total wins over a bare one ("acc_iter=1085,
                                cur_iter=0/271") */
        }
    }
    if (bare.n < 0)
        return false;
    c->n = bare.n;
    c->total = bare.total;
    memcpy(c->shape, bare.shape, sizeof c->shape);
    return true;
}

/* The key of a two-cell table row ("|    iterations      | 9        |", the key-value logger of
 * Stable-Baselines3, OpenAI baselines and improved-diffusion) when it names the step counter, its
 * value the count: a row holds the current value, so a plural key counts too. */
static bool row_counter(const char *line, gw_counter *c)
{
    static const char *const keys[] = {"iterations", "iteration", "iters", "iter", "steps", "step"};
    const char *p = gw_scan_spaces(line);
    if (*p != '|')
        return false;
    p = gw_scan_spaces(p + 1);
    size_t klen = strcspn(p, " \t|");
    const char *v = gw_scan_spaces(p + klen);
    if (*v != '|')
        return false;
    v = gw_scan_spaces(v + 1);
    long n;
    if (!gw_scan_digits(&v, &n) || *gw_scan_spaces(v) != '|' ||
        *gw_scan_spaces(gw_scan_spaces(v) + 1) != '\0')
        return false;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == klen && strncasecmp(p, keys[i], klen) == 0) {
            c->n = n;
            c->total = -1;
            snprintf(c->shape, sizeof c->shape, "| %s | N |", keys[i]);
            return true;
        }
    return false;
}

/* A counter whose word the line also uses as the unit of a time: StyleGAN's "tick 5  kimg 20.0
 * ... sec/tick 581.7" (a unit names what the loop counts); that time ("sec/tick 581.7", "2.1
 * s/tick") is the step's. */
static bool unit_counter(const char *line, gw_counter *c)
{
    for (const char *p = line; *p; p++) {
        if (!isalpha((unsigned char)*p) || !gw_scan_word_start(line, p))
            continue;
        size_t len = 0;
        while (isalpha((unsigned char)p[len]))
            len++;
        const char *v = gw_scan_spaces(p + len);
        if (len < 2 || len > 12 || (v == p + len && *v != ':' && *v != '=') ||
            (p > line && p[-1] == '/'))
            continue; /* "tick 5", "tick: 5"; not the unit itself ("sec/tick 581") */
        if (*v == ':' || *v == '=')
            v = gw_scan_spaces(v + 1);
        long n, t;
        if (!counts(&v, &n, &t))
            continue;
        for (const char *u = line; (u = strchr(u, '/')) != NULL; u++) {
            if (strncasecmp(u + 1, p, len) != 0 || isalnum((unsigned char)u[1 + len]))
                continue;
            /* the unit's seconds before the slash: "sec/tick", "s/tick", "7.3s/tick" */
            const char *k = u - line >= 3 && strncasecmp(u - 3, "sec", 3) == 0 ? u - 3
                            : u > line && (u[-1] == 's' || u[-1] == 'S')       ? u - 1
                                                                               : NULL;
            if (!k || (k > line && isalpha((unsigned char)k[-1])))
                continue;
            const char *w = gw_scan_spaces(u + 1 + len);
            char *end;
            double x = strtod(w, &end); /* the value after its key: "sec/tick 7.3" */
            if (end == w) {             /* or before its unit: "7.3 sec/tick" */
                const char *b = k;
                while (b > line && b[-1] == ' ')
                    b--;
                while (b > line && (isdigit((unsigned char)b[-1]) || b[-1] == '.'))
                    b--;
                x = strtod(b, &end);
                if (end == b)
                    x = NAN;
            }
            c->n = n;
            c->total = t;
            c->step_s = x > 0 ? x : NAN;
            snprintf(c->shape, sizeof c->shape, "%.*s N%s", (int)len, p, t >= 0 ? "/M" : "");
            return true;
        }
    }
    return false;
}

/* Two loops' counters, the outer first: "1/3 ( 33%) [  49/323 ( 15%)]", "[0/5][50/1583]",
 * "[1][0/61]": the outer is the epoch, the bracketed inner the step. */
static bool nested_counter(const char *line, gw_counter *c)
{
    for (const char *p = line; *p; p++) {
        if (!isdigit((unsigned char)*p) ||
            (p > line && (isalnum((unsigned char)p[-1]) || strchr(":/.,_-", p[-1]))))
            continue;
        const char *q = p;
        long e, et, n, t;
        if (!counts(&q, &e, &et) || et == 0 || *q == ':')
            continue;
        /* no total: only "[1][0/61]" (CenterNet's `train: [E][N/M]`), the brackets adjacent */
        if (et < 0 && (p == line || p[-1] != '[' || q[0] != ']' || q[1] != '['))
            continue;
        q = gw_scan_spaces(q);
        if (*q == ']')
            q = gw_scan_spaces(q + 1);
        if (*q == '(') {
            const char *r = strchr(q, ')');
            if (!r || r - q > 8)
                continue;
            q = gw_scan_spaces(r + 1);
        }
        if (*q != '[')
            continue;
        q = gw_scan_spaces(q + 1);
        if (!counts(&q, &n, &t) || t <= 0 || *q == ':')
            continue;
        q = gw_scan_spaces(q);
        if (*q != ']' && *q != '(')
            continue;
        c->epoch = e;
        c->epoch_total = et;
        c->n = n;
        c->total = t;
        snprintf(c->shape, sizeof c->shape, et < 0 ? "[E][N/M]" : "E/T [N/M]");
        return true;
    }
    return false;
}

/* "7epoch", "8/20epoch" (epoch 8 of 20), the word at p: the epoch into c. */
static bool glued_epoch(const char *line, const char *p, gw_counter *c)
{
    long e, other;
    char sep;
    if (p == line || !isdigit((unsigned char)p[-1]) || !glued_number(line, p, &e, &other, &sep) ||
        sep == '-' || isalnum((unsigned char)p[5]) || p[5] == '_')
        return false;
    c->epoch = sep ? other : e;
    c->epoch_total = sep ? e : -1;
    return true;
}

/* "30/42 of epoch 28/30": the counter before the tag at p, into c. */
static bool counter_of_epoch(const char *line, const char *p, gw_counter *c)
{
    size_t off = (size_t)(p - line);
    while (off > 0 && line[off - 1] == ' ')
        off--;
    if (off < 2 || strncasecmp(line + off - 2, "of", 2) != 0)
        return false;
    size_t d = off - 2;
    while (d > 0 && line[d - 1] == ' ')
        d--;
    size_t n0 = d;
    while (n0 > 0 && (isdigit((unsigned char)line[n0 - 1]) || line[n0 - 1] == '/'))
        n0--;
    long n, t;
    const char *v = line + n0;
    if (n0 == d || !counts(&v, &n, &t) || t <= 0 || v != line + d)
        return false;
    c->n = n;
    c->total = t;
    snprintf(c->shape, sizeof c->shape, "N/M of %.5s E/T", p);
    return true;
}

/* An epoch tag: "Epoch [3]", "Epoch(train) [1]", "epoch: 1/300", "Epoch: [0]", "epoch 001:",
 * then maybe its counter: "[ 50/977]", ":  100 / 1102". Returns where the tag starts, NULL. */
static const char *epoch_tag(const char *line, gw_counter *c)
{
    for (const char *p = line; (p = strcasestr(p, "epoch")) != NULL; p += 5) {
        if (glued_epoch(line, p, c))
            return p;
        if (!gw_scan_word_start(line, p))
            continue;
        const char *q = p + 5;
        if (*q == '(') { /* mmengine's Epoch(train) / Epoch(val) */
            const char *r = strchr(q, ')');
            if (!r || r - q > 8)
                continue;
            q = r + 1;
        }
        if (isalnum((unsigned char)*q) || *q == '_')
            continue;                /* "epochs", "epoch_3.pt" */
        q += quoted_key(line, p, q); /* a JSON or dict key: {"epoch": 2, "step": 10} */
        q = gw_scan_spaces(q);
        if (*q == ':' || *q == '=' || *q == '#')
            q = gw_scan_spaces(q + 1);
        bool br = *q == '[';
        if (br)
            q = gw_scan_spaces(q + 1);
        long e, et = -1;
        if (!gw_scan_digits(&q, &e))
            continue;
        const char *r = gw_scan_spaces(q);
        if (*r == '/' || strncasecmp(r, "of ", 3) == 0) {
            r = gw_scan_spaces(r + (*r == '/' ? 1 : 3));
            if (gw_scan_digits(&r, &et))
                q = r;
            else
                et = -1;
        }
        q = gw_scan_spaces(q);
        if (br) {
            if (*q != ']')
                continue;
            q = gw_scan_spaces(q + 1);
        }
        c->epoch = e;
        c->epoch_total = et;
        if (counter_of_epoch(line, p, c))
            return p;
        if (*q == ',' || *q == ':' ||
            *q == '|') /* PyTorch examples' `| epoch 1 | 10/50 batches |` */
            q = gw_scan_spaces(q + 1);
        long n, t;
        const char *v = q;
        if (*v == '[') {
            v = gw_scan_spaces(v + 1);
            if (counts(&v, &n, &t) && t > 0 && *gw_scan_spaces(v) == ']') {
                c->n = n;
                c->total = t;
                snprintf(c->shape, sizeof c->shape, "%.*s [E][N/M]", (int)(p[5] == '(' ? 0 : 5), p);
                if (p[5] == '(')
                    snprintf(c->shape, sizeof c->shape, "Epoch(..) [E][N/M]");
            }
        } else if (counts(&v, &n, &t) && t > 0 && v - q < 24) {
            c->n = n;
            c->total = t;
            snprintf(c->shape, sizeof c->shape, "%.5s E: N / M", p);
        }
        return p;
    }
    return NULL;
}

/* A status line that puts each count before its word: Chainer's ProgressBar `  100 iter, 0 epoch
 * / 20 epochs` (the epoch running, 0-based, then the run's length in epochs or iterations). */
static bool counts_before_words(const char *line, gw_counter *c)
{
    static const char *const steps[] = {"iterations", "iteration", "iters", "iter"};
    const char *p = gw_scan_spaces(line);
    long n, e, t;
    if (!gw_scan_digits(&p, &n) || *p != ' ')
        return false;
    p = gw_scan_spaces(p);
    const char *w = find_word(p, steps, sizeof steps / sizeof *steps, false, NULL);
    if (w != p)
        return false;
    p = gw_scan_spaces(p + strcspn(p, " ,"));
    if (*p != ',')
        return false;
    p = gw_scan_spaces(p + 1);
    if (!gw_scan_digits(&p, &e) || *p != ' ')
        return false;
    p = gw_scan_spaces(p);
    if (strncasecmp(p, "epoch", 5) != 0 || isalpha((unsigned char)p[5]))
        return false;
    p = gw_scan_spaces(p + 5);
    if (*p != '/')
        return false;
    p = gw_scan_spaces(p + 1);
    if (!gw_scan_digits(&p, &t) || *p != ' ' || t <= 0)
        return false;
    bool epochs = strncasecmp(gw_scan_spaces(p), "epoch", 5) == 0;
    c->n = n;
    c->total = epochs ? -1 : t;
    c->epoch = e;
    c->epoch_total = epochs ? t : -1;
    snprintf(c->shape, sizeof c->shape, "N iter, E epoch / T");
    return true;
}

/* A counter that leads a line reporting a loss or a time per step, with no word for it: "250 |
 * loss 4.0938 | lr 3.0e-04", yolact's "[  0]      10 || B: 6.981 | ... || timer: 0.290" (the
 * bracketed number before it, an outer loop or a rank, is not taken for an epoch). A table row
 * that names neither ("0 | 0.52 0.48") is none. */
static bool leading_counter(const char *line, gw_counter *c)
{
    static const char *const loss[] = {"loss"};
    const char *v = gw_scan_spaces(line);
    long n, t;
    bool outer = *v == '[';
    if (outer) {
        v = gw_scan_spaces(v + 1);
        if (!counts(&v, &n, &t) || t >= 0 || *gw_scan_spaces(v) != ']')
            return false;
        v = gw_scan_spaces(gw_scan_spaces(v) + 1);
    }
    if (!counts(&v, &n, &t) || (t >= 0 && (outer || t < n)))
        return false;
    v = gw_scan_spaces(v);
    char sep = *v;
    if (!sep || !strchr("|:,", sep))
        return false;
    bool twice = v[1] == sep; /* "||" */
    if (v[1 + twice] != ' ' && v[1 + twice] != '\t')
        return false;
    /* with its total, a loss by any name: MONAI's `1/5, train_loss: 0.7230` */
    bool has_loss =
        find_word(v, loss, 1, false, NULL) != NULL || (t > 0 && strcasestr(v, "loss") != NULL);
    if (!has_loss && isnan(gw_step_time(v)))
        return false;
    c->n = n;
    c->total = t;
    snprintf(c->shape, sizeof c->shape, "%sN%s %c%s%s", outer ? "[K] " : "", t > 0 ? "/M" : "", sep,
             twice ? "|" : "", has_loss ? " loss" : "");
    return true;
}

/* mmcv's bar: "[>>>>>>   ] 50/50, 163.1 task/s, elapsed: 0s, ETA: 0s". */
static bool arrow_bar(const char *line, gw_counter *c)
{
    const char *p = gw_scan_spaces(line);
    if (*p != '[' || (p[1] != '>' && p[1] != ' '))
        return false;
    const char *r = strchr(p, ']');
    if (!r || strspn(p + 1, "> ") != (size_t)(r - p - 1))
        return false;
    const char *v = gw_scan_spaces(r + 1);
    long n, t;
    if (!counts(&v, &n, &t) || t <= 0 || *v != ',')
        return false;
    c->n = n;
    c->total = t;
    snprintf(c->shape, sizeof c->shape, "[>>>] N/M");
    return true;
}

/* A measured value: a decimal fraction ("4.0427") or a percentage ("3%"). */
static bool has_value(const char *line)
{
    for (const char *p = line; *p; p++)
        if (isdigit((unsigned char)p[0]) &&
            ((p[1] == '.' && isdigit((unsigned char)p[2])) || p[1] == '%'))
            return true;
    return false;
}

/* A JSON object or dict whose key names the step ({"step": 10, ...}, {"train/global_step": 20}):
 * a metrics line; any other (a configuration's, Hugging Face's log dicts) is none. */
static bool step_keyed(const char *s)
{
    static const char *const keys[] = {"step", "iter", "iteration", "global_step"};
    for (const char *q = strpbrk(s, "\"'"); q; q = strpbrk(q + 1, "\"'")) {
        const char *close = strchr(q + 1, *q);
        if (!close)
            return false;
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
            size_t n = strlen(keys[i]);
            const char *k = close - n;
            if (k > q && strncmp(k, keys[i], n) == 0 && (k == q + 1 || k[-1] == '/') &&
                *gw_scan_spaces(close + 1) == ':')
                return true;
        }
        q = close;
    }
    return false;
}

bool gw_counter_line(const char *line, gw_counter *c)
{
    memset(c, 0, sizeof *c);
    c->n = c->total = c->epoch = c->epoch_total = -1;
    c->step_s = NAN;
    const char *s = gw_scan_spaces(line);
    if ((*s == '{' && !step_keyed(s)) || strstr(line, "%|") || strlen(line) > 4096)
        return false;
    c->kind = line_kind(line, c->kind_word);
    if (gw_round_line(line, c)) {
        c->loss = true; /* a round's results */
        return true;
    }
    bool status = counts_before_words(line, c);
    const char *tag = status ? NULL : epoch_tag(line, c);
    if (status || (!tag && (row_counter(line, c) || nested_counter(line, c)))) {
        /* a status line's counts; a table row's count; two loops: read as an epoch with its step */
    } else if (c->n < 0 && keyword_counter(line, c, tag != NULL) && tag) {
        char kw[GW_COUNTER_SHAPE_MAX - 10];
        snprintf(kw, sizeof kw, "%.*s", (int)sizeof kw - 1, c->shape);
        snprintf(c->shape, sizeof c->shape, "%.5s E, %s", tag, kw);
    } else if (c->n < 0 && !arrow_bar(line, c) && !tag && !unit_counter(line, c)) {
        leading_counter(line, c);
    }
    if (c->n >= 0 && c->kind == GW_LINE_TRAIN && isnan(c->step_s))
        c->step_s = gw_step_time_span(line, &c->span);
    c->announce = c->kind == GW_LINE_EVAL && c->n < 0 && !has_value(line);
    c->loss = strcasestr(line, "loss") != NULL;
    if (c->n < 0 && c->kind == GW_LINE_TRAIN) {
        (void)tag; /* an epoch tag alone is the epoch matcher's (progress.c) */
        return false;
    }
    return true;
}

/* The last run of two letters or more in a counter's shape, lower case ("" when none). */
static void counter_label(const char *shape, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *p = shape; *p;) {
        size_t len = 0;
        while (isalpha((unsigned char)p[len]))
            len++;
        if (len >= 2 && len < size) {
            for (size_t i = 0; i < len; i++)
                out[i] = (char)tolower((unsigned char)p[i]);
            out[len] = '\0';
        }
        p += len ? len : 1;
    }
}

gw_counter_role gw_counter_is_step(gw_counter_pick *pk, const gw_counter *c, long long t)
{
    char label[GW_COUNTER_WORD_MAX], held[GW_COUNTER_WORD_MAX];
    counter_label(c->shape, label, sizeof label);
    counter_label(pk->held.shape, held, sizeof held);
    gw_counter_role role = GW_COUNTER_STEP;
    if (pk->chosen && strcmp(label, pk->label) != 0) {
        bool same = pk->held.shape[0] && strcmp(label, held) == 0;
        pk->other_adv = same && c->n > pk->held.n ? c->n - pk->held.n : 0;
        /* it counts one a line where the step counter counts more: it is the step */
        bool by_one = pk->other_adv == 1 && pk->adv > 1;
        if (!by_one && (!pk->holding || !same)) {
            pk->held = *c; /* another label's first line in a row */
            pk->held_t = t;
            pk->holding = true;
            return GW_COUNTER_OTHER;
        }
        role = GW_COUNTER_TAKEOVER;
        pk->adv = 0;
    } else {
        pk->adv = pk->chosen && c->n > pk->last_n ? c->n - pk->last_n : pk->adv;
    }
    memcpy(pk->label, label, sizeof label);
    pk->last_n = c->n;
    pk->chosen = true;
    pk->holding = false;
    return role;
}

/* The time per step a line prints (see step_time.h). */
#include "logread/step_time.h"
#include "logread/line_scan.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A figure printed before its unit, as seconds per step: a rate ("1.59 updates/sec", "8.00
 * it/s", "2.5 steps/s") or a time ("2.057s/batch", "0.86 s/it", "95ms/step"); not a bar's
 * "it/s]". NAN when none. */
double gw_step_per_unit(const char *line)
{
    static const struct {
        const char *unit;
        bool rate;
    } units[] = {{"updates/s", true}, {"it/s", true},      {"steps/s", true},    {"step/s", true},
                 {"iters/s", true},   {"s/batch", false},  {"s/iter", false},    {"s/it", false},
                 {"s/step", false},   {"sec/step", false}, {"sec/batch", false}, {"sec/it", false}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t len = strlen(units[i].unit);
        for (const char *p = line; (p = strcasestr(p, units[i].unit)) != NULL; p += len) {
            const char *u = p + len;
            if (units[i].rate && strncasecmp(u, "ec", 2) == 0)
                u += 2;
            if (isalnum((unsigned char)*u) || *u == ']' || p == line)
                continue;
            const char *n = p; /* where the number ends */
            double scale = 1.0;
            if (!units[i].rate && n > line && n[-1] == 'm') {
                n--;
                scale = 1e-3;
            }
            if (n > line && n[-1] == ' ')
                n--;
            const char *v = n;
            while (v > line && (isdigit((unsigned char)v[-1]) || v[-1] == '.'))
                v--;
            if (v == n || (v > line && isalnum((unsigned char)v[-1])))
                continue;
            char *end;
            double x = strtod(v, &end) * scale;
            if (end != n || !(x > 0))
                continue;
            return units[i].rate ? 1.0 / x : x;
        }
    }
    return NAN;
}

/* The seconds per step printed with a line's counter: "time: 0.3326", "iter_time: 0.571s",
 * "time 107.20ms", "batch_cost: 0.2063", "Time  0.315 ( 0.372)", "elapsed time per iteration
 * (ms): 139113.4". A figure over several steps ("11.1s / 10iters") is none. */
/* The key at p is an average's: "avg_batch_cost", "mean_time" (not "data_time"). */
static bool averaged(const char *line, const char *p)
{
    static const char *const heads[] = {"avg_", "mean_"};
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        size_t len = strlen(heads[i]);
        if ((size_t)(p - line) >= len && strncasecmp(p - len, heads[i], len) == 0 &&
            gw_scan_word_start(line, p - len))
            return true;
    }
    return false;
}

/* A step's delta time keyed "dt" (llama.cpp's "dt=00:03:06", "dt: 35.2ms"): a clock h:m:s or
 * m:s is the step's time here, not an eta. NAN when none. */
static double delta_time(const char *line)
{
    for (const char *p = strstr(line, "dt"); p; p = strstr(p + 2, "dt")) {
        /* minGPT's "iter_dt 18.60ms": a step word's dt */
        bool named = p - line >= 5 && p[-1] == '_' &&
                     (strncmp(p - 5, "iter", 4) == 0 || strncmp(p - 5, "step", 4) == 0) &&
                     gw_scan_word_start(line, p - 5);
        if ((!gw_scan_word_start(line, p) && !named) || (p[2] != '=' && p[2] != ':' && p[2] != ' '))
            continue;
        const char *v = gw_scan_spaces(p + 2);
        if (*v == '=' || *v == ':')
            v = gw_scan_spaces(v + 1);
        double x = 0;
        long part;
        int parts = 0;
        const char *q = v;
        while (parts < 3 && gw_scan_digits(&q, &part)) {
            x = x * 60 + (double)part;
            parts++;
            if (*q != ':' || !isdigit((unsigned char)q[1]))
                break;
            q++;
        }
        if (parts >= 2 && !isalnum((unsigned char)*q) && *q != '.')
            return x > 0 ? x : NAN;
        char *end;
        x = strtod(v, &end);
        if (end == v || !isdigit((unsigned char)*v))
            continue;
        if (strncmp(end, "ms", 2) == 0 && !isalpha((unsigned char)end[2]))
            return x > 0 ? x / 1000.0 : NAN;
        if (*end == 's' && !isalpha((unsigned char)end[1]))
            return x > 0 ? x : NAN;
    }
    return NAN;
}

static double keyed_rate(const char *line, bool spaced);

/* A step's word: "step", "iters", "iteration", "updates", "batches", "it". */
static bool step_word(const char *w, size_t len)
{
    static const char *const words[] = {"step",    "steps",     "iter",       "iters",
                                        "it",      "iteration", "iterations", "update",
                                        "updates", "batch",     "batches"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == len && strncasecmp(w, words[i], len) == 0)
            return true;
    return false;
}

/* The seconds a unit word stands for ("ms", "s", "sec", "seconds"), 0 when it is none. */
static double unit_scale(const char *u, size_t len)
{
    if (len == 2 && strncasecmp(u, "ms", 2) == 0)
        return 1e-3;
    static const char *const secs[] = {"s", "sec", "secs", "second", "seconds"};
    for (size_t i = 0; i < sizeof secs / sizeof *secs; i++)
        if (strlen(secs[i]) == len && strncasecmp(u, secs[i], len) == 0)
            return 1.0;
    return 0;
}

/* The value after a key ending at k: ':' or '=' or blanks, then a number, maybe abbreviated
 * with K ("4.71K" ms), then no letter or digit. NAN when none. */
static double key_value(const char *k)
{
    const char *v = gw_scan_spaces(k);
    if (*v == ':' || *v == '=')
        v = gw_scan_spaces(v + 1);
    else if (v == k)
        return NAN;
    char *end;
    double x = strtod(v, &end);
    if (end == v || !isdigit((unsigned char)*v))
        return NAN;
    if (*end == 'K' || *end == 'k') {
        x *= 1e3;
        end++;
    }
    return isalnum((unsigned char)*end) || *end == '/' || !(x > 0) ? NAN : x;
}

/* An identifier that names the step and its unit with "per" (the last part of a path too):
 * a time, Nanotron's "elapsed_time_per_iteration_ms: 9.6", "seconds_per_step=0.5"; a rate,
 * OLMo's "throughput/device/batches_per_second=0.0863" ("tokens_per_second" counts tokens).
 * As seconds per step; NAN when none. */
static double named_per_step(const char *line)
{
    for (const char *p = strstr(line, "_per_"); p; p = strstr(p + 5, "_per_")) {
        const char *b = p; /* the word before "_per_" */
        while (b > line && isalpha((unsigned char)b[-1]))
            b--;
        const char *a = p + 5, *ae = a; /* the word after it */
        while (isalpha((unsigned char)*ae))
            ae++;
        const char *u = ae, *ue = ae; /* a unit after that: "_ms" */
        if (*u == '_') {
            u++;
            for (ue = u; isalpha((unsigned char)*ue);)
                ue++;
        }
        if (isalnum((unsigned char)*ue) || *ue == '_')
            continue;
        double x = key_value(ue);
        if (isnan(x))
            continue;
        if (u == ae && step_word(b, (size_t)(p - b)) && unit_scale(a, (size_t)(ae - a)) == 1.0)
            return 1.0 / x; /* steps per second */
        if (!step_word(a, (size_t)(ae - a)))
            continue;
        double scale = u < ue ? unit_scale(u, (size_t)(ue - u)) : unit_scale(b, (size_t)(p - b));
        if (scale > 0)
            return x * scale; /* a time per step */
    }
    return NAN;
}

/* A figure of seconds standing as a field of its own, between separators (Darknet's ", 2.848000
 * seconds, 64 images"): the time since the counter's last line. "took 5 seconds", "elapsed 100
 * seconds" are none. NAN when none. */
static double bare_seconds(const char *line)
{
    for (const char *p = strstr(line, "seconds"); p; p = strstr(p + 7, "seconds")) {
        if (!gw_scan_word_start(line, p) || isalnum((unsigned char)p[7]) || p[7] == '_')
            continue;
        const char *e = p;
        while (e > line && e[-1] == ' ')
            e--;
        const char *v = e;
        while (v > line && (isdigit((unsigned char)v[-1]) || v[-1] == '.'))
            v--;
        const char *s = v;
        while (s > line && s[-1] == ' ')
            s--;
        const char *after = gw_scan_spaces(p + 7);
        if (v == e || e == p || s == line || !strchr(",;|", s[-1]) ||
            (*after && !strchr(",;|", *after)))
            continue;
        char *end;
        double x = strtod(v, &end);
        if (end == e && x > 0)
            return x;
    }
    return NAN;
}

/* The word before the key at p is a step's ("per-step time", "step time"): the time is a
 * step's, not the span's since the counter's last line. */
static bool step_keyed(const char *line, const char *p)
{
    const char *e = p;
    while (e > line && (e[-1] == ' ' || e[-1] == '-'))
        e--;
    const char *b = e;
    while (b > line && isalpha((unsigned char)b[-1]))
        b--;
    return b < e && (step_word(b, (size_t)(e - b)) || (e - b == 3 && !strncasecmp(b, "per", 3)));
}

/* A time per step named by its key, a time unit over the step's: the PyTorch examples' "ms/batch
 * 1676.56", "s/it: 1.2", "sec/iter = 0.5" (the value after a blank, ':' or '='). NAN when none. */
static double keyed_time(const char *line)
{
    for (const char *p = strchr(line, '/'); p; p = strchr(p + 1, '/')) {
        const char *w = p;
        while (w > line && isalpha((unsigned char)w[-1]))
            w--;
        const char *u = p + 1, *e = u;
        while (isalpha((unsigned char)*e))
            e++;
        double scale = unit_scale(w, (size_t)(p - w));
        if (scale == 0 || (w > line && isalnum((unsigned char)w[-1])) ||
            !step_word(u, (size_t)(e - u)))
            continue;
        double x = key_value(e);
        if (!isnan(x))
            return x * scale;
    }
    return NAN;
}

double gw_step_time_span(const char *line, bool *span)
{
    *span = false;
    double dt = delta_time(line);
    if (isnan(dt))
        dt = named_per_step(line);
    if (isnan(dt))
        dt = keyed_rate(line, true);
    if (isnan(dt))
        dt = keyed_time(line);
    if (!isnan(dt))
        return dt;
    /* a whole step's time before its parts' (ESPnet's "iter_time=0.001, forward_time=0.005, ...,
     * train_time=0.014": iter_time is its wait for data) */
    static const char *const keys[] = {"elapsed time per iteration (ms)",
                                       "train_time",
                                       "iter_time",
                                       "batch_cost",
                                       "batch_time",
                                       "batch time",
                                       "time",
                                       "ups",
                                       "seconds",
                                       "timer"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        size_t len = strlen(keys[i]);
        for (const char *p = line; (p = strcasestr(p, keys[i])) != NULL; p += len) {
            if ((!gw_scan_word_start(line, p) && !averaged(line, p)) ||
                isalnum((unsigned char)p[len]) || p[len] == '_')
                continue;
            const char *v = gw_scan_spaces(p + len);
            if (*v == ':' || *v == '=')
                v = gw_scan_spaces(v + 1);
            char *end;
            double x = strtod(v, &end);
            if (end == v || !isdigit((unsigned char)*v))
                continue;
            const char *u = end;
            bool secs = false; /* its unit printed: seconds */
            if (strncmp(u, "ms", 2) == 0 && !isalpha((unsigned char)u[2])) {
                x /= 1000.0;
                u += 2;
            } else if (*u == 's' && !isalpha((unsigned char)u[1])) {
                u++;
                secs = true;
            } else if (*u == ' ' && u[1] == 's' && !isalpha((unsigned char)u[2])) {
                u += 2; /* "9.93 s" */
                secs = true;
            } else if (isalpha((unsigned char)*u) || *u == ':') {
                continue; /* "02m 22s", an eta "0:10:00" */
            }
            if (i == 0)
                x /= 1000.0;
            if (i == 7)
                x = x > 0 ? 1.0 / x : 0; /* updates per second */
            if (*gw_scan_spaces(u) == '/')
                continue;
            if (i >= 8 && v == gw_scan_spaces(p + len))
                continue; /* "seconds: 10.2", not "seconds 12" */
            if (x > 0 && x < 1e5) {
                /* a time in seconds with its unit keyed plainly ("Time 92.9s", "training time
                 * 9.93 s") is the time since the counter's last line */
                *span = i == 6 && secs && !step_keyed(line, p);
                return x;
            }
        }
    }
    double x = gw_step_per_unit(line);
    if (isnan(x) && !isnan(x = bare_seconds(line)))
        *span = true;
    return x;
}

double gw_step_time(const char *line)
{
    bool span;
    return gw_step_time_span(line, &span);
}

/* A rate named by its key, the step's unit over seconds: TF Estimator's "global_step/sec:
 * 2.44562", "steps/s = 3.1" (not "examples/sec: 311": samples). NAN when none. */
static double keyed_rate(const char *line, bool spaced)
{
    for (const char *p = strchr(line, '/'); p; p = strchr(p + 1, '/')) {
        const char *u = p + 1;
        if (strncasecmp(u, "sec", 3) == 0)
            u += 3;
        else if (*u == 's' || *u == 'S')
            u++;
        else
            continue;
        if (isalnum((unsigned char)*u))
            continue;
        const char *w = p;
        while (w > line && isalpha((unsigned char)w[-1]))
            w--;
        bool ok = step_word(w, (size_t)(p - w));
        const char *v = gw_scan_spaces(u);
        const char *before = w;
        while (before > line && before[-1] == ' ')
            before--;
        /* "It/sec 0.066" with its value after a blank (not "8.0 it/s 5": a figure before) */
        bool blank = spaced && v > u && isdigit((unsigned char)*v) &&
                     (before == line || !isdigit((unsigned char)before[-1]));
        if (!ok || (*v != ':' && *v != '=' && !blank))
            continue;
        if (*v == ':' || *v == '=')
            v = gw_scan_spaces(v + 1);
        char *end;
        double x = strtod(v, &end);
        if (end > v && isdigit((unsigned char)*v) && x > 0 && !isalnum((unsigned char)*end) &&
            *end != '/')
            return 1.0 / x;
    }
    return NAN;
}

double gw_step_time_alone(const char *line)
{
    const char *s = gw_scan_spaces(line);
    if (*s == '{' || strstr(line, "%|") || strlen(line) > 4096)
        return NAN;
    double x = keyed_rate(line, false);
    if (isnan(x))
        x = named_per_step(line);
    return isnan(x) ? gw_step_per_unit(line) : x;
}

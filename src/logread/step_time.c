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
        if (!gw_scan_word_start(line, p) || (p[2] != '=' && p[2] != ':' && p[2] != ' '))
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

double gw_step_time(const char *line)
{
    double dt = delta_time(line);
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
            if (strncmp(u, "ms", 2) == 0 && !isalpha((unsigned char)u[2])) {
                x /= 1000.0;
                u += 2;
            } else if (*u == 's' && !isalpha((unsigned char)u[1])) {
                u++;
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
            if (x > 0 && x < 1e5)
                return x;
        }
    }
    return gw_step_per_unit(line);
}

/* A rate named by its key, the step's unit over seconds: TF Estimator's "global_step/sec:
 * 2.44562", "steps/s = 3.1" (not "examples/sec: 311": samples). NAN when none. */
static double keyed_rate(const char *line)
{
    static const char *const steps[] = {"step",    "steps",     "iter",       "iters",
                                        "it",      "iteration", "iterations", "update",
                                        "updates", "batch",     "batches"};
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
        bool ok = false;
        for (size_t i = 0; i < sizeof steps / sizeof *steps && !ok; i++)
            ok = (size_t)(p - w) == strlen(steps[i]) && strncasecmp(w, steps[i], p - w) == 0;
        const char *v = gw_scan_spaces(u);
        if (!ok || (*v != ':' && *v != '='))
            continue;
        v = gw_scan_spaces(v + 1);
        char *end;
        double x = strtod(v, &end);
        if (end > v && isdigit((unsigned char)*v) && x > 0 && !isalnum((unsigned char)*end))
            return 1.0 / x;
    }
    return NAN;
}

double gw_step_time_alone(const char *line)
{
    const char *s = gw_scan_spaces(line);
    if (*s == '{' || strstr(line, "%|") || strlen(line) > 4096)
        return NAN;
    double x = keyed_rate(line);
    return isnan(x) ? gw_step_per_unit(line) : x;
}

/* `gpustat` output reader (see logread.h gw_logread_gpustat). */
#include "logread/lines.h"
#include "logread/logread.h"
#include "logread/sniff.h"
#include "logread/timeparse.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct gsreader {
    gw_series *s;
    size_t input;
    const char *source;
    int64_t t_ms;    /* the current screen's time */
    int64_t prev_ms; /* the previous screen's, INT64_MIN none */
    bool skip;
    long headless;     /* screens without a header line after one with it */
    long before_first; /* GPU lines before the first header (a file cut at its start) */
    long screens, same_second, rows, bad, first_bad, procs;
    gw_series_gpu *gpus[GW_LOGREAD_MAX_GPUS];
    size_t ngpus;
    bool too_many;
} gsreader;

/* Removes terminal escape sequences (gpustat -i redraws the screen, --color) in place. */
static void strip_escapes(char *line)
{
    char *w = line;
    for (const char *r = line; *r;) {
        if (r[0] == '\x1b' && r[1] == '[') {
            r += 2;
            while (*r && !isalpha((unsigned char)*r))
                r++;
            r += *r != '\0';
        } else if (*r == '\x1b' || *r == '\r') {
            r++;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
}

/* The screen's header line, "HOST   Tue Nov  5 14:03:01 2024  550.54.15": its time, found at
 * a weekday's name. */
static bool header_time(const char *line, int64_t *t_ms)
{
    static const char *days[] = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "};
    for (size_t d = 0; d < 7; d++)
        for (const char *p = strstr(line, days[d]); p; p = strstr(p + 1, days[d]))
            if ((p == line || p[-1] == ' ') && gw_timeparse(p, t_ms) >= 20)
                return true;
    return false;
}

static gw_series_gpu *gpu_of(gsreader *r, long index, const char *name)
{
    for (size_t i = 0; i < r->ngpus; i++)
        if (r->gpus[i]->index == index)
            return r->gpus[i];
    if (r->ngpus >= GW_LOGREAD_MAX_GPUS) {
        r->too_many = true;
        return NULL;
    }
    char key[24];
    snprintf(key, sizeof key, "%ld", index);
    gw_series_gpu *g = gw_series_add_gpu(r->s, r->input, r->source, key);
    g->index = (int)index;
    free(g->name);
    g->name = gw_series_text(name, false);
    r->gpus[r->ngpus++] = g;
    return g;
}

static void set(gw_series_gpu *g, size_t row, gw_gpu_field f, double v)
{
    if (!isnan(v) && gw_field_plausible(f, v))
        gw_series_gpu_set(g, f, row, v);
}

static double num(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    return end == s || !gw_fmt_sane(v) ? NAN : v;
}

/* "45°C", "45'C", "45 C": a temperature. */
static bool is_temp(const char *item)
{
    char *u = NULL;
    strtod(item, &u);
    if (u == item)
        return false;
    u += strspn(u, " ");
    if (strncmp(u, "\xc2\xb0", 2) == 0)
        u += 2;
    else if (*u == '\'')
        u++;
    return u[0] == 'C' && (u[1] == '\0' || isspace((unsigned char)u[1]));
}

/* "user:python/1234(20000M)": a process with its pid (gpustat -p / -c); others are skipped. */
static void processes(gsreader *r, char *cell, int gpu)
{
    for (char *tok = strtok(cell, " "); tok; tok = strtok(NULL, " ")) {
        char *open = strrchr(tok, '('), *slash = strrchr(tok, '/');
        if (!open || !slash || slash > open)
            continue;
        char *end = NULL;
        long pid = strtol(slash + 1, &end, 10);
        if (end != open || pid <= 0)
            continue;
        double mib = num(open + 1);
        *slash = '\0';
        char *colon = strchr(tok, ':');
        gw_series_add_proc(r->s, r->input, r->t_ms, gpu, pid, colon ? colon + 1 : tok, mib, -1);
        r->procs++;
    }
}

/* "[0] NVIDIA H100 80GB HBM3 | 68°C,  99 %,  650 / 700 W | 56072 / 81559 MB | u(56030M)". */
static bool gpu_line(gsreader *r, char *line)
{
    char *cells[4] = {line, NULL, NULL, NULL};
    size_t n = 1;
    for (char *bar; n < 4 && (bar = strchr(cells[n - 1], '|')) != NULL; n++) {
        *bar = '\0';
        cells[n] = bar + 1;
    }
    char *end = NULL;
    long index = strtol(line + 1, &end, 10);
    if (n < 3 || !end || *end != ']' || index < 0 || index > 1000000 || !strstr(cells[2], "/"))
        return false;
    char name[128];
    snprintf(name, sizeof name, "%s", end + 1 + strspn(end + 1, " "));
    for (size_t k = strlen(name); k > 0 && name[k - 1] == ' ';)
        name[--k] = '\0';
    gw_series_gpu *g = gpu_of(r, index, name);
    if (!g)
        return false;
    size_t row = gw_series_table_add_row(&g->tab, r->t_ms);
    bool temp_seen = false;
    for (char *item = strtok(cells[1], ","); item; item = strtok(NULL, ",")) {
        item += strspn(item, " ");
        double v = num(item);
        char *slash = strchr(item, '/');
        if (is_temp(item)) {
            set(g, row, GW_F_TEMP_GPU_C, v);
            temp_seen = true;
        } else if (slash && strchr(item, 'W')) {
            set(g, row, GW_F_POWER_DRAW_W, v);
            set(g, row, GW_F_POWER_LIMIT_W, num(slash + 1));
        } else if (strchr(item, '%')) {
            set(g, row, temp_seen ? GW_F_UTIL_GPU_PCT : GW_F_FAN_PCT, v);
        }
    }
    char *slash = strchr(cells[2], '/');
    set(g, row, GW_F_MEM_USED_MIB, num(cells[2])); /* gpustat's "MB" are MiB */
    set(g, row, GW_F_MEM_TOTAL_MIB, num(slash + 1));
    if (cells[3])
        processes(r, cells[3], (int)index);
    return true;
}

/* Whether any line of f is a screen's header; f is rewound. */
static bool has_header(FILE *f)
{
    gw_lines l = {.f = f};
    int64_t t;
    bool found = false;
    while (!found && gw_lines_next(&l) >= 0) {
        strip_escapes(l.line);
        const char *p = l.line + strspn(l.line, " \t");
        found = p[0] != '[' && header_time(p, &t);
    }
    gw_lines_free(&l);
    rewind(f);
    return found;
}

gw_rc gw_logread_gpustat(gw_series *s, FILE *f, size_t input, const char *source,
                         const gw_logread_opts *o, gw_error *err)
{
    gsreader r = {.s = s, .input = input, .source = source, .prev_ms = INT64_MIN};
    double interval_ms = (o && o->interval_s > 0 ? o->interval_s : 1.0) * 1000.0;
    gw_lines l = {.f = f};
    bool any_time = false;
    long last_index = -1; /* the previous GPU line's index in this screen */
    bool file_timed = has_header(f);
    while (gw_lines_next(&l) >= 0 && !r.too_many) {
        strip_escapes(l.line);
        char *p = l.line + strspn(l.line, " \t");
        int64_t t;
        if (p[0] != '[' && header_time(p, &t)) { /* a new screen */
            r.skip = r.prev_ms != INT64_MIN && t <= r.prev_ms;
            r.same_second += r.skip;
            r.t_ms = r.prev_ms = r.skip ? r.prev_ms : t;
            r.screens += !r.skip;
            any_time = true;
            last_index = -1;
            continue;
        }
        if (p[0] != '[' || !isdigit((unsigned char)p[1]) || r.skip)
            continue;
        if (file_timed && r.prev_ms == INT64_MIN) { /* before the first header: no time */
            r.before_first++;
            continue;
        }
        long index = strtol(p + 1, NULL, 10);
        if (index <= last_index || r.prev_ms == INT64_MIN) { /* a screen without its header */
            r.t_ms = r.prev_ms == INT64_MIN ? 0 : r.prev_ms + (int64_t)llround(interval_ms);
            r.prev_ms = r.t_ms;
            r.screens++;
            r.headless += any_time;
        }
        last_index = index;
        if (gpu_line(&r, p))
            r.rows++;
        else if (r.bad++ == 0)
            r.first_bad = l.line_no;
    }
    gw_lines_free(&l);
    gw_series_input *in = &s->inputs[input];
    if (r.too_many)
        return gw_error_set(err, GW_E_FORMAT, "%s: `gpustat` output with more than %d GPUs",
                            in->path, GW_LOGREAD_MAX_GPUS);
    if (r.rows == 0)
        return gw_error_set(err, GW_E_FORMAT, "%s: `gpustat` output without a GPU line: %s",
                            in->path, GW_LOGREAD_HOW_TO_RECORD);
    in->rows = (size_t)r.rows;
    in->rows_skipped = (size_t)r.bad;
    in->first_bad_line = r.first_bad;
    in->untimed = in->dateless = !any_time;
    char before[96] = "";
    if (r.before_first)
        snprintf(before, sizeof before, "; %ld GPU lines before the first header (no time) skipped",
                 r.before_first);
    char *note = xasprintf(
        "read as `gpustat` screens (%ld, %ld GPU lines, %ld processes with a pid)%s%s%s%s",
        r.screens, r.rows, r.procs,
        any_time ? "" : "; no header lines: screens spaced by --interval",
        r.same_second ? "; screens in a second already read skipped" : "",
        r.headless ? "; screens without their header placed one interval after the one before" : "",
        before);
    free(in->note);
    in->note = note;
    return GW_OK;
}

/* `nvidia-smi` / `nvidia-smi -l` table reader (see logread.h gw_logread_nvsmi_table). */
#include "logread/cells.h"
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

enum { TCELLS = 8 };

typedef enum { SEC_NONE, SEC_GPUS, SEC_MIG, SEC_PROCS } section;

typedef struct tgpu {
    gw_series_gpu *g;
    char key[48]; /* bus id, or the index when the table has none */
} tgpu;

typedef struct treader {
    gw_series *s;
    size_t input;
    const char *source, *path;
    double interval_ms;
    section sec;
    bool in_table;   /* between a snapshot's first line and the end of its processes */
    bool rule_seen;  /* the section's "|===" line was read: rows follow */
    bool skip;       /* this snapshot repeats the previous one's second: not read */
    bool timed;      /* the snapshot had a time line */
    bool any_time;   /* some snapshot had one */
    bool file_timed; /* the file has time lines (a first pass found one) */
    int64_t line_t;  /* the last time line's time */
    bool line_t_new; /* a time line came since the last snapshot began */
    int64_t snap_t;  /* the current snapshot's time */
    int64_t prev_t;  /* the previous snapshot's, INT64_MIN none */
    long snapshots, same_second, untimed_snapshots, gpu_rows, bad_rows, first_bad;
    long procs, first_line;
    tgpu gpus[GW_LOGREAD_MAX_GPUS];
    size_t ngpus;
    tgpu *cur;  /* the GPU whose first line was read, awaiting its second */
    size_t row; /* its row in the current snapshot */
    bool too_many;
} treader;

/* Splits a table line at '|' into trimmed cells (the empty ones before the first '|' and after
 * the last are dropped). */
static size_t split_bars(char *line, char **cells, size_t max)
{
    size_t n = 0;
    char *p = strchr(line, '|');
    while (p && n < max) {
        char *next = strchr(p + 1, '|');
        if (!next)
            break;
        *next = '\0'; /* the next cell starts after it: its '|' is not needed */
        char *c = p + 1 + strspn(p + 1, " ");
        char *e = c + strlen(c);
        while (e > c && e[-1] == ' ')
            *--e = '\0';
        cells[n++] = c;
        p = next;
    }
    return n;
}

/* A number with an optional unit ("27C", "32W", "0MiB", "93%"); NAN for "N/A" or anything else.
 * *unit gets what follows the digits. */
static double num_unit(const char *tok, const char **unit)
{
    char *end = NULL;
    double v = strtod(tok, &end);
    *unit = end ? end : "";
    if (!end || end == tok || !gw_fmt_sane(v))
        return NAN;
    return v;
}

static tgpu *gpu_of(treader *r, long index, const char *bus)
{
    char key[48];
    if (bus && *bus && strcmp(bus, "N/A") != 0)
        snprintf(key, sizeof key, "%.40s", bus);
    else
        snprintf(key, sizeof key, "%ld", index);
    for (size_t i = 0; i < r->ngpus; i++)
        if (strcmp(r->gpus[i].key, key) == 0)
            return &r->gpus[i];
    if (r->ngpus >= GW_LOGREAD_MAX_GPUS) {
        r->too_many = true;
        return NULL;
    }
    tgpu *t = &r->gpus[r->ngpus++];
    snprintf(t->key, sizeof t->key, "%s", key);
    t->g = gw_series_add_gpu(r->s, r->input, r->source, key);
    t->g->index = (int)index;
    if (bus && *bus && strcmp(bus, "N/A") != 0) {
        free(t->g->pci_bus_id);
        t->g->pci_bus_id = gw_series_text(bus, false);
    }
    return t;
}

static void set(gw_series_gpu *g, size_t row, gw_gpu_field f, double v)
{
    if (!isnan(v) && gw_field_plausible(f, v))
        gw_series_gpu_set(g, f, row, v);
}

/* "|   0  NVIDIA L40S                    On  |   00000000:4A:00.0 Off |   0 |": a GPU's first
 * line (index, name, bus id). */
static bool gpu_first_line(treader *r, char **cells, size_t n)
{
    char *end = NULL;
    long index = strtol(cells[0], &end, 10);
    if (n < 2 || end == cells[0] || index < 0 || index > 1000000 || *end != ' ')
        return false;
    char name[128], bus[48] = "";
    snprintf(name, sizeof name, "%s", end + strspn(end, " "));
    char *last = strrchr(name, ' '); /* Persistence-M or TCC/WDDM: the last word */
    if (last && (strcmp(last + 1, "On") == 0 || strcmp(last + 1, "Off") == 0 ||
                 strcmp(last + 1, "WDDM") == 0 || strcmp(last + 1, "TCC") == 0)) {
        while (last > name && last[-1] == ' ')
            last--;
        *last = '\0';
    }
    sscanf(cells[1], "%47s", bus);
    tgpu *t = gpu_of(r, index, bus);
    if (!t)
        return false;
    if (*name && !*t->g->name) {
        free(t->g->name);
        t->g->name = gw_series_text(name, false);
    }
    r->cur = t;
    r->row = gw_series_table_add_row(&t->g->tab, r->snap_t);
    r->gpu_rows++;
    return true;
}

/* "| N/A   27C    P8    32W /  350W |   0MiB /  46068MiB |   0%   Default |": its readings. */
static bool gpu_second_line(treader *r, char **cells, size_t n)
{
    gw_series_gpu *g = r->cur->g;
    size_t row = r->row;
    r->cur = NULL;
    if (n < 3 || !strstr(cells[1], "/"))
        return false;
    char buf[160];
    snprintf(buf, sizeof buf, "%s", cells[0]);
    bool after_slash = false;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        const char *u;
        if (strcmp(tok, "/") == 0) {
            after_slash = true;
            continue;
        }
        double v = num_unit(tok, &u);
        if (tok[0] == 'P' && isdigit((unsigned char)tok[1]))
            set(g, row, GW_F_PSTATE, atof(tok + 1));
        else if (strcmp(u, "%") == 0)
            set(g, row, GW_F_FAN_PCT, v);
        else if (strcmp(u, "C") == 0)
            set(g, row, GW_F_TEMP_GPU_C, v);
        else if (strcmp(u, "W") == 0)
            set(g, row, after_slash ? GW_F_POWER_LIMIT_W : GW_F_POWER_DRAW_W, v);
    }
    const char *u1, *u2;
    char *slash = strchr(cells[1], '/');
    double used = num_unit(cells[1], &u1),
           total = num_unit(slash + 1 + strspn(slash + 1, " "), &u2);
    set(g, row, GW_F_MEM_USED_MIB, used * gw_cells_unit_factor(u1, "MiB"));
    set(g, row, GW_F_MEM_TOTAL_MIB, total * gw_cells_unit_factor(u2, "MiB"));
    const char *u3;
    double util = num_unit(cells[2], &u3);
    if (u3[0] == '%')
        set(g, row, GW_F_UTIL_GPU_PCT, util);
    return true;
}

/* "|    0   N/A  N/A   3794277      C   python       11942MiB |" (GI/CI columns since driver
 * 450; before them "|    0     12345      C   python      1234MiB |"). */
static bool process_line(treader *r, char *cell)
{
    char *tok[32] = {0};
    size_t n = 0;
    for (char *t = strtok(cell, " "); t && n < 32; t = strtok(NULL, " "))
        tok[n++] = t;
    size_t type = 0;
    for (size_t i = 2; i + 1 < n && !type; i++)
        if (strcmp(tok[i], "C") == 0 || strcmp(tok[i], "G") == 0 || strcmp(tok[i], "C+G") == 0 ||
            strcmp(tok[i], "M") == 0 || strcmp(tok[i], "M+C") == 0)
            type = i;
    char *end = NULL;
    long gpu = n ? strtol(tok[0], &end, 10) : -1;
    long pid = type ? strtol(tok[type - 1], NULL, 10) : 0;
    if (!type || !end || *end || gpu < 0 || pid <= 0)
        return false;
    const char *u;
    double mib = num_unit(tok[n - 1], &u);
    mib = strcmp(u, "MiB") == 0 ? mib : NAN;
    char name[256] = "";
    size_t last = isnan(mib) && strcmp(tok[n - 1], "N/A") != 0 ? n : n - 1;
    for (size_t i = type + 1; i < last; i++)
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s%s", *name ? " " : "", tok[i]);
    gw_series_add_proc(r->s, r->input, r->snap_t, (int)gpu, pid, name, mib, -1);
    r->procs++;
    return true;
}

static void bad(treader *r, long line_no)
{
    if (r->bad_rows++ == 0)
        r->first_bad = line_no;
}

/* A snapshot begins (its "| NVIDIA-SMI" line, or the first "+---" after a time line). */
static void begin_snapshot(treader *r, long line_no)
{
    r->in_table = true;
    r->sec = SEC_NONE;
    r->rule_seen = false;
    r->cur = NULL;
    r->timed = r->line_t_new;
    r->line_t_new = false;
    if (r->timed)
        r->snap_t = r->line_t;
    else if (r->prev_t != INT64_MIN) /* its time line lost: one interval after the last */
        r->snap_t = r->prev_t + (int64_t)r->interval_ms;
    else
        r->snap_t = (int64_t)llround((double)r->snapshots * r->interval_ms);
    r->skip = (r->prev_t != INT64_MIN && r->snap_t <= r->prev_t) ||
              (!r->timed && r->file_timed && r->prev_t == INT64_MIN);
    if (r->skip) { /* a second read already, a clock set back, or before the first time */
        r->same_second++;
        return;
    }
    r->untimed_snapshots += !r->timed && r->file_timed;
    if (!r->first_line)
        r->first_line = line_no;
    r->prev_t = r->snap_t;
    r->snapshots++;
}

static void table_line(treader *r, char *line, long line_no)
{
    if (strstr(line, "|=") && strstr(line, "===")) { /* "|===", a pasted "||===" */
        r->rule_seen = true;
        return;
    }
    if (line[0] == '+') { /* a GPU's block ends; a GPU line awaiting its readings is lost */
        if (r->cur)
            bad(r, line_no);
        r->cur = NULL;
        return;
    }
    if (strstr(line, "| MIG devices:")) {
        r->sec = SEC_MIG; /* GPU instances: their rows are no GPUs */
        return;
    }
    if (strstr(line, "| Processes:")) {
        r->sec = SEC_PROCS;
        r->rule_seen = false;
        return;
    }
    if (r->sec == SEC_NONE && strstr(line, "| GPU ")) {
        r->sec = SEC_GPUS;
        return;
    }
    if (!r->rule_seen || r->skip)
        return;
    char *cells[TCELLS];
    size_t n = split_bars(line, cells, TCELLS);
    if (n == 0)
        return;
    if (r->sec == SEC_GPUS && r->cur) {
        if (!gpu_second_line(r, cells, n))
            bad(r, line_no);
    } else if (r->sec == SEC_GPUS && isdigit((unsigned char)cells[0][0])) {
        if (!gpu_first_line(r, cells, n))
            bad(r, line_no);
    } else if (r->sec == SEC_PROCS && n == 1 && isdigit((unsigned char)cells[0][0])) {
        if (!process_line(r, cells[0]))
            bad(r, line_no);
    }
}

/* The line nvidia-smi prints above each table ("Tue Oct 29 19:00:23 2024"), alone on its line. */
static bool time_line(char *line, int64_t *t)
{
    char *p = line + strspn(line, " \t");
    size_t len = strcspn(p, "\r\n");
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    p[len] = '\0';
    return *p && p[0] != '|' && p[0] != '+' && gw_timeparse(p, t) == len;
}

/* Whether any line of f is a time line; f is rewound. */
static bool has_time_line(FILE *f)
{
    gw_lines l = {.f = f};
    int64_t t;
    bool found = false;
    while (!found && gw_lines_next(&l) >= 0)
        found = time_line(l.line, &t);
    gw_lines_free(&l);
    rewind(f);
    return found;
}

gw_rc gw_logread_nvsmi_table(gw_series *s, FILE *f, size_t input, const char *source,
                             const gw_logread_opts *o, gw_error *err)
{
    treader r = {.s = s, .input = input, .source = source, .path = s->inputs[input].path};
    r.interval_ms = (o && o->interval_s > 0 ? o->interval_s : 1.0) * 1000.0;
    r.prev_t = INT64_MIN;
    r.file_timed = has_time_line(f);
    gw_lines l = {.f = f};
    while (gw_lines_next(&l) >= 0 && !r.too_many) {
        int64_t t;
        bool timed = time_line(l.line, &t); /* trims l.line */
        char *line = l.line + strspn(l.line, " \t");
        if (line[0] != '|' && line[0] != '+') {
            if (timed) { /* nvidia-smi's own "Tue Oct 29 ..." */
                r.line_t = t;
                r.line_t_new = true;
                r.any_time = true;
            }
            r.cur = NULL;
            continue; /* a blank line, a shell prompt, "==== date ====": between snapshots */
        }
        bool starts = strstr(line, "NVIDIA-SMI ") != NULL;
        if (starts)
            begin_snapshot(&r, l.line_no);
        else if (!r.in_table && line[0] == '+' && r.line_t_new)
            continue; /* the top rule of a snapshot whose NVIDIA-SMI line comes next */
        if (r.in_table && !starts)
            table_line(&r, line, l.line_no);
    }
    gw_lines_free(&l);
    gw_series_input *in = &s->inputs[input];
    if (r.too_many)
        return gw_error_set(err, GW_E_FORMAT, "%s: an `nvidia-smi` table with more than %d GPUs",
                            r.path, GW_LOGREAD_MAX_GPUS);
    if (r.gpu_rows == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: an `nvidia-smi` table without a GPU row the report reads (%ld "
                            "snapshots): %s",
                            r.path, r.snapshots, GW_LOGREAD_HOW_TO_RECORD);
    in->rows = (size_t)r.gpu_rows;
    in->rows_skipped = (size_t)r.bad_rows;
    in->first_bad_line = r.first_bad;
    in->untimed = !r.any_time;
    in->dateless = in->untimed;
    char *note = xasprintf(
        "read as `nvidia-smi` table snapshots (%ld, %ld GPU rows, %ld process rows)%s; "
        "utilization.gpu, memory, power and temperature only: no clocks or throttle reasons",
        r.snapshots, r.gpu_rows, r.procs,
        r.any_time ? "" : ", no time lines: spaced by the interval (--interval)");
    if (r.untimed_snapshots) {
        char *more = xasprintf("%s; %ld snapshots without their time line placed one interval "
                               "after the one before",
                               note, r.untimed_snapshots);
        free(note);
        note = more;
    }
    if (r.same_second) {
        char *more = xasprintf("%s; %ld snapshots in a second already read skipped (the table's "
                               "clock counts whole seconds: faster snapshots, a clock set back, "
                               "or none read before)",
                               note, r.same_second);
        free(note);
        note = more;
    }
    char *joined = xasprintf("%s%s%s", in->note, *in->note ? "; " : "", note);
    free(in->note);
    free(note);
    in->note = joined;
    return GW_OK;
}

/* `nvidia-smi dmon` reader (see logread.h). */
#include "logread/cells.h"
#include "logread/lines.h"
#include "logread/logread.h"
#include "logread/timeparse.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DMON_MAX_COLS = 48 };

/* dmon's column names (-s p: pwr gtemp mtemp, u: sm mem enc dec jpg ofa, c: mclk pclk, m: fb
 * bar1 ccpm) are the field table's (gw_fields[].dmon); other columns are ignored and named in the
 * report. */
typedef enum { D_IGNORE, D_GPU, D_DATE, D_TIME, D_FIELD } dkind;

typedef struct dcol {
    dkind kind;
    int field;
} dcol;

typedef struct dmon {
    dcol cols[DMON_MAX_COLS];
    size_t ncols;
    char ignored[160];
    bool has_date, has_time, any_tod;
    bool any_value;              /* a header named a column the report reads */
    int64_t day_ms, last_tod_ms; /* time of day only: days added at each midnight */
} dmon;

/* dmon's cells: separated by blanks, or by ',' with `dmon --format csv`. */
static size_t split_ws(char *line, char **tok, size_t max)
{
    size_t n = 0;
    for (char *p = strtok(line, " \t\r\n,"); p; p = strtok(NULL, " \t\r\n,")) {
        if (n < max)
            tok[n] = p;
        n++;
    }
    return n;
}

static void dmon_header(dmon *d, char **tok, size_t n)
{
    d->ncols = n;
    d->has_date = d->has_time = false;
    d->ignored[0] = '\0';
    for (size_t i = 0; i < n && i < DMON_MAX_COLS; i++) {
        dcol *c = &d->cols[i];
        *c = (dcol){D_IGNORE, -1};
        if (strcmp(tok[i], "gpu") == 0 || strcmp(tok[i], "Idx") == 0)
            c->kind = D_GPU;
        else if (strcasecmp(tok[i], "Date") == 0)
            c->kind = D_DATE;
        else if (strcasecmp(tok[i], "Time") == 0)
            c->kind = D_TIME;
        for (int f = 0; c->kind == D_IGNORE && f < GW_F_COUNT; f++)
            if (gw_fields[f].dmon && strcmp(tok[i], gw_fields[f].dmon) == 0) {
                c->kind = D_FIELD;
                c->field = f;
            }
        if (c->kind == D_IGNORE) {
            size_t len = strlen(d->ignored);
            if (len + strlen(tok[i]) + 8 < sizeof d->ignored)
                snprintf(d->ignored + len, sizeof d->ignored - len, "%s%s", len ? ", " : "",
                         tok[i]);
        }
        d->any_value |= c->kind == D_FIELD;
        d->has_date |= c->kind == D_DATE;
        d->has_time |= c->kind == D_TIME;
    }
}

/* The row's time: Date (YYYYMMDD) and Time (HH:MM:SS) in local time; a time of day alone counts
 * days from the first; neither: the GPU's row count times the interval. */
static bool row_time(dmon *d, const char *date, const char *tod, size_t nrows, double interval_ms,
                     int64_t *t_ms)
{
    char buf[48];
    if (date && tod) {
        if (strlen(date) != 8)
            return false;
        snprintf(buf, sizeof buf, "%.4s-%.2s-%.2s %s", date, date + 4, date + 6, tod);
        return gw_timeparse(buf, t_ms) == strlen(buf);
    }
    if (tod) {
        int64_t ms;
        snprintf(buf, sizeof buf, "1970-01-01 %sZ", tod);
        if (gw_timeparse(buf, &ms) != strlen(buf))
            return false;
        if (!d->any_tod) { /* times count from the first row: the date is unknown */
            d->any_tod = true;
            d->day_ms = -ms;
        } else if (ms + 12 * 3600 * 1000 < d->last_tod_ms) { /* past midnight */
            d->day_ms += 86400 * 1000;
        }
        d->last_tod_ms = ms;
        *t_ms = d->day_ms + ms;
        return true;
    }
    *t_ms = (int64_t)llround((double)nrows * interval_ms);
    return true;
}

static gw_series_gpu *dmon_gpu(gw_series *s, size_t input, const char *source, long index,
                               size_t *ngpus)
{
    gw_series_gpu *g = gw_series_find_gpu(s, input, (int)index);
    if (g)
        return g;
    if (*ngpus >= GW_LOGREAD_MAX_GPUS)
        return NULL;
    char key[24];
    snprintf(key, sizeof key, "%ld", index);
    g = gw_series_add_gpu(s, input, source, key);
    g->index = (int)index;
    (*ngpus)++;
    return g;
}

/* Reads one data row; false when it cannot be read (then nothing is stored). */
static bool dmon_row(gw_series *s, size_t input, const char *source, dmon *d, char **tok,
                     double interval_ms, size_t *ngpus, bool *too_many)
{
    long index = -1;
    const char *date = NULL, *tod = NULL;
    double v[DMON_MAX_COLS];
    uint64_t impossible = 0; /* GW_FIELD_BIT of the fields dropped as impossible */
    for (size_t i = 0; i < d->ncols; i++) {
        const dcol *c = &d->cols[i];
        const char *unit;
        char *end;
        v[i] = NAN;
        switch (c->kind) {
        case D_GPU:
            index = strtol(tok[i], &end, 10);
            if (*end || index < 0 || index > 1000000)
                return false;
            break;
        case D_DATE:
            date = tok[i];
            break;
        case D_TIME:
            tod = tok[i];
            break;
        case D_FIELD:
            if (gw_cells_absent(tok[i]))
                break;
            if (!gw_cells_number(tok[i], &v[i], &unit) || *unit)
                return false;
            if (!gw_field_plausible((gw_field)c->field, v[i])) {
                v[i] = NAN; /* no reading of any GPU (the sampler's bounds): dropped, counted */
                impossible |= GW_FIELD_BIT(c->field);
            }
            break;
        case D_IGNORE:
            break;
        }
    }
    if (index < 0)
        return false;
    gw_series_gpu *g = dmon_gpu(s, input, source, index, ngpus);
    if (!g) {
        *too_many = true;
        return false;
    }
    int64_t t_ms;
    if (!row_time(d, d->has_date ? date : NULL, tod, g->tab.n, interval_ms, &t_ms))
        return false;
    size_t row = gw_series_table_add_row(&g->tab, t_ms);
    for (int f = 0; impossible && f < GW_F_COUNT; f++)
        s->inputs[input].impossible[f] += (impossible >> f) & 1u;
    for (size_t i = 0; i < d->ncols; i++) {
        if (isnan(v[i]))
            continue;
        if (d->cols[i].kind == D_FIELD)
            gw_series_gpu_set(g, (gw_gpu_field)d->cols[i].field, row, v[i]);
    }
    return true;
}

gw_rc gw_logread_dmon(gw_series *s, FILE *f, size_t input, const char *source,
                      const gw_logread_opts *o, gw_error *err)
{
    gw_series_input *in = &s->inputs[input];
    double interval_ms = (o && o->interval_s > 0 ? o->interval_s : 1.0) * 1000.0;
    dmon d = {.ncols = 0};
    gw_lines l = {.f = f};
    char *tok[DMON_MAX_COLS];
    size_t ngpus = 0;
    bool too_many = false;
    while (gw_lines_next(&l) >= 0 && !too_many) {
        char *p = l.line + strspn(l.line, " \t");
        if (*p == '#') {
            size_t n = split_ws(p + 1, tok, DMON_MAX_COLS);
            bool names = false;
            for (size_t i = 0; i < n && i < DMON_MAX_COLS; i++)
                names |= strcmp(tok[i], "gpu") == 0;
            if (names && n <= DMON_MAX_COLS)
                dmon_header(&d, tok, n); /* the units line ("# Idx W C ...") is skipped */
            continue;
        }
        size_t n = split_ws(p, tok, DMON_MAX_COLS);
        if (n == 0)
            continue;
        if (n != d.ncols || !dmon_row(s, input, source, &d, tok, interval_ms, &ngpus, &too_many)) {
            if (in->rows_skipped++ == 0)
                in->first_bad_line = l.line_no;
        } else {
            in->rows++;
        }
    }
    gw_lines_free(&l);
    if (too_many)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: more than %d GPUs (line %ld): a file may hold at most %d; split "
                            "it by GPU",
                            in->path, GW_LOGREAD_MAX_GPUS, l.line_no, GW_LOGREAD_MAX_GPUS);
    if (in->rows == 0 && d.ncols == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: `nvidia-smi dmon` output without its '# gpu ...' header line: "
                            "record without noheader (`nvidia-smi dmon -o DT > FILE`)",
                            in->path);
    if (in->rows == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: `nvidia-smi dmon` output without readable rows%s", in->path,
                            in->rows_skipped ? " (every row has another number of cells than "
                                               "the '# gpu ...' header)"
                                             : "");
    if (!d.any_value)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: `nvidia-smi dmon` output without a column the report reads "
                            "(sm, mem, pwr, gtemp, fb, mclk, pclk): record with `nvidia-smi dmon "
                            "-s pucm`",
                            in->path);
    in->untimed = !d.has_time;
    in->dateless = !d.has_date || !d.has_time;
    char *note =
        xasprintf("read as `nvidia-smi dmon` output%s%s%s%s", *d.ignored ? "; " : "",
                  *d.ignored ? "columns ignored: " : "", d.ignored,
                  in->dateless && d.has_time ? "; no Date column: the date is unknown" : "");
    free(in->note);
    in->note = note;
    if (l.nul_bytes) {
        char *n2 = xasprintf("%s; %zu NUL bytes removed (the first at line %ld)", in->note,
                             l.nul_bytes, l.first_nul_line);
        free(in->note);
        in->note = n2;
    }
    return GW_OK;
}

/* A plain-text table whose columns each print one way (see gw_table.h). */
#include "util/gw_table.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cell {
    double x;   /* NAN when the cell holds words or nothing */
    char *text; /* NULL unless words */
} cell;

struct gw_table {
    gw_table_col *cols;
    size_t ncols, nrows, cap;
    cell *cells; /* [nrows * ncols] */
};

gw_table *gw_table_new(const gw_table_col *cols, size_t ncols)
{
    gw_table *t = xcalloc(1, sizeof *t);
    t->cols = xmalloc((ncols ? ncols : 1) * sizeof *t->cols);
    memcpy(t->cols, cols, ncols * sizeof *cols);
    t->ncols = ncols;
    return t;
}

size_t gw_table_row(gw_table *t)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->cells = xrealloc(t->cells, t->cap * (t->ncols ? t->ncols : 1) * sizeof *t->cells);
    }
    for (size_t c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = (cell){NAN, NULL};
    return t->nrows++;
}

static cell *cell_at(gw_table *t, size_t row, size_t col)
{
    return row < t->nrows && col < t->ncols ? &t->cells[row * t->ncols + col] : NULL;
}

void gw_table_num(gw_table *t, size_t row, size_t col, double x)
{
    cell *c = cell_at(t, row, col);
    if (c)
        c->x = gw_fmt_sane(x) ? x : NAN;
}

void gw_table_text(gw_table *t, size_t row, size_t col, const char *s)
{
    cell *c = cell_at(t, row, col);
    if (!c)
        return;
    free(c->text);
    c->text = s ? xstrdup(s) : NULL;
}

/* The decimals of column c: its own, or chosen from its values. */
static int column_decimals(const gw_table *t, size_t c)
{
    if (t->cols[c].decimals != GW_TABLE_AUTO)
        return t->cols[c].decimals;
    double *v = xmalloc((t->nrows ? t->nrows : 1) * sizeof *v);
    for (size_t r = 0; r < t->nrows; r++)
        v[r] = t->cells[r * t->ncols + c].x;
    int d = gw_fmt_decimals(v, t->nrows);
    free(v);
    return d;
}

/* Every cell as it prints: [nrows * ncols] strings ("" when empty). */
static char **render(const gw_table *t)
{
    char **s = xcalloc(t->nrows * t->ncols + 1, sizeof *s);
    for (size_t c = 0; c < t->ncols; c++) {
        int d = column_decimals(t, c);
        for (size_t r = 0; r < t->nrows; r++) {
            const cell *x = &t->cells[r * t->ncols + c];
            char b[GW_FMT_SIZE];
            s[r * t->ncols + c] =
                xstrdup(x->text ? x->text : gw_fmt_fixed(b, sizeof b, x->x, d, 0, ""));
        }
    }
    return s;
}

/* Columns of UTF-8 text: its characters (no continuation byte starts one). */
static int cols_of(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The columns of what b holds. */
static size_t cols_in(const gw_buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += ((unsigned char)b->data[i] & 0xC0) != 0x80;
    return n;
}

static void pad(gw_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        gw_buf_append(b, " ", 1);
}

/* A cell right- or left-aligned in w columns. */
static void put(gw_buf *b, const char *s, int w, bool left)
{
    if (!left)
        pad(b, w - cols_of(s));
    gw_buf_puts(b, s);
    if (left)
        pad(b, w - cols_of(s));
}

/* The end (exclusive) of the group of shown columns that starts at column c. */
static size_t group_end(const gw_table *t, const bool *shown, size_t c)
{
    const char *g = t->cols[c].group;
    size_t e = c + 1;
    while (e < t->ncols && (!shown[e] || (g && t->cols[e].group == g)))
        e++;
    while (e > c + 1 && !shown[e - 1])
        e--;
    return e;
}

/* The columns of [c, e) and the gaps between them. */
static int span_of(const bool *shown, const int *w, size_t c, size_t e)
{
    int span = 0;
    for (size_t k = c; k < e; k++)
        if (shown[k])
            span += (span ? 2 : 0) + w[k];
    return span;
}

/* Widens the last column of each group whose heading is wider than its columns. */
static void fit_groups(const gw_table *t, const bool *shown, int *w)
{
    for (size_t c = 0; c < t->ncols;) {
        if (!shown[c]) {
            c++;
            continue;
        }
        size_t e = group_end(t, shown, c);
        int need = t->cols[c].group ? cols_of(t->cols[c].group) : 0;
        int span = span_of(shown, w, c, e);
        if (need > span)
            w[e - 1] += need - span;
        c = e;
    }
}

/* Writes one line without its trailing spaces. */
static void line_out(FILE *out, gw_buf *b)
{
    size_t n = b->len;
    while (n > 0 && b->data[n - 1] == ' ')
        n--;
    fprintf(out, "%.*s\n", (int)n, b->data ? b->data : "");
    gw_buf_reset(b);
}

/* The group headings, each centred over its columns. */
static void groups_line(const gw_table *t, gw_buf *b, int indent, const bool *shown, const int *w)
{
    int at = indent; /* where the next column starts */
    bool first = true;
    for (size_t c = 0; c < t->ncols;) {
        if (!shown[c]) {
            c++;
            continue;
        }
        size_t e = group_end(t, shown, c);
        int span = span_of(shown, w, c, e);
        at += first ? 0 : 2;
        first = false;
        const char *g = t->cols[c].group;
        if (g) {
            int start = at + (span - cols_of(g) + 1) / 2;
            pad(b, start - (int)cols_in(b));
            gw_buf_puts(b, g);
        }
        at += span;
        c = e;
    }
}

void gw_table_print(const gw_table *t, FILE *out, int indent)
{
    char **s = render(t);
    bool *shown = xcalloc(t->ncols + 1, sizeof *shown);
    int *w = xcalloc(t->ncols + 1, sizeof *w);
    bool any_group = false;
    for (size_t c = 0; c < t->ncols; c++) {
        shown[c] = t->cols[c].keep;
        w[c] = cols_of(t->cols[c].name);
        for (size_t r = 0; r < t->nrows; r++) {
            const char *x = s[r * t->ncols + c];
            shown[c] |= *x != '\0';
            if (cols_of(x) > w[c])
                w[c] = cols_of(x);
        }
        any_group |= shown[c] && t->cols[c].group;
    }
    fit_groups(t, shown, w);
    gw_buf b = {0};
    if (any_group) {
        groups_line(t, &b, indent, shown, w);
        line_out(out, &b);
    }
    for (size_t r = 0; r <= t->nrows; r++) { /* the headings, then the rows */
        pad(&b, indent);
        bool first = true;
        for (size_t c = 0; c < t->ncols; c++) {
            if (!shown[c])
                continue;
            if (!first)
                gw_buf_puts(&b, "  ");
            first = false;
            put(&b, r == 0 ? t->cols[c].name : s[(r - 1) * t->ncols + c], w[c], t->cols[c].text);
        }
        line_out(out, &b);
    }
    gw_buf_free(&b);
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(s[i]);
    free(s);
    free(shown);
    free(w);
}

void gw_table_free(gw_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i].text);
    free(t->cells);
    free(t->cols);
    free(t);
}

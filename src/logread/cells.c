/* Cell-level CSV grammar (see cells.h). */
#include "logread/cells.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline bool is_trim(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline char *trim(char *s, char *end)
{
    while (s < end && is_trim(*s))
        s++;
    while (end > s && is_trim(end[-1]))
        end--;
    *end = '\0';
    return s;
}

/* A cell quoted as RFC 4180 writes it (Python's csv module, spreadsheets): p at the opening '"'.
 * Unquotes in place ("" is one '"'; a line break inside becomes a space) and returns the end of
 * the cell's text, *after set to what follows the closing quote. */
static char *unquote(char *p, char **after)
{
    char *w = p, *r = p + 1;
    while (*r) {
        if (r[0] == '"' && r[1] == '"') {
            *w++ = '"';
            r += 2;
        } else if (r[0] == '"') {
            r++;
            break;
        } else {
            *w++ = *r == '\n' || *r == '\r' ? ' ' : *r;
            r++;
        }
    }
    *after = r;
    return w;
}

/* The end of an unquoted cell starting at p: its ',' or the line's '\0'. A byte loop: cells are
 * a few bytes long, shorter than a strchr call costs (it was ~8 % of reading a big gpu.csv). */
static char *cell_end(char *p)
{
    while (*p != ',' && *p != '\0')
        p++;
    return p;
}

size_t gw_cells_split(char *line, char **cells, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *comma, *cell;
        if (*p == '"') {
            char *after, *end = unquote(p, &after);
            comma = strchr(after, ','); /* text after the closing quote is dropped */
            cell = trim(p, end);
        } else {
            char *end = cell_end(p);
            comma = *end == ',' ? end : NULL; /* read before trim writes its '\0' there */
            cell = trim(p, end);
        }
        if (n < max)
            cells[n] = cell;
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

bool gw_cells_absent(const char *c)
{
    const char *d = c[0] == '-' || c[0] == '+' ? c + 1 : c;
    if (*d >= '0' && *d <= '9') /* a number: none of the markers below (most cells) */
        return false;
    if (c[0] == '\0')
        return true;
    if (!strchr("-+nNiI[", c[0])) /* "P0", "Enabled", a name: none of the markers below */
        return false;
    if (strcmp(c, "-") == 0 || strcasecmp(c, "N/A") == 0)
        return true;
    /* what pandas and printf write for non-numbers: never a reading (docs/report.md) */
    const char *u = c[0] == '-' || c[0] == '+' ? c + 1 : c;
    if (strcasecmp(c, "nan") == 0 || strcasecmp(u, "inf") == 0 || strcasecmp(u, "infinity") == 0)
        return true;
    size_t n = strlen(c);
    return c[0] == '[' && c[n - 1] == ']';
}

static inline bool is_digit(char c)
{
    return (unsigned char)(c - '0') < 10; /* isdigit without the locale table's lookup */
}

/* The value of a hexadecimal digit, -1 for anything else. */
static inline int hex_digit(char c)
{
    if (is_digit(c))
        return c - '0';
    unsigned l = (unsigned char)(c | 0x20) - 'a';
    return l < 6 ? (int)l + 10 : -1;
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Decimal without exponent and with at most 15 significant digits: both the digits and the power
 * of ten are exact doubles, so one division is correctly rounded (Clinger's fast path). Falls
 * back to strtod for everything else. Returns the end of the number, or NULL. */
static const char *parse_decimal(const char *s, double *out)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t mant = 0;
    int ndig = 0, frac = 0;
    bool any = false;
    while (is_digit(*p)) {
        mant = mant * 10 + (uint64_t)(*p++ - '0');
        ndig += mant != 0;
        any = true;
    }
    if (*p == '.') {
        p++;
        while (is_digit(*p)) {
            mant = mant * 10 + (uint64_t)(*p++ - '0');
            ndig += mant != 0;
            frac++;
            any = true;
        }
    }
    if (!any)
        return NULL;
    if (ndig <= 15 && frac <= 22 && *p != 'e' && *p != 'E') {
        double v = frac ? (double)mant / pow10_exact[frac] : (double)mant; /* x / 1 is x */
        *out = neg ? -v : v;
        return p;
    }
    char *end = NULL;
    double v = strtod(s, &end); /* "1e999" overflows to +-inf: absurd, the callers drop it */
    if (end == s)
        return NULL;
    *out = v;
    return end;
}

bool gw_cells_number(const char *cell, double *value, const char **unit)
{
    const char *c = cell;
    if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X') && isxdigit((unsigned char)c[2])) {
        uint64_t v = 0; /* by hand: strtoull was a cost on every row of gpu.csv */
        const char *p = c + 2;
        bool over = false;
        for (int d; (d = hex_digit(*p)) >= 0; p++) {
            over |= (v >> 60) != 0; /* more than 64 bits: UINT64_MAX, as strtoull gives */
            v = v << 4 | (uint64_t)d;
        }
        if (over)
            v = UINT64_MAX;
        if (*p != '\0')
            return false;
        *value = (double)v;
        *unit = p;
        return true;
    }
    if (c[0] == 'P' && is_digit(c[1])) { /* a performance state, "P0".."P15" */
        const char *p = c + 1;
        long v = 0;
        while (is_digit(*p) && v <= 15) /* by hand too: strtol was a call per row */
            v = v * 10 + (*p++ - '0');
        if (*p != '\0' || v > 15)
            return false;
        *value = (double)v;
        *unit = p;
        return true;
    }
    const char *end = parse_decimal(c, value);
    if (!end)
        return false;
    while (*end == ' ')
        end++;
    /* A unit is letters or '%' only: "12abc3" and "1.2.3" are not numbers. */
    for (const char *u = end; *u; u++)
        if (!isalpha((unsigned char)*u) && *u != '%')
            return false;
    *unit = end;
    return true;
}

void gw_cells_header(char *cell, const char **key, const char **unit)
{
    *key = cell;
    *unit = "";
    char *open = strchr(cell, '[');
    size_t len = strlen(cell);
    if (!open && len > 2 && cell[len - 1] == ')') /* a spreadsheet's "GPU Util (%)" */
        open = strrchr(cell, '(');
    if (!open)
        return;
    char *close = strchr(open, *open == '[' ? ']' : ')');
    if (close)
        *close = '\0';
    *unit = open + 1;
    char *k = open;
    while (k > cell && k[-1] == ' ')
        k--;
    *k = '\0';
}

typedef struct unit_def {
    const char *name;
    int dim;
    double factor;
} unit_def;

static const unit_def units[] = {
    {"B", 1, 1.0},        {"KiB", 1, 1024.0}, {"MiB", 1, 1048576.0}, {"GiB", 1, 1073741824.0},
    {"mW", 2, 0.001},     {"W", 2, 1.0},      {"kW", 2, 1000.0},     {"kHz", 3, 0.001},
    {"MHz", 3, 1.0},      {"GHz", 3, 1000.0}, {"mJ", 4, 1.0},        {"J", 4, 1000.0},
    {"kJ", 4, 1000000.0}, {"ms", 5, 0.001},   {"s", 5, 1.0},         {"us", 5, 1e-6},
    {"%", 6, 1.0},
};

static const unit_def *find_unit(const char *name)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(units[i].name, name) == 0)
            return &units[i];
    return NULL;
}

double gw_cells_unit_factor(const char *from, const char *to)
{
    if (!from || !to || !*from || !*to || strcmp(from, to) == 0)
        return 1.0;
    const unit_def *f = find_unit(from), *t = find_unit(to);
    if (!f || !t || f->dim != t->dim)
        return 1.0;
    return f->factor / t->factor;
}

/* A header cell: a name of letters, digits, '.', '_' and inner spaces that starts with a letter
 * ("utilization.gpu", "encoder.stats.sessionCount", "GPU ID", "temp_c"), with an optional
 * " [unit]". Values never look like that: numbers, times, "[N/A]", uuids and bus ids ('-', ':')
 * do not. */
static bool is_key(const char *c)
{
    static const char *values[] = {"Active", "Not Active", "Enabled", "Disabled", "Default",
                                   "On",     "Off",        "Yes",     "No",       "WDDM"};
    if (!isalpha((unsigned char)c[0]))
        return false;
    if (c[0] == 'P' && isdigit((unsigned char)c[1]) &&
        (!c[2] || (isdigit((unsigned char)c[2]) && !c[3])))
        return false; /* a performance state "P0".."P15" */
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        if (strcmp(c, values[i]) == 0)
            return false;
    const char *p = c;
    while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
           (*p == ' ' && p[1] != ' ' && p[1] != '[' && p[1] != '('))
        p++;
    if (*p == '\0')
        return true;
    if (p[0] == ' ')
        p++;
    if (p[0] != '[' && p[0] != '(')
        return false;
    const char *close = strchr(p, p[0] == '[' ? ']' : ')');
    return close && close[1] == '\0';
}

bool gw_cells_is_header(char **cells, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_key(cells[i]))
            return false;
    return true;
}

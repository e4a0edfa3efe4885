/* Input recognition and the generic time/number table reader (see logread.h). */
#include "logread/cells.h"
#include "logread/logread.h"
#include "logread/timeparse.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_COLS = 64 };

int gw_logread_gpm_field(const char *key)
{
    static const struct {
        const char *key;
        gw_gpu_field field;
    } map[] = {
        {"sm_util_pct", GW_F_GPM_SM_ACTIVE_PCT},
        {"sm_occupancy_pct", GW_F_GPM_SM_OCCUPANCY_PCT},
        {"tensor_util_pct", GW_F_GPM_TENSOR_ACTIVE_PCT},
        {"dram_bw_util_pct", GW_F_GPM_DRAM_ACTIVE_PCT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(key, map[i].key) == 0)
            return (int)map[i].field;
    return -1;
}

int gw_logread_host_field(const char *key)
{
    int f = gw_field_by_key(GW_FG_HOST, key);
    return f >= 0 ? f : gw_field_by_key(GW_FG_JOB, key);
}

/* Maps header cells to table columns and the factor that brings a known field's values from the
 * header's unit into the field's; returns false when the first column is not a time. */
static bool table_header(gw_series_table *t, char **cells, size_t n, long *col_of, double *factor,
                         int (*field_of)(const char *))
{
    const char *key0, *unit0;
    gw_cells_header(cells[0], &key0, &unit0);
    if (strcmp(key0, "timestamp") != 0 && strcmp(key0, "unix_time") != 0)
        return false;
    for (size_t i = 1; i < n; i++) {
        char *name = xstrdup(cells[i]);
        const char *key, *unit;
        gw_cells_header(cells[i], &key, &unit);
        int field = field_of ? field_of(key) : -1;
        factor[i] = field >= 0 ? gw_cells_unit_factor(unit, gw_fields[field].unit) : 1.0;
        col_of[i] =
            (long)gw_series_table_col(t, field >= 0 ? gw_fields[field].csv_header : name, field);
        free(name);
    }
    return true;
}

static bool table_row(gw_series_table *t, char **cells, size_t n, const long *col_of,
                      const double *factor)
{
    int64_t t_ms;
    double v[MAX_COLS];
    if (!*cells[0] || gw_timeparse(cells[0], &t_ms) != strlen(cells[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        const char *unit;
        v[i] = NAN;
        if (!gw_cells_absent(cells[i]) && !gw_cells_number(cells[i], &v[i], &unit))
            return false;
        if (!gw_fmt_sane(v[i]))
            v[i] = NAN; /* absurd (docs/report.md): dropped, the row is kept */
    }
    size_t row = gw_series_table_add_row(t, t_ms);
    for (size_t i = 1; i < n; i++)
        t->cols[col_of[i]].v[row] = v[i] * factor[i];
    return true;
}

gw_rc gw_logread_table_csv(gw_series *s, FILE *f, size_t input, gw_series_table *t,
                           int (*field_of)(const char *key), gw_error *err)
{
    gw_series_input *in = &s->inputs[input];
    char *line = NULL, *cells[MAX_COLS];
    size_t cap = 0, ncols = 0;
    long col_of[MAX_COLS], line_no = 0;
    double factor[MAX_COLS];
    while (getline(&line, &cap, f) >= 0) {
        line_no++;
        size_t n = gw_cells_split(line, cells, MAX_COLS);
        if (n == 1 && !*cells[0])
            continue;
        if (n <= MAX_COLS && gw_cells_is_header(cells, n)) {
            if (table_header(t, cells, n, col_of, factor, field_of))
                ncols = n;
            continue;
        }
        if (n != ncols || !table_row(t, cells, n, col_of, factor)) {
            if (in->rows_skipped++ == 0)
                in->first_bad_line = line_no;
        } else {
            in->rows++;
        }
    }
    free(line);
    if (in->rows == 0)
        return gw_error_set(err, GW_E_FORMAT, "%s: no readable rows%s", in->path,
                            ncols ? "" : " (no header line starting with timestamp)");
    return GW_OK;
}

/* True when the first non-empty line is a GPM CSV header; f is left where it was. */
static bool is_gpm(FILE *f)
{
    char buf[512];
    bool gpm = false;
    long at = ftell(f);
    while (fgets(buf, sizeof buf, f)) {
        if (buf[strspn(buf, " \t\r\n")] == '\0')
            continue;
        gpm = strncmp(buf, "unix_time", 9) == 0 && strstr(buf, "sm_util_pct") != NULL;
        break;
    }
    fseek(f, at, SEEK_SET);
    return gpm;
}

/* Opens an input CSV so that it can be read twice (is_gpm looks ahead): a pipe
 * (`<(nvidia-smi ...)`, /dev/stdin) is read into memory first; its first line was lost and the
 * file refused as "not a header". A UTF-8 byte order mark (a CSV saved on Windows) is skipped. */
static FILE *open_input(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f && fseek(f, 0, SEEK_SET) != 0) {
        char *buf = NULL;
        size_t n = 0, cap = 0, got;
        do {
            buf = xgrow(buf, &cap, n + 65536, 1);
            got = fread(buf + n, 1, cap - n, f);
            n += got;
        } while (got > 0);
        fclose(f);
        FILE *m = fmemopen(NULL, n + 1, "w+"); /* a copy that fclose frees */
        if (m && (fwrite(buf, 1, n, m) != n || fseek(m, 0, SEEK_SET) != 0)) {
            fclose(m);
            m = NULL;
        }
        free(buf);
        f = m;
    }
    char bom[3];
    if (f && !(fread(bom, 1, 3, f) == 3 && memcmp(bom, "\xef\xbb\xbf", 3) == 0))
        fseek(f, 0, SEEK_SET);
    return f;
}

gw_rc gw_logread_input(gw_series *s, const char *path, const gw_logread_opts *o, gw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return gw_logread_run_dir(s, path, err);
    FILE *f = open_input(path);
    if (!f)
        return gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    gw_rc rc;
    if (is_gpm(f)) {
        size_t input = gw_series_add_input(s, path, NULL, GW_INPUT_GPM_CSV);
        gw_series_host *h = gw_series_add_gpm(s, input, path);
        rc = gw_logread_table_csv(s, f, input, &h->tab, gw_logread_gpm_field, err);
    } else {
        size_t input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_gpu_csv(s, f, input, path, o, err);
    }
    fclose(f);
    return rc;
}

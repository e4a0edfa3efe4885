/* Input recognition and the generic time/number table reader (see logread.h). */
#include "logread/cells.h"
#include "logread/lines.h"
#include "logread/logread.h"
#include "logread/not_a_log.h"
#include "logread/sniff.h"
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
        gw_series_table_set(t, (size_t)col_of[i], row, v[i] * factor[i]);
    return true;
}

gw_rc gw_logread_table_csv(gw_series *s, FILE *f, size_t input, gw_series_table *t,
                           int (*field_of)(const char *key), gw_error *err)
{
    gw_series_input *in = &s->inputs[input];
    char *cells[MAX_COLS];
    size_t ncols = 0;
    long col_of[MAX_COLS];
    double factor[MAX_COLS];
    gw_lines l = {.f = f}; /* a BOM dropped, NUL bytes removed and counted */
    while (gw_lines_next(&l) >= 0) {
        size_t n = gw_cells_split(l.line, cells, MAX_COLS);
        if (n == 1 && !*cells[0])
            continue;
        if (n <= MAX_COLS && gw_cells_is_header(cells, n) &&
            table_header(t, cells, n, col_of, factor, field_of)) {
            ncols = n; /* a line of names not starting with a time is a bad row below */
            continue;
        }
        if (n != ncols || !table_row(t, cells, n, col_of, factor)) {
            if (in->rows_skipped++ == 0)
                in->first_bad_line = l.line_no;
        } else {
            in->rows++;
        }
    }
    gw_lines_free(&l);
    if (l.nul_bytes) {
        char *note = xasprintf("%s%s%zu NUL bytes removed (the first at line %ld)", in->note,
                               *in->note ? "; " : "", l.nul_bytes, l.first_nul_line);
        free(in->note);
        in->note = note;
    }
    if (in->rows == 0)
        return gw_error_set(err, GW_E_FORMAT, "%s: no readable rows%s", in->path,
                            ncols ? "" : " (no header line starting with timestamp)");
    return GW_OK;
}

gw_rc gw_logread_input(gw_series *s, const char *path, const gw_logread_opts *o, gw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        char *gpu_csv = xasprintf("%s/gpu.csv", path);
        bool missing = stat(gpu_csv, &st) != 0 && errno == ENOENT;
        free(gpu_csv);
        return missing ? gw_logread_not_a_run_dir(path, err) : gw_logread_run_dir(s, path, err);
    }
    gw_rc part = gw_logread_run_part(path, err);
    if (part)
        return part;
    bool utf16 = false;
    FILE *f = gw_lines_open_utf8(path, &utf16);
    if (!f)
        return gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    gw_rc rc;
    const char *what = NULL;
    size_t input = 0;
    switch (gw_logread_sniff(f, &what)) {
    case GW_SHAPE_GPM: {
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPM_CSV);
        gw_series_host *h = gw_series_add_gpm(s, input, path);
        rc = gw_logread_table_csv(s, f, input, &h->tab, gw_logread_gpm_field, err);
        break;
    }
    case GW_SHAPE_DMON:
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_dmon(s, f, input, path, o, err);
        break;
    case GW_SHAPE_TABLE:
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_nvsmi_table(s, f, input, path, o, err);
        break;
    case GW_SHAPE_QUERY:
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_nvsmi_query(s, f, input, path, o, err);
        break;
    case GW_SHAPE_GPUSTAT:
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_gpustat(s, f, input, path, o, err);
        break;
    case GW_SHAPE_TABLE_CSV: {
        gw_logread_opts skip = o ? *o : (gw_logread_opts){0};
        skip.skip_tables = true;
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_gpu_csv(s, f, input, path, &skip, err);
        break;
    }
    case GW_SHAPE_FOREIGN:
        rc = gw_logread_refuse(err, path, what);
        break;
    default:
        input = gw_series_add_input(s, path, NULL, GW_INPUT_GPU_CSV);
        rc = gw_logread_gpu_csv(s, f, input, path, o, err);
        break;
    }
    if (!rc && utf16) {
        gw_series_input *in = &s->inputs[input];
        char *note = xasprintf("converted from UTF-16%s%s", *in->note ? "; " : "", in->note);
        free(in->note);
        in->note = note;
    }
    fclose(f);
    return rc;
}

/* GPU CSV reader: our gpu.csv and every nvidia-smi --query-gpu variant (see logread.h). */
#include "logread/cells.h"
#include "logread/logread.h"
#include "logread/timeparse.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    MAX_CELLS = 256,
    GPU_HASH_SLOTS = 2 * GW_LOGREAD_MAX_GPUS, /* a power of two, at most half full */
};
_Static_assert((GPU_HASH_SLOTS & (GPU_HASH_SLOTS - 1)) == 0 && GPU_HASH_SLOTS <= 65536,
               "GW_LOGREAD_MAX_GPUS: a power of two, at most 32768");

typedef enum col_kind {
    C_IGNORE,
    C_TIME,
    C_INDEX,
    C_UUID,
    C_PCI,
    C_NAME,
    C_FIELD,  /* a known gw_gpu_field */
    C_EXTRA,  /* an unknown column with a unit: kept under its header */
    C_REASON, /* clocks_event_reasons.<one reason>: "Active" / "Not Active" */
} col_kind;

typedef struct colmap {
    col_kind kind;
    int field;     /* C_FIELD */
    double factor; /* C_FIELD: header unit -> field unit */
    char unit[16]; /* unit given by the header, "" when none */
    char *name;    /* C_EXTRA: column name in the series */
    unsigned bit;  /* C_REASON: the clocks_event_reasons bit */
} colmap;

typedef struct gpu_slot {
    gw_series_gpu *g;
    bool lost; /* a "[GPU is lost]" cell was seen */
} gpu_slot;

typedef struct reader {
    gw_series *s;
    size_t input;
    const char *source;
    const char *path;
    double interval_ms;
    colmap *cols;
    size_t ncols;
    bool has_time, has_id;
    gpu_slot *gpus;
    size_t ngpus, gpus_cap;
    size_t last;
    unsigned short gpu_hash[GPU_HASH_SLOTS]; /* 1 + index into gpus by key, 0 = empty */
    bool too_many;                           /* a row named GPU number GW_LOGREAD_MAX_GPUS + 1 */
    char too_many_key[64];
    double vals[MAX_CELLS];
} reader;

typedef struct alias {
    const char *key;
    col_kind kind;
    int field;
    unsigned bit;
} alias;

/* Names nvidia-smi accepts (or prints in the header) for the same thing, beyond gw_fields[]. */
static const alias aliases[] = {
    {"timestamp", C_TIME, -1, 0},
    {"unix_time", C_TIME, -1, 0},
    {"index", C_INDEX, -1, 0},
    {"uuid", C_UUID, -1, 0},
    {"gpu_uuid", C_UUID, -1, 0},
    {"pci.bus_id", C_PCI, -1, 0},
    {"gpu_bus_id", C_PCI, -1, 0},
    {"name", C_NAME, -1, 0},
    {"gpu_name", C_NAME, -1, 0},
    {"clocks.sm", C_FIELD, GW_F_CLOCK_SM_MHZ, 0},
    {"clocks.gr", C_FIELD, GW_F_CLOCK_GR_MHZ, 0},
    {"clocks.mem", C_FIELD, GW_F_CLOCK_MEM_MHZ, 0},
    {"clocks.max.mem", C_FIELD, GW_F_CLOCK_MAX_MEM_MHZ, 0},
    {"clocks.max.memory", C_FIELD, GW_F_CLOCK_MAX_MEM_MHZ, 0},
    {"clocks_throttle_reasons.active", C_FIELD, GW_F_CLOCKS_EVENT_REASONS, 0},
    {"power.draw.average", C_FIELD, GW_F_POWER_DRAW_W, 0},
    {"power.draw.instant", C_FIELD, GW_F_POWER_DRAW_W, 0},
    {"sm_util_pct", C_FIELD, GW_F_GPM_SM_ACTIVE_PCT, 0},
    {"sm_occupancy_pct", C_FIELD, GW_F_GPM_SM_OCCUPANCY_PCT, 0},
    {"tensor_util_pct", C_FIELD, GW_F_GPM_TENSOR_ACTIVE_PCT, 0},
    {"dram_bw_util_pct", C_FIELD, GW_F_GPM_DRAM_ACTIVE_PCT, 0},
    {"gpu_idle", C_REASON, -1, 0x1},
    {"applications_clocks_setting", C_REASON, -1, 0x2},
    {"sw_power_cap", C_REASON, -1, 0x4},
    {"hw_slowdown", C_REASON, -1, 0x8},
    {"sync_boost", C_REASON, -1, 0x10},
    {"sw_thermal_slowdown", C_REASON, -1, 0x20},
    {"hw_thermal_slowdown", C_REASON, -1, 0x40},
    {"hw_power_brake_slowdown", C_REASON, -1, 0x80},
};

static void map_reason(colmap *c, const char *key)
{
    static const char *prefixes[] = {"clocks_event_reasons.", "clocks_throttle_reasons."};
    for (size_t p = 0; p < 2; p++) {
        size_t n = strlen(prefixes[p]);
        if (strncmp(key, prefixes[p], n) != 0)
            continue;
        for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
            if (aliases[a].kind == C_REASON && strcmp(key + n, aliases[a].key) == 0) {
                c->kind = C_REASON;
                c->bit = aliases[a].bit;
            }
    }
}

static void map_column(colmap *c, char *cell)
{
    const char *key, *unit;
    gw_cells_header(cell, &key, &unit);
    memset(c, 0, sizeof *c);
    c->kind = C_IGNORE;
    c->field = -1;
    c->factor = 1.0;
    snprintf(c->unit, sizeof c->unit, "%s", unit);
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (aliases[a].kind != C_REASON && strcmp(key, aliases[a].key) == 0) {
            c->kind = aliases[a].kind;
            c->field = aliases[a].field;
        }
    int f = c->kind == C_IGNORE ? gw_field_by_key(GW_FG_GPU, key) : -1;
    if (f >= 0) {
        c->kind = C_FIELD;
        c->field = f;
    }
    if (c->kind == C_IGNORE)
        map_reason(c, key);
    if (c->kind == C_FIELD) {
        c->factor = gw_cells_unit_factor(unit, gw_fields[c->field].unit); /* to the field's unit */
    } else if (c->kind == C_IGNORE && *unit) {
        c->kind = C_EXTRA;
        c->name = xasprintf("%s [%s]", key, unit);
    }
}

static void free_map(reader *r)
{
    for (size_t i = 0; i < r->ncols; i++)
        free(r->cols[i].name);
    free(r->cols);
    r->cols = NULL;
    r->ncols = 0;
}

static void set_header(reader *r, char **cells, size_t n)
{
    free_map(r);
    r->cols = xcalloc(n, sizeof *r->cols);
    r->ncols = n;
    r->has_time = r->has_id = false;
    for (size_t i = 0; i < n; i++) {
        map_column(&r->cols[i], cells[i]);
        col_kind k = r->cols[i].kind;
        r->has_time |= k == C_TIME;
        r->has_id |= k == C_INDEX || k == C_UUID || k == C_PCI;
    }
}

/* The identity cells of one row. */
typedef struct row_id {
    const char *uuid, *pci, *name;
    long index; /* -1 when absent */
} row_id;

static size_t key_hash(const char *key)
{
    size_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h & (GPU_HASH_SLOTS - 1);
}

/* The GPU a row belongs to, created on its first row; NULL (and r->too_many) when it would be
 * the GW_LOGREAD_MAX_GPUS + 1st of this input. Lookup is hashed: one probe per row in the common
 * case, however many GPUs the file has. */
static gpu_slot *find_gpu(reader *r, const row_id *id)
{
    const char *key = id->uuid && *id->uuid ? id->uuid : id->pci && *id->pci ? id->pci : NULL;
    char buf[32];
    if (!key && id->index >= 0) {
        snprintf(buf, sizeof buf, "%ld", id->index);
        key = buf;
    }
    if (!key)
        key = "";
    if (r->ngpus > 0 && strcmp(r->gpus[r->last].g->key, key) == 0)
        return &r->gpus[r->last];
    size_t h = key_hash(key);
    for (; r->gpu_hash[h]; h = (h + 1) & (GPU_HASH_SLOTS - 1)) {
        size_t i = r->gpu_hash[h] - 1u;
        if (strcmp(r->gpus[i].g->key, key) == 0) {
            r->last = i;
            return &r->gpus[i];
        }
    }
    if (r->ngpus >= GW_LOGREAD_MAX_GPUS) {
        r->too_many = true;
        snprintf(r->too_many_key, sizeof r->too_many_key, "%s", key);
        for (char *c = r->too_many_key; *c; c++) /* it goes to a terminal: no escapes */
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        return NULL;
    }
    r->gpus = xgrow(r->gpus, &r->gpus_cap, r->ngpus + 1, sizeof *r->gpus);
    gpu_slot *slot = &r->gpus[r->ngpus];
    slot->g = gw_series_add_gpu(r->s, r->input, r->source, key);
    slot->lost = false;
    slot->g->index = id->index >= 0 ? (int)id->index : (int)r->ngpus;
    r->gpu_hash[h] = (unsigned short)(r->ngpus + 1);
    r->last = r->ngpus++;
    return slot;
}

static void fill_identity(gw_series_gpu *g, const row_id *id)
{
    if (id->uuid && *id->uuid && !*g->uuid) {
        free(g->uuid);
        g->uuid = gw_series_text(id->uuid, false);
    }
    if (id->pci && *id->pci && !*g->pci_bus_id) {
        free(g->pci_bus_id);
        g->pci_bus_id = gw_series_text(id->pci, false);
    }
    if (id->name && *id->name && !*g->name) {
        free(g->name);
        g->name = gw_series_text(id->name, false);
    }
}

static bool is_lost_cell(const char *c)
{
    return c[0] == '[' && strcasestr(c, "lost") != NULL;
}

/* The range a reading can have, by the unit of its field: generous (averages and rounding may
 * overshoot a little), but a value outside is no reading of any GPU (docs/report.md). */
static const struct {
    const char *unit;
    double lo, hi;
} plausible_range[] = {
    {"%", 0, 1000},    {"MiB", 0, 1e9}, {"W", 0, 1e6}, {"MHz", 0, 1e6}, {"mJ", 0, GW_FMT_MAX_ABS},
    {"C", -273, 1000}, /* temperature.gpu/.memory: 1e15 C made a thermal verdict */
};

/* True when v can be a reading of column c: a bit mask fits 64 bits, a capacity or limit is at
 * least 1, a field with a unit is in its plausible_range, anything else is within
 * GW_FMT_MAX_ABS. */
static bool plausible(const colmap *c, double v)
{
    if (!gw_fmt_sane(v) && !(c->kind == C_FIELD && c->field == GW_F_CLOCKS_EVENT_REASONS))
        return false;
    if (c->kind != C_FIELD)
        return true;
    if (c->field == GW_F_CLOCKS_EVENT_REASONS)
        return v >= 0 && v < 18446744073709551616.0;
    if (c->field == GW_F_MEM_TOTAL_MIB || c->field == GW_F_POWER_LIMIT_W ||
        c->field == GW_F_POWER_ENFORCED_W || c->field == GW_F_CLOCK_MAX_SM_MHZ ||
        c->field == GW_F_CLOCK_MAX_MEM_MHZ)
        if (!(v >= 1)) /* a capacity or limit of 0 (or -0, or 1e-320) divides into infinity */
            return false;
    const char *unit = gw_fields[c->field].unit ? gw_fields[c->field].unit : "";
    for (size_t i = 0; i < sizeof plausible_range / sizeof plausible_range[0]; i++)
        if (strcmp(unit, plausible_range[i].unit) == 0)
            return v >= plausible_range[i].lo && v <= plausible_range[i].hi;
    return true;
}

/* Parses the value cell of column c into *v (NAN when absent). Returns false when the cell is
 * neither absent nor a number. */
static bool parse_value(const colmap *c, const char *cell, double *v)
{
    *v = NAN;
    if (gw_cells_absent(cell))
        return true;
    const char *unit;
    if (!gw_cells_number(cell, v, &unit)) {
        *v = NAN;
        return c->kind == C_EXTRA; /* unknown columns are not worth losing a row over */
    }
    if (c->kind == C_FIELD && *unit) {
        *v *= gw_cells_unit_factor(unit, gw_fields[c->field].unit);
    } else if (c->kind == C_FIELD) {
        *v *= c->factor;
    }
    if (!plausible(c, *v))
        *v = NAN; /* absurd for any GPU: dropped, the rest of the row is kept */
    return true;
}

/* What one row says besides its values (those go to reader.vals). */
typedef struct parsed_row {
    row_id id;
    int64_t t_ms;
    bool lost;       /* a "[GPU is lost]" cell */
    bool any_reason; /* a single-reason column had "Active" or "Not Active" */
    unsigned reasons;
} parsed_row;

/* Parses cell i of a data row; returns false when the row cannot be read. */
static bool parse_cell(reader *r, size_t i, const char *cell, parsed_row *p)
{
    const colmap *c = &r->cols[i];
    p->lost |= is_lost_cell(cell);
    r->vals[i] = NAN;
    double v;
    const char *unit;
    switch (c->kind) {
    case C_TIME:
        return *cell && gw_timeparse(cell, &p->t_ms) == strlen(cell);
    case C_INDEX:
        if (gw_cells_absent(cell))
            return true;
        if (!gw_cells_number(cell, &v, &unit) || *unit || v < 0 || v > 1e6)
            return false;
        p->id.index = (long)v;
        return true;
    case C_UUID:
        p->id.uuid = gw_cells_absent(cell) ? NULL : cell;
        return true;
    case C_PCI:
        p->id.pci = gw_cells_absent(cell) ? NULL : cell;
        return true;
    case C_NAME:
        p->id.name = gw_cells_absent(cell) ? NULL : cell;
        return true;
    case C_FIELD:
    case C_EXTRA:
        return parse_value(c, cell, &r->vals[i]);
    case C_REASON:
        if (strcasecmp(cell, "Active") == 0)
            p->reasons |= c->bit;
        p->any_reason |= strcasecmp(cell, "Active") == 0 || strcasecmp(cell, "Not Active") == 0;
        return true;
    case C_IGNORE:
        return true;
    }
    return true;
}

/* Appends a parsed row to its GPU; false (nothing stored) when there are too many GPUs. */
static bool store_row(reader *r, const parsed_row *p, size_t n)
{
    gpu_slot *slot = find_gpu(r, &p->id);
    if (!slot)
        return false;
    gw_series_gpu *g = slot->g;
    fill_identity(g, &p->id);
    int64_t t_ms = r->has_time ? p->t_ms : (int64_t)llround((double)g->tab.n * r->interval_ms);
    size_t row = gw_series_table_add_row(&g->tab, t_ms);
    for (size_t i = 0; i < n; i++) {
        const colmap *c = &r->cols[i];
        if (c->kind == C_FIELD && !isnan(r->vals[i]))
            gw_series_gpu_writable(g, (gw_gpu_field)c->field)[row] = r->vals[i];
        else if (c->kind == C_EXTRA && !isnan(r->vals[i]))
            gw_series_table_writable(&g->tab, c->name, -1)[row] = r->vals[i];
    }
    if (p->any_reason) {
        double *mask = gw_series_gpu_writable(g, GW_F_CLOCKS_EVENT_REASONS);
        if (isnan(mask[row])) /* a clocks_event_reasons.active column wins */
            mask[row] = p->reasons;
    }
    if (p->lost && !slot->lost) {
        slot->lost = true;
        gw_series_event *e = gw_series_add_event(r->s, r->input, t_ms, "gpu_lost",
                                                 "nvidia-smi reported the GPU as lost");
        e->gpu_index = g->index;
    }
    return true;
}

/* Reads one data row; returns false when the row cannot be read (nothing is stored then). */
static bool read_row(reader *r, char **cells, size_t n)
{
    if (n != r->ncols)
        return false;
    parsed_row p = {.id = {.index = -1}};
    for (size_t i = 0; i < n; i++)
        if (!parse_cell(r, i, cells[i], &p))
            return false;
    return store_row(r, &p, n);
}

static void count_bad(gw_series_input *in, long line_no)
{
    if (in->rows_skipped++ == 0)
        in->first_bad_line = line_no;
}

static gw_rc no_rows_error(const reader *r, const gw_series_input *in, long lines, bool headless,
                           gw_error *err)
{
    if (headless)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: the first line is not a header (written with "
                            "--format=csv,noheader?): give the --query-gpu field list with "
                            "--columns",
                            r->path);
    if (lines == 0)
        return gw_error_set(err, GW_E_FORMAT, "%s: the file is empty", r->path);
    if (in->rows_skipped)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no readable rows (%zu rows skipped, the first at line %ld)",
                            r->path, in->rows_skipped, in->first_bad_line);
    return gw_error_set(err, GW_E_FORMAT, "%s: no readable rows (only a header)", r->path);
}

gw_rc gw_logread_gpu_csv(gw_series *s, FILE *f, size_t input, const char *source,
                         const gw_logread_opts *o, gw_error *err)
{
    reader r = {.s = s, .input = input, .source = source, .path = s->inputs[input].path};
    r.interval_ms = (o && o->interval_s > 0 ? o->interval_s : 1.0) * 1000.0;
    gw_series_input *in = &s->inputs[input];
    char *cells[MAX_CELLS];
    char *line = NULL;
    size_t cap = 0;
    long line_no = 0, lines = 0;
    bool headless = false;
    if (o && o->columns) {
        char *copy = xstrdup(o->columns);
        size_t n = gw_cells_split(copy, cells, MAX_CELLS);
        set_header(&r, cells, n < MAX_CELLS ? n : MAX_CELLS);
        free(copy);
    }
    while (getline(&line, &cap, f) >= 0) {
        line_no++;
        size_t n = gw_cells_split(line, cells, MAX_CELLS);
        if (n == 1 && cells[0][0] == '\0')
            continue;
        lines++;
        if (n <= MAX_CELLS && gw_cells_is_header(cells, n)) {
            set_header(&r, cells, n); /* the first header, a repeated one, or a new query */
            continue;
        }
        if (r.ncols == 0) {
            headless = true;
            break;
        }
        if (n > MAX_CELLS || !read_row(&r, cells, n))
            count_bad(in, line_no);
        else
            in->rows++;
        if (r.too_many)
            break;
    }
    free(line);
    if (r.too_many) {
        free_map(&r);
        free(r.gpus);
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: more than %d GPUs (line %ld adds '%s'): a file may hold at most "
                            "%d; check that its index/uuid/pci.bus_id column holds GPU ids, or "
                            "split it by GPU",
                            r.path, GW_LOGREAD_MAX_GPUS, line_no, r.too_many_key,
                            GW_LOGREAD_MAX_GPUS);
    }
    in->untimed = r.ncols > 0 && !r.has_time && in->rows > 0;
    free_map(&r);
    free(r.gpus);
    if (in->rows == 0)
        return no_rows_error(&r, in, lines, headless, err);
    return GW_OK;
}

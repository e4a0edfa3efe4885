/* GPU CSV reader: our gpu.csv and every nvidia-smi --query-gpu variant (see logread.h). */
#include "logread/cells.h"
#include "logread/lines.h"
#include "logread/logread.h"
#include "logread/nvsmi_priv.h"
#include "logread/sniff.h"
#include "logread/timeparse.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The identity cells of one row. */
typedef struct row_id {
    const char *uuid, *pci, *name;
    const char *alt; /* a second id column's cell (C_ALTID), NULL when none */
    long index;      /* -1 when absent */
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
    /* GPUs named by a small index alone (gpu.csv): their slot straight from the index */
    bool by_index = !key && id->index >= 0 && id->index < GW_INDEX_SLOTS && !(id->alt && *id->alt);
    if (by_index && r->index_slot[id->index]) {
        r->last = r->index_slot[id->index] - 1u;
        return &r->gpus[r->last];
    }
    char buf[32];
    if (!key && id->index >= 0) {
        char *d = buf + sizeof buf - 1; /* decimal by hand: snprintf was a cost on every row */
        *d = '\0';
        for (unsigned long v = (unsigned long)id->index; d == buf + sizeof buf - 1 || v; v /= 10)
            *--d = (char)('0' + v % 10);
        key = d;
    }
    if (!key)
        key = "";
    char both[96];
    if (id->alt && *id->alt && strcmp(id->alt, key) != 0) { /* index 0 on every row, gpu 0..7 */
        snprintf(both, sizeof both, "%.40s/%.40s", key, id->alt);
        key = both;
        r->alt_split = true;
    }
    if (r->ngpus > 0 && strcmp(r->gpus[r->last].g->key, key) == 0)
        return &r->gpus[r->last];
    size_t h = key_hash(key);
    for (; r->gpu_hash[h]; h = (h + 1) & (GPU_HASH_SLOTS - 1)) {
        size_t i = r->gpu_hash[h] - 1u;
        if (strcmp(r->gpus[i].g->key, key) == 0) {
            r->last = i;
            if (by_index)
                r->index_slot[id->index] = (unsigned short)(i + 1);
            return &r->gpus[i];
        }
    }
    if (r->ngpus >= GW_LOGREAD_MAX_GPUS) {
        r->too_many = true;
        snprintf(r->too_many_key, sizeof r->too_many_key, "%.60s", key);
        for (char *c = r->too_many_key; *c; c++) /* it goes to a terminal: no escapes */
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        return NULL;
    }
    r->gpus = xgrow(r->gpus, &r->gpus_cap, r->ngpus + 1, sizeof *r->gpus);
    gpu_slot *slot = &r->gpus[r->ngpus];
    slot->g = gw_series_add_gpu(r->s, r->input, r->source, key);
    slot->lost = false;
    slot->shift_ms = 0;
    slot->last_hash = 0;
    slot->last_line = 0;
    slot->g->index = id->index >= 0 ? (int)id->index : (int)r->ngpus;
    char *end = NULL;
    long alt = id->alt && key == both ? strtol(id->alt, &end, 10) : -1;
    if (end && *end == '\0' && alt >= 0 && alt < 1000000)
        slot->g->index = (int)alt; /* the column that tells the GPUs apart numbers them */
    r->gpu_hash[h] = (unsigned short)(r->ngpus + 1);
    if (by_index)
        r->index_slot[id->index] = (unsigned short)(r->ngpus + 1);
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

/* True when v can be a reading of column c: a known field within its bounds (the sampler's
 * gw_field_bounds_of: a capacity or limit is at least 1, utilisation 0-100, ...), anything else
 * within GW_FMT_MAX_ABS. */
static bool plausible(const colmap *c, double v)
{
    if (c->kind == C_FIELD)
        return gw_field_plausible(c->field, v);
    return gw_fmt_sane(v);
}

/* Parses the value cell of column c into *v (NAN when absent). Returns false when the cell is
 * neither absent nor a number. Sets *impossible when a number was dropped as impossible. */
static bool parse_value(const colmap *c, const char *cell, const nvsmi_pre *pre, double *v,
                        bool *impossible)
{
    *v = NAN;
    if (pre ? pre->absent : gw_cells_absent(cell))
        return true;
    const char *unit = pre ? cell + pre->unit_off : NULL;
    if (pre ? (*v = pre->value, !pre->number) : !gw_cells_number(cell, v, &unit)) {
        *v = NAN;
        return c->kind == C_EXTRA; /* unknown columns are not worth losing a row over */
    }
    if (c->kind == C_FIELD && *unit) {
        *v *= gw_cells_unit_factor(unit, gw_fields[c->field].unit);
    } else if (c->kind == C_FIELD) {
        *v *= c->factor;
    }
    if (!plausible(c, *v)) {
        *v = NAN; /* absurd for any GPU: dropped (and counted), the rest of the row is kept */
        *impossible = c->kind == C_FIELD;
    }
    return true;
}

/* What one row says besides its values (those go to reader.vals). */
typedef struct parsed_row {
    row_id id;
    int64_t t_ms;
    bool lost;       /* a "[GPU is lost]" cell */
    bool any_reason; /* a single-reason column had "Active" or "Not Active" */
    unsigned reasons;
    uint64_t impossible; /* GW_FIELD_BIT of the fields whose value was dropped as impossible */
    uint64_t hash;       /* of the row's cells: a verbatim repeat has the same */
} parsed_row;

/* Seconds since the file's start ("12.5", "12.5 s") into p->t_ms. */
static bool parse_elapsed(reader *r, const char *cell, parsed_row *p)
{
    double v;
    const char *unit;
    if (!gw_cells_number(cell, &v, &unit) || (*unit && strcmp(unit, "s") != 0) || !(v >= 0) ||
        v > 1e8)
        return false;
    p->t_ms = llround(v * 1000.0);
    r->elapsed = true;
    return true;
}

/* Notes why the first skipped row was skipped (said when no row could be read); false. */
static bool why_bad(reader *r, const char *cell, const char *col, const char *what)
{
    if (r->bad_why[0])
        return false;
    char clean[48];
    snprintf(clean, sizeof clean, "%s", cell);
    for (char *c = clean; *c; c++) /* it goes to a terminal: no escapes */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    snprintf(r->bad_why, sizeof r->bad_why, "'%s' in %s %s", clean, col, what);
    return false;
}

/* Parses cell i of a data row (pre: the second thread's parse of it, or NULL); returns false
 * when the row cannot be read. */
static bool parse_cell(reader *r, size_t i, const char *cell, const nvsmi_pre *pre, parsed_row *p)
{
    const colmap *c = &r->cols[i];
    p->lost |= is_lost_cell(cell);
    r->vals[i] = NAN;
    double v;
    const char *unit;
    switch (c->kind) {
    case C_TIME:
        if (pre && i + r->pre_shift == 0 && *cell && r->pre_time_len == pre->len) {
            p->t_ms = r->pre_t_ms;
            r->dated = true;
            return true;
        }
        if (*cell && gw_timeparse(cell, &p->t_ms) == strlen(cell)) {
            r->dated = true;
            return true;
        }
        /* a small plain number, "0.0", "1.5", in a file without dates: seconds */
        if (!r->dated && parse_elapsed(r, cell, p))
            return true;
        return why_bad(r, cell, "timestamp",
                       "is not a time the report reads (nvidia-smi's, RFC 3339, ctime, unix "
                       "seconds)");
    case C_ELAPSED:
        return parse_elapsed(r, cell, p) ||
               why_bad(r, cell, "the elapsed column", "is not a number of seconds");
    case C_INDEX: /* an absent index would make the row another GPU's: skipped */
        if (gw_cells_absent(cell))
            return why_bad(r, cell, "index", "is not a GPU index");
        if (!gw_cells_number(cell, &v, &unit) || *unit || v < 0 || v > 1e6)
            return why_bad(r, cell, "index", "is not a GPU index");
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
    case C_ALTID: /* a number is a second GPU id; text ("NVIDIA H100 ...") a name */
        if (!gw_cells_absent(cell) && gw_cells_number(cell, &v, &unit) && !*unit)
            p->id.alt = cell;
        else if (!gw_cells_absent(cell) && !p->id.name)
            p->id.name = cell;
        return true;
    case C_FIELD:
    case C_EXTRA: {
        bool bad = false;
        bool ok = parse_value(c, cell, pre, &r->vals[i], &bad);
        if (bad)
            p->impossible |= GW_FIELD_BIT(c->field);
        const char *col = c->kind == C_EXTRA               ? c->name
                          : gw_fields[c->field].csv_header ? gw_fields[c->field].csv_header
                                                           : gw_fields[c->field].key;
        return ok || why_bad(r, cell, col, "is not a number");
    }
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

/* The time a row is stored at: its own, unless the clock went back before the GPU's previous
 * row (a clock set back, logs joined out of order). Then the step back is counted
 * (docs/report.md) and not taken as time: the row continues one interval after the previous
 * row, and the rows after it keep that offset. */
static int64_t place_in_time(reader *r, gpu_slot *slot, int64_t t_ms)
{
    const gw_series_table *t = &slot->g->tab;
    int64_t at = t_ms + slot->shift_ms;
    if (t->n == 0 || at >= t->t_ms[t->n - 1])
        return at;
    gw_series_input *in = &r->s->inputs[r->input];
    int64_t prev = t->t_ms[t->n - 1];
    int64_t step = t->n >= 2 ? prev - t->t_ms[t->n - 2] : 0;
    if (step <= 0 || step > 3600000)
        step = (int64_t)r->interval_ms;
    double back_s = (double)(prev - at) / 1000.0;
    if (in->time_back++ == 0)
        in->time_back_line = r->line_no;
    if (back_s > in->time_back_s)
        in->time_back_s = back_s;
    slot->shift_ms += prev + step - at;
    return prev + step;
}

/* Drops memory.used above memory.total (no GPU holds more than it has), then counts the values
 * this row lost as impossible, per field. */
static void count_impossible(reader *r, parsed_row *p, size_t n)
{
    size_t used = r->used_col, total = r->total_col;
    if (used < n && total < n && r->vals[used] > r->vals[total]) {
        r->vals[used] = NAN;
        p->impossible |= GW_FIELD_BIT(GW_F_MEM_USED_MIB);
    }
    gw_series_input *in = &r->s->inputs[r->input];
    for (int f = 0; p->impossible && f < GW_F_COUNT; f++)
        in->impossible[f] += (p->impossible >> f) & 1u;
}

/* Closes the current group of rows that share a timestamp. */
static void close_group(order_split *o)
{
    if (o->n == 0)
        return;
    if (o->min == 0 || o->n < o->min) {
        o->min = o->n;
        o->min_line = o->group_line;
    }
    if (o->n > o->max) {
        o->max = o->n;
        o->max_line = o->group_line;
    }
}

/* In a file without a GPU id column, the row's position among the rows of its timestamp: GPU
 * 0 first, as nvidia-smi lists them. */
static long order_position(reader *r, const parsed_row *p)
{
    order_split *o = &r->order;
    int64_t d = p->t_ms - o->t_ms;
    if (o->n > 0 && d >= 0 && d <= GW_POLL_JITTER_MS) { /* one poll, its GPUs stamped apart */
        r->jitter |= d > 0;
        o->step_max = d > o->step_max ? d : o->step_max;
        o->t_ms = p->t_ms;
        return (long)o->n++;
    }
    if (o->n > 0 && d > 0 && (o->gap_min == 0 || d < o->gap_min))
        o->gap_min = d; /* between polls: far longer than within one, or no poll is told apart */
    close_group(o);
    o->t_ms = p->t_ms;
    o->n = 1;
    o->group_line = o->line;
    return 0;
}

/* The first memory.total of a row, NAN when none. */
static double row_mem_total(const reader *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (r->cols[i].kind == C_FIELD && r->cols[i].field == GW_F_MEM_TOTAL_MIB)
            return r->vals[i];
    return NAN;
}

/* What became of a row: read, unreadable (counted as skipped), or left out and said in a note
 * (a verbatim repeat, a second row in a whole second). */
enum { ROW_BAD, ROW_READ, ROW_SAID };

/* Appends a parsed row to its GPU; ROW_BAD (nothing stored) when there are too many GPUs or it
 * contradicts a row of its GPU at the same time. */
static int store_row(reader *r, const parsed_row *p_in, size_t n)
{
    parsed_row pos_row = *p_in;
    const parsed_row *p = &pos_row;
    long pos = r->has_id || !r->has_time ? -1 : order_position(r, p_in);
    if (pos > 0)
        pos_row.id.index = pos; /* position 0 keeps the key "" of a one-GPU file */
    gpu_slot *slot = find_gpu(r, &p->id);
    if (!slot)
        return ROW_BAD;
    gw_series_gpu *g = slot->g;
    const gw_series_table *tab = &g->tab;
    if (r->has_time && tab->n > 0 && p->t_ms + slot->shift_ms == tab->t_ms[tab->n - 1]) {
        if (p->hash == slot->last_hash) { /* the same row again (logs joined twice) */
            r->duplicates++;
            return ROW_SAID;
        }
        if (p->t_ms % 1000 == 0) { /* times in whole seconds, sampled faster: the first kept */
            r->same_second++;
            return ROW_SAID;
        }
        if (!r->same_line) { /* two readings of one GPU at one time: never averaged */
            r->same_line = r->line_no;
            r->same_prev_line = slot->last_line;
            snprintf(r->same_key, sizeof r->same_key, "%s", *g->key ? g->key : "0");
        }
        return ROW_BAD;
    }
    slot->last_hash = p->hash;
    slot->last_line = r->line_no;
    bool untimed = !r->has_id && !r->has_time; /* one GPU, unless rows say otherwise */
    if ((pos >= 0 || untimed) && r->order.conflict_line == 0) { /* the same GPU as before? */
        double total = row_mem_total(r, n);
        double had = g->tab.n > 0 ? gw_series_gpu_value(g, GW_F_MEM_TOTAL_MIB, 0) : NAN;
        bool name_differs = p->id.name && *p->id.name && *g->name && strcmp(p->id.name, g->name);
        bool total_differs = !isnan(total) && !isnan(had) && had != total;
        if (name_differs || total_differs)
            r->order.conflict_line = r->order.line;
    }
    fill_identity(g, &p->id);
    int64_t t_ms = r->has_time ? place_in_time(r, slot, p->t_ms)
                               : (int64_t)llround((double)g->tab.n * r->interval_ms);
    size_t row = gw_series_table_add_row(&g->tab, t_ms);
    count_impossible(r, &pos_row, n);
    for (size_t i = 0; i < n; i++) {
        const colmap *c = &r->cols[i];
        if (c->kind == C_FIELD && !isnan(r->vals[i]))
            gw_series_gpu_set(g, (gw_gpu_field)c->field, row, r->vals[i]);
        else if (c->kind == C_EXTRA && !isnan(r->vals[i]))
            gw_series_table_set(&g->tab, gw_series_table_col(&g->tab, c->name, -1), row,
                                r->vals[i]);
    }
    if (p->any_reason) {
        /* a clocks_event_reasons.active column wins */
        if (isnan(gw_series_gpu_value(g, GW_F_CLOCKS_EVENT_REASONS, row)))
            gw_series_gpu_set(g, GW_F_CLOCKS_EVENT_REASONS, row, p->reasons);
    }
    if (p->lost && !slot->lost) {
        slot->lost = true;
        gw_series_event *e = gw_series_add_event(r->s, r->input, t_ms, "gpu_lost",
                                                 "nvidia-smi reported the GPU as lost");
        e->gpu_index = g->index;
    }
    return ROW_READ;
}

/* True when cells 0 and 1 are a time cut at the ',' before its milliseconds ("2025-06-01
 * 10:00:00" and "123", as Python's logging writes them, with no space around the ','); *joined
 * gets "2025-06-01 10:00:00.123". A row of one cell too many written "10:00:00, 250" is not. */
static bool comma_millis(char **cells, char joined[96])
{
    int64_t t;
    size_t len = strlen(cells[0]);
    const char *ms = cells[1];
    if (len < 8 || len > 80 || ms != cells[0] + len + 1 || /* "00,123": no space around ',' */
        strspn(ms, "0123456789") != 3 || ms[3] != '\0' || !strchr(cells[0], ':') ||
        strchr(cells[0], '.') || gw_timeparse(cells[0], &t) != len)
        return false;
    snprintf(joined, 96, "%s.%s", cells[0], ms);
    return gw_timeparse(joined, &t) == strlen(joined);
}

/* Reads one data row: ROW_READ, ROW_SAID, or ROW_BAD when it cannot be read (nothing is stored
 * then). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
enum { LITTLE_ENDIAN_WORDS = 1 }; /* a word loaded from memory holds its first byte lowest */
#else
enum { LITTLE_ENDIAN_WORDS = 0 };
#endif

/* Mixes a cell (its n bytes and n) into a row's hash, 8 bytes at a time: a byte at a time
 * (FNV-1a) was a fifth of reading a big gpu.csv (issue 28). slack: the 8 bytes from each of
 * the cell's words can be read (NVSMI_PIPE_SLACK), so its last few are one load too. */
static uint64_t hash_cell(uint64_t h, const char *cell, size_t n, bool slack)
{
    const uint64_t k = 0x9e3779b97f4a7c15u;
    uint64_t len = n;
    for (; n >= 8; n -= 8, cell += 8) {
        uint64_t w;
        memcpy(&w, cell, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    if (slack && LITTLE_ENDIAN_WORDS) { /* 8 bytes readable: one load, those past n masked */
        memcpy(&w, cell, 8);
        w = n ? w & (~UINT64_C(0) >> (64 - 8 * n)) : 0;
    } else {
        for (size_t i = 0; i < n; i++) /* in a register: a memcpy of n bytes stalled the load */
            w |= (uint64_t)(unsigned char)cell[i] << (8 * i);
    }
    h = (h ^ w ^ (len << 56)) * k;
    return h ^ (h >> 29);
}

static int read_row(reader *r, char **cells, size_t n)
{
    int64_t t;
    r->pre_shift = 0;
    if (n == r->ncols + 1 && r->ncols > 1 && r->cols[0].kind == C_TIME && *cells[0] &&
        gw_timeparse(cells[0], &t) == strlen(cells[0]) && *cells[1] &&
        gw_timeparse(cells[1], &t) == strlen(cells[1])) {
        cells++; /* the date a logger wrote before nvidia-smi's own timestamp */
        n--;
        r->pre_shift++;
        r->lead_date = true;
    }
    char joined[96];
    if (n == r->ncols + 1 && r->cols[0].kind == C_TIME && comma_millis(cells, joined)) {
        cells[1] = joined; /* "10:00:00,123" (Python logging): one timestamp */
        cells++;
        n--;
        r->pre_shift++;
        r->comma_ms = true;
    }
    if (n != r->ncols) {
        char count[24];
        snprintf(count, sizeof count, "%zu cells", n);
        why_bad(r, count, "a row",
                r->ncols > n ? "where the header names more" : "where the header names fewer");
        return ROW_BAD;
    }
    parsed_row p = {.id = {.index = -1}, .hash = 1469598103934665603u};
    for (size_t i = 0; i < n; i++) {
        const nvsmi_pre *pre = nvsmi_pre_of(r, i, cells[i]); /* the second thread's, or NULL */
        if (!parse_cell(r, i, cells[i], pre, &p))
            return ROW_BAD;
        size_t len = pre ? pre->len : strlen(cells[i]);
        size_t k = i + r->pre_shift;
        bool slack = k < r->nptr && r->pre_ptr[k] == cells[i]; /* in the second thread's text */
        p.hash = hash_cell(p.hash, cells[i], len, slack);
    }
    return store_row(r, &p, n);
}

static void count_bad(gw_series_input *in, long line_no)
{
    if (in->rows_skipped++ == 0)
        in->first_bad_line = line_no;
}

/* Says what a first line that is no header is instead (no_rows_error): not CSV at all, a header
 * of names the report does not know, or a row (a CSV written without its header). */
static void first_line_shape(reader *r, char **cells, size_t n)
{
    const char *c0 = cells[0];
    if (c0[0] == '{' || (c0[0] == '[' && (c0[1] == '{' || c0[1] == '"'))) {
        snprintf(r->bad_why, sizeof r->bad_why, "JSON"); /* gpustat --json, nvitop, jq */
        return;
    }
    if (n == 1) {
        snprintf(r->bad_why, sizeof r->bad_why, strchr(c0, ';') ? "semicolons" : "not CSV");
        return;
    }
    if (n > MAX_CELLS || !gw_cells_is_header(cells, n))
        return;
    snprintf(r->bad_why, sizeof r->bad_why, "names");
    for (size_t i = 0; i < n; i++)
        nvsmi_list_add(r->ignored, sizeof r->ignored, cells[i]);
}

static gw_rc no_rows_error(const reader *r, const gw_series_input *in, long lines, bool headless,
                           gw_error *err)
{
    if (headless && strcmp(r->bad_why, "not CSV") == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: not a GPU log the report reads (its first line is neither CSV "
                            "nor `nvidia-smi dmon`): %s",
                            r->path, GW_LOGREAD_HOW_TO_RECORD);
    if (headless && strcmp(r->bad_why, "JSON") == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: this is JSON, not a GPU log the report reads: %s", r->path,
                            GW_LOGREAD_HOW_TO_RECORD);
    if (headless && strcmp(r->bad_why, "semicolons") == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: cells separated by ';' (a spreadsheet's export): save it as CSV "
                            "with ',' between cells and '.' before decimals",
                            r->path);
    if (headless && strcmp(r->bad_why, "names") == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: the header names no column the report knows (%s): name them with "
                            "--columns, e.g. --columns timestamp,utilization.gpu,memory.used",
                            r->path, r->ignored);
    if (headless)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: the first line is not a header (written with "
                            "--format=csv,noheader?): give the --query-gpu field list with "
                            "--columns",
                            r->path);
    if (lines == 0)
        return gw_error_set(err, GW_E_FORMAT, "%s: the file is empty", r->path);
    if (in->rows_skipped)
        return gw_error_set(
            err, GW_E_FORMAT, "%s: no readable rows (%zu rows skipped, the first at line %ld%s%s)",
            r->path, in->rows_skipped, in->first_bad_line, r->bad_why[0] ? ": " : "", r->bad_why);
    return gw_error_set(err, GW_E_FORMAT, "%s: no readable rows (only a header)", r->path);
}

/* The refusals found while reading, in the order they matter; GW_OK when none. */
static gw_rc refusal(const reader *r, const gw_series_input *in, long line_no, gw_error *err)
{
    const order_split *o = &r->order;
    if (r->jitter && (r->too_many || (o->gap_min && o->gap_min <= 3 * o->step_max))) {
        char gap[48] = "no longer step between polls";
        if (o->gap_min)
            snprintf(gap, sizeof gap, "only %lld ms between polls", (long long)o->gap_min);
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no index, uuid or pci.bus_id column, rows stamped up to %lld ms "
                            "apart and %s: a fast poll of one GPU cannot be told from one poll "
                            "of several; add index to the --query-gpu list",
                            r->path, (long long)o->step_max, gap);
    }
    if (r->too_many)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: more than %d GPUs (line %ld adds '%s'): a file may hold at most "
                            "%d; check that its index/uuid/pci.bus_id column holds GPU ids, or "
                            "split it by GPU",
                            r->path, GW_LOGREAD_MAX_GPUS, line_no, r->too_many_key,
                            GW_LOGREAD_MAX_GPUS);
    if (r->forced_bad)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: --columns names %zu columns but the header at line %ld has %zu: "
                            "give one name per column",
                            r->path, r->ncols, r->forced_bad, r->forced_n);
    if (r->apps_line > 0 && in->rows > 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: several sections in one file (GPU CSV, then "
                            "--query-compute-apps CSV at line %ld): keep the --query-gpu section "
                            "alone in the file",
                            r->path, r->apps_line);
    if (r->apps_line > 0)
        return gw_logread_refuse(err, r->path,
                                 "`nvidia-smi --query-compute-apps` CSV (per-process memory)");
    if (r->foreign && in->rows > 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: several sections in one file (GPU CSV, then %s at line %ld): "
                            "keep the --query-gpu section alone in the file",
                            r->path, r->foreign, r->foreign_line);
    if (r->foreign)
        return gw_logread_refuse(err, r->path, r->foreign);
    if (r->same_line)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: lines %ld and %ld are two different rows for GPU '%s' at one "
                            "time: its id column does not tell the GPUs apart (several GPUs "
                            "under one id?); log with --query-gpu=timestamp,uuid,... or split "
                            "the file by GPU",
                            r->path, r->same_prev_line, r->same_line, r->same_key);
    if (o->max >= 2 && o->min != o->max)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no index, uuid or pci.bus_id column and the rows per timestamp "
                            "vary (%zu at line %ld, %zu at line %ld): the GPUs cannot be told "
                            "apart; add index to the --query-gpu list",
                            r->path, o->min, o->min_line, o->max, o->max_line);
    if (o->conflict_line && !r->has_time)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no timestamp and no index, uuid or pci.bus_id column, and line "
                            "%ld names another GPU (name or memory.total) than the rows before: "
                            "the rows of several GPUs cannot be told apart; add timestamp,index "
                            "to the --query-gpu list",
                            r->path, o->conflict_line);
    if (o->max >= 2 && o->conflict_line)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: no index, uuid or pci.bus_id column and line %ld names another "
                            "GPU (name or memory.total) than its position did before: the GPUs "
                            "cannot be told apart by their order; add index to the --query-gpu "
                            "list",
                            r->path, o->conflict_line);
    return GW_OK;
}

/* True when line opens a quoted cell it does not close. */
static bool odd_quotes(const char *line)
{
    size_t q = 0;
    for (const char *c = strchr(line, '"'); c; c = strchr(c + 1, '"'))
        q++;
    return q % 2 == 1;
}

/* With skip_tables: a line of a table or between them (its time line, a prompt), counted for the
 * note; false for a CSV line. */
static bool skipped_table_line(reader *r, const gw_lines *l)
{
    if (!gw_logread_table_line(l->line) && strchr(l->line, ','))
        return false;
    r->table_snapshots += strstr(l->line, "NVIDIA-SMI ") != NULL;
    r->table_lines += l->line[strspn(l->line, " \t\r\n")] != '\0';
    r->table_first = r->table_first ? r->table_first : l->line_no;
    r->table_last = l->line_no;
    return true;
}

/* The current line, or with a quoted cell holding a line break (RFC 4180) the whole record, the
 * lines after it joined into *record (owned by the caller). */
static char *whole_record(reader *r, gw_lines *l, char **record)
{
    if (!odd_quotes(l->line))
        return l->line;
    free(*record);
    *record = xstrdup(l->line);
    for (int k = 0; k < 16 && odd_quotes(*record) && gw_lines_next(l) >= 0; k++) {
        char *joined = xasprintf("%s\n%s", *record, l->line);
        free(*record);
        *record = joined;
        r->quoted_breaks++;
    }
    return *record;
}

/* A header line: the first, a repeated one, or a new query. False when reading stops (a header
 * of another width than --columns, a --query-compute-apps section). */
static bool header_line(reader *r, char **cells, size_t n, long line_no)
{
    if (r->forced && n != r->ncols) {
        r->forced_bad = line_no;
        r->forced_n = n;
        return false;
    }
    if (!r->forced)
        nvsmi_set_header(r, cells, n);
    if (r->apps_line < 0)
        r->apps_line = line_no;
    return r->apps_line <= 0;
}

/* The last group of rows per poll may be cut short, never longer. */
static void close_order(order_split *os)
{
    if (os->n > os->max) {
        os->max = os->n;
        os->max_line = os->group_line;
    }
    if (os->min == 0)
        os->min = os->max;
}

gw_rc gw_logread_gpu_csv(gw_series *s, FILE *f, size_t input, const char *source,
                         const gw_logread_opts *o, gw_error *err)
{
    reader r = {.s = s, .input = input, .source = source, .path = s->inputs[input].path};
    r.interval_ms = (o && o->interval_s > 0 ? o->interval_s : 1.0) * 1000.0;
    r.note = xstrdup("");
    gw_series_input *in = &s->inputs[input];
    char *cells[MAX_CELLS];
    gw_lines l = {.f = f};
    long line_no = 0, lines = 0;
    bool headless = false;
    char *record = NULL; /* a record whose quoted cell spans lines */
    if (o && o->columns) {
        char *copy = xstrdup(o->columns);
        size_t n = gw_cells_split(copy, cells, MAX_CELLS);
        nvsmi_set_header(&r, cells, n < MAX_CELLS ? n : MAX_CELLS);
        free(copy);
        r.forced = true;
        r.ignored[0] = r.mapped[0] = '\0'; /* the user's names: nothing to say about them */
    }
    /* a big file's lines come cut and parsed from a second thread (nvsmi_pipe.c) */
    nvsmi_pipe *pp = o && o->skip_tables ? NULL : nvsmi_pipe_start(f, &l);
    nvsmi_pipe_row pr = {0};
    while (pp ? nvsmi_pipe_next(pp, cells, &pr) : gw_lines_next(&l) >= 0) {
        line_no = r.order.line = pp ? pr.line_no : l.line_no;
        r.line_no = line_no;
        if (!pp && o && o->skip_tables && skipped_table_line(&r, &l))
            continue;
        const char *foreign =
            pp ? pr.foreign : gw_logread_foreign_line(l.line + strspn(l.line, " \t"));
        if (foreign) {
            if (!r.foreign) {
                r.foreign = foreign;
                r.foreign_line = line_no;
            }
            break;
        }
        nvsmi_take_pre(&r, &pr);
        size_t n = pp ? pr.n : gw_cells_split(whole_record(&r, &l, &record), cells, MAX_CELLS);
        if (n == 1 && cells[0][0] == '\0')
            continue;
        lines++;
        if (n <= MAX_CELLS && gw_cells_is_header(cells, n) &&
            (r.forced || nvsmi_names_a_column(cells, n))) {
            if (!header_line(&r, cells, n, line_no))
                break;
            continue;
        }
        if (r.ncols == 0) {
            headless = true;
            first_line_shape(&r, cells, n);
            break;
        }
        int got = n > MAX_CELLS ? ROW_BAD : read_row(&r, cells, n);
        if (got == ROW_BAD)
            count_bad(in, line_no);
        in->rows += got == ROW_READ;
        if (r.too_many)
            break;
    }
    r.quoted_breaks += nvsmi_pipe_end(pp);
    r.pre = NULL;
    gw_lines_free(&l);
    free(record);
    close_order(&r.order);
    gw_rc rc = refusal(&r, in, line_no, err);
    if (!rc) {
        nvsmi_reading_notes(&r, &l);
        if (*r.note)
            nvsmi_note_add(&in->note, r.note);
        in->untimed = r.ncols > 0 && !r.has_time && in->rows > 0;
        in->dateless = in->untimed || r.elapsed;
    }
    free(r.note);
    nvsmi_free_map(&r);
    free(r.gpus);
    if (!rc && in->rows == 0)
        return no_rows_error(&r, in, lines, headless, err);
    return rc;
}

/* GPU CSV reader, header lines: which column is what (see nvsmi_priv.h). */
#include "logread/cells.h"
#include "logread/nvsmi_priv.h"
#include "logread/synonyms.h"
#include "sampler/clock_reasons.h"

#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct alias {
    const char *key;
    col_kind kind;
    int field;
    unsigned bit;
} alias;

/* Names nvidia-smi accepts (or prints in the header) for the same thing, beyond gw_fields[] (whose
 * CSV header keys and aliases gw_field_by_key finds). */
static const alias aliases[] = {
    {"timestamp", C_TIME, -1, 0},
    {"elapsed", C_ELAPSED, -1, 0},
    {"unix_time", C_TIME, -1, 0},
    {"index", C_INDEX, -1, 0},
    {"uuid", C_UUID, -1, 0},
    {"gpu_uuid", C_UUID, -1, 0},
    {"pci.bus_id", C_PCI, -1, 0},
    {"gpu_bus_id", C_PCI, -1, 0},
    {"name", C_NAME, -1, 0},
    {"gpu_name", C_NAME, -1, 0},
    {"power.draw.average", C_FIELD, GW_F_POWER_DRAW_W, 0},
    {"power.draw.instant", C_FIELD, GW_F_POWER_DRAW_W, 0},
    {"gpu_idle", C_REASON, -1, GW_REASON_GPU_IDLE},
    {"applications_clocks_setting", C_REASON, -1, GW_REASON_APPLICATIONS_CLOCKS_SETTING},
    {"sw_power_cap", C_REASON, -1, GW_REASON_SW_POWER_CAP},
    {"hw_slowdown", C_REASON, -1, GW_REASON_HW_SLOWDOWN},
    {"sync_boost", C_REASON, -1, GW_REASON_SYNC_BOOST},
    {"sw_thermal_slowdown", C_REASON, -1, GW_REASON_SW_THERMAL},
    {"hw_thermal_slowdown", C_REASON, -1, GW_REASON_HW_THERMAL},
    {"hw_power_brake_slowdown", C_REASON, -1, GW_REASON_HW_POWER_BRAKE},
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

/* True when list ("a, b, c") holds item. */
static bool list_has(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* Appends "item" to a ", "-separated list once (a repeated header says nothing new), or "..."
 * once it is full. */
void nvsmi_list_add(char *list, size_t cap, const char *item)
{
    size_t n = strlen(list);
    if (strstr(list, "...") || list_has(list, item))
        return;
    if (n + strlen(item) + 8 > cap) {
        snprintf(list + n, cap - n, "%s...", n ? ", " : "");
        return;
    }
    snprintf(list + n, cap - n, "%s%s", n ? ", " : "", item);
}

/* Maps key to a column kind: nvidia-smi's names, gw_fields[] and the GPM sampler CSV's column names
 * (gw_logread_gpm_field) (C_IGNORE when none). */
static void match_key(colmap *c, const char *key)
{
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (aliases[a].kind != C_REASON && strcmp(key, aliases[a].key) == 0) {
            c->kind = aliases[a].kind;
            c->field = aliases[a].field;
        }
    int f = c->kind == C_IGNORE ? gw_field_by_key(GW_FG_GPU, key) : -1;
    if (c->kind == C_IGNORE && f < 0)
        f = gw_logread_gpm_field(key);
    if (f >= 0) {
        c->kind = C_FIELD;
        c->field = f;
    }
    if (c->kind == C_IGNORE)
        map_reason(c, key);
}

/* True when some cell of a header-like line names a column this reader knows (nvidia-smi's
 * names, gw_fields[], a synonym): "garbage row" is a bad row, not a new header. */
bool nvsmi_names_a_column(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char buf[128];
        const char *key, *unit;
        char to[48];
        snprintf(buf, sizeof buf, "%s", cells[i]);
        gw_cells_header(buf, &key, &unit);
        colmap c = {.kind = C_IGNORE, .field = -1};
        match_key(&c, key);
        if (c.kind != C_IGNORE || gw_logread_synonym(key, to, sizeof to, &unit) ||
            strcmp(key, "pid") == 0)
            return true;
    }
    return false;
}

static void map_column(reader *r, colmap *c, char *cell)
{
    const char *key, *unit;
    gw_cells_header(cell, &key, &unit);
    memset(c, 0, sizeof *c);
    c->kind = C_IGNORE;
    c->field = -1;
    c->factor = 1.0;
    match_key(c, key);
    const char *syn_unit;
    if (c->kind == C_IGNORE && gw_logread_synonym(key, c->syn_to, sizeof c->syn_to, &syn_unit)) {
        match_key(c, c->syn_to); /* a home-made name: said in the report (nvsmi_set_header) */
        if (!*unit)
            unit = syn_unit;
        snprintf(c->syn, sizeof c->syn, "%.40s", key);
    }
    if (strcmp(key, "pid") == 0 && r->apps_line == 0)
        r->apps_line = -1; /* nvsmi_set_header gives the line */
    if (c->kind == C_IGNORE && !*unit)
        nvsmi_list_add(r->ignored, sizeof r->ignored, key);
    snprintf(c->unit, sizeof c->unit, "%s", unit);
    if (c->kind == C_FIELD) {
        c->factor = gw_cells_unit_factor(unit, gw_fields[c->field].unit); /* to the field's unit */
    } else if (c->kind == C_IGNORE && *unit) {
        c->kind = C_EXTRA;
        c->name = xasprintf("%s [%s]", key, unit);
    }
}

void nvsmi_free_map(reader *r)
{
    for (size_t i = 0; i < r->ncols; i++)
        free(r->cols[i].name);
    free(r->cols);
    r->cols = NULL;
    r->ncols = 0;
}

/* True when column i, mapped from a home-made name, reads what another column already reads:
 * one under its own name (`utilization.gpu [%]` beside `gpu_util`), or an earlier home-made
 * one. Two columns for one value would overwrite each other row by row. */
static bool synonym_taken(const colmap *cols, size_t n, size_t i)
{
    const colmap *c = &cols[i];
    if (c->kind == C_IGNORE || c->kind == C_EXTRA || c->kind == C_REASON)
        return false;
    for (size_t j = 0; j < n; j++) {
        const colmap *o = &cols[j];
        bool same = o->kind == c->kind && (c->kind != C_FIELD || o->field == c->field);
        if (j != i && same && (!*o->syn || j < i))
            return true;
    }
    return false;
}

void nvsmi_set_header(reader *r, char **cells, size_t n)
{
    nvsmi_free_map(r);
    r->cols = xcalloc(n, sizeof *r->cols);
    r->ncols = n;
    r->has_time = r->has_id = false;
    for (size_t i = 0; i < n; i++)
        map_column(r, &r->cols[i], cells[i]);
    for (size_t i = 0; i < n; i++) {
        colmap *c = &r->cols[i];
        if (*c->syn && c->kind == C_INDEX && synonym_taken(r->cols, n, i)) {
            c->kind = C_ALTID; /* "gpu" beside "index": never merge what either tells apart */
            char item[96];
            snprintf(item, sizeof item, "%s -> a second GPU id (or the name)", c->syn);
            nvsmi_list_add(r->mapped, sizeof r->mapped, item);
        } else if (*c->syn && synonym_taken(r->cols, n, i)) { /* the column's own name wins */
            c->kind = C_IGNORE;
            nvsmi_list_add(r->ignored, sizeof r->ignored, c->syn);
        } else if (*c->syn) {
            char item[96];
            snprintf(item, sizeof item, "%s -> %.40s", c->syn, c->syn_to);
            nvsmi_list_add(r->mapped, sizeof r->mapped, item);
        }
        col_kind k = c->kind;
        r->has_time |= k == C_TIME || k == C_ELAPSED;
        r->has_id |= k == C_INDEX || k == C_UUID || k == C_PCI;
    }
    r->used_col = r->total_col = n; /* the last of each, n when none */
    for (size_t i = 0; i < n; i++)
        if (r->cols[i].kind == C_FIELD && r->cols[i].field == GW_F_MEM_USED_MIB)
            r->used_col = i;
        else if (r->cols[i].kind == C_FIELD && r->cols[i].field == GW_F_MEM_TOTAL_MIB)
            r->total_col = i;
}

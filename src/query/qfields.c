/* The fields of `gpuwatch query --query-gpu` and their lookup (see query.h). */
#include "query/query.h"

#include "sampler/clock_reasons.h"
#include "util/gw_strdist.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R(bit)  GW_QS_REASON_BIT, GW_F_CLOCKS_EVENT_REASONS, GW_QF_TEXT, GW_REASON_##bit
#define NOFIELD GW_F_COUNT

/* What is not a sampled field; names, aliases and units follow nvidia-smi 580, the descriptions
 * are gpuwatch's. The sampled fields come from the field table (gw_fields[], src/sampler/
 * fields.c): every GPU field with a `help` paragraph, named by its CSV header key. */
static const gw_qfield ids[] = {
    {"timestamp", NULL, NULL, GW_QS_TIMESTAMP, NOFIELD, GW_QF_TEXT, 0, false,
     "When the values were read, in local time: \"YYYY/MM/DD HH:MM:SS.mmm\"."},
    {"driver_version", NULL, NULL, GW_QS_DRIVER, NOFIELD, GW_QF_TEXT, 0, false,
     "Version of the NVIDIA driver, e.g. 580.159.04."},
    {"count", NULL, NULL, GW_QS_COUNT, NOFIELD, GW_QF_INT, 0, false,
     "How many NVIDIA GPUs NVML sees on this machine."},
    {"name", "gpu_name", NULL, GW_QS_NAME, NOFIELD, GW_QF_TEXT, 0, false,
     "Product name of the GPU, e.g. NVIDIA H200."},
    {"uuid", "gpu_uuid", NULL, GW_QS_UUID, NOFIELD, GW_QF_TEXT, 0, false,
     "The GPU's unique, unchanging identifier (GPU-...). Stable across reboots, unlike index."},
    {"pci.bus_id", "gpu_bus_id", NULL, GW_QS_PCI_BUS_ID, NOFIELD, GW_QF_TEXT, 0, false,
     "PCI address of the GPU, domain:bus:device.function in hex (00000000:00:06.0)."},
    {"index", NULL, NULL, GW_QS_INDEX, NOFIELD, GW_QF_INT, 0, false,
     "NVML's zero-based number of the GPU. Not CUDA's order, and may change after a reboot."},
};
enum { N_IDS = sizeof ids / sizeof ids[0] };

/* The bits of clocks_event_reasons.active, listed after it. */
static const gw_qfield reasons[] = {
    {"clocks_event_reasons.gpu_idle", "clocks_throttle_reasons.gpu_idle", NULL, R(GPU_IDLE), false,
     "Active when nothing runs on the GPU and its clocks drop to idle."},
    {"clocks_event_reasons.applications_clocks_setting",
     "clocks_throttle_reasons.applications_clocks_setting", NULL, R(APPLICATIONS_CLOCKS_SETTING),
     false, "Active when the clocks are capped by the applications clocks setting."},
    {"clocks_event_reasons.sw_power_cap", "clocks_throttle_reasons.sw_power_cap", NULL,
     R(SW_POWER_CAP), false,
     "Active when the driver lowers the clocks to keep power under the power limit."},
    {"clocks_event_reasons.hw_slowdown", "clocks_throttle_reasons.hw_slowdown", NULL,
     R(HW_SLOWDOWN), false,
     "Active when hardware halves the clocks or more, because of heat or a power brake."},
    {"clocks_event_reasons.hw_thermal_slowdown", "clocks_throttle_reasons.hw_thermal_slowdown",
     NULL, R(HW_THERMAL), false, "Active when hardware slows the GPU down because it is too hot."},
    {"clocks_event_reasons.hw_power_brake_slowdown",
     "clocks_throttle_reasons.hw_power_brake_slowdown", NULL, R(HW_POWER_BRAKE), false,
     "Active when an external power brake (e.g. the power supply) slows the GPU down."},
    {"clocks_event_reasons.sw_thermal_slowdown", "clocks_throttle_reasons.sw_thermal_slowdown",
     NULL, R(SW_THERMAL), false,
     "Active when the driver lowers the clocks because the GPU is above its maximum operating "
     "temperature."},
    {"clocks_event_reasons.sync_boost", "clocks_throttle_reasons.sync_boost", NULL, R(SYNC_BOOST),
     false, "Active when the GPU is held to the clocks of its sync boost group."},
};
enum { N_REASONS = sizeof reasons / sizeof reasons[0] };

/* A second name of a field that nvidia-smi prints as itself in the header (so not an alias). */
static const gw_qfield twins[] = {
    {"pcie.link.gen.gpucurrent", NULL, NULL, GW_QS_FIELD, GW_F_PCIE_GEN, GW_QF_INT, 0, false,
     "Same as pcie.link.gen.current (the newer name)."},
};
enum { N_TWINS = sizeof twins / sizeof twins[0] };

static gw_qfield table[N_IDS + GW_F_COUNT + N_REASONS + N_TWINS];
static size_t table_len;
/* Query names: the CSV header keys ("memory.used" of "memory.used [MiB]"). */
static char names[GW_F_COUNT][64];

/* How nvidia-smi prints a value of field f, from the field's unit and CSV form. */
static gw_qformat format_of(const gw_field_info *fi)
{
    if (fi->csv_style == GW_CSV_HEX)
        return GW_QF_HEX64;
    if (fi->csv_style == GW_CSV_PSTATE)
        return GW_QF_PSTATE;
    if (strcmp(fi->unit, "%") == 0)
        return fi->csv_decimals ? GW_QF_PCT2 : GW_QF_PCT;
    if (strcmp(fi->unit, "MiB") == 0)
        return GW_QF_MIB;
    if (strcmp(fi->unit, "W") == 0)
        return GW_QF_WATTS;
    if (strcmp(fi->unit, "MHz") == 0)
        return GW_QF_MHZ;
    return GW_QF_INT;
}

static void build(void)
{
    memcpy(table, ids, sizeof ids);
    table_len = N_IDS;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        if (!fi->help)
            continue;
        size_t n = strcspn(fi->csv_header, " [");
        snprintf(names[f], sizeof names[f], "%.*s", (int)n, fi->csv_header);
        gw_qformat fmt = format_of(fi);
        table[table_len++] = (gw_qfield){
            .name = names[f],
            .alias = fi->alias,
            .unit = fmt == GW_QF_INT || fmt == GW_QF_HEX64 || fmt == GW_QF_PSTATE ? NULL : fi->unit,
            .source = GW_QS_FIELD,
            .field = (gw_gpu_field)f,
            .format = fmt,
            .bare_na = fi->bare_na,
            .help = fi->help,
        };
        for (size_t k = 0; k < N_TWINS; k++)
            if (twins[k].field == (gw_gpu_field)f)
                table[table_len++] = twins[k];
        if (f == GW_F_CLOCKS_EVENT_REASONS) {
            memcpy(table + table_len, reasons, sizeof reasons);
            table_len += N_REASONS;
        }
    }
}

const gw_qfield *gw_qfields(size_t *count)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build);
    *count = table_len;
    return table;
}

const gw_qfield *gw_qfield_find(const char *name)
{
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++) {
        const gw_qfield *f = &all[i];
        if (strcmp(name, f->name) == 0 || (f->alias && strcmp(name, f->alias) == 0))
            return f;
    }
    return NULL;
}

/* The valid name closest to `name`, when it is within 3 edits. */
static const char *closest(const char *name)
{
    const char *best = NULL;
    int best_d = 4;
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++) {
        const char *both[2] = {all[i].name, all[i].alias};
        for (int k = 0; k < 2; k++) {
            int d = both[k] ? gw_edit_distance(name, both[k], 4) : 4;
            if (d < best_d) {
                best_d = d;
                best = both[k];
            }
        }
    }
    return best;
}

static gw_rc unknown_field(const char *name, gw_error *err)
{
    const char *near = closest(name);
    if (near)
        return gw_error_set(err, GW_E_USAGE,
                            "Field \"%s\" is not a valid field to query. Did you mean \"%s\"? "
                            "(gpuwatch query --help-query-gpu lists them)",
                            name, near);
    return gw_error_set(err, GW_E_USAGE,
                        "Field \"%s\" is not a valid field to query. "
                        "(gpuwatch query --help-query-gpu lists them)",
                        name);
}

gw_rc gw_qfields_parse(const char *list, const gw_qfield ***out, size_t *count, gw_error *err)
{
    *out = NULL;
    *count = 0;
    size_t cap = 0, n = 0;
    const gw_qfield **fields = NULL;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *name = xstrndup(p, len);
        const gw_qfield *f = gw_qfield_find(name);
        if (!f) {
            gw_rc rc = unknown_field(name, err);
            free(name);
            free(fields);
            return rc;
        }
        free(name);
        fields = xgrow(fields, &cap, n + 1, sizeof *fields);
        fields[n++] = f;
        if (!comma)
            break;
        p = comma + 1;
    }
    *out = fields;
    *count = n;
    return GW_OK;
}

uint64_t gw_qfields_sample_bits(const gw_qfield *const *fields, size_t count)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < count; i++)
        if (fields[i]->source == GW_QS_FIELD || fields[i]->source == GW_QS_REASON_BIT)
            bits |= GW_FIELD_BIT(fields[i]->field);
    return bits;
}

void gw_qfields_help(gw_buf *out)
{
    gw_buf_puts(out, "List of valid properties to query for the switch \"--query-gpu\":\n\n");
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++) {
        const gw_qfield *f = &all[i];
        if (f->alias)
            gw_buf_printf(out, "\"%s\" or \"%s\"\n%s\n\n", f->name, f->alias, f->help);
        else
            gw_buf_printf(out, "\"%s\"\n%s\n\n", f->name, f->help);
    }
}

/* The live view as one JSON document (schema in docs/live-view.md; see view.h). */
#include "view/view.h"
#include "util/gw_json.h"

#include "util/gw_time.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Adds key: value, or key: null when absent. */

/* A sample field in its unit (the key names it); MiB are rounded up, as nvidia-smi does. */
static void add_field(cJSON *o, const char *key, const gw_gpu_sample *g, gw_gpu_field f)
{
    bool has = gw_has(g, f);
    double v = has ? g->v[f] : NAN;
    if (has && gw_fields[f].csv_style == GW_CSV_UP)
        v = ceil(v);
    else if (has)
        v = round(v * 100.0) / 100.0; /* GPM averages and watts: two decimals are plenty */
    gw_json_add_num(o, key, (has) ? (v) : NAN, -1);
}

static cJSON *mig_json(const gw_mig_device *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "slot", m->slot);
    gw_json_add_str(o, "name", m->name);
    gw_json_add_str(o, "uuid", m->uuid);
    gw_json_add_num(o, "memory_used_mib", (m->memory_valid) ? (ceil(m->mem_used_mib)) : NAN, -1);
    gw_json_add_num(o, "memory_total_mib", (m->memory_valid) ? (ceil(m->mem_total_mib)) : NAN, -1);
    return o;
}

static cJSON *proc_json(const gw_view *v, unsigned k)
{
    const gw_gpu_process *p = &v->sample->procs[k];
    const gw_view_proc *d = v->procs ? &v->procs[k] : NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "pid", p->pid);
    cJSON_AddBoolToObject(o, "visible", p->visible);
    gw_json_add_num(o, "uid", (d && d->uid_valid) ? (d ? d->uid : 0) : NAN, -1);
    gw_json_add_str(o, "user", d ? d->user : NULL);
    gw_json_add_str(o, "name", p->name);
    gw_json_add_str(o, "command", d ? d->command : NULL);
    cJSON_AddStringToObject(o, "type", p->graphics ? "graphics" : "compute");
    gw_json_add_num(o, "memory_used_mib", (p->used_valid) ? (ceil(p->used_mib)) : NAN, -1);
    return o;
}

static void add_gpu_values(cJSON *o, const gw_gpu_sample *g)
{
    add_field(o, "temperature_c", g, GW_F_TEMP_GPU_C);
    add_field(o, "utilization_gpu_pct", g, GW_F_UTIL_GPU_PCT);
    add_field(o, "utilization_memory_pct", g, GW_F_UTIL_MEM_PCT);
    add_field(o, "sm_active_pct", g, GW_F_GPM_SM_ACTIVE_PCT);
    add_field(o, "sm_occupancy_pct", g, GW_F_GPM_SM_OCCUPANCY_PCT);
    add_field(o, "tensor_active_pct", g, GW_F_GPM_TENSOR_ACTIVE_PCT);
    add_field(o, "dram_active_pct", g, GW_F_GPM_DRAM_ACTIVE_PCT);
    add_field(o, "memory_used_mib", g, GW_F_MEM_USED_MIB);
    add_field(o, "memory_total_mib", g, GW_F_MEM_TOTAL_MIB);
    add_field(o, "power_draw_w", g, GW_F_POWER_DRAW_W);
    add_field(o, "power_limit_w", g, GW_F_POWER_LIMIT_W);
    add_field(o, "clocks_sm_mhz", g, GW_F_CLOCK_SM_MHZ);
    if (gw_has(g, GW_F_PSTATE)) {
        char ps[8];
        snprintf(ps, sizeof ps, "P%d", (int)g->v[GW_F_PSTATE]);
        cJSON_AddStringToObject(o, "pstate", ps);
    } else {
        cJSON_AddNullToObject(o, "pstate");
    }
    if (gw_has(g, GW_F_CLOCKS_EVENT_REASONS)) {
        char mask[24];
        gw_field_format_csv(GW_F_CLOCKS_EVENT_REASONS, g->v[GW_F_CLOCKS_EVENT_REASONS], mask,
                            sizeof mask);
        cJSON_AddStringToObject(o, "clocks_event_reasons", mask);
    } else {
        cJSON_AddNullToObject(o, "clocks_event_reasons");
    }
}

static cJSON *gpu_json(const gw_view *v, unsigned i)
{
    const gw_device_info *d = &v->devices[i];
    const gw_gpu_sample *g = &v->sample->gpus[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", d->index);
    gw_json_add_str(o, "name", d->name);
    gw_json_add_str(o, "uuid", d->uuid);
    gw_json_add_str(o, "pci_bus_id", d->pci_bus_id);
    cJSON_AddBoolToObject(o, "lost", g->lost);
    gw_json_add_num(o, "slowdown_temp_c", (true) ? (d->slowdown_temp_c) : NAN, -1);
    add_gpu_values(o, g);
    cJSON_AddBoolToObject(o, "mig_enabled", d->mig_enabled);
    cJSON *migs = cJSON_AddArrayToObject(o, "mig_devices");
    for (unsigned k = 0; k < v->sample->mig_count; k++)
        if (v->sample->migs[k].gpu == d->index)
            cJSON_AddItemToArray(migs, mig_json(&v->sample->migs[k]));
    cJSON *procs = cJSON_AddArrayToObject(o, "processes");
    for (unsigned k = 0; k < v->sample->proc_count; k++)
        if (v->sample->procs[k].gpu == d->index)
            cJSON_AddItemToArray(procs, proc_json(v, k));
    return o;
}

void gw_view_json(const gw_view *v, gw_buf *out)
{
    cJSON *doc = cJSON_CreateObject();
    gw_json_add_str(doc, "gpuwatch_version", v->version);
    gw_json_add_str(doc, "hostname", v->hostname);
    char ts[GW_RFC3339_LEN];
    cJSON_AddStringToObject(doc, "timestamp", gw_rfc3339_ms(v->wall_ms, ts));
    gw_json_add_str(doc, "driver_version", v->driver_version);
    cJSON *gpus = cJSON_AddArrayToObject(doc, "gpus");
    for (unsigned i = 0; i < v->device_count; i++)
        cJSON_AddItemToArray(gpus, gpu_json(v, i));
    char *text = cJSON_PrintUnformatted(doc);
    gw_buf_puts(out, text);
    cJSON_free(text);
    cJSON_Delete(doc);
}

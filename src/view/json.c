/* The live view as one JSON document (schema in docs/live-view.md; see view.h). */
#include "view/view.h"
#include "util/gw_json.h"

#include "util/gw_time.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Field f under its --json key (gw_fields[f].json), in its unit, null when absent: a mask or a
 * performance state as its CSV text ("0x...", "P0"), MiB rounded up as nvidia-smi does, other
 * numbers to two decimals (GPM averages and watts: plenty). */
static void add_field(cJSON *o, const gw_gpu_sample *g, gw_gpu_field f)
{
    const gw_field_info *fi = &gw_fields[f];
    if (!gw_has(g, f)) {
        cJSON_AddNullToObject(o, fi->json);
    } else if (fi->csv_style == GW_CSV_HEX || fi->csv_style == GW_CSV_PSTATE) {
        char text[32];
        gw_field_format_csv(f, g->v[f], text, sizeof text);
        cJSON_AddStringToObject(o, fi->json, text);
    } else {
        double v = fi->csv_style == GW_CSV_UP ? ceil(g->v[f]) : round(g->v[f] * 100.0) / 100.0;
        gw_json_add_num(o, fi->json, v, -1);
    }
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
    gw_json_add_num(o, "uid", (d && d->uid_valid) ? d->uid : NAN, -1);
    gw_json_add_str(o, "user", d ? d->user : NULL);
    gw_json_add_str(o, "name", p->name);
    gw_json_add_str(o, "command", d ? d->command : NULL);
    cJSON_AddStringToObject(o, "type", p->graphics ? "graphics" : "compute");
    gw_json_add_num(o, "memory_used_mib", (p->used_valid) ? (ceil(p->used_mib)) : NAN, -1);
    return o;
}

/* Every field with a --json key, in table order. */
static void add_gpu_values(cJSON *o, const gw_gpu_sample *g)
{
    for (int f = 0; f < GW_F_COUNT; f++)
        if (gw_fields[f].json)
            add_field(o, g, (gw_gpu_field)f);
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
    gw_json_add_num(o, "slowdown_temp_c", d->slowdown_temp_c, -1);
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

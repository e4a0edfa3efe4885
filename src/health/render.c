/* `gpuwatch check` output: the table and the JSON; see health.h and docs/check.md. */
#include "health/health.h"
#include "util/gw_json.h"

#include <math.h>
#include <string.h>

static const char *color_of(gw_health_state s)
{
    switch (s) {
    case GW_HEALTH_WARNING:
        return "\033[33m";
    case GW_HEALTH_CRITICAL:
        return "\033[31m";
    case GW_HEALTH_UNKNOWN:
        return "\033[35m";
    default:
        return "\033[32m";
    }
}

/* The state word padded to `width`, coloured when asked. */
static void put_state(FILE *to, gw_health_state s, bool color, int width)
{
    const char *name = gw_health_state_name(s);
    if (color)
        fprintf(to, "%s%s\033[0m%*s", color_of(s), name, width - (int)strlen(name), "");
    else
        fprintf(to, "%-*s", width, name);
}

static void print_versions(const gw_health_report *r, FILE *to)
{
    fprintf(to, "driver %s, NVML %s", r->driver_version[0] ? r->driver_version : "unknown",
            r->nvml_version[0] ? r->nvml_version : "unknown");
    if (r->cuda_driver_version > 0)
        fprintf(to, ", CUDA %d.%d", r->cuda_driver_version / 1000,
                (r->cuda_driver_version % 1000) / 10);
    fprintf(to, ", %u GPU%s\n", r->ngpus, r->ngpus == 1 ? "" : "s");
}

void gw_health_print(const gw_health_report *r, FILE *to, bool color)
{
    print_versions(r, to);
    for (unsigned i = 0; i < r->ngpus; i++) {
        const gw_health_gpu *g = &r->gpus[i];
        const gw_device_info *in = &g->facts.info;
        /* the UUID (40 columns) on a line of its own: the first fits 80 columns */
        fprintf(to, "\nGPU %u  ", in->index);
        const char *parts[] = {in->name, in->pci_bus_id};
        for (int k = 0; k < 2; k++)
            if (parts[k][0])
                fprintf(to, "%s  ", parts[k]);
        put_state(to, g->state, color, 0);
        fputc('\n', to);
        if (in->uuid[0])
            fprintf(to, "  %s\n", in->uuid);
        for (int k = 0; k < g->nitems; k++) {
            const gw_health_item *it = &g->items[k];
            fprintf(to, "  %-18s ", it->label);
            put_state(to, it->state, color, 9);
            fprintf(to, "%s\n", it->reason);
        }
    }
    unsigned count[5] = {0};
    for (unsigned i = 0; i < r->ngpus; i++)
        count[r->gpus[i].state]++;
    fputc('\n', to);
    fprintf(to, "status: ");
    put_state(to, r->state, color, 0);
    if (r->error[0])
        fprintf(to, " (%s)", r->error);
    else
        fprintf(to, " — %u ok, %u warning, %u critical", count[GW_HEALTH_OK] + count[GW_HEALTH_NA],
                count[GW_HEALTH_WARNING], count[GW_HEALTH_CRITICAL]);
    fprintf(to, " (exit %d)\n", gw_health_exit_code(r->state));
}

static cJSON *gpu_json(const gw_health_gpu *g)
{
    const gw_health_facts *f = &g->facts;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", f->info.index);
    gw_json_add_str(o, "name", f->info.name);
    gw_json_add_str(o, "uuid", f->info.uuid);
    gw_json_add_str(o, "pci_bus_id", f->info.pci_bus_id);
    cJSON_AddStringToObject(o, "status", gw_health_state_name(g->state));
    cJSON *items = cJSON_AddArrayToObject(o, "items");
    for (int k = 0; k < g->nitems; k++) {
        const gw_health_item *it = &g->items[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "id", it->id);
        cJSON_AddStringToObject(j, "state", gw_health_state_name(it->state));
        gw_json_add_num(j, "value", it->value, 3);
        cJSON_AddStringToObject(j, "reason", it->reason);
        cJSON_AddItemToArray(items, j);
    }
    cJSON *procs = cJSON_AddArrayToObject(o, "processes");
    for (unsigned k = 0; k < f->nprocs; k++) {
        const gw_gpu_process *p = &f->procs[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "pid", p->pid);
        gw_json_add_str(j, "name", p->visible ? p->name : NULL);
        gw_json_add_num(j, "used_mib", p->used_valid ? ceil(p->used_mib) : NAN, 3);
        cJSON_AddStringToObject(j, "type", p->graphics ? "graphics" : "compute");
        cJSON_AddItemToArray(procs, j);
    }
    return o;
}

cJSON *gw_health_json(const gw_health_report *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", gw_health_state_name(r->state));
    cJSON_AddNumberToObject(o, "exit_code", gw_health_exit_code(r->state));
    gw_json_add_str(o, "error", r->error);
    gw_json_add_str(o, "driver_version", r->driver_version);
    gw_json_add_str(o, "nvml_version", r->nvml_version);
    if (r->cuda_driver_version > 0)
        cJSON_AddNumberToObject(o, "cuda_driver_version", r->cuda_driver_version);
    else
        cJSON_AddNullToObject(o, "cuda_driver_version");
    cJSON *gpus = cJSON_AddArrayToObject(o, "gpus");
    for (unsigned i = 0; i < r->ngpus; i++)
        cJSON_AddItemToArray(gpus, gpu_json(&r->gpus[i]));
    return o;
}

/* `gpuwatch check` output: the table and the JSON; see health.h and docs/check.md. */
#include "health/health.h"

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
        fprintf(to, "\nGPU %u  ", in->index);
        const char *parts[] = {in->name, in->pci_bus_id, in->uuid};
        for (int k = 0; k < 3; k++)
            if (parts[k][0])
                fprintf(to, "%s  ", parts[k]);
        put_state(to, g->state, color, 0);
        fputc('\n', to);
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

static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, round(v * 1000.0) / 1000.0);
}

static void add_str_or_null(cJSON *o, const char *key, const char *s)
{
    if (s && *s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *gpu_json(const gw_health_gpu *g)
{
    const gw_health_facts *f = &g->facts;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", f->info.index);
    add_str_or_null(o, "name", f->info.name);
    add_str_or_null(o, "uuid", f->info.uuid);
    add_str_or_null(o, "pci_bus_id", f->info.pci_bus_id);
    cJSON_AddStringToObject(o, "status", gw_health_state_name(g->state));
    cJSON *items = cJSON_AddArrayToObject(o, "items");
    for (int k = 0; k < g->nitems; k++) {
        const gw_health_item *it = &g->items[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "id", it->id);
        cJSON_AddStringToObject(j, "state", gw_health_state_name(it->state));
        add_num_or_null(j, "value", it->value);
        cJSON_AddStringToObject(j, "reason", it->reason);
        cJSON_AddItemToArray(items, j);
    }
    cJSON *procs = cJSON_AddArrayToObject(o, "processes");
    for (unsigned k = 0; k < f->nprocs; k++) {
        const gw_gpu_process *p = &f->procs[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "pid", p->pid);
        add_str_or_null(j, "name", p->visible ? p->name : NULL);
        add_num_or_null(j, "used_mib",
                        p->used_valid ? ceil(p->used_bytes / (1024.0 * 1024.0)) : NAN);
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
    add_str_or_null(o, "error", r->error);
    add_str_or_null(o, "driver_version", r->driver_version);
    add_str_or_null(o, "nvml_version", r->nvml_version);
    if (r->cuda_driver_version > 0)
        cJSON_AddNumberToObject(o, "cuda_driver_version", r->cuda_driver_version);
    else
        cJSON_AddNullToObject(o, "cuda_driver_version");
    cJSON *gpus = cJSON_AddArrayToObject(o, "gpus");
    for (unsigned i = 0; i < r->ngpus; i++)
        cJSON_AddItemToArray(gpus, gpu_json(&r->gpus[i]));
    return o;
}

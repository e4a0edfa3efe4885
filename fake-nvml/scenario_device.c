/* The lists inside a scenario device; see scenario_device.h. */
#include "scenario_device.h"

#include "util/xalloc.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fake_group_names[FG_COUNT] = {
    [FG_INFO] = "info",
    [FG_UTIL] = "util",
    [FG_MEMORY] = "memory",
    [FG_TEMP] = "temp",
    [FG_POWER] = "power",
    [FG_POWER_LIMIT] = "power_limit",
    [FG_CLOCKS] = "clocks",
    [FG_CLOCKS_EVENT_REASONS] = "clocks_event_reasons",
    [FG_PSTATE] = "pstate",
    [FG_FAN] = "fan",
    [FG_PCIE] = "pcie",
    [FG_ECC] = "ecc",
    [FG_RETIRED_PAGES] = "retired_pages",
    [FG_REMAPPED_ROWS] = "remapped_rows",
    [FG_ENERGY] = "energy",
    [FG_FIELDS] = "fields",
    [FG_PROCESSES] = "processes",
    [FG_MIG] = "mig",
    [FG_GPM] = "gpm",
    [FG_EVENTS] = "events",
};

/* Integers up to 2^53 are exact in a JSON number (a double). */
#define EXACT_INT 9007199254740992.0

/* Upper bounds are the ranges of the NVML fields fed, not plausible values: tests of gpuwatch's
 * range checks need util 150 or a temperature of 0xFFFFFFFF. */
const fake_key_info fake_keys[FK_COUNT] = {
    [FK_UTIL_GPU] = {"util_gpu", false, UINT_MAX},
    [FK_UTIL_MEM] = {"util_mem", false, UINT_MAX},
    [FK_MEM_USED_MIB] = {"mem_used_mib", false, 1 << 30},
    [FK_TEMP_C] = {"temp_c", false, UINT_MAX},
    [FK_POWER_W] = {"power_w", false, UINT_MAX / 1000.0},
    [FK_SM_CLOCK_MHZ] = {"sm_clock_mhz", false, UINT_MAX},
    [FK_CLOCKS_EVENT_REASONS] = {"clocks_event_reasons", true, EXACT_INT},
    [FK_PSTATE] = {"pstate", true, GWN_PSTATE_UNKNOWN},
    [FK_MEM_CLOCK_MHZ] = {"mem_clock_mhz", false, UINT_MAX},
    [FK_GR_CLOCK_MHZ] = {"gr_clock_mhz", false, UINT_MAX},
    [FK_MEM_TEMP_C] = {"mem_temp_c", false, UINT_MAX},
    [FK_ECC_UNCORRECTED] = {"ecc_uncorrected", true, EXACT_INT},
    [FK_ENC_UTIL] = {"enc_util", false, UINT_MAX},
    [FK_DEC_UTIL] = {"dec_util", false, UINT_MAX},
#define GPM_KEY(metric, id, key, max, ...) [id] = {key, false, max},
    FAKE_GPM_METRICS(GPM_KEY)
#undef GPM_KEY
#define UINT_KEY(call, id, key, step, max, group) [id] = {key, step, max},
        FAKE_UINT_CALLS(UINT_KEY)
#undef UINT_KEY
};

/* Scenario times are seconds since nvmlInit; a billion seconds is 31 years. */
#define MAX_T_S        1e9
#define MAX_LATENCY_MS 600000.0
#define MAX_MIB        1073741824.0 /* 2^30 MiB = 1 EiB */
enum { MAX_MIG_INSTANCES = 64 };

/* Reads the required number at obj.key. */
static bool required_number(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
                            double lo, double hi, double *out)
{
    bool given = false;
    if (!fj_number(r, obj, path, key, lo, hi, false, out, &given))
        return false;
    if (given)
        return true;
    char full[FJ_PATH_MAX];
    fj_path_key(full, path, key);
    return fj_fail(r, "%s is missing: every entry here needs it", full);
}

static bool read_unsupported(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    const cJSON *list = NULL;
    if (!fj_array(r, obj, path, "unsupported", &list))
        return false;
    char lpath[FJ_PATH_MAX];
    fj_path_key(lpath, path, "unsupported");
    size_t i = 0;
    for (const cJSON *it = list ? list->child : NULL; it; it = it->next, i++) {
        int g = FG_COUNT;
        if (cJSON_IsString(it)) {
            for (g = 0; g < FG_COUNT; g++) {
                if (strcmp(it->valuestring, fake_group_names[g]) == 0)
                    break;
            }
        }
        if (g == FG_COUNT)
            return fj_fail(r,
                           "%s[%zu] must be one of the call groups util, memory, temp, power, "
                           "power_limit, clocks, clocks_event_reasons, pstate, fan, pcie, ecc, "
                           "retired_pages, remapped_rows, energy, fields, processes, mig, gpm, "
                           "events, info",
                           lpath, i);
        d->unsupported |= 1u << g;
    }
    return true;
}

static bool read_latency(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    const cJSON *lat = fj_item(obj, "latency_ms");
    if (!lat)
        return true;
    char lpath[FJ_PATH_MAX];
    fj_path_key(lpath, path, "latency_ms");
    const char *allowed[FG_COUNT + 2];
    for (int g = 0; g < FG_COUNT; g++)
        allowed[g] = fake_group_names[g];
    allowed[FG_COUNT] = "all";
    allowed[FG_COUNT + 1] = NULL;
    if (!fj_object(r, lat, lpath, allowed))
        return false;
    double all = 0;
    if (!fj_number(r, lat, lpath, "all", 0, MAX_LATENCY_MS, false, &all, NULL))
        return false;
    for (int g = 0; g < FG_COUNT; g++) {
        d->latency_ms[g] = all;
        if (!fj_number(r, lat, lpath, fake_group_names[g], 0, MAX_LATENCY_MS, false,
                       &d->latency_ms[g], NULL))
            return false;
    }
    return true;
}

static void series_append(fake_series *s, size_t capacity, double t, double v)
{
    if (!s->t) {
        s->t = xmalloc(capacity * sizeof *s->t);
        s->v = xmalloc(capacity * sizeof *s->v);
    }
    s->t[s->n] = t;
    s->v[s->n] = v;
    s->n++;
}

static bool read_point(const fj_reader *r, const cJSON *pt, const char *path, size_t npoints,
                       double *prev_t, fake_device *d)
{
    const char *allowed[FK_COUNT + 2];
    allowed[0] = "t";
    for (int k = 0; k < FK_COUNT; k++)
        allowed[k + 1] = fake_keys[k].name;
    allowed[FK_COUNT + 1] = NULL;
    double t = 0;
    if (!fj_object(r, pt, path, allowed) || !required_number(r, pt, path, "t", 0, MAX_T_S, &t))
        return false;
    if (t < *prev_t)
        return fj_fail(r,
                       "%s.t is %.15g, before the previous point's %.15g: list the points in "
                       "time order",
                       path, t, *prev_t);
    *prev_t = t;
    for (int k = 0; k < FK_COUNT; k++) {
        double v = 0;
        bool given = false;
        if (!fj_number(r, pt, path, fake_keys[k].name, 0, fake_keys[k].max, fake_keys[k].step, &v,
                       &given))
            return false;
        if (given)
            series_append(&d->series[k], npoints, t, v);
    }
    return true;
}

static bool read_timeline(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    const cJSON *list = NULL;
    if (!fj_array(r, obj, path, "timeline", &list))
        return false;
    if (!list)
        return true;
    char lpath[FJ_PATH_MAX], ppath[FJ_PATH_MAX];
    fj_path_key(lpath, path, "timeline");
    size_t n = (size_t)cJSON_GetArraySize(list), i = 0;
    double prev_t = 0;
    for (const cJSON *pt = list->child; pt; pt = pt->next, i++) {
        fj_path_index(ppath, lpath, i);
        if (!read_point(r, pt, ppath, n, &prev_t, d))
            return false;
    }
    return true;
}

static bool read_pid(const fj_reader *r, const cJSON *obj, const char *path, fake_process *p)
{
    const cJSON *v = fj_item(obj, "pid");
    if (cJSON_IsString(v) && strcmp(v->valuestring, "child") == 0) {
        p->child = true;
        return true;
    }
    if (cJSON_IsNumber(v)) {
        double pid = 0;
        if (!fj_number(r, obj, path, "pid", 0, UINT_MAX, true, &pid, NULL))
            return false;
        p->pid = (unsigned int)pid;
        return true;
    }
    return fj_fail(r,
                   "%s.pid must be a process id (a number) or \"child\" (the first child of "
                   "the process calling NVML), not %s",
                   path, v ? fj_type_name(v) : "missing");
}

static bool read_process(const fj_reader *r, const cJSON *obj, const char *path, fake_process *p)
{
    static const char *const keys[] = {"pid",      "name",     "used_mib", "from_s",
                                       "to_s",     "type",     "sm_util",  "mem_util",
                                       "enc_util", "dec_util", NULL};
    const char *name = NULL, *type = "compute";
    p->from_s = -INFINITY;
    p->to_s = INFINITY;
    if (!fj_object(r, obj, path, keys) || !read_pid(r, obj, path, p) ||
        !fj_string(r, obj, path, "name", &name) || !fj_string(r, obj, path, "type", &type) ||
        !fj_number(r, obj, path, "from_s", 0, MAX_T_S, false, &p->from_s, NULL) ||
        !fj_number(r, obj, path, "to_s", 0, MAX_T_S, false, &p->to_s, NULL) ||
        !fj_number(r, obj, path, "sm_util", 0, UINT_MAX, false, &p->util[0], NULL) ||
        !fj_number(r, obj, path, "mem_util", 0, UINT_MAX, false, &p->util[1], NULL) ||
        !fj_number(r, obj, path, "enc_util", 0, UINT_MAX, false, &p->util[2], NULL) ||
        !fj_number(r, obj, path, "dec_util", 0, UINT_MAX, false, &p->util[3], NULL))
        return false;
    if (strcmp(type, "compute") != 0 && strcmp(type, "graphics") != 0)
        return fj_fail(r, "%s.type is \"%s\": use \"compute\" or \"graphics\"", path, type);
    p->graphics = strcmp(type, "graphics") == 0;
    /* Required, because null (not available) and a number are both meaningful. */
    if (!cJSON_GetObjectItemCaseSensitive(obj, "used_mib"))
        return fj_fail(r, "%s.used_mib is missing: give MiB, or null for \"not available\"", path);
    double mib = -1;
    if (!fj_number(r, obj, path, "used_mib", 0, MAX_MIB, false, &mib, NULL))
        return false;
    p->used = mib < 0 ? GWN_VALUE_NOT_AVAILABLE : (unsigned long long)llround(mib * 1048576.0);
    return true;
}

static bool read_processes(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    const cJSON *list = NULL;
    if (!fj_array(r, obj, path, "processes", &list))
        return false;
    if (!list)
        return true;
    char lpath[FJ_PATH_MAX], ppath[FJ_PATH_MAX];
    fj_path_key(lpath, path, "processes");
    size_t n = (size_t)cJSON_GetArraySize(list);
    d->processes = xcalloc(n ? n : 1, sizeof *d->processes);
    for (const cJSON *it = list->child; it; it = it->next) {
        fj_path_index(ppath, lpath, d->nprocesses);
        fake_process *p = &d->processes[d->nprocesses++];
        if (!read_process(r, it, ppath, p))
            return false;
        d->has_child_process |= p->child;
    }
    return true;
}

static bool read_event(const fj_reader *r, const cJSON *obj, const char *path, double prev_t,
                       fake_event *e)
{
    static const char *const keys[] = {"t", "type", "data", NULL};
    static const struct {
        const char *name;
        unsigned long long bit;
    } types[] = {{"xid", GWN_EVENT_XID_CRITICAL_ERROR},
                 {"double_bit_ecc", GWN_EVENT_DOUBLE_BIT_ECC},
                 {"gpu_unavailable", GWN_EVENT_GPU_UNAVAILABLE}};
    const char *type = NULL;
    double data = 0;
    if (!fj_object(r, obj, path, keys) || !required_number(r, obj, path, "t", 0, MAX_T_S, &e->t) ||
        !fj_string(r, obj, path, "type", &type) ||
        !fj_number(r, obj, path, "data", 0, EXACT_INT, true, &data, NULL))
        return false;
    if (e->t < prev_t)
        return fj_fail(r,
                       "%s.t is %.15g, before the previous event's %.15g: list the events in "
                       "time order",
                       path, e->t, prev_t);
    e->data = (unsigned long long)data;
    for (size_t i = 0; type && i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(type, types[i].name) == 0) {
            e->type = types[i].bit;
            return true;
        }
    }
    return fj_fail(r, "%s.type must be \"xid\", \"double_bit_ecc\" or \"gpu_unavailable\"", path);
}

static bool read_events(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    const cJSON *list = NULL;
    if (!fj_array(r, obj, path, "events", &list))
        return false;
    if (!list)
        return true;
    char lpath[FJ_PATH_MAX], epath[FJ_PATH_MAX];
    fj_path_key(lpath, path, "events");
    size_t n = (size_t)cJSON_GetArraySize(list);
    d->events = xcalloc(n ? n : 1, sizeof *d->events);
    double prev_t = 0;
    for (const cJSON *it = list->child; it; it = it->next) {
        fj_path_index(epath, lpath, d->nevents);
        if (!read_event(r, it, epath, prev_t, &d->events[d->nevents]))
            return false;
        prev_t = d->events[d->nevents++].t;
    }
    return true;
}

static bool read_mig_instance(const fj_reader *r, const cJSON *obj, const char *path,
                              size_t dev_index, size_t i, const fake_device *d,
                              fake_mig_instance *m)
{
    static const char *const keys[] = {"uuid", "name", "memory_total_mib", "mem_used_mib", NULL};
    const char *uuid = NULL, *name = NULL;
    if (!fj_object(r, obj, path, keys) || !fj_string(r, obj, path, "uuid", &uuid) ||
        !fj_string(r, obj, path, "name", &name) ||
        !required_number(r, obj, path, "memory_total_mib", 0, MAX_MIB, &m->memory_total_mib) ||
        !fj_number(r, obj, path, "mem_used_mib", 0, MAX_MIB, false, &m->mem_used_mib, NULL))
        return false;
    m->uuid = uuid ? xstrdup(uuid) : xasprintf("MIG-fa4e%04zx-0000-0000-0000-%012zx", dev_index, i);
    m->name = name ? xstrdup(name) : xasprintf("%s MIG", d->name);
    return true;
}

static bool read_mig(const fj_reader *r, const cJSON *obj, const char *path, size_t dev_index,
                     fake_device *d)
{
    static const char *const keys[] = {"enabled", "max_count", "instances", NULL};
    const cJSON *mig = fj_item(obj, "mig");
    if (!mig)
        return true;
    char mpath[FJ_PATH_MAX], lpath[FJ_PATH_MAX], ipath[FJ_PATH_MAX];
    fj_path_key(mpath, path, "mig");
    fj_path_key(lpath, mpath, "instances");
    const cJSON *list = NULL;
    d->mig_enabled = true;
    if (!fj_object(r, mig, mpath, keys) || !fj_bool(r, mig, mpath, "enabled", &d->mig_enabled) ||
        !fj_array(r, mig, mpath, "instances", &list))
        return false;
    size_t n = list ? (size_t)cJSON_GetArraySize(list) : 0;
    if (n > MAX_MIG_INSTANCES)
        return fj_fail(r, "%s has %zu entries: the fake supports at most %d", lpath, n,
                       MAX_MIG_INSTANCES);
    /* An H200 has room for 7 instances; GetMigDeviceHandleByIndex gives NOT_FOUND for empty ones.
     */
    double max_count = n > 7 ? (double)n : 7;
    if (!fj_number(r, mig, mpath, "max_count", (double)n, MAX_MIG_INSTANCES, true, &max_count,
                   NULL))
        return false;
    d->mig_max_count = (unsigned int)max_count;
    d->mig = xcalloc(n ? n : 1, sizeof *d->mig);
    for (const cJSON *it = list ? list->child : NULL; it; it = it->next) {
        fj_path_index(ipath, lpath, d->nmig);
        if (!read_mig_instance(r, it, ipath, dev_index, d->nmig, d, &d->mig[d->nmig]))
            return false;
        d->nmig++;
    }
    return true;
}

bool fake_read_device_lists(const fj_reader *r, const cJSON *obj, const char *path, size_t index,
                            fake_device *d)
{
    return read_unsupported(r, obj, path, d) && read_latency(r, obj, path, d) &&
           read_timeline(r, obj, path, d) && read_processes(r, obj, path, d) &&
           read_events(r, obj, path, d) && read_mig(r, obj, path, index, d);
}

void fake_free_device(fake_device *d)
{
    free(d->name);
    free(d->uuid);
    for (int k = 0; k < FK_COUNT; k++) {
        free(d->series[k].t);
        free(d->series[k].v);
    }
    free(d->processes);
    free(d->events);
    for (size_t i = 0; i < d->nmig; i++) {
        free(d->mig[i].uuid);
        free(d->mig[i].name);
    }
    free(d->mig);
}

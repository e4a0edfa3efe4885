/* Scenario file reading, top-level and device keys, defaults; see scenario.h. The lists inside a
 * device (timeline, processes, events, MIG, call groups) are read by scenario_device.c. */
#include "scenario.h"
#include "scenario_device.h"
#include "scenario_json.h"

#include "nvml/nvml_lib.h"
#include "util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults: one NVIDIA H200 on driver 580.159.04, as read from the real one (shared/design/nvml.md
 * and docs/fake-nvml.md). */
#define DEF_DRIVER_VERSION            "580.159.04"
#define DEF_CUDA_DRIVER_VERSION       13000
#define DEF_NAME                      "NVIDIA H200"
#define DEF_MEMORY_TOTAL_MIB          143771.0
#define DEF_POWER_LIMIT_W             700.0
#define DEF_SLOWDOWN_TEMP_C           89.0
#define DEF_SHUTDOWN_ABOVE_SLOWDOWN_C 6.0 /* 95 on the H200 */
#define DEF_GPU_MAX_TEMP_C            87.0
#define DEF_MEM_MAX_TEMP_C            95.0
#define DEF_MAX_SM_CLOCK_MHZ          1980.0
#define DEF_MAX_MEM_CLOCK_MHZ         3201.0
#define DEF_PCIE_GEN                  5.0
#define DEF_PCIE_WIDTH                16.0

/* Beyond these the handle encoding (state.c) runs out of bits; no test needs more. */
enum { MAX_DEVICES = 1024 };

/* Largest scenario file read: a timeline of a day at 10 points a second fits easily. */
enum { MAX_FILE_BYTES = 64 << 20 };

bool fake_return_code(const char *name, gwn_return *out)
{
    if (strncmp(name, "NVML_ERROR_", 11) == 0)
        name += 11;
    else if (strncmp(name, "NVML_", 5) == 0)
        name += 5;
    for (gwn_return r = GWN_SUCCESS; r <= GWN_ERROR_UNKNOWN; r++) {
        if (r > GWN_ERROR_INVALID_STATE && r < GWN_ERROR_UNKNOWN)
            continue;
        if (strcmp(name, gw_nvml_return_name(r)) == 0) {
            *out = r;
            return true;
        }
    }
    return false;
}

/* Reads the whole file; NULL with msg filled on error. */
static char *read_file(const char *path, char *msg)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(msg, FAKE_MSG_MAX,
                 "cannot read the scenario %s (%s): set FAKE_NVML_SCENARIO to an existing JSON "
                 "file (examples in tests/scenarios/)",
                 path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len > MAX_FILE_BYTES)
            break;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    bool failed = ferror(f) || len > MAX_FILE_BYTES;
    int saved = errno;
    fclose(f);
    if (failed) {
        snprintf(msg, FAKE_MSG_MAX, "cannot read the scenario %s (%s): use a readable JSON file",
                 path, len > MAX_FILE_BYTES ? "larger than 64 MiB" : strerror(saved));
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

static bool syntax_error(const char *path, const char *text, const char *at, char *msg)
{
    int line = 1, col = 1;
    for (const char *p = text; at && p < at && *p; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char near[24] = "";
    if (at && *at)
        snprintf(near, sizeof near, "%.20s", at);
    for (char *p = near; *p; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    }
    snprintf(msg, FAKE_MSG_MAX,
             "%s:%d:%d: invalid JSON near \"%s\": fix the syntax (a JSON object as in "
             "docs/fake-nvml.md)",
             path, line, col, near);
    return false;
}

/* Parses "00000000:00:06.0" (or the legacy "0000:00:06.0"). */
static bool read_pci_bus_id(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    const char *s = NULL;
    if (!fj_string(r, obj, path, "pci_bus_id", &s))
        return false;
    if (!s)
        return true;
    unsigned long domain = 0;
    unsigned int bus = 0, dev = 0, fn = 0;
    int end = 0;
    if (sscanf(s, "%8lx:%2x:%2x.%1x%n", &domain, &bus, &dev, &fn, &end) == 4 && s[end] == '\0' &&
        domain <= UINT_MAX && dev <= 0x1f && fn <= 7) {
        d->pci_domain = (unsigned int)domain;
        d->pci_bus = bus;
        d->pci_device = dev;
        return true;
    }
    char full[FJ_PATH_MAX];
    fj_path_key(full, path, "pci_bus_id");
    return fj_fail(r,
                   "%s is \"%s\": write it as nvidia-smi does, DOMAIN:BUS:DEVICE.FUNCTION in "
                   "hex, e.g. \"00000000:00:06.0\"",
                   full, s);
}

static void set_defaults(fake_device *d, size_t index)
{
    d->name = xstrdup(DEF_NAME);
    d->uuid = xasprintf("GPU-fa4e0000-0000-0000-0000-%012zx", index);
    d->pci_bus = (unsigned int)(index + 1) & 0xff;
    d->memory_total_mib = DEF_MEMORY_TOTAL_MIB;
    d->power_limit_w = DEF_POWER_LIMIT_W;
    d->slowdown_temp_c = DEF_SLOWDOWN_TEMP_C;
    d->gpu_max_temp_c = DEF_GPU_MAX_TEMP_C;
    d->mem_max_temp_c = DEF_MEM_MAX_TEMP_C;
    d->retired_pages_pending = -1;
    d->max_sm_clock_mhz = DEF_MAX_SM_CLOCK_MHZ;
    d->max_mem_clock_mhz = DEF_MAX_MEM_CLOCK_MHZ;
    d->pcie_gen = d->pcie_gen_max = (unsigned int)DEF_PCIE_GEN;
    d->pcie_width = d->pcie_width_max = (unsigned int)DEF_PCIE_WIDTH;
    d->lost_after_s = INFINITY;
}

/* Replaces *dst with a copy of the string at obj.key when one is given. */
static bool read_owned_string(const fj_reader *r, const cJSON *obj, const char *path,
                              const char *key, char **dst)
{
    const char *s = NULL;
    if (!fj_string(r, obj, path, key, &s))
        return false;
    if (s) {
        free(*dst);
        *dst = xstrdup(s);
    }
    return true;
}

static bool read_uint_key(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
                          double max, unsigned int *dst)
{
    double v = *dst;
    if (!fj_number(r, obj, path, key, 0, max, true, &v, NULL))
        return false;
    *dst = (unsigned int)v;
    return true;
}

/* Reads an optional boolean into -1 (not given), 0 or 1. */
static bool read_tristate(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
                          int *dst)
{
    bool v = false;
    if (!fj_bool(r, obj, path, key, &v))
        return false;
    if (fj_item(obj, key))
        *dst = v;
    return true;
}

/* Name, identity and the static properties of one device. */
static bool read_static(const fj_reader *r, const cJSON *obj, const char *path, fake_device *d)
{
    double shutdown = NAN;
    bool ok =
        read_owned_string(r, obj, path, "name", &d->name) &&
        read_owned_string(r, obj, path, "uuid", &d->uuid) && read_pci_bus_id(r, obj, path, d) &&
        fj_number(r, obj, path, "memory_total_mib", 0, 1 << 30, false, &d->memory_total_mib,
                  NULL) &&
        fj_number(r, obj, path, "memory_reserved_mib", 0, 1 << 30, false, &d->memory_reserved_mib,
                  NULL) &&
        fj_number(r, obj, path, "power_limit_w", 0, UINT_MAX / 1000.0, false, &d->power_limit_w,
                  NULL) &&
        fj_number(r, obj, path, "slowdown_temp_c", 0, 1000, false, &d->slowdown_temp_c, NULL) &&
        fj_number(r, obj, path, "shutdown_temp_c", 0, 1000, false, &shutdown, NULL) &&
        fj_number(r, obj, path, "gpu_max_temp_c", 0, 1000, false, &d->gpu_max_temp_c, NULL) &&
        fj_number(r, obj, path, "mem_max_temp_c", 0, 1000, false, &d->mem_max_temp_c, NULL) &&
        fj_number(r, obj, path, "max_sm_clock_mhz", 0, 100000, false, &d->max_sm_clock_mhz, NULL) &&
        fj_number(r, obj, path, "max_mem_clock_mhz", 0, 100000, false, &d->max_mem_clock_mhz,
                  NULL) &&
        read_uint_key(r, obj, path, "pcie_link_gen", 16, &d->pcie_gen) &&
        read_uint_key(r, obj, path, "pcie_link_gen_max", 16, &d->pcie_gen_max) &&
        read_uint_key(r, obj, path, "pcie_link_width", 64, &d->pcie_width) &&
        read_uint_key(r, obj, path, "pcie_link_width_max", 64, &d->pcie_width_max) &&
        read_tristate(r, obj, path, "retired_pages_pending", &d->retired_pages_pending) &&
        fj_bool(r, obj, path, "remapped_rows_pending", &d->remapped_rows_pending) &&
        fj_number(r, obj, path, "lost_after_s", 0, 1e9, false, &d->lost_after_s, NULL);
    d->shutdown_temp_c =
        isnan(shutdown) ? d->slowdown_temp_c + DEF_SHUTDOWN_ABOVE_SLOWDOWN_C : shutdown;
    return ok;
}

static bool read_device(const fj_reader *r, const cJSON *obj, const char *path, size_t index,
                        fake_device *d)
{
    static const char *const keys[] = {"name",
                                       "uuid",
                                       "pci_bus_id",
                                       "memory_total_mib",
                                       "memory_reserved_mib",
                                       "power_limit_w",
                                       "slowdown_temp_c",
                                       "shutdown_temp_c",
                                       "gpu_max_temp_c",
                                       "mem_max_temp_c",
                                       "max_sm_clock_mhz",
                                       "max_mem_clock_mhz",
                                       "pcie_link_gen",
                                       "pcie_link_gen_max",
                                       "pcie_link_width",
                                       "pcie_link_width_max",
                                       "retired_pages_pending",
                                       "remapped_rows_pending",
                                       "unsupported",
                                       "lost_after_s",
                                       "latency_ms",
                                       "timeline",
                                       "processes",
                                       "events",
                                       "mig",
                                       NULL};
    set_defaults(d, index);
    return fj_object(r, obj, path, keys) && read_static(r, obj, path, d) &&
           fake_read_device_lists(r, obj, path, index, d);
}

static bool read_devices(const fj_reader *r, const cJSON *root, fake_scenario *sc)
{
    const cJSON *list = NULL;
    if (!fj_array(r, root, "", "devices", &list))
        return false;
    size_t n = list ? (size_t)cJSON_GetArraySize(list) : 0;
    if (n > MAX_DEVICES)
        return fj_fail(r, "devices has %zu entries: the fake supports at most %d", n, MAX_DEVICES);
    sc->devices = xcalloc(n ? n : 1, sizeof *sc->devices);
    const cJSON *item = list ? list->child : NULL;
    for (size_t i = 0; i < n; i++, item = item->next) {
        char path[FJ_PATH_MAX];
        fj_path_index(path, "devices", i);
        sc->ndevices = i + 1; /* so that fake_scenario_free releases what was read */
        if (!read_device(r, item, path, i, &sc->devices[i]))
            return false;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(sc->devices[j].uuid, sc->devices[i].uuid) == 0)
                return fj_fail(r,
                               "devices[%zu].uuid \"%s\" is also the uuid of devices[%zu]: "
                               "give each GPU its own uuid",
                               i, sc->devices[i].uuid, j);
        }
    }
    return true;
}

static bool read_top(const fj_reader *r, const cJSON *root, fake_scenario *sc)
{
    static const char *const keys[] = {"description",
                                       "driver_version",
                                       "nvml_version",
                                       "cuda_driver_version",
                                       "init_error",
                                       "devices",
                                       NULL};
    if (!fj_object(r, root, "", keys))
        return false;
    const char *description = NULL, *init_error = NULL, *nvml_version = NULL;
    double cuda = DEF_CUDA_DRIVER_VERSION;
    sc->driver_version = xstrdup(DEF_DRIVER_VERSION);
    if (!fj_string(r, root, "", "description", &description) ||
        !read_owned_string(r, root, "", "driver_version", &sc->driver_version) ||
        !fj_string(r, root, "", "nvml_version", &nvml_version) ||
        !fj_number(r, root, "", "cuda_driver_version", 0, INT_MAX, true, &cuda, NULL) ||
        !fj_string(r, root, "", "init_error", &init_error))
        return false;
    sc->cuda_driver_version = (int)cuda;
    sc->nvml_version =
        nvml_version ? xstrdup(nvml_version) : xasprintf("12.%s", sc->driver_version);
    if (init_error && !fake_return_code(init_error, &sc->init_error))
        return fj_fail(r,
                       "init_error \"%s\" is not an NVML error name: use null or a name such "
                       "as \"DRIVER_NOT_LOADED\", \"LIB_RM_VERSION_MISMATCH\", "
                       "\"NO_PERMISSION\", \"LIBRARY_NOT_FOUND\"",
                       init_error);
    return read_devices(r, root, sc);
}

fake_scenario *fake_scenario_load(const char *path, char *msg)
{
    char *text = read_file(path, msg);
    if (!text)
        return NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        syntax_error(path, text, end, msg);
        free(text);
        return NULL;
    }
    fake_scenario *sc = xcalloc(1, sizeof *sc);
    fj_reader r = {.file = path, .msg = msg};
    bool ok = read_top(&r, root, sc);
    cJSON_Delete(root);
    free(text);
    if (!ok) {
        fake_scenario_free(sc);
        return NULL;
    }
    return sc;
}

void fake_scenario_free(fake_scenario *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->ndevices; i++)
        fake_free_device(&sc->devices[i]);
    free(sc->devices);
    free(sc->driver_version);
    free(sc->nvml_version);
    free(sc);
}

/* Home-made column names (see synonyms.h). */
#include "logread/synonyms.h"

#include <ctype.h>
#include <string.h>

/* Names after normalising (lower case, '_' for ' ' and '-') and removing a unit suffix. */
static const struct {
    const char *name;
    const char *key;
} synonyms[] = {
    {"timestamp", "timestamp"}, /* "Timestamp", "TIMESTAMP": any case */
    {"index", "index"},
    {"name", "name"},
    {"uuid", "uuid"},
    {"time", "timestamp"},
    {"date", "timestamp"},
    {"datetime", "timestamp"},
    {"date_time", "timestamp"},
    {"ts", "timestamp"},
    {"time_stamp", "timestamp"},
    {"elapsed", "elapsed"},
    {"elapsed_s", "elapsed"},
    {"elapsed_sec", "elapsed"},
    {"elapsed_secs", "elapsed"},
    {"elapsed_seconds", "elapsed"},
    {"elapsed_time", "elapsed"},
    {"seconds", "elapsed"},
    {"secs", "elapsed"},
    {"time_s", "elapsed"},
    {"time_sec", "elapsed"},
    {"t", "elapsed"},
    {"t_s", "elapsed"},
    {"relative_time", "elapsed"},
    {"gpu", "index"},
    {"gpu_id", "index"},
    {"gpuid", "index"},
    {"gpu_index", "index"},
    {"gpu_idx", "index"},
    {"gpu_num", "index"},
    {"id", "index"},
    {"idx", "index"},
    {"device", "index"},
    {"device_id", "index"},
    {"model", "name"},
    {"gpu_model", "name"},
    {"product_name", "name"},
    {"bus_id", "pci.bus_id"},
    {"pci_bus_id", "pci.bus_id"},
    {"gpu_util", "utilization.gpu"},
    {"gpu_utilization", "utilization.gpu"},
    {"util_gpu", "utilization.gpu"},
    {"utilization_gpu", "utilization.gpu"},
    {"util", "utilization.gpu"},
    {"utilization", "utilization.gpu"},
    {"gpu_usage", "utilization.gpu"},
    {"gpu_load", "utilization.gpu"},
    {"gpu_busy", "utilization.gpu"},
    {"mem_util", "utilization.memory"},
    {"memory_util", "utilization.memory"},
    {"util_mem", "utilization.memory"},
    {"utilization_memory", "utilization.memory"},
    {"mem_utilization", "utilization.memory"},
    {"memory_utilization", "utilization.memory"},
    {"mem_used", "memory.used"},
    {"memory_used", "memory.used"},
    {"used_memory", "memory.used"},
    {"gpu_mem_used", "memory.used"},
    {"gpu_memory_used", "memory.used"},
    {"mem_usage", "memory.used"},
    {"memory_usage", "memory.used"},
    {"vram_used", "memory.used"},
    {"fb_used", "memory.used"},
    {"mem_total", "memory.total"},
    {"memory_total", "memory.total"},
    {"total_memory", "memory.total"},
    {"gpu_mem_total", "memory.total"},
    {"vram_total", "memory.total"},
    {"fb_total", "memory.total"},
    {"mem_free", "memory.free"},
    {"memory_free", "memory.free"},
    {"free_memory", "memory.free"},
    {"fb_free", "memory.free"},
    {"temp", "temperature.gpu"},
    {"temperature", "temperature.gpu"},
    {"gpu_temp", "temperature.gpu"},
    {"gpu_temperature", "temperature.gpu"},
    {"temp_gpu", "temperature.gpu"},
    {"mem_temp", "temperature.memory"},
    {"memory_temp", "temperature.memory"},
    {"temp_mem", "temperature.memory"},
    {"power", "power.draw"},
    {"power_draw", "power.draw"},
    {"power_usage", "power.draw"},
    {"gpu_power", "power.draw"},
    {"power_limit", "power.limit"},
    {"power_cap", "power.limit"},
    {"sm_clock", "clocks.current.sm"},
    {"clock_sm", "clocks.current.sm"},
    {"gr_clock", "clocks.current.graphics"},
    {"graphics_clock", "clocks.current.graphics"},
    {"gpu_clock", "clocks.current.graphics"},
    {"core_clock", "clocks.current.graphics"},
    {"mem_clock", "clocks.current.memory"},
    {"memory_clock", "clocks.current.memory"},
    {"clock_mem", "clocks.current.memory"},
    {"fan", "fan.speed"},
    {"fan_speed", "fan.speed"},
    {"perf_state", "pstate"},
    {"energy", "total_energy_consumption"},
};

/* Unit suffixes: "_mb" is what nvidia-smi prints as MiB. */
static const struct {
    const char *suffix;
    const char *unit;
} suffixes[] = {
    {"_mib", "MiB"}, {"_mb", "MiB"}, {"_gib", "GiB"}, {"_gb", "GiB"},   {"_w", "W"},
    {"_watts", "W"}, {"_mw", "mW"},  {"_c", ""},      {"_pct", "%"},    {"_percent", "%"},
    {"_mhz", "MHz"}, {"_j", "J"},    {"_mj", "mJ"},   {"_celsius", ""}, {"_perc", "%"},
};

static const char *lookup(const char *name)
{
    for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0]; i++)
        if (strcmp(name, synonyms[i].name) == 0)
            return synonyms[i].key;
    return NULL;
}

const char *gw_logread_synonym(const char *key, const char **unit)
{
    char norm[64];
    size_t n = 0;
    *unit = "";
    for (const char *p = key; *p && n + 1 < sizeof norm; p++)
        norm[n++] = *p == ' ' || *p == '-' ? '_' : (char)tolower((unsigned char)*p);
    norm[n] = '\0';
    if (key[n] != '\0')
        return NULL; /* longer than any synonym */
    const char *k = lookup(norm);
    if (k)
        return k;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i].suffix);
        if (n > sl && strcmp(norm + n - sl, suffixes[i].suffix) == 0) {
            norm[n - sl] = '\0';
            k = lookup(norm);
            if (k) {
                *unit = suffixes[i].unit;
                return k;
            }
            norm[n - sl] = suffixes[i].suffix[0];
        }
    }
    return NULL;
}

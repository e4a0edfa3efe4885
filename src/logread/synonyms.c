/* Home-made column names (see synonyms.h). */
#include "logread/synonyms.h"

#include "sampler/sample.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Names after normalising (lower case, '_' for ' ' and '-') and removing a unit suffix: the
 * columns that are no GPU field. A GPU field's names are its row's `synonyms` (gw_fields[]). */
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

/* True when the space-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* Writes the key a normalised name stands for into to; false when none. */
static bool lookup(const char *name, char *to, size_t size)
{
    if (!*name)
        return false;
    for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0]; i++)
        if (strcmp(name, synonyms[i].name) == 0) {
            snprintf(to, size, "%s", synonyms[i].key);
            return true;
        }
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        if (fi->synonyms && fi->csv_header && has_word(fi->synonyms, name)) {
            snprintf(to, size, "%.*s", (int)strcspn(fi->csv_header, " ["), fi->csv_header);
            return true;
        }
    }
    return false;
}

bool gw_logread_synonym(const char *key, char *to, size_t size, const char **unit)
{
    char norm[64];
    size_t n = 0;
    *unit = "";
    for (const char *p = key; *p && n + 1 < sizeof norm; p++)
        norm[n++] = *p == ' ' || *p == '-' ? '_' : (char)tolower((unsigned char)*p);
    norm[n] = '\0';
    if (key[n] != '\0')
        return false; /* longer than any synonym */
    if (lookup(norm, to, size))
        return true;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i].suffix);
        if (n > sl && strcmp(norm + n - sl, suffixes[i].suffix) == 0) {
            norm[n - sl] = '\0';
            if (lookup(norm, to, size)) {
                *unit = suffixes[i].unit;
                return true;
            }
            norm[n - sl] = suffixes[i].suffix[0];
        }
    }
    return false;
}

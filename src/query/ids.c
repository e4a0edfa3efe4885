/* -i: GPUs by index, UUID or PCI bus id, as nvidia-smi accepts them (see query.h). */
#include "query/query.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parses "[domain:]bus:device[.function]" (hex) into four numbers. */
static bool parse_bus_id(const char *s, unsigned long v[4])
{
    unsigned long part[4] = {0, 0, 0, 0};
    int nparts = 0;
    const char *p = s;
    for (;;) {
        char *end = NULL;
        if (!isxdigit((unsigned char)*p) || nparts == 4)
            return false;
        part[nparts++] = strtoul(p, &end, 16);
        p = end;
        if (*p == ':' || *p == '.') {
            p++;
            continue;
        }
        if (*p)
            return false;
        break;
    }
    /* the separators decide which part is which */
    const char *dot = strrchr(s, '.');
    int colons = 0;
    for (const char *c = s; *c; c++)
        colons += *c == ':';
    if (colons < 1 || colons > 2 || nparts != colons + 1 + (dot ? 1 : 0))
        return false;
    int k = 0;
    v[0] = colons == 2 ? part[k++] : 0;
    v[1] = part[k++];
    v[2] = part[k++];
    v[3] = dot ? part[k] : 0;
    return true;
}

/* The position of the device a token names, or -1. */
static int match(const char *tok, const gw_device_info *devs, unsigned count)
{
    char *end = NULL;
    unsigned long idx = strtoul(tok, &end, 10);
    if (isdigit((unsigned char)tok[0]) && end && *end == '\0') {
        for (unsigned i = 0; i < count; i++)
            if (devs[i].index == idx)
                return (int)i;
        return -1;
    }
    if (strncasecmp(tok, "GPU-", 4) == 0) {
        for (unsigned i = 0; i < count; i++)
            if (strcasecmp(devs[i].uuid, tok) == 0)
                return (int)i;
        return -1;
    }
    unsigned long want[4], have[4];
    if (!parse_bus_id(tok, want))
        return -1;
    for (unsigned i = 0; i < count; i++)
        if (parse_bus_id(devs[i].pci_bus_id, have) && memcmp(want, have, sizeof want) == 0)
            return (int)i;
    return -1;
}

gw_rc gw_qids_select(const char *ids, const gw_device_info *devs, unsigned count, unsigned *out,
                     unsigned *nout, gw_error *err)
{
    *nout = 0;
    char *copy = xstrdup(ids), *save = NULL;
    gw_rc rc = GW_OK;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        int pos = match(tok, devs, count);
        if (pos < 0) {
            rc = gw_error_set(err, GW_E_USAGE,
                              "no GPU matches -i '%s': this machine has %u GPU%s (indexes 0-%u); "
                              "give indexes, UUIDs (GPU-...) or PCI bus ids (00000000:07:00.0)",
                              tok, count, count == 1 ? "" : "s", count ? count - 1 : 0);
            break;
        }
        bool dup = false;
        for (unsigned k = 0; k < *nout; k++)
            dup = dup || out[k] == (unsigned)pos;
        if (!dup && *nout < count)
            out[(*nout)++] = (unsigned)pos;
    }
    if (!rc && *nout == 0)
        rc = gw_error_set(err, GW_E_USAGE, "-i names no GPU: give indexes, UUIDs or PCI bus ids");
    free(copy);
    return rc;
}

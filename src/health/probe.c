/* What `gpuwatch check` reads: the sampler's probe (src/sampler/probe.c); see health.h. */
#include "health/health.h"

#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B(f) GW_FIELD_BIT(f)

/* The device query a practitioner's `nvidia-smi` makes, plus the link and ECC counters. */
#define CHECK_FIELDS                                                                               \
    (B(GW_F_UTIL_GPU_PCT) | B(GW_F_UTIL_MEM_PCT) | B(GW_F_MEM_TOTAL_MIB) | B(GW_F_MEM_USED_MIB) |  \
     B(GW_F_MEM_FREE_MIB) | B(GW_F_MEM_RESERVED_MIB) | B(GW_F_TEMP_GPU_C) | B(GW_F_POWER_DRAW_W) | \
     B(GW_F_CLOCK_SM_MHZ) | B(GW_F_CLOCKS_EVENT_REASONS) | B(GW_F_PSTATE) | B(GW_F_PCIE_GEN) |     \
     B(GW_F_PCIE_GEN_MAX) | B(GW_F_PCIE_WIDTH) | B(GW_F_PCIE_WIDTH_MAX) | B(GW_F_ECC_UNCORRECTED))

gw_rc gw_health_probe(gw_health_report *out, gw_error *err)
{
    memset(out, 0, sizeof *out);
    gw_probe p;
    gw_rc rc = gw_sampler_probe(CHECK_FIELDS, &p, err);
    if (rc)
        return rc;
    snprintf(out->driver_version, sizeof out->driver_version, "%s", p.sys.driver_version);
    snprintf(out->nvml_version, sizeof out->nvml_version, "%s", p.sys.nvml_version);
    out->cuda_driver_version = p.sys.cuda_driver_version;
    if (p.error[0]) {
        snprintf(out->error, sizeof out->error, "%s", p.error);
        out->state = GW_HEALTH_UNKNOWN;
        return GW_OK;
    }
    out->ngpus = p.ngpus;
    out->gpus = xcalloc(p.ngpus ? p.ngpus : 1, sizeof *out->gpus);
    for (unsigned i = 0; i < p.ngpus; i++)
        out->gpus[i].facts = p.gpus[i]; /* the process list moves to the report */
    free(p.gpus);
    return GW_OK;
}

void gw_health_report_free(gw_health_report *r)
{
    for (unsigned i = 0; r->gpus && i < r->ngpus; i++)
        free(r->gpus[i].facts.procs);
    free(r->gpus);
    r->gpus = NULL;
    r->ngpus = 0;
}

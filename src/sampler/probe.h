/*
 * probe: one-shot reads for `gpuwatch check` — the facts a pre-flight checklist needs that the
 * sampler's ticks do not carry (ECC counters over the GPU's life, pending page retirement and row
 * remapping, the process list), every group of NVML calls timed — and the driver stack's
 * versions (gw_system_read, also what gw_sampler_system serves).
 *
 * Owns: loading NVML for the probe and unloading it before returning. Must not: judge the facts
 * (src/health does) or print.
 */
#ifndef GW_PROBE_H
#define GW_PROBE_H

#include "sampler/sampler.h"

#include <stdbool.h>
#include <stdint.h>

/* What the probe read on one GPU. Absent values have their validity bit clear (v) or are -1. */
typedef struct gw_gpu_probe {
    gw_device_info info;   /* index, name, uuid, PCI bus id */
    bool reachable;        /* false: the handle could not be had, or a call said GPU_IS_LOST */
    char lost_call[64];    /* the NVML call that found it unreachable */
    gw_gpu_sample v;       /* the fields asked for (temperature, memory, PCIe link, ...) */
    double ecc_lifetime;   /* aggregate uncorrectable ECC count; NAN when not supported */
    int retired_pending;   /* GetRetiredPagesPendingStatus: 1, 0, -1 not supported */
    int remap_pending;     /* GetRemappedRows isPending: 1, 0, -1 not supported */
    int remap_failure;     /* GetRemappedRows failureOccurred: 1, 0, -1 not supported */
    unsigned nprocs;       /* compute and graphics processes holding memory */
    gw_gpu_process *procs; /* [nprocs], owned */
    double latency_ms;     /* wall time of every NVML call made on this GPU */
    unsigned calls;        /* how many groups of calls were timed */
    double slowest_ms;     /* the slowest group ... */
    const char *slowest;   /* ... and its name ("process list"), static */
} gw_gpu_probe;

typedef struct gw_probe {
    gw_system_info sys;
    unsigned ngpus;
    gw_gpu_probe *gpus; /* [ngpus], owned */
    char error[512];    /* why the GPUs could not be listed ("" otherwise) */
} gw_probe;

/* Loads NVML, reads the versions and, on every GPU, the fields in `fields` (GW_FIELD_BIT()s), the
 * process list and the memory error counters, then unloads NVML. A GPU that cannot be reached is
 * reported as such; a failure to list the GPUs is left in out->error. Errors: GW_E_NVML when the
 * library cannot be loaded or initialised. Free with gw_probe_free. */
GW_MUST_USE gw_rc gw_sampler_probe(uint64_t fields, gw_probe *out, gw_error *err);
void gw_probe_free(gw_probe *p);

/* Reads the versions of an initialised library into out (absent ones "" / 0). */
void gw_system_read(const gw_nvml *nvml, gw_system_info *out);

#endif

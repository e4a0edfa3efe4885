/* What `gpuwatch check` reads from NVML, every call timed; see health.h. */
#include "health/health.h"

#include "sampler/gpu_dev.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
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

/* Adds the time since t0 to the GPU's NVML latency under the name of a group of calls. */
static void timed(gw_health_facts *f, const char *what, int64_t t0)
{
    double ms = (double)(gw_mono_ns() - t0) / 1e6;
    f->latency_ms += ms;
    f->calls++;
    if (!f->slowest || ms > f->slowest_ms) {
        f->slowest_ms = ms;
        f->slowest = what;
    }
}

/* ECC over the GPU's life, pending page retirement and row remapping. */
static void read_memory_errors(const gw_nvml *n, gw_gpu_dev *d, gw_health_facts *f)
{
    unsigned long long e = 0;
    gwn_return r = n->DeviceGetTotalEccErrors
                       ? n->DeviceGetTotalEccErrors(d->handle, GWN_MEMORY_ERROR_TYPE_UNCORRECTED,
                                                    GWN_AGGREGATE_ECC, &e)
                       : GWN_ERROR_FUNCTION_NOT_FOUND;
    if (r == GWN_SUCCESS && e < (1ULL << 52))
        f->ecc_lifetime = (double)e;
    else if (r == GWN_ERROR_GPU_IS_LOST)
        gw_gpu_mark_lost(d, "nvmlDeviceGetTotalEccErrors");
    int pending = 0;
    r = n->DeviceGetRetiredPagesPendingStatus
            ? n->DeviceGetRetiredPagesPendingStatus(d->handle, &pending)
            : GWN_ERROR_FUNCTION_NOT_FOUND;
    if (r == GWN_SUCCESS)
        f->retired_pending = pending == GWN_FEATURE_ENABLED;
    else if (r == GWN_ERROR_GPU_IS_LOST)
        gw_gpu_mark_lost(d, "nvmlDeviceGetRetiredPagesPendingStatus");
    unsigned corr = 0, unc = 0, is_pending = 0, failed = 0;
    r = n->DeviceGetRemappedRows
            ? n->DeviceGetRemappedRows(d->handle, &corr, &unc, &is_pending, &failed)
            : GWN_ERROR_FUNCTION_NOT_FOUND;
    if (r == GWN_SUCCESS) {
        f->remap_pending = is_pending != 0;
        f->remap_failure = failed != 0;
    } else if (r == GWN_ERROR_GPU_IS_LOST) {
        gw_gpu_mark_lost(d, "nvmlDeviceGetRemappedRows");
    }
}

static void probe_gpu(const gw_nvml *n, gw_gpu_dev *d, gw_health_facts *f)
{
    f->info = d->info;
    f->ecc_lifetime = NAN;
    f->retired_pending = f->remap_pending = f->remap_failure = -1;
    if (!atomic_load(&d->lost)) {
        int64_t t0 = gw_mono_ns();
        gw_gpu_read_fast(n, d, CHECK_FIELDS, &f->v);
        timed(f, "device query", t0);
        size_t np = 0, cap = 0;
        t0 = gw_mono_ns();
        gw_gpu_read_processes(n, d, NULL, &f->procs, &np, &cap);
        timed(f, "process list", t0);
        f->nprocs = (unsigned)np;
        t0 = gw_mono_ns();
        read_memory_errors(n, d, f);
        timed(f, "memory error counters", t0);
    }
    f->reachable = !atomic_load(&d->lost);
    if (!f->reachable) {
        const char *call = atomic_load(&d->lost_call);
        snprintf(f->lost_call, sizeof f->lost_call, "%s", call ? call : "NVML");
    }
}

static void read_versions(const gw_nvml *n, gw_health_report *out)
{
    if (!n->SystemGetDriverVersion ||
        n->SystemGetDriverVersion(out->driver_version, sizeof out->driver_version) != GWN_SUCCESS)
        out->driver_version[0] = '\0';
    if (!n->SystemGetNVMLVersion ||
        n->SystemGetNVMLVersion(out->nvml_version, sizeof out->nvml_version) != GWN_SUCCESS)
        out->nvml_version[0] = '\0';
    if (!n->SystemGetCudaDriverVersion ||
        n->SystemGetCudaDriverVersion(&out->cuda_driver_version) != GWN_SUCCESS)
        out->cuda_driver_version = 0;
}

void gw_health_probe(const gw_nvml *n, gw_health_report *out)
{
    memset(out, 0, sizeof *out);
    read_versions(n, out);
    gw_gpu_dev *devs = NULL;
    unsigned count = 0;
    gw_error err = {0};
    if (gw_gpu_devs_open(n, &devs, &count, &err)) {
        snprintf(out->error, sizeof out->error, "%s", err.msg);
        out->state = GW_HEALTH_UNKNOWN;
        return;
    }
    out->ngpus = count;
    out->gpus = xcalloc(count ? count : 1, sizeof *out->gpus);
    for (unsigned i = 0; i < count; i++)
        probe_gpu(n, &devs[i], &out->gpus[i].facts);
    gw_gpu_devs_close(n, devs, count);
}

void gw_health_report_free(gw_health_report *r)
{
    for (unsigned i = 0; r->gpus && i < r->ngpus; i++)
        free(r->gpus[i].facts.procs);
    free(r->gpus);
    r->gpus = NULL;
    r->ngpus = 0;
}

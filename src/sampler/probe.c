/* One-shot reads for `gpuwatch check`, every group of calls timed; see probe.h. */
#include "sampler/probe.h"

#include "sampler/clock_reasons.h"
#include "sampler/gpu_dev.h"
#include "util/gw_time.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME_BIT(name) _Static_assert((int)GW_REASON_##name == (int)GWN_CLOCKS_EVENT_##name, #name)
SAME_BIT(GPU_IDLE);
SAME_BIT(APPLICATIONS_CLOCKS_SETTING);
SAME_BIT(SW_POWER_CAP);
SAME_BIT(HW_SLOWDOWN);
SAME_BIT(SYNC_BOOST);
SAME_BIT(SW_THERMAL);
SAME_BIT(HW_THERMAL);
SAME_BIT(HW_POWER_BRAKE);
SAME_BIT(DISPLAY_CLOCK_SETTING);

/* Adds the time since t0 to the GPU's NVML latency under the name of a group of calls. */
static void timed(gw_gpu_probe *f, const char *what, int64_t t0)
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
static void read_memory_errors(const gw_nvml *n, gw_gpu_dev *d, gw_gpu_probe *f)
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

static void probe_gpu(const gw_nvml *n, gw_gpu_dev *d, uint64_t fields, gw_gpu_probe *f)
{
    f->info = d->info;
    f->ecc_lifetime = NAN;
    f->retired_pending = f->remap_pending = f->remap_failure = -1;
    if (!atomic_load(&d->lost)) {
        int64_t t0 = gw_mono_ns();
        gw_gpu_read_fast(n, d, fields, &f->v);
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

void gw_system_read(const gw_nvml *n, gw_system_info *out)
{
    memset(out, 0, sizeof *out);
    if (!n->SystemGetDriverVersion ||
        n->SystemGetDriverVersion(out->driver_version, sizeof out->driver_version) != GWN_SUCCESS)
        out->driver_version[0] = '\0';
    if (!n->SystemGetNVMLVersion ||
        n->SystemGetNVMLVersion(out->nvml_version, sizeof out->nvml_version) != GWN_SUCCESS)
        out->nvml_version[0] = '\0';
    gw_utf8_clean_buf(out->driver_version, sizeof out->driver_version);
    gw_utf8_clean_buf(out->nvml_version, sizeof out->nvml_version);
    if (!n->SystemGetCudaDriverVersion ||
        n->SystemGetCudaDriverVersion(&out->cuda_driver_version) != GWN_SUCCESS)
        out->cuda_driver_version = 0;
    snprintf(out->library, sizeof out->library, "%s", n->path ? n->path : "");
    const char *banner = n->Banner ? n->Banner() : NULL;
    snprintf(out->banner, sizeof out->banner, "%s", banner ? banner : "");
}

gw_rc gw_sampler_probe(uint64_t fields, gw_probe *out, gw_error *err)
{
    memset(out, 0, sizeof *out);
    gw_nvml *n = NULL;
    gw_rc rc = gw_nvml_open(NULL, &n, err);
    if (rc) {
        gw_nvml_close(n);
        return rc;
    }
    gw_system_read(n, &out->sys);
    gw_gpu_dev *devs = NULL;
    unsigned count = 0;
    gw_error e2 = {0};
    if (gw_gpu_devs_open(n, &devs, &count, &e2)) {
        snprintf(out->error, sizeof out->error, "%s", e2.msg);
    } else {
        out->ngpus = count;
        out->gpus = xcalloc(count ? count : 1, sizeof *out->gpus);
        for (unsigned i = 0; i < count; i++)
            probe_gpu(n, &devs[i], fields, &out->gpus[i]);
        gw_gpu_devs_close(n, devs, count);
    }
    gw_nvml_close(n);
    return GW_OK;
}

void gw_probe_free(gw_probe *p)
{
    for (unsigned i = 0; p->gpus && i < p->ngpus; i++)
        free(p->gpus[i].procs);
    free(p->gpus);
    p->gpus = NULL;
    p->ngpus = 0;
}

#include "sampler/gpu_dev.h"

#include "host/procfs.h"
#include "util/gw_time.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Calls an optional NVML function; a missing symbol reads as FUNCTION_NOT_FOUND. */
#define NV(n, fn, ...) ((n)->fn ? (n)->fn(__VA_ARGS__) : GWN_ERROR_FUNCTION_NOT_FOUND)

bool gw_gpu_mark_lost(gw_gpu_dev *dev, const char *call)
{
    bool was = atomic_exchange(&dev->lost, true);
    if (!was)
        atomic_store(&dev->lost_call, call);
    return !was;
}

void gw_gpu_count_error(gw_gpu_dev *dev, const char *call)
{
    atomic_fetch_add(&dev->errors, 1);
    gw_call_errors *t = dev->call_errors;
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    unsigned i = 0;
    while (i < t->n && strcmp(t->call[i], call) != 0)
        i++;
    if (i == GW_CALL_ERRORS_MAX)
        t->call[--i] = "other";
    else if (i == t->n)
        t->call[t->n++] = call;
    t->count[i]++;
    pthread_mutex_unlock(&t->lock);
}

/* Sorts a call's result: true on success; on failure caches "unsupported" for `bits` or counts
 * an error, and marks the device lost on GPU_IS_LOST. */
static bool ok(gw_gpu_dev *d, gwn_return r, uint64_t bits, uint64_t *unsupported, const char *call)
{
    if (r == GWN_SUCCESS)
        return true;
    if (r == GWN_ERROR_GPU_IS_LOST)
        gw_gpu_mark_lost(d, call);
    else if (gw_nvml_is_unsupported(r))
        *unsupported |= bits;
    else
        gw_gpu_count_error(d, call);
    return false;
}

/* Parses "535.54.03" into 535.54 (major + minor/100); 0 when unknown. */
static double driver_version_number(const gw_nvml *n)
{
    char buf[GWN_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
    if (NV(n, SystemGetDriverVersion, buf, sizeof buf) != GWN_SUCCESS)
        return 0;
    unsigned major = 0, minor = 0;
    if (sscanf(buf, "%u.%u", &major, &minor) != 2)
        return 0;
    return major + minor / 100.0;
}

/* Reads the static facts of one device, except those in `skip` (GW_INFO_* bits). */
static void read_info(const gw_nvml *n, gw_gpu_dev *d, unsigned index, size_t proc_stride,
                      uint32_t skip)
{
    gw_device_info *in = &d->info;
    in->index = index;
    in->memory_total_mib = in->power_limit_w = in->slowdown_temp_c = in->max_sm_clock_mhz = NAN;
    d->proc_stride = proc_stride;
    unsigned idx = index;
    if (NV(n, DeviceGetIndex, d->handle, &idx) == GWN_SUCCESS)
        in->index = idx;
    if (NV(n, DeviceGetName, d->handle, in->name, sizeof in->name) != GWN_SUCCESS)
        in->name[0] = '\0';
    if (NV(n, DeviceGetUUID, d->handle, in->uuid, sizeof in->uuid) != GWN_SUCCESS)
        in->uuid[0] = '\0';
    gwn_pci_info pci;
    memset(&pci, 0, sizeof pci);
    if (NV(n, DeviceGetPciInfo, d->handle, &pci) == GWN_SUCCESS) {
        const char *bus = n->pci_info_abi == 1 ? pci.busIdLegacy : pci.busId;
        snprintf(in->pci_bus_id, sizeof in->pci_bus_id, "%.*s", (int)sizeof pci.busId, bus);
    }
    /* NVML's strings are untrusted bytes: made valid UTF-8 without escapes here, once, so that no
     * terminal, meta.json or summary.json ever sees them raw (util/gw_utf8.h) */
    gw_utf8_clean_buf(in->name, sizeof in->name);
    gw_utf8_clean_buf(in->uuid, sizeof in->uuid);
    gw_utf8_clean_buf(in->pci_bus_id, sizeof in->pci_bus_id);
    gwn_memory_v2 m2 = {.version = GWN_MEMORY_V2_VERSION};
    gwn_memory m1;
    if (!(skip & GW_INFO_MEMORY)) {
        if (NV(n, DeviceGetMemoryInfo_v2, d->handle, &m2) == GWN_SUCCESS)
            in->memory_total_mib = floor(gw_field_from_nvml(GW_F_MEM_TOTAL_MIB, (double)m2.total));
        else if (NV(n, DeviceGetMemoryInfo, d->handle, &m1) == GWN_SUCCESS)
            in->memory_total_mib = floor(gw_field_from_nvml(GW_F_MEM_TOTAL_MIB, (double)m1.total));
        if (!gw_field_plausible(GW_F_MEM_TOTAL_MIB, in->memory_total_mib))
            in->memory_total_mib = NAN; /* 2^30 MiB from a container's NVML: absent, not kept */
    }
    unsigned v = 0;
    if (!(skip & GW_INFO_POWER_LIMIT) &&
        (NV(n, DeviceGetPowerManagementLimit, d->handle, &v) == GWN_SUCCESS ||
         NV(n, DeviceGetEnforcedPowerLimit, d->handle, &v) == GWN_SUCCESS))
        in->power_limit_w = gw_field_from_nvml(GW_F_POWER_LIMIT_W, v);
    if (!(skip & GW_INFO_THRESHOLDS) &&
        NV(n, DeviceGetTemperatureThreshold, d->handle, GWN_TEMPERATURE_THRESHOLD_SLOWDOWN, &v) ==
            GWN_SUCCESS &&
        v > 0 && v < 300)
        in->slowdown_temp_c = v;
    if (!(skip & GW_INFO_MAX_CLOCK) &&
        NV(n, DeviceGetMaxClockInfo, d->handle, GWN_CLOCK_SM, &v) == GWN_SUCCESS && v > 0 &&
        v < 100000) {
        in->max_sm_clock_mhz = v;
        d->static_v[GW_F_CLOCK_MAX_SM_MHZ] = v; /* serve clocks.max.sm from here */
        d->static_have |= GW_FIELD_BIT(GW_F_CLOCK_MAX_SM_MHZ);
    }
    gwn_gpm_support gs = {.version = GWN_GPM_SUPPORT_VERSION};
    in->gpm_supported =
        !(skip & GW_INFO_GPM) && n->GpmSampleGet && n->GpmMetricsGet && n->GpmSampleAlloc &&
        NV(n, GpmQueryDeviceSupport, d->handle, &gs) == GWN_SUCCESS && gs.isSupportedDevice;
    for (int k = 0; in->gpm_supported && k < GW_GPM_RING + 1; k++)
        if (n->GpmSampleAlloc(&d->gpm[k]) != GWN_SUCCESS)
            in->gpm_supported = false;
    unsigned cur = 0, pend = 0, max = 0;
    in->mig_enabled = !(skip & GW_INFO_MIG) &&
                      NV(n, DeviceGetMigMode, d->handle, &cur, &pend) == GWN_SUCCESS && cur == 1;
    if (in->mig_enabled && NV(n, DeviceGetMaxMigDeviceCount, d->handle, &max) == GWN_SUCCESS)
        d->mig_max = max < 64 ? max : 64;
}

gw_rc gw_gpu_devs_open(const gw_nvml *n, gw_gpu_dev **out, unsigned *count, gw_error *err)
{
    return gw_gpu_devs_open_some(n, 0, out, count, err);
}

gw_rc gw_gpu_devs_open_some(const gw_nvml *n, uint32_t skip, gw_gpu_dev **out, unsigned *count,
                            gw_error *err)
{
    *out = NULL;
    *count = 0;
    unsigned c = 0;
    gwn_return r = n->DeviceGetCount(&c);
    if (r != GWN_SUCCESS) {
        gw_error_set(err, GW_E_NVML, "nvmlDeviceGetCount failed (%s): check `nvidia-smi`",
                     gw_nvml_return_name(r));
        return GW_E_NVML;
    }
    if (c > 1024)
        return gw_error_set(err, GW_E_NVML, "nvmlDeviceGetCount returned %u devices: refusing", c);
    /* Drivers 535.43-535.86 wrote 32-byte records from the _v3 process call (design/nvml.md). */
    size_t stride = n->processes_abi == 1 ? sizeof(gwn_process_info_v1) : sizeof(gwn_process_info);
    double drv = driver_version_number(n);
    if (n->processes_abi == 3 && drv >= 535.43 && drv <= 535.86)
        stride = 32;
    gw_gpu_dev *devs = c ? xcalloc(c, sizeof *devs) : NULL;
    for (unsigned i = 0; i < c; i++) {
        gw_gpu_dev *d = &devs[i];
        atomic_init(&d->lost, false);
        atomic_init(&d->lost_reported, false);
        atomic_init(&d->lost_call, NULL);
        atomic_init(&d->errors, 0);
        r = n->DeviceGetHandleByIndex(i, &d->handle);
        if (r != GWN_SUCCESS) {
            d->info.index = i;
            d->info.memory_total_mib = d->info.power_limit_w = NAN;
            d->info.slowdown_temp_c = d->info.max_sm_clock_mhz = NAN;
            gw_gpu_mark_lost(d, "nvmlDeviceGetHandleByIndex");
            continue;
        }
        read_info(n, d, i, stride, skip);
        for (int f = 0; f < GW_F_COUNT; f++)
            if (gw_fields[f].nvml.shape != GW_NVML_OWN)
                d->nvml_fn[f] = gw_nvml_symbol(n, gw_fields[f].nvml.symbol);
    }
    *out = devs;
    *count = c;
    return GW_OK;
}

void gw_gpu_devs_close(const gw_nvml *n, gw_gpu_dev *devs, unsigned count)
{
    for (unsigned i = 0; i < count && n; i++)
        for (int k = 0; k < GW_GPM_RING + 1; k++)
            if (devs[i].gpm[k] && n->GpmSampleFree)
                n->GpmSampleFree(devs[i].gpm[k]);
    free(devs);
}

#define B(f) GW_FIELD_BIT(f)

/* Reads one unsigned value with the common signature (device, unsigned*). */
/* Stores value v (in the field's unit) when it is within the field's bounds (gw_field_bounds_of:
 * the same numbers the log reader applies); a value outside is a sentinel and stays absent. */
static void set_checked(gw_gpu_sample *out, gw_gpu_field f, double v)
{
    if (gw_field_plausible(f, v))
        gw_set(out, f, v);
}

static void read_uint(gw_gpu_dev *d, gwn_return (*fn)(gwn_device, unsigned int *), const char *call,
                      gw_gpu_field f, gw_gpu_sample *out)
{
    unsigned v = 0;
    gwn_return r = fn ? fn(d->handle, &v) : GWN_ERROR_FUNCTION_NOT_FOUND;
    if (ok(d, r, B(f), &d->fast_unsupported, call))
        set_checked(out, f, gw_field_from_nvml(f, v));
}

static void read_clock(const gw_nvml *n, gw_gpu_dev *d, bool max, int type, gw_gpu_field f,
                       gw_gpu_sample *out)
{
    unsigned v = 0;
    gwn_return r = max ? NV(n, DeviceGetMaxClockInfo, d->handle, type, &v)
                       : NV(n, DeviceGetClockInfo, d->handle, type, &v);
    if (ok(d, r, B(f), &d->fast_unsupported,
           max ? "nvmlDeviceGetMaxClockInfo" : "nvmlDeviceGetClockInfo"))
        set_checked(out, f, v);
}

/* Stores a memory reading when every part is within bounds and used <= total (else a sentinel
 * or a torn read: nothing of it is kept). */
static void set_memory(gw_gpu_sample *out, double total, double used, double free_b, double rsv)
{
    const gw_gpu_field f[4] = {GW_F_MEM_TOTAL_MIB, GW_F_MEM_USED_MIB, GW_F_MEM_FREE_MIB,
                               GW_F_MEM_RESERVED_MIB};
    double v[4] = {total, used, free_b, rsv};
    for (int i = 0; i < 4; i++) {
        v[i] = isnan(v[i]) ? NAN : gw_field_from_nvml(f[i], v[i]);
        if (!isnan(v[i]) && !gw_field_plausible(f[i], v[i]))
            return;
    }
    if (!(used <= total))
        return;
    for (int i = 0; i < 4; i++)
        if (!isnan(v[i]))
            gw_set(out, f[i], v[i]);
}

static void read_memory(const gw_nvml *n, gw_gpu_dev *d, gw_gpu_sample *out)
{
    const uint64_t bits = B(GW_F_MEM_TOTAL_MIB) | B(GW_F_MEM_USED_MIB) | B(GW_F_MEM_FREE_MIB) |
                          B(GW_F_MEM_RESERVED_MIB);
    if (d->mem_abi != 1) {
        gwn_memory_v2 m = {.version = GWN_MEMORY_V2_VERSION};
        gwn_return r = NV(n, DeviceGetMemoryInfo_v2, d->handle, &m);
        if (r == GWN_SUCCESS) {
            d->mem_abi = 2;
            set_memory(out, (double)m.total, (double)m.used, (double)m.free, (double)m.reserved);
            return;
        }
        if (r == GWN_ERROR_GPU_IS_LOST) {
            gw_gpu_mark_lost(d, "nvmlDeviceGetMemoryInfo_v2");
            return;
        }
        if (!gw_nvml_is_unsupported(r) || d->mem_abi == 2) {
            gw_gpu_count_error(d, "nvmlDeviceGetMemoryInfo_v2");
            return;
        }
        d->mem_abi = 1; /* an older driver: use the plain call from now on */
    }
    gwn_memory m;
    if (ok(d, NV(n, DeviceGetMemoryInfo, d->handle, &m), bits, &d->fast_unsupported,
           "nvmlDeviceGetMemoryInfo"))
        set_memory(out, (double)m.total, (double)m.used, (double)m.free, NAN);
}

/* Reads the fields of `want` that the table reads by symbol (gw_fields[].nvml). */
static void read_by_symbol(gw_gpu_dev *d, uint64_t want, gw_gpu_sample *out)
{
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_nvml_read *rd = &gw_fields[f].nvml;
        if (rd->shape == GW_NVML_OWN || !(want & B(f)))
            continue;
        unsigned v = 0, period_us = 0;
        gwn_return r = GWN_ERROR_FUNCTION_NOT_FOUND;
        if (d->nvml_fn[f] && rd->shape == GW_NVML_UINT)
            r = ((gwn_uint_fn)d->nvml_fn[f])(d->handle, &v);
        else if (d->nvml_fn[f] && rd->shape == GW_NVML_UINT_PERIOD)
            r = ((gwn_uint_period_fn)d->nvml_fn[f])(d->handle, &v, &period_us);
        if (ok(d, r, B(f), &d->fast_unsupported, rd->symbol))
            set_checked(out, (gw_gpu_field)f, gw_field_from_nvml((gw_gpu_field)f, v));
    }
}

/* Reads the remaining fields whose calls need special arguments. */
static void read_misc(const gw_nvml *n, gw_gpu_dev *d, uint64_t want, gw_gpu_sample *out)
{
    if (want & B(GW_F_TEMP_GPU_C)) {
        unsigned t = 0;
        if (ok(d, NV(n, DeviceGetTemperature, d->handle, GWN_TEMPERATURE_GPU, &t),
               B(GW_F_TEMP_GPU_C), &d->fast_unsupported, "nvmlDeviceGetTemperature"))
            set_checked(out, GW_F_TEMP_GPU_C, t);
    }
    if (want & B(GW_F_TEMP_MEM_C)) {
        gwn_field_value fv = {.fieldId = GWN_FI_DEV_MEMORY_TEMP};
        if (ok(d, NV(n, DeviceGetFieldValues, d->handle, 1, &fv), B(GW_F_TEMP_MEM_C),
               &d->fast_unsupported, "nvmlDeviceGetFieldValues") &&
            ok(d, fv.nvmlReturn, B(GW_F_TEMP_MEM_C), &d->fast_unsupported,
               "nvmlDeviceGetFieldValues"))
            set_checked(out, GW_F_TEMP_MEM_C, fv.value.uiVal);
    }
    if (want & B(GW_F_CLOCKS_EVENT_REASONS)) {
        unsigned long long mask = 0;
        if (ok(d, NV(n, DeviceGetCurrentClocksEventReasons, d->handle, &mask),
               B(GW_F_CLOCKS_EVENT_REASONS), &d->fast_unsupported,
               "nvmlDeviceGetCurrentClocksEventReasons"))
            set_checked(out, GW_F_CLOCKS_EVENT_REASONS, (double)mask);
    }
    if (want & B(GW_F_PSTATE)) {
        int ps = GWN_PSTATE_UNKNOWN;
        if (ok(d, NV(n, DeviceGetPerformanceState, d->handle, &ps), B(GW_F_PSTATE),
               &d->fast_unsupported, "nvmlDeviceGetPerformanceState"))
            set_checked(out, GW_F_PSTATE, ps);
    }
    if (want & B(GW_F_ECC_UNCORRECTED)) {
        unsigned long long e = 0;
        if (ok(d,
               NV(n, DeviceGetTotalEccErrors, d->handle, GWN_MEMORY_ERROR_TYPE_UNCORRECTED,
                  GWN_VOLATILE_ECC, &e),
               B(GW_F_ECC_UNCORRECTED), &d->fast_unsupported, "nvmlDeviceGetTotalEccErrors"))
            set_checked(out, GW_F_ECC_UNCORRECTED, (double)e);
    }
}

void gw_gpu_read_fast(const gw_nvml *n, gw_gpu_dev *d, uint64_t want, gw_gpu_sample *out)
{
    out->valid = 0;
    out->lost = atomic_load(&d->lost);
    if (out->lost)
        return;
    want &= ~(GW_FIELDS_SLOW | d->fast_unsupported);
    /* Values that cannot change come from the cache after their first read. */
    uint64_t cached = want & d->static_have;
    for (int f = 0; cached && f < GW_F_COUNT; f++)
        if (cached & B(f))
            gw_set(out, (gw_gpu_field)f, d->static_v[f]);
    want &= ~cached;
    if (want & (B(GW_F_UTIL_GPU_PCT) | B(GW_F_UTIL_MEM_PCT))) {
        gwn_utilization u;
        if (ok(d, NV(n, DeviceGetUtilizationRates, d->handle, &u),
               B(GW_F_UTIL_GPU_PCT) | B(GW_F_UTIL_MEM_PCT), &d->fast_unsupported,
               "nvmlDeviceGetUtilizationRates")) {
            set_checked(out, GW_F_UTIL_GPU_PCT, u.gpu);
            set_checked(out, GW_F_UTIL_MEM_PCT, u.memory);
        }
    }
    if (want & (B(GW_F_MEM_TOTAL_MIB) | B(GW_F_MEM_USED_MIB) | B(GW_F_MEM_FREE_MIB) |
                B(GW_F_MEM_RESERVED_MIB)))
        read_memory(n, d, out);
    if (want & B(GW_F_POWER_DRAW_W))
        read_uint(d, n->DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage", GW_F_POWER_DRAW_W, out);
    if (want & B(GW_F_CLOCK_SM_MHZ))
        read_clock(n, d, false, GWN_CLOCK_SM, GW_F_CLOCK_SM_MHZ, out);
    if (want & B(GW_F_CLOCK_MEM_MHZ))
        read_clock(n, d, false, GWN_CLOCK_MEM, GW_F_CLOCK_MEM_MHZ, out);
    if (want & B(GW_F_CLOCK_GR_MHZ))
        read_clock(n, d, false, GWN_CLOCK_GRAPHICS, GW_F_CLOCK_GR_MHZ, out);
    if (want & B(GW_F_CLOCK_MAX_SM_MHZ))
        read_clock(n, d, true, GWN_CLOCK_SM, GW_F_CLOCK_MAX_SM_MHZ, out);
    if (want & B(GW_F_CLOCK_MAX_MEM_MHZ))
        read_clock(n, d, true, GWN_CLOCK_MEM, GW_F_CLOCK_MAX_MEM_MHZ, out);
    read_misc(n, d, want, out);
    read_by_symbol(d, want, out);
    /* A call in this tick may have found the GPU lost: then nothing of this tick is trusted. */
    if (atomic_load(&d->lost)) {
        out->valid = 0;
        out->lost = true;
        return;
    }
    uint64_t fresh = out->valid & want & GW_FIELDS_STATIC;
    for (int f = 0; fresh && f < GW_F_COUNT; f++)
        if (fresh & B(f))
            d->static_v[f] = out->v[f];
    d->static_have |= fresh;
}

/* A GPM value of field f as stored: percentages overshoot 100 by rounding and are capped there;
 * NAN when out of the field's bounds. */
static double gpm_value(gw_gpu_field f, double x)
{
    if (!gw_field_plausible(f, x))
        return NAN;
    return strcmp(gw_fields[f].unit, "%") == 0 ? fmin(x, 100.0) : x;
}

/* GpmMetricsGet of the GPM fields asked[0..nask) (their gw_fields[].gpm_metric) over
 * [gpm[a], gpm[b]]: values into v[] (NAN where a metric failed). False when the call failed
 * (counted, or the GPU marked lost). */
static bool gpm_metrics_get(const gw_nvml *n, gw_gpu_dev *d, gwn_gpm_metrics_get *mg,
                            const gw_gpu_field *asked, size_t nask, int a, int b, double *v)
{
    memset(mg, 0, offsetof(gwn_gpm_metrics_get, metrics) + nask * sizeof mg->metrics[0]);
    mg->version = GWN_GPM_METRICS_GET_VERSION;
    mg->numMetrics = (unsigned)nask;
    mg->sample1 = d->gpm[a];
    mg->sample2 = d->gpm[b];
    for (size_t i = 0; i < nask; i++)
        mg->metrics[i].metricId = gw_fields[asked[i]].gpm_metric;
    gwn_return r = n->GpmMetricsGet(mg);
    if (r == GWN_ERROR_GPU_IS_LOST)
        gw_gpu_mark_lost(d, "nvmlGpmMetricsGet");
    else if (r != GWN_SUCCESS)
        gw_gpu_count_error(d, "nvmlGpmMetricsGet");
    if (r != GWN_SUCCESS)
        return false;
    for (size_t i = 0; i < nask; i++)
        v[i] = mg->metrics[i].nvmlReturn == GWN_SUCCESS ? gpm_value(asked[i], mg->metrics[i].value)
                                                        : NAN;
    return true;
}

void gw_gpu_read_gpm(const gw_nvml *n, gw_gpu_dev *d, gwn_gpm_metrics_get *mg, uint64_t want,
                     gw_gpu_sample *out)
{
    /* Only the metrics asked for (the GPM fields of the table); graphics activity apart (see
     * GW_GPM_GR_WINDOW_MS). */
    gw_gpu_field ask[GW_F_COUNT];
    size_t nask = 0;
    const gw_gpu_field gr = GW_F_GPM_GR_ACTIVE_PCT;
    for (int f = 0; f < GW_F_COUNT; f++)
        if (gw_fields[f].gpm_metric && f != (int)gr && (want & B(f)))
            ask[nask++] = (gw_gpu_field)f;
    bool want_gr = (want & B(gr)) != 0;
    if (!d->info.gpm_supported || atomic_load(&d->lost) || (nask == 0 && !want_gr))
        return;
    unsigned cur = d->gpm_next;
    /* The sample's time: the middle of the call (GpmSampleGet takes ~0.2 ms uncached). */
    int64_t t0 = gw_mono_ns();
    gwn_return r = n->GpmSampleGet(d->handle, d->gpm[cur]);
    int64_t now = t0 + (gw_mono_ns() - t0) / 2;
    if (r != GWN_SUCCESS) {
        /* IN_USE (a profiler holds the counters) and friends: absent until it works again. */
        if (r == GWN_ERROR_GPU_IS_LOST)
            gw_gpu_mark_lost(d, "nvmlGpmSampleGet");
        else if (!gw_nvml_is_unsupported(r))
            gw_gpu_count_error(d, "nvmlGpmSampleGet");
        memset(d->gpm_ns, 0, sizeof d->gpm_ns);
        d->gr_have = false;
        return;
    }
    d->gpm_ns[cur] = now;
    d->gpm_next = (cur + 1) % GW_GPM_RING;
    /* The window's start: the newest other sample at least the minimum window old. */
    int prev = -1;
    for (int j = 0; j < GW_GPM_RING + 1; j++)
        if (j != (int)cur && d->gpm_ns[j] &&
            now - d->gpm_ns[j] >= (int64_t)GW_GPM_MIN_WINDOW_MS * 1000000 &&
            (prev < 0 || d->gpm_ns[j] > d->gpm_ns[prev]))
            prev = j;
    double v[GW_F_COUNT];
    if (prev >= 0 && nask && gpm_metrics_get(n, d, mg, ask, nask, prev, (int)cur, v)) {
        for (size_t i = 0; i < nask; i++)
            if (!isnan(v[i]))
                gw_set(out, ask[i], v[i]);
        if (out->valid & GW_FIELDS_GPM)
            out->gpm = (gw_time_span){d->gpm_ns[prev], now};
    }
    if (!want_gr)
        return;
    /* Graphics activity: over the window from the pinned sample (slot GW_GPM_RING) once it is
     * GW_GPM_GR_WINDOW_MS old (the first window: GW_GPM_MIN_WINDOW_MS, so that the value comes
     * as soon as the others), then this sample is pinned (handles swapped; the ring slot it
     * leaves is free). */
    const int pin = GW_GPM_RING;
    int64_t age = now - d->gpm_ns[pin];
    bool due = d->gpm_ns[pin] &&
               age >= (int64_t)(d->gr_have ? GW_GPM_GR_WINDOW_MS : GW_GPM_MIN_WINDOW_MS) * 1000000;
    if (due && gpm_metrics_get(n, d, mg, &gr, 1, pin, (int)cur, v)) {
        d->gr_have = !isnan(v[0]);
        d->gr_value = v[0];
        d->gr_span = (gw_time_span){d->gpm_ns[pin], now};
    }
    if (due || !d->gpm_ns[pin]) {
        gwn_gpm_sample h = d->gpm[pin];
        d->gpm[pin] = d->gpm[cur];
        d->gpm_ns[pin] = now;
        d->gpm[cur] = h;
        d->gpm_ns[cur] = 0;
    }
    if (d->gr_have && !atomic_load(&d->lost)) {
        gw_set(out, gr, d->gr_value);
        out->gpm_gr = d->gr_span;
    }
}

void gw_gpu_read_energy(const gw_nvml *n, gw_gpu_dev *d, gw_gpu_sample *out)
{
    if (atomic_load(&d->lost) || (d->slow_unsupported & B(GW_F_ENERGY_MJ)))
        return;
    unsigned long long mj = 0;
    int64_t t0 = gw_mono_ns();
    gwn_return r = NV(n, DeviceGetTotalEnergyConsumption, d->handle, &mj);
    int64_t t1 = gw_mono_ns();
    if (ok(d, r, B(GW_F_ENERGY_MJ), &d->slow_unsupported, "nvmlDeviceGetTotalEnergyConsumption") &&
        gw_field_plausible(GW_F_ENERGY_MJ, (double)mj)) {
        gw_set(out, GW_F_ENERGY_MJ, (double)mj);
        out->energy = (gw_time_span){t0, t1};
    }
}

void gw_gpu_read_power_limit(const gw_nvml *n, gw_gpu_dev *d, gw_gpu_sample *out)
{
    if (atomic_load(&d->lost) || (d->slow_unsupported & B(GW_F_POWER_LIMIT_W)))
        return;
    unsigned mw = 0;
    int64_t t0 = gw_mono_ns();
    gwn_return r = NV(n, DeviceGetPowerManagementLimit, d->handle, &mw);
    if (gw_nvml_is_unsupported(r))
        r = NV(n, DeviceGetEnforcedPowerLimit, d->handle, &mw);
    int64_t t1 = gw_mono_ns();
    double limit_w = gw_field_from_nvml(GW_F_POWER_LIMIT_W, mw);
    if (ok(d, r, B(GW_F_POWER_LIMIT_W), &d->slow_unsupported,
           "nvmlDeviceGetPowerManagementLimit") &&
        gw_field_plausible(GW_F_POWER_LIMIT_W, limit_w)) {
        gw_set(out, GW_F_POWER_LIMIT_W, limit_w);
        out->power_limit = (gw_time_span){t0, t1};
    }
}

typedef gwn_return (*proc_fn)(gwn_device, unsigned int *, void *);

/* One process list with NVML's size protocol: ask, over-allocate, retry while it grows. */
static void read_proc_list(gw_gpu_dev *d, proc_fn fn, uint64_t unsupported_bit, bool graphics,
                           const char *proc_root, bool devs_here, gw_gpu_process **procs, size_t *n,
                           size_t *cap)
{
    if (!fn || (d->slow_unsupported & unsupported_bit))
        return;
    unsigned count = 0;
    unsigned char *buf = NULL;
    gwn_return r = fn(d->handle, &count, NULL);
    for (int attempt = 0; r == GWN_ERROR_INSUFFICIENT_SIZE && attempt < 4; attempt++) {
        count = count + 8 + count / 2;
        if (count > 65536)
            break;
        free(buf);
        buf = xcalloc(count, d->proc_stride);
        r = fn(d->handle, &count, buf);
    }
    if (r != GWN_SUCCESS) {
        const char *call = graphics ? "nvmlDeviceGetGraphicsRunningProcesses"
                                    : "nvmlDeviceGetComputeRunningProcesses";
        if (r == GWN_ERROR_GPU_IS_LOST)
            gw_gpu_mark_lost(d, call);
        else if (gw_nvml_is_unsupported(r))
            d->slow_unsupported |= unsupported_bit;
        else
            gw_gpu_count_error(d, call);
        free(buf);
        return;
    }
    for (unsigned i = 0; buf && i < count; i++) {
        const unsigned char *rec = buf + (size_t)i * d->proc_stride;
        unsigned pid;
        unsigned long long used;
        memcpy(&pid, rec + offsetof(gwn_process_info, pid), sizeof pid);
        memcpy(&used, rec + offsetof(gwn_process_info, usedGpuMemory), sizeof used);
        if (pid == 0 || pid == 0xFFFFFFFFu)
            continue; /* Windows/WDDM placeholders */
        gw_gpu_process *dup = NULL;
        for (size_t k = 0; k < *n; k++)
            if ((*procs)[k].pid == pid && (*procs)[k].gpu == d->info.index)
                dup = &(*procs)[k];
        if (dup) /* a process in both lists: keep one row */
            continue;
        *procs = xgrow(*procs, cap, *n + 1, sizeof **procs);
        gw_gpu_process *p = &(*procs)[(*n)++];
        memset(p, 0, sizeof *p);
        p->gpu = d->info.index;
        p->pid = pid;
        p->graphics = graphics;
        p->used_valid = used != GWN_VALUE_NOT_AVAILABLE && used < (1ULL << 52);
        p->used_mib = p->used_valid ? gw_field_from_nvml(GW_F_PROC_USED_MIB, (double)used) : NAN;
        p->visible = gw_procfs_comm(proc_root, pid, p->name, sizeof p->name);
        if (p->visible && devs_here && !gw_procfs_may_use_gpu(proc_root, pid)) {
            p->visible = false; /* a host pid that is another process here (a container without
                                   the host's pid namespace): never named after that process */
            p->name[0] = '\0';
        }
    }
    free(buf);
}

/* A bit outside the GPU field range marks GetProcessUtilization as unsupported (62 and 63: the two
 * process lists). */
#define PROC_UTIL_UNSUPPORTED (UINT64_C(1) << 61)
_Static_assert(GW_F_COUNT <= 61, "GPU field bits meet the process calls' unsupported bits");

/* GetProcessUtilization's samples since the last read into the device's listed processes p[np]:
 * each gets its newest sample's shares; one NVML leaves out had none above 0 in the period (only
 * processes with non-zero utilisation are listed; NOT_FOUND: none was), so it gets 0. */
static void read_proc_util(const gw_nvml *n, gw_gpu_dev *d, gw_gpu_process *p, size_t np)
{
    if (np == 0 || (d->slow_unsupported & PROC_UTIL_UNSUPPORTED))
        return;
    unsigned count = 0;
    gwn_process_utilization_sample *s = NULL;
    gwn_return r = NV(n, DeviceGetProcessUtilization, d->handle, NULL, &count, d->proc_util_seen);
    if ((r == GWN_SUCCESS || r == GWN_ERROR_INSUFFICIENT_SIZE) && count > 0) {
        count += 4; /* room for a process that starts meanwhile */
        s = xcalloc(count, sizeof *s);
        r = NV(n, DeviceGetProcessUtilization, d->handle, s, &count, d->proc_util_seen);
    }
    if (r == GWN_ERROR_NOT_FOUND)
        count = 0;
    else if (!ok(d, r, PROC_UTIL_UNSUPPORTED, &d->slow_unsupported,
                 "nvmlDeviceGetProcessUtilization")) {
        free(s);
        return;
    }
    for (size_t i = 0; i < np; i++) {
        gw_gpu_process *q = &p[i];
        unsigned long long newest = 0;
        q->util_valid = true;
        q->sm_util_pct = q->mem_util_pct = q->enc_util_pct = q->dec_util_pct = 0;
        for (unsigned k = 0; s && k < count; k++) {
            if (s[k].pid != q->pid || s[k].timeStamp < newest)
                continue;
            newest = s[k].timeStamp;
            const double v[4] = {s[k].smUtil, s[k].memUtil, s[k].encUtil, s[k].decUtil};
            bool sane = true;
            for (int j = 0; j < 4; j++)
                sane &= gw_field_plausible(GW_F_UTIL_GPU_PCT, v[j]); /* 0-100, as GPU-Util */
            q->util_valid = sane;
            q->sm_util_pct = v[0];
            q->mem_util_pct = v[1];
            q->enc_util_pct = v[2];
            q->dec_util_pct = v[3];
        }
    }
    for (unsigned k = 0; s && k < count; k++)
        if (s[k].timeStamp > d->proc_util_seen)
            d->proc_util_seen = s[k].timeStamp;
    free(s);
}

void gw_gpu_read_processes(const gw_nvml *n, gw_gpu_dev *d, const char *proc_root,
                           gw_gpu_process **procs, size_t *np, size_t *cap)
{
    if (atomic_load(&d->lost))
        return;
    size_t first = *np;
    /* Bits outside the field range mark the two lists as unsupported. */
    /* every process NVML names holds the driver's devices open, where they exist */
    bool devs_here = access("/dev/nvidiactl", F_OK) == 0;
    read_proc_list(d, n->DeviceGetComputeRunningProcesses, UINT64_C(1) << 62, false, proc_root,
                   devs_here, procs, np, cap);
    read_proc_list(d, n->DeviceGetGraphicsRunningProcesses, UINT64_C(1) << 63, true, proc_root,
                   devs_here, procs, np, cap);
    read_proc_util(n, d, *procs + first, *np - first);
}

/* Reads one MIG handle's name, UUID and memory into m. */
static void read_mig(const gw_nvml *n, gwn_device h, gw_mig_device *m)
{
    if (NV(n, DeviceGetName, h, m->name, sizeof m->name) != GWN_SUCCESS)
        m->name[0] = '\0';
    if (NV(n, DeviceGetUUID, h, m->uuid, sizeof m->uuid) != GWN_SUCCESS)
        m->uuid[0] = '\0';
    gw_utf8_clean_buf(m->name, sizeof m->name);
    gw_utf8_clean_buf(m->uuid, sizeof m->uuid);
    m->mem_used_mib = m->mem_total_mib = NAN;
    gwn_memory_v2 m2 = {.version = GWN_MEMORY_V2_VERSION};
    gwn_memory m1;
    if (NV(n, DeviceGetMemoryInfo_v2, h, &m2) == GWN_SUCCESS && m2.used <= m2.total) {
        m->mem_used_mib = gw_field_from_nvml(GW_F_MEM_USED_MIB, (double)m2.used);
        m->mem_total_mib = gw_field_from_nvml(GW_F_MEM_TOTAL_MIB, (double)m2.total);
    } else if (NV(n, DeviceGetMemoryInfo, h, &m1) == GWN_SUCCESS && m1.used <= m1.total) {
        m->mem_used_mib = gw_field_from_nvml(GW_F_MEM_USED_MIB, (double)m1.used);
        m->mem_total_mib = gw_field_from_nvml(GW_F_MEM_TOTAL_MIB, (double)m1.total);
    }
    m->memory_valid = !isnan(m->mem_total_mib) && m->mem_total_mib < 1e15 / (1024.0 * 1024.0);
}

void gw_gpu_read_migs(const gw_nvml *n, gw_gpu_dev *d, gw_mig_device **migs, size_t *used,
                      size_t *cap)
{
    if (!d->info.mig_enabled || atomic_load(&d->lost))
        return;
    for (unsigned slot = 0; slot < d->mig_max; slot++) {
        gwn_device h = NULL;
        gwn_return r = NV(n, DeviceGetMigDeviceHandleByIndex, d->handle, slot, &h);
        if (r == GWN_ERROR_GPU_IS_LOST) {
            gw_gpu_mark_lost(d, "nvmlDeviceGetMigDeviceHandleByIndex");
            return;
        }
        if (r != GWN_SUCCESS) /* NOT_FOUND: no instance in this slot */
            continue;
        *migs = xgrow(*migs, cap, *used + 1, sizeof **migs);
        gw_mig_device *m = &(*migs)[(*used)++];
        memset(m, 0, sizeof *m);
        m->gpu = d->info.index;
        m->slot = slot;
        read_mig(n, h, m);
    }
}

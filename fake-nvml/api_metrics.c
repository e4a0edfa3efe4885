/* NVML entry points for device values: utilization, memory, temperature, power, clocks, pstate,
 * fan, PCIe, ECC, energy and field values; see fake_api.h. Integer outputs are the scenario value
 * rounded to the nearest integer. */
#include "fake_api.h"

#include "timeline.h"
#include "util/gw_time.h"

#include <math.h>

#define MIB 1048576.0

static unsigned int to_uint(double v)
{
    return (unsigned int)llround(v);
}

/* Scenario time at nvmlInit to now, integrated power in mJ. false: no power_w in the timeline. */
static bool energy_mj(const fake_call *c, unsigned long long *out)
{
    const fake_series *power = &c->dev->series[FK_POWER_W];
    if (power->n == 0)
        return false;
    *out = (unsigned long long)llround(fake_series_integral(power, c->t_init, c->t) * 1000.0);
    return true;
}

/* The body shared by calls that return one timeline value as an unsigned int (x scale). */
static gwn_return timeline_uint(fake_call_id id, gwn_device device, fake_group g, fake_key k,
                                double scale, unsigned int *out)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, id, device, g);
    if (r)
        return r;
    double v;
    if (!out)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (!fake_value(&c, k, &v))
        r = GWN_ERROR_NOT_SUPPORTED;
    else
        *out = to_uint(v * scale);
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetUtilizationRates(gwn_device device, gwn_utilization *util)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetUtilizationRates, device, FG_UTIL);
    if (r)
        return r;
    double gpu, mem;
    if (!util)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (c.dev->mig_enabled) /* NVML cannot attribute utilization under MIG */
        r = GWN_ERROR_NOT_SUPPORTED;
    else if (!fake_value(&c, FK_UTIL_GPU, &gpu) || !fake_value(&c, FK_UTIL_MEM, &mem))
        r = GWN_ERROR_NOT_SUPPORTED;
    else
        *util = (gwn_utilization){.gpu = to_uint(gpu), .memory = to_uint(mem)};
    return fake_end(&c, r);
}

/* Memory of the call's GPU or MIG instance in bytes; false when mem_used_mib is absent. */
static bool memory_bytes(const fake_call *c, unsigned long long *total,
                         unsigned long long *reserved, unsigned long long *used)
{
    double total_mib, reserved_mib = 0, used_mib;
    if (c->mig >= 0) {
        total_mib = c->dev->mig[c->mig].memory_total_mib;
        used_mib = c->dev->mig[c->mig].mem_used_mib;
    } else {
        if (!fake_value(c, FK_MEM_USED_MIB, &used_mib))
            return false;
        total_mib = c->dev->memory_total_mib;
        reserved_mib = c->dev->memory_reserved_mib;
    }
    *total = (unsigned long long)llround(total_mib * MIB);
    *reserved = (unsigned long long)llround(reserved_mib * MIB);
    *used = (unsigned long long)llround(used_mib * MIB);
    return true;
}

static unsigned long long free_bytes(unsigned long long total, unsigned long long taken)
{
    return total > taken ? total - taken : 0;
}

gwn_return nvmlDeviceGetMemoryInfo(gwn_device device, gwn_memory *memory)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetMemoryInfo, device, FG_MEMORY);
    if (r)
        return r;
    unsigned long long total, reserved, used;
    if (!memory)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (!memory_bytes(&c, &total, &reserved, &used))
        r = GWN_ERROR_NOT_SUPPORTED;
    else /* the v1 struct has no reserved field: NVML counts reserved memory as used */
        *memory = (gwn_memory){
            .total = total, .free = free_bytes(total, used + reserved), .used = used + reserved};
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetMemoryInfo_v2(gwn_device device, gwn_memory_v2 *memory)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetMemoryInfo_v2, device, FG_MEMORY);
    if (r)
        return r;
    unsigned long long total, reserved, used;
    if (!memory)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (memory->version != GWN_MEMORY_V2_VERSION)
        r = GWN_ERROR_ARGUMENT_VERSION_MISMATCH;
    else if (!memory_bytes(&c, &total, &reserved, &used))
        r = GWN_ERROR_NOT_SUPPORTED;
    else
        *memory = (gwn_memory_v2){.version = memory->version,
                                  .total = total,
                                  .reserved = reserved,
                                  .free = free_bytes(total, used + reserved),
                                  .used = used};
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetTemperature(gwn_device device, int sensor, unsigned int *temp)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetTemperature, device, FG_TEMP);
    if (r)
        return r;
    double v;
    if (!temp || sensor != GWN_TEMPERATURE_GPU)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (!fake_value(&c, FK_TEMP_C, &v))
        r = GWN_ERROR_NOT_SUPPORTED;
    else
        *temp = to_uint(v);
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetTemperatureThreshold(gwn_device device, int type, unsigned int *temp)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetTemperatureThreshold, device, FG_TEMP);
    if (r)
        return r;
    if (!temp)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (type == GWN_TEMPERATURE_THRESHOLD_SLOWDOWN)
        *temp = to_uint(c.dev->slowdown_temp_c);
    else if (type == GWN_TEMPERATURE_THRESHOLD_SHUTDOWN)
        *temp = to_uint(c.dev->shutdown_temp_c);
    else if (type == GWN_TEMPERATURE_THRESHOLD_GPU_MAX)
        *temp = to_uint(c.dev->gpu_max_temp_c);
    else if (type == GWN_TEMPERATURE_THRESHOLD_MEM_MAX)
        *temp = to_uint(c.dev->mem_max_temp_c);
    else
        r = GWN_ERROR_NOT_SUPPORTED;
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetPowerUsage(gwn_device device, unsigned int *power_mw)
{
    return timeline_uint(FC_nvmlDeviceGetPowerUsage, device, FG_POWER, FK_POWER_W, 1000, power_mw);
}

static gwn_return power_limit(fake_call_id id, gwn_device device, unsigned int *limit_mw)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, id, device, FG_POWER_LIMIT);
    if (r)
        return r;
    if (!limit_mw)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *limit_mw = to_uint(c.dev->power_limit_w * 1000);
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetPowerManagementLimit(gwn_device device, unsigned int *limit_mw)
{
    return power_limit(FC_nvmlDeviceGetPowerManagementLimit, device, limit_mw);
}

gwn_return nvmlDeviceGetEnforcedPowerLimit(gwn_device device, unsigned int *limit_mw)
{
    return power_limit(FC_nvmlDeviceGetEnforcedPowerLimit, device, limit_mw);
}

gwn_return nvmlDeviceGetClockInfo(gwn_device device, int type, unsigned int *mhz)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetClockInfo, device, FG_CLOCKS);
    if (r)
        return r;
    double v = 0;
    bool have = false;
    if (type == GWN_CLOCK_SM)
        have = fake_value(&c, FK_SM_CLOCK_MHZ, &v);
    else if (type == GWN_CLOCK_GRAPHICS) /* SM and graphics clocks are one clock on NVIDIA GPUs */
        have = fake_value(&c, FK_GR_CLOCK_MHZ, &v) || fake_value(&c, FK_SM_CLOCK_MHZ, &v);
    else if (type == GWN_CLOCK_MEM)
        have = fake_value(&c, FK_MEM_CLOCK_MHZ, &v);
    if (!mhz || type < GWN_CLOCK_GRAPHICS || type > GWN_CLOCK_VIDEO)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (!have)
        r = GWN_ERROR_NOT_SUPPORTED;
    else
        *mhz = to_uint(v);
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetMaxClockInfo(gwn_device device, int type, unsigned int *mhz)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetMaxClockInfo, device, FG_CLOCKS);
    if (r)
        return r;
    if (!mhz || type < GWN_CLOCK_GRAPHICS || type > GWN_CLOCK_VIDEO)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (type == GWN_CLOCK_SM || type == GWN_CLOCK_GRAPHICS)
        *mhz = to_uint(c.dev->max_sm_clock_mhz);
    else if (type == GWN_CLOCK_MEM)
        *mhz = to_uint(c.dev->max_mem_clock_mhz);
    else
        r = GWN_ERROR_NOT_SUPPORTED;
    return fake_end(&c, r);
}

static gwn_return event_reasons(fake_call_id id, gwn_device device, unsigned long long *reasons)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, id, device, FG_CLOCKS_EVENT_REASONS);
    if (r)
        return r;
    double v;
    if (!reasons)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (!fake_value(&c, FK_CLOCKS_EVENT_REASONS, &v))
        r = GWN_ERROR_NOT_SUPPORTED;
    else
        *reasons = (unsigned long long)v;
    return fake_end(&c, r);
}

gwn_return nvmlDeviceGetCurrentClocksEventReasons(gwn_device device, unsigned long long *reasons)
{
    return event_reasons(FC_nvmlDeviceGetCurrentClocksEventReasons, device, reasons);
}

gwn_return nvmlDeviceGetCurrentClocksThrottleReasons(gwn_device device, unsigned long long *reasons)
{
    return event_reasons(FC_nvmlDeviceGetCurrentClocksThrottleReasons, device, reasons);
}

gwn_return nvmlDeviceGetPerformanceState(gwn_device device, int *pstate)
{
    unsigned int v = 0;
    gwn_return r = timeline_uint(FC_nvmlDeviceGetPerformanceState, device, FG_PSTATE, FK_PSTATE, 1,
                                 pstate ? &v : NULL);
    if (r == GWN_SUCCESS)
        *pstate = (int)v;
    return r;
}

/* The calls of uint_calls.h: the key's value now, as an unsigned int. */
#define UINT_CALL(call, id, key, step, max, group)                                                 \
    gwn_return call(gwn_device device, unsigned int *value)                                        \
    {                                                                                              \
        return timeline_uint(FC_##call, device, group, id, 1, value);                              \
    }
FAKE_UINT_CALLS(UINT_CALL)
#undef UINT_CALL

/* The sampling period the fake reports with the encoder and decoder utilisations (gpuwatch does
 * not use it). */
#define FAKE_CODEC_PERIOD_US 166667u

gwn_return nvmlDeviceGetEncoderUtilization(gwn_device device, unsigned int *pct,
                                           unsigned int *period_us)
{
    if (period_us)
        *period_us = FAKE_CODEC_PERIOD_US;
    return timeline_uint(FC_nvmlDeviceGetEncoderUtilization, device, FG_UTIL, FK_ENC_UTIL, 1, pct);
}

gwn_return nvmlDeviceGetDecoderUtilization(gwn_device device, unsigned int *pct,
                                           unsigned int *period_us)
{
    if (period_us)
        *period_us = FAKE_CODEC_PERIOD_US;
    return timeline_uint(FC_nvmlDeviceGetDecoderUtilization, device, FG_UTIL, FK_DEC_UTIL, 1, pct);
}

/* The four PCIe link getters return one static device property each. */
static gwn_return pcie_link(fake_call_id id, gwn_device device, unsigned int *out)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, id, device, FG_PCIE);
    if (r)
        return r;
    if (!out)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    const fake_device *d = c.dev;
    *out = id == FC_nvmlDeviceGetCurrPcieLinkGeneration  ? d->pcie_gen
           : id == FC_nvmlDeviceGetMaxPcieLinkGeneration ? d->pcie_gen_max
           : id == FC_nvmlDeviceGetCurrPcieLinkWidth     ? d->pcie_width
                                                         : d->pcie_width_max;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetCurrPcieLinkGeneration(gwn_device device, unsigned int *gen)
{
    return pcie_link(FC_nvmlDeviceGetCurrPcieLinkGeneration, device, gen);
}

gwn_return nvmlDeviceGetMaxPcieLinkGeneration(gwn_device device, unsigned int *gen)
{
    return pcie_link(FC_nvmlDeviceGetMaxPcieLinkGeneration, device, gen);
}

gwn_return nvmlDeviceGetCurrPcieLinkWidth(gwn_device device, unsigned int *width)
{
    return pcie_link(FC_nvmlDeviceGetCurrPcieLinkWidth, device, width);
}

gwn_return nvmlDeviceGetMaxPcieLinkWidth(gwn_device device, unsigned int *width)
{
    return pcie_link(FC_nvmlDeviceGetMaxPcieLinkWidth, device, width);
}

gwn_return nvmlDeviceGetTotalEccErrors(gwn_device device, int error_type, int counter_type,
                                       unsigned long long *count)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetTotalEccErrors, device, FG_ECC);
    if (r)
        return r;
    bool uncorrected = error_type == GWN_MEMORY_ERROR_TYPE_UNCORRECTED;
    double v = 0;
    if (!count || (!uncorrected && error_type != GWN_MEMORY_ERROR_TYPE_CORRECTED) ||
        (counter_type != GWN_VOLATILE_ECC && counter_type != GWN_AGGREGATE_ECC))
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    /* Only uncorrected errors are scripted; an absent key means a healthy GPU (zero errors). */
    if (uncorrected)
        fake_value(&c, FK_ECC_UNCORRECTED, &v);
    *count = (unsigned long long)v;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetRetiredPagesPendingStatus(gwn_device device, int *pending)
{
    fake_call c;
    gwn_return r =
        fake_begin_device(&c, FC_nvmlDeviceGetRetiredPagesPendingStatus, device, FG_RETIRED_PAGES);
    if (r)
        return r;
    if (!pending)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    if (c.dev->retired_pages_pending < 0) /* Hopper retires no pages: it remaps rows */
        return fake_end(&c, GWN_ERROR_NOT_SUPPORTED);
    *pending = c.dev->retired_pages_pending ? GWN_FEATURE_ENABLED : GWN_FEATURE_DISABLED;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetRemappedRows(gwn_device device, unsigned int *corr_rows,
                                     unsigned int *unc_rows, unsigned int *pending,
                                     unsigned int *failure)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetRemappedRows, device, FG_REMAPPED_ROWS);
    if (r)
        return r;
    if (!corr_rows || !unc_rows || !pending || !failure)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *corr_rows = *unc_rows = *failure = 0;
    *pending = c.dev->remapped_rows_pending ? 1 : 0;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetTotalEnergyConsumption(gwn_device device, unsigned long long *energy)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetTotalEnergyConsumption, device, FG_ENERGY);
    if (r)
        return r;
    if (!energy)
        r = GWN_ERROR_INVALID_ARGUMENT;
    else if (!energy_mj(&c, energy))
        r = GWN_ERROR_NOT_SUPPORTED;
    return fake_end(&c, r);
}

/* One field entry; its own return code goes into the entry. */
static void field_value(const fake_call *c, gwn_field_value *f, long long now_us)
{
    const fake_device *d = c->dev;
    double v;
    unsigned long long mj;
    f->timestamp = now_us;
    f->latencyUsec = 0;
    f->nvmlReturn = GWN_ERROR_NOT_SUPPORTED;
    switch (f->fieldId) {
    case GWN_FI_DEV_MEMORY_TEMP:
        if (!(d->unsupported & (1u << FG_TEMP)) && fake_value(c, FK_MEM_TEMP_C, &v)) {
            f->valueType = GWN_VALUE_TYPE_UNSIGNED_INT;
            f->value.uiVal = to_uint(v);
            f->nvmlReturn = GWN_SUCCESS;
        }
        break;
    case GWN_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
        if (!(d->unsupported & (1u << FG_ENERGY)) && energy_mj(c, &mj)) {
            f->valueType = GWN_VALUE_TYPE_UNSIGNED_LONG_LONG;
            f->value.ullVal = mj;
            f->nvmlReturn = GWN_SUCCESS;
        }
        break;
    case GWN_FI_DEV_POWER_INSTANT:
        if (!(d->unsupported & (1u << FG_POWER)) && fake_value(c, FK_POWER_W, &v)) {
            f->valueType = GWN_VALUE_TYPE_UNSIGNED_INT;
            f->value.uiVal = to_uint(v * 1000);
            f->nvmlReturn = GWN_SUCCESS;
        }
        break;
    default:
        break;
    }
}

gwn_return nvmlDeviceGetFieldValues(gwn_device device, int count, gwn_field_value *values)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetFieldValues, device, FG_FIELDS);
    if (r)
        return r;
    if (count <= 0 || !values)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    long long now_us = (long long)gw_wall_ms() * 1000;
    for (int i = 0; i < count; i++)
        field_value(&c, &values[i], now_us);
    return fake_end(&c, GWN_SUCCESS);
}

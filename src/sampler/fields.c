/* The table of GPU fields: CSV headers, units and the NVML call behind each (see sample.h). */
#include "sample.h"

#include <math.h>
#include <stdio.h>

#define MIB (1024.0 * 1024.0)

const gw_field_info gw_fields[GW_F_COUNT] = {
    [GW_F_UTIL_GPU_PCT] = {"util_gpu", "utilization.gpu [%]", 1, 0,
                           "nvmlDeviceGetUtilizationRates"},
    [GW_F_UTIL_MEM_PCT] = {"util_mem", "utilization.memory [%]", 1, 0,
                           "nvmlDeviceGetUtilizationRates"},
    [GW_F_MEM_TOTAL_BYTES] = {"mem_total", "memory.total [MiB]", MIB, 0,
                              "nvmlDeviceGetMemoryInfo_v2"},
    [GW_F_MEM_USED_BYTES] = {"mem_used", "memory.used [MiB]", MIB, 0, "nvmlDeviceGetMemoryInfo_v2"},
    [GW_F_MEM_FREE_BYTES] = {"mem_free", "memory.free [MiB]", MIB, 0, "nvmlDeviceGetMemoryInfo_v2"},
    [GW_F_MEM_RESERVED_BYTES] = {"mem_reserved", "memory.reserved [MiB]", MIB, 0,
                                 "nvmlDeviceGetMemoryInfo_v2"},
    [GW_F_TEMP_GPU_C] = {"temp_gpu", "temperature.gpu", 1, 0, "nvmlDeviceGetTemperature"},
    [GW_F_TEMP_MEM_C] = {"temp_mem", "temperature.memory", 1, 0,
                         "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP)"},
    [GW_F_POWER_DRAW_MW] = {"power_draw", "power.draw [W]", 1000, 2, "nvmlDeviceGetPowerUsage"},
    [GW_F_POWER_LIMIT_MW] = {"power_limit", "power.limit [W]", 1000, 2,
                             "nvmlDeviceGetPowerManagementLimit"},
    [GW_F_POWER_ENFORCED_MW] = {"power_enforced", "enforced.power.limit [W]", 1000, 2,
                                "nvmlDeviceGetEnforcedPowerLimit"},
    [GW_F_CLOCK_SM_MHZ] = {"clock_sm", "clocks.current.sm [MHz]", 1, 0,
                           "nvmlDeviceGetClockInfo(SM)"},
    [GW_F_CLOCK_MEM_MHZ] = {"clock_mem", "clocks.current.memory [MHz]", 1, 0,
                            "nvmlDeviceGetClockInfo(MEM)"},
    [GW_F_CLOCK_GR_MHZ] = {"clock_gr", "clocks.current.graphics [MHz]", 1, 0,
                           "nvmlDeviceGetClockInfo(GRAPHICS)"},
    [GW_F_CLOCK_MAX_SM_MHZ] = {"clock_max_sm", "clocks.max.sm [MHz]", 1, 0,
                               "nvmlDeviceGetMaxClockInfo(SM)"},
    [GW_F_CLOCK_MAX_MEM_MHZ] = {"clock_max_mem", "clocks.max.memory [MHz]", 1, 0,
                                "nvmlDeviceGetMaxClockInfo(MEM)"},
    [GW_F_CLOCKS_EVENT_REASONS] = {"clocks_event_reasons", "clocks_event_reasons.active", 1, -1,
                                   "nvmlDeviceGetCurrentClocksEventReasons"},
    [GW_F_PSTATE] = {"pstate", "pstate", 1, -2, "nvmlDeviceGetPerformanceState"},
    [GW_F_FAN_PCT] = {"fan", "fan.speed [%]", 1, 0, "nvmlDeviceGetFanSpeed"},
    [GW_F_PCIE_GEN] = {"pcie_gen", "pcie.link.gen.current", 1, 0,
                       "nvmlDeviceGetCurrPcieLinkGeneration"},
    [GW_F_PCIE_GEN_MAX] = {"pcie_gen_max", "pcie.link.gen.max", 1, 0,
                           "nvmlDeviceGetMaxPcieLinkGeneration"},
    [GW_F_PCIE_WIDTH] = {"pcie_width", "pcie.link.width.current", 1, 0,
                         "nvmlDeviceGetCurrPcieLinkWidth"},
    [GW_F_PCIE_WIDTH_MAX] = {"pcie_width_max", "pcie.link.width.max", 1, 0,
                             "nvmlDeviceGetMaxPcieLinkWidth"},
    [GW_F_ECC_UNCORRECTED] = {"ecc_uncorrected", "ecc.errors.uncorrected.volatile.total", 1, 0,
                              "nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)"},
    [GW_F_ENERGY_MJ] = {"energy", "total_energy_consumption [mJ]", 1, 0,
                        "nvmlDeviceGetTotalEnergyConsumption"},
    [GW_F_GPM_SM_ACTIVE_PCT] = {"gpm_sm_active", "gpm.sm_active [%]", 1, 2,
                                "nvmlGpmMetricsGet(SM_UTIL)"},
    [GW_F_GPM_SM_OCCUPANCY_PCT] = {"gpm_sm_occupancy", "gpm.sm_occupancy [%]", 1, 2,
                                   "nvmlGpmMetricsGet(SM_OCCUPANCY)"},
    [GW_F_GPM_TENSOR_ACTIVE_PCT] = {"gpm_tensor_active", "gpm.tensor_active [%]", 1, 2,
                                    "nvmlGpmMetricsGet(ANY_TENSOR_UTIL)"},
    [GW_F_GPM_DRAM_ACTIVE_PCT] = {"gpm_dram_active", "gpm.dram_active [%]", 1, 2,
                                  "nvmlGpmMetricsGet(DRAM_BW_UTIL)"},
    [GW_F_GPM_GR_ACTIVE_PCT] = {"gpm_gr_active", "gpm.graphics_active [%]", 1, 2,
                                "nvmlGpmMetricsGet(GRAPHICS_UTIL)"},
};

int gw_field_format_csv(gw_gpu_field f, double v, char *buf, size_t len)
{
    const gw_field_info *fi = &gw_fields[f];
    switch (fi->csv_decimals) {
    case -1:
        return snprintf(buf, len, "0x%016llx", (unsigned long long)v);
    case -2:
        return snprintf(buf, len, "P%d", (int)v);
    case 0:
        /* nvidia-smi rounds bytes up to whole MiB (used 13290.81 MiB shows as 13291, measured on
         * an H200); other integers are exact. */
        return snprintf(buf, len, "%.0f", ceil(v / fi->csv_scale));
    default:
        return snprintf(buf, len, "%.*f", fi->csv_decimals, v / fi->csv_scale);
    }
}

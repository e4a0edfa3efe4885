/*
 * Layout test: gpuwatch's own NVML declarations (src/nvml/nvml_abi.h) against the real nvml.h.
 *
 * Compiled only where the CUDA toolkit provides nvml.h (the GPU machine), never in the normal
 * build, and never copied from: it checks sizeof/offsetof of every struct gpuwatch passes to NVML
 * and the values of the constants it uses. Prints one line per check and exits 1 on a mismatch.
 *
 *   cc -std=c11 -I src -I /usr/local/cuda/targets/x86_64-linux/include \
 *      tests/layout/nvml_layout.c -o /tmp/nvml_layout && /tmp/nvml_layout
 */
#include "nvml/nvml_abi.h"

#include <nvml.h>
#include <stddef.h>
#include <stdio.h>

static int bad;

static void check(const char *what, long ours, long theirs)
{
    printf("%-52s ours %6ld  nvml.h %6ld  %s\n", what, ours, theirs,
           ours == theirs ? "ok" : "MISMATCH");
    if (ours != theirs)
        bad++;
}

#define SIZE(o, t)   check("sizeof " #t, (long)sizeof(o), (long)sizeof(t))
#define OFF(o, t, f) check("offsetof " #t "." #f, (long)offsetof(o, f), (long)offsetof(t, f))
#define VAL(o, t)    check(#t, (long)(o), (long)(t))

int main(void)
{
    SIZE(gwn_utilization, nvmlUtilization_t);
    OFF(gwn_utilization, nvmlUtilization_t, memory);
    SIZE(gwn_memory, nvmlMemory_t);
    OFF(gwn_memory, nvmlMemory_t, free);
    OFF(gwn_memory, nvmlMemory_t, used);
    SIZE(gwn_memory_v2, nvmlMemory_v2_t);
    OFF(gwn_memory_v2, nvmlMemory_v2_t, total);
    OFF(gwn_memory_v2, nvmlMemory_v2_t, reserved);
    OFF(gwn_memory_v2, nvmlMemory_v2_t, free);
    OFF(gwn_memory_v2, nvmlMemory_v2_t, used);
    VAL(GWN_MEMORY_V2_VERSION, nvmlMemory_v2);
    SIZE(gwn_pci_info, nvmlPciInfo_t);
    OFF(gwn_pci_info, nvmlPciInfo_t, domain);
    OFF(gwn_pci_info, nvmlPciInfo_t, bus);
    OFF(gwn_pci_info, nvmlPciInfo_t, device);
    OFF(gwn_pci_info, nvmlPciInfo_t, pciDeviceId);
    OFF(gwn_pci_info, nvmlPciInfo_t, pciSubSystemId);
    OFF(gwn_pci_info, nvmlPciInfo_t, busId);
    SIZE(gwn_process_info, nvmlProcessInfo_t);
    OFF(gwn_process_info, nvmlProcessInfo_t, usedGpuMemory);
    OFF(gwn_process_info, nvmlProcessInfo_t, gpuInstanceId);
    OFF(gwn_process_info, nvmlProcessInfo_t, computeInstanceId);
    SIZE(gwn_process_info_v1, nvmlProcessInfo_v1_t);
    OFF(gwn_process_info_v1, nvmlProcessInfo_v1_t, usedGpuMemory);
    VAL(GWN_VALUE_NOT_AVAILABLE, NVML_VALUE_NOT_AVAILABLE);
    SIZE(gwn_field_value, nvmlFieldValue_t);
    OFF(gwn_field_value, nvmlFieldValue_t, scopeId);
    OFF(gwn_field_value, nvmlFieldValue_t, timestamp);
    OFF(gwn_field_value, nvmlFieldValue_t, latencyUsec);
    OFF(gwn_field_value, nvmlFieldValue_t, valueType);
    OFF(gwn_field_value, nvmlFieldValue_t, nvmlReturn);
    OFF(gwn_field_value, nvmlFieldValue_t, value);
    SIZE(gwn_value, nvmlValue_t);
    SIZE(gwn_gpm_support, nvmlGpmSupport_t);
    OFF(gwn_gpm_support, nvmlGpmSupport_t, isSupportedDevice);
    VAL(GWN_GPM_SUPPORT_VERSION, NVML_GPM_SUPPORT_VERSION);
    SIZE(gwn_gpm_metric, nvmlGpmMetric_t);
    OFF(gwn_gpm_metric, nvmlGpmMetric_t, nvmlReturn);
    OFF(gwn_gpm_metric, nvmlGpmMetric_t, value);
    OFF(gwn_gpm_metric, nvmlGpmMetric_t, metricInfo);
    OFF(gwn_gpm_metrics_get, nvmlGpmMetricsGet_t, numMetrics);
    OFF(gwn_gpm_metrics_get, nvmlGpmMetricsGet_t, sample1);
    OFF(gwn_gpm_metrics_get, nvmlGpmMetricsGet_t, sample2);
    OFF(gwn_gpm_metrics_get, nvmlGpmMetricsGet_t, metrics);
    VAL(GWN_GPM_METRICS_GET_VERSION, NVML_GPM_METRICS_GET_VERSION);
    printf("%-52s ours %6ld  nvml.h %6ld  %s\n", "GPM metrics[] room (ours >= nvml.h)",
           (long)GWN_GPM_METRIC_MAX, (long)NVML_GPM_METRIC_MAX,
           GWN_GPM_METRIC_MAX >= NVML_GPM_METRIC_MAX ? "ok" : "MISMATCH");
    bad += GWN_GPM_METRIC_MAX < NVML_GPM_METRIC_MAX;
    SIZE(gwn_event_data, nvmlEventData_t);
    OFF(gwn_event_data, nvmlEventData_t, eventType);
    OFF(gwn_event_data, nvmlEventData_t, eventData);
    OFF(gwn_event_data, nvmlEventData_t, gpuInstanceId);
    OFF(gwn_event_data, nvmlEventData_t, computeInstanceId);
    SIZE(gwn_process_utilization_sample, nvmlProcessUtilizationSample_t);
    OFF(gwn_process_utilization_sample, nvmlProcessUtilizationSample_t, timeStamp);
    OFF(gwn_process_utilization_sample, nvmlProcessUtilizationSample_t, smUtil);
    OFF(gwn_process_utilization_sample, nvmlProcessUtilizationSample_t, decUtil);
    VAL(GWN_ERROR_GPU_IS_LOST, NVML_ERROR_GPU_IS_LOST);
    VAL(GWN_ERROR_LIB_RM_VERSION_MISMATCH, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
    VAL(GWN_ERROR_ARGUMENT_VERSION_MISMATCH, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    VAL(GWN_ERROR_INVALID_STATE, NVML_ERROR_INVALID_STATE);
    VAL(GWN_ERROR_UNKNOWN, NVML_ERROR_UNKNOWN);
    VAL(GWN_CLOCK_SM, NVML_CLOCK_SM);
    VAL(GWN_CLOCK_MEM, NVML_CLOCK_MEM);
    VAL(GWN_TEMPERATURE_THRESHOLD_SLOWDOWN, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
    VAL(GWN_CLOCKS_EVENT_SW_POWER_CAP, nvmlClocksEventReasonSwPowerCap);
    VAL(GWN_CLOCKS_EVENT_SW_THERMAL, nvmlClocksEventReasonSwThermalSlowdown);
    VAL(GWN_CLOCKS_EVENT_HW_THERMAL, nvmlClocksThrottleReasonHwThermalSlowdown);
    VAL(GWN_CLOCKS_EVENT_HW_POWER_BRAKE, nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
    VAL(GWN_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_MEMORY_TEMP);
    VAL(GWN_FI_DEV_TOTAL_ENERGY_CONSUMPTION, NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION);
    VAL(GWN_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_INSTANT);
    VAL(GWN_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_SM_UTIL);
    VAL(GWN_GPM_METRIC_SM_OCCUPANCY, NVML_GPM_METRIC_SM_OCCUPANCY);
    VAL(GWN_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_ANY_TENSOR_UTIL);
    VAL(GWN_GPM_METRIC_DRAM_BW_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL);
    VAL(GWN_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_GRAPHICS_UTIL);
    VAL(GWN_GPM_METRIC_PCIE_TX_PER_SEC, NVML_GPM_METRIC_PCIE_TX_PER_SEC);
    VAL(GWN_GPM_METRIC_PCIE_RX_PER_SEC, NVML_GPM_METRIC_PCIE_RX_PER_SEC);
    VAL(GWN_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC);
    VAL(GWN_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC);
    VAL(GWN_EVENT_XID_CRITICAL_ERROR, nvmlEventTypeXidCriticalError);
    VAL(GWN_EVENT_DOUBLE_BIT_ECC, nvmlEventTypeDoubleBitEccError);
    printf("%d mismatch(es)\n", bad);
    return bad ? 1 : 0;
}

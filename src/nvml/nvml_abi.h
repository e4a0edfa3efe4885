/*
 * nvml_abi: gpuwatch's own declarations of the subset of the NVML C ABI that it calls.
 *
 * Written from NVIDIA's public NVML API reference (not copied from nvml.h) so that gpuwatch builds
 * with no NVIDIA package installed; the library itself is loaded at run time (nvml_lib.h). Names
 * carry a gwn_ prefix so that tests/layout/ can include this file next to the real nvml.h and check
 * sizeof/offsetof of every struct against it. The fake library (fake-nvml/) implements the same
 * functions from these declarations.
 *
 * Must not: contain logic. Every type here must keep the exact size and layout NVML uses.
 */
#ifndef GW_NVML_ABI_H
#define GW_NVML_ABI_H

#include <stdint.h>

/* nvmlReturn_t */
typedef int gwn_return;
enum {
    GWN_SUCCESS = 0,
    GWN_ERROR_UNINITIALIZED = 1,
    GWN_ERROR_INVALID_ARGUMENT = 2,
    GWN_ERROR_NOT_SUPPORTED = 3,
    GWN_ERROR_NO_PERMISSION = 4,
    GWN_ERROR_ALREADY_INITIALIZED = 5,
    GWN_ERROR_NOT_FOUND = 6,
    GWN_ERROR_INSUFFICIENT_SIZE = 7,
    GWN_ERROR_INSUFFICIENT_POWER = 8,
    GWN_ERROR_DRIVER_NOT_LOADED = 9,
    GWN_ERROR_TIMEOUT = 10,
    GWN_ERROR_IRQ_ISSUE = 11,
    GWN_ERROR_LIBRARY_NOT_FOUND = 12,
    GWN_ERROR_FUNCTION_NOT_FOUND = 13,
    GWN_ERROR_CORRUPTED_INFOROM = 14,
    GWN_ERROR_GPU_IS_LOST = 15,
    GWN_ERROR_RESET_REQUIRED = 16,
    GWN_ERROR_OPERATING_SYSTEM = 17,
    GWN_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    GWN_ERROR_IN_USE = 19,
    GWN_ERROR_MEMORY = 20,
    GWN_ERROR_NO_DATA = 21,
    GWN_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    GWN_ERROR_INSUFFICIENT_RESOURCES = 23,
    GWN_ERROR_FREQ_NOT_SUPPORTED = 24,
    GWN_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    GWN_ERROR_DEPRECATED = 26,
    GWN_ERROR_NOT_READY = 27,
    GWN_ERROR_GPU_NOT_FOUND = 28,
    GWN_ERROR_INVALID_STATE = 29,
    GWN_ERROR_UNKNOWN = 999,
};

/* nvmlDevice_t, nvmlEventSet_t, nvmlGpmSample_t: opaque handles. */
typedef struct gwn_device_st *gwn_device;
typedef struct gwn_event_set_st *gwn_event_set;
typedef struct gwn_gpm_sample_st *gwn_gpm_sample;

/* Buffer sizes NVML documents for its string getters. */
enum {
    GWN_DEVICE_NAME_BUFFER_SIZE = 96, /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
    GWN_DEVICE_UUID_BUFFER_SIZE = 96, /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
    GWN_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80,
    GWN_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80,
    GWN_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32,
    GWN_DEVICE_PCI_BUS_ID_LEGACY_SIZE = 16,
};

/* nvmlUtilization_t: percent of the last sample period (GetUtilizationRates). */
typedef struct gwn_utilization {
    unsigned int gpu;
    unsigned int memory;
} gwn_utilization;

/* nvmlMemory_t (GetMemoryInfo): bytes. */
typedef struct gwn_memory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} gwn_memory;

/* nvmlMemory_v2_t (GetMemoryInfo_v2): bytes; version must be GWN_MEMORY_V2_VERSION. */
typedef struct gwn_memory_v2 {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} gwn_memory_v2;
#define GWN_MEMORY_V2_VERSION ((unsigned int)(sizeof(gwn_memory_v2) | (2u << 24)))

/* nvmlPciInfo_t as filled by GetPciInfo_v2/_v3. The unversioned GetPciInfo wrote the old layout
 * whose first 16 bytes are the bus id; busIdLegacy covers exactly those bytes. */
typedef struct gwn_pci_info {
    char busIdLegacy[GWN_DEVICE_PCI_BUS_ID_LEGACY_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[GWN_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} gwn_pci_info;

/* nvmlProcessInfo_v1_t (GetComputeRunningProcesses, unversioned): 16 bytes. */
typedef struct gwn_process_info_v1 {
    unsigned int pid;
    unsigned long long usedGpuMemory; /* bytes, or GWN_VALUE_NOT_AVAILABLE */
} gwn_process_info_v1;

/* nvmlProcessInfo_t (GetComputeRunningProcesses_v2/_v3): 24 bytes. */
typedef struct gwn_process_info {
    unsigned int pid;
    unsigned long long usedGpuMemory; /* bytes, or GWN_VALUE_NOT_AVAILABLE */
    unsigned int gpuInstanceId;       /* 0xFFFFFFFF when not on a MIG instance */
    unsigned int computeInstanceId;
} gwn_process_info;

/* NVML_VALUE_NOT_AVAILABLE: "all bits set" (WSL, Windows WDDM). */
#define GWN_VALUE_NOT_AVAILABLE (~0ULL)

/* nvmlTemperatureSensors_t / nvmlTemperatureThresholds_t */
enum { GWN_TEMPERATURE_GPU = 0 };
enum {
    GWN_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    GWN_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    GWN_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    GWN_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
};

/* nvmlClockType_t */
enum { GWN_CLOCK_GRAPHICS = 0, GWN_CLOCK_SM = 1, GWN_CLOCK_MEM = 2, GWN_CLOCK_VIDEO = 3 };

/* nvmlClocksEventReasons (GetCurrentClocksEventReasons; formerly ClocksThrottleReasons). */
enum {
    GWN_CLOCKS_EVENT_GPU_IDLE = 0x1,
    GWN_CLOCKS_EVENT_APPLICATIONS_CLOCKS_SETTING = 0x2,
    GWN_CLOCKS_EVENT_SW_POWER_CAP = 0x4,
    GWN_CLOCKS_EVENT_HW_SLOWDOWN = 0x8,
    GWN_CLOCKS_EVENT_SYNC_BOOST = 0x10,
    GWN_CLOCKS_EVENT_SW_THERMAL = 0x20,
    GWN_CLOCKS_EVENT_HW_THERMAL = 0x40,
    GWN_CLOCKS_EVENT_HW_POWER_BRAKE = 0x80,
    GWN_CLOCKS_EVENT_DISPLAY_CLOCK_SETTING = 0x100,
};

/* nvmlPstates_t: 0..15, 32 = unknown. */
enum { GWN_PSTATE_UNKNOWN = 32 };

/* nvmlMemoryErrorType_t / nvmlEccCounterType_t */
enum { GWN_MEMORY_ERROR_TYPE_CORRECTED = 0, GWN_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { GWN_VOLATILE_ECC = 0, GWN_AGGREGATE_ECC = 1 };

/* nvmlEnableState_t */
enum { GWN_FEATURE_DISABLED = 0, GWN_FEATURE_ENABLED = 1 };

/* nvmlValueType_t and nvmlValue_t */
enum {
    GWN_VALUE_TYPE_DOUBLE = 0,
    GWN_VALUE_TYPE_UNSIGNED_INT = 1,
    GWN_VALUE_TYPE_UNSIGNED_LONG = 2,
    GWN_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    GWN_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    GWN_VALUE_TYPE_SIGNED_INT = 5,
};
typedef union gwn_value {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
} gwn_value;

/* nvmlProcessUtilizationSample_t (GetProcessUtilization): 32 bytes. One per process that had
 * non-zero utilisation in a sample period after lastSeenTimeStamp; shares of that period in %. */
typedef struct gwn_process_utilization_sample {
    unsigned int pid;
    unsigned long long timeStamp; /* CPU time of the sample, us */
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} gwn_process_utilization_sample;

/* nvmlFieldValue_t (GetFieldValues): 40 bytes; each entry has its own return code. */
typedef struct gwn_field_value {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp; /* microseconds since the epoch */
    long long latencyUsec;
    int valueType; /* GWN_VALUE_TYPE_* */
    gwn_return nvmlReturn;
    gwn_value value;
} gwn_field_value;

/* Field ids (NVML_FI_DEV_*) that gpuwatch reads. */
enum {
    GWN_FI_DEV_MEMORY_TEMP = 82,              /* deg C, HBM */
    GWN_FI_DEV_TOTAL_ENERGY_CONSUMPTION = 83, /* mJ since driver load */
    GWN_FI_DEV_POWER_INSTANT = 186,           /* mW, instantaneous */
};

/* GPM (Hopper+). nvmlGpmSupport_t */
typedef struct gwn_gpm_support {
    unsigned int version; /* GWN_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice;
} gwn_gpm_support;
#define GWN_GPM_SUPPORT_VERSION 1u

/* nvmlGpmMetric_t: 40 bytes. */
typedef struct gwn_gpm_metric {
    unsigned int metricId;
    gwn_return nvmlReturn;
    double value;
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;
} gwn_gpm_metric;

/* nvmlGpmMetricsGet_t: metrics[] starts at offset 24. The array bound grew across drivers (98,
 * 210, 333) with the version unchanged, so gpuwatch always allocates GWN_GPM_METRIC_MAX entries. */
#define GWN_GPM_METRICS_GET_VERSION 1u
enum { GWN_GPM_METRIC_MAX = 333 };
typedef struct gwn_gpm_metrics_get {
    unsigned int version; /* GWN_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics;
    gwn_gpm_sample sample1;
    gwn_gpm_sample sample2;
    gwn_gpm_metric metrics[GWN_GPM_METRIC_MAX];
} gwn_gpm_metrics_get;

/* nvmlGpmMetricId_t values used by gpuwatch (all 0-100 %, PCIe and NVLink in MiB/s). */
enum {
    GWN_GPM_METRIC_GRAPHICS_UTIL = 1,
    GWN_GPM_METRIC_SM_UTIL = 2,
    GWN_GPM_METRIC_SM_OCCUPANCY = 3,
    GWN_GPM_METRIC_INTEGER_UTIL = 4,
    GWN_GPM_METRIC_ANY_TENSOR_UTIL = 5,
    GWN_GPM_METRIC_DRAM_BW_UTIL = 10,
    GWN_GPM_METRIC_FP64_UTIL = 11,
    GWN_GPM_METRIC_FP32_UTIL = 12,
    GWN_GPM_METRIC_FP16_UTIL = 13,
    GWN_GPM_METRIC_PCIE_TX_PER_SEC = 20,
    GWN_GPM_METRIC_PCIE_RX_PER_SEC = 21,
    GWN_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60, /* all links together */
    GWN_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61,
};

/* nvmlEventData_t (EventSetWait_v2) */
typedef struct gwn_event_data {
    gwn_device device;
    unsigned long long eventType;
    unsigned long long eventData; /* XID number for GWN_EVENT_XID_CRITICAL_ERROR */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} gwn_event_data;

/* nvmlEventType */
enum {
    GWN_EVENT_SINGLE_BIT_ECC = 0x1ULL,
    GWN_EVENT_DOUBLE_BIT_ECC = 0x2ULL,
    GWN_EVENT_PSTATE = 0x4ULL,
    GWN_EVENT_XID_CRITICAL_ERROR = 0x8ULL,
    GWN_EVENT_CLOCK = 0x10ULL,
    GWN_EVENT_GPU_UNAVAILABLE = 0x4000ULL,
};

#endif

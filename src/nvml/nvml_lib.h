/*
 * nvml_lib: loads the NVML library with dlopen and resolves the functions gpuwatch uses.
 *
 * Owns: the dlopen handle, one function pointer per NVML entry point (NULL when the loaded library
 * lacks it: the metric it serves is then absent), and the nvmlInit/nvmlShutdown pairing. The
 * library path is $GPUWATCH_NVML_LIB, else "libnvidia-ml.so.1" through the dynamic linker's search.
 * Versioned symbols are looked up first (nvmlInit_v2, nvmlDeviceGetCount_v2, ..._v3 then _v2 then
 * plain), as nvml.h's macros would pick them.
 *
 * Must not: read device values (that is the sampler's job), or print; errors come back as gw_error
 * with a message that tells the user what to do.
 */
#ifndef GW_NVML_LIB_H
#define GW_NVML_LIB_H

#include "nvml_abi.h"
#include "util/gw_error.h"

#include <stdbool.h>

typedef struct gw_nvml {
    void *dl;          /* dlopen handle */
    char *path;        /* the path or soname that was opened (owned) */
    bool initialised;  /* nvmlInit succeeded; gw_nvml_close calls nvmlShutdown */
    int pci_info_abi;  /* 3, 2 or 1: which GetPciInfo variant `DeviceGetPciInfo` points at */
    int processes_abi; /* 3, 2 or 1: which Get*RunningProcesses variant is bound (record stride) */

    /* Required: a library without these is refused. */
    gwn_return (*Init)(void);
    gwn_return (*Shutdown)(void);
    const char *(*ErrorString)(gwn_return);
    gwn_return (*DeviceGetCount)(unsigned int *);
    gwn_return (*DeviceGetHandleByIndex)(unsigned int, gwn_device *);

    /* Optional: NULL when absent. */
    gwn_return (*SystemGetDriverVersion)(char *, unsigned int);
    gwn_return (*SystemGetNVMLVersion)(char *, unsigned int);
    gwn_return (*SystemGetCudaDriverVersion)(int *);
    gwn_return (*DeviceGetName)(gwn_device, char *, unsigned int);
    gwn_return (*DeviceGetUUID)(gwn_device, char *, unsigned int);
    gwn_return (*DeviceGetIndex)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetPciInfo)(gwn_device, gwn_pci_info *);
    gwn_return (*DeviceGetUtilizationRates)(gwn_device, gwn_utilization *);
    gwn_return (*DeviceGetMemoryInfo)(gwn_device, gwn_memory *);
    gwn_return (*DeviceGetMemoryInfo_v2)(gwn_device, gwn_memory_v2 *);
    gwn_return (*DeviceGetTemperature)(gwn_device, int, unsigned int *);
    gwn_return (*DeviceGetTemperatureThreshold)(gwn_device, int, unsigned int *);
    gwn_return (*DeviceGetPowerUsage)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetPowerManagementLimit)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetEnforcedPowerLimit)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetClockInfo)(gwn_device, int, unsigned int *);
    gwn_return (*DeviceGetMaxClockInfo)(gwn_device, int, unsigned int *);
    /* GetCurrentClocksEventReasons, else the older GetCurrentClocksThrottleReasons. */
    gwn_return (*DeviceGetCurrentClocksEventReasons)(gwn_device, unsigned long long *);
    gwn_return (*DeviceGetPerformanceState)(gwn_device, int *);
    gwn_return (*DeviceGetFanSpeed)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetCurrPcieLinkGeneration)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetMaxPcieLinkGeneration)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetCurrPcieLinkWidth)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetMaxPcieLinkWidth)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetTotalEccErrors)(gwn_device, int, int, unsigned long long *);
    gwn_return (*DeviceGetRetiredPagesPendingStatus)(gwn_device, int *);
    gwn_return (*DeviceGetRemappedRows)(gwn_device, unsigned int *, unsigned int *, unsigned int *,
                                        unsigned int *);
    gwn_return (*DeviceGetTotalEnergyConsumption)(gwn_device, unsigned long long *);
    gwn_return (*DeviceGetFieldValues)(gwn_device, int, gwn_field_value *);
    /* Records of processes_abi's stride: gwn_process_info (v2/v3) or gwn_process_info_v1. */
    gwn_return (*DeviceGetComputeRunningProcesses)(gwn_device, unsigned int *, void *);
    gwn_return (*DeviceGetGraphicsRunningProcesses)(gwn_device, unsigned int *, void *);
    gwn_return (*DeviceGetProcessUtilization)(gwn_device, gwn_process_utilization_sample *,
                                              unsigned int *, unsigned long long);
    gwn_return (*DeviceGetMigMode)(gwn_device, unsigned int *, unsigned int *);
    gwn_return (*DeviceGetMaxMigDeviceCount)(gwn_device, unsigned int *);
    gwn_return (*DeviceGetMigDeviceHandleByIndex)(gwn_device, unsigned int, gwn_device *);
    gwn_return (*GpmQueryDeviceSupport)(gwn_device, gwn_gpm_support *);
    gwn_return (*GpmSampleAlloc)(gwn_gpm_sample *);
    gwn_return (*GpmSampleFree)(gwn_gpm_sample);
    gwn_return (*GpmSampleGet)(gwn_device, gwn_gpm_sample);
    gwn_return (*GpmMetricsGet)(gwn_gpm_metrics_get *);
    gwn_return (*EventSetCreate)(gwn_event_set *);
    gwn_return (*EventSetFree)(gwn_event_set);
    gwn_return (*DeviceGetSupportedEventTypes)(gwn_device, unsigned long long *);
    gwn_return (*DeviceRegisterEvents)(gwn_device, unsigned long long, gwn_event_set);
    gwn_return (*EventSetWait)(gwn_event_set, gwn_event_data *, unsigned int);
    /* Not NVML: a library that simulates GPUs exports `const char *gpuwatch_nvml_banner(void)`
     * ("simulated GPU, fake NVML playing x.json"), which gpuwatch shows after its start message.
     * NULL for the real library, so nothing else needs to know which library was loaded. */
    const char *(*Banner)(void);
} gw_nvml;

/* Any entry point, for the calls the field table names by symbol and shape (sampler/sample.h
 * gw_nvml_read): the caller converts it to the call's type before calling it. */
typedef void (*gw_nvml_fn)(void);
/* Calls of one device and one unsigned value out: (device, &value). */
typedef gwn_return (*gwn_uint_fn)(gwn_device, unsigned int *);
/* Calls of one device, one unsigned value and its sampling period in us out (Get{Encoder,
 * Decoder}Utilization). */
typedef gwn_return (*gwn_uint_period_fn)(gwn_device, unsigned int *, unsigned int *);

/* The entry point `symbol` of the loaded library, or NULL when it lacks it (the field it reads is
 * then absent). */
gw_nvml_fn gw_nvml_symbol(const gw_nvml *nvml, const char *symbol);

/* Loads the library and resolves symbols, without calling nvmlInit. path NULL means
 * $GPUWATCH_NVML_LIB or "libnvidia-ml.so.1". On failure returns GW_E_NVML with a message naming the
 * library and the fix, and *out is NULL. The caller owns *out and frees it with gw_nvml_close. */
GW_MUST_USE gw_rc gw_nvml_load(const char *path, gw_nvml **out, gw_error *err);

/* gw_nvml_load + nvmlInit. Init failures are turned into messages by gw_nvml_init_message. */
GW_MUST_USE gw_rc gw_nvml_open(const char *path, gw_nvml **out, gw_error *err);

/* nvmlShutdown (once, when init succeeded), dlclose and free. NULL is accepted. */
void gw_nvml_close(gw_nvml *nvml);

/* NVML's own name for a return code ("GPU_IS_LOST"), without the library. Never NULL. */
const char *gw_nvml_return_name(gwn_return r);

/* One line telling the user what an nvmlInit failure means and what to do about it. */
void gw_nvml_init_message(gwn_return r, const char *lib, gw_error *err);

/* One line for a call that failed on a device: "GPU 1: nvmlDeviceGetPowerUsage: GPU_IS_LOST (the
 * GPU fell off the bus; check dmesg for Xid 79 and reset the GPU or reboot)". */
void gw_nvml_call_message(unsigned gpu, const char *call, gwn_return r, gw_error *err);

/* True when an error means "this value does not exist here" rather than a failure: NOT_SUPPORTED,
 * FUNCTION_NOT_FOUND, NO_PERMISSION on a metric, ARGUMENT_VERSION_MISMATCH. Such results are cached
 * as absent and not retried. */
bool gw_nvml_is_unsupported(gwn_return r);

#endif

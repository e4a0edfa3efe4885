/*
 * fake_api: the NVML functions the fake library exports, with NVML's real names and gpuwatch's own
 * ABI declarations (src/nvml/nvml_abi.h). They are exactly the symbols gpuwatch's loader binds
 * (src/nvml/nvml_lib.c), every versioned variant included; stats.h's FAKE_CALLS lists the same
 * names for the call counters.
 *
 * Owns: nothing; the definitions live in api_system.c (init, versions, enumeration, identity,
 * MIG), api_metrics.c (per-tick values, limits, ECC, energy, fields), api_processes.c, gpm.c and
 * events.c. Must not: be included by gpuwatch itself (it loads NVML with dlopen).
 */
#ifndef FAKE_API_H
#define FAKE_API_H

#include "nvml/nvml_abi.h"
#include "state.h"

/* api_system.c */
FAKE_EXPORT gwn_return nvmlInit_v2(void);
FAKE_EXPORT gwn_return nvmlInit(void);
FAKE_EXPORT gwn_return nvmlShutdown(void);
FAKE_EXPORT const char *nvmlErrorString(gwn_return result);
FAKE_EXPORT gwn_return nvmlSystemGetDriverVersion(char *version, unsigned int length);
FAKE_EXPORT gwn_return nvmlSystemGetNVMLVersion(char *version, unsigned int length);
FAKE_EXPORT gwn_return nvmlSystemGetCudaDriverVersion_v2(int *version);
FAKE_EXPORT gwn_return nvmlSystemGetCudaDriverVersion(int *version);
FAKE_EXPORT gwn_return nvmlDeviceGetCount_v2(unsigned int *count);
FAKE_EXPORT gwn_return nvmlDeviceGetCount(unsigned int *count);
FAKE_EXPORT gwn_return nvmlDeviceGetHandleByIndex_v2(unsigned int index, gwn_device *device);
FAKE_EXPORT gwn_return nvmlDeviceGetHandleByIndex(unsigned int index, gwn_device *device);
FAKE_EXPORT gwn_return nvmlDeviceGetName(gwn_device device, char *name, unsigned int length);
FAKE_EXPORT gwn_return nvmlDeviceGetUUID(gwn_device device, char *uuid, unsigned int length);
FAKE_EXPORT gwn_return nvmlDeviceGetIndex(gwn_device device, unsigned int *index);
FAKE_EXPORT gwn_return nvmlDeviceGetPciInfo_v3(gwn_device device, gwn_pci_info *pci);
FAKE_EXPORT gwn_return nvmlDeviceGetPciInfo_v2(gwn_device device, gwn_pci_info *pci);
/* Writes the original 52-byte nvmlPciInfo_t (busId[16], ids, 16 reserved bytes). */
FAKE_EXPORT gwn_return nvmlDeviceGetPciInfo(gwn_device device, gwn_pci_info *pci);
FAKE_EXPORT gwn_return nvmlDeviceGetMigMode(gwn_device device, unsigned int *current,
                                            unsigned int *pending);
FAKE_EXPORT gwn_return nvmlDeviceGetMaxMigDeviceCount(gwn_device device, unsigned int *count);
FAKE_EXPORT gwn_return nvmlDeviceGetMigDeviceHandleByIndex(gwn_device device, unsigned int index,
                                                           gwn_device *mig_device);

/* api_metrics.c */
FAKE_EXPORT gwn_return nvmlDeviceGetUtilizationRates(gwn_device device, gwn_utilization *util);
FAKE_EXPORT gwn_return nvmlDeviceGetMemoryInfo(gwn_device device, gwn_memory *memory);
FAKE_EXPORT gwn_return nvmlDeviceGetMemoryInfo_v2(gwn_device device, gwn_memory_v2 *memory);
FAKE_EXPORT gwn_return nvmlDeviceGetTemperature(gwn_device device, int sensor, unsigned int *temp);
FAKE_EXPORT gwn_return nvmlDeviceGetTemperatureThreshold(gwn_device device, int type,
                                                         unsigned int *temp);
FAKE_EXPORT gwn_return nvmlDeviceGetPowerUsage(gwn_device device, unsigned int *power_mw);
FAKE_EXPORT gwn_return nvmlDeviceGetPowerManagementLimit(gwn_device device, unsigned int *limit_mw);
FAKE_EXPORT gwn_return nvmlDeviceGetEnforcedPowerLimit(gwn_device device, unsigned int *limit_mw);
FAKE_EXPORT gwn_return nvmlDeviceGetClockInfo(gwn_device device, int type, unsigned int *mhz);
FAKE_EXPORT gwn_return nvmlDeviceGetMaxClockInfo(gwn_device device, int type, unsigned int *mhz);
FAKE_EXPORT gwn_return nvmlDeviceGetCurrentClocksEventReasons(gwn_device device,
                                                              unsigned long long *reasons);
FAKE_EXPORT gwn_return nvmlDeviceGetCurrentClocksThrottleReasons(gwn_device device,
                                                                 unsigned long long *reasons);
FAKE_EXPORT gwn_return nvmlDeviceGetPerformanceState(gwn_device device, int *pstate);
/* The calls of uint_calls.h: nvmlDeviceGetFanSpeed, ... */
#define FAKE_UINT_DECL(call, ...)                                                                  \
    FAKE_EXPORT gwn_return call(gwn_device device, unsigned int *value);
FAKE_UINT_CALLS(FAKE_UINT_DECL)
#undef FAKE_UINT_DECL
/* enc_util / dec_util of the timeline; the sampling period is FAKE_CODEC_PERIOD_US. */
FAKE_EXPORT gwn_return nvmlDeviceGetEncoderUtilization(gwn_device device, unsigned int *pct,
                                                       unsigned int *period_us);
FAKE_EXPORT gwn_return nvmlDeviceGetDecoderUtilization(gwn_device device, unsigned int *pct,
                                                       unsigned int *period_us);
FAKE_EXPORT gwn_return nvmlDeviceGetCurrPcieLinkGeneration(gwn_device device, unsigned int *gen);
FAKE_EXPORT gwn_return nvmlDeviceGetMaxPcieLinkGeneration(gwn_device device, unsigned int *gen);
FAKE_EXPORT gwn_return nvmlDeviceGetCurrPcieLinkWidth(gwn_device device, unsigned int *width);
FAKE_EXPORT gwn_return nvmlDeviceGetMaxPcieLinkWidth(gwn_device device, unsigned int *width);
FAKE_EXPORT gwn_return nvmlDeviceGetTotalEccErrors(gwn_device device, int error_type,
                                                   int counter_type, unsigned long long *count);
FAKE_EXPORT gwn_return nvmlDeviceGetRetiredPagesPendingStatus(gwn_device device, int *pending);
FAKE_EXPORT gwn_return nvmlDeviceGetRemappedRows(gwn_device device, unsigned int *corr_rows,
                                                 unsigned int *unc_rows, unsigned int *pending,
                                                 unsigned int *failure);
FAKE_EXPORT gwn_return nvmlDeviceGetTotalEnergyConsumption(gwn_device device,
                                                           unsigned long long *energy_mj);
FAKE_EXPORT gwn_return nvmlDeviceGetFieldValues(gwn_device device, int count,
                                                gwn_field_value *values);

/* api_processes.c: _v3/_v2 write 24-byte gwn_process_info records, the plain ones 16-byte
 * gwn_process_info_v1 records. */
FAKE_EXPORT gwn_return nvmlDeviceGetComputeRunningProcesses_v3(gwn_device device,
                                                               unsigned int *count, void *infos);
FAKE_EXPORT gwn_return nvmlDeviceGetComputeRunningProcesses_v2(gwn_device device,
                                                               unsigned int *count, void *infos);
FAKE_EXPORT gwn_return nvmlDeviceGetComputeRunningProcesses(gwn_device device, unsigned int *count,
                                                            void *infos);
FAKE_EXPORT gwn_return nvmlDeviceGetGraphicsRunningProcesses_v3(gwn_device device,
                                                                unsigned int *count, void *infos);
FAKE_EXPORT gwn_return nvmlDeviceGetGraphicsRunningProcesses_v2(gwn_device device,
                                                                unsigned int *count, void *infos);
FAKE_EXPORT gwn_return nvmlDeviceGetGraphicsRunningProcesses(gwn_device device, unsigned int *count,
                                                             void *infos);
/* One sample per listed process with a non-zero share (scenario process keys sm_util, mem_util,
 * enc_util, dec_util), stamped with the scenario time in us; NOT_FOUND when none is newer than
 * last_seen_us. NULL samples: *count set to the number, SUCCESS. */
FAKE_EXPORT gwn_return nvmlDeviceGetProcessUtilization(gwn_device device,
                                                       gwn_process_utilization_sample *samples,
                                                       unsigned int *count,
                                                       unsigned long long last_seen_us);

/* gpm.c */
FAKE_EXPORT gwn_return nvmlGpmQueryDeviceSupport(gwn_device device, gwn_gpm_support *support);
FAKE_EXPORT gwn_return nvmlGpmSampleAlloc(gwn_gpm_sample *sample);
FAKE_EXPORT gwn_return nvmlGpmSampleFree(gwn_gpm_sample sample);
FAKE_EXPORT gwn_return nvmlGpmSampleGet(gwn_device device, gwn_gpm_sample sample);
FAKE_EXPORT gwn_return nvmlGpmMetricsGet(gwn_gpm_metrics_get *metrics);

/* events.c */
FAKE_EXPORT gwn_return nvmlEventSetCreate(gwn_event_set *set);
FAKE_EXPORT gwn_return nvmlEventSetFree(gwn_event_set set);
FAKE_EXPORT gwn_return nvmlDeviceGetSupportedEventTypes(gwn_device device,
                                                        unsigned long long *types);
FAKE_EXPORT gwn_return nvmlDeviceRegisterEvents(gwn_device device, unsigned long long types,
                                                gwn_event_set set);
FAKE_EXPORT gwn_return nvmlEventSetWait_v2(gwn_event_set set, gwn_event_data *data,
                                           unsigned int timeout_ms);
/* Writes the original 24-byte nvmlEventData_t (no GPU/compute instance ids). */
FAKE_EXPORT gwn_return nvmlEventSetWait(gwn_event_set set, gwn_event_data *data,
                                        unsigned int timeout_ms);

#endif

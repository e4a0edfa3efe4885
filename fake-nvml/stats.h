/*
 * stats: counts every call into the fake NVML library, by function name, and writes the counts
 * to $FAKE_NVML_STATS as {"calls": {"nvmlDeviceGetPowerUsage": N, ...}}.
 *
 * Owns: the list of every exported NVML function (FAKE_CALLS, which also names the counters), one
 * atomic counter per function, and the stats file. Counts cover the whole time the library is
 * loaded (across init/shutdown cycles) so that a test can prove a path never called NVML, or that
 * a NOT_SUPPORTED value was not asked again. The file is rewritten at every final nvmlShutdown and
 * when the library is unloaded or the process exits, and only by the process that loaded the
 * library: a forked child that exits must not overwrite its parent's counts.
 *
 * Must not: take the state lock (counting happens before any validation, on every call).
 */
#ifndef FAKE_STATS_H
#define FAKE_STATS_H

#include "uint_calls.h"

/* Every function the fake exports: the symbols gpuwatch's loader (src/nvml/nvml_lib.c) binds,
 * each versioned variant included, and those of uint_calls.h (X gets more arguments: take the
 * first). fake_api.h declares them; a unit test checks that each name
 * here is exported by the library. */
#define FAKE_CALLS(X)                                                                              \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlInit)                                                                                    \
    X(nvmlShutdown)                                                                                \
    X(nvmlErrorString)                                                                             \
    X(nvmlSystemGetDriverVersion)                                                                  \
    X(nvmlSystemGetNVMLVersion)                                                                    \
    X(nvmlSystemGetCudaDriverVersion_v2)                                                           \
    X(nvmlSystemGetCudaDriverVersion)                                                              \
    X(nvmlDeviceGetCount_v2)                                                                       \
    X(nvmlDeviceGetCount)                                                                          \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetHandleByIndex)                                                                  \
    X(nvmlDeviceGetName)                                                                           \
    X(nvmlDeviceGetUUID)                                                                           \
    X(nvmlDeviceGetIndex)                                                                          \
    X(nvmlDeviceGetPciInfo_v3)                                                                     \
    X(nvmlDeviceGetPciInfo_v2)                                                                     \
    X(nvmlDeviceGetPciInfo)                                                                        \
    X(nvmlDeviceGetUtilizationRates)                                                               \
    X(nvmlDeviceGetMemoryInfo)                                                                     \
    X(nvmlDeviceGetMemoryInfo_v2)                                                                  \
    X(nvmlDeviceGetTemperature)                                                                    \
    X(nvmlDeviceGetTemperatureThreshold)                                                           \
    X(nvmlDeviceGetPowerUsage)                                                                     \
    X(nvmlDeviceGetPowerManagementLimit)                                                           \
    X(nvmlDeviceGetEnforcedPowerLimit)                                                             \
    X(nvmlDeviceGetClockInfo)                                                                      \
    X(nvmlDeviceGetMaxClockInfo)                                                                   \
    X(nvmlDeviceGetCurrentClocksEventReasons)                                                      \
    X(nvmlDeviceGetCurrentClocksThrottleReasons)                                                   \
    X(nvmlDeviceGetPerformanceState)                                                               \
    X(nvmlDeviceGetEncoderUtilization)                                                             \
    X(nvmlDeviceGetDecoderUtilization)                                                             \
    X(nvmlDeviceGetCurrPcieLinkGeneration)                                                         \
    X(nvmlDeviceGetMaxPcieLinkGeneration)                                                          \
    X(nvmlDeviceGetCurrPcieLinkWidth)                                                              \
    X(nvmlDeviceGetMaxPcieLinkWidth)                                                               \
    X(nvmlDeviceGetTotalEccErrors)                                                                 \
    X(nvmlDeviceGetRetiredPagesPendingStatus)                                                      \
    X(nvmlDeviceGetRemappedRows)                                                                   \
    X(nvmlDeviceGetTotalEnergyConsumption)                                                         \
    X(nvmlDeviceGetFieldValues)                                                                    \
    X(nvmlDeviceGetComputeRunningProcesses_v3)                                                     \
    X(nvmlDeviceGetComputeRunningProcesses_v2)                                                     \
    X(nvmlDeviceGetComputeRunningProcesses)                                                        \
    X(nvmlDeviceGetGraphicsRunningProcesses_v3)                                                    \
    X(nvmlDeviceGetGraphicsRunningProcesses_v2)                                                    \
    X(nvmlDeviceGetGraphicsRunningProcesses)                                                       \
    X(nvmlDeviceGetProcessUtilization)                                                             \
    X(nvmlDeviceGetMigMode)                                                                        \
    X(nvmlDeviceGetMaxMigDeviceCount)                                                              \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlGpmQueryDeviceSupport)                                                                   \
    X(nvmlGpmSampleAlloc)                                                                          \
    X(nvmlGpmSampleFree)                                                                           \
    X(nvmlGpmSampleGet)                                                                            \
    X(nvmlGpmMetricsGet)                                                                           \
    X(nvmlEventSetCreate)                                                                          \
    X(nvmlEventSetFree)                                                                            \
    X(nvmlDeviceGetSupportedEventTypes)                                                            \
    X(nvmlDeviceRegisterEvents)                                                                    \
    X(nvmlEventSetWait_v2)                                                                         \
    X(nvmlEventSetWait)                                                                            \
    FAKE_UINT_CALLS(X)

/* FC_nvmlInit_v2, FC_nvmlInit, ...: the counter index of each function. */
#define FAKE_CALL_ENUM(name, ...) FC_##name,
typedef enum fake_call_id { FAKE_CALLS(FAKE_CALL_ENUM) FC_COUNT } fake_call_id;
#undef FAKE_CALL_ENUM

/* Counts one call of function `id`. Lock-free; safe from any thread. */
void fake_stats_count(fake_call_id id);

/* Writes the counts to $FAKE_NVML_STATS (nothing when it is unset or empty). The file is replaced
 * atomically (written beside it, then renamed) so that a reader never sees half of it. A write
 * error prints one "fake-nvml: " line to stderr. */
void fake_stats_write(void);

#endif

#include "nvml_lib.h"

#include "util/xalloc.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define GW_NVML_DEFAULT_LIB "libnvidia-ml.so.1"

/* Looks up the first of up to three names that the library exports. */
static void *sym3(void *dl, const char *a, const char *b, const char *c, int *which)
{
    const char *names[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (!names[i])
            continue;
        void *p = dlsym(dl, names[i]);
        if (p) {
            if (which)
                *which = 3 - i;
            return p;
        }
    }
    return NULL;
}

#define BIND(field, name) memcpy(&n->field, &(void *){dlsym(n->dl, name)}, sizeof(void *))
#define BIND2(field, a, b)                                                                         \
    memcpy(&n->field, &(void *){sym3(n->dl, a, b, NULL, NULL)}, sizeof(void *))

static void bind_optional(gw_nvml *n)
{
    BIND(SystemGetDriverVersion, "nvmlSystemGetDriverVersion");
    BIND(SystemGetNVMLVersion, "nvmlSystemGetNVMLVersion");
    BIND2(SystemGetCudaDriverVersion, "nvmlSystemGetCudaDriverVersion_v2",
          "nvmlSystemGetCudaDriverVersion");
    BIND(DeviceGetName, "nvmlDeviceGetName");
    BIND(DeviceGetUUID, "nvmlDeviceGetUUID");
    BIND(DeviceGetIndex, "nvmlDeviceGetIndex");
    void *p = sym3(n->dl, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2",
                   "nvmlDeviceGetPciInfo", &n->pci_info_abi);
    memcpy(&n->DeviceGetPciInfo, &p, sizeof p);
    BIND(DeviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates");
    BIND(DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
    BIND(DeviceGetMemoryInfo_v2, "nvmlDeviceGetMemoryInfo_v2");
    BIND(DeviceGetTemperature, "nvmlDeviceGetTemperature");
    BIND(DeviceGetTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold");
    BIND(DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
    BIND(DeviceGetPowerManagementLimit, "nvmlDeviceGetPowerManagementLimit");
    BIND(DeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
    BIND(DeviceGetClockInfo, "nvmlDeviceGetClockInfo");
    BIND(DeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
    BIND2(DeviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons",
          "nvmlDeviceGetCurrentClocksThrottleReasons");
    BIND(DeviceGetPerformanceState, "nvmlDeviceGetPerformanceState");
    BIND(DeviceGetFanSpeed, "nvmlDeviceGetFanSpeed");
    BIND(DeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration");
    BIND(DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration");
    BIND(DeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth");
    BIND(DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth");
    BIND(DeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors");
    BIND(DeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus");
    BIND(DeviceGetRemappedRows, "nvmlDeviceGetRemappedRows");
    BIND(DeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption");
    BIND(DeviceGetProcessUtilization, "nvmlDeviceGetProcessUtilization");
    BIND(DeviceGetFieldValues, "nvmlDeviceGetFieldValues");
    p = sym3(n->dl, "nvmlDeviceGetComputeRunningProcesses_v3",
             "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses",
             &n->processes_abi);
    memcpy(&n->DeviceGetComputeRunningProcesses, &p, sizeof p);
    /* Bind the graphics list with the same record version as the compute list. */
    const char *gname = n->processes_abi == 3   ? "nvmlDeviceGetGraphicsRunningProcesses_v3"
                        : n->processes_abi == 2 ? "nvmlDeviceGetGraphicsRunningProcesses_v2"
                                                : "nvmlDeviceGetGraphicsRunningProcesses";
    BIND(DeviceGetGraphicsRunningProcesses, gname);
    BIND(DeviceGetMigMode, "nvmlDeviceGetMigMode");
    BIND(DeviceGetMaxMigDeviceCount, "nvmlDeviceGetMaxMigDeviceCount");
    BIND(DeviceGetMigDeviceHandleByIndex, "nvmlDeviceGetMigDeviceHandleByIndex");
    BIND(GpmQueryDeviceSupport, "nvmlGpmQueryDeviceSupport");
    BIND(GpmSampleAlloc, "nvmlGpmSampleAlloc");
    BIND(GpmSampleFree, "nvmlGpmSampleFree");
    BIND(GpmSampleGet, "nvmlGpmSampleGet");
    BIND(GpmMetricsGet, "nvmlGpmMetricsGet");
    BIND(EventSetCreate, "nvmlEventSetCreate");
    BIND(EventSetFree, "nvmlEventSetFree");
    BIND(DeviceGetSupportedEventTypes, "nvmlDeviceGetSupportedEventTypes");
    BIND(DeviceRegisterEvents, "nvmlDeviceRegisterEvents");
    BIND2(EventSetWait, "nvmlEventSetWait_v2", "nvmlEventSetWait");
    BIND(Banner, "gpuwatch_nvml_banner");
}

gw_rc gw_nvml_load(const char *path, gw_nvml **out, gw_error *err)
{
    *out = NULL;
    if (!path) {
        const char *env = getenv("GPUWATCH_NVML_LIB");
        path = (env && *env) ? env : GW_NVML_DEFAULT_LIB;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *why = dlerror();
        return gw_error_set(err, GW_E_NVML,
                            "cannot load the NVIDIA management library %s (%s): install the NVIDIA "
                            "driver, or set GPUWATCH_NVML_LIB to the path of libnvidia-ml.so.1",
                            path, why ? why : "not found");
    }
    gw_nvml *n = xcalloc(1, sizeof *n);
    n->dl = dl;
    n->path = xstrdup(path);
    void *p = sym3(dl, "nvmlInit_v2", "nvmlInit", NULL, NULL);
    memcpy(&n->Init, &p, sizeof p);
    BIND(Shutdown, "nvmlShutdown");
    BIND(ErrorString, "nvmlErrorString");
    BIND2(DeviceGetCount, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    BIND2(DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    const char *missing = !n->Init                     ? "nvmlInit_v2"
                          : !n->Shutdown               ? "nvmlShutdown"
                          : !n->ErrorString            ? "nvmlErrorString"
                          : !n->DeviceGetCount         ? "nvmlDeviceGetCount_v2"
                          : !n->DeviceGetHandleByIndex ? "nvmlDeviceGetHandleByIndex_v2"
                                                       : NULL;
    if (missing) {
        gw_error_set(err, GW_E_NVML,
                     "%s is not a usable NVML library: it lacks %s; point GPUWATCH_NVML_LIB at the "
                     "driver's libnvidia-ml.so.1",
                     path, missing);
        gw_nvml_close(n);
        return GW_E_NVML;
    }
    bind_optional(n);
    *out = n;
    return GW_OK;
}

gw_nvml_fn gw_nvml_symbol(const gw_nvml *n, const char *symbol)
{
    gw_nvml_fn fn = NULL;
    void *p = n && n->dl ? dlsym(n->dl, symbol) : NULL;
    memcpy(&fn, &p, sizeof p);
    return fn;
}

gw_rc gw_nvml_open(const char *path, gw_nvml **out, gw_error *err)
{
    gw_nvml *n = NULL;
    gw_rc rc = gw_nvml_load(path, &n, err);
    if (rc)
        return rc;
    gwn_return r = n->Init();
    if (r != GWN_SUCCESS) {
        gw_nvml_init_message(r, n->path, err);
        gw_nvml_close(n);
        *out = NULL;
        return GW_E_NVML;
    }
    n->initialised = true;
    *out = n;
    return GW_OK;
}

void gw_nvml_close(gw_nvml *n)
{
    if (!n)
        return;
    if (n->initialised && n->Shutdown)
        n->Shutdown();
    if (n->dl)
        dlclose(n->dl);
    free(n->path);
    free(n);
}

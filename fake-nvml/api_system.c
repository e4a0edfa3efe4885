/* NVML entry points: init, error strings, versions, enumeration, identity, MIG; see fake_api.h. */
#include "fake_api.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The H200 we measured: PCI device 0x2335 of vendor 0x10DE, packed as NVML does
 * (device << 16 | vendor), and its subsystem id. */
#define PCI_DEVICE_ID    0x233510DEu
#define PCI_SUBSYSTEM_ID 0x18BF10DEu

gwn_return nvmlInit_v2(void)
{
    fake_stats_count(FC_nvmlInit_v2);
    return fake_state_init();
}

gwn_return nvmlInit(void)
{
    fake_stats_count(FC_nvmlInit);
    return fake_state_init();
}

gwn_return nvmlShutdown(void)
{
    fake_stats_count(FC_nvmlShutdown);
    return fake_state_shutdown();
}

/* libnvidia-ml's own wording (read from driver 580.159.04 on an H200), so that messages built from
 * nvmlErrorString read as they would on a GPU. Unknown codes get NVML's "Unknown Error". */
const char *nvmlErrorString(gwn_return result)
{
    fake_stats_count(FC_nvmlErrorString);
    switch (result) {
    case GWN_SUCCESS:
        return "Success";
    case GWN_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case GWN_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case GWN_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case GWN_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case GWN_ERROR_ALREADY_INITIALIZED:
        return "Already Initialized";
    case GWN_ERROR_NOT_FOUND:
        return "Not Found";
    case GWN_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case GWN_ERROR_INSUFFICIENT_POWER:
        return "Insufficient External Power";
    case GWN_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case GWN_ERROR_TIMEOUT:
        return "Timeout";
    case GWN_ERROR_IRQ_ISSUE:
        return "Interrupt Request Issue";
    case GWN_ERROR_LIBRARY_NOT_FOUND:
        return "NVML Shared Library Not Found";
    case GWN_ERROR_FUNCTION_NOT_FOUND:
        return "Function Not Found";
    case GWN_ERROR_CORRUPTED_INFOROM:
        return "Corrupted infoROM";
    case GWN_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    case GWN_ERROR_RESET_REQUIRED:
        return "GPU requires reset";
    case GWN_ERROR_OPERATING_SYSTEM:
        return "GPU access blocked by the operating system";
    case GWN_ERROR_LIB_RM_VERSION_MISMATCH:
        return "Driver/library version mismatch";
    case GWN_ERROR_IN_USE:
        return "In use by another client";
    case GWN_ERROR_MEMORY:
        return "Insufficient Memory";
    case GWN_ERROR_NO_DATA:
        return "No data";
    case GWN_ERROR_VGPU_ECC_NOT_SUPPORTED:
        return "vGPU ECC not supported";
    case GWN_ERROR_INSUFFICIENT_RESOURCES:
        return "Insufficient Resources";
    case GWN_ERROR_FREQ_NOT_SUPPORTED:
        return "Invalid Frequency";
    case GWN_ERROR_ARGUMENT_VERSION_MISMATCH:
        return "Argument version mismatch";
    case GWN_ERROR_DEPRECATED:
        return "Requested functionality has been deprecated";
    case GWN_ERROR_NOT_READY:
        return "System is not in ready state";
    case GWN_ERROR_GPU_NOT_FOUND:
        return "No supported GPUs were found";
    case GWN_ERROR_INVALID_STATE:
        return "Resource not in correct state to perform requested operation";
    default:
        return "Unknown Error";
    }
}

static gwn_return system_string(fake_call_id id, char *buf, unsigned int len, bool nvml)
{
    fake_call c;
    gwn_return r = fake_begin(&c, id);
    if (r)
        return r;
    r = fake_copy_string(buf, len, nvml ? c.sc->nvml_version : c.sc->driver_version);
    return fake_end(&c, r);
}

gwn_return nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    return system_string(FC_nvmlSystemGetDriverVersion, version, length, false);
}

gwn_return nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    return system_string(FC_nvmlSystemGetNVMLVersion, version, length, true);
}

static gwn_return cuda_version(fake_call_id id, int *version)
{
    fake_call c;
    gwn_return r = fake_begin(&c, id);
    if (r)
        return r;
    if (!version)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *version = c.sc->cuda_driver_version;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    return cuda_version(FC_nvmlSystemGetCudaDriverVersion_v2, version);
}

gwn_return nvmlSystemGetCudaDriverVersion(int *version)
{
    return cuda_version(FC_nvmlSystemGetCudaDriverVersion, version);
}

static gwn_return device_count(fake_call_id id, unsigned int *count)
{
    fake_call c;
    gwn_return r = fake_begin(&c, id);
    if (r)
        return r;
    if (!count)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *count = (unsigned int)c.sc->ndevices;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetCount_v2(unsigned int *count)
{
    return device_count(FC_nvmlDeviceGetCount_v2, count);
}

gwn_return nvmlDeviceGetCount(unsigned int *count)
{
    return device_count(FC_nvmlDeviceGetCount, count);
}

static gwn_return handle_by_index(fake_call_id id, unsigned int index, gwn_device *device)
{
    fake_call c;
    gwn_return r = fake_begin(&c, id);
    if (r)
        return r;
    if (!device || index >= c.sc->ndevices)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    /* A GPU that fell off the bus cannot even be opened. */
    if (c.t >= c.sc->devices[index].lost_after_s)
        return fake_end(&c, GWN_ERROR_GPU_IS_LOST);
    *device = fake_handle(index, -1);
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetHandleByIndex_v2(unsigned int index, gwn_device *device)
{
    return handle_by_index(FC_nvmlDeviceGetHandleByIndex_v2, index, device);
}

gwn_return nvmlDeviceGetHandleByIndex(unsigned int index, gwn_device *device)
{
    return handle_by_index(FC_nvmlDeviceGetHandleByIndex, index, device);
}

gwn_return nvmlDeviceGetName(gwn_device device, char *name, unsigned int length)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetName, device, FG_INFO);
    if (r)
        return r;
    const char *s = c.mig >= 0 ? c.dev->mig[c.mig].name : c.dev->name;
    return fake_end(&c, fake_copy_string(name, length, s));
}

gwn_return nvmlDeviceGetUUID(gwn_device device, char *uuid, unsigned int length)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetUUID, device, FG_INFO);
    if (r)
        return r;
    const char *s = c.mig >= 0 ? c.dev->mig[c.mig].uuid : c.dev->uuid;
    return fake_end(&c, fake_copy_string(uuid, length, s));
}

gwn_return nvmlDeviceGetIndex(gwn_device device, unsigned int *index)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetIndex, device, FG_INFO);
    if (r)
        return r;
    if (!index)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    if (c.mig >= 0) /* MIG instances have no NVML index of their own */
        return fake_end(&c, GWN_ERROR_NOT_SUPPORTED);
    *index = c.index;
    return fake_end(&c, GWN_SUCCESS);
}

/* nvmlPciInfo_t before _v2 had the same fields up to pciSubSystemId, then reserved bytes where
 * busId now starts. The unversioned call of driver 580 writes only up to pciDeviceId (measured on
 * an H200): callers must not rely on more. */
#define PCI_INFO_V1_SIZE offsetof(gwn_pci_info, pciSubSystemId)

static gwn_return pci_info(fake_call_id id, gwn_device device, gwn_pci_info *pci, bool v1)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, id, device, FG_INFO);
    if (r)
        return r;
    if (!pci)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    const fake_device *d = c.dev;
    gwn_pci_info info = {.domain = d->pci_domain,
                         .bus = d->pci_bus,
                         .device = d->pci_device,
                         .pciDeviceId = PCI_DEVICE_ID,
                         .pciSubSystemId = PCI_SUBSYSTEM_ID};
    snprintf(info.busIdLegacy, sizeof info.busIdLegacy, "%04X:%02X:%02X.0", d->pci_domain & 0xffffu,
             d->pci_bus, d->pci_device);
    if (!v1)
        snprintf(info.busId, sizeof info.busId, "%08X:%02X:%02X.0", d->pci_domain, d->pci_bus,
                 d->pci_device);
    memcpy(pci, &info, v1 ? PCI_INFO_V1_SIZE : sizeof info);
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetPciInfo_v3(gwn_device device, gwn_pci_info *pci)
{
    return pci_info(FC_nvmlDeviceGetPciInfo_v3, device, pci, false);
}

gwn_return nvmlDeviceGetPciInfo_v2(gwn_device device, gwn_pci_info *pci)
{
    return pci_info(FC_nvmlDeviceGetPciInfo_v2, device, pci, false);
}

gwn_return nvmlDeviceGetPciInfo(gwn_device device, gwn_pci_info *pci)
{
    return pci_info(FC_nvmlDeviceGetPciInfo, device, pci, true);
}

gwn_return nvmlDeviceGetMigMode(gwn_device device, unsigned int *current, unsigned int *pending)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetMigMode, device, FG_MIG);
    if (r)
        return r;
    if (!current || !pending)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *current = *pending = c.dev->mig_enabled ? GWN_FEATURE_ENABLED : GWN_FEATURE_DISABLED;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetMaxMigDeviceCount(gwn_device device, unsigned int *count)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetMaxMigDeviceCount, device, FG_MIG);
    if (r)
        return r;
    if (!count)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *count = c.dev->mig_enabled ? c.dev->mig_max_count : 0;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetMigDeviceHandleByIndex(gwn_device device, unsigned int index,
                                               gwn_device *mig_device)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetMigDeviceHandleByIndex, device, FG_MIG);
    if (r)
        return r;
    if (!mig_device)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    /* A slot without an instance, or MIG off: NOT_FOUND (what the H200 answers with MIG off, for
     * index 0 as for 7). Callers must skip such slots. */
    if (!c.dev->mig_enabled || index >= c.dev->nmig)
        return fake_end(&c, GWN_ERROR_NOT_FOUND);
    *mig_device = fake_handle(c.index, (int)index);
    return fake_end(&c, GWN_SUCCESS);
}

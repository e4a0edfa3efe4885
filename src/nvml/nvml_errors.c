/* NVML return codes as names and as advice; see nvml_lib.h. */
#include "nvml_lib.h"

#include <stdio.h>

const char *gw_nvml_return_name(gwn_return r)
{
    switch (r) {
    case GWN_SUCCESS:
        return "SUCCESS";
    case GWN_ERROR_UNINITIALIZED:
        return "UNINITIALIZED";
    case GWN_ERROR_INVALID_ARGUMENT:
        return "INVALID_ARGUMENT";
    case GWN_ERROR_NOT_SUPPORTED:
        return "NOT_SUPPORTED";
    case GWN_ERROR_NO_PERMISSION:
        return "NO_PERMISSION";
    case GWN_ERROR_ALREADY_INITIALIZED:
        return "ALREADY_INITIALIZED";
    case GWN_ERROR_NOT_FOUND:
        return "NOT_FOUND";
    case GWN_ERROR_INSUFFICIENT_SIZE:
        return "INSUFFICIENT_SIZE";
    case GWN_ERROR_INSUFFICIENT_POWER:
        return "INSUFFICIENT_POWER";
    case GWN_ERROR_DRIVER_NOT_LOADED:
        return "DRIVER_NOT_LOADED";
    case GWN_ERROR_TIMEOUT:
        return "TIMEOUT";
    case GWN_ERROR_IRQ_ISSUE:
        return "IRQ_ISSUE";
    case GWN_ERROR_LIBRARY_NOT_FOUND:
        return "LIBRARY_NOT_FOUND";
    case GWN_ERROR_FUNCTION_NOT_FOUND:
        return "FUNCTION_NOT_FOUND";
    case GWN_ERROR_CORRUPTED_INFOROM:
        return "CORRUPTED_INFOROM";
    case GWN_ERROR_GPU_IS_LOST:
        return "GPU_IS_LOST";
    case GWN_ERROR_RESET_REQUIRED:
        return "RESET_REQUIRED";
    case GWN_ERROR_OPERATING_SYSTEM:
        return "OPERATING_SYSTEM";
    case GWN_ERROR_LIB_RM_VERSION_MISMATCH:
        return "LIB_RM_VERSION_MISMATCH";
    case GWN_ERROR_IN_USE:
        return "IN_USE";
    case GWN_ERROR_MEMORY:
        return "MEMORY";
    case GWN_ERROR_NO_DATA:
        return "NO_DATA";
    case GWN_ERROR_VGPU_ECC_NOT_SUPPORTED:
        return "VGPU_ECC_NOT_SUPPORTED";
    case GWN_ERROR_INSUFFICIENT_RESOURCES:
        return "INSUFFICIENT_RESOURCES";
    case GWN_ERROR_FREQ_NOT_SUPPORTED:
        return "FREQ_NOT_SUPPORTED";
    case GWN_ERROR_ARGUMENT_VERSION_MISMATCH:
        return "ARGUMENT_VERSION_MISMATCH";
    case GWN_ERROR_DEPRECATED:
        return "DEPRECATED";
    case GWN_ERROR_NOT_READY:
        return "NOT_READY";
    case GWN_ERROR_GPU_NOT_FOUND:
        return "GPU_NOT_FOUND";
    case GWN_ERROR_INVALID_STATE:
        return "INVALID_STATE";
    case GWN_ERROR_UNKNOWN:
        return "UNKNOWN";
    }
    return "UNKNOWN";
}

/* What to do about an error, in a few words; NULL when there is nothing better than the name. */
static const char *advice(gwn_return r)
{
    switch (r) {
    case GWN_ERROR_DRIVER_NOT_LOADED:
        return "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia` and `dmesg`, "
               "install or load the driver; in a container, start it with --gpus all (or the "
               "NVIDIA container runtime)";
    case GWN_ERROR_LIB_RM_VERSION_MISMATCH:
        return "the NVIDIA driver library and kernel module have different versions, usually "
               "after a driver upgrade without a reboot: reboot, or unload and reload the nvidia "
               "kernel modules";
    case GWN_ERROR_NO_PERMISSION:
        return "no permission to open the GPU device files (/dev/nvidia*): run as a user in the "
               "group that owns them, or pass the devices into the container";
    case GWN_ERROR_LIBRARY_NOT_FOUND:
        return "NVML could not find a library it needs: reinstall the NVIDIA driver";
    case GWN_ERROR_GPU_IS_LOST:
        return "the GPU fell off the bus: check `dmesg` for Xid 79; the GPU needs a reset "
               "(nvidia-smi -r) or the node a reboot";
    case GWN_ERROR_INSUFFICIENT_POWER:
        return "a GPU's power cables are not connected properly: check the auxiliary power";
    case GWN_ERROR_IRQ_ISSUE:
        return "the kernel detected an interrupt problem with the GPU: check `dmesg`";
    case GWN_ERROR_RESET_REQUIRED:
        return "the GPU needs a reset: run `nvidia-smi -r` or reboot";
    case GWN_ERROR_CORRUPTED_INFOROM:
        return "the GPU's infoROM is corrupted: contact the hardware vendor";
    case GWN_ERROR_UNINITIALIZED:
        return "NVML was not initialised (a gpuwatch bug: please report it)";
    default:
        return NULL;
    }
}

void gw_nvml_init_message(gwn_return r, const char *lib, gw_error *err)
{
    const char *a = advice(r);
    if (a)
        gw_error_set(err, GW_E_NVML, "NVML initialisation failed (%s): %s", gw_nvml_return_name(r),
                     a);
    else
        gw_error_set(err, GW_E_NVML,
                     "NVML initialisation failed (%s, error %d) with %s: check that the NVIDIA "
                     "driver works with `nvidia-smi`",
                     gw_nvml_return_name(r), r, lib);
}

void gw_nvml_call_message(unsigned gpu, const char *call, gwn_return r, gw_error *err)
{
    const char *a = advice(r);
    if (a)
        gw_error_set(err, GW_E_NVML, "GPU %u: %s: %s (%s)", gpu, call, gw_nvml_return_name(r), a);
    else
        gw_error_set(err, GW_E_NVML, "GPU %u: %s: %s", gpu, call, gw_nvml_return_name(r));
}

bool gw_nvml_is_unsupported(gwn_return r)
{
    return r == GWN_ERROR_NOT_SUPPORTED || r == GWN_ERROR_FUNCTION_NOT_FOUND ||
           r == GWN_ERROR_NO_PERMISSION || r == GWN_ERROR_ARGUMENT_VERSION_MISMATCH ||
           r == GWN_ERROR_INVALID_ARGUMENT;
}

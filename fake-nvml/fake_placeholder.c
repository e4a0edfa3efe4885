/* Placeholder until the fake NVML library lands. */
#include "nvml/nvml_abi.h"
__attribute__((visibility("default"))) gwn_return nvmlInit_v2(void);
gwn_return nvmlInit_v2(void)
{
    return GWN_ERROR_DRIVER_NOT_LOADED;
}

/*
 * Tests of the fake NVML library's static device properties: identity, PCI info and handles,
 * memory, clocks, power limits, temperature thresholds, ECC, pages, rows, PCIe, versions and
 * error strings. Values are read with the scenario clock frozen (FAKE_NVML_TIME_SCALE=0).
 */
#include "fake_nvml_test.h"

static const char identity_json[] =
    "{'devices': [{'name': 'NVIDIA H200', 'uuid': 'GPU-11111111-2222-3333-4444-555555555555',"
    "  'pci_bus_id': '00000000:00:06.0', 'memory_reserved_mib': 500,"
    "  'timeline': [{'t': 0, 'mem_used_mib': 600}]},"
    " {'name': 'Second GPU', 'pci_bus_id': '0001:8A:1F.0'}]}";

static void test_identity_pci_and_handles(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, identity_json, "0", "1");
    const gw_nvml *n = f.n;
    unsigned int count = 0, index = 9;
    assert_int_equal(n->DeviceGetCount(&count), GWN_SUCCESS);
    assert_int_equal(count, 2);
    gwn_device h = NULL;
    assert_int_equal(n->DeviceGetHandleByIndex(2, &h), GWN_ERROR_INVALID_ARGUMENT);
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1);
    char buf[96];
    assert_int_equal(n->DeviceGetName(h0, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "NVIDIA H200");
    assert_int_equal(n->DeviceGetName(h1, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "Second GPU");
    assert_int_equal(n->DeviceGetName(h1, buf, 10), GWN_ERROR_INSUFFICIENT_SIZE); /* 11 needed */
    assert_int_equal(n->DeviceGetUUID(h0, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "GPU-11111111-2222-3333-4444-555555555555");
    assert_int_equal(n->DeviceGetUUID(h1, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "GPU-fa4e0000-0000-0000-0000-000000000001"); /* the default */
    assert_int_equal(n->DeviceGetIndex(h1, &index), GWN_SUCCESS);
    assert_int_equal(index, 1);

    gwn_pci_info pci;
    assert_int_equal(n->DeviceGetPciInfo(h0, &pci), GWN_SUCCESS); /* bound to _v3 */
    assert_string_equal(pci.busId, "00000000:00:06.0");
    assert_string_equal(pci.busIdLegacy, "0000:00:06.0");
    assert_int_equal(pci.domain, 0);
    assert_int_equal(pci.bus, 0);
    assert_int_equal(pci.device, 6);
    assert_int_equal(pci.pciDeviceId, 0x233510DE);
    assert_int_equal(pci.pciSubSystemId, 0x18BF10DE);
    assert_int_equal(n->DeviceGetPciInfo(h1, &pci), GWN_SUCCESS);
    assert_string_equal(pci.busId, "00000001:8A:1F.0");
    assert_int_equal(pci.bus, 0x8a);
    assert_int_equal(pci.device, 0x1f);
    /* The unversioned call writes the old struct's fields up to pciDeviceId (32 bytes), as driver
     * 580 does, and nothing past them. */
    gwn_return (*pci_v1)(gwn_device, gwn_pci_info *) =
        (gwn_return(*)(gwn_device, gwn_pci_info *))fake_sym(&f, "nvmlDeviceGetPciInfo");
    unsigned char raw[sizeof(gwn_pci_info)];
    memset(raw, 0xCD, sizeof raw);
    assert_int_equal(pci_v1(h0, (gwn_pci_info *)(void *)raw), GWN_SUCCESS);
    assert_string_equal((const char *)raw, "0000:00:06.0");
    gwn_pci_info old;
    memcpy(&old, raw, sizeof old);
    assert_int_equal(old.device, 6);
    assert_int_equal(old.pciDeviceId, 0x233510DE);
    for (size_t i = offsetof(gwn_pci_info, pciSubSystemId); i < sizeof raw; i++) {
        if (raw[i] != 0xCD)
            fail_msg("byte %zu past the old nvmlPciInfo_t's pciDeviceId was written", i);
    }
    /* Handles that NVML never gave out are rejected, not dereferenced. */
    unsigned int temp;
    assert_int_equal(n->DeviceGetTemperature(NULL, 0, &temp), GWN_ERROR_INVALID_ARGUMENT);
    assert_int_equal(n->DeviceGetTemperature((gwn_device)&count, 0, &temp),
                     GWN_ERROR_INVALID_ARGUMENT);
    fake_close(&f);
}

static void test_memory_info_v1_counts_reserved_as_used(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, identity_json, "0", "0");
    gwn_device h = gpu_handle(&f, 0);
    gwn_memory_v2 m2 = {.version = GWN_MEMORY_V2_VERSION};
    assert_int_equal(f.n->DeviceGetMemoryInfo_v2(h, &m2), GWN_SUCCESS);
    assert_int_equal(m2.version, GWN_MEMORY_V2_VERSION);
    assert_int_equal(m2.total, 143771 * MIB);
    assert_int_equal(m2.reserved, 500 * MIB);
    assert_int_equal(m2.used, 600 * MIB);
    assert_int_equal(m2.free, (143771 - 600 - 500) * MIB);
    gwn_memory m;
    assert_int_equal(f.n->DeviceGetMemoryInfo(h, &m), GWN_SUCCESS);
    assert_int_equal(m.total, 143771 * MIB);
    assert_int_equal(m.used, 1100 * MIB);
    assert_int_equal(m.free, (143771 - 1100) * MIB);
    m2.version = 1;
    assert_int_equal(f.n->DeviceGetMemoryInfo_v2(h, &m2), GWN_ERROR_ARGUMENT_VERSION_MISMATCH);
    fake_close(&f);
}

static void test_clocks_limits_and_thresholds(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(
        &f,
        "{'devices': [{'power_limit_w': 650.5, 'slowdown_temp_c': 87, 'max_sm_clock_mhz': 1755,"
        "  'timeline': [{'t': 0, 'sm_clock_mhz': 1500}]},"
        " {'shutdown_temp_c': 97, 'gpu_max_temp_c': 85, 'mem_max_temp_c': 105,"
        "  'max_mem_clock_mhz': 2619,"
        "  'timeline': [{'t': 0, 'sm_clock_mhz': 1000, 'gr_clock_mhz': 990, 'mem_clock_mhz': "
        "1593}]}]}",
        "0", "0");
    const gw_nvml *n = f.n;
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1);
    unsigned int v;
    assert_int_equal(n->DeviceGetPowerManagementLimit(h0, &v), GWN_SUCCESS);
    assert_int_equal(v, 650500);
    assert_int_equal(n->DeviceGetEnforcedPowerLimit(h1, &v), GWN_SUCCESS);
    assert_int_equal(v, 700000); /* the H200 default */
    assert_int_equal(n->DeviceGetTemperatureThreshold(h0, GWN_TEMPERATURE_THRESHOLD_SLOWDOWN, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 87);
    assert_int_equal(n->DeviceGetTemperatureThreshold(h0, GWN_TEMPERATURE_THRESHOLD_SHUTDOWN, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 93); /* slowdown + 6, as on the H200 (89 / 95) */
    assert_int_equal(n->DeviceGetTemperatureThreshold(h0, GWN_TEMPERATURE_THRESHOLD_GPU_MAX, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 87);
    assert_int_equal(n->DeviceGetTemperatureThreshold(h0, GWN_TEMPERATURE_THRESHOLD_MEM_MAX, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 95);
    assert_int_equal(n->DeviceGetTemperatureThreshold(h1, GWN_TEMPERATURE_THRESHOLD_SHUTDOWN, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 97);
    assert_int_equal(n->DeviceGetTemperatureThreshold(h1, GWN_TEMPERATURE_THRESHOLD_GPU_MAX, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 85);
    assert_int_equal(n->DeviceGetTemperatureThreshold(h1, GWN_TEMPERATURE_THRESHOLD_MEM_MAX, &v),
                     GWN_SUCCESS);
    assert_int_equal(v, 105);
    assert_int_equal(n->DeviceGetTemperatureThreshold(h1, 7, &v), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetTemperature(h0, 1, &v), GWN_ERROR_INVALID_ARGUMENT);
    assert_int_equal(n->DeviceGetClockInfo(h0, GWN_CLOCK_GRAPHICS, &v), GWN_SUCCESS);
    assert_int_equal(v, 1500); /* follows the SM clock */
    assert_int_equal(n->DeviceGetClockInfo(h0, GWN_CLOCK_MEM, &v), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetClockInfo(h1, GWN_CLOCK_GRAPHICS, &v), GWN_SUCCESS);
    assert_int_equal(v, 990);
    assert_int_equal(n->DeviceGetClockInfo(h1, GWN_CLOCK_MEM, &v), GWN_SUCCESS);
    assert_int_equal(v, 1593);
    assert_int_equal(n->DeviceGetClockInfo(h1, GWN_CLOCK_VIDEO, &v), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetClockInfo(h1, 7, &v), GWN_ERROR_INVALID_ARGUMENT);
    assert_int_equal(n->DeviceGetMaxClockInfo(h0, GWN_CLOCK_SM, &v), GWN_SUCCESS);
    assert_int_equal(v, 1755);
    assert_int_equal(n->DeviceGetMaxClockInfo(h0, GWN_CLOCK_MEM, &v), GWN_SUCCESS);
    assert_int_equal(v, 3201);
    assert_int_equal(n->DeviceGetMaxClockInfo(h1, GWN_CLOCK_MEM, &v), GWN_SUCCESS);
    assert_int_equal(v, 2619);
    assert_int_equal(n->DeviceGetMaxClockInfo(h1, GWN_CLOCK_SM, &v), GWN_SUCCESS);
    assert_int_equal(v, 1980);
    assert_int_equal(n->DeviceGetPowerUsage(h0, NULL), GWN_ERROR_INVALID_ARGUMENT);
    fake_close(&f);
}

static void test_ecc_pages_rows_fan_and_pcie(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f,
                 "{'devices': [{'pcie_link_gen': 4, 'pcie_link_gen_max': 5, 'pcie_link_width': 8,"
                 "  'pcie_link_width_max': 16, 'retired_pages_pending': true,"
                 "  'remapped_rows_pending': true, 'timeline': [{'t': 0, 'fan_pct': 41.6}]},"
                 " {'unsupported': ['remapped_rows']}]}",
                 "0", "0");
    const gw_nvml *n = f.n;
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1);
    unsigned int v, unc = 9, pending = 9, failure = 9;
    assert_int_equal(n->DeviceGetCurrPcieLinkGeneration(h0, &v), GWN_SUCCESS);
    assert_int_equal(v, 4);
    assert_int_equal(n->DeviceGetMaxPcieLinkGeneration(h0, &v), GWN_SUCCESS);
    assert_int_equal(v, 5);
    assert_int_equal(n->DeviceGetCurrPcieLinkWidth(h0, &v), GWN_SUCCESS);
    assert_int_equal(v, 8);
    assert_int_equal(n->DeviceGetMaxPcieLinkWidth(h0, &v), GWN_SUCCESS);
    assert_int_equal(v, 16);
    assert_int_equal(n->DeviceGetCurrPcieLinkWidth(h1, &v), GWN_SUCCESS);
    assert_int_equal(v, 16); /* H200 defaults: gen 5 x16 */
    assert_int_equal(n->DeviceGetFanSpeed(h0, &v), GWN_SUCCESS);
    assert_int_equal(v, 42);
    unsigned long long ecc = 9;
    assert_int_equal(
        n->DeviceGetTotalEccErrors(h0, GWN_MEMORY_ERROR_TYPE_CORRECTED, GWN_AGGREGATE_ECC, &ecc),
        GWN_SUCCESS);
    assert_int_equal(ecc, 0);
    assert_int_equal(n->DeviceGetTotalEccErrors(h0, 5, GWN_VOLATILE_ECC, &ecc),
                     GWN_ERROR_INVALID_ARGUMENT);
    int retired = 0;
    assert_int_equal(n->DeviceGetRetiredPagesPendingStatus(h0, &retired), GWN_SUCCESS);
    assert_int_equal(retired, GWN_FEATURE_ENABLED);
    /* Without the key: NOT_SUPPORTED, as on Hopper, which remaps rows instead. */
    assert_int_equal(n->DeviceGetRetiredPagesPendingStatus(h1, &retired), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetRemappedRows(h0, &v, &unc, &pending, &failure), GWN_SUCCESS);
    assert_int_equal(pending, 1);
    assert_int_equal(unc + failure + v, 0);
    assert_int_equal(n->DeviceGetRemappedRows(h1, &v, &unc, &pending, &failure),
                     GWN_ERROR_NOT_SUPPORTED);
    fake_close(&f);
}

static void test_versions_and_error_strings(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, "{'devices': []}");
    const gw_nvml *n = f.n;
    char buf[80];
    int cuda = 0;
    assert_int_equal(n->SystemGetDriverVersion(buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "580.159.04");
    assert_int_equal(n->SystemGetNVMLVersion(buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "12.580.159.04");
    assert_int_equal(n->SystemGetDriverVersion(buf, 10), GWN_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n->SystemGetCudaDriverVersion(&cuda), GWN_SUCCESS); /* bound to _v2 */
    assert_int_equal(cuda, 13000);
    assert_string_equal(n->ErrorString(GWN_ERROR_GPU_IS_LOST), "GPU is lost");
    assert_string_equal(n->ErrorString(GWN_ERROR_NOT_SUPPORTED), "Not Supported");
    assert_string_equal(n->ErrorString(GWN_ERROR_LIB_RM_VERSION_MISMATCH),
                        "Driver/library version mismatch");
    assert_string_equal(n->ErrorString(12345), "Unknown Error");
    for (gwn_return r = GWN_SUCCESS; r <= GWN_ERROR_INVALID_STATE; r++)
        assert_true(strlen(n->ErrorString(r)) > 0);
    fake_close(&f);

    fake_open(&f, "{'driver_version': '550.54.15', 'cuda_driver_version': 12040, 'devices': []}");
    assert_int_equal(f.n->SystemGetNVMLVersion(buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "12.550.54.15");
    int (*cuda_v1)(int *) = (int (*)(int *))fake_sym(&f, "nvmlSystemGetCudaDriverVersion");
    assert_int_equal(cuda_v1(&cuda), GWN_SUCCESS);
    assert_int_equal(cuda, 12040);
    fake_close(&f);
}

/* The count of `name` in the stats file at path. */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_identity_pci_and_handles, fake_teardown),
        cmocka_unit_test_teardown(test_memory_info_v1_counts_reserved_as_used, fake_teardown),
        cmocka_unit_test_teardown(test_clocks_limits_and_thresholds, fake_teardown),
        cmocka_unit_test_teardown(test_ecc_pages_rows_fan_and_pcie, fake_teardown),
        cmocka_unit_test_teardown(test_versions_and_error_strings, fake_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Tests of the fake NVML library: loading, nvmlInit and scenario errors, timeline values,
 * unsupported and lost GPUs, static device properties, the stats file. Processes, energy, fields,
 * GPM, MIG, events and latency are in test_fake_nvml_reads.c.
 */
#include "fake_nvml_test.h"

/* The exported-function list and the timeline maths come straight from the library's sources:
 * the list to check it against the exports, the maths to check integrals exactly. */
#include "../../fake-nvml/stats.h"
#include "../../fake-nvml/timeline.c"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>

/* One H200 whose values move linearly over 10 s, and a second GPU that differs. */
static const char two_gpus[] =
    "{'devices': [{'name': 'NVIDIA H200', 'uuid': 'GPU-11111111-2222-3333-4444-555555555555',"
    "  'pci_bus_id': '00000000:00:06.0', 'memory_total_mib': 143771, 'memory_reserved_mib': 500,"
    "  'timeline': ["
    "   {'t': 0, 'util_gpu': 0, 'util_mem': 0, 'mem_used_mib': 600, 'temp_c': 30, 'power_w': 100,"
    "    'sm_clock_mhz': 345, 'clocks_event_reasons': 1, 'pstate': 8, 'ecc_uncorrected': 0},"
    "   {'t': 10, 'util_gpu': 100, 'util_mem': 50, 'mem_used_mib': 1600, 'temp_c': 70,"
    "    'power_w': 200, 'sm_clock_mhz': 1980, 'clocks_event_reasons': 96, 'pstate': 0,"
    "    'ecc_uncorrected': 2}]},"
    " {'name': 'Second GPU', 'pci_bus_id': '0001:8A:1F.0', 'lost_after_s': 5,"
    "  'timeline': [{'t': 0, 'util_gpu': 7, 'util_mem': 3, 'mem_used_mib': 10, 'temp_c': 40,"
    "   'power_w': 60, 'sm_clock_mhz': 1000, 'mem_clock_mhz': 2619, 'fan_pct': 30,"
    "   'clocks_event_reasons': 0, 'pstate': 0}]}]}";

static void test_exports_every_symbol_the_loader_binds(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, two_gpus);
    assert_int_equal(f.init, GWN_SUCCESS);
    /* Every pointer gw_nvml_load fills, required and optional, is bound... */
    void *fns[sizeof *f.n / sizeof(void *)];
    size_t first = offsetof(gw_nvml, Init), count = (sizeof *f.n - first) / sizeof(void *);
    memcpy(fns, (const char *)f.n + first, count * sizeof(void *));
    for (size_t i = 0; i < count; i++)
        assert_non_null(fns[i]);
    /* ...to the newest variants... */
    assert_int_equal(f.n->pci_info_abi, 3);
    assert_int_equal(f.n->processes_abi, 3);
    /* ...and every variant the fake counts is exported, older ones included. */
#define CHECK_EXPORT(name, ...) fake_sym(&f, #name);
    FAKE_CALLS(CHECK_EXPORT)
#undef CHECK_EXPORT
    fake_close(&f);
}

static void test_calls_before_init_are_uninitialized(void **state)
{
    (void)state;
    gw_nvml *n = NULL;
    gw_error err;
    unsetenv("FAKE_NVML_SCENARIO");
    assert_int_equal(gw_nvml_load(fake_lib_path(), &n, &err), GW_OK);
    unsigned int count = 0, mw = 0;
    gwn_device h = NULL;
    assert_int_equal(n->DeviceGetCount(&count), GWN_ERROR_UNINITIALIZED);
    assert_int_equal(n->DeviceGetHandleByIndex(0, &h), GWN_ERROR_UNINITIALIZED);
    assert_int_equal(n->DeviceGetPowerUsage(h, &mw), GWN_ERROR_UNINITIALIZED);
    assert_int_equal(n->Shutdown(), GWN_ERROR_UNINITIALIZED);
    gw_nvml_close(n);
}

static void test_init_is_reference_counted_and_rereads_the_scenario(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, "{'devices': [{}]}");
    assert_int_equal(f.init, GWN_SUCCESS);
    unsigned int count = 0;
    assert_int_equal(f.n->Init(), GWN_SUCCESS); /* a second reference */
    assert_int_equal(f.n->Shutdown(), GWN_SUCCESS);
    assert_int_equal(f.n->DeviceGetCount(&count), GWN_SUCCESS); /* still one reference */
    assert_int_equal(count, 1);
    assert_int_equal(f.n->Shutdown(), GWN_SUCCESS);
    assert_int_equal(f.n->DeviceGetCount(&count), GWN_ERROR_UNINITIALIZED);
    assert_int_equal(f.n->Shutdown(), GWN_ERROR_UNINITIALIZED);
    /* A new init reads the file again. */
    rewrite_scenario(f.path, "{'devices': [{}, {}, {}]}");
    assert_int_equal(f.n->Init(), GWN_SUCCESS);
    assert_int_equal(f.n->DeviceGetCount(&count), GWN_SUCCESS);
    assert_int_equal(count, 3);
    fake_close(&f);
}

static void test_init_error_gives_that_code(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        gwn_return code;
    } cases[] = {{"DRIVER_NOT_LOADED", GWN_ERROR_DRIVER_NOT_LOADED},
                 {"LIB_RM_VERSION_MISMATCH", GWN_ERROR_LIB_RM_VERSION_MISMATCH},
                 {"NO_PERMISSION", GWN_ERROR_NO_PERMISSION},
                 {"LIBRARY_NOT_FOUND", GWN_ERROR_LIBRARY_NOT_FOUND},
                 {"NVML_ERROR_INSUFFICIENT_POWER", GWN_ERROR_INSUFFICIENT_POWER},
                 {"UNKNOWN", GWN_ERROR_UNKNOWN}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[128];
        snprintf(json, sizeof json, "{'init_error': '%s', 'devices': [{}]}", cases[i].name);
        fake_lib f;
        fake_open(&f, json);
        assert_int_equal(f.init, cases[i].code);
        unsigned int count;
        assert_int_equal(f.n->DeviceGetCount(&count), GWN_ERROR_UNINITIALIZED);
        fake_close(&f);
    }
    fake_lib f;
    fake_open(&f, "{'init_error': null, 'devices': []}");
    assert_int_equal(f.init, GWN_SUCCESS);
    fake_close(&f);
}

/* nvmlInit with json fails with UNKNOWN and prints one line holding every fragment. */
static void expect_scenario_error(const char *json, const char *frag1, const char *frag2)
{
    stderr_capture cap;
    char out[2048];
    fake_lib f;
    capture_begin(&cap);
    fake_open(&f, json);
    capture_end(&cap, out, sizeof out);
    if (f.init != GWN_ERROR_UNKNOWN)
        fail_msg("nvmlInit returned %d for %s", f.init, json);
    assert_one_line(out, f.path, frag1, frag2);
    fake_close(&f);
}

static void test_scenario_errors_name_the_key_and_the_fix(void **state)
{
    (void)state;
    expect_scenario_error(
        "{'devices': [{'timeline': [{'t': 0}, {'t': 1}, {'t': 2, 'tmep_c': 3}]}]}",
        "unknown key devices[0].timeline[2].tmep_c", "did you mean \"temp_c\"");
    expect_scenario_error("{'devcies': []}", "unknown key devcies", "did you mean \"devices\"");
    expect_scenario_error(
        "{'devices': [{}, {'processes': [{'pid': 1, 'used_mib': 1, 'xyzzy': 0}]}]}",
        "unknown key devices[1].processes[0].xyzzy", "keys allowed here are pid");
    expect_scenario_error("{'devices': [{'memory_total_mib': 'big'}]}",
                          "devices[0].memory_total_mib must be a number", "not a string");
    expect_scenario_error("{'devices': [{'timeline': [{'t': 0, 'pstate': 1.5}]}]}",
                          "devices[0].timeline[0].pstate must be an integer", "1.5");
    expect_scenario_error("{'devices': [{'timeline': [{'t': 0, 'util_gpu': -1}]}]}",
                          "devices[0].timeline[0].util_gpu must be a number from 0", "-1");
    expect_scenario_error("{'devices': [{'timeline': [{'t': 5}, {'t': 2}]}]}",
                          "devices[0].timeline[1].t is 2, before the previous point's 5",
                          "time order");
    expect_scenario_error("{'devices': [{'timeline': [{'util_gpu': 5}]}]}",
                          "devices[0].timeline[0].t is missing", "needs it");
    expect_scenario_error("{'devices': [{'pci_bus_id': '6.0'}]}", "devices[0].pci_bus_id",
                          "00000000:00:06.0");
    expect_scenario_error("{'init_error': 'DRIVER_GONE'}", "init_error \"DRIVER_GONE\"",
                          "DRIVER_NOT_LOADED");
    expect_scenario_error("{'devices': [{'processes': [{'pid': 'parent', 'used_mib': 1}]}]}",
                          "devices[0].processes[0].pid", "\"child\"");
    expect_scenario_error("{'devices': [{'processes': [{'pid': 1}]}]}",
                          "devices[0].processes[0].used_mib is missing", "null");
    expect_scenario_error("{'devices': [{'unsupported': ['power', 'warp']}]}",
                          "devices[0].unsupported[1]", "power_limit");
    expect_scenario_error("{'devices': [{'name': 'a', 'name': 'b'}]}",
                          "devices[0].name appears twice", "keep one");
    expect_scenario_error("{'devices': [{'uuid': 'GPU-1'}, {'uuid': 'GPU-1'}]}",
                          "devices[1].uuid \"GPU-1\"", "its own uuid");
    expect_scenario_error("{'devices': [{'events': [{'t': 1, 'type': 'fire'}]}]}",
                          "devices[0].events[0].type", "xid");
    expect_scenario_error("{'devices': [{'latency_ms': {'slow': 5}}]}",
                          "unknown key devices[0].latency_ms.slow", "processes");
    expect_scenario_error("{'devices': [\n  {'name': 'x',}\n]}", ":2:", "invalid JSON");
    expect_scenario_error("[1, 2]", "the document must be an object", "not an array");
}

static void test_missing_file_unset_variable_and_bad_time_variables(void **state)
{
    (void)state;
    stderr_capture cap;
    char out[2048];
    gw_nvml *n = NULL;
    gw_error err;
    assert_int_equal(gw_nvml_load(fake_lib_path(), &n, &err), GW_OK);

    setenv("FAKE_NVML_SCENARIO", "/nonexistent/gw-scenario.json", 1);
    capture_begin(&cap);
    assert_int_equal(n->Init(), GWN_ERROR_UNKNOWN);
    capture_end(&cap, out, sizeof out);
    assert_one_line(out, "/nonexistent/gw-scenario.json", "No such file",
                    "set FAKE_NVML_SCENARIO to an existing JSON file");

    unsetenv("FAKE_NVML_SCENARIO");
    capture_begin(&cap);
    assert_int_equal(n->Init(), GWN_ERROR_UNKNOWN);
    capture_end(&cap, out, sizeof out);
    assert_one_line(out, "FAKE_NVML_SCENARIO is not set", "GPUWATCH_NVML_LIB", NULL);

    char path[64];
    write_scenario(path, "{'devices': []}");
    setenv("FAKE_NVML_SCENARIO", path, 1);
    setenv("FAKE_NVML_TIME_SCALE", "fast", 1);
    capture_begin(&cap);
    assert_int_equal(n->Init(), GWN_ERROR_UNKNOWN);
    capture_end(&cap, out, sizeof out);
    assert_one_line(out, "FAKE_NVML_TIME_SCALE=fast", "e.g. 10", NULL);
    setenv("FAKE_NVML_TIME_SCALE", "1", 1);
    setenv("FAKE_NVML_TIME_OFFSET", "-3", 1);
    capture_begin(&cap);
    assert_int_equal(n->Init(), GWN_ERROR_UNKNOWN);
    capture_end(&cap, out, sizeof out);
    assert_one_line(out, "FAKE_NVML_TIME_OFFSET=-3", NULL, NULL);
    unsetenv("FAKE_NVML_TIME_SCALE");
    unsetenv("FAKE_NVML_TIME_OFFSET");
    remove(path);
    gw_nvml_close(n);
}

/* Reads the timeline-driven values of device index at the pinned time. */
typedef struct values {
    gwn_utilization util;
    gwn_memory_v2 mem;
    unsigned int temp, power_mw, sm_mhz;
    unsigned long long reasons, ecc;
    int pstate;
} values;

static values read_values(const fake_lib *f, unsigned int index)
{
    const gw_nvml *n = f->n;
    gwn_device h = gpu_handle(f, index);
    values v = {.mem.version = GWN_MEMORY_V2_VERSION};
    assert_int_equal(n->DeviceGetUtilizationRates(h, &v.util), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetMemoryInfo_v2(h, &v.mem), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetTemperature(h, GWN_TEMPERATURE_GPU, &v.temp), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetPowerUsage(h, &v.power_mw), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &v.sm_mhz), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetCurrentClocksEventReasons(h, &v.reasons), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetPerformanceState(h, &v.pstate), GWN_SUCCESS);
    assert_int_equal(
        n->DeviceGetTotalEccErrors(h, GWN_MEMORY_ERROR_TYPE_UNCORRECTED, GWN_VOLATILE_ECC, &v.ecc),
        GWN_SUCCESS);
    return v;
}

static void test_numeric_keys_interpolate_and_masks_step(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, two_gpus, "0", "2.5"); /* time frozen at t = 2.5 s */
    assert_int_equal(f.init, GWN_SUCCESS);
    values v = read_values(&f, 0);
    assert_int_equal(v.util.gpu, 25);
    assert_int_equal(v.util.memory, 13); /* 12.5 rounds to nearest (away from zero) */
    assert_int_equal(v.mem.used, 850 * MIB);
    assert_int_equal(v.temp, 40);
    assert_int_equal(v.power_mw, 125000);
    assert_int_equal(v.sm_mhz, 754); /* 345 + 1635 / 4 = 753.75 */
    assert_int_equal(v.reasons, 1);  /* step: the earlier point's mask, not 24.75 */
    assert_int_equal(v.pstate, 8);
    assert_int_equal(v.ecc, 0);
    fake_close(&f);

    fake_open_at(&f, two_gpus, "0", "9.999");
    v = read_values(&f, 0);
    assert_int_equal(v.util.gpu, 100); /* 99.99 */
    assert_int_equal(v.reasons, 1);
    assert_int_equal(v.pstate, 8);
    fake_close(&f);

    fake_open_at(&f, two_gpus, "0", "10");
    v = read_values(&f, 0);
    assert_int_equal(v.reasons, 0x60);
    assert_int_equal(v.pstate, 0);
    assert_int_equal(v.ecc, 2);
    fake_close(&f);
}

static void test_values_hold_before_the_first_and_after_the_last_point(void **state)
{
    (void)state;
    static const char json[] =
        "{'devices': [{'timeline': [{'t': 5, 'util_gpu': 40, 'util_mem': 0, 'power_w': 300},"
        " {'t': 10, 'util_gpu': 80, 'power_w': 500}, {'t': 10, 'util_gpu': 20}]}]}";
    static const struct {
        const char *t;
        unsigned int util, power_mw;
    } cases[] = {{"0", 40, 300000},  {"4.9", 40, 300000}, {"7.5", 60, 400000},
                 {"10", 20, 500000}, {"100", 20, 500000}, {"1000000", 20, 500000}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_lib f;
        fake_open_at(&f, json, "0", cases[i].t);
        gwn_device h = gpu_handle(&f, 0);
        unsigned int mw;
        assert_int_equal(f.n->DeviceGetPowerUsage(h, &mw), GWN_SUCCESS);
        assert_int_equal(mw, cases[i].power_mw);
        gwn_utilization u;
        assert_int_equal(f.n->DeviceGetUtilizationRates(h, &u), GWN_SUCCESS);
        assert_int_equal(u.gpu, cases[i].util);
        assert_int_equal(u.memory, 0);
        fake_close(&f);
    }
}

static void test_time_scale_runs_the_scenario_faster(void **state)
{
    (void)state;
    /* power ramps 0 -> 1000 W over 100 scenario seconds; scale 50 covers that in 2 s */
    fake_lib f;
    fake_open_at(
        &f, "{'devices': [{'timeline': [{'t': 0, 'power_w': 0}, {'t': 100, 'power_w': 1000}]}]}",
        "50", NULL);
    gwn_device h = gpu_handle(&f, 0);
    usleep(200000);
    double before = mono_s();
    unsigned int mw;
    assert_int_equal(f.n->DeviceGetPowerUsage(h, &mw), GWN_SUCCESS);
    double after = mono_s();
    /* t lies between (before - init end) and (after - init start) real seconds, times 50; the
     * power is 10 W per scenario second; 1 mW of rounding either way. */
    double lo = (before - f.t_after_s) * 50 * 10000 - 1,
           hi = (after - f.t_before_s) * 50 * 10000 + 1;
    if (mw < lo || mw > hi)
        fail_msg("power %u mW outside [%.0f, %.0f]", mw, lo, hi);
    assert_true(mw >= 100000); /* at least 0.2 s x 50 = 10 scenario seconds went by */
    fake_close(&f);
}

static void test_absent_keys_are_not_supported(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f,
                 "{'devices': [{'timeline': [{'t': 0, 'util_gpu': 5, 'util_mem': 1}]},"
                 " {'timeline': [{'t': 0, 'util_gpu': 5}]}]}",
                 "0", "1");
    gwn_device h = gpu_handle(&f, 0);
    unsigned int u;
    unsigned long long ull;
    int i;
    gwn_memory m;
    gwn_utilization util;
    assert_int_equal(f.n->DeviceGetUtilizationRates(h, &util), GWN_SUCCESS);
    assert_int_equal(f.n->DeviceGetMemoryInfo(h, &m), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetTemperature(h, 0, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetPowerUsage(h, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetClockInfo(h, GWN_CLOCK_GRAPHICS, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetCurrentClocksEventReasons(h, &ull), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetPerformanceState(h, &i), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetFanSpeed(h, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(f.n->DeviceGetTotalEnergyConsumption(h, &ull), GWN_ERROR_NOT_SUPPORTED);
    /* util_gpu without util_mem: NVML gives both or neither */
    assert_int_equal(f.n->DeviceGetUtilizationRates(gpu_handle(&f, 1), &util),
                     GWN_ERROR_NOT_SUPPORTED);
    fake_close(&f);
}

static void test_unsupported_groups_return_not_supported(void **state)
{
    (void)state;
    static const char json[] =
        "{'devices': [{'unsupported': ['util', 'memory', 'temp', 'power', 'power_limit', 'clocks',"
        "  'clocks_event_reasons', 'pstate', 'fan', 'energy', 'processes', 'gpm', 'pcie', 'ecc'],"
        "  'timeline': [{'t': 0, 'util_gpu': 1, 'util_mem': 1, 'mem_used_mib': 1, 'temp_c': 1,"
        "   'power_w': 1, 'sm_clock_mhz': 1, 'clocks_event_reasons': 1, 'pstate': 1, 'fan_pct': "
        "1}]},"
        " {'timeline': [{'t': 0, 'util_gpu': 1, 'util_mem': 1, 'mem_used_mib': 1, 'temp_c': 1,"
        "   'power_w': 1, 'sm_clock_mhz': 1, 'clocks_event_reasons': 1, 'pstate': 1, 'fan_pct': "
        "1}]}]}";
    fake_lib f;
    fake_open_at(&f, json, "0", "1");
    const gw_nvml *n = f.n;
    for (unsigned int d = 0; d < 2; d++) {
        gwn_return want = d == 0 ? GWN_ERROR_NOT_SUPPORTED : GWN_SUCCESS;
        gwn_device h = gpu_handle(&f, d);
        unsigned int u, count = 0;
        unsigned long long ull;
        int i;
        gwn_utilization util;
        gwn_memory m;
        gwn_memory_v2 m2 = {.version = GWN_MEMORY_V2_VERSION};
        assert_int_equal(n->DeviceGetUtilizationRates(h, &util), want);
        assert_int_equal(n->DeviceGetMemoryInfo(h, &m), want);
        assert_int_equal(n->DeviceGetMemoryInfo_v2(h, &m2), want);
        assert_int_equal(n->DeviceGetTemperature(h, 0, &u), want);
        assert_int_equal(n->DeviceGetTemperatureThreshold(h, 1, &u), want);
        assert_int_equal(n->DeviceGetPowerUsage(h, &u), want);
        assert_int_equal(n->DeviceGetPowerManagementLimit(h, &u), want);
        assert_int_equal(n->DeviceGetEnforcedPowerLimit(h, &u), want);
        assert_int_equal(n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &u), want);
        assert_int_equal(n->DeviceGetMaxClockInfo(h, GWN_CLOCK_SM, &u), want);
        assert_int_equal(n->DeviceGetCurrentClocksEventReasons(h, &ull), want);
        assert_int_equal(n->DeviceGetPerformanceState(h, &i), want);
        assert_int_equal(n->DeviceGetFanSpeed(h, &u), want);
        assert_int_equal(n->DeviceGetTotalEnergyConsumption(h, &ull), want);
        assert_int_equal(n->DeviceGetComputeRunningProcesses(h, &count, NULL), want);
        assert_int_equal(n->DeviceGetCurrPcieLinkGeneration(h, &u), want);
        assert_int_equal(n->DeviceGetMaxPcieLinkWidth(h, &u), want);
        assert_int_equal(n->DeviceGetTotalEccErrors(h, 1, 0, &ull), want);
        gwn_gpm_support gs = {.version = GWN_GPM_SUPPORT_VERSION};
        assert_int_equal(n->GpmQueryDeviceSupport(h, &gs), GWN_SUCCESS);
        assert_int_equal(gs.isSupportedDevice, d == 0 ? 0 : 1);
    }
    fake_close(&f);
}

/* Calls every NVML function that takes a device handle, with valid arguments. */
static size_t call_every_device_function(const fake_lib *f, gwn_device h, gwn_return *rs)
{
    const gw_nvml *n = f->n;
    char buf[96];
    unsigned int u, u2, u3, u4, count = 0;
    unsigned long long ull;
    int i;
    gwn_pci_info pci;
    gwn_utilization util;
    gwn_memory m;
    gwn_memory_v2 m2 = {.version = GWN_MEMORY_V2_VERSION};
    gwn_field_value fv = {.fieldId = GWN_FI_DEV_POWER_INSTANT};
    gwn_gpm_support gs = {.version = GWN_GPM_SUPPORT_VERSION};
    gwn_device mig = NULL;
    gwn_gpm_sample sample = NULL;
    gwn_event_set set = NULL;
    assert_int_equal(n->GpmSampleAlloc(&sample), GWN_SUCCESS);
    assert_int_equal(n->EventSetCreate(&set), GWN_SUCCESS);
    size_t k = 0;
    rs[k++] = n->DeviceGetName(h, buf, sizeof buf);
    rs[k++] = n->DeviceGetUUID(h, buf, sizeof buf);
    rs[k++] = n->DeviceGetIndex(h, &u);
    rs[k++] = ((gwn_return(*)(gwn_device, gwn_pci_info *))fake_sym(f, "nvmlDeviceGetPciInfo_v3"))(
        h, &pci);
    rs[k++] = ((gwn_return(*)(gwn_device, gwn_pci_info *))fake_sym(f, "nvmlDeviceGetPciInfo_v2"))(
        h, &pci);
    rs[k++] =
        ((gwn_return(*)(gwn_device, gwn_pci_info *))fake_sym(f, "nvmlDeviceGetPciInfo"))(h, &pci);
    rs[k++] = n->DeviceGetUtilizationRates(h, &util);
    rs[k++] = n->DeviceGetMemoryInfo(h, &m);
    rs[k++] = n->DeviceGetMemoryInfo_v2(h, &m2);
    rs[k++] = n->DeviceGetTemperature(h, 0, &u);
    rs[k++] = n->DeviceGetTemperatureThreshold(h, 1, &u);
    rs[k++] = n->DeviceGetPowerUsage(h, &u);
    rs[k++] = n->DeviceGetPowerManagementLimit(h, &u);
    rs[k++] = n->DeviceGetEnforcedPowerLimit(h, &u);
    rs[k++] = n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &u);
    rs[k++] = n->DeviceGetMaxClockInfo(h, GWN_CLOCK_SM, &u);
    rs[k++] = ((gwn_return(*)(gwn_device, unsigned long long *))fake_sym(
        f, "nvmlDeviceGetCurrentClocksEventReasons"))(h, &ull);
    rs[k++] = ((gwn_return(*)(gwn_device, unsigned long long *))fake_sym(
        f, "nvmlDeviceGetCurrentClocksThrottleReasons"))(h, &ull);
    rs[k++] = n->DeviceGetPerformanceState(h, &i);
    rs[k++] = n->DeviceGetFanSpeed(h, &u);
    rs[k++] = n->DeviceGetCurrPcieLinkGeneration(h, &u);
    rs[k++] = n->DeviceGetMaxPcieLinkGeneration(h, &u);
    rs[k++] = n->DeviceGetCurrPcieLinkWidth(h, &u);
    rs[k++] = n->DeviceGetMaxPcieLinkWidth(h, &u);
    rs[k++] = n->DeviceGetTotalEccErrors(h, 1, 0, &ull);
    rs[k++] = n->DeviceGetRetiredPagesPendingStatus(h, &i);
    rs[k++] = n->DeviceGetRemappedRows(h, &u, &u2, &u3, &u4);
    rs[k++] = n->DeviceGetTotalEnergyConsumption(h, &ull);
    rs[k++] = n->DeviceGetFieldValues(h, 1, &fv);
    static const char *const procs[] = {
        "nvmlDeviceGetComputeRunningProcesses_v3",  "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetComputeRunningProcesses",     "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses"};
    for (size_t p = 0; p < sizeof procs / sizeof procs[0]; p++)
        rs[k++] = ((gwn_return(*)(gwn_device, unsigned int *, void *))fake_sym(f, procs[p]))(
            h, &count, NULL);
    rs[k++] = n->DeviceGetMigMode(h, &u, &u2);
    rs[k++] = n->DeviceGetMaxMigDeviceCount(h, &u);
    rs[k++] = n->DeviceGetMigDeviceHandleByIndex(h, 0, &mig);
    rs[k++] = n->GpmQueryDeviceSupport(h, &gs);
    rs[k++] = n->GpmSampleGet(h, sample);
    rs[k++] = n->DeviceGetSupportedEventTypes(h, &ull);
    rs[k++] = n->DeviceRegisterEvents(h, GWN_EVENT_XID_CRITICAL_ERROR, set);
    assert_int_equal(n->GpmSampleFree(sample), GWN_SUCCESS);
    assert_int_equal(n->EventSetFree(set), GWN_SUCCESS);
    return k;
}

static void test_lost_gpu_fails_every_call_while_the_other_works(void **state)
{
    (void)state;
    gwn_return rs[64];
    fake_lib f;
    fake_open_at(&f, two_gpus, "1", "4.5"); /* GPU 1 is lost from t = 5, 0.5 s from now */
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1);
    size_t n = call_every_device_function(&f, h1, rs);
    assert_true(n >= 40);
    for (size_t i = 0; i < n; i++) {
        if (rs[i] == GWN_ERROR_GPU_IS_LOST)
            fail_msg("call %zu failed with GPU_IS_LOST before lost_after_s", i);
    }
    usleep(600000);
    gwn_device again = NULL;
    assert_int_equal(f.n->DeviceGetHandleByIndex(1, &again), GWN_ERROR_GPU_IS_LOST);
    n = call_every_device_function(&f, h1, rs);
    for (size_t i = 0; i < n; i++) {
        if (rs[i] != GWN_ERROR_GPU_IS_LOST)
            fail_msg("call %zu on the lost GPU returned %d, not GPU_IS_LOST", i, rs[i]);
    }
    n = call_every_device_function(&f, h0, rs);
    for (size_t i = 0; i < n; i++) {
        if (rs[i] == GWN_ERROR_GPU_IS_LOST)
            fail_msg("call %zu on the healthy GPU returned GPU_IS_LOST", i);
    }
    fake_close(&f);
}

static double stats_count(const cJSON *root, const char *name)
{
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(root, "calls");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(calls, name);
    if (!cJSON_IsNumber(v))
        fail_msg("the stats file has no count for %s", name);
    return v->valuedouble;
}

static void test_stats_file_counts_every_call(void **state)
{
    (void)state;
    /* The counts cover the library's lifetime: it must be freshly loaded here. */
    if (dlopen(fake_lib_path(), RTLD_NOW | RTLD_NOLOAD))
        fail_msg("the fake library is still loaded from an earlier test: its dlclose leaked");
    char stats[64];
    write_scenario(stats, "");
    setenv("FAKE_NVML_STATS", stats, 1);
    fake_lib f;
    fake_open_at(&f, "{'devices': [{'timeline': [{'t': 0, 'power_w': 100}]}]}", "0", "0");
    gwn_device h = gpu_handle(&f, 0);
    unsigned int v;
    for (int i = 0; i < 3; i++)
        assert_int_equal(f.n->DeviceGetPowerUsage(h, &v), GWN_SUCCESS);
    assert_int_equal(f.n->DeviceGetFanSpeed(h, &v), GWN_ERROR_NOT_SUPPORTED);
    fake_close(&f); /* nvmlShutdown writes the file */
    unsetenv("FAKE_NVML_STATS");

    FILE *in = fopen(stats, "r");
    assert_non_null(in);
    char text[16384];
    size_t len = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_true(stats_count(root, "nvmlDeviceGetPowerUsage") == 3);
    assert_true(stats_count(root, "nvmlDeviceGetFanSpeed") == 1);
    assert_true(stats_count(root, "nvmlInit_v2") == 1);
    assert_true(stats_count(root, "nvmlShutdown") == 1);
    assert_true(stats_count(root, "nvmlDeviceGetHandleByIndex_v2") == 1);
    assert_true(stats_count(root, "nvmlDeviceGetTemperature") == 0);
    /* Every exported function has its counter, and only those. */
    int names = 0;
#define COUNT_NAME(name, ...) names += stats_count(root, #name) >= 0;
    FAKE_CALLS(COUNT_NAME)
#undef COUNT_NAME
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "calls")), names);
    cJSON_Delete(root);
    remove(stats);
}

/* The maths behind energy and GPM, exactly: timeline.c is compiled into this test. */
static void test_series_values_and_integrals_are_exact(void **state)
{
    (void)state;
    double t[] = {2, 4, 4, 8}, v[] = {100, 300, 0, 400};
    fake_series s = {.n = 4, .t = t, .v = v};
    assert_true(fake_series_at(&s, 0, false) == 100);
    assert_true(fake_series_at(&s, 3, false) == 200);
    assert_true(fake_series_at(&s, 3, true) == 100);
    assert_true(fake_series_at(&s, 4, false) == 0); /* two points at t = 4: the later wins */
    assert_true(fake_series_at(&s, 6, false) == 200);
    assert_true(fake_series_at(&s, 9, true) == 400);
    /* [0,2] held at 100: 200; [2,4] ramp 100..300: 400; [4,8] ramp 0..400: 800; [8,10]: 800 */
    assert_true(fabs(fake_series_integral(&s, 0, 10) - 2200) < 1e-9);
    assert_true(fabs(fake_series_integral(&s, 3, 6) - (250 + 200)) < 1e-9);
    assert_true(fabs(fake_series_integral(&s, 6, 3) + 450) < 1e-9);
    assert_true(fake_series_integral(&s, 5, 5) == 0);
    fake_series one = {.n = 1, .t = t, .v = v};
    assert_true(fake_series_integral(&one, 1, 11) == 1000);
}

/* Every scenario in tests/scenarios/ is valid (the CLI tests rely on them): init_error_*.json
 * fail nvmlInit with their own error, the others bring up at least one GPU. */
static void test_example_scenarios_load(void **state)
{
    (void)state;
    const char *src = getenv("GPUWATCH_SOURCE");
    assert_non_null(src);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/scenarios", src);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int loaded = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        setenv("FAKE_NVML_SCENARIO", path, 1);
        gw_nvml *n = NULL;
        gw_error err;
        assert_int_equal(gw_nvml_load(fake_lib_path(), &n, &err), GW_OK);
        gwn_return r = n->Init();
        n->initialised = r == GWN_SUCCESS;
        unsigned int count = 0;
        if (strncmp(e->d_name, "init_error_", 11) == 0) {
            if (r == GWN_SUCCESS || r == GWN_ERROR_UNKNOWN)
                fail_msg("%s: nvmlInit returned %d, not the scenario's init_error", path, r);
        } else if (r != GWN_SUCCESS || n->DeviceGetCount(&count) != GWN_SUCCESS || count == 0) {
            fail_msg("%s: nvmlInit returned %d, %u GPUs", path, r, count);
        }
        gw_nvml_close(n);
        loaded++;
    }
    closedir(d);
    assert_true(loaded >= 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_stats_file_counts_every_call,
                                  fake_teardown), /* first: needs a fresh load */
        cmocka_unit_test_teardown(test_exports_every_symbol_the_loader_binds, fake_teardown),
        cmocka_unit_test_teardown(test_calls_before_init_are_uninitialized, fake_teardown),
        cmocka_unit_test_teardown(test_init_is_reference_counted_and_rereads_the_scenario,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_init_error_gives_that_code, fake_teardown),
        cmocka_unit_test_teardown(test_scenario_errors_name_the_key_and_the_fix, fake_teardown),
        cmocka_unit_test_teardown(test_missing_file_unset_variable_and_bad_time_variables,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_numeric_keys_interpolate_and_masks_step, fake_teardown),
        cmocka_unit_test_teardown(test_values_hold_before_the_first_and_after_the_last_point,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_time_scale_runs_the_scenario_faster, fake_teardown),
        cmocka_unit_test_teardown(test_absent_keys_are_not_supported, fake_teardown),
        cmocka_unit_test_teardown(test_unsupported_groups_return_not_supported, fake_teardown),
        cmocka_unit_test_teardown(test_lost_gpu_fails_every_call_while_the_other_works,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_series_values_and_integrals_are_exact, fake_teardown),
        cmocka_unit_test_teardown(test_example_scenarios_load, fake_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the sampler parts the live view and `gpuwatch query` use, against the fake NVML
 * library: MIG enumeration, the cache of values that cannot change, and the lean open. */
#include "fake_nvml_test.h"

#include "sampler/sampler.h"

#include <cjson/cJSON.h>
#include <math.h>

static const char MIG_SCENARIO[] =
    "{'devices': [{'mig': {'enabled': true, 'max_count': 7, 'instances': ["
    "  {'uuid': 'MIG-aaaa', 'name': 'NVIDIA H200 MIG 3g.71gb', 'memory_total_mib': 71424,"
    "   'mem_used_mib': 20480},"
    "  {'uuid': 'MIG-bbbb', 'name': 'NVIDIA H200 MIG 1g.18gb', 'memory_total_mib': 16384}]},"
    " 'timeline': [{'t': 0, 'util_gpu': 50, 'util_mem': 1, 'mem_used_mib': 20600}]},"
    " {'timeline': [{'t': 0, 'util_gpu': 7, 'util_mem': 1, 'mem_used_mib': 10}]}]}";

static gw_sampler *open_sampler(fake_lib *f, uint64_t fields, bool migs, uint32_t skip)
{
    gw_sampler_config cfg = {.interval_ms = 100, .fields = fields, .migs = migs, .info_skip = skip};
    gw_sampler *s = NULL;
    gw_error err = {0};
    if (gw_sampler_open(f->n, &cfg, NULL, &s, &err))
        fail_msg("%s", err.msg);
    return s;
}

static void test_mig_devices_are_listed(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, MIG_SCENARIO, "0", "1");
    gw_sampler *s = open_sampler(&f, GW_FIELD_BIT(GW_F_UTIL_GPU_PCT), true, 0);
    unsigned n = 0;
    const gw_device_info *d = gw_sampler_devices(s, &n);
    assert_int_equal(n, 2);
    assert_true(d[0].mig_enabled);
    assert_false(d[1].mig_enabled);
    const gw_sample *smp = gw_sampler_read_now(s);
    assert_int_equal(smp->mig_count, 2);
    assert_int_equal(smp->migs[0].gpu, 0);
    assert_int_equal(smp->migs[0].slot, 0);
    assert_string_equal(smp->migs[0].uuid, "MIG-aaaa");
    assert_string_equal(smp->migs[0].name, "NVIDIA H200 MIG 3g.71gb");
    assert_true(smp->migs[0].memory_valid);
    assert_float_equal(smp->migs[0].mem_used_mib, 20480, 0);
    assert_float_equal(smp->migs[0].mem_total_mib, 71424, 0);
    assert_int_equal(smp->migs[1].slot, 1);
    assert_float_equal(smp->migs[1].mem_used_mib, 0, 0);
    /* utilization is not supported on a GPU in MIG mode: absent, not 0 */
    assert_false(gw_has(&smp->gpus[0], GW_F_UTIL_GPU_PCT));
    assert_float_equal(smp->gpus[1].v[GW_F_UTIL_GPU_PCT], 7, 0);
    gw_sampler_close(s);
    /* without the MIG facts (query), no MIG calls and no MIG devices */
    s = open_sampler(&f, GW_FIELD_BIT(GW_F_UTIL_GPU_PCT), true, GW_INFO_MIG);
    d = gw_sampler_devices(s, &n);
    assert_false(d[0].mig_enabled);
    assert_int_equal(gw_sampler_read_now(s)->mig_count, 0);
    gw_sampler_close(s);
    fake_close(&f);
}

static cJSON *read_stats(const char *path)
{
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    static char text[32768];
    size_t len = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    return root;
}

static int calls(const cJSON *root, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(root, "calls"), name);
    if (!cJSON_IsNumber(v))
        fail_msg("no count for %s", name);
    return v->valueint;
}

/* Opens the fake library on scenario (fake_open_at: time pinned when scale is "0") with its call
 * counts going to stats, a fresh file (char[64]); the library must not be loaded still from an
 * earlier test. */
static void open_counted(fake_lib *f, char *stats, const char *scenario, const char *scale,
                         const char *offset)
{
    if (dlopen(fake_lib_path(), RTLD_NOW | RTLD_NOLOAD))
        fail_msg("the fake library is still loaded from an earlier test");
    write_scenario(stats, "");
    setenv("FAKE_NVML_STATS", stats, 1);
    fake_open_at(f, scenario, scale, offset);
}

/* Closes s and the library; returns the call counts it wrote (cJSON_Delete them), stats removed. */
static cJSON *close_counted(gw_sampler *s, fake_lib *f, const char *stats)
{
    gw_sampler_close(s);
    fake_close(f);
    unsetenv("FAKE_NVML_STATS");
    cJSON *root = read_stats(stats);
    remove(stats);
    return root;
}

static void test_static_values_are_read_once(void **state)
{
    (void)state;
    char stats[64];
    fake_lib f;
    open_counted(&f, stats,
                 "{'devices': [{'max_sm_clock_mhz': 1755, 'pcie_link_gen_max': 4,"
                 " 'timeline': [{'t': 0, 'sm_clock_mhz': 345}]}]}",
                 "0", "0");
    uint64_t fields = GW_FIELD_BIT(GW_F_CLOCK_MAX_SM_MHZ) | GW_FIELD_BIT(GW_F_CLOCK_MAX_MEM_MHZ) |
                      GW_FIELD_BIT(GW_F_PCIE_GEN_MAX) | GW_FIELD_BIT(GW_F_PCIE_WIDTH_MAX) |
                      GW_FIELD_BIT(GW_F_CLOCK_SM_MHZ);
    uint32_t lean = GW_INFO_MEMORY | GW_INFO_POWER_LIMIT | GW_INFO_THRESHOLDS | GW_INFO_MAX_CLOCK |
                    GW_INFO_GPM | GW_INFO_MIG;
    gw_sampler *s = open_sampler(&f, fields, false, lean);
    for (int i = 0; i < 5; i++) {
        const gw_gpu_sample *g = &gw_sampler_read_now(s)->gpus[0];
        assert_float_equal(g->v[GW_F_CLOCK_MAX_SM_MHZ], 1755, 0);
        assert_float_equal(g->v[GW_F_CLOCK_MAX_MEM_MHZ], 3201, 0);
        assert_float_equal(g->v[GW_F_PCIE_GEN_MAX], 4, 0);
        assert_float_equal(g->v[GW_F_PCIE_WIDTH_MAX], 16, 0);
        assert_float_equal(g->v[GW_F_CLOCK_SM_MHZ], 345, 0);
    }
    cJSON *root = close_counted(s, &f, stats);
    /* GetMaxClockInfo costs 1.4 ms on an H200: once per clock over five reads */
    assert_int_equal(calls(root, "nvmlDeviceGetMaxClockInfo"), 2);
    assert_int_equal(calls(root, "nvmlDeviceGetMaxPcieLinkGeneration"), 1);
    assert_int_equal(calls(root, "nvmlDeviceGetMaxPcieLinkWidth"), 1);
    assert_int_equal(calls(root, "nvmlDeviceGetClockInfo"), 5); /* current clocks every time */
    /* the lean open asked for none of the facts it was told to skip */
    assert_int_equal(calls(root, "nvmlDeviceGetPowerManagementLimit"), 0);
    assert_int_equal(calls(root, "nvmlDeviceGetTemperatureThreshold"), 0);
    assert_int_equal(calls(root, "nvmlGpmQueryDeviceSupport"), 0);
    assert_int_equal(calls(root, "nvmlDeviceGetMigMode"), 0);
    assert_int_equal(calls(root, "nvmlDeviceGetMemoryInfo_v2"), 0);
    cJSON_Delete(root);
}

/* A one-shot first read with GPM fields samples GPM before anything else, so that the first calls
 * of the other values (milliseconds each on an H200) fall inside the 150 ms window instead of
 * before it: three GPM samples (the primer, then one per read), SM activity in the first sample,
 * over a window of at least GW_GPM_MIN_WINDOW_MS. Every call here takes 10 ms. */
static void test_first_read_primes_gpm_first(void **state)
{
    (void)state;
    char stats[64];
    fake_lib f;
    open_counted(&f, stats,
                 "{'devices': [{'latency_ms': {'all': 10},"
                 " 'timeline': [{'t': 0, 'sm_active': 42}]}]}",
                 NULL, NULL);
    gw_sampler *s = open_sampler(&f, GW_FIELD_BIT(GW_F_GPM_SM_ACTIVE_PCT), false, GW_INFO_MIG);
    const gw_gpu_sample *g = &gw_sampler_read_first(s)->gpus[0];
    assert_true(gw_has(g, GW_F_GPM_SM_ACTIVE_PCT));
    assert_float_equal(g->v[GW_F_GPM_SM_ACTIVE_PCT], 42, 0.01);
    assert_true(g->gpm.end_ns - g->gpm.start_ns >= (int64_t)GW_GPM_MIN_WINDOW_MS * 1000000);
    cJSON *root = close_counted(s, &f, stats);
    assert_int_equal(calls(root, "nvmlGpmSampleGet"), 3);
    cJSON_Delete(root);
}

/* gw_sampler_load is the commands' one door to NVML: it loads the library named by
 * GPUWATCH_NVML_LIB, serves the driver stack's versions and the library's own banner, and unloads
 * the library when the sampler closes. */
static void test_load_reads_the_system_and_owns_the_library(void **state)
{
    (void)state;
    char path[64];
    write_scenario(path, "{'driver_version': '550.54.15', 'nvml_version': '12.550.54.15',"
                         " 'devices': [{}]}");
    setenv("FAKE_NVML_SCENARIO", path, 1);
    setenv("GPUWATCH_NVML_LIB", fake_lib_path(), 1);
    gw_sampler_config cfg = {.interval_ms = 100, .fields = GW_FIELD_BIT(GW_F_UTIL_GPU_PCT)};
    gw_sampler *s = NULL;
    gw_error err = {0};
    assert_int_equal(gw_sampler_load(&cfg, NULL, &s, &err), GW_OK);
    const gw_system_info *sys = gw_sampler_system(s);
    assert_string_equal(sys->driver_version, "550.54.15");
    assert_string_equal(sys->nvml_version, "12.550.54.15");
    assert_int_equal(sys->cuda_driver_version, 13000);
    assert_string_equal(sys->library, fake_lib_path());
    char banner[128];
    snprintf(banner, sizeof banner, "simulated GPU, fake NVML playing %s", path);
    assert_string_equal(sys->banner, banner);
    gw_sampler_close(s);
    assert_null(dlopen(fake_lib_path(), RTLD_NOW | RTLD_NOLOAD)); /* unloaded with the sampler */
    setenv("GPUWATCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(gw_sampler_load(&cfg, NULL, &s, &err), GW_E_NVML);
    assert_null(s);
    assert_non_null(strstr(err.msg, "/nonexistent/libnvidia-ml.so.1"));
    unsetenv("GPUWATCH_NVML_LIB");
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_mig_devices_are_listed, fake_teardown),
        cmocka_unit_test_teardown(test_static_values_are_read_once, fake_teardown),
        cmocka_unit_test_teardown(test_first_read_primes_gpm_first, fake_teardown),
        cmocka_unit_test(test_load_reads_the_system_and_owns_the_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

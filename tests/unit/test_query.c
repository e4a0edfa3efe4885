/* Unit tests for src/query: every field's formatting, headers, field names and -i selection. */
#include "test_helpers.h"

#include "query/query.h"

static gw_device_info device(unsigned index, const char *uuid, const char *bus)
{
    gw_device_info d = {.index = index};
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    snprintf(d.uuid, sizeof d.uuid, "%s", uuid);
    snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "%s", bus);
    return d;
}

/* A sample with a value for every field gpuwatch query can print. */
static gw_gpu_sample full_sample(void)
{
    gw_gpu_sample g = {0};
    gw_set(&g, GW_F_PCIE_GEN, 5);
    gw_set(&g, GW_F_PCIE_GEN_MAX, 5);
    gw_set(&g, GW_F_PCIE_WIDTH, 8);
    gw_set(&g, GW_F_PCIE_WIDTH_MAX, 16);
    gw_set(&g, GW_F_FAN_PCT, 30);
    gw_set(&g, GW_F_PSTATE, 2);
    gw_set(&g, GW_F_CLOCKS_EVENT_REASONS, 0xC5); /* idle, SW power cap, HW thermal, brake */
    gw_set(&g, GW_F_MEM_TOTAL_MIB, 143771);
    gw_set(&g, GW_F_MEM_RESERVED_MIB, 615.2);
    gw_set(&g, GW_F_MEM_USED_MIB, 13290.81); /* nvidia-smi shows 13291 */
    gw_set(&g, GW_F_MEM_FREE_MIB, 129865);
    gw_set(&g, GW_F_UTIL_GPU_PCT, 98);
    gw_set(&g, GW_F_UTIL_MEM_PCT, 40);
    gw_set(&g, GW_F_ECC_UNCORRECTED, 0);
    gw_set(&g, GW_F_TEMP_GPU_C, 52);
    gw_set(&g, GW_F_TEMP_MEM_C, 45);
    gw_set(&g, GW_F_POWER_DRAW_W, 650);
    gw_set(&g, GW_F_POWER_LIMIT_W, 700);
    gw_set(&g, GW_F_POWER_ENFORCED_W, 699.99);
    gw_set(&g, GW_F_CLOCK_GR_MHZ, 1755);
    gw_set(&g, GW_F_CLOCK_SM_MHZ, 1740);
    gw_set(&g, GW_F_CLOCK_MEM_MHZ, 3201);
    gw_set(&g, GW_F_CLOCK_MAX_SM_MHZ, 1980);
    gw_set(&g, GW_F_CLOCK_MAX_MEM_MHZ, 3201);
    gw_set(&g, GW_F_GPM_SM_ACTIVE_PCT, 91.6049);
    gw_set(&g, GW_F_GPM_SM_OCCUPANCY_PCT, 53.3);
    gw_set(&g, GW_F_GPM_TENSOR_ACTIVE_PCT, 14);
    gw_set(&g, GW_F_GPM_DRAM_ACTIVE_PCT, 47.126);
    gw_set(&g, GW_F_UTIL_ENC_PCT, 0);
    gw_set(&g, GW_F_UTIL_DEC_PCT, 63);
    gw_set(&g, GW_F_PCIE_REPLAY_COUNTER, 3);
    return g;
}

/* field, with units, with nounits (NULL: the same) */
static const char *const expected[][3] = {
    {"timestamp", "2026/11/30 05:22:10.123", NULL},
    {"driver_version", "580.159.04", NULL},
    {"count", "2", NULL},
    {"name", "NVIDIA H200", NULL},
    {"uuid", "GPU-3f2a9c1e-7b44-4d0a-9e61-0c5d2b8a1f00", NULL},
    {"pci.bus_id", "00000000:07:00.0", NULL},
    {"index", "1", NULL},
    {"utilization.gpu", "98 %", "98"},
    {"utilization.memory", "40 %", "40"},
    {"memory.total", "143771 MiB", "143771"},
    {"memory.used", "13291 MiB", "13291"},
    {"memory.free", "129865 MiB", "129865"},
    {"memory.reserved", "616 MiB", "616"},
    {"temperature.gpu", "52", NULL},
    {"temperature.memory", "45", NULL},
    {"power.draw", "650.00 W", "650.00"},
    {"power.limit", "700.00 W", "700.00"},
    {"enforced.power.limit", "699.99 W", "699.99"},
    {"clocks.current.sm", "1740 MHz", "1740"},
    {"clocks.current.memory", "3201 MHz", "3201"},
    {"clocks.current.graphics", "1755 MHz", "1755"},
    {"clocks.max.sm", "1980 MHz", "1980"},
    {"clocks.max.memory", "3201 MHz", "3201"},
    {"clocks_event_reasons.active", "0x00000000000000C5", NULL},
    {"clocks_event_reasons.gpu_idle", "Active", NULL},
    {"clocks_event_reasons.applications_clocks_setting", "Not Active", NULL},
    {"clocks_event_reasons.sw_power_cap", "Active", NULL},
    {"clocks_event_reasons.hw_slowdown", "Not Active", NULL},
    {"clocks_event_reasons.hw_thermal_slowdown", "Active", NULL},
    {"clocks_event_reasons.hw_power_brake_slowdown", "Active", NULL},
    {"clocks_event_reasons.sw_thermal_slowdown", "Not Active", NULL},
    {"clocks_event_reasons.sync_boost", "Not Active", NULL},
    {"pstate", "P2", NULL},
    {"fan.speed", "30 %", "30"},
    {"pcie.link.gen.current", "5", NULL},
    {"pcie.link.gen.gpucurrent", "5", NULL},
    {"pcie.link.gen.max", "5", NULL},
    {"pcie.link.width.current", "8", NULL},
    {"pcie.link.width.max", "16", NULL},
    {"ecc.errors.uncorrected.volatile.total", "0", NULL},
    {"gpm.sm_active", "91.60 %", "91.60"},
    {"gpm.sm_occupancy", "53.30 %", "53.30"},
    {"gpm.tensor_active", "14.00 %", "14.00"},
    {"gpm.dram_active", "47.13 %", "47.13"},
    {"utilization.encoder", "0 %", "0"},
    {"utilization.decoder", "63 %", "63"},
    {"pcie.replay_counter", "3", NULL},
};
static const size_t nexpected = sizeof expected / sizeof expected[0];

static char *cell(const gw_qfield *f, const gw_qrow_ctx *ctx)
{
    gw_buf b = {0};
    gw_qcell(f, ctx, &b);
    return b.data;
}

static gw_qrow_ctx context(const gw_device_info *d, const gw_gpu_sample *g, bool nounits)
{
    gw_qrow_ctx c = {.wall_ms = INT64_C(1796012530123), /* 2026-11-30 04:22:10.123 UTC */
                     .utc_offset_s = 3600,
                     .driver = "580.159.04",
                     .gpu_count = 2,
                     .dev = d,
                     .gpu = g,
                     .nounits = nounits};
    return c;
}

static void test_every_field_formats_like_nvidia_smi(void **state)
{
    (void)state;
    /* every field of the table has an expectation here, in the table's order */
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    assert_int_equal(count, nexpected);
    gw_device_info d = device(1, "GPU-3f2a9c1e-7b44-4d0a-9e61-0c5d2b8a1f00", "00000000:07:00.0");
    gw_gpu_sample g = full_sample();
    for (size_t i = 0; i < nexpected; i++) {
        const gw_qfield *f = &all[i];
        assert_string_equal(f->name, expected[i][0]);
        for (int nounits = 0; nounits < 2; nounits++) {
            gw_qrow_ctx c = context(&d, &g, nounits);
            char *s = cell(f, &c);
            const char *want = nounits && expected[i][2] ? expected[i][2] : expected[i][1];
            if (strcmp(s, want) != 0)
                fail_msg("%s (nounits %d): got \"%s\", want \"%s\"", f->name, nounits, s, want);
            free(s);
        }
    }
}

static void test_absent_and_lost_values(void **state)
{
    (void)state;
    gw_device_info d = device(0, "", "");
    d.name[0] = '\0';
    gw_gpu_sample none = {0}, lost = {.lost = true};
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++) {
        const gw_qfield *f = &all[i];
        gw_qrow_ctx c = context(&d, &none, false);
        c.driver = "";
        char *s = cell(f, &c);
        const char *want = "[N/A]";
        if (f->source == GW_QS_TIMESTAMP || f->source == GW_QS_COUNT || f->source == GW_QS_INDEX)
            want = NULL; /* always known */
        else if (f->bare_na)
            want = "N/A"; /* nvidia-smi prints temperature.memory without brackets */
        if (want && strcmp(s, want) != 0)
            fail_msg("%s absent: got \"%s\", want \"%s\"", f->name, s, want);
        free(s);
        c.gpu = &lost;
        s = cell(f, &c);
        if (f->source == GW_QS_FIELD || f->source == GW_QS_REASON_BIT)
            assert_string_equal(s, "[GPU is lost]");
        free(s);
    }
}

static void test_header_uses_canonical_names(void **state)
{
    (void)state;
    const gw_qfield **fields = NULL;
    size_t n = 0;
    gw_error err = {0};
    assert_int_equal(gw_qfields_parse("timestamp,clocks.sm,clocks_throttle_reasons.active,gpu_name,"
                                      "memory.used,clocks.max.mem,gpu.power.requested_limit,"
                                      "temperature.gpu,gpm.sm_active",
                                      &fields, &n, &err),
                     GW_OK);
    assert_int_equal(n, 9);
    gw_buf b = {0};
    gw_qheader(fields, n, &b);
    assert_string_equal(b.data, "timestamp, clocks.current.sm [MHz], clocks_event_reasons.active, "
                                "name, memory.used [MiB], clocks.max.memory [MHz], power.limit "
                                "[W], temperature.gpu, gpm.sm_active [%]\n");
    gw_device_info d = device(0, "GPU-x", "00000000:01:00.0");
    gw_gpu_sample g = full_sample();
    gw_qrow_ctx c = context(&d, &g, false);
    gw_buf_reset(&b);
    gw_qrow(fields, n, &c, &b);
    assert_string_equal(b.data, "2026/11/30 05:22:10.123, 1740 MHz, 0x00000000000000C5, NVIDIA "
                                "H200, 13291 MiB, 3201 MHz, 700.00 W, 52, 91.60 %\n");
    assert_int_equal(gw_qfields_sample_bits(fields, n),
                     GW_FIELD_BIT(GW_F_CLOCK_SM_MHZ) | GW_FIELD_BIT(GW_F_CLOCKS_EVENT_REASONS) |
                         GW_FIELD_BIT(GW_F_MEM_USED_MIB) | GW_FIELD_BIT(GW_F_CLOCK_MAX_MEM_MHZ) |
                         GW_FIELD_BIT(GW_F_POWER_LIMIT_W) | GW_FIELD_BIT(GW_F_TEMP_GPU_C) |
                         GW_FIELD_BIT(GW_F_GPM_SM_ACTIVE_PCT));
    gw_buf_free(&b);
    free((void *)fields);
}

static void test_unknown_fields(void **state)
{
    (void)state;
    const gw_qfield **fields = NULL;
    size_t n = 0;
    gw_error err = {0};
    assert_int_equal(gw_qfields_parse("index,clocks.smm", &fields, &n, &err), GW_E_USAGE);
    assert_null(fields);
    assert_string_equal(err.msg, "Field \"clocks.smm\" is not a valid field to query. Did you "
                                 "mean \"clocks.sm\"? (gpuwatch query --help-query-gpu lists "
                                 "them)");
    assert_int_equal(gw_qfields_parse("serial_number_of_the_moon", &fields, &n, &err), GW_E_USAGE);
    assert_string_equal(err.msg, "Field \"serial_number_of_the_moon\" is not a valid field to "
                                 "query. (gpuwatch query --help-query-gpu lists them)");
    assert_int_equal(gw_qfields_parse("index,", &fields, &n, &err), GW_E_USAGE);
    assert_non_null(strstr(err.msg, "Field \"\" is not a valid field to query."));
    assert_null(gw_qfield_find("Index")); /* names are case-sensitive, as in nvidia-smi */
}

static void test_help_lists_every_field(void **state)
{
    (void)state;
    gw_buf b = {0};
    gw_qfields_help(&b);
    assert_true(strncmp(b.data, "List of valid properties to query for the switch \"--query-gpu\":",
                        62) == 0);
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++) {
        char want[160];
        const gw_qfield *f = &all[i];
        if (f->alias)
            snprintf(want, sizeof want, "\n\"%s\" or \"%s\"\n", f->name, f->alias);
        else
            snprintf(want, sizeof want, "\n\"%s\"\n", f->name);
        assert_non_null(strstr(b.data, want));
    }
    gw_buf_free(&b);
}

static void test_gpu_selection(void **state)
{
    (void)state;
    gw_device_info devs[3] = {device(0, "GPU-aaaa", "00000000:06:00.0"),
                              device(1, "GPU-BBBB", "00000000:07:00.0"),
                              device(2, "GPU-cccc", "00000001:1A:00.0")};
    unsigned sel[3], n = 0;
    gw_error err = {0};
    assert_int_equal(gw_qids_select("1", devs, 3, sel, &n, &err), GW_OK);
    assert_int_equal(n, 1);
    assert_int_equal(sel[0], 1);
    /* the order given, duplicates once; UUIDs without case; bus ids with or without domain */
    assert_int_equal(gw_qids_select("2,gpu-bbbb,0,1", devs, 3, sel, &n, &err), GW_OK);
    assert_int_equal(n, 3);
    assert_int_equal(sel[0], 2);
    assert_int_equal(sel[1], 1);
    assert_int_equal(sel[2], 0);
    const char *same[] = {"7:00.0", "07:00.0", "0000:07:00.0", "00000000:07:00.0", "07:00"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        assert_int_equal(gw_qids_select(same[i], devs, 3, sel, &n, &err), GW_OK);
        assert_int_equal(n, 1);
        assert_int_equal(sel[0], 1);
    }
    assert_int_equal(gw_qids_select("1:1a:00.0", devs, 3, sel, &n, &err), GW_OK);
    assert_int_equal(sel[0], 2);
    assert_int_equal(gw_qids_select("1a:00.0", devs, 3, sel, &n, &err), GW_E_USAGE); /* domain 0 */
    assert_int_equal(gw_qids_select("0,5", devs, 3, sel, &n, &err), GW_E_USAGE);
    assert_string_equal(err.msg, "no GPU matches -i '5': this machine has 3 GPUs (indexes 0-2); "
                                 "give indexes, UUIDs (GPU-...) or PCI bus ids (00000000:07:00.0)");
    assert_int_equal(gw_qids_select("GPU-dddd", devs, 3, sel, &n, &err), GW_E_USAGE);
    assert_int_equal(gw_qids_select("zz", devs, 3, sel, &n, &err), GW_E_USAGE);
    assert_int_equal(gw_qids_select(",", devs, 3, sel, &n, &err), GW_E_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field_formats_like_nvidia_smi),
        cmocka_unit_test(test_absent_and_lost_values),
        cmocka_unit_test(test_header_uses_canonical_names),
        cmocka_unit_test(test_unknown_fields),
        cmocka_unit_test(test_help_lists_every_field),
        cmocka_unit_test(test_gpu_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

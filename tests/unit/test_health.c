/* Unit tests for src/health: each item's states at and across its thresholds (facts built by
 * hand), the decoded throttle reasons, Nagios codes, JSON, and the probe against the fake NVML. */
#include "test_helpers.h"

#include "health/health.h"

#include <math.h>

/* A healthy idle H200, as check sees it. */
static gw_health_gpu healthy(void)
{
    gw_health_gpu g;
    memset(&g, 0, sizeof g);
    gw_health_facts *f = &g.facts;
    f->reachable = true;
    snprintf(f->info.name, sizeof f->info.name, "NVIDIA H200");
    gw_set(&f->v, GW_F_TEMP_GPU_C, 35);
    gw_set(&f->v, GW_F_MEM_TOTAL_MIB, 143771);
    gw_set(&f->v, GW_F_MEM_USED_MIB, 0);
    gw_set(&f->v, GW_F_UTIL_GPU_PCT, 0);
    gw_set(&f->v, GW_F_CLOCKS_EVENT_REASONS, 0x1);
    gw_set(&f->v, GW_F_ECC_UNCORRECTED, 0);
    gw_set(&f->v, GW_F_PCIE_GEN, 5);
    gw_set(&f->v, GW_F_PCIE_GEN_MAX, 5);
    gw_set(&f->v, GW_F_PCIE_WIDTH, 16);
    gw_set(&f->v, GW_F_PCIE_WIDTH_MAX, 16);
    f->ecc_lifetime = 0;
    f->retired_pending = -1;
    f->remap_pending = f->remap_failure = 0;
    f->latency_ms = 3.25;
    f->calls = 3;
    f->slowest = "process list";
    f->slowest_ms = 2;
    return g;
}

static const gw_health_item *judge(gw_health_gpu *g, const char *id)
{
    gw_health_thresholds th;
    gw_health_thresholds_defaults(&th);
    gw_health_evaluate_gpu(g, &th);
    for (int i = 0; i < g->nitems; i++)
        if (strcmp(g->items[i].id, id) == 0)
            return &g->items[i];
    fail_msg("no item %s", id);
    return NULL;
}

static void test_healthy_gpu_is_ok_everywhere(void **state)
{
    (void)state;
    gw_health_gpu g = healthy();
    judge(&g, "reachable");
    assert_int_equal(g.nitems, 8);
    const char *ids[] = {"reachable",         "idle_temperature", "memory_held", "throttle_reasons",
                         "ecc_uncorrectable", "pending_repairs",  "pcie_link",   "nvml_latency"};
    for (int i = 0; i < 8; i++) {
        assert_string_equal(g.items[i].id, ids[i]);
        assert_int_equal(g.items[i].state, GW_HEALTH_OK);
    }
    assert_int_equal(g.state, GW_HEALTH_OK);
    assert_string_equal(g.items[1].reason, "35 C (warning above 45 C, critical above 55 C)");
    assert_string_equal(g.items[2].reason, "0 of 143771 MiB used, no processes");
    assert_string_equal(g.items[7].reason,
                        "3.25 ms for 3 groups of calls (slowest: process list, 2.00 ms)");
}

static void test_idle_temperature_boundaries(void **state)
{
    (void)state;
    const struct {
        double c;
        gw_health_state want;
    } cases[] = {{45, GW_HEALTH_OK},
                 {46, GW_HEALTH_WARNING},
                 {55, GW_HEALTH_WARNING},
                 {56, GW_HEALTH_CRITICAL}};
    for (size_t i = 0; i < 4; i++) {
        gw_health_gpu g = healthy();
        gw_set(&g.facts.v, GW_F_TEMP_GPU_C, cases[i].c);
        const gw_health_item *it = judge(&g, "idle_temperature");
        assert_int_equal(it->state, cases[i].want);
        assert_true(it->value == cases[i].c);
        assert_int_equal(g.state, cases[i].want);
    }
    gw_health_gpu g = healthy();
    g.facts.v.valid &= ~GW_FIELD_BIT(GW_F_TEMP_GPU_C);
    assert_int_equal(judge(&g, "idle_temperature")->state, GW_HEALTH_NA);
    assert_int_equal(g.state, GW_HEALTH_OK);
}

static void test_memory_held_and_by_whom(void **state)
{
    (void)state;
    gw_health_gpu g = healthy();
    gw_set(&g.facts.v, GW_F_MEM_USED_MIB, 1024);
    assert_int_equal(judge(&g, "memory_held")->state, GW_HEALTH_OK);
    gw_set(&g.facts.v, GW_F_MEM_USED_MIB, 1025);
    const gw_health_item *it = judge(&g, "memory_held");
    assert_int_equal(it->state, GW_HEALTH_WARNING);
    assert_string_equal(it->reason, "1025 of 143771 MiB used by processes NVML does not list "
                                    "(another container?): another job shares this GPU; training "
                                    "will have less memory and time");
    /* a graphics process (Xorg) with a little memory is fine; any compute process is not */
    gw_gpu_process procs[2] = {
        {.pid = 1500,
         .used_valid = true,
         .used_mib = 50,
         .visible = true,
         .graphics = true,
         .name = "Xorg"},
        {.pid = 4242, .used_valid = true, .used_mib = 20000, .visible = false}};
    g = healthy();
    gw_set(&g.facts.v, GW_F_MEM_USED_MIB, 50);
    g.facts.procs = procs;
    g.facts.nprocs = 1;
    it = judge(&g, "memory_held");
    assert_int_equal(it->state, GW_HEALTH_OK);
    assert_string_equal(it->reason, "50 of 143771 MiB used by pid 1500 Xorg (50 MiB, graphics)");
    g.facts.nprocs = 2;
    gw_set(&g.facts.v, GW_F_MEM_USED_MIB, 20050);
    it = judge(&g, "memory_held");
    assert_int_equal(it->state, GW_HEALTH_WARNING);
    assert_string_equal(
        it->reason,
        "20050 of 143771 MiB used by pid 1500 Xorg (50 MiB, graphics), pid 4242 "
        "(20000 MiB; name hidden: another PID namespace): another job shares this GPU; training "
        "will have less memory and time");
    gw_set(&g.facts.v, GW_F_MEM_USED_MIB, 71885); /* half of 143771 is 71885.5 */
    assert_int_equal(judge(&g, "memory_held")->state, GW_HEALTH_WARNING);
    gw_set(&g.facts.v, GW_F_MEM_USED_MIB, 71886);
    assert_int_equal(judge(&g, "memory_held")->state, GW_HEALTH_CRITICAL);
}

static void test_throttle_reasons_decoded(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(gw_health_decode_reasons(0, buf, sizeof buf), GW_HEALTH_OK);
    assert_string_equal(buf, "none");
    assert_int_equal(gw_health_decode_reasons(0x1, buf, sizeof buf), GW_HEALTH_OK);
    assert_string_equal(buf, "idle");
    assert_int_equal(gw_health_decode_reasons(0x4, buf, sizeof buf), GW_HEALTH_WARNING);
    assert_string_equal(buf, "SW power cap");
    assert_int_equal(gw_health_decode_reasons(0x20, buf, sizeof buf), GW_HEALTH_WARNING);
    assert_int_equal(gw_health_decode_reasons(0x8, buf, sizeof buf), GW_HEALTH_CRITICAL);
    assert_string_equal(buf, "HW slowdown");
    assert_int_equal(gw_health_decode_reasons(0x80, buf, sizeof buf), GW_HEALTH_CRITICAL);
    assert_int_equal(gw_health_decode_reasons(0x44 | 0x1000, buf, sizeof buf), GW_HEALTH_CRITICAL);
    assert_string_equal(buf, "SW power cap, HW thermal slowdown, unknown bits 0x1000");
    gw_health_gpu g = healthy();
    gw_set(&g.facts.v, GW_F_CLOCKS_EVENT_REASONS, 0x40);
    const gw_health_item *it = judge(&g, "throttle_reasons");
    assert_int_equal(it->state, GW_HEALTH_CRITICAL);
    assert_string_equal(it->reason, "HW thermal slowdown (0x40): the GPU slows itself down at "
                                    "rest: check cooling and power");
}

static void test_ecc_and_pending_repairs(void **state)
{
    (void)state;
    gw_health_gpu g = healthy();
    gw_set(&g.facts.v, GW_F_ECC_UNCORRECTED, 2);
    const gw_health_item *it = judge(&g, "ecc_uncorrectable");
    assert_int_equal(it->state, GW_HEALTH_CRITICAL);
    assert_true(it->value == 2);
    g = healthy();
    g.facts.ecc_lifetime = 3;
    assert_int_equal(judge(&g, "ecc_uncorrectable")->state, GW_HEALTH_WARNING);
    g.facts.v.valid &= ~GW_FIELD_BIT(GW_F_ECC_UNCORRECTED);
    assert_int_equal(judge(&g, "ecc_uncorrectable")->state, GW_HEALTH_NA);

    g = healthy();
    g.facts.remap_pending = 1;
    it = judge(&g, "pending_repairs");
    assert_int_equal(it->state, GW_HEALTH_WARNING);
    assert_string_equal(it->reason, "remapped rows wait to be applied: reset the GPU (nvidia-smi "
                                    "-r) or reboot before training");
    g = healthy();
    g.facts.remap_pending = g.facts.remap_failure = -1;
    g.facts.retired_pending = 1;
    assert_int_equal(judge(&g, "pending_repairs")->state, GW_HEALTH_WARNING);
    g.facts.retired_pending = 0;
    assert_int_equal(judge(&g, "pending_repairs")->state, GW_HEALTH_OK);
    g.facts.retired_pending = -1;
    assert_int_equal(judge(&g, "pending_repairs")->state, GW_HEALTH_NA);
    g = healthy();
    g.facts.remap_failure = 1;
    assert_int_equal(judge(&g, "pending_repairs")->state, GW_HEALTH_CRITICAL);
}

static void test_pcie_link(void **state)
{
    (void)state;
    gw_health_gpu g = healthy();
    gw_set(&g.facts.v, GW_F_PCIE_WIDTH, 8);
    const gw_health_item *it = judge(&g, "pcie_link");
    assert_int_equal(it->state, GW_HEALTH_WARNING);
    assert_string_equal(it->reason, "gen 5 x8 of gen 5 x16: fewer lanes than the card has: "
                                    "reseat it or check the slot and riser");
    /* a slower generation while idle is power saving; while working it is a fault */
    g = healthy();
    gw_set(&g.facts.v, GW_F_PCIE_GEN, 1);
    it = judge(&g, "pcie_link");
    assert_int_equal(it->state, GW_HEALTH_OK);
    assert_string_equal(it->reason, "gen 1 x16 of gen 5 x16 while idle (links slow down to save "
                                    "power; under load it should reach its maximum)");
    gw_set(&g.facts.v, GW_F_CLOCKS_EVENT_REASONS, 0);
    gw_set(&g.facts.v, GW_F_UTIL_GPU_PCT, 90);
    assert_int_equal(judge(&g, "pcie_link")->state, GW_HEALTH_WARNING);
    g.facts.v.valid &= ~GW_FIELD_BIT(GW_F_PCIE_GEN_MAX);
    assert_int_equal(judge(&g, "pcie_link")->state, GW_HEALTH_NA);
}

static void test_latency_and_unreachable(void **state)
{
    (void)state;
    const struct {
        double ms;
        gw_health_state want;
    } cases[] = {{100, GW_HEALTH_OK},
                 {100.5, GW_HEALTH_WARNING},
                 {500, GW_HEALTH_WARNING},
                 {501, GW_HEALTH_CRITICAL}};
    for (size_t i = 0; i < 4; i++) {
        gw_health_gpu g = healthy();
        g.facts.latency_ms = cases[i].ms;
        assert_int_equal(judge(&g, "nvml_latency")->state, cases[i].want);
    }
    gw_health_gpu g = healthy();
    g.facts.reachable = false;
    snprintf(g.facts.lost_call, sizeof g.facts.lost_call, "nvmlDeviceGetHandleByIndex");
    const gw_health_item *it = judge(&g, "reachable");
    assert_int_equal(g.nitems, 1);
    assert_int_equal(it->state, GW_HEALTH_CRITICAL);
    assert_string_equal(it->reason, "no: nvmlDeviceGetHandleByIndex failed (GPU lost or not "
                                    "answering): check `dmesg` for Xid 79, then reset the GPU or "
                                    "reboot");
}

static void test_states_combine_like_nagios(void **state)
{
    (void)state;
    assert_int_equal(gw_health_exit_code(GW_HEALTH_OK), 0);
    assert_int_equal(gw_health_exit_code(GW_HEALTH_NA), 0);
    assert_int_equal(gw_health_exit_code(GW_HEALTH_WARNING), 1);
    assert_int_equal(gw_health_exit_code(GW_HEALTH_CRITICAL), 2);
    assert_int_equal(gw_health_exit_code(GW_HEALTH_UNKNOWN), 3);
    assert_int_equal(gw_health_worse(GW_HEALTH_UNKNOWN, GW_HEALTH_WARNING), GW_HEALTH_WARNING);
    assert_int_equal(gw_health_worse(GW_HEALTH_CRITICAL, GW_HEALTH_WARNING), GW_HEALTH_CRITICAL);
    assert_int_equal(gw_health_worse(GW_HEALTH_OK, GW_HEALTH_UNKNOWN), GW_HEALTH_UNKNOWN);
    assert_int_equal(gw_health_worse(GW_HEALTH_NA, GW_HEALTH_OK), GW_HEALTH_NA);
    gw_health_thresholds th;
    gw_health_thresholds_defaults(&th);
    gw_health_report r;
    memset(&r, 0, sizeof r);
    gw_health_evaluate(&r, &th);
    assert_int_equal(r.state, GW_HEALTH_UNKNOWN);
    assert_string_equal(r.error, "NVML reports no GPU");
    gw_health_gpu gpus[2] = {healthy(), healthy()};
    gw_set(&gpus[1].facts.v, GW_F_TEMP_GPU_C, 50);
    r.gpus = gpus;
    r.ngpus = 2;
    r.error[0] = '\0';
    gw_health_evaluate(&r, &th);
    assert_int_equal(r.state, GW_HEALTH_WARNING);
    cJSON *j = gw_health_json(&r);
    assert_string_equal(cJSON_GetObjectItem(j, "status")->valuestring, "warning");
    assert_int_equal(cJSON_GetObjectItem(j, "exit_code")->valueint, 1);
    cJSON *g1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "gpus"), 1);
    assert_string_equal(cJSON_GetObjectItem(g1, "status")->valuestring, "warning");
    cJSON *temp = cJSON_GetArrayItem(cJSON_GetObjectItem(g1, "items"), 1);
    assert_string_equal(cJSON_GetObjectItem(temp, "id")->valuestring, "idle_temperature");
    assert_int_equal(cJSON_GetObjectItem(temp, "value")->valueint, 50);
    cJSON_Delete(j);
}

/* The probe against the fake NVML: every fact from a scenario that sets each of them. */
static void test_probe_reads_the_scenario(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    th_write(dir, "s.json",
             "{\"devices\": [{\"pcie_link_gen\": 3, \"pcie_link_width\": 8,"
             " \"retired_pages_pending\": true, \"remapped_rows_pending\": true,"
             " \"latency_ms\": {\"processes\": 30},"
             " \"timeline\": [{\"t\": 0, \"temp_c\": 47, \"mem_used_mib\": 2048, \"util_gpu\": 0,"
             "   \"util_mem\": 0, \"clocks_event_reasons\": 68, \"ecc_uncorrected\": 2}],"
             " \"processes\": [{\"pid\": 1, \"used_mib\": 2000}]},"
             " {\"lost_after_s\": 0}]}");
    char path[1024];
    snprintf(path, sizeof path, "%s/s.json", dir);
    setenv("FAKE_NVML_SCENARIO", path, 1);
    setenv("FAKE_NVML_TIME_SCALE", "0", 1);
    setenv("GPUWATCH_NVML_LIB", getenv("GPUWATCH_FAKE_NVML"), 1);
    gw_error err = {0};
    gw_health_report r;
    assert_int_equal(gw_health_probe(&r, &err), GW_OK);
    assert_string_equal(r.driver_version, "580.159.04");
    assert_int_equal(r.cuda_driver_version, 13000);
    assert_int_equal(r.ngpus, 2);
    const gw_health_facts *f = &r.gpus[0].facts;
    assert_true(f->reachable);
    assert_true(f->v.v[GW_F_TEMP_GPU_C] == 47);
    assert_true(f->v.v[GW_F_PCIE_GEN] == 3 && f->v.v[GW_F_PCIE_GEN_MAX] == 5);
    assert_true(f->v.v[GW_F_PCIE_WIDTH] == 8 && f->v.v[GW_F_PCIE_WIDTH_MAX] == 16);
    assert_true(f->v.v[GW_F_CLOCKS_EVENT_REASONS] == 68);
    assert_true(f->v.v[GW_F_ECC_UNCORRECTED] == 2 && f->ecc_lifetime == 2);
    assert_int_equal(f->retired_pending, 1);
    assert_int_equal(f->remap_pending, 1);
    assert_int_equal(f->remap_failure, 0);
    assert_int_equal(f->nprocs, 1);
    assert_int_equal(f->procs[0].pid, 1);
    assert_true(f->latency_ms >= 30); /* the process list sleeps 30 ms per call */
    assert_string_equal(f->slowest, "process list");
    assert_false(r.gpus[1].facts.reachable);
    assert_string_equal(r.gpus[1].facts.lost_call, "nvmlDeviceGetHandleByIndex");
    gw_health_thresholds th;
    gw_health_thresholds_defaults(&th);
    gw_health_evaluate(&r, &th);
    assert_int_equal(r.state, GW_HEALTH_CRITICAL);
    gw_health_report_free(&r);
    /* NVML that cannot be loaded: an error naming the fix, and nothing to free */
    setenv("GPUWATCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(gw_health_probe(&r, &err), GW_E_NVML);
    assert_non_null(strstr(err.msg, "GPUWATCH_NVML_LIB"));
    assert_int_equal(r.ngpus, 0);
    assert_null(r.gpus);
    unsetenv("GPUWATCH_NVML_LIB");
    unsetenv("FAKE_NVML_TIME_SCALE");
    th_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_healthy_gpu_is_ok_everywhere),
        cmocka_unit_test(test_idle_temperature_boundaries),
        cmocka_unit_test(test_memory_held_and_by_whom),
        cmocka_unit_test(test_throttle_reasons_decoded),
        cmocka_unit_test(test_ecc_and_pending_repairs),
        cmocka_unit_test(test_pcie_link),
        cmocka_unit_test(test_latency_and_unreachable),
        cmocka_unit_test(test_states_combine_like_nagios),
        cmocka_unit_test(test_probe_reads_the_scenario),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

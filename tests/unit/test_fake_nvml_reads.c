/*
 * Tests of the fake NVML library's slow reads: processes (fixed pids, "child", size protocol,
 * record strides), energy, field values, GPM, MIG, events, call latency and threads.
 * Timed assertions bracket the scenario time between CLOCK_MONOTONIC readings taken around
 * nvmlInit and around each call, so that they hold on a loaded machine.
 */
#include "fake_nvml_test.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

typedef gwn_return (*list_fn)(gwn_device, unsigned int *, void *);

static const char procs_json[] = "{'devices': [{'processes': ["
                                 "  {'pid': 4242, 'name': 'python3', 'used_mib': 1000},"
                                 "  {'pid': 'child', 'name': 'python3', 'used_mib': null},"
                                 "  {'pid': 777, 'used_mib': 5, 'from_s': 10, 'to_s': 20},"
                                 "  {'pid': 99, 'used_mib': 64, 'type': 'graphics'}]},"
                                 " {}]}";

/* A child process that sleeps until killed (or 30 s). */
static pid_t spawn_sleeper(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(30);
        pause();
        _exit(0);
    }
    return pid;
}

static void reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_processes_size_protocol_windows_and_types(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, procs_json, "0", "5");
    list_fn v3 = (list_fn)fake_sym(&f, "nvmlDeviceGetComputeRunningProcesses_v3");
    list_fn gr3 = (list_fn)fake_sym(&f, "nvmlDeviceGetGraphicsRunningProcesses_v3");
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1);
    gwn_process_info p[4];
    /* No child yet: only 4242 (777 starts at t = 10, 99 is a graphics process). */
    unsigned int count = 0;
    assert_int_equal(v3(h0, &count, NULL), GWN_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 1);
    count = 4;
    assert_int_equal(v3(h0, &count, p), GWN_SUCCESS);
    assert_int_equal(count, 1);
    assert_int_equal(p[0].pid, 4242);
    assert_int_equal(p[0].usedGpuMemory, 1000 * MIB);
    assert_int_equal(p[0].gpuInstanceId, 0xFFFFFFFFu);
    count = 4;
    assert_int_equal(gr3(h0, &count, p), GWN_SUCCESS);
    assert_int_equal(count, 1);
    assert_int_equal(p[0].pid, 99);
    /* A GPU without processes: success and 0, even with no buffer. */
    count = 0;
    assert_int_equal(v3(h1, &count, NULL), GWN_SUCCESS);
    assert_int_equal(count, 0);
    assert_int_equal(v3(h1, NULL, p), GWN_ERROR_INVALID_ARGUMENT);
    fake_close(&f);

    /* from_s <= t < to_s */
    static const struct {
        const char *t;
        unsigned int count;
    } windows[] = {{"9.99", 1}, {"10", 2}, {"19.99", 2}, {"20", 1}};
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
        fake_open_at(&f, procs_json, "0", windows[i].t);
        count = 4;
        assert_int_equal(f.n->DeviceGetComputeRunningProcesses(gpu_handle(&f, 0), &count, p),
                         GWN_SUCCESS);
        assert_int_equal(count, windows[i].count);
        assert_int_equal(p[count - 1].pid, count == 2 ? 777 : 4242);
        fake_close(&f);
    }
}

static void test_child_process_is_listed_with_both_record_strides(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, procs_json, "0", "5");
    gwn_device h = gpu_handle(&f, 0);
    list_fn v3 = (list_fn)fake_sym(&f, "nvmlDeviceGetComputeRunningProcesses_v3");
    list_fn v1 = (list_fn)fake_sym(&f, "nvmlDeviceGetComputeRunningProcesses");
    pid_t first = spawn_sleeper();
    usleep(30000); /* start times are in clock ticks: let the second child start visibly later */
    pid_t second = spawn_sleeper();

    unsigned int count = 1;
    unsigned char raw[4 * sizeof(gwn_process_info)];
    assert_int_equal(v3(h, &count, raw), GWN_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 2);
    /* _v3: 24-byte records; the child (the earliest one) comes second, memory not available. */
    memset(raw, 0xAB, sizeof raw);
    count = 4;
    assert_int_equal(v3(h, &count, raw), GWN_SUCCESS);
    assert_int_equal(count, 2);
    gwn_process_info r3;
    memcpy(&r3, raw + 24, sizeof r3);
    assert_int_equal(r3.pid, (unsigned int)first);
    assert_true(r3.usedGpuMemory == GWN_VALUE_NOT_AVAILABLE);
    assert_int_equal(raw[48], 0xAB); /* nothing past the second record */
    /* Plain: 16-byte records. */
    memset(raw, 0xAB, sizeof raw);
    count = 4;
    assert_int_equal(v1(h, &count, raw), GWN_SUCCESS);
    assert_int_equal(count, 2);
    gwn_process_info_v1 r1;
    memcpy(&r1, raw, sizeof r1);
    assert_int_equal(r1.pid, 4242);
    assert_int_equal(r1.usedGpuMemory, 1000 * MIB);
    memcpy(&r1, raw + 16, sizeof r1);
    assert_int_equal(r1.pid, (unsigned int)first);
    assert_true(r1.usedGpuMemory == GWN_VALUE_NOT_AVAILABLE);
    assert_int_equal(raw[32], 0xAB);

    /* A dead child is no longer the first child, even before it is reaped (a zombie). */
    kill(first, SIGKILL);
    for (int i = 0; i < 100; i++) {
        char path[64], buf[256] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)first);
        FILE *st = fopen(path, "r");
        size_t n = st ? fread(buf, 1, sizeof buf - 1, st) : 0;
        if (st)
            fclose(st);
        buf[n] = '\0';
        const char *paren = strrchr(buf, ')');
        if (paren && paren[2] == 'Z')
            break;
        usleep(10000);
    }
    count = 4;
    gwn_process_info p[4];
    assert_int_equal(v3(h, &count, p), GWN_SUCCESS);
    assert_int_equal(count, 2);
    assert_int_equal(p[1].pid, (unsigned int)second);
    reap(first);
    reap(second);
    count = 4;
    assert_int_equal(v3(h, &count, p), GWN_SUCCESS);
    assert_int_equal(count, 1);
    fake_close(&f);
}

/* Energy of the ramp 100 W at t = 0 to 300 W at t = 10 (then held), from 0 to t, in mJ. */
static double ramp_energy_mj(double t)
{
    if (t <= 10)
        return (100 * t + 10 * t * t) * 1000;
    return (2000 + 300 * (t - 10)) * 1000;
}

static void test_energy_is_the_integral_of_power(void **state)
{
    (void)state;
    static const char json[] =
        "{'devices': [{'timeline': [{'t': 0, 'power_w': 100}, {'t': 10, 'power_w': 300}]}]}";
    static const char *const offsets[] = {"0", "8"};
    for (size_t k = 0; k < 2; k++) {
        double offset = atof(offsets[k]);
        fake_lib f;
        fake_open_at(&f, json, "10", offsets[k]);
        gwn_device h = gpu_handle(&f, 0);
        usleep(300000);
        double before = mono_s();
        unsigned long long mj = 0;
        assert_int_equal(f.n->DeviceGetTotalEnergyConsumption(h, &mj), GWN_SUCCESS);
        double after = mono_s();
        double t_lo = offset + (before - f.t_after_s) * 10,
               t_hi = offset + (after - f.t_before_s) * 10;
        double lo = ramp_energy_mj(t_lo) - ramp_energy_mj(offset) - 1;
        double hi = ramp_energy_mj(t_hi) - ramp_energy_mj(offset) + 1;
        if (mj < lo || mj > hi)
            fail_msg("offset %s: %llu mJ outside [%.0f, %.0f]", offsets[k], mj, lo, hi);
        assert_true(t_lo - offset >= 3); /* 0.3 s x 10: crossing t = 10 when starting at 8 */
        /* Field 83 is the same counter, read later: never smaller. */
        gwn_field_value fv = {.fieldId = GWN_FI_DEV_TOTAL_ENERGY_CONSUMPTION};
        assert_int_equal(f.n->DeviceGetFieldValues(h, 1, &fv), GWN_SUCCESS);
        assert_int_equal(fv.nvmlReturn, GWN_SUCCESS);
        assert_int_equal(fv.valueType, GWN_VALUE_TYPE_UNSIGNED_LONG_LONG);
        assert_true(fv.value.ullVal >= mj);
        assert_true(fv.value.ullVal <= ramp_energy_mj(offset + (mono_s() - f.t_before_s) * 10) -
                                           ramp_energy_mj(offset) + 1);
        fake_close(&f);
    }
}

static void test_field_values_have_their_own_return_codes(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f,
                 "{'devices': [{'timeline': [{'t': 0, 'power_w': 100, 'mem_temp_c': 60},"
                 "   {'t': 10, 'power_w': 300, 'mem_temp_c': 80}]},"
                 " {'unsupported': ['energy'], 'timeline': [{'t': 0, 'power_w': 75}]}]}",
                 "0", "5");
    gwn_field_value fv[4] = {{.fieldId = GWN_FI_DEV_MEMORY_TEMP},
                             {.fieldId = GWN_FI_DEV_TOTAL_ENERGY_CONSUMPTION},
                             {.fieldId = GWN_FI_DEV_POWER_INSTANT},
                             {.fieldId = 999}};
    long long now_us = gw_wall_ms() * 1000;
    assert_int_equal(f.n->DeviceGetFieldValues(gpu_handle(&f, 0), 4, fv), GWN_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, GWN_SUCCESS);
    assert_int_equal(fv[0].valueType, GWN_VALUE_TYPE_UNSIGNED_INT);
    assert_int_equal(fv[0].value.uiVal, 70);
    assert_int_equal(fv[1].nvmlReturn, GWN_SUCCESS);
    assert_int_equal(fv[1].value.ullVal, 0); /* time is frozen at init */
    assert_int_equal(fv[2].nvmlReturn, GWN_SUCCESS);
    assert_int_equal(fv[2].value.uiVal, 200000);
    assert_int_equal(fv[3].nvmlReturn, GWN_ERROR_NOT_SUPPORTED);
    assert_true(fv[0].timestamp >= now_us - 1000000 && fv[0].timestamp <= now_us + 5000000);

    assert_int_equal(f.n->DeviceGetFieldValues(gpu_handle(&f, 1), 3, fv), GWN_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, GWN_ERROR_NOT_SUPPORTED); /* no mem_temp_c */
    assert_int_equal(fv[1].nvmlReturn, GWN_ERROR_NOT_SUPPORTED); /* "energy" unsupported */
    assert_int_equal(fv[2].nvmlReturn, GWN_SUCCESS);
    assert_int_equal(fv[2].value.uiVal, 75000);
    assert_int_equal(f.n->DeviceGetFieldValues(gpu_handle(&f, 1), 0, fv),
                     GWN_ERROR_INVALID_ARGUMENT);
    fake_close(&f);
}

static gwn_gpm_metrics_get *metrics_request(gwn_gpm_sample s1, gwn_gpm_sample s2,
                                            const unsigned int *ids, unsigned int n)
{
    gwn_gpm_metrics_get *m = calloc(1, sizeof *m);
    assert_non_null(m);
    *m = (gwn_gpm_metrics_get){
        .version = GWN_GPM_METRICS_GET_VERSION, .numMetrics = n, .sample1 = s1, .sample2 = s2};
    for (unsigned int i = 0; i < n; i++)
        m->metrics[i].metricId = ids[i];
    return m;
}

static void test_gpm_support_versions_and_bad_samples(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f, "{'devices': [{'timeline': [{'t': 0, 'sm_active': 50}]}, {}]}", "0", "1");
    const gw_nvml *n = f.n;
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1);
    gwn_gpm_support gs = {.version = GWN_GPM_SUPPORT_VERSION};
    assert_int_equal(n->GpmQueryDeviceSupport(h0, &gs), GWN_SUCCESS);
    assert_int_equal(gs.isSupportedDevice, 1);
    gs.version = 2;
    assert_int_equal(n->GpmQueryDeviceSupport(h0, &gs), GWN_ERROR_ARGUMENT_VERSION_MISMATCH);
    gwn_gpm_sample a = NULL, b = NULL, c = NULL;
    assert_int_equal(n->GpmSampleAlloc(&a), GWN_SUCCESS);
    assert_int_equal(n->GpmSampleAlloc(&b), GWN_SUCCESS);
    assert_int_equal(n->GpmSampleAlloc(&c), GWN_SUCCESS);
    unsigned int ids[] = {GWN_GPM_METRIC_SM_UTIL};
    gwn_gpm_metrics_get *m = metrics_request(a, b, ids, 1);
    assert_int_equal(n->GpmMetricsGet(m), GWN_ERROR_INVALID_ARGUMENT); /* samples not taken */
    assert_int_equal(n->GpmSampleGet(h0, a), GWN_SUCCESS);
    assert_int_equal(n->GpmSampleGet(h0, b), GWN_SUCCESS);
    assert_int_equal(n->GpmSampleGet(h1, c), GWN_SUCCESS);
    assert_int_equal(n->GpmMetricsGet(m), GWN_ERROR_INVALID_ARGUMENT); /* same time: frozen */
    m->sample2 = c;
    assert_int_equal(n->GpmMetricsGet(m), GWN_ERROR_INVALID_ARGUMENT); /* two GPUs */
    m->version = 2;
    assert_int_equal(n->GpmMetricsGet(m), GWN_ERROR_ARGUMENT_VERSION_MISMATCH);
    m->version = GWN_GPM_METRICS_GET_VERSION;
    m->sample2 = (gwn_gpm_sample)m; /* never allocated */
    assert_int_equal(n->GpmMetricsGet(m), GWN_ERROR_INVALID_ARGUMENT);
    assert_int_equal(n->GpmSampleFree(c), GWN_SUCCESS);
    assert_int_equal(n->GpmSampleFree(c), GWN_ERROR_INVALID_ARGUMENT);
    assert_int_equal(n->GpmSampleGet(h0, c), GWN_ERROR_INVALID_ARGUMENT);
    /* Samples still held at shutdown are freed by it; freeing them later is refused, not a
     * double free (ASan would tell). */
    assert_int_equal(n->Shutdown(), GWN_SUCCESS);
    f.n->initialised = false;
    assert_int_equal(n->GpmSampleFree(a), GWN_ERROR_UNINITIALIZED);
    free(m);
    fake_close(&f);
}

static void test_gpm_metrics_are_time_averages_between_samples(void **state)
{
    (void)state;
    /* sm_occupancy ramps 0.5 % per scenario second; the others are flat. */
    fake_lib f;
    fake_open_at(
        &f,
        "{'devices': [{'timeline': ["
        " {'t': 0, 'util_gpu': 98, 'sm_active': 90, 'sm_occupancy': 0, 'tensor_active': 60,"
        "  'dram_active': 30, 'pcie_tx_mib_s': 1234},"
        " {'t': 200, 'util_gpu': 98, 'sm_active': 90, 'sm_occupancy': 100,"
        "  'tensor_active': 60, 'dram_active': 30, 'pcie_tx_mib_s': 1234}]}]}",
        "100", "1");
    const gw_nvml *n = f.n;
    gwn_device h = gpu_handle(&f, 0);
    gwn_gpm_sample s1 = NULL, s2 = NULL;
    assert_int_equal(n->GpmSampleAlloc(&s1), GWN_SUCCESS);
    assert_int_equal(n->GpmSampleAlloc(&s2), GWN_SUCCESS);
    double a1 = mono_s();
    assert_int_equal(n->GpmSampleGet(h, s1), GWN_SUCCESS);
    double b1 = mono_s();
    usleep(100000);
    double a2 = mono_s();
    assert_int_equal(n->GpmSampleGet(h, s2), GWN_SUCCESS);
    double b2 = mono_s();
    unsigned int ids[] = {2, 3, 5, 10, 1, 20, 21, 11};
    gwn_gpm_metrics_get *m = metrics_request(s1, s2, ids, 8);
    assert_int_equal(n->GpmMetricsGet(m), GWN_SUCCESS);
    static const double flat[] = {90, -1, 60, 30, 98, 1234};
    for (int i = 0; i < 6; i++) {
        if (flat[i] < 0)
            continue;
        assert_int_equal(m->metrics[i].nvmlReturn, GWN_SUCCESS);
        if (fabs(m->metrics[i].value - flat[i]) > 1e-9)
            fail_msg("metric %u = %f, want %f", ids[i], m->metrics[i].value, flat[i]);
        assert_non_null(m->metrics[i].metricInfo.shortName);
        assert_non_null(m->metrics[i].metricInfo.unit);
    }
    assert_string_equal(m->metrics[0].metricInfo.unit, "%");
    assert_string_equal(m->metrics[5].metricInfo.unit, "MiB/s");
    assert_int_equal(m->metrics[6].nvmlReturn, GWN_ERROR_NOT_SUPPORTED); /* no pcie_rx_mib_s */
    assert_int_equal(m->metrics[7].nvmlReturn, GWN_ERROR_NOT_SUPPORTED); /* FP64: not scripted */
    /* The occupancy average is 0.25 x (t1 + t2): t1 and t2 are bracketed by the clock readings. */
    double t1_lo = 1 + (a1 - f.t_after_s) * 100, t1_hi = 1 + (b1 - f.t_before_s) * 100;
    double t2_lo = 1 + (a2 - f.t_after_s) * 100, t2_hi = 1 + (b2 - f.t_before_s) * 100;
    double occ = m->metrics[1].value;
    if (occ < 0.25 * (t1_lo + t2_lo) - 1e-9 || occ > 0.25 * (t1_hi + t2_hi) + 1e-9)
        fail_msg("occupancy %f outside [%f, %f]", occ, 0.25 * (t1_lo + t2_lo),
                 0.25 * (t1_hi + t2_hi));
    assert_true(occ < 0.5 * t2_lo); /* an average over the window, not the value at sample 2 */
    free(m);
    fake_close(&f);
}

static void test_mig_instances_have_their_own_handles(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(
        &f,
        "{'devices': [{'mig': {'enabled': true, 'instances': ["
        "   {'uuid': 'MIG-aaaa', 'name': 'NVIDIA H200 MIG 3g.71gb', 'memory_total_mib': 71424,"
        "    'mem_used_mib': 1000}, {'memory_total_mib': 35712}]},"
        "  'timeline': [{'t': 0, 'util_gpu': 50, 'util_mem': 10, 'mem_used_mib': 3000}]},"
        " {'mig': {'enabled': false}, 'timeline': [{'t': 0, 'util_gpu': 50, 'util_mem': 10}]}]}",
        "0", "0");
    const gw_nvml *n = f.n;
    gwn_device h0 = gpu_handle(&f, 0), h1 = gpu_handle(&f, 1), mig = NULL, mig1 = NULL;
    unsigned int cur = 9, pend = 9, max = 0, u;
    gwn_utilization util;
    assert_int_equal(n->DeviceGetMigMode(h0, &cur, &pend), GWN_SUCCESS);
    assert_int_equal(cur, 1);
    assert_int_equal(pend, 1);
    assert_int_equal(n->DeviceGetUtilizationRates(h0, &util), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetMaxMigDeviceCount(h0, &max), GWN_SUCCESS);
    assert_int_equal(max, 7);
    assert_int_equal(n->DeviceGetMigDeviceHandleByIndex(h0, 0, &mig), GWN_SUCCESS);
    assert_int_equal(n->DeviceGetMigDeviceHandleByIndex(h0, 1, &mig1), GWN_SUCCESS);
    assert_ptr_not_equal(mig, mig1);
    assert_ptr_not_equal(mig, h0);
    gwn_device none = NULL;
    assert_int_equal(n->DeviceGetMigDeviceHandleByIndex(h0, 2, &none), GWN_ERROR_NOT_FOUND);
    assert_int_equal(n->DeviceGetMigDeviceHandleByIndex(h0, 7, &none), GWN_ERROR_NOT_FOUND);
    char buf[96];
    assert_int_equal(n->DeviceGetUUID(mig, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "MIG-aaaa");
    assert_int_equal(n->DeviceGetName(mig, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "NVIDIA H200 MIG 3g.71gb");
    assert_int_equal(n->DeviceGetName(mig1, buf, sizeof buf), GWN_SUCCESS);
    assert_string_equal(buf, "NVIDIA H200 MIG");
    assert_int_equal(n->DeviceGetUUID(mig1, buf, sizeof buf), GWN_SUCCESS);
    assert_memory_equal(buf, "MIG-", 4);
    gwn_memory m;
    assert_int_equal(n->DeviceGetMemoryInfo(mig, &m), GWN_SUCCESS);
    assert_int_equal(m.total, 71424 * MIB);
    assert_int_equal(m.used, 1000 * MIB);
    assert_int_equal(m.free, (71424 - 1000) * MIB);
    gwn_memory_v2 m2 = {.version = GWN_MEMORY_V2_VERSION};
    assert_int_equal(n->DeviceGetMemoryInfo_v2(mig1, &m2), GWN_SUCCESS);
    assert_int_equal(m2.total, 35712 * MIB);
    assert_int_equal(m2.used, 0);
    assert_int_equal(n->DeviceGetMemoryInfo(h0, &m), GWN_SUCCESS); /* the parent's own memory */
    assert_int_equal(m.used, 3000 * MIB);
    assert_int_equal(n->DeviceGetUtilizationRates(mig, &util), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetTemperature(mig, 0, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetIndex(mig, &u), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(n->DeviceGetMigDeviceHandleByIndex(mig, 0, &none), GWN_ERROR_NOT_SUPPORTED);
    /* MIG off: mode 0, no instances, utilization works. */
    assert_int_equal(n->DeviceGetMigMode(h1, &cur, &pend), GWN_SUCCESS);
    assert_int_equal(cur, 0);
    assert_int_equal(n->DeviceGetMaxMigDeviceCount(h1, &max), GWN_SUCCESS);
    assert_int_equal(max, 0);
    assert_int_equal(n->DeviceGetMigDeviceHandleByIndex(h1, 0, &none), GWN_ERROR_NOT_FOUND);
    assert_int_equal(n->DeviceGetUtilizationRates(h1, &util), GWN_SUCCESS);
    assert_int_equal(util.gpu, 50);
    fake_close(&f);
}

static const char events_json[] =
    "{'devices': [{'events': [{'t': 0.3, 'type': 'xid', 'data': 79},"
    "   {'t': 0.5, 'type': 'double_bit_ecc'}, {'t': 0.6, 'type': 'gpu_unavailable'}]},"
    " {'events': [{'t': 0.4, 'type': 'xid', 'data': 13}]}]}";

static void test_events_are_delivered_once_then_timeout(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, events_json);
    const gw_nvml *n = f.n; /* EventSetWait is bound to nvmlEventSetWait_v2 */
    gwn_device h0 = gpu_handle(&f, 0);
    unsigned long long types = 0;
    assert_int_equal(n->DeviceGetSupportedEventTypes(h0, &types), GWN_SUCCESS);
    assert_int_equal(types, GWN_EVENT_XID_CRITICAL_ERROR | GWN_EVENT_DOUBLE_BIT_ECC |
                                GWN_EVENT_GPU_UNAVAILABLE);
    gwn_event_set a = NULL, b = NULL;
    assert_int_equal(n->EventSetCreate(&a), GWN_SUCCESS);
    assert_int_equal(n->DeviceRegisterEvents(h0, GWN_EVENT_CLOCK, a), GWN_ERROR_NOT_SUPPORTED);
    assert_int_equal(
        n->DeviceRegisterEvents(h0, GWN_EVENT_XID_CRITICAL_ERROR | GWN_EVENT_DOUBLE_BIT_ECC, a),
        GWN_SUCCESS);
    gwn_event_data e;
    assert_int_equal(n->EventSetWait(a, &e, 0), GWN_ERROR_TIMEOUT); /* nothing due at t = 0 */

    assert_int_equal(n->EventSetWait(a, &e, 2000), GWN_SUCCESS);
    assert_true(mono_s() - f.t_before_s >= 0.3);
    assert_ptr_equal(e.device, h0);
    assert_int_equal(e.eventType, GWN_EVENT_XID_CRITICAL_ERROR);
    assert_int_equal(e.eventData, 79);
    assert_int_equal(n->EventSetWait(a, &e, 2000), GWN_SUCCESS);
    assert_true(mono_s() - f.t_before_s >= 0.5);
    assert_int_equal(e.eventType, GWN_EVENT_DOUBLE_BIT_ECC);
    /* gpu_unavailable (not registered) and GPU 1's XID (GPU not registered) never come. */
    double before = mono_s();
    assert_int_equal(n->EventSetWait(a, &e, 300), GWN_ERROR_TIMEOUT);
    double waited = mono_s() - before;
    if (waited < 0.299 || waited > 2)
        fail_msg("a 300 ms wait took %.3f s", waited);

    /* Each set gets each event once, also when it was due before the set registered. */
    assert_int_equal(n->EventSetCreate(&b), GWN_SUCCESS);
    assert_int_equal(n->DeviceRegisterEvents(h0, GWN_EVENT_XID_CRITICAL_ERROR, b), GWN_SUCCESS);
    assert_int_equal(n->DeviceRegisterEvents(gpu_handle(&f, 1), GWN_EVENT_XID_CRITICAL_ERROR, b),
                     GWN_SUCCESS);
    /* The older nvmlEventSetWait writes the 24-byte struct without the instance ids. */
    gwn_return (*wait_v1)(gwn_event_set, gwn_event_data *, unsigned int) =
        (gwn_return(*)(gwn_event_set, gwn_event_data *, unsigned int))fake_sym(&f,
                                                                               "nvmlEventSetWait");
    memset(&e, 0xAB, sizeof e);
    assert_int_equal(wait_v1(b, &e, 0), GWN_SUCCESS);
    assert_int_equal(e.eventData, 79); /* t = 0.3 before GPU 1's t = 0.4 */
    assert_int_equal(e.gpuInstanceId, 0xABABABABu);
    assert_int_equal(n->EventSetWait(b, &e, 0), GWN_SUCCESS);
    assert_int_equal(e.eventData, 13);
    assert_ptr_equal(e.device, gpu_handle(&f, 1));
    assert_int_equal(e.gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(n->EventSetWait(b, &e, 0), GWN_ERROR_TIMEOUT);
    assert_int_equal(n->EventSetFree(b), GWN_SUCCESS);
    assert_int_equal(n->EventSetFree(b), GWN_ERROR_INVALID_ARGUMENT);
    assert_int_equal(n->EventSetWait(b, &e, 0), GWN_ERROR_INVALID_ARGUMENT);
    fake_close(&f); /* frees set a */
}

typedef struct waiter {
    const gw_nvml *n;
    gwn_event_set set;
    gwn_return r;
    double seconds;
} waiter;

static void *wait_thread(void *arg)
{
    waiter *w = arg;
    gwn_event_data e;
    double start = mono_s();
    w->r = w->n->EventSetWait(w->set, &e, 5000);
    w->seconds = mono_s() - start;
    return NULL;
}

static void test_shutdown_wakes_an_event_waiter(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, "{'devices': [{}]}");
    waiter w = {.n = f.n};
    assert_int_equal(f.n->EventSetCreate(&w.set), GWN_SUCCESS);
    assert_int_equal(
        f.n->DeviceRegisterEvents(gpu_handle(&f, 0), GWN_EVENT_XID_CRITICAL_ERROR, w.set),
        GWN_SUCCESS);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, wait_thread, &w), 0);
    usleep(100000);
    assert_int_equal(f.n->Shutdown(), GWN_SUCCESS);
    f.n->initialised = false;
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(w.r, GWN_ERROR_UNINITIALIZED);
    assert_true(w.seconds < 2);
    fake_close(&f);
}

typedef struct slow_call {
    const gw_nvml *n;
    gwn_device h;
    gwn_return r;
    double seconds;
} slow_call;

static void *slow_processes(void *arg)
{
    slow_call *s = arg;
    unsigned int count = 0;
    double start = mono_s();
    s->r = s->n->DeviceGetComputeRunningProcesses(s->h, &count, NULL);
    s->seconds = mono_s() - start;
    return NULL;
}

static void test_latency_slows_one_call_without_blocking_others(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, "{'devices': [{'latency_ms': {'processes': 400}, 'processes': [],"
                  "  'timeline': [{'t': 0, 'power_w': 100, 'temp_c': 40}]},"
                  " {'latency_ms': {'all': 200, 'power': 0},"
                  "  'timeline': [{'t': 0, 'power_w': 100, 'temp_c': 40}]}]}");
    slow_call s = {.n = f.n, .h = gpu_handle(&f, 0)};
    pthread_t th;
    double start = mono_s();
    assert_int_equal(pthread_create(&th, NULL, slow_processes, &s), 0);
    usleep(50000);
    /* While the slow call sleeps, fast calls on the same GPU go through. */
    double worst = 0;
    unsigned int v;
    for (int i = 0; i < 20; i++) {
        double t0 = mono_s();
        assert_int_equal(f.n->DeviceGetPowerUsage(s.h, &v), GWN_SUCCESS);
        double dt = mono_s() - t0;
        worst = dt > worst ? dt : worst;
    }
    assert_true(mono_s() - start < 0.4); /* all of them before the slow call ended */
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(s.r, GWN_SUCCESS);
    if (s.seconds < 0.399 || worst > 0.2)
        fail_msg("processes took %.3f s (want >= 0.4), a power read %.3f s (want fast)", s.seconds,
                 worst);
    /* "all" applies to every group without its own value. */
    gwn_device h1 = gpu_handle(&f, 1);
    double t0 = mono_s();
    assert_int_equal(f.n->DeviceGetTemperature(h1, 0, &v), GWN_SUCCESS);
    double temp_s = mono_s() - t0;
    t0 = mono_s();
    assert_int_equal(f.n->DeviceGetPowerUsage(h1, &v), GWN_SUCCESS);
    double power_s = mono_s() - t0;
    if (temp_s < 0.199 || power_s > 0.15)
        fail_msg("temperature took %.3f s (want >= 0.2), power %.3f s (want fast)", temp_s,
                 power_s);
    fake_close(&f);
}

typedef struct hammer_arg {
    const gw_nvml *n;
    int failures; /* cmocka's assertions must not run off the main thread */
} hammer_arg;

static void *hammer(void *arg)
{
    hammer_arg *a = arg;
    const gw_nvml *n = a->n;
    for (int i = 0; i < 2000; i++) {
        gwn_device h = NULL;
        unsigned int v, count = 0;
        gwn_gpm_sample s = NULL;
        a->failures += n->DeviceGetHandleByIndex((unsigned int)i % 2, &h) != GWN_SUCCESS;
        a->failures += n->DeviceGetPowerUsage(h, &v) != GWN_SUCCESS;
        a->failures +=
            n->DeviceGetComputeRunningProcesses(h, &count, NULL) != GWN_ERROR_INSUFFICIENT_SIZE;
        a->failures += n->GpmSampleAlloc(&s) != GWN_SUCCESS;
        a->failures += n->GpmSampleGet(h, s) != GWN_SUCCESS;
        a->failures += n->GpmSampleFree(s) != GWN_SUCCESS;
    }
    return NULL;
}

/* Three threads at once, as gpuwatch's tick, slow reader and event watcher do; run under ASan
 * this also checks the lock discipline. */
static void test_concurrent_calls_from_three_threads(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(
        &f, "{'devices': [{'processes': [{'pid': 1, 'used_mib': 1}],"
            "  'timeline': [{'t': 0, 'power_w': 100}, {'t': 1, 'power_w': 200}]},"
            " {'processes': [{'pid': 2, 'used_mib': 1}], 'timeline': [{'t': 0, 'power_w': 5}]}]}");
    pthread_t th[3];
    hammer_arg args[3];
    for (int i = 0; i < 3; i++) {
        args[i] = (hammer_arg){.n = f.n};
        assert_int_equal(pthread_create(&th[i], NULL, hammer, &args[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(args[i].failures, 0);
    }
    fake_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_processes_size_protocol_windows_and_types, fake_teardown),
        cmocka_unit_test_teardown(test_child_process_is_listed_with_both_record_strides,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_energy_is_the_integral_of_power, fake_teardown),
        cmocka_unit_test_teardown(test_field_values_have_their_own_return_codes, fake_teardown),
        cmocka_unit_test_teardown(test_gpm_support_versions_and_bad_samples, fake_teardown),
        cmocka_unit_test_teardown(test_gpm_metrics_are_time_averages_between_samples,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_mig_instances_have_their_own_handles, fake_teardown),
        cmocka_unit_test_teardown(test_events_are_delivered_once_then_timeout, fake_teardown),
        cmocka_unit_test_teardown(test_shutdown_wakes_an_event_waiter, fake_teardown),
        cmocka_unit_test_teardown(test_latency_slows_one_call_without_blocking_others,
                                  fake_teardown),
        cmocka_unit_test_teardown(test_concurrent_calls_from_three_threads, fake_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

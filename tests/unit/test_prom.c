/* Unit tests for src/prom (the store fed by the sink and the bus, the exposition text) and the
 * listen-address parser of src/http. */
#include "test_helpers.h"

#include "events/events.h"
#include "http/http_server.h"
#include "prom/prom_store.h"
#include "prom/prom_text.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>

#define MIB (1024.0 * 1024.0)

static char *render_value(double v)
{
    gw_buf b = {0};
    gw_prom_append_value(&b, v);
    return b.data;
}

static void test_values(void **state)
{
    (void)state;
    const struct {
        double v;
        const char *want;
    } cases[] = {{0, "0"},
                 {143771, "143771"},
                 {-5, "-5"},
                 {0.925, "0.925"},
                 {676.123, "676.123"},
                 {1e-7, "1e-07"},
                 {0.1 + 0.2, "0.3"},
                 {9007199254740993.0, "9007199254740992"},
                 {1e300, "1e+300"},
                 {NAN, "NaN"},
                 {INFINITY, "+Inf"},
                 {-INFINITY, "-Inf"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = render_value(cases[i].v);
        assert_string_equal(s, cases[i].want);
        free(s);
    }
}

static void test_escape(void **state)
{
    (void)state;
    gw_buf b = {0};
    /* backslash, quote, newline; a valid 2-byte and 3-byte sequence; a lone continuation byte,
     * an overlong encoding, a surrogate and a truncated sequence at the end */
    gw_prom_escape_label(&b,
                         "a\\b\"c\nd \xc3\xa9 \xe2\x82\xac \x80 \xc0\xaf \xed\xa0\x80 \xe2\x82");
    assert_string_equal(b.data, "a\\\\b\\\"c\\nd \xc3\xa9 \xe2\x82\xac ? ?? ??? ??");
    gw_buf_free(&b);
}

static void test_negotiate(void **state)
{
    (void)state;
    /* What Prometheus 2.x sends by default: OpenMetrics first. */
    assert_int_equal(
        gw_prom_negotiate("application/openmetrics-text;version=1.0.0,application/"
                          "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
                          "*/*;q=0.1"),
        GW_PROM_OPENMETRICS);
    assert_int_equal(gw_prom_negotiate(NULL), GW_PROM_TEXT);
    assert_int_equal(gw_prom_negotiate("*/*"), GW_PROM_TEXT);
    assert_int_equal(gw_prom_negotiate("text/plain;version=0.0.4"), GW_PROM_TEXT);
    assert_int_equal(gw_prom_negotiate("application/openmetrics-text; q=0"), GW_PROM_TEXT);
    assert_int_equal(gw_prom_negotiate("application/openmetrics-text;q=0.3, text/plain"),
                     GW_PROM_TEXT);
    assert_int_equal(gw_prom_negotiate("text/plain;q=0.2, Application/OpenMetrics-Text"),
                     GW_PROM_OPENMETRICS);
    assert_int_equal(gw_prom_negotiate("application/openmetrics-textual"), GW_PROM_TEXT);
    assert_string_equal(gw_prom_content_type(GW_PROM_OPENMETRICS),
                        "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

static gw_device_info device(unsigned index, const char *uuid)
{
    gw_device_info d = {.index = index, .memory_total_mib = 143771};
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    snprintf(d.uuid, sizeof d.uuid, "%s", uuid);
    snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "00000000:%02X:00.0", index + 1);
    return d;
}

static void test_labels(void **state)
{
    (void)state;
    gw_device_info d = device(3, "GPU-a\"b");
    gw_buf b = {0};
    gw_prom_device_labels(&b, &d, "node-1", "580.159.04");
    assert_string_equal(b.data, "gpu=\"3\",UUID=\"GPU-a\\\"b\",pci_bus_id=\"00000000:04:00.0\","
                                "device=\"nvidia3\",modelName=\"NVIDIA H200\","
                                "Hostname=\"node-1\",DCGM_FI_DRIVER_VERSION=\"580.159.04\"");
    gw_buf_reset(&b);
    gw_prom_device_labels(&b, &d, "node-1", "");
    assert_null(strstr(b.data, "DCGM_FI_DRIVER_VERSION"));
    gw_buf_free(&b);
}

/* A store with two GPUs: GPU 0 has every field, GPU 1 is lost. */
typedef struct fixture {
    gw_prom_store *st;
    gw_sink sink;
    gw_device_info devs[2];
    gw_gpu_sample gpus[2];
    gw_prom_snapshot snap;
    const char *labels[2];
} fixture;

static void fill_gpu0(gw_gpu_sample *g)
{
    gw_set(g, GW_F_UTIL_GPU_PCT, 97);
    gw_set(g, GW_F_UTIL_MEM_PCT, 41);
    gw_set(g, GW_F_MEM_USED_MIB, 13290.81); /* nvidia-smi shows 13291 */
    gw_set(g, GW_F_MEM_FREE_MIB, 130480.19);
    gw_set(g, GW_F_TEMP_GPU_C, 71);
    gw_set(g, GW_F_POWER_DRAW_W, 676.123);
    gw_set(g, GW_F_POWER_LIMIT_W, 700);
    gw_set(g, GW_F_CLOCK_SM_MHZ, 1980);
    gw_set(g, GW_F_CLOCK_MEM_MHZ, 3201);
    gw_set(g, GW_F_ENERGY_MJ, 123456789);
    gw_set(g, GW_F_GPM_GR_ACTIVE_PCT, 98);
    gw_set(g, GW_F_GPM_SM_ACTIVE_PCT, 92.5);
    gw_set(g, GW_F_GPM_SM_OCCUPANCY_PCT, 40);
    gw_set(g, GW_F_GPM_TENSOR_ACTIVE_PCT, 60);
    gw_set(g, GW_F_GPM_DRAM_ACTIVE_PCT, 30);
    gw_set(g, GW_F_GPM_PCIE_TX_MIB_S, 1.5);     /* MiB/s: 1572864 bytes/s */
    gw_set(g, GW_F_GPM_PCIE_RX_MIB_S, 2048.25); /* 2147745792 bytes/s */
    gw_set(g, GW_F_GPM_NVLINK_TX_MIB_S, 0);     /* a measured 0 is a value */
}

static void setup(fixture *fx, bool per_process, bool cmdline, const char *proc_root)
{
    memset(fx, 0, sizeof *fx);
    fx->st = gw_prom_store_new(per_process, cmdline, proc_root);
    fx->sink = gw_prom_store_as_sink(fx->st);
    fx->devs[0] = device(0, "GPU-0");
    fx->devs[1] = device(1, "GPU-1");
    fx->sink.on_start(fx->sink.ctx, fx->devs, 2);
    fill_gpu0(&fx->gpus[0]);
    fx->gpus[1].lost = true;
    fx->labels[0] = "gpu=\"0\"";
    fx->labels[1] = "gpu=\"1\"";
}

static void teardown(fixture *fx)
{
    gw_prom_snapshot_free(&fx->snap);
    gw_prom_store_free(fx->st);
}

static void tick(fixture *fx, uint64_t seq, gw_gpu_process *procs, unsigned nprocs)
{
    gw_sample s = {.host = {.job_rss_mib = NAN},
                   .seq = seq,
                   .mono_ns = 1000 + (int64_t)seq,
                   .gpu_count = 2,
                   .gpus = fx->gpus,
                   .procs_fresh = procs != NULL,
                   .proc_count = nprocs,
                   .procs = procs};
    fx->sink.on_sample(fx->sink.ctx, &s);
}

static char *render(fixture *fx, gw_prom_format f, bool xid_watched)
{
    gw_prom_store_snapshot(fx->st, &fx->snap);
    gw_buf b = {0};
    gw_prom_render_gpus(&b, f, &fx->snap, fx->labels, xid_watched);
    return b.data ? b.data : strdup("");
}

static void test_render_values(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx, false, false, NULL);
    char *before = render(&fx, GW_PROM_TEXT, false);
    assert_string_equal(before, ""); /* no sample yet: no series at all, not zeros */
    free(before);
    tick(&fx, 0, NULL, 0);
    char *t = render(&fx, GW_PROM_TEXT, false);
    const char *want[] = {
        "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n"
        "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\nDCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1980\n",
        "DCGM_FI_DEV_MEM_CLOCK{gpu=\"0\"} 3201\n",
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 71\n",
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 676.123\n",
        "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 123456789\n",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 97\n",
        "DCGM_FI_DEV_MEM_COPY_UTIL{gpu=\"0\"} 41\n",
        "DCGM_FI_DEV_FB_FREE{gpu=\"0\"} 130480\n",
        "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 13291\n",
        "DCGM_FI_DEV_POWER_MGMT_LIMIT{gpu=\"0\"} 700\n",
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\"} 0.98\n",
        "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\"} 0.925\n",
        "DCGM_FI_PROF_SM_OCCUPANCY{gpu=\"0\"} 0.4\n",
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\"} 0.6\n",
        "DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"0\"} 0.3\n",
        "DCGM_FI_PROF_PCIE_TX_BYTES{gpu=\"0\"} 1572864\n",
        "DCGM_FI_PROF_PCIE_RX_BYTES{gpu=\"0\"} 2147745792\n",
        "DCGM_FI_PROF_NVLINK_TX_BYTES{gpu=\"0\"} 0\n",
        "gpuwatch_gpu_lost{gpu=\"0\"} 0\ngpuwatch_gpu_lost{gpu=\"1\"} 1\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(t, want[i]))
            fail_msg("missing %s in\n%s", want[i], t);
    /* The lost GPU has no DCGM series; no XID yet means no XID series. */
    assert_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}"));
    assert_null(strstr(t, "DCGM_FI_PROF_NVLINK_RX_BYTES")); /* never read: absent, not 0 */
    assert_null(strstr(t, "XID"));
    assert_null(strstr(t, "xid"));
    assert_null(strstr(t, "gpuwatch_process"));
    assert_null(strstr(t, "gpuwatch_job")); /* serve has no job */
    free(t);
    gw_sample job = {.seq = 1, .gpu_count = 2, .gpus = fx.gpus, .host = {.job_rss_mib = 1.5}};
    fx.sink.on_sample(fx.sink.ctx, &job);
    t = render(&fx, GW_PROM_TEXT, false);
    assert_non_null(strstr(t, "\ngpuwatch_job_resident_memory_bytes 1572864\n"));
    free(t);
    teardown(&fx);
}

static void test_render_absent_field(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx, false, false, NULL);
    fx.gpus[0].valid &= ~GW_FIELD_BIT(GW_F_POWER_DRAW_W);
    fx.gpus[0].valid &= ~GW_FIELD_BIT(GW_F_GPM_SM_ACTIVE_PCT);
    tick(&fx, 0, NULL, 0);
    char *t = render(&fx, GW_PROM_TEXT, false);
    assert_null(strstr(t, "DCGM_FI_DEV_POWER_USAGE")); /* not even HELP for an empty family */
    assert_null(strstr(t, "DCGM_FI_PROF_SM_ACTIVE"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 71\n"));
    free(t);
    teardown(&fx);
}

static void test_openmetrics(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx, false, false, NULL);
    tick(&fx, 0, NULL, 0);
    char *t = render(&fx, GW_PROM_OPENMETRICS, true);
    /* dcgm-exporter's counter keeps its name: typed unknown, since OpenMetrics counters end in
     * _total; our own counter family drops the _total its samples carry. */
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\n"
                              "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 123456789\n"));
    assert_non_null(strstr(t, "# TYPE gpuwatch_xid_events counter\n"
                              "gpuwatch_xid_events_total{gpu=\"0\"} 0\n"
                              "gpuwatch_xid_events_total{gpu=\"1\"} 0\n"));
    free(t);
    gw_buf b = {0};
    gw_prom_render_end(&b, GW_PROM_OPENMETRICS);
    assert_string_equal(b.data, "# EOF\n");
    gw_buf_reset(&b);
    gw_prom_render_end(&b, GW_PROM_TEXT);
    assert_int_equal(b.len, 0);
    gw_buf_free(&b);
    teardown(&fx);
}

static void emit(gw_prom_store *st, gw_event_kind kind, int gpu, long xid)
{
    gw_event ev = gw_event_make(kind, 1);
    if (kind == GW_EV_XID) {
        ev.xid.gpu = gpu;
        ev.xid.xid = xid;
    } else if (kind == GW_EV_ECC_DOUBLE_BIT) {
        ev.ecc.gpu = gpu;
    }
    gw_prom_store_on_event(st, &ev);
}

static void test_xid(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx, false, false, NULL);
    tick(&fx, 0, NULL, 0);
    gw_prom_store_snapshot(fx.st, &fx.snap);
    uint64_t g0 = fx.snap.generation;
    emit(fx.st, GW_EV_XID, 7, 13);                         /* no such GPU */
    emit(fx.st, GW_EV_ECC_DOUBLE_BIT, 1, 0);               /* not an xid event */
    emit(fx.st, GW_EV_XID, 1, -1);                         /* no XID number */
    emit(fx.st, GW_EV_XID, -1, 13);                        /* no GPU */
    assert_false(gw_prom_store_snapshot(fx.st, &fx.snap)); /* none of them changed anything */
    emit(fx.st, GW_EV_XID, 1, 13);
    emit(fx.st, GW_EV_XID, 1, 79);
    char *t = render(&fx, GW_PROM_TEXT, false);
    assert_true(fx.snap.generation > g0);
    /* The last XID like dcgm-exporter, shown for the lost GPU too; the count as a counter. */
    assert_non_null(strstr(t, "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error "
                              "encountered.\n# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
                              "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\"} 79\n"));
    assert_null(strstr(t, "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"}"));
    assert_non_null(strstr(t, "gpuwatch_xid_events_total{gpu=\"1\"} 2\n"));
    /* Without a watcher, a GPU that had none has an unknown count: absent, not 0. */
    assert_null(strstr(t, "gpuwatch_xid_events_total{gpu=\"0\"}"));
    free(t);
    teardown(&fx);
}

static void test_processes(void **state)
{
    (void)state;
    static const char args[] = "python3\0train.py\0--lr\0"
                               "0.1\0";
    char *root = th_tmpdir();
    th_write(root, "100/comm", "python3\n");
    th_write(root, "101/comm", "python3\n");
    th_write_bytes(root, "100/cmdline", args, sizeof args - 1);
    th_write_bytes(root, "101/cmdline", args, sizeof args - 1);
    fixture fx;
    setup(&fx, true, true, root);
    gw_gpu_process procs[] = {
        {.gpu = 0, .pid = 100, .used_valid = true, .used_mib = 1000 / MIB, .visible = true},
        {.gpu = 0, .pid = 101, .used_valid = true, .used_mib = 500 / MIB, .visible = true},
        {.gpu = 1, .pid = 100, .used_valid = true, .used_mib = 7 / MIB, .visible = true},
        {.gpu = 0, .pid = 102, .used_valid = false, .used_mib = NAN, .visible = true},
        {.gpu = 0, .pid = 999, .used_valid = true, .used_mib = 30 / MIB, .visible = false},
        {.gpu = 9, .pid = 100, .used_valid = true, .used_mib = 1 / MIB, .visible = true},
    };
    snprintf(procs[0].name, sizeof procs[0].name, "python3");
    snprintf(procs[1].name, sizeof procs[1].name, "python3");
    snprintf(procs[2].name, sizeof procs[2].name, "python3");
    snprintf(procs[3].name, sizeof procs[3].name, "Xorg");
    snprintf(procs[5].name, sizeof procs[5].name, "python3");
    tick(&fx, 0, procs, 6);
    char *t = render(&fx, GW_PROM_TEXT, false);
    const char *cmd = ",process=\"python3\",cmdline=\"python3 train.py --lr 0.1\"} ";
    char want[256];
    snprintf(want, sizeof want, "gpuwatch_process_memory_used_bytes{gpu=\"0\"%s1500\n", cmd);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "gpuwatch_process_memory_used_bytes{gpu=\"1\"%s7\n", cmd);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "gpuwatch_process_memory_used_bytes{gpu=\"0\",process=\"unknown\"} "
                              "30\n"));
    assert_null(strstr(t, "Xorg")); /* memory not available (WSL): no series */
    free(t);
    /* The next ticks without a fresh process read keep the list; a fresh empty read clears it. */
    tick(&fx, 1, NULL, 0);
    t = render(&fx, GW_PROM_TEXT, false);
    assert_non_null(strstr(t, "gpuwatch_process_memory_used_bytes"));
    free(t);
    gw_gpu_process none[1];
    tick(&fx, 2, none, 0);
    t = render(&fx, GW_PROM_TEXT, false);
    assert_null(strstr(t, "gpuwatch_process_memory_used_bytes"));
    free(t);
    teardown(&fx);
    th_rmrf(root);
    free(root);
}

static void test_processes_off(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx, false, false, NULL);
    gw_gpu_process p = {.gpu = 0, .pid = 1, .used_valid = true, .used_mib = 5, .visible = true};
    tick(&fx, 0, &p, 1);
    char *t = render(&fx, GW_PROM_TEXT, false);
    assert_null(strstr(t, "gpuwatch_process"));
    free(t);
    teardown(&fx);
}

static void test_self(void **state)
{
    (void)state;
    gw_nvml_call_error errs[] = {{"nvmlDeviceGetPowerUsage", 3}, {"nvmlGpmMetricsGet", 12}};
    gw_prom_self s = {.interval_s = 0.5,
                      .sample_age_s = NAN,
                      .samples = 10,
                      .sample_read_s = NAN,
                      .scrapes = 1,
                      .scrape_duration_s = NAN,
                      .errors = errs,
                      .nerrors = 2,
                      .rss_bytes = 4096,
                      .cpu_s = NAN};
    gw_buf b = {0};
    gw_prom_render_self(&b, GW_PROM_TEXT, &s);
    assert_non_null(strstr(b.data, "gpuwatch_build_info{version=\"" GPUWATCH_VERSION "\"} 1\n"));
    assert_non_null(strstr(b.data, "gpuwatch_sample_interval_seconds 0.5\n"));
    assert_non_null(strstr(b.data, "# TYPE gpuwatch_samples_total counter\n"
                                   "gpuwatch_samples_total 10\n"));
    assert_non_null(strstr(b.data,
                           "gpuwatch_nvml_errors_total{call=\"nvmlDeviceGetPowerUsage\"} "
                           "3\ngpuwatch_nvml_errors_total{call=\"nvmlGpmMetricsGet\"} 12\n"));
    assert_non_null(strstr(b.data, "process_resident_memory_bytes 4096\n"));
    /* Absent values are absent: before the first sample and the first scrape. */
    assert_null(strstr(b.data, "gpuwatch_sample_age_seconds"));
    assert_null(strstr(b.data, "gpuwatch_scrape_duration_seconds"));
    assert_null(strstr(b.data, "process_cpu_seconds_total"));
    gw_buf_reset(&b);
    s.nerrors = 0;
    gw_prom_render_self(&b, GW_PROM_OPENMETRICS, &s);
    assert_null(strstr(b.data, "gpuwatch_nvml_errors"));
    assert_non_null(strstr(b.data, "# TYPE gpuwatch_scrapes counter\ngpuwatch_scrapes_total 1\n"));
    gw_buf_free(&b);
}

static void test_parse_listen(void **state)
{
    (void)state;
    struct sockaddr_storage ss;
    socklen_t len = 0;
    gw_error err = {0};
    assert_int_equal(gw_http_parse_listen("127.0.0.1:9400", &ss, &len, &err), GW_OK);
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)&ss;
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(ntohs(v4->sin_port), 9400);
    assert_int_equal(ntohl(v4->sin_addr.s_addr), 0x7f000001);
    assert_int_equal(gw_http_parse_listen(":9401", &ss, &len, &err), GW_OK);
    assert_int_equal(ntohl(v4->sin_addr.s_addr), 0); /* every interface, only when asked */
    assert_int_equal(ntohs(v4->sin_port), 9401);
    assert_int_equal(gw_http_parse_listen("[::1]:0", &ss, &len, &err), GW_OK);
    assert_int_equal(ss.ss_family, AF_INET6);
    const char *bad[] = {"",
                         "9400",
                         "127.0.0.1",
                         "127.0.0.1:",
                         "127.0.0.1:65536",
                         "127.0.0.1:-1",
                         "127.0.0.1:94x0",
                         "::1:9400",
                         "[::1]9400",
                         "[::1",
                         "no-such-host.invalid:9400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gw_error_clear(&err);
        assert_int_equal(gw_http_parse_listen(bad[i], &ss, &len, &err), GW_E_USAGE);
        assert_non_null(strstr(err.msg, "--listen '"));
        assert_non_null(strstr(err.msg, bad[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_negotiate),     cmocka_unit_test(test_labels),
        cmocka_unit_test(test_render_values), cmocka_unit_test(test_render_absent_field),
        cmocka_unit_test(test_openmetrics),   cmocka_unit_test(test_xid),
        cmocka_unit_test(test_processes),     cmocka_unit_test(test_processes_off),
        cmocka_unit_test(test_self),          cmocka_unit_test(test_parse_listen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

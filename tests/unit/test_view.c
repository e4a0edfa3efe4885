/* Unit tests for src/view: the live view's text and JSON from hand-made samples. */
#include "test_helpers.h"

#include "view/utf8.h"
#include "view/view.h"

#include <cjson/cJSON.h>
#include <math.h>

static gw_device_info dev(unsigned index, const char *name, double slowdown, bool gpm)
{
    gw_device_info d = {.index = index, .slowdown_temp_c = slowdown, .gpm_supported = gpm};
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.uuid, sizeof d.uuid, "GPU-%08u-0000-0000-0000-000000000000", index);
    snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "00000000:%02X:00.0", index + 1);
    d.memory_total_mib = 143771;
    d.power_limit_w = 700;
    d.max_sm_clock_mhz = NAN;
    return d;
}

/* A GPU sample with every value the view shows. */
static gw_gpu_sample busy(double temp, double util, double sm, double used_mib, double draw_w)
{
    gw_gpu_sample g = {0};
    gw_set(&g, GW_F_TEMP_GPU_C, temp);
    gw_set(&g, GW_F_UTIL_GPU_PCT, util);
    gw_set(&g, GW_F_UTIL_MEM_PCT, 40);
    if (!isnan(sm))
        gw_set(&g, GW_F_GPM_SM_ACTIVE_PCT, sm);
    gw_set(&g, GW_F_MEM_USED_MIB, used_mib);
    gw_set(&g, GW_F_MEM_TOTAL_MIB, 143771);
    gw_set(&g, GW_F_POWER_DRAW_W, draw_w);
    gw_set(&g, GW_F_POWER_LIMIT_W, 700);
    gw_set(&g, GW_F_PSTATE, 0);
    gw_set(&g, GW_F_CLOCKS_EVENT_REASONS, 4);
    return g;
}

static gw_gpu_process proc(unsigned gpu, unsigned pid, double used_mib, bool visible)
{
    gw_gpu_process p = {.gpu = gpu, .pid = pid, .visible = visible};
    p.used_valid = !isnan(used_mib);
    p.used_mib = used_mib;
    snprintf(p.name, sizeof p.name, "%s", visible ? "python3" : "");
    return p;
}

static char *render(const gw_view *v, bool color, int width)
{
    gw_view_style st = {.color = color, .width_cols = width};
    gw_buf b = {0};
    gw_view_text(v, &st, &b);
    return b.data;
}

/* Everything after the header line. */
static const char *body(const char *text)
{
    const char *nl = strchr(text, '\n');
    return nl ? nl + 1 : text;
}

static gw_view view_of(const gw_device_info *devs, unsigned n, const gw_sample *s,
                       const gw_view_proc *procs)
{
    gw_view v = {.hostname = "node7",
                 .driver_version = "580.159.04",
                 .version = "0.1.0",
                 .wall_ms = INT64_C(1796012530000), /* 2026-11-30 04:22:10 UTC */
                 .utc_offset_s = 3600,
                 .devices = devs,
                 .device_count = n,
                 .sample = s,
                 .procs = procs};
    return v;
}

static void test_text_two_gpus_with_processes(void **state)
{
    (void)state;
    gw_device_info devs[2] = {dev(0, "NVIDIA H200", 89, true), dev(1, "NVIDIA H200", 89, true)};
    gw_gpu_sample gpus[2] = {busy(52, 100, 91.6, 13390.2, 603.4), busy(36, 0, 0, 0, 80)};
    gw_gpu_process procs[3] = {proc(0, 4242, 12870, true), proc(0, 77, 512, false),
                               proc(1, 123456, NAN, true)};
    gw_view_proc details[3] = {
        {.uid_valid = true,
         .uid = 1000,
         .user = "alice",
         .command = "python3 train.py --epochs 10"},
        {0},
        {.uid_valid = true, .uid = 4000001, .user = "4000001", .command = "python3 -m eval"}};
    gw_sample s = {.gpu_count = 2, .gpus = gpus, .proc_count = 3, .procs = procs};
    gw_view v = view_of(devs, 2, &s, details);
    char *t = render(&v, false, 0);
    assert_string_equal(t, "node7  2026-11-30 05:22:10  driver 580.159.04\n"
                           "[0] NVIDIA H200 | 52\xC2\xB0"
                           "C | 100 %  SM 92 % | 13391 / 143771 MiB | 603 / 700 W\n"
                           "    alice      4242  python3 train.py --epochs 10  12870 MiB\n"
                           "    -            77  (another container)             512 MiB\n"
                           "[1] NVIDIA H200 | 36\xC2\xB0"
                           "C |   0 %  SM  0 % |     0 / 143771 MiB |  80 / 700 W\n"
                           "    4000001  123456  python3 -m eval                     n/a\n");
    assert_null(strchr(t, '\x1b'));
    free(t);
}

static void test_colour_thresholds(void **state)
{
    (void)state;
    gw_device_info devs[3] = {dev(0, "A", 89, true), dev(1, "B", 89, true), dev(2, "C", NAN, true)};
    /* hot, busy, memory full, at the power cap / warm, half busy, 85 % memory / cool, idle */
    gw_gpu_sample gpus[3] = {busy(85, 97, 85, 140000, 690), busy(75, 50, 40, 122300, 500),
                             busy(95, 10, 5, 100, 100)};
    gw_sample s = {.gpu_count = 3, .gpus = gpus};
    gw_view v = view_of(devs, 3, &s, NULL);
    char *t = render(&v, true, 0);
    const char *l0 = strstr(t, "[0]"), *l1 = strstr(t, "[1]"), *l2 = strstr(t, "[2]");
    assert_non_null(l0);
    assert_non_null(l1);
    assert_non_null(l2);
    char *line0 = strndup(l0, (size_t)(l1 - l0)), *line1 = strndup(l1, (size_t)(l2 - l1));
    assert_non_null(strstr(line0, "\x1b[31m85\xC2\xB0"
                                  "C\x1b[0m")); /* within 5 C of 89 */
    assert_non_null(strstr(line0, "\x1b[32m97 %\x1b[0m"));
    assert_non_null(strstr(line0, "\x1b[32m85 %\x1b[0m"));
    assert_non_null(strstr(line0, "\x1b[31m140000\x1b[0m")); /* 97 % of memory */
    assert_non_null(strstr(line0, "\x1b[33m690\x1b[0m"));    /* 98.6 % of the limit */
    assert_non_null(strstr(line1, "\x1b[33m75\xC2\xB0"
                                  "C\x1b[0m")); /* within 15 C */
    assert_non_null(strstr(line1, "\x1b[33m50 %\x1b[0m"));
    assert_non_null(strstr(line1, "\x1b[33m122300\x1b[0m")); /* 85 % */
    assert_non_null(strstr(line1, " 500 / 700 W"));          /* no colour below 98 % */
    /* unknown slowdown threshold: no temperature colour; idle utilisation: no colour */
    assert_non_null(strstr(l2, "| 95\xC2\xB0"
                               "C |"));
    assert_non_null(strstr(l2, "| 10 %  SM"));
    free(line0);
    free(line1);
    free(t);
    t = render(&v, false, 0);
    assert_null(strchr(t, '\x1b'));
    free(t);
}

static void test_absent_values_lost_gpu_and_no_gpm(void **state)
{
    (void)state;
    gw_device_info devs[2] = {dev(0, "NVIDIA A100-SXM4-80GB", 85, false),
                              dev(1, "NVIDIA A100-SXM4-80GB", 85, false)};
    gw_gpu_sample gpus[2] = {{0}, {.lost = true}};
    gw_set(&gpus[0], GW_F_TEMP_GPU_C, 40);
    gw_sample s = {.gpu_count = 2, .gpus = gpus};
    gw_view v = view_of(devs, 2, &s, NULL);
    char *t = render(&v, false, 0);
    /* no GPU has GPM: no SM column; absent values read n/a, never 0 */
    assert_string_equal(body(t), "[0] NVIDIA A100-SXM4-80GB | 40\xC2\xB0"
                                 "C | n/a | n/a / n/a MiB | "
                                 "n/a / n/a W\n"
                                 "[1] NVIDIA A100-SXM4-80GB | lost: the GPU fell off the bus (look "
                                 "for Xid 79 in dmesg)\n");
    free(t);
}

static void test_mig_devices_under_their_parent(void **state)
{
    (void)state;
    gw_device_info devs[2] = {dev(0, "NVIDIA H200", 89, false), dev(1, "NVIDIA H200", 89, false)};
    devs[0].mig_enabled = true;
    gw_gpu_sample gpus[2] = {busy(44, NAN, NAN, 20600, 310), busy(40, 3, NAN, 1, 90)};
    gpus[0].valid &= ~GW_FIELD_BIT(GW_F_UTIL_GPU_PCT); /* NOT_SUPPORTED under MIG */
    gw_mig_device migs[2] = {{.gpu = 0,
                              .slot = 0,
                              .name = "NVIDIA H200 MIG 3g.71gb",
                              .uuid = "MIG-a",
                              .memory_valid = true,
                              .mem_used_mib = 20480,
                              .mem_total_mib = 71424},
                             {.gpu = 0,
                              .slot = 3,
                              .name = "NVIDIA H200 MIG 1g.18gb",
                              .uuid = "MIG-b",
                              .memory_valid = false,
                              .mem_used_mib = NAN,
                              .mem_total_mib = NAN}};
    gw_gpu_process procs[1] = {proc(0, 99, 20000, false)};
    gw_sample s = {.gpu_count = 2,
                   .gpus = gpus,
                   .mig_count = 2,
                   .migs = migs,
                   .proc_count = 1,
                   .procs = procs};
    gw_view v = view_of(devs, 2, &s, NULL);
    char *t = render(&v, false, 0);
    assert_string_equal(body(t), "[0] NVIDIA H200 | 44\xC2\xB0"
                                 "C | n/a | 20600 / 143771 MiB | 310 / 700 W\n"
                                 "    MIG 0  NVIDIA H200 MIG 3g.71gb  20480 / 71424 MiB\n"
                                 "    MIG 3  NVIDIA H200 MIG 1g.18gb  n/a MiB\n"
                                 "    -        99  (another container)  20000 MiB\n"
                                 "[1] NVIDIA H200 | 40\xC2\xB0"
                                 "C | 3 % |     1 / 143771 MiB |  90 / 700 W\n");
    free(t);
}

/* Strips escape sequences (for width checks). */
static char *plain(const char *s)
{
    char *out = strdup(s), *o = out;
    for (; *s; s++) {
        if (*s == '\x1b') {
            while (*s && *s != 'm' && *s != 'K')
                s++;
            continue;
        }
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

static void test_long_and_invalid_commands_fit_the_width(void **state)
{
    (void)state;
    gw_device_info devs[1] = {
        dev(0, "NVIDIA H200 with a really long marketing name here", 89, true)};
    gw_gpu_sample gpus[1] = {busy(50, 99, 90, 100000, 650)};
    gw_gpu_process procs[2] = {proc(0, 1, 1000, true), proc(0, 2, 1000, true)};
    char long_cmd[5000];
    memset(long_cmd, 'x', sizeof long_cmd - 1);
    long_cmd[sizeof long_cmd - 1] = '\0';
    memcpy(long_cmd, "python3 ", 8);
    gw_buf wide = {0};
    for (int i = 0; i < 40; i++)
        gw_buf_puts(&wide, "\xE6\xBC\xA2\xEF\xBF\xBD"); /* CJK and a replacement character */
    gw_view_proc details[2] = {{.user = "a-user-with-a-very-long-login-name", .command = long_cmd},
                               {.user = "bob", .command = wide.data}};
    gw_sample s = {.gpu_count = 1, .gpus = gpus, .proc_count = 2, .procs = procs};
    gw_view v = view_of(devs, 1, &s, details);
    for (int width = 40; width <= 120; width += 40) {
        for (int color = 0; color < 2; color++) {
            char *t = render(&v, color, width);
            char *p = plain(t);
            char *save = NULL;
            int lines = 0;
            for (char *ln = strtok_r(p, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
                assert_true(gw_utf8_width(ln) <= width);
                gw_buf check = {0};
                gw_utf8_sanitize(ln, strlen(ln), &check); /* valid UTF-8 is left unchanged */
                assert_string_equal(check.data, ln);
                gw_buf_free(&check);
                lines++;
            }
            assert_int_equal(lines, 4);
            free(p);
            free(t);
        }
    }
    char *t = render(&v, false, 100);
    assert_non_null(strstr(t, "python3 xxxx"));
    assert_non_null(strstr(t, "xxx...  1000 MiB\n"));
    assert_non_null(strstr(
        t, "\xEF\xBF\xBD...   1000 MiB\n")); /* a wide character that does not fit leaves a space */
    free(t);
    gw_buf_free(&wide);
}

static void test_json_document(void **state)
{
    (void)state;
    gw_device_info devs[2] = {dev(0, "NVIDIA H200", 89, true), dev(1, "NVIDIA H200", 89, true)};
    devs[1].mig_enabled = true;
    gw_gpu_sample gpus[2] = {busy(52, 100, 91.6049, 13390.2, 603.456), {.lost = true}};
    gw_gpu_process procs[2] = {proc(0, 4242, 12870, true), proc(0, 77, NAN, false)};
    procs[1].graphics = true;
    gw_view_proc details[2] = {
        {.uid_valid = true, .uid = 1000, .user = "alice", .command = "python3 train.py"}, {0}};
    gw_mig_device migs[1] = {{.gpu = 1,
                              .slot = 2,
                              .name = "MIG 1g",
                              .uuid = "MIG-x",
                              .memory_valid = true,
                              .mem_used_mib = 1.5,
                              .mem_total_mib = 16384}};
    gw_sample s = {.gpu_count = 2,
                   .gpus = gpus,
                   .proc_count = 2,
                   .procs = procs,
                   .mig_count = 1,
                   .migs = migs};
    gw_view v = view_of(devs, 2, &s, details);
    gw_buf b = {0};
    gw_view_json(&v, &b);
    assert_null(strchr(b.data, '\n'));
    cJSON *doc = cJSON_Parse(b.data);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "timestamp")->valuestring,
                        "2026-11-30T04:22:10.000Z");
    assert_string_equal(cJSON_GetObjectItem(doc, "hostname")->valuestring, "node7");
    assert_string_equal(cJSON_GetObjectItem(doc, "driver_version")->valuestring, "580.159.04");
    cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "gpus"), 0);
    assert_int_equal(cJSON_GetObjectItem(g0, "temperature_c")->valueint, 52);
    assert_float_equal(cJSON_GetObjectItem(g0, "sm_active_pct")->valuedouble, 91.6, 1e-9);
    assert_float_equal(cJSON_GetObjectItem(g0, "power_draw_w")->valuedouble, 603.46, 1e-9);
    assert_int_equal(cJSON_GetObjectItem(g0, "memory_used_mib")->valueint, 13391);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(g0, "sm_occupancy_pct")));
    assert_string_equal(cJSON_GetObjectItem(g0, "pstate")->valuestring, "P0");
    assert_string_equal(cJSON_GetObjectItem(g0, "clocks_event_reasons")->valuestring,
                        "0x0000000000000004");
    cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(g0, "processes"), 0);
    assert_string_equal(cJSON_GetObjectItem(p0, "user")->valuestring, "alice");
    assert_int_equal(cJSON_GetObjectItem(p0, "uid")->valueint, 1000);
    assert_string_equal(cJSON_GetObjectItem(p0, "command")->valuestring, "python3 train.py");
    assert_string_equal(cJSON_GetObjectItem(p0, "type")->valuestring, "compute");
    cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItem(g0, "processes"), 1);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(p1, "visible")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p1, "user")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p1, "uid")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p1, "memory_used_mib")));
    assert_string_equal(cJSON_GetObjectItem(p1, "type")->valuestring, "graphics");
    cJSON *g1 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "gpus"), 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(g1, "lost")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(g1, "temperature_c")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(g1, "mig_enabled")));
    cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(g1, "mig_devices"), 0);
    assert_int_equal(cJSON_GetObjectItem(m, "slot")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(m, "memory_used_mib")->valueint, 2);
    assert_string_equal(cJSON_GetObjectItem(m, "uuid")->valuestring, "MIG-x");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g1, "processes")), 0);
    cJSON_Delete(doc);
    gw_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_two_gpus_with_processes),
        cmocka_unit_test(test_colour_thresholds),
        cmocka_unit_test(test_absent_values_lost_gpu_and_no_gpm),
        cmocka_unit_test(test_mig_devices_under_their_parent),
        cmocka_unit_test(test_long_and_invalid_commands_fit_the_width),
        cmocka_unit_test(test_json_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

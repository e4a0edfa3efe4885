/* report/: gw_report_finish_run on a run directory, verdict lines, and summary.json's shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "report/report.h"
#include "synth.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_finish_run(void **state)
{
    (void)state;
    char dir[] = "/tmp/gwfinishXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/gpu.csv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "timestamp, index, utilization.gpu [%%], memory.used [MiB], memory.total [MiB], "
               "power.draw [W], power.limit [W]\n");
    for (int i = 0; i < 120; i++) /* 10 s idle, then 110 s busy, leaking 100 MiB/s */
        fprintf(f, "2026-11-30T03:%02d:%02d.000Z, 0, %d, %d, 80000, 600.00, 700.00\n", 20 + i / 60,
                i % 60, i < 10 ? 0 : 100, i < 10 ? 0 : 1000 + 100 * (i - 10));
    fclose(f);
    char *lines = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&lines, &len);
    gw_error err = {0};
    /* links planted where the report goes are replaced, never followed */
    char victim[300];
    snprintf(victim, sizeof victim, "%s.victim", dir);
    f = fopen(victim, "w");
    fputs("precious\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_int_equal(symlink(victim, path), 0);
    snprintf(path, sizeof path, "%s/report.html", dir);
    assert_int_equal(symlink(victim, path), 0);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    assert_int_equal(gw_report_finish_run(dir, dfd, out, &err), GW_OK);
    close(dfd);
    fclose(out);
    char *kept = slurp(victim);
    assert_string_equal(kept, "precious\n");
    free(kept);
    unlink(victim);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode)); /* report.html is a file now, the link is gone */
    assert_true(st.st_size > 1000);
    /* one line per verdict, severity first */
    assert_non_null(lines);
    assert_true(strncmp(lines, "critical  memory_leak", 21) == 0);
    assert_non_null(strstr(lines, "GPU 0"));
    assert_int_equal(strchr(lines, '\n') - lines + 1, (long)len); /* exactly one verdict */
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *text = slurp(path);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_int_equal(cJSON_GetObjectItem(root, "schema_version")->valueint, 1);
    cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "verdicts"), 0);
    assert_string_equal(cJSON_GetObjectItem(v, "id")->valuestring, "memory_leak");
    assert_string_equal(cJSON_GetObjectItem(v, "severity")->valuestring, "critical");
    assert_int_equal(cJSON_GetObjectItem(v, "gpu")->valueint, 0);
    assert_string_equal(cJSON_GetObjectItem(v, "start")->valuestring + 10, "T03:20:21.000Z");
    cJSON *ev = cJSON_GetObjectItem(v, "evidence");
    assert_float_equal(cJSON_GetObjectItem(ev, "slope_mib_per_s")->valuedouble, 100, 1e-3);
    cJSON *th = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "thresholds"), "r2");
    assert_string_equal(cJSON_GetObjectItem(th, "op")->valuestring, ">");
    cJSON *gpu = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "gpus"), 0);
    cJSON *util = cJSON_GetObjectItem(cJSON_GetObjectItem(gpu, "stats"), "utilization.gpu [%]");
    assert_float_equal(cJSON_GetObjectItem(util, "max")->valuedouble, 100, 0);
    assert_float_equal(cJSON_GetObjectItem(util, "p5")->valuedouble, 0, 0);
    /* 600 W for 120 s = 20 Wh */
    assert_float_equal(cJSON_GetObjectItem(gpu, "energy_wh")->valuedouble, 20, 1e-9);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(gpu, "slowdown_temp_c"))); /* absent: null */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "phases")), 3);
    cJSON_Delete(root);
    free(text);
    free(lines);
    assert_int_equal(synth_remove_dir(dir), 0);
}

static void test_finish_run_without_gpu_csv(void **state)
{
    (void)state;
    char dir[] = "/tmp/gwfinishXXXXXX";
    assert_non_null(mkdtemp(dir));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    gw_error err = {0};
    assert_int_equal(gw_report_finish_run(dir, dfd, NULL, &err), GW_E_IO);
    char want[300];
    snprintf(want, sizeof want, "no analysis: %s/gpu.csv", dir);
    assert_non_null(strstr(err.msg, want));
    /* a directory that was replaced while recording is not read, nor written into */
    char moved[300];
    snprintf(moved, sizeof moved, "%s.moved", dir);
    assert_int_equal(rename(dir, moved), 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(gw_report_finish_run(dir, dfd, NULL, &err), GW_E_IO);
    assert_non_null(strstr(err.msg, "moved or replaced"));
    close(dfd);
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(rmdir(moved), 0); /* nothing was written in either */
}

static void test_json_nan_is_null(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 30);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 30, 50);
    gw_analysis *a = synth_analyze(s);
    cJSON *root = gw_report_json(a);
    cJSON *gpu = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "gpus"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(gpu, "energy_wh"))); /* no power column */
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(gpu, "stats"), "power.draw [W]"));
    cJSON *th = cJSON_GetObjectItem(root, "thresholds");
    assert_float_equal(cJSON_GetObjectItem(th, "memory_capacity_pct")->valuedouble, 92, 0);
    cJSON_Delete(root);
    gw_analysis_free(a);
    gw_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finish_run),
        cmocka_unit_test(test_finish_run_without_gpu_csv),
        cmocka_unit_test(test_json_nan_is_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

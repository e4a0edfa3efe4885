/* report/: gw_report_finish_run on a run directory, verdict lines, and summary.json's shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "report/report.h"
#include "synth.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
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

/* True when word occurs in s with no letter on either side ("inf", not "info"). */
static bool has_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(s, word); p; p = strstr(p + 1, word))
        if ((p == s || !isalpha((unsigned char)p[-1])) && !isalpha((unsigned char)p[n]))
            return true;
    return false;
}

/* Values the reader would have dropped, planted straight into the series: every renderer writes
 * them absent (gw_fmt.h) instead of overflowing a buffer or printing 300 digits. */
static void test_renderers_hold_absurd_values(void **state)
{
    (void)state;
    const double absurd[] = {1e60, 1e64, 1e308, -1e300, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof absurd / sizeof absurd[0]; k++) {
        gw_series *s = synth_new(1, 30);
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 30, 90);
        synth_set(s, 0, GW_F_MEM_USED_MIB, 0, 30, absurd[k]);
        synth_set(s, 0, GW_F_POWER_DRAW_W, 0, 30, absurd[k]);
        synth_set(s, 0, GW_F_TEMP_GPU_C, 0, 30, absurd[k]);
        s->gpus[0]->memory_total_mib = absurd[k];
        s->gpus[0]->power_limit_w = absurd[k];
        gw_analysis *a = synth_analyze(s);
        /* verdict messages are the analysis' prose (src/analysis), not a renderer's numbers */
        for (size_t v = 0; v < a->verdicts.n; v++)
            a->verdicts.v[v].message[0] = '\0';
        char *text = NULL, *html = NULL;
        size_t tlen = 0, hlen = 0;
        FILE *t = open_memstream(&text, &tlen), *h = open_memstream(&html, &hlen);
        gw_report_text(t, a, NULL);
        gw_report_html(h, a, NULL);
        fclose(t);
        fclose(h);
        cJSON *root = gw_report_json(a);
        char *json = cJSON_PrintUnformatted(root);
        for (const char *out[] = {text, html, json, NULL}, **o = out; *o; o++) {
            assert_null(strstr(*o, "e+6"));
            assert_null(strstr(*o, "e+30"));
            assert_false(has_word(*o, "inf"));
            assert_false(has_word(*o, "nan"));
            assert_null(strstr(*o, "000000000000000000"));
        }
        cJSON *gpu = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "gpus"), 0);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(gpu, "memory_total_mib")));
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(gpu, "power_limit_w")));
        cJSON *mem = cJSON_GetObjectItem(cJSON_GetObjectItem(gpu, "stats"), "memory.used [MiB]");
        assert_true(mem == NULL || cJSON_IsNull(cJSON_GetObjectItem(mem, "max")));
        cJSON *util = cJSON_GetObjectItem(cJSON_GetObjectItem(gpu, "stats"), "utilization.gpu [%]");
        assert_float_equal(cJSON_GetObjectItem(util, "max")->valuedouble, 90, 0);
        /* the HTML GPU table: memory max, memory total, temperature max and power cells empty */
        const char *row = strstr(html, "<tr><td>GPU 0</td>");
        assert_non_null(row);
        assert_non_null(strstr(row, "<td class=\"num\">90.0 %</td>")); /* shares: 1 decimal */
        assert_non_null(strstr(row, "<td class=\"num\"></td><td class=\"num\"></td>"
                                    "<td class=\"num\"></td>"));
        free(json);
        cJSON_Delete(root);
        free(text);
        free(html);
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

/* A verdict's evidence reads the same in the text and the HTML report (the HTML printed 4
 * significant digits, the text 2 decimals: "4.997" there, "5.00" here). */
static void test_evidence_numbers_equal_in_text_and_html(void **state)
{
    (void)state;
    gw_series *s = synth_new(1, 30);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 30, 90);
    gw_analysis *a = synth_analyze(s);
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_GPU_LOST, GW_SEV_CRITICAL, 0, SYNTH_T0_MS,
                                   SYNTH_T0_MS + 1000);
    gw_verdict_num(v, "a", 4.997);
    gw_verdict_num(v, "b", 0.3);
    gw_verdict_num(v, "c", 123.4);
    gw_verdict_num(v, "d", 86.54);
    gw_verdict_num(v, "e", NAN);
    char *text = NULL, *html = NULL;
    size_t tlen = 0, hlen = 0;
    FILE *t = open_memstream(&text, &tlen), *h = open_memstream(&html, &hlen);
    gw_report_text(t, a, NULL);
    gw_report_html(h, a, NULL);
    fclose(t);
    fclose(h);
    const char *want = "evidence: a=5.00, b=0.300, c=123, d=86.5, e=unknown";
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(html, want));
    free(text);
    free(html);
    gw_analysis_free(a);
    gw_series_free(s);
}

/* A record in which no GPU ever worked says so, not "not enough steady-state data". */
static void test_no_verdict_when_no_gpu_worked_says_so(void **state)
{
    (void)state;
    gw_series *s = synth_new(2, 30);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 30, 0);
    synth_set(s, 1, GW_F_UTIL_GPU_PCT, 0, 30, 3);
    gw_analysis *a = synth_analyze(s);
    assert_int_equal(a->verdicts.n, 0);
    const char *why = gw_report_no_verdict_reason(a);
    assert_string_equal(why, "no GPU worked (utilization.gpu below work_util_pct throughout)");
    gw_analysis_free(a);
    gw_series_free(s);
    /* one GPU worked (briefly: too short to judge): the old reason */
    s = synth_new(2, 30);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 30, 0);
    synth_set(s, 1, GW_F_UTIL_GPU_PCT, 0, 30, 0);
    synth_set(s, 1, GW_F_UTIL_GPU_PCT, 10, 12, 90);
    a = synth_analyze(s);
    assert_int_equal(a->verdicts.n, 0);
    assert_string_equal(gw_report_no_verdict_reason(a), "not enough steady-state data to judge");
    gw_analysis_free(a);
    gw_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finish_run),
        cmocka_unit_test(test_finish_run_without_gpu_csv),
        cmocka_unit_test(test_json_nan_is_null),
        cmocka_unit_test(test_renderers_hold_absurd_values),
        cmocka_unit_test(test_evidence_numbers_equal_in_text_and_html),
        cmocka_unit_test(test_no_verdict_when_no_gpu_worked_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

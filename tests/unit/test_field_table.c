/* The field table is the one place a GPU field is named (docs/style.md, "Recipe: adding a GPU
 * field"). These tests walk gw_fields[] and check that every reader and writer sees each field the
 * way its row says: the gpu.csv header, `gpuwatch query`, the log reader (nvidia-smi CSV names and
 * aliases, dmon columns), the Prometheus exporter (dcgm-exporter names and scales), the sampler's
 * read sets, and the fake NVML, which must serve every scenario key the table names (and leave the
 * field absent, never 0, without it). A new row that misses one of them fails here. */
#include "fake_nvml_test.h"

#include "logread/logread.h"
#include "logread/series.h"
#include "logread/synonyms.h"
#include "prom/prom_text.h"
#include "query/query.h"
#include "record/csv_sink.h"
#include "sampler/sampler.h"
#include "util/gw_buf.h"
#include "view/view.h"

#include <cjson/cJSON.h>

#include <math.h>

/* A value inside every GPU field's bounds, exact in every CSV form. */
#define VALUE 7.0

/* The part of a CSV header before " [unit]". */
static void header_key(const char *header, char *key, size_t size)
{
    snprintf(key, size, "%.*s", (int)strcspn(header, " ["), header);
}

static void test_every_row_is_complete_and_unique(void **state)
{
    (void)state;
    int max_pos = 0, columns = 0;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        assert_int_equal(fi->group, GW_FG_GPU);
        assert_non_null(fi->key);
        assert_non_null(fi->csv_header);
        assert_non_null(fi->unit);
        assert_non_null(fi->source);
        assert_true(gw_field_bounds_of[f].hi > gw_field_bounds_of[f].lo);
        assert_true(gw_field_plausible((gw_field)f, VALUE));
        char key[64];
        header_key(fi->csv_header, key, sizeof key);
        if (gw_field_by_key(GW_FG_GPU, key) != f)
            fail_msg("%s: its CSV header key %s finds another field", fi->key, key);
        if (fi->alias && gw_field_by_key(GW_FG_GPU, fi->alias) != f)
            fail_msg("%s: its alias %s finds another field", fi->key, fi->alias);
        for (int g = 0; g < f; g++) {
            const gw_field_info *o = &gw_fields[g];
            if (strcmp(o->key, fi->key) == 0 || (fi->csv_pos && o->csv_pos == fi->csv_pos) ||
                (fi->dmon && o->dmon && strcmp(o->dmon, fi->dmon) == 0) ||
                (fi->dcgm.name && o->dcgm.name && strcmp(o->dcgm.name, fi->dcgm.name) == 0) ||
                (fi->gpm_metric && o->gpm_metric == fi->gpm_metric))
                fail_msg("%s and %s share a name, a column or a metric", o->key, fi->key);
        }
        /* the sampler's read sets follow the row */
        bool gpm = (GW_FIELDS_GPM & GW_FIELD_BIT(f)) != 0;
        if (gpm != (fi->gpm_metric != 0))
            fail_msg("%s: GW_FIELDS_GPM and gpm_metric disagree", fi->key);
        if (fi->csv_pos && !(GW_FIELDS_RECORD & GW_FIELD_BIT(f)))
            fail_msg("%s: a gpu.csv column that GW_FIELDS_RECORD does not read", fi->key);
        if (fi->nvml.shape != GW_NVML_OWN)
            assert_true(fi->nvml.symbol && strncmp(fi->nvml.symbol, "nvmlDevice", 10) == 0);
        if (fi->dcgm.name) {
            assert_true(strncmp(fi->dcgm.name, "DCGM_FI_", 8) == 0);
            assert_non_null(fi->dcgm.help);
            assert_true(fi->dcgm.scale > 0);
        }
        if (fi->csv_pos) {
            columns++;
            max_pos = fi->csv_pos > max_pos ? fi->csv_pos : max_pos;
        }
    }
    assert_int_equal(max_pos, columns); /* gpu.csv columns 1..N, none skipped */
}

static void test_gpu_csv_header_is_the_table(void **state)
{
    (void)state;
    char *h = strdup(gw_csv_gpu_header());
    const char *cols[GW_F_COUNT + 2];
    size_t n = 0;
    h[strcspn(h, "\n")] = '\0';
    for (char *save = NULL, *c = strtok_r(h, ",", &save); c && n < GW_F_COUNT + 2;
         c = strtok_r(NULL, ",", &save))
        cols[n++] = c + strspn(c, " ");
    assert_string_equal(cols[0], "timestamp");
    assert_string_equal(cols[1], "index");
    size_t in_csv = 0;
    for (int f = 0; f < GW_F_COUNT; f++) {
        int pos = gw_fields[f].csv_pos;
        if (!pos)
            continue;
        in_csv++;
        assert_true((size_t)pos + 1 < n);
        assert_string_equal(cols[pos + 1], gw_fields[f].csv_header);
    }
    assert_int_equal(n, in_csv + 2);
    free(h);
}

static void test_query_lists_the_table(void **state)
{
    (void)state;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        char key[64];
        header_key(fi->csv_header, key, sizeof key);
        const gw_qfield *q = gw_qfield_find(key);
        if (!fi->help) {
            assert_null(q); /* not a --query-gpu field */
            continue;
        }
        if (!q || q->source != GW_QS_FIELD || q->field != (gw_gpu_field)f)
            fail_msg("%s: query does not list it as %s", fi->key, key);
        assert_string_equal(q->help, fi->help);
        assert_true(q->bare_na == fi->bare_na);
        if (fi->alias)
            assert_ptr_equal(gw_qfield_find(fi->alias), q);
    }
}

static void test_exporter_names_the_table(void **state)
{
    (void)state;
    gw_gpu_sample g = {0};
    for (int f = 0; f < GW_F_COUNT; f++)
        gw_set(&g, (gw_gpu_field)f, VALUE);
    gw_device_info dev = {.index = 0};
    int last_xid = -1;
    uint64_t xid_count = 0;
    gw_prom_snapshot snap = {.generation = 1,
                             .ndev = 1,
                             .devs = &dev,
                             .have_sample = true,
                             .gpus = &g,
                             .last_xid = &last_xid,
                             .xid_count = &xid_count};
    const char *labels[1] = {"gpu=\"0\""};
    gw_buf b = {0};
    gw_prom_render_gpus(&b, GW_PROM_TEXT, &snap, labels, false);
    uint64_t want_bits = 0;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_dcgm_name *d = &gw_fields[f].dcgm;
        if (!d->name)
            continue;
        want_bits |= GW_FIELD_BIT(f);
        double v = VALUE / d->scale;
        v = d->rounding > 0 ? ceil(v) : d->rounding < 0 ? floor(v) : v;
        gw_buf line = {0};
        gw_buf_printf(&line, "\n%s{gpu=\"0\"} ", d->name);
        gw_prom_append_value(&line, v);
        gw_buf_puts(&line, "\n");
        if (!strstr(b.data, line.data))
            fail_msg("%s: no %s line with %g in\n%s", gw_fields[f].key, d->name, v, b.data);
        gw_buf line2 = {0};
        gw_buf_printf(&line2, "# TYPE %s %s\n", d->name, d->counter ? "counter" : "gauge");
        assert_non_null(strstr(b.data, line2.data));
        gw_buf_free(&line);
        gw_buf_free(&line2);
    }
    assert_true(gw_prom_fields() == want_bits); /* serve asks the sampler for exactly these */
    gw_buf_free(&b);
}

static void test_dmon_reader_reads_the_table(void **state)
{
    (void)state;
    gw_buf text = {0}, units = {0}, row = {0};
    gw_buf_puts(&text, "# gpu");
    gw_buf_puts(&units, "# Idx");
    gw_buf_puts(&row, "    0");
    for (int f = 0; f < GW_F_COUNT; f++)
        if (gw_fields[f].dmon) {
            gw_buf_printf(&text, " %5s", gw_fields[f].dmon);
            gw_buf_puts(&units, "     -");
            gw_buf_printf(&row, " %5.0f", VALUE + f);
        }
    gw_buf_printf(&text, "\n%s\n%s\n", units.data, row.data);
    char path[] = "/tmp/gwfieldsXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text.data, text.len), (ssize_t)text.len);
    close(fd);
    gw_series *s = gw_series_new();
    gw_error err = {0};
    gw_logread_opts o = {0};
    if (gw_logread_input(s, path, &o, &err) || gw_series_finish(s, &err))
        fail_msg("%s\n%s", err.msg, text.data);
    unlink(path);
    assert_int_equal(s->ngpus, 1);
    for (int f = 0; f < GW_F_COUNT; f++) {
        const double *v = gw_series_gpu_values(s->gpus[0], (gw_gpu_field)f);
        if (!gw_fields[f].dmon)
            continue;
        if (!v || v[0] != VALUE + f)
            fail_msg("%s: dmon column %s not read as the field", gw_fields[f].key,
                     gw_fields[f].dmon);
    }
    gw_series_free(s);
    gw_buf_free(&text);
    gw_buf_free(&units);
    gw_buf_free(&row);
}

/* The `nvidia-smi -q` reader finds each field where its row's nvsmi_q says the report prints it. */
static void test_nvsmi_q_reader_reads_the_table(void **state)
{
    (void)state;
    gw_buf text = {0};
    gw_buf_puts(&text, "==============NVSMI LOG==============\n\n"
                       "Timestamp                                 : Thu Jan 30 16:14:43 2025\n"
                       "Driver Version                            : 580.159.04\n\n"
                       "Attached GPUs                             : 1\n"
                       "GPU 00000000:07:00.0\n"
                       "    Product Name                          : NVIDIA H200\n");
    int wanted = 0;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const char *q = gw_fields[f].nvsmi_q;
        for (const char *p = q; p && *p; p += strcspn(p, "|"), p += *p == '|') {
            int n = (int)strcspn(p, "|"), s = (int)strcspn(p, "/");
            if (s == 0)
                gw_buf_printf(&text, "    %-37.*s : %d\n", n - 1, p + 1, 1 + f % 10);
            else
                gw_buf_printf(&text, "    %.*s\n        %-33.*s : %d\n", s, p, n - s - 1, p + s + 1,
                              1 + f % 10);
            wanted++;
        }
    }
    assert_true(wanted > 10);
    char path[] = "/tmp/gwfieldsqXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text.data, text.len), (ssize_t)text.len);
    close(fd);
    gw_series *s = gw_series_new();
    gw_error err = {0};
    gw_logread_opts o = {0};
    if (gw_logread_input(s, path, &o, &err) || gw_series_finish(s, &err))
        fail_msg("%s\n%s", err.msg, text.data);
    unlink(path);
    assert_int_equal(s->ngpus, 1);
    for (int f = 0; f < GW_F_COUNT; f++) {
        if (!gw_fields[f].nvsmi_q)
            continue;
        const double *v = gw_series_gpu_values(s->gpus[0], (gw_gpu_field)f);
        if (!v || v[0] != 1 + f % 10)
            fail_msg("%s: -q's %s not read as the field", gw_fields[f].key, gw_fields[f].nvsmi_q);
    }
    gw_series_free(s);
    gw_buf_free(&text);
}

/* The live view's --json holds exactly the fields with a json key (the view reads those), each
 * under its key; a key ends in its unit like every quantity's name. */
static void test_view_json_is_the_table(void **state)
{
    (void)state;
    gw_gpu_sample g = {0};
    for (int f = 0; f < GW_F_COUNT; f++)
        gw_set(&g, (gw_gpu_field)f, VALUE);
    gw_device_info dev = {.index = 0};
    gw_sample smp = {.gpu_count = 1, .gpus = &g};
    gw_view v = {.hostname = "h",
                 .driver_version = "",
                 .version = "0",
                 .devices = &dev,
                 .device_count = 1,
                 .sample = &smp};
    gw_buf b = {0};
    gw_view_json(&v, &b);
    cJSON *doc = cJSON_Parse(b.data);
    const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "gpus"), 0);
    assert_non_null(g0);
    uint64_t want = 0;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        if (!fi->json)
            continue;
        want |= GW_FIELD_BIT(f);
        const cJSON *item = cJSON_GetObjectItem(g0, fi->json);
        if (!item || !(cJSON_IsNumber(item) || cJSON_IsString(item)))
            fail_msg("%s: no value under %s in\n%s", fi->key, fi->json, b.data);
        if (cJSON_IsNumber(item))
            assert_float_equal(item->valuedouble, VALUE, 0);
        const char *u = strrchr(fi->json, '_');
        bool unitless = !*fi->unit;
        if (!unitless && !(u && strstr("_pct _mib _w _mhz _c _mj _mib_s", u)))
            fail_msg("%s: json key %s does not end in its unit", fi->key, fi->json);
        for (int o = 0; o < f; o++)
            if (gw_fields[o].json && strcmp(gw_fields[o].json, fi->json) == 0)
                fail_msg("%s and %s share the json key %s", gw_fields[o].key, fi->key, fi->json);
    }
    assert_true(GW_FIELDS_VIEW == want);
    cJSON_Delete(doc);
    gw_buf_free(&b);
}

/* Every home-made name in a row's synonyms reads as that field's column, and as no other. */
static void test_synonyms_read_as_their_field(void **state)
{
    (void)state;
    for (int f = 0; f < GW_F_COUNT; f++) {
        const gw_field_info *fi = &gw_fields[f];
        if (!fi->synonyms)
            continue;
        char words[256], key[64];
        snprintf(words, sizeof words, "%s", fi->synonyms);
        header_key(fi->csv_header, key, sizeof key);
        for (char *save = NULL, *w = strtok_r(words, " ", &save); w;
             w = strtok_r(NULL, " ", &save)) {
            char to[48];
            const char *unit = NULL;
            if (!gw_logread_synonym(w, to, sizeof to, &unit) || strcmp(to, key) != 0)
                fail_msg("%s: synonym %s does not read as %s", fi->key, w, key);
            assert_string_equal(unit, "");
            for (int o = 0; o < GW_F_COUNT; o++)
                if (o != f && gw_fields[o].synonyms && strstr(gw_fields[o].synonyms, w) &&
                    gw_field_by_key(GW_FG_GPU, w) < 0) {
                    char other[256];
                    snprintf(other, sizeof other, " %s ", gw_fields[o].synonyms);
                    char pat[64];
                    snprintf(pat, sizeof pat, " %s ", w);
                    if (strstr(other, pat))
                        fail_msg("%s and %s share the synonym %s", fi->key, gw_fields[o].key, w);
                }
        }
    }
    char to[48];
    const char *unit = NULL;
    assert_true(gw_logread_synonym("GPU Util %", to, sizeof to, &unit) == false);
    assert_true(gw_logread_synonym("Mem-Used_MB", to, sizeof to, &unit));
    assert_string_equal(to, "memory.used");
    assert_string_equal(unit, "MiB");
    assert_false(gw_logread_synonym("", to, sizeof to, &unit));
}

/* Every GPU field that names a fake scenario key, as sampler fields. */
static uint64_t fake_fields(void)
{
    uint64_t bits = 0;
    for (int f = 0; f < GW_F_COUNT; f++)
        if (gw_fields[f].fake)
            bits |= GW_FIELD_BIT(f);
    return bits;
}

static const gw_gpu_sample *sample_of(fake_lib *lib, gw_sampler **s)
{
    gw_sampler_config cfg = {.interval_ms = 100, .fields = fake_fields()};
    gw_error err = {0};
    if (gw_sampler_open(lib->n, &cfg, NULL, s, &err))
        fail_msg("%s", err.msg);
    return &gw_sampler_read_first(*s)->gpus[0];
}

static void test_fake_serves_every_key_the_table_names(void **state)
{
    (void)state;
    gw_buf json = {0};
    gw_buf_puts(&json, "{'devices': [{'timeline': [{'t': 0");
    for (int f = 0; f < GW_F_COUNT; f++)
        if (gw_fields[f].fake && !strstr(json.data, gw_fields[f].fake))
            gw_buf_printf(&json, ", '%s': %g", gw_fields[f].fake, VALUE);
    gw_buf_puts(&json, "}]}]}");
    fake_lib lib;
    fake_open(&lib, json.data);
    assert_int_equal(lib.init, GWN_SUCCESS); /* the fake knows every key */
    gw_sampler *s = NULL;
    const gw_gpu_sample *g = sample_of(&lib, &s);
    for (int f = 0; f < GW_F_COUNT; f++)
        if (gw_fields[f].fake && !gw_has(g, (gw_gpu_field)f))
            fail_msg("%s: the fake's '%s' gives no value", gw_fields[f].key, gw_fields[f].fake);
    assert_float_equal(g->v[GW_F_UTIL_DEC_PCT], VALUE, 0);
    assert_float_equal(g->v[GW_F_GPM_PCIE_TX_MIB_S], VALUE, 1e-9);
    gw_sampler_close(s);
    fake_close(&lib);

    /* Without the keys, the fields this issue added are absent (NOT_SUPPORTED), never 0. */
    fake_open(&lib, "{'devices': [{'timeline': [{'t': 0, 'util_gpu': 50, 'util_mem': 5}]}]}");
    g = sample_of(&lib, &s);
    const gw_gpu_field added[] = {GW_F_GPM_PCIE_TX_MIB_S,   GW_F_GPM_PCIE_RX_MIB_S,
                                  GW_F_GPM_NVLINK_TX_MIB_S, GW_F_GPM_NVLINK_RX_MIB_S,
                                  GW_F_UTIL_ENC_PCT,        GW_F_UTIL_DEC_PCT};
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
        if (gw_has(g, added[i]))
            fail_msg("%s: a value (%g) without its key", gw_fields[added[i]].key, g->v[added[i]]);
    assert_true(gw_has(g, GW_F_UTIL_GPU_PCT));
    gw_sampler_close(s);
    fake_close(&lib);
    gw_buf_free(&json);
}

/* Per-process utilisation (GetProcessUtilization): the newest sample's shares per listed process;
 * a listed process NVML leaves out (no non-zero share) has 0, measured. */
static void test_process_utilisation(void **state)
{
    (void)state;
    fake_lib lib;
    fake_open(&lib, "{'devices': [{'timeline': [{'t': 0, 'util_gpu': 90, 'util_mem': 5}],"
                    " 'processes': [{'pid': 4242, 'used_mib': 100, 'sm_util': 83, 'mem_util': 41,"
                    "                'dec_util': 12},"
                    "               {'pid': 77, 'used_mib': 5}]}]}");
    gw_sampler_config cfg = {.interval_ms = 100, .fields = 0, .processes = true};
    gw_sampler *s = NULL;
    gw_error err = {0};
    if (gw_sampler_open(lib.n, &cfg, NULL, &s, &err))
        fail_msg("%s", err.msg);
    const gw_sample *smp = gw_sampler_read_now(s);
    assert_int_equal(smp->proc_count, 2);
    const gw_gpu_process *a = smp->procs[0].pid == 4242 ? &smp->procs[0] : &smp->procs[1];
    const gw_gpu_process *b = a == &smp->procs[0] ? &smp->procs[1] : &smp->procs[0];
    assert_true(a->util_valid);
    assert_float_equal(gw_proc_value(a, GW_F_PROC_SM_UTIL_PCT), 83, 0);
    assert_float_equal(gw_proc_value(a, GW_F_PROC_MEM_UTIL_PCT), 41, 0);
    assert_float_equal(gw_proc_value(a, GW_F_PROC_ENC_UTIL_PCT), 0, 0);
    assert_float_equal(gw_proc_value(a, GW_F_PROC_DEC_UTIL_PCT), 12, 0);
    assert_int_equal(b->pid, 77);
    assert_true(b->util_valid);
    assert_float_equal(gw_proc_value(b, GW_F_PROC_SM_UTIL_PCT), 0, 0);
    gw_sampler_close(s);
    fake_close(&lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_complete_and_unique),
        cmocka_unit_test(test_gpu_csv_header_is_the_table),
        cmocka_unit_test(test_query_lists_the_table),
        cmocka_unit_test(test_exporter_names_the_table),
        cmocka_unit_test(test_dmon_reader_reads_the_table),
        cmocka_unit_test(test_nvsmi_q_reader_reads_the_table),
        cmocka_unit_test(test_view_json_is_the_table),
        cmocka_unit_test(test_synonyms_read_as_their_field),
        cmocka_unit_test_teardown(test_fake_serves_every_key_the_table_names, fake_teardown),
        cmocka_unit_test_teardown(test_process_utilisation, fake_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

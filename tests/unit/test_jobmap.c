/* Unit tests for src/serve/jobmap (dcgm-exporter's HPC job mapping directory): file names and
 * lines, the change detection, and the view a scrape renders (each GPU once per job, with its
 * XID counts and processes following it). */
#include "test_helpers.h"

#include "serve/jobmap.h"

static int warnings;
static char last_warning[512];

static void on_warn(void *ctx, const char *msg)
{
    (void)ctx;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static void rm_rf(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_files_and_lines(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    th_write(dir, "0", "  11  \n\n12 alice\n11\n");
    th_write(dir, "1.2", "13\n");
    th_write(dir, "1", "");
    th_write(dir, "x1", "99\n");
    th_write(dir, "1.a", "98\n");
    gw_jobmap *m = gw_jobmap_new(dir, on_warn, NULL);
    assert_true(gw_jobmap_reload(m));
    unsigned n = 0;
    const char *const *ids = gw_jobmap_jobs(m, 0, &n);
    assert_int_equal(n, 2); /* "11" twice counts once; blank lines skipped */
    assert_string_equal(ids[0], "11");
    assert_string_equal(ids[1], "12");
    ids = gw_jobmap_jobs(m, 1, &n); /* the empty file adds nothing, the MIG file its id */
    assert_int_equal(n, 1);
    assert_string_equal(ids[0], "13");
    gw_jobmap_jobs(m, 2, &n);
    assert_int_equal(n, 0);
    assert_false(gw_jobmap_reload(m)); /* nothing changed */
    th_write(dir, "1", "14\n");
    assert_true(gw_jobmap_reload(m));
    gw_jobmap_jobs(m, 1, &n);
    assert_int_equal(n, 2);
    assert_int_equal(warnings, 0);
    gw_jobmap_free(m);
    rm_rf(dir);
    free(dir);
}

static void test_missing_dir_warns_once(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/none", dir);
    warnings = 0;
    gw_jobmap *m = gw_jobmap_new(missing, on_warn, NULL);
    assert_false(gw_jobmap_reload(m));
    assert_false(gw_jobmap_reload(m));
    assert_int_equal(warnings, 1);
    assert_non_null(strstr(last_warning, missing));
    th_write(dir, "none/0", "5\n");
    assert_true(gw_jobmap_reload(m));
    unsigned n = 0;
    assert_string_equal(gw_jobmap_jobs(m, 0, &n)[0], "5");
    rm_rf(missing);
    assert_true(gw_jobmap_reload(m)); /* gone again: the labels go, and it warns anew */
    gw_jobmap_jobs(m, 0, &n);
    assert_int_equal(n, 0);
    assert_int_equal(warnings, 2);
    gw_jobmap_free(m);
    rm_rf(dir);
    free(dir);
}

static void test_view_repeats_gpus_per_job(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    th_write(dir, "7", "a\nb\n"); /* NVML index 7 is the snapshot's second device */
    th_write(dir, ".jobs/a", "user=ann\n");
    gw_jobmap *m = gw_jobmap_new(dir, NULL, NULL);
    assert_true(gw_jobmap_reload(m));

    gw_device_info devs[2] = {{.index = 3}, {.index = 7}};
    gw_gpu_sample gpus[2] = {{.v = {[0] = 30}}, {.v = {[0] = 70}}};
    int last_xid[2] = {-1, 79};
    uint64_t xid_count[2] = {0, 4};
    gw_prom_proc procs[2] = {{.dev = 1, .name = "python3", .used_mib = 10},
                             {.dev = 0, .name = "other", .used_mib = 5}};
    gw_prom_snapshot snap = {.ndev = 2,
                             .devs = devs,
                             .gpus = gpus,
                             .last_xid = last_xid,
                             .xid_count = xid_count,
                             .nprocs = 2,
                             .procs = procs,
                             .have_sample = true,
                             .generation = 9};
    const char *labels[2] = {"gpu=\"3\"", "gpu=\"7\""};
    const gw_prom_snapshot *v = NULL;
    const char *const *vl = NULL;
    gw_jobmap_apply(m, &snap, labels, &v, &vl);
    assert_ptr_not_equal(v, &snap);
    assert_int_equal(v->ndev, 3);
    assert_string_equal(vl[0], "gpu=\"3\"");
    assert_string_equal(vl[1], "gpu=\"7\",hpc_job=\"a\"");
    assert_string_equal(vl[2], "gpu=\"7\",hpc_job=\"b\"");
    assert_int_equal(v->devs[2].index, 7);
    assert_num(v->gpus[2].v[0], 70, 0);
    assert_int_equal(v->last_xid[1], 79);
    assert_int_equal(v->xid_count[2], 4);
    assert_true(v->have_sample);
    assert_int_equal(v->generation, 9);
    /* python3 on GPU 7 appears under both jobs, other on GPU 3 once */
    assert_int_equal(v->nprocs, 3);
    assert_int_equal(v->procs[0].dev, 1);
    assert_int_equal(v->procs[1].dev, 2);
    assert_string_equal(v->procs[1].name, "python3");
    assert_int_equal(v->procs[2].dev, 0);

    gw_buf b = {0};
    gw_jobmap_render_info(m, &b, GW_PROM_TEXT, &snap, labels);
    assert_non_null(strstr(b.data, "# TYPE gpuwatch_job_info gauge\n"));
    assert_non_null(strstr(b.data, "gpuwatch_job_info{gpu=\"7\",hpc_job=\"a\",user=\"ann\"} 1\n"));
    assert_non_null(strstr(b.data, "gpuwatch_job_info{gpu=\"7\",hpc_job=\"b\"} 1\n"));
    assert_null(strstr(b.data, "gpu=\"3\""));
    gw_buf_free(&b);

    /* no jobs: the snapshot itself */
    th_write(dir, "7", "");
    assert_true(gw_jobmap_reload(m));
    gw_jobmap_apply(m, &snap, labels, &v, &vl);
    assert_ptr_equal(v, &snap);
    assert_ptr_equal(vl, labels);
    gw_jobmap_render_info(m, &b, GW_PROM_TEXT, &snap, labels);
    assert_int_equal(b.len, 0);
    gw_buf_free(&b);
    gw_jobmap_free(m);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_and_lines),
        cmocka_unit_test(test_missing_dir_warns_once),
        cmocka_unit_test(test_view_repeats_gpus_per_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

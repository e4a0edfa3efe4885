/* In-job data: the reader of RUN/python (logread/inproc.h) and its analysis (analysis/inproc.h):
 * records, torn and absurd lines, passes rebuilt from "steps", stacks per role, training and
 * validation loaders, data-wait shares and bounds per epoch, hot functions, the allocator. */
#include "test_helpers.h"

#include "analysis/inproc.h"
#include "logread/inproc.h"
#include "logread/series.h"

#define T 1796138450.0

static char *line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *line(const char *fmt, ...)
{
    static char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

static gw_inproc *fresh(void)
{
    gw_inproc *in = calloc(1, sizeof *in);
    in->instrumentation = strdup("on");
    in->first_warning = strdup("");
    in->dir_found = true;
    return in;
}

/* A pass record of loader `l` in process 1. */
static void pass(gw_inproc *in, int l, int n, double t0, double t1, int steps, double wait,
                 double between)
{
    gw_inproc_add_line(in, 1,
                       line("{\"t\":%.3f,\"kind\":\"pass\",\"loader\":%d,\"pass\":%d,"
                            "\"t_start\":%.3f,\"t_end\":%.3f,\"steps\":%d,\"wait_s\":%g,"
                            "\"between_s\":%g,\"first_wait_s\":0.5,\"complete\":true}",
                            T + t1, l, n, T + t0, T + t1, steps, wait, between),
                       false);
}

static void test_records(void **state)
{
    (void)state;
    gw_inproc *in = fresh();
    gw_inproc_add_line(in, 1,
                       line("{\"t\":%.1f,\"kind\":\"process\",\"pid\":1,\"ppid\":0,\"role\":"
                            "\"main\",\"worker_id\":null,\"python\":\"3.11.2\",\"torch\":"
                            "\"2.5.1\",\"start_method\":null,\"rank\":0,\"local_rank\":0,"
                            "\"world_size\":2}",
                            T),
                       false);
    gw_inproc_add_line(in, 1,
                       line("{\"t\":%.1f,\"kind\":\"settings\",\"torch_num_threads\":8,"
                            "\"torch_num_interop_threads\":4,\"cv2_num_threads\":null,"
                            "\"cudnn_benchmark\":false,\"autocast_used\":true,"
                            "\"torch_compile_used\":false,\"affinity_cores\":6,"
                            "\"cgroup_cpu_limit_cores\":3.5,\"os_cpu_count\":64}",
                            T + 1),
                       false);
    gw_inproc_add_line(
        in, 1,
        line("{\"t\":%.1f,\"kind\":\"loader\",\"loader\":0,\"num_workers\":2,"
             "\"batch_size\":64,\"pin_memory\":false,\"persistent_workers\":true,"
             "\"prefetch_factor\":null,\"drop_last\":false,\"dataset\":\"Ds\\u001b[31m\","
             "\"sampler\":null,\"batches\":100,\"created_at\":\"train.py:12\"}",
             T + 2),
        false);
    pass(in, 0, 0, 10, 20, 100, 6, 4);
    gw_inproc_add_line(in, 1, line("{\"t\":%.1f,\"kind\":\"exit\"}", T + 30), false);
    gw_inproc_finish(in);
    assert_int_equal(in->nprocs, 1);
    const gw_inproc_proc *p = gw_inproc_proc_of(in, 1);
    assert_int_equal(p->role, GW_INPROC_MAIN);
    assert_string_equal(p->python, "3.11.2");
    assert_string_equal(p->start_method, "");
    assert_int_equal(p->rank, 0);
    assert_int_equal(p->world_size, 2);
    assert_true(p->exited);
    assert_num(p->t_last - p->t_first, 30, 1e-6);
    assert_true(p->settings.present);
    assert_num(p->settings.torch_num_interop_threads, 4, 0);
    assert_true(isnan(p->settings.cv2_num_threads)); /* null: no cv2 */
    assert_int_equal(p->settings.cudnn_benchmark, 0);
    assert_int_equal(p->settings.autocast_used, 1);
    assert_num(p->settings.cgroup_cpu_limit_cores, 3.5, 0);
    assert_int_equal(in->nloaders, 1);
    const gw_inproc_loader *l = &in->loaders[0];
    assert_num(l->num_workers, 2, 0);
    assert_int_equal(l->pin_memory, 0);
    assert_int_equal(l->persistent_workers, 1);
    assert_true(isnan(l->prefetch_factor));
    assert_null(strchr(l->dataset, 0x1b)); /* sanitised: no escape sequence */
    assert_string_equal(l->created_at, "train.py:12");
    assert_int_equal(in->npasses, 1);
    assert_num(in->passes[0].wait_s, 6, 0);
    assert_num(in->passes[0].first_wait_s, 0.5, 0);
    assert_true(in->passes[0].complete);
    assert_int_equal(in->bad_lines + in->torn_lines + in->absurd_records, 0);
    gw_inproc_free(in);
}

static void test_bad_lines_counted(void **state)
{
    (void)state;
    gw_inproc *in = fresh();
    gw_inproc_add_line(in, 1, "not json\n", false);
    gw_inproc_add_line(in, 1, "[1,2]\n", false);
    gw_inproc_add_line(in, 1, "\n", false); /* blank: not a line */
    /* absurd: negative wait, a time in 1970, a count beyond 1e12, a huge exponent */
    pass(in, 0, 0, 10, 20, 100, -1, 4);
    gw_inproc_add_line(in, 1, "{\"t\":5,\"kind\":\"exit\"}", false);
    pass(in, 0, 1, 10, 20, 100, 1e13, 4);
    gw_inproc_add_line(in, 1,
                       line("{\"t\":%.1f,\"kind\":\"memory\",\"device\":0,\"allocated_bytes\":"
                            "1e999,\"reserved_bytes\":1,\"max_allocated_bytes\":1}",
                            T),
                       false);
    /* an interval that ends before it starts */
    pass(in, 0, 2, 20, 10, 100, 1, 4);
    gw_inproc_add_line(in, 1, "{\"t\": 1796138450.5, \"kind\": \"ste", true);
    gw_inproc_finish(in);
    assert_int_equal(in->bad_lines, 2);
    assert_int_equal(in->torn_lines, 1);
    assert_int_equal(in->absurd_records, 5);
    assert_int_equal(in->npasses, 0);
    assert_int_equal(in->nmemory, 0);
    assert_int_equal(in->lines, 8);
    gw_inproc_free(in);
}

static void test_passes_from_steps(void **state)
{
    (void)state;
    gw_inproc *in = fresh();
    for (int k = 0; k < 3; k++)
        gw_inproc_add_line(in, 1,
                           line("{\"t\":%.1f,\"kind\":\"steps\",\"loader\":0,\"pass\":0,"
                                "\"t0\":%.1f,\"t1\":%.1f,\"steps\":10,\"wait_s\":0.5,"
                                "\"between_s\":1.5}",
                                T + 2 * k + 2, T + 2 * k, T + 2 * k + 2),
                           false);
    /* pass 1 has its record: its steps do not make another */
    gw_inproc_add_line(in, 1,
                       line("{\"t\":%.1f,\"kind\":\"steps\",\"loader\":0,\"pass\":1,\"t0\":%.1f,"
                            "\"t1\":%.1f,\"steps\":7,\"wait_s\":1,\"between_s\":1}",
                            T + 12, T + 10, T + 12),
                       false);
    pass(in, 0, 1, 10, 12, 7, 1, 1);
    gw_inproc_finish(in);
    assert_int_equal(in->npasses, 2);
    const gw_inproc_pass *p = &in->passes[0];
    assert_true(p->from_steps);
    assert_false(p->complete);
    assert_num(p->steps, 30, 0);
    assert_num(p->wait_s, 1.5, 1e-9);
    assert_num(p->between_s, 4.5, 1e-9);
    assert_num(p->t_end - p->t_start, 6, 1e-6);
    assert_false(in->passes[1].from_steps);
    gw_inproc_free(in);
}

static void test_stack_lines(void **state)
{
    (void)state;
    gw_inproc *in = fresh();
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "main (a.py:1);<lambda> (b.py:2) 5\n");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "main (a.py:1);<lambda> (b.py:2) 7");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "main (a.py:1) 3\n");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "no count\n");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "main (a.py:1) -3\n");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "main (a.py:1) 1.5\n");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, " 4\n");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "\n");
    const gw_inproc_stacks *st = &in->stacks[GW_INPROC_WORKER];
    assert_int_equal(st->n, 2);
    assert_num(st->samples, 15, 0);
    assert_string_equal(st->v[0].frames, "main (a.py:1);<lambda> (b.py:2)");
    assert_num(st->v[0].count, 12, 0);
    assert_int_equal(in->bad_stack_lines, 4);
    assert_int_equal(in->stacks[GW_INPROC_MAIN].n, 0);
    gw_inproc_free(in);
}

static void test_frames(void **state)
{
    (void)state;
    const char *sel = "select (selectors.py:416)";
    assert_true(gw_inproc_frame_idle(sel, strlen(sel)));
    const char *q = "get (lib/python3.11/multiprocessing/queues.py:113)";
    assert_true(gw_inproc_frame_idle(q, strlen(q)));
    const char *mine = "get (myqueues.py:3)";
    assert_false(gw_inproc_frame_idle(mine, strlen(mine)));
    const char *no_file = "select";
    assert_false(gw_inproc_frame_idle(no_file, strlen(no_file)));
    assert_string_equal(gw_inproc_fn_short("utils/loss.py:__call__"), "loss.py:__call__");
    assert_string_equal(gw_inproc_fn_short("loss.py:f"), "loss.py:f");
}

/* A job: training loader 0 (3 passes: input-bound, input-bound, main-bound), validation loader 1
 * after each, a worker; stacks for both roles; allocator growing at each pass end. */
static char *write_job(void)
{
    char *dir = th_tmpdir();
    char buf[16384];
    int n = snprintf(buf, sizeof buf,
                     "{\"t\":%.1f,\"kind\":\"process\",\"pid\":100,\"role\":\"main\"}\n"
                     "{\"t\":%.1f,\"kind\":\"settings\",\"torch_num_threads\":8,"
                     "\"cv2_num_threads\":4,\"autocast_used\":false,\"torch_compile_used\":false,"
                     "\"cudnn_benchmark\":true,\"affinity_cores\":8,"
                     "\"cgroup_cpu_limit_cores\":null,\"os_cpu_count\":8}\n"
                     "{\"t\":%.1f,\"kind\":\"loader\",\"loader\":0,\"num_workers\":2,"
                     "\"batch_size\":32,\"pin_memory\":false,\"persistent_workers\":false}\n"
                     "{\"t\":%.1f,\"kind\":\"loader\",\"loader\":1,\"num_workers\":2,"
                     "\"batch_size\":64}\n",
                     T, T, T + 1, T + 1);
    const double tr[3][4] = {{10, 30, 12, 8}, {40, 60, 13, 7}, {70, 90, 1, 19}};
    for (int k = 0; k < 3; k++) {
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "{\"t\":%.1f,\"kind\":\"pass\",\"loader\":0,\"pass\":%d,\"t_start\":%.1f,"
                      "\"t_end\":%.1f,\"steps\":100,\"wait_s\":%g,\"between_s\":%g,"
                      "\"first_wait_s\":2,\"complete\":true}\n"
                      "{\"t\":%.1f,\"kind\":\"memory\",\"device\":0,\"allocated_bytes\":%.0f,"
                      "\"reserved_bytes\":8e9,\"max_allocated_bytes\":6e9}\n"
                      "{\"t\":%.1f,\"kind\":\"pass\",\"loader\":1,\"pass\":%d,\"t_start\":%.1f,"
                      "\"t_end\":%.1f,\"steps\":10,\"wait_s\":1,\"between_s\":2,"
                      "\"complete\":true}\n",
                      T + tr[k][1], k, T + tr[k][0], T + tr[k][1], tr[k][2], tr[k][3],
                      T + tr[k][1] + 0.01, 1e9 + k * 5e8, T + tr[k][1] + 5, k, T + tr[k][1] + 1,
                      T + tr[k][1] + 5);
    }
    snprintf(buf + n, sizeof buf - (size_t)n,
             "{\"t\":%.1f,\"kind\":\"stacks\",\"samples\":100,\"interval_s\":0.01,"
             "\"sampler_cpu_s\":0.9}\n{\"t\":%.1f,\"kind\":\"pro",
             T + 99, T + 100);
    th_write(dir, "python/100.jsonl", buf);
    th_write(dir, "python/100.stacks",
             "main (t.py:1);__next__ (site-packages/torch/utils/data/dataloader.py:631);"
             "get (queues.py:113);select (selectors.py:416) 60\n"
             "main (t.py:1);step (t.py:9);loss (l.py:3) 30\n"
             "main (t.py:1);step (t.py:10) 10\n");
    snprintf(buf, sizeof buf,
             "{\"t\":%.1f,\"kind\":\"process\",\"pid\":200,\"ppid\":100,\"role\":\"worker\","
             "\"worker_id\":0,\"start_method\":\"spawn\"}\n"
             "{\"t\":%.1f,\"kind\":\"settings\",\"cv2_num_threads\":4}\n",
             T + 2, T + 2);
    th_write(dir, "python/200.jsonl", buf);
    th_write(dir, "python/200.stacks",
             "loop (w.py:1);decode (w.py:5) 75\nloop (w.py:1);aug (w.py:7) 25\n"
             "loop (w.py:1);get (queues.py:1) 100\n");
    th_write(dir, "python/notes.jsonl", "ignored\n");
    /* a launcher (torchrun): the job's first Python process, role main, no DataLoader */
    snprintf(buf, sizeof buf, "{\"t\":%.1f,\"kind\":\"process\",\"pid\":50,\"role\":\"main\"}\n",
             T);
    th_write(dir, "python/50.jsonl", buf);
    th_write(dir, "python/50.stacks", "main (run.py:1);_invoke_run (api.py:9) 500\n");
    return dir;
}

static void test_read_and_analyse(void **state)
{
    (void)state;
    char *dir = write_job();
    gw_series *s = gw_series_new();
    size_t i = gw_series_add_input(s, dir, NULL, GW_INPUT_RUN_DIR);
    s->inputs[i].inproc = gw_inproc_read(dir, "on");
    const gw_inproc *in = s->inputs[i].inproc;
    assert_true(in->dir_found);
    assert_int_equal(in->files, 6);
    assert_int_equal(in->torn_lines, 1);
    assert_int_equal(in->nprocs, 3);
    assert_num(in->stacks[GW_INPROC_MAIN].samples, 100, 0); /* not the launcher's 500 */
    assert_num(in->stacks[GW_INPROC_OTHER].samples, 500, 0);
    assert_int_equal(gw_inproc_role_of(in, gw_inproc_proc_of(in, 50)), GW_INPROC_OTHER);
    assert_num(in->stacks[GW_INPROC_WORKER].samples, 200, 0);

    gw_inproc_analysis *ia = gw_inproc_analyze(s);
    assert_non_null(ia->main);
    assert_int_equal(ia->main->pid, 100);
    assert_int_equal(ia->train_loader, 0);
    assert_int_equal(ia->val_loader, 1);
    assert_non_null(strstr(ia->how, "the most steps (300 in 3 passes)"));
    assert_true(ia->has_steps);
    assert_int_equal(ia->nepochs, 3);
    assert_num(ia->epochs[0].wait_share_pct, 60, 1e-9);
    assert_int_equal(ia->epochs[0].bound, GW_INPROC_BOUND_INPUT);
    assert_int_equal(ia->epochs[2].bound, GW_INPROC_BOUND_MAIN);
    assert_num(ia->epochs[1].val_steps, 10, 0);
    assert_true(ia->bound_changes);
    assert_int_equal(ia->bound, GW_INPROC_BOUND_MIXED);
    /* 26 s of 60 s waiting: 1 / (1 - 26/60) */
    assert_num(ia->wait_share_pct, 100.0 * 26 / 60, 1e-9);
    assert_num(ia->speedup_input_max, 60.0 / 34, 1e-9);
    /* training process: 60 of 100 samples idle in the DataLoader; of the 40 busy, 30 in loss */
    const gw_inproc_role_view *m = &ia->roles[GW_INPROC_MAIN];
    assert_num(m->idle, 60, 0);
    assert_num(m->in_next, 60, 0);
    assert_string_equal(m->fns[0].name, "l.py:loss");
    assert_num(m->fns[0].self, 30, 0);
    assert_num(m->fns[m->by_total[0]].total, 40, 0); /* t.py:main */
    const gw_inproc_role_view *w = &ia->roles[GW_INPROC_WORKER];
    assert_string_equal(w->fns[0].name, "w.py:decode");
    assert_num(100.0 * w->fns[0].self / w->busy, 75, 1e-9);
    assert_non_null(ia->worker);
    assert_num(ia->worker->settings.cv2_num_threads, 4, 0);
    /* allocator: 1.0, 1.5, 2.0 GB at the pass ends */
    assert_true(ia->leak);
    assert_int_equal(ia->leak_epochs, 3);
    assert_num(ia->leak_bytes, 1e9, 1);
    assert_num(ia->reserved_peak - ia->max_allocated, 2e9, 1);
    assert_num(ia->sampler_cpu_s, 0.9, 1e-9);
    /* epochs: from each training pass to the next; validation after it */
    gw_epoch *e = NULL;
    assert_int_equal(gw_inproc_epochs(ia, &e), 3);
    assert_int_equal(e[0].number, 1);
    assert_int_equal(e[0].steps, 100);
    assert_int_equal(e[0].end_ms - e[0].start_ms, 30000);
    assert_int_equal(e[0].train_end_ms - e[0].start_ms, 20000);
    assert_int_equal(e[0].val_start_ms - e[0].start_ms, 21000);
    assert_int_equal(e[2].end_ms - e[2].start_ms, 25000); /* the last ends with its validation */
    assert_num(e[1].steps_per_s, 5, 1e-9);
    free(e);
    /* a loader whose len() is 20 batches returned 100 per pass: its passes are no epochs */
    ((gw_inproc *)in)->loaders[0].batches = 20;
    assert_false(gw_inproc_passes_are_epochs(ia));
    assert_int_equal(gw_inproc_epochs(ia, &e), 0);
    assert_null(e);
    ((gw_inproc *)in)->loaders[0].batches = 100;
    assert_true(gw_inproc_passes_are_epochs(ia));
    gw_inproc_analysis_free(ia);
    gw_series_free(s);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

/* A recursive function counts once per sample inclusively; lines of one function merge. */
static void test_recursion(void **state)
{
    (void)state;
    gw_inproc *in = fresh();
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "loop (w.py:1);f (w.py:5);f (w.py:7) 10");
    gw_inproc_add_stack_line(in, GW_INPROC_WORKER, "loop (w.py:1);f (w.py:5) 30");
    gw_series *s = gw_series_new();
    size_t i = gw_series_add_input(s, "run", NULL, GW_INPUT_RUN_DIR);
    s->inputs[i].inproc = in;
    gw_inproc_analysis *ia = gw_inproc_analyze(s);
    const gw_inproc_role_view *w = &ia->roles[GW_INPROC_WORKER];
    assert_int_equal(w->nfns, 2);
    assert_string_equal(w->fns[0].name, "w.py:f");
    assert_num(w->fns[0].self, 40, 0);
    assert_num(w->fns[0].total, 40, 0);
    assert_num(w->busy, 40, 0);
    assert_false(ia->has_steps);
    assert_string_equal(ia->why_none, "no DataLoader was iterated in the job's Python processes");
    gw_inproc_analysis_free(ia);
    gw_series_free(s);
}

/* Records without a "process" record: the process with the most steps is the training one. */
static void test_no_process_record(void **state)
{
    (void)state;
    gw_inproc *in = fresh();
    pass(in, 0, 0, 10, 20, 100, 2, 8);
    gw_inproc_finish(in);
    gw_series *s = gw_series_new();
    size_t i = gw_series_add_input(s, "run", NULL, GW_INPUT_RUN_DIR);
    s->inputs[i].inproc = in;
    gw_inproc_analysis *ia = gw_inproc_analyze(s);
    assert_non_null(ia->main);
    assert_int_equal(ia->main->pid, 1);
    assert_int_equal(ia->main->role, GW_INPROC_OTHER);
    assert_true(ia->has_steps);
    assert_num(ia->wait_share_pct, 20, 1e-9);
    assert_int_equal(ia->bound, GW_INPROC_BOUND_MIXED);
    gw_inproc_analysis_free(ia);
    gw_series_free(s);
}

static void test_no_data(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    gw_series *s = gw_series_new();
    size_t i = gw_series_add_input(s, dir, NULL, GW_INPUT_RUN_DIR);
    s->inputs[i].inproc = gw_inproc_read(dir, "off (--no-python)");
    assert_false(s->inputs[i].inproc->dir_found);
    gw_inproc_analysis *ia = gw_inproc_analyze(s);
    assert_null(ia->in);
    assert_string_equal(ia->why_none, "Python instrumentation was off (--no-python)");
    gw_epoch *e = NULL;
    assert_int_equal(gw_inproc_epochs(ia, &e), 0);
    gw_inproc_analysis_free(ia);
    gw_inproc_free(s->inputs[i].inproc);
    s->inputs[i].inproc = gw_inproc_read(dir, NULL);
    ia = gw_inproc_analyze(s);
    assert_non_null(strstr(ia->why_none, "no python/ in the run directory"));
    gw_inproc_analysis_free(ia);
    gw_series_free(s);
    rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_bad_lines_counted),
        cmocka_unit_test(test_passes_from_steps),
        cmocka_unit_test(test_stack_lines),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_read_and_analyse),
        cmocka_unit_test(test_no_data),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_no_process_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

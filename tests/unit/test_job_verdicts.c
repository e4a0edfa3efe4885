/* Unit tests for the job verdicts: the crash scanner (src/analysis/crash.c) on real framework
 * messages, oom_crash / job_failed / job_stalled on synthetic run directories
 * (src/analysis/verdict_job.c), and markers as epochs and validation points (marks.c). */
#include "test_helpers.h"

#include "analysis/crash.h"
#include "synth.h"

/* PyTorch 2.1 and later (the message of examples/oom_crash.py on an H200). */
static const char oom_new[] =
    "train step 11: 120.0 GiB allocated\n"
    "Traceback (most recent call last):\n"
    "  File \"/work/examples/oom_crash.py\", line 22, in <module>\n"
    "    kept.append(torch.empty(int(args.step_gib * 2**30), dtype=torch.uint8, device=\"cuda\"))\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 GiB. GPU 0 has a total "
    "capacity of 139.81 GiB of which 7.86 GiB is free. Including non-PyTorch memory, this process "
    "has 131.94 GiB memory in use. Of the allocated memory 130.06 GiB is allocated by PyTorch, and "
    "18.00 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
    "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n";

/* PyTorch 1.x / 2.0. */
static const char oom_old[] =
    "Traceback (most recent call last):\n"
    "  File \"train.py\", line 80, in <module>\n"
    "    out = model(x)\n"
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 15.78 GiB total "
    "capacity; 14.56 GiB already allocated; 3.44 MiB free; 14.71 GiB reserved in total by "
    "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
    "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n";

static const char nccl_timeout[] =
    "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=11, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
    "600049 milliseconds before timing out.\n"
    "[rank0]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Exception (either an error or timeout) "
    "detected by watchdog at work: 11, last enqueued NCCL work: 11, last completed NCCL work: "
    "10.\n";

static void test_size_units(void **state)
{
    (void)state;
    assert_num(gw_crash_size_mib("12.00 GiB"), 12288, 1e-9);
    assert_num(gw_crash_size_mib("20 MiB."), 20, 1e-9);
    assert_num(gw_crash_size_mib("17179869184 bytes"), 16384, 1e-9);
    assert_num(gw_crash_size_mib("2GB"), 2e9 / 1048576, 1e-9);
    assert_num(gw_crash_size_mib("512 KiB"), 0.5, 1e-9);
    assert_true(isnan(gw_crash_size_mib("12.00 GiBs")));
    assert_true(isnan(gw_crash_size_mib("GiB")));
    assert_true(isnan(gw_crash_size_mib("7 apples")));
}

static void test_scan_pytorch_new(void **state)
{
    (void)state;
    gw_crash_text c;
    gw_crash_scan(oom_new, &c);
    assert_true(c.oom);
    assert_string_equal(c.oom_source, "pytorch");
    assert_num(c.tried_mib, 12 * 1024, 1e-9);
    assert_num(c.capacity_mib, 139.81 * 1024, 1e-6);
    assert_num(c.free_mib, 7.86 * 1024, 1e-6);
    assert_num(c.process_mib, 131.94 * 1024, 1e-6);
    assert_num(c.allocated_mib, 130.06 * 1024, 1e-6);
    assert_num(c.reserved_unallocated_mib, 18, 1e-9);
    assert_true(isnan(c.reserved_mib));
    assert_int_equal(c.cuda_device, 0);
    assert_true(strncmp(c.oom_line, "torch.OutOfMemoryError: CUDA out of memory.", 43) == 0);
    size_t len = strlen(c.oom_line); /* the facts, without PyTorch's advice after them */
    assert_string_equal(c.oom_line + len - 36, "reserved by PyTorch but unallocated.");
    assert_true(strncmp(c.last_error, "torch.OutOfMemoryError:", 23) == 0);
    assert_false(c.nccl_timeout);
    assert_false(c.interrupted);
}

static void test_scan_pytorch_old(void **state)
{
    (void)state;
    gw_crash_text c;
    gw_crash_scan(oom_old, &c);
    assert_true(c.oom);
    assert_num(c.tried_mib, 20, 1e-9);
    assert_num(c.capacity_mib, 15.78 * 1024, 1e-6);
    assert_num(c.allocated_mib, 14.56 * 1024, 1e-6);
    assert_num(c.free_mib, 3.44, 1e-9);
    assert_num(c.reserved_mib, 14.71 * 1024, 1e-6);
    assert_true(isnan(c.process_mib));
    assert_int_equal(c.cuda_device, 1);
}

static void test_scan_other_frameworks(void **state)
{
    (void)state;
    gw_crash_text c;
    gw_crash_scan("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
                  "to allocate 17179869184 bytes.\n",
                  &c);
    assert_true(c.oom);
    assert_string_equal(c.oom_source, "jax");
    assert_num(c.tried_mib, 16384, 1e-9);
    gw_crash_scan("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
                  "allocating tensor with shape[256,1024,1024] and type float on "
                  "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n",
                  &c);
    assert_string_equal(c.oom_source, "tensorflow");
    assert_true(isnan(c.tried_mib));
    gw_crash_scan("RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be "
                  "asynchronously reported\n",
                  &c);
    assert_string_equal(c.oom_source, "cuda");
    /* A quoted source line of a traceback is not what happened. */
    gw_crash_scan("    except torch.OutOfMemoryError: pass\nValueError: bad shape\n", &c);
    assert_false(c.oom);
    assert_string_equal(c.last_error, "ValueError: bad shape");
    assert_string_equal(c.last_line, "ValueError: bad shape");
    gw_crash_scan(nccl_timeout, &c);
    assert_true(c.nccl_timeout);
    assert_false(c.oom);
    assert_num(c.nccl_timeout_ms, 600000, 0);
    assert_string_equal(c.nccl_op, "ALLREDUCE");
    gw_crash_scan(
        "Traceback (most recent call last):\n  File \"t.py\", line 3\nKeyboardInterrupt\n", &c);
    assert_true(c.interrupted);
    gw_crash_scan("", &c);
    assert_false(c.oom || c.nccl_timeout || c.interrupted);
    assert_string_equal(c.last_line, "");
}

/* A run directory of 30 rows on node1 ending in a job_exit at row 29; memory on GPU 0 climbs to
 * 130000 MiB of 143771; the job is listed on GPU 0. */
static gw_series *run_dir(double code, int signal, const char *signal_name, const char *tail)
{
    gw_series *s = synth_new(2, 30);
    for (int i = 0; i < 2; i++) {
        s->gpus[i]->memory_total_mib = 143771;
        synth_set(s, i, GW_F_UTIL_GPU_PCT, 0, 30, 0);
        synth_set(s, i, GW_F_MEM_USED_MIB, 0, 30, 600);
    }
    synth_set(s, 0, GW_F_MEM_USED_MIB, 20, 29, 100000);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 27, 29, 130000);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 29, 30, 600); /* freed when the process died */
    size_t in = gw_series_add_input(s, "run/events.jsonl", "node1", GW_INPUT_RUN_DIR);
    gw_series_add_proc(s, in, SYNTH_T0_MS, 0, 4242, "python3", 1000, 1);
    gw_series_add_event(s, in, SYNTH_T0_MS, "job_start", NULL);
    gw_series_event *e = gw_series_add_event(s, in, SYNTH_T0_MS + 29000, "job_exit", NULL);
    e->code = code;
    e->signal = signal;
    gw_series_event_set(&e->detail, signal_name);
    if (tail)
        gw_series_add_tail(s, 0, "node1", tail, 10);
    return s;
}

static const gw_verdict *only_job_verdict(const gw_analysis *a)
{
    const gw_verdict *found = NULL;
    for (size_t i = 0; i < a->verdicts.n; i++) {
        gw_verdict_id id = a->verdicts.v[i].id;
        if (id == GW_V_OOM_CRASH || id == GW_V_JOB_FAILED || id == GW_V_JOB_STALLED) {
            assert_null(found);
            found = &a->verdicts.v[i];
        }
    }
    return found;
}

static const char *evidence_text(const gw_verdict *v, const char *key)
{
    for (size_t e = 0; e < v->nevidence; e++)
        if (strcmp(v->evidence[e].key, key) == 0)
            return v->evidence[e].text;
    return NULL;
}

static void test_oom_crash_verdict(void **state)
{
    (void)state;
    gw_series *s = run_dir(1, 0, "", oom_new);
    gw_analysis *a = synth_analyze(s);
    const gw_verdict *v = only_job_verdict(a);
    assert_non_null(v);
    assert_int_equal(v->id, GW_V_OOM_CRASH);
    assert_int_equal(v->severity, GW_SEV_CRITICAL);
    assert_int_equal(v->gpu, 0);
    assert_int_equal(v->end_ms, SYNTH_T0_MS + 29000);
    assert_int_equal(v->start_ms, SYNTH_T0_MS + 24000);
    assert_num(synth_evidence(v, "tried_to_allocate_mib"), 12288, 1e-9);
    assert_num(synth_evidence(v, "free_mib"), 7.86 * 1024, 1e-6);
    assert_num(synth_evidence(v, "memory_used_mib"), 130000, 0);
    assert_num(synth_evidence(v, "memory_total_mib"), 143771, 0);
    assert_num(synth_evidence(v, "memory_used_pct"), 100.0 * 130000 / 143771, 1e-9);
    assert_num(synth_evidence(v, "exit_status"), 1, 0);
    assert_string_equal(evidence_text(v, "reported_by"), "pytorch");
    assert_non_null(
        strstr(v->message, "tried to allocate 12.0 GiB with 7.9 GiB free of 139.8 GiB"));
    assert_non_null(strstr(v->message, "130000 MiB of 143771 (90%)"));
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_exit_zero_is_no_verdict(void **state)
{
    (void)state;
    gw_series *s = run_dir(0, 0, "", oom_new); /* an OOM that the script survived */
    gw_analysis *a = synth_analyze(s);
    assert_null(only_job_verdict(a));
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_failed_causes(void **state)
{
    (void)state;
    struct {
        double code;
        int signal;
        const char *name, *tail, *cause;
        gw_severity sev;
    } cases[] = {
        {137, 9, "KILL", "step 10\n", "signal", GW_SEV_CRITICAL},
        {143, 15, "TERM", "step 10\n", "signal", GW_SEV_INFO},
        {139, 11, "", "step 10\n", "signal", GW_SEV_CRITICAL}, /* name from the number */
        {1, 0, "", nccl_timeout, "nccl_timeout", GW_SEV_CRITICAL},
        {130, 0, "", "Traceback (most recent call last):\nKeyboardInterrupt\n", "interrupted",
         GW_SEV_INFO},
        {2, 0, "", "loading\nValueError: bad shape\n", "exit_status", GW_SEV_WARNING},
        {3, 0, "", NULL, "exit_status", GW_SEV_WARNING}, /* no output.log at all */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gw_series *s = run_dir(cases[i].code, cases[i].signal, cases[i].name, cases[i].tail);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = only_job_verdict(a);
        assert_non_null(v);
        assert_int_equal(v->id, GW_V_JOB_FAILED);
        assert_string_equal(v->cause, cases[i].cause);
        assert_int_equal(v->severity, cases[i].sev);
        assert_int_equal(v->gpu, -1);
        assert_num(synth_evidence(v, "exit_status"), cases[i].code, 0);
        if (cases[i].signal)
            assert_non_null(strstr(v->message, cases[i].signal == 9    ? "SIGKILL"
                                               : cases[i].signal == 15 ? "SIGTERM"
                                                                       : "SIGSEGV"));
        gw_analysis_free(a);
        gw_series_free(s);
    }
    gw_series *s = run_dir(2, 0, "", "loading\nValueError: bad shape\n");
    gw_analysis *a = synth_analyze(s);
    const gw_verdict *v = only_job_verdict(a);
    assert_string_equal(v->message, "the job exited with status 2: ValueError: bad shape");
    assert_string_equal(evidence_text(v, "last_error"), "ValueError: bad shape");
    assert_null(evidence_text(v, "node")); /* one node: nothing to tell apart */
    gw_analysis_free(a);
    gw_series_free(s);
    /* With a second node's recording, the job-level verdict names its node. */
    s = run_dir(2, 0, "", "loading\nValueError: bad shape\n");
    gw_series_add_input(s, "node2/gpu.csv", "node2", GW_INPUT_RUN_DIR);
    a = synth_analyze(s);
    v = only_job_verdict(a);
    assert_string_equal(evidence_text(v, "node"), "node1");
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_xid_before_the_exit(void **state)
{
    (void)state;
    gw_series *s = run_dir(1, 0, "", "RuntimeError: CUDA error: an illegal memory access\n");
    gw_series_event *x = gw_series_add_event(s, 1, SYNTH_T0_MS + 28000, "xid", NULL);
    x->gpu_index = 1;
    x->code = 79;
    gw_analysis *a = synth_analyze(s);
    const gw_verdict *v = only_job_verdict(a);
    assert_int_equal(v->id, GW_V_JOB_FAILED);
    assert_string_equal(v->cause, "xid");
    assert_int_equal(v->severity, GW_SEV_CRITICAL);
    assert_int_equal(v->gpu, 1);
    assert_num(synth_evidence(v, "xid"), 79, 0);
    assert_non_null(strstr(v->message, "Xid 79 (the GPU fell off the bus)"));
    gw_analysis_free(a);
    gw_series_free(s);
}

/* A stall alert at row 20 after 10 s of quiet; resolved at row 25 or not. */
static gw_series *stalled(bool resolved, int exit_signal)
{
    gw_series *s = run_dir(exit_signal ? 128 + exit_signal : 0, exit_signal,
                           exit_signal ? "TERM" : "", "step 40\n");
    gw_series_event *e = gw_series_add_event(s, 1, SYNTH_T0_MS + 20000, "alert", NULL);
    gw_series_event_set(&e->rule, "job_stalled");
    e->value = 10;
    e->threshold = 10;
    gw_series_event_set(&e->detail, "100 python3 S ppoll in do_sys_poll; 101 pt_data_worker S "
                                    "futex in futex_wait_queue");
    if (resolved) {
        e = gw_series_add_event(s, 1, SYNTH_T0_MS + 25000, "alert_resolved", NULL);
        gw_series_event_set(&e->rule, "job_stalled");
        gw_series_event_set(&e->detail, "output");
    }
    return s;
}

static void test_job_stalled_verdict(void **state)
{
    (void)state;
    gw_series *s = stalled(true, 0);
    gw_analysis *a = synth_analyze(s);
    const gw_verdict *v = only_job_verdict(a);
    assert_int_equal(v->id, GW_V_JOB_STALLED);
    assert_int_equal(v->severity, GW_SEV_WARNING);
    assert_int_equal(v->start_ms, SYNTH_T0_MS + 10000);
    assert_int_equal(v->end_ms, SYNTH_T0_MS + 25000);
    assert_num(synth_evidence(v, "stalled_s"), 15, 0);
    assert_num(synth_evidence(v, "stall_timeout_s"), 10, 0);
    assert_string_equal(evidence_text(v, "until"), "activity returned (output)");
    assert_non_null(strstr(evidence_text(v, "processes"), "101 pt_data_worker S futex"));
    assert_non_null(strstr(v->message, "101 pt_data_worker S futex in futex_wait_queue"));
    gw_analysis_free(a);
    gw_series_free(s);
    /* Never resolved, the job ended by itself: warning until the exit. */
    s = stalled(false, 0);
    a = synth_analyze(s);
    v = only_job_verdict(a);
    assert_int_equal(v->severity, GW_SEV_WARNING);
    assert_int_equal(v->end_ms, SYNTH_T0_MS + 29000);
    assert_string_equal(evidence_text(v, "until"), "the job ended");
    gw_analysis_free(a);
    gw_series_free(s);
    /* Never resolved and killed: critical, next to the job_failed of the signal. */
    s = stalled(false, 15);
    a = synth_analyze(s);
    const gw_verdict *st = synth_verdict(a, GW_V_JOB_STALLED, -1);
    assert_int_equal(st->severity, GW_SEV_CRITICAL);
    assert_string_equal(evidence_text(st, "until"), "the job was ended by SIGTERM");
    const gw_verdict *f = synth_verdict(a, GW_V_JOB_FAILED, -1);
    assert_string_equal(f->cause, "signal");
    assert_int_equal(a->verdicts.v[0].id, GW_V_JOB_STALLED); /* critical first */
    gw_analysis_free(a);
    gw_series_free(s);
}

static gw_series_event *add_mark(gw_series *s, int64_t t_ms, const char *text)
{
    return gw_series_add_event(s, 1, t_ms, "mark", text);
}

static void test_marks_give_epochs_and_expected_dips(void **state)
{
    (void)state;
    /* Busy 100 % from row 5 to 60, with an idle dip at rows 30-34 where validation ran. */
    gw_series *s = synth_new(1, 60);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, 5, 0);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 5, 60, 100);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 30, 35, 0);
    gw_series_add_input(s, "run/events.jsonl", "node1", GW_INPUT_RUN_DIR);
    gw_series_event *e = add_mark(s, SYNTH_T0_MS + 5000, "epoch");
    gw_series_event_add_field(e, "n", 1, NULL);
    gw_series_event_add_field(e, "total", 2, NULL);
    add_mark(s, SYNTH_T0_MS + 31000, "validation");
    add_mark(s, SYNTH_T0_MS + 40000, "Epoch"); /* no number: counted */
    gw_series_event *line = gw_series_add_event(s, 1, SYNTH_T0_MS + 10000, "epoch", "Epoch 7/9");
    line->epoch = 7; /* an epoch line of the output */
    gw_analysis *a = synth_analyze(s);
    assert_int_equal(a->epoch_origin, GW_EPOCHS_MARKS); /* marks beat output lines */
    assert_int_equal(a->nepochs, 2);
    assert_int_equal(a->epochs[0].number, 1);
    assert_int_equal(a->epochs[0].total, 2);
    assert_int_equal(a->epochs[1].number, 2);
    assert_int_equal(a->epochs[1].start_ms, SYNTH_T0_MS + 40000);
    assert_int_equal(a->gpus[0].ndips, 1);
    assert_true(a->gpus[0].dips[0].expected); /* only the validation mark explains this dip */
    assert_non_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
    gw_analysis_free(a);
    gw_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_units),
        cmocka_unit_test(test_scan_pytorch_new),
        cmocka_unit_test(test_scan_pytorch_old),
        cmocka_unit_test(test_scan_other_frameworks),
        cmocka_unit_test(test_oom_crash_verdict),
        cmocka_unit_test(test_exit_zero_is_no_verdict),
        cmocka_unit_test(test_failed_causes),
        cmocka_unit_test(test_xid_before_the_exit),
        cmocka_unit_test(test_job_stalled_verdict),
        cmocka_unit_test(test_marks_give_epochs_and_expected_dips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

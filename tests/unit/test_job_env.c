/* Unit tests for src/record/job.c: the job's identity and GPUs from the environment (Slurm,
 * torchrun, MPI, Kubernetes; CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, SLURM_*_GPUS) and the
 * "job" JSON object written and read back. */
#include "test_helpers.h"

#include "record/job.h"

/* Three GPUs whose NVML order is not their PCI order: index 0 sits on bus 0x41, 1 on 0x01, 2 on
 * 0x21 (CUDA_DEVICE_ORDER=PCI_BUS_ID numbers them 1, 2, 0). */
static const gw_device_info devs3[] = {
    {.index = 0,
     .uuid = "GPU-aaaa0000-0000-0000-0000-000000000000",
     .pci_bus_id = "00000000:41:00.0"},
    {.index = 1,
     .uuid = "GPU-bbbb1111-0000-0000-0000-000000000000",
     .pci_bus_id = "00000000:01:00.0"},
    {.index = 2,
     .uuid = "GPU-abcd2222-0000-0000-0000-000000000000",
     .pci_bus_id = "00000000:21:00.0"},
};

static const gw_mig_device migs[] = {
    {.gpu = 2, .slot = 0, .uuid = "MIG-11111111-2222-3333-4444-555555555555"},
    {.gpu = 2, .slot = 1, .uuid = "MIG-66666666-2222-3333-4444-555555555555"},
};

/* Chooses among devs3 with env; returns the job (gw_job_clear it). */
static gw_job choose(char *const *env, bool have_job)
{
    gw_job j = {0};
    gw_job_choose_gpus(&j, env, devs3, 3, migs, 2, have_job);
    return j;
}

static void assert_gpus(const gw_job *j, const char *source, size_t n, const unsigned *want)
{
    assert_string_equal(j->gpus_source, source);
    assert_int_equal(j->ngpus, n);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(j->gpus[k], want[k]);
        assert_string_equal(j->gpu_uuids[k], devs3[want[k]].uuid);
    }
}

static bool warned(const gw_job *j, const char *part)
{
    for (size_t k = 0; k < j->nwarnings; k++)
        if (strstr(j->warnings[k], part))
            return true;
    return false;
}

static void test_cuda_uuids(void **state)
{
    (void)state;
    /* a whole UUID and a prefix, in CUDA's order: the job's GPUs come back in NVML order */
    char *env[] = {"CUDA_VISIBLE_DEVICES=GPU-abcd2222-0000-0000-0000-000000000000,GPU-bbbb", NULL};
    gw_job j = choose(env, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 2, (unsigned[]){1, 2});
    assert_false(j.gpus_pending);
    assert_int_equal(j.nwarnings, 0);
    assert_null(j.gpus_note);
    gw_job_clear(&j);
    /* "GPU-a" matches two GPUs: CUDA refuses an ambiguous prefix, and stops there */
    char *amb[] = {"CUDA_VISIBLE_DEVICES=GPU-bbbb,GPU-a,GPU-abcd", NULL};
    j = choose(amb, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 1, (unsigned[]){1});
    assert_true(warned(&j, "'GPU-a' names no GPU"));
    gw_job_clear(&j);
}

static void test_cuda_mig(void **state)
{
    (void)state;
    char *env[] = {"CUDA_VISIBLE_DEVICES=MIG-66666666-2222-3333-4444-555555555555", NULL};
    gw_job j = choose(env, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 1, (unsigned[]){2});
    gw_job_clear(&j);
    /* the old form names the parent's UUID */
    char *old[] = {"CUDA_VISIBLE_DEVICES=MIG-GPU-aaaa0000-0000-0000-0000-000000000000/1/0", NULL};
    j = choose(old, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 1, (unsigned[]){0});
    gw_job_clear(&j);
    /* a MIG instance that does not exist: the command sees no GPU */
    char *none[] = {"CUDA_VISIBLE_DEVICES=MIG-99999999", NULL};
    j = choose(none, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 0, NULL);
    assert_int_equal(j.nwarnings, 0); /* said once, by the note */
    assert_non_null(strstr(j.gpus_note, "'MIG-99999999' names no GPU of this node"));
    assert_non_null(strstr(j.gpus_note, "the command sees no GPU"));
    gw_job_clear(&j);
}

static void test_cuda_index_order(void **state)
{
    (void)state;
    /* PCI_BUS_ID: CUDA device 0 is the lowest bus (NVML 1), device 2 the highest (NVML 0) */
    char *pci[] = {"CUDA_VISIBLE_DEVICES=2,0", "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL};
    gw_job j = choose(pci, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 2, (unsigned[]){0, 1});
    assert_null(j.gpus_note);
    gw_job_clear(&j);
    /* FASTEST_FIRST (the default): not guessed; the next source decides, and a note says why */
    char *fast[] = {"CUDA_VISIBLE_DEVICES=1", "SLURM_STEP_GPUS=2", NULL};
    j = choose(fast, true);
    assert_gpus(&j, "SLURM_STEP_GPUS", 1, (unsigned[]){2});
    assert_non_null(j.gpus_note);
    assert_non_null(strstr(j.gpus_note, "FASTEST_FIRST"));
    assert_non_null(strstr(j.gpus_note, "CUDA_DEVICE_ORDER=PCI_BUS_ID"));
    gw_job_clear(&j);
    /* ... or the job's processes when nothing else names GPUs */
    char *fast2[] = {"CUDA_VISIBLE_DEVICES=1", NULL};
    j = choose(fast2, true);
    assert_string_equal(j.gpus_source, "processes");
    assert_true(j.gpus_pending);
    gw_job_clear(&j);
    /* every GPU named: the order does not matter */
    char *all3[] = {"CUDA_VISIBLE_DEVICES=2,1,0", NULL};
    j = choose(all3, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 3, (unsigned[]){0, 1, 2});
    gw_job_clear(&j);
}

static void test_cuda_bad(void **state)
{
    (void)state;
    /* empty: CUDA hides every GPU */
    char *empty[] = {"CUDA_VISIBLE_DEVICES=", "SLURM_JOB_GPUS=0", NULL};
    gw_job j = choose(empty, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 0, NULL);
    assert_non_null(strstr(j.gpus_note, "empty"));
    gw_job_clear(&j);
    /* a GPU beyond the node's: CUDA takes the entries before it */
    char *beyond[] = {"CUDA_VISIBLE_DEVICES=1,7,0", "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL};
    j = choose(beyond, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 1, (unsigned[]){2});
    assert_int_equal(j.nwarnings, 1);
    assert_true(warned(&j, "'7' names no GPU of this node (NVML sees 3)"));
    gw_job_clear(&j);
    /* an empty first entry (",2", " ,"): no GPU, and the note says why (it said nothing) */
    char *lead[] = {"CUDA_VISIBLE_DEVICES=,GPU-bbbb1111", "SLURM_JOB_GPUS=0", NULL};
    j = choose(lead, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 0, NULL);
    assert_non_null(j.gpus_note);
    assert_non_null(strstr(j.gpus_note, "'(empty entry)' names no GPU of this node"));
    gw_job_clear(&j);
    /* a UUID with junk after it: the note quotes the whole entry, not just the valid UUID
     * (40 characters cut it to exactly "GPU-<uuid>", which read as a UUID naming no GPU) */
    char *junk[] = {"CUDA_VISIBLE_DEVICES=GPU-bbbb1111-0000-0000-0000-000000000000 x", NULL};
    j = choose(junk, true);
    assert_gpus(&j, "CUDA_VISIBLE_DEVICES", 0, NULL);
    assert_non_null(
        strstr(j.gpus_note, "'GPU-bbbb1111-0000-0000-0000-000000000000 x' names no GPU"));
    gw_job_clear(&j);
    /* "all" is NVIDIA_VISIBLE_DEVICES' word, not CUDA's: said, and the next source decides */
    char *all[] = {"CUDA_VISIBLE_DEVICES=all", "NVIDIA_VISIBLE_DEVICES=GPU-aaaa0000", NULL};
    j = choose(all, true);
    assert_gpus(&j, "NVIDIA_VISIBLE_DEVICES", 1, (unsigned[]){0});
    assert_true(warned(&j, "CUDA_VISIBLE_DEVICES=all is not a list CUDA reads"));
    gw_job_clear(&j);
}

static void test_nvidia_and_slurm(void **state)
{
    (void)state;
    char *all[] = {"NVIDIA_VISIBLE_DEVICES=all", "SLURM_JOB_GPUS=1", NULL};
    gw_job j = choose(all, true);
    assert_gpus(&j, "NVIDIA_VISIBLE_DEVICES", 3, (unsigned[]){0, 1, 2});
    gw_job_clear(&j);
    /* void / none: the container runtime gave no list; the step's GPUs before the job's */
    char *v[] = {"NVIDIA_VISIBLE_DEVICES=void", "SLURM_STEP_GPUS=0,2", "SLURM_JOB_GPUS=0,1,2",
                 NULL};
    j = choose(v, true);
    assert_gpus(&j, "SLURM_STEP_GPUS", 2, (unsigned[]){0, 2});
    gw_job_clear(&j);
    char *range[] = {"SLURM_JOB_GPUS=1-2", NULL};
    j = choose(range, false);
    assert_gpus(&j, "SLURM_JOB_GPUS", 2, (unsigned[]){1, 2});
    gw_job_clear(&j);
    /* a GPU that does not exist is left out with one line */
    char *gone[] = {"SLURM_JOB_GPUS=1,5", NULL};
    j = choose(gone, false);
    assert_gpus(&j, "SLURM_JOB_GPUS", 1, (unsigned[]){1});
    assert_true(warned(&j, "there is no GPU 5 on this node"));
    gw_job_clear(&j);
    /* as many GPUs named as NVML sees, beyond its indices: a device cgroup renumbered them */
    char *cg[] = {"SLURM_JOB_GPUS=4,5,7", NULL};
    j = choose(cg, false);
    assert_gpus(&j, "SLURM_JOB_GPUS", 3, (unsigned[]){0, 1, 2});
    assert_non_null(strstr(j.gpus_note, "renumbered"));
    gw_job_clear(&j);
    /* nothing names GPUs: record takes every GPU */
    char *nothing[] = {NULL};
    j = choose(nothing, false);
    assert_gpus(&j, "all", 3, (unsigned[]){0, 1, 2});
    gw_job_clear(&j);
}

static void test_from_procs(void **state)
{
    (void)state;
    char *nothing[] = {NULL};
    gw_job j = choose(nothing, true);
    assert_true(j.gpus_pending);
    assert_int_equal(j.ngpus, 0);
    bool used[3] = {false, false, true};
    gw_job_set_from_procs(&j, used, devs3, 3);
    assert_gpus(&j, "processes", 1, (unsigned[]){2});
    assert_false(j.gpus_pending);
    gw_job_clear(&j);
    j = choose(nothing, true);
    bool none[3] = {false, false, false};
    gw_job_set_from_procs(&j, none, devs3, 3);
    assert_gpus(&j, "all", 3, (unsigned[]){0, 1, 2});
    assert_non_null(strstr(j.gpus_note, "no process of the command held a GPU"));
    gw_job_clear(&j);
}

static void test_identity(void **state)
{
    (void)state;
    char *slurm[] = {"SLURM_JOB_ID=4242",       "SLURM_STEP_ID=0",       "SLURM_PROCID=1",
                     "SLURM_LOCALID=1",         "SLURM_NTASKS=4",        "SLURM_JOB_USER=alice",
                     "SLURM_ARRAY_JOB_ID=4240", "SLURM_ARRAY_TASK_ID=2", NULL};
    gw_job j = {0};
    gw_job_identity(&j, slurm);
    assert_string_equal(j.scheduler, "slurm");
    assert_string_equal(j.job_id, "4242");
    assert_string_equal(j.step, "0");
    assert_string_equal(j.array_job_id, "4240");
    assert_string_equal(j.array_task, "2");
    assert_int_equal(j.rank, 1);
    assert_int_equal(j.local_rank, 1);
    assert_int_equal(j.world_size, 4);
    assert_string_equal(j.user, "alice");
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    assert_string_equal(j.node, host);
    char line[256];
    char *want = NULL;
    assert_true(asprintf(&want, "slurm job 4242 (array 4240_2) step 0, rank 1 of 4, %s", host) > 0);
    assert_string_equal(gw_job_line(&j, line, sizeof line), want);
    free(want);
    gw_job_clear(&j);

    /* torchrun: RANK before SLURM_PROCID would be, LOCAL_RANK, WORLD_SIZE */
    char *torch[] = {"TORCHELASTIC_RUN_ID=run7", "RANK=3", "LOCAL_RANK=1", "WORLD_SIZE=8", NULL};
    gw_job_identity(&j, torch);
    assert_string_equal(j.scheduler, "torchrun");
    assert_string_equal(j.job_id, "run7");
    assert_null(j.step);
    assert_int_equal(j.rank, 3);
    assert_int_equal(j.local_rank, 1);
    assert_int_equal(j.world_size, 8);
    gw_job_clear(&j);

    char *ompi[] = {"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_LOCAL_RANK=0",
                    "OMPI_COMM_WORLD_SIZE=4", "OMPI_MCA_orte_ess_jobid=123456", NULL};
    gw_job_identity(&j, ompi);
    assert_string_equal(j.scheduler, "mpi");
    assert_string_equal(j.job_id, "123456");
    assert_int_equal(j.rank, 2);
    assert_int_equal(j.local_rank, 0);
    assert_int_equal(j.world_size, 4);
    gw_job_clear(&j);

    char *k8s[] = {"KUBERNETES_SERVICE_HOST=10.0.0.1", "HOSTNAME=trainer-0", NULL};
    gw_job_identity(&j, k8s);
    assert_string_equal(j.scheduler, "kubernetes");
    assert_string_equal(j.job_id, "trainer-0");
    assert_int_equal(j.rank, -1);
    gw_job_clear(&j);

    /* none: absent is null, never 0 or ""; a bad number is absent with one line */
    char *none[] = {"RANK=one", "WORLD_SIZE=", NULL};
    gw_job_identity(&j, none);
    assert_string_equal(j.scheduler, "none");
    assert_null(j.job_id);
    assert_int_equal(j.rank, -1);
    assert_int_equal(j.world_size, -1);
    assert_true(warned(&j, "RANK='one' is not a whole number"));
    assert_string_equal(gw_job_line(&j, line, sizeof line), "");
    gw_job_clear(&j);
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    char *env[] = {"SLURM_JOB_ID=77", "SLURM_PROCID=0", "SLURM_NTASKS=2",
                   "CUDA_VISIBLE_DEVICES=GPU-abcd", NULL};
    gw_job j = {0};
    gw_job_identity(&j, env);
    gw_job_choose_gpus(&j, env, devs3, 3, NULL, 0, true);
    j.scope_node = true;
    cJSON *o = gw_job_json(&j);
    char *text = cJSON_PrintUnformatted(o);
    assert_non_null(strstr(text, "\"job_id\":\"77\""));
    assert_non_null(strstr(text, "\"step\":null"));
    assert_non_null(strstr(text, "\"local_rank\":null"));
    assert_non_null(strstr(text, "\"gpus\":[2]"));
    assert_non_null(strstr(text, "\"gpus_source\":\"CUDA_VISIBLE_DEVICES\""));
    assert_non_null(strstr(text, "\"scope\":\"node\""));
    cJSON_free(text);
    gw_job back = {0};
    assert_true(gw_job_from_json(&back, o));
    assert_string_equal(back.scheduler, "slurm");
    assert_string_equal(back.job_id, "77");
    assert_null(back.step);
    assert_int_equal(back.rank, 0);
    assert_int_equal(back.local_rank, -1);
    assert_int_equal(back.world_size, 2);
    assert_int_equal(back.ngpus, 1);
    assert_int_equal(back.gpus[0], 2);
    assert_string_equal(back.gpu_uuids[0], devs3[2].uuid);
    assert_true(back.scope_node);
    assert_true(gw_job_has_gpu(&back, 2));
    assert_false(gw_job_has_gpu(&back, 0));
    gw_job_clear(&back);
    cJSON_Delete(o);
    assert_false(gw_job_from_json(&back, NULL));
    gw_job_clear(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_uuids),       cmocka_unit_test(test_cuda_mig),
        cmocka_unit_test(test_cuda_index_order), cmocka_unit_test(test_cuda_bad),
        cmocka_unit_test(test_nvidia_and_slurm), cmocka_unit_test(test_from_procs),
        cmocka_unit_test(test_identity),         cmocka_unit_test(test_json_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

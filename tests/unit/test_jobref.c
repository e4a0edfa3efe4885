/* Unit tests for the job's identity read back from meta.json / summary.json by `report DIR...`
 * (gw_job_from_json, src/record/job.c, beside test_job_env's round trip) and
 * the missing-ranks line of the job report (src/report/jobs.c). */
#include "test_helpers.h"

#include "report/jobs.h"
#include "logread/job_meta.h"
#include "record/job.h"

#include <stdlib.h>

static gw_job read_json(const char *text, bool object)
{
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    gw_job r;
    assert_int_equal(gw_job_from_json(&r, cJSON_GetObjectItemCaseSensitive(doc, "job")), object);
    cJSON_Delete(doc);
    return r;
}

static void test_full_block(void **state)
{
    (void)state;
    gw_job r = read_json(
        "{\"job\": {\"scheduler\": \"slurm\", \"job_id\": \"4242\", \"step\": \"0\", "
        "\"array_job_id\": null, \"array_task\": null, \"rank\": 3, \"local_rank\": 1, "
        "\"world_size\": 8, \"node\": \"gpu-a01\", \"user\": \"alice\", \"gpus\": [1, 3], "
        "\"gpus_source\": \"SLURM_STEP_GPUS\", \"scope\": \"job\"}}",
        true);
    assert_string_equal(r.scheduler, "slurm");
    assert_string_equal(r.job_id, "4242");
    assert_string_equal(r.step, "0");
    assert_null(r.array_job_id);
    assert_int_equal(r.rank, 3);
    assert_int_equal(r.local_rank, 1);
    assert_int_equal(r.world_size, 8);
    assert_string_equal(r.node, "gpu-a01");
    assert_string_equal(r.user, "alice");
    assert_false(r.gpus_unlisted);
    assert_int_equal(r.ngpus, 2);
    assert_string_equal(r.gpus_source, "SLURM_STEP_GPUS");
    assert_true(gw_job_has_gpu(&r, 3));
    assert_false(gw_job_has_gpu(&r, 0));
    gw_job_clear(&r);
}

static void test_absent_and_odd_values(void **state)
{
    (void)state;
    /* absent is NULL / -1, never "" or 0; a number job id and string ranks are read; a world
     * size of 0, negative or huge ranks and an unknown scheduler are absent */
    gw_job r = read_json("{\"job\": {\"job_id\": 77, \"rank\": \"2\", \"local_rank\": -1, "
                         "\"world_size\": 0, \"node\": \"\", \"user\": null, "
                         "\"scheduler\": \"pbs\", \"gpus\": \"0\"}}",
                         true);
    assert_string_equal(r.job_id, "77");
    assert_int_equal(r.rank, 2);
    assert_int_equal(r.local_rank, -1);
    assert_int_equal(r.world_size, -1);
    assert_null(r.node);
    assert_null(r.user);
    assert_null(r.scheduler);
    assert_true(r.gpus_unlisted); /* no list: the job report takes every GPU as the job's */
    assert_int_equal(r.ngpus, 0);
    gw_job_clear(&r);
    r = read_json("{\"job\": {\"rank\": 1e12, \"world_size\": \"x\", \"gpus\": [\"2\", -1, 0]}}",
                  true);
    assert_int_equal(r.rank, -1);
    assert_int_equal(r.world_size, -1);
    assert_false(r.gpus_unlisted);
    assert_int_equal(r.ngpus, 2); /* "2" copied from an environment is read, -1 is left out */
    assert_int_equal(r.gpus[0], 2);
    assert_int_equal(r.gpus[1], 0);
    gw_job_clear(&r);
    r = read_json("{\"job\": null}", false);
    assert_null(r.job_id);
    assert_int_equal(r.rank, -1);
    assert_true(r.gpus_unlisted);
    gw_job_clear(&r);
}

static void test_meta_text_made_safe(void **state)
{
    (void)state;
    /* what a directory's meta.json says is printed and written into JSON: no escape sequence
     * reaches the terminal, valid UTF-8 stays as it is */
    cJSON *meta = cJSON_Parse("{\"host\": \"n1\", \"job\": {\"job_id\": \"7\\u001b[2J\", "
                              "\"node\": \"n\u00e9ud\", \"user\": \"bob\\tx\", \"rank\": 1}}");
    assert_non_null(meta);
    gw_job j;
    assert_true(gw_logread_job_of_meta(&j, meta));
    assert_string_equal(j.job_id, "7?[2J");
    assert_string_equal(j.node, "n\u00e9ud");
    assert_string_equal(j.user, "bob x");
    assert_int_equal(j.rank, 1);
    gw_job_clear(&j);
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "job");
    assert_false(gw_logread_job_of_meta(&j, meta)); /* an older recording: no job */
    assert_null(j.job_id);
    assert_int_equal(j.rank, -1);
    gw_job_clear(&j);
    cJSON_Delete(meta);
}

static char *line_of(long world, size_t nranks, size_t nmembers, long *missing, size_t nmissing)
{
    gw_job_group g = {.world_size = world,
                      .nranks = nranks,
                      .nmembers = nmembers,
                      .missing = missing,
                      .nmissing = nmissing};
    return gw_report_job_ranks_line(&g);
}

static void test_ranks_line(void **state)
{
    (void)state;
    long m13[] = {1, 3}, m2[] = {2}, many[12];
    for (int i = 0; i < 12; i++)
        many[i] = i + 4;
    struct {
        char *got;
        const char *want;
    } cases[] = {
        {line_of(4, 2, 2, m13, 2), "2 of 4 ranks: rank 1 and 3 missing"},
        {line_of(4, 3, 3, m2, 1), "3 of 4 ranks: rank 2 missing"},
        {line_of(2, 2, 2, NULL, 0), "2 of 2 ranks"},
        {line_of(16, 4, 4, many, 12),
         "4 of 16 ranks: rank 4, 5, 6, 7, 8, 9, 10, 11 and 4 more missing"},
        {line_of(-1, 1, 1, NULL, 0), "1 rank (world size unknown)"},
        {line_of(-1, 0, 3, NULL, 0), "3 directories (no ranks)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_string_equal(cases[i].got, cases[i].want);
        free(cases[i].got);
    }
}

static void test_rank_notes(void **state)
{
    (void)state;
    long ws[] = {4, 8, 16}, dup[] = {1, 3}, out[] = {20};
    gw_job_group g = {.world_size = 16, .world_sizes = ws, .nworld_sizes = 3};
    g.duplicated = dup;
    g.nduplicated = 2;
    g.outside = out;
    g.noutside = 1;
    char *notes = gw_report_job_rank_notes(&g);
    assert_string_equal(notes, "World sizes disagree: 4, 8 and 16; counted against 16.\n"
                               "Ranks 1 and 3 have more than one directory.\n"
                               "Rank 20 is at or past the world size (16).\n");
    free(notes);
    gw_job_group none = {.world_size = 4, .world_sizes = ws, .nworld_sizes = 1};
    assert_null(gw_report_job_rank_notes(&none)); /* all adds up: no line */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_block),          cmocka_unit_test(test_absent_and_odd_values),
        cmocka_unit_test(test_meta_text_made_safe), cmocka_unit_test(test_ranks_line),
        cmocka_unit_test(test_rank_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

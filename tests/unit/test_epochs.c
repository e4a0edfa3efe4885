/* Epoch line matcher: default formats, non-matches, custom expressions, epoch list building. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/epochs.h"

#include <stdlib.h>
#include <string.h>

static gw_epoch_matcher *matcher(const char *re)
{
    gw_epoch_matcher *m = NULL;
    gw_error err;
    assert_int_equal(gw_epoch_matcher_new(re, &m, &err), GW_OK);
    return m;
}

static void expect(const gw_epoch_matcher *m, const char *line, long epoch, long total)
{
    long e = -7, t = -7;
    if (!gw_epoch_matcher_match(m, line, &e, &t))
        fail_msg("no match: %s", line);
    assert_int_equal(e, epoch);
    assert_int_equal(t, total);
}

static void test_default_formats(void **state)
{
    (void)state;
    gw_epoch_matcher *m = matcher(NULL);
    expect(m, "Epoch 3/100", 3, 100);
    expect(m, "Epoch 3:  45%|####      | 450/1000 [00:10<00:12]", 3, -1);
    expect(m, "epoch 3/4 validation+checkpoint", 3, 4);
    expect(m, "[Epoch 3]", 3, -1);
    expect(m, "step 10 epoch=3 loss=0.5", 3, -1);
    expect(m, "Epoch [12/90] lr 0.1", 12, 90);
    expect(m, "Epoch: 7", 7, -1);
    expect(m, "training epoch 2 of 10", 2, 10);
    expect(m, "EPOCH 5 / 6", 5, 6);
    gw_epoch_matcher_free(m);
}

static void test_default_non_matches(void **state)
{
    (void)state;
    gw_epoch_matcher *m = matcher(NULL);
    const char *lines[] = {"train step 20 loss 5.3699",
                           "training for 100 epochs",
                           "num_epochs=10",
                           "epochs: 5",
                           "done",
                           "Epoch",
                           "depoch 3"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (gw_epoch_matcher_match(m, lines[i], NULL, NULL))
            fail_msg("matched but should not: %s", lines[i]);
    gw_epoch_matcher_free(m);
}

/* Issue 12: gpuwatch's own error text quoted "--field epoch=3" and made an epoch. */
static void test_gpuwatch_lines_and_options_never_count(void **state)
{
    (void)state;
    gw_epoch_matcher *m = matcher(NULL);
    const char *lines[] = {
        "gpuwatch mark: bad field 'x': give KEY=VALUE (e.g. --field epoch=3 --field lr=0.01)",
        "gpuwatch: ALERT warning slow_sample: Epoch 3/10",
        "  gpuwatch run: Epoch 4",
        "  -f, --field KEY=VALUE  e.g. --field epoch=3",
        "python3 train.py --epoch 3 --lr 0.1",
        "resume with -e epoch=5",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (gw_epoch_matcher_match(m, lines[i], NULL, NULL))
            fail_msg("matched but should not: %s", lines[i]);
    /* The script's own lines still count, also after an option elsewhere on the line. */
    expect(m, "step 10 epoch=3 loss=0.5", 3, -1);
    expect(m, "--lr 0.1 Epoch 7/9", 7, 9);
    expect(m, "run --fast: epoch 2 of 4", 2, 4);
    expect(m, "- Epoch 6", 6, -1);
    expect(m, "gpuwatchx: epoch 8", 8, -1);
    gw_epoch_matcher_free(m);
    /* A custom expression never sees gpuwatch's lines either, but options are the user's call. */
    m = matcher("epoch=([0-9]+)");
    assert_false(gw_epoch_matcher_match(m, "gpuwatch: epoch=3", NULL, NULL));
    expect(m, "--field epoch=3", 3, -1);
    gw_epoch_matcher_free(m);
}

static void test_custom_regex(void **state)
{
    (void)state;
    gw_epoch_matcher *m = matcher("^ *(\\d+)/(\\d+) +[0-9.]+G"); /* ultralytics rows */
    expect(m, "      3/100      3.2G      1.234", 3, 100);
    assert_false(gw_epoch_matcher_match(m, "Epoch 3/100", NULL, NULL));
    gw_epoch_matcher_free(m);
    m = matcher("it ([a-z]+) ([0-9]+)"); /* the non-digit group is skipped */
    expect(m, "it is 9", 9, -1);
    gw_epoch_matcher_free(m);
}

static void test_bad_regex(void **state)
{
    (void)state;
    gw_epoch_matcher *m = NULL;
    gw_error err = {0};
    assert_int_equal(gw_epoch_matcher_new("Epoch ([0-9]+", &m, &err), GW_E_USAGE);
    assert_null(m);
    assert_non_null(strstr(err.msg, "Epoch ([0-9]+"));
    assert_int_equal(gw_epoch_matcher_new("Epoch [0-9]+", &m, &err), GW_E_USAGE);
    assert_non_null(strstr(err.msg, "no group"));
}

static void test_build(void **state)
{
    (void)state;
    int64_t t[] = {100, 150, 200, 300, 400};
    long num[] = {1, 1, 2, 2, 3};
    long tot[] = {-1, 3, 3, 3, 3};
    gw_epoch *e = NULL;
    size_t n = gw_epochs_build(t, num, tot, 5, 999, &e);
    assert_int_equal(n, 3);
    assert_int_equal(e[0].start_ms, 100);
    assert_int_equal(e[0].end_ms, 200);
    assert_int_equal(e[0].total, 3); /* learned from a later line of the same epoch */
    assert_int_equal(e[1].start_ms, 200);
    assert_int_equal(e[1].end_ms, 400);
    assert_int_equal(e[2].number, 3);
    assert_int_equal(e[2].end_ms, 999);
    free(e);
    assert_int_equal(gw_epochs_build(t, num, tot, 0, 999, &e), 0);
    assert_null(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_formats),
        cmocka_unit_test(test_default_non_matches),
        cmocka_unit_test(test_gpuwatch_lines_and_options_never_count),
        cmocka_unit_test(test_custom_regex),
        cmocka_unit_test(test_bad_regex),
        cmocka_unit_test(test_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

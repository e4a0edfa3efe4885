/* Launchers' and log collectors' prefixes before a trainer's lines (logread/line_prefix.h): each
 * shape taken off, and a trainer's own line that looks like one left whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "logread/line_prefix.h"

#include <string.h>

static const char *skip1(const char *line)
{
    gw_line_prefix st = {0};
    return gw_line_prefix_skip(&st, line);
}

static void test_unmistakable_shapes(void **state)
{
    (void)state;
    assert_string_equal(skip1("[rank0]: Epoch 1/25"), "Epoch 1/25");
    assert_string_equal(skip1("[rank12]:step: 10  loss: 2.5"), "step: 10  loss: 2.5");
    assert_string_equal(skip1("[default3]:iter 5"), "iter 5");
    assert_string_equal(skip1("[1,0]<stdout>:Epoch 2"), "Epoch 2");
    assert_string_equal(skip1("[0,15]<stderr>: 45%|####| 45/100"), " 45%|####| 45/100");
    assert_string_equal(skip1("(RayTrainWorker pid=1234, ip=10.0.0.1) Epoch 3"), "Epoch 3");
    assert_string_equal(skip1("(pid=77) iter 9"), "iter 9");
    assert_string_equal(skip1("[pod/train-0/pytorch] Epoch 4"), "Epoch 4");
    /* kubectl --timestamps, then torchrun's label: both taken off */
    assert_string_equal(skip1("2024-05-01T10:00:00.123456789Z [rank0]: 147/147 [====]"),
                        "147/147 [====]");
    assert_string_equal(skip1("[2024-05-01 10:00:00] Epoch 5"), "Epoch 5");
    /* moreutils ts's default, syslog's, journalctl's */
    assert_string_equal(skip1("May 01 10:00:00 250 | loss 3.75"), "250 | loss 3.75");
    assert_string_equal(skip1("Dec  2 09:41:24.512 iter 5"), "iter 5");
    assert_string_equal(skip1("May 01 10:00:00 gpu-01 python[1234]: Epoch 2/3"), "Epoch 2/3");
    const char *may = "May the loss 10:00:00 fall";
    assert_ptr_equal(skip1(may), may);
    /* a collector's time, then the line as printed: a table row keeps its `|` */
    assert_string_equal(skip1("2024-05-01T10:00:00.123456789Z |    iterations      | 9 |"),
                        "|    iterations      | 9 |");
    assert_string_equal(skip1("2021-07-14 10:00:01,123 - mmcls - INFO - Epoch [1][10/30]"),
                        "mmcls - INFO - Epoch [1][10/30]");
}

static void test_left_whole(void **state)
{
    (void)state;
    const char *keep[] = {
        "[rank] Epoch 1",     /* no number */
        "[ranking]: 3",       /* not a rank label */
        "(loss=0.5) Epoch 3", /* no pid */
        "1700000000 samples", /* a unix time alone is more often a counter */
        "[100]\tvalid_0's auc: 0.61",
        "Epoch: [0]  [ 0/60]  eta: 0:00:56",
        "",
    };
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        assert_ptr_equal(skip1(keep[i]), keep[i]);
}

/* srun --label: the same "0: " on two lines in a row, then taken off every line, any rank */
static void test_srun_label_after_two_lines(void **state)
{
    (void)state;
    gw_line_prefix st = {0};
    assert_string_equal(gw_line_prefix_skip(&st, "0: Loading data"), "0: Loading data");
    assert_string_equal(gw_line_prefix_skip(&st, "0: Epoch 1/25"), "Epoch 1/25");
    assert_string_equal(gw_line_prefix_skip(&st, "  3: Epoch 1/25"), "Epoch 1/25");
    assert_string_equal(gw_line_prefix_skip(&st, "no label here"), "no label here");
    /* one label a line: CatBoost's round after it stays */
    assert_string_equal(gw_line_prefix_skip(&st, "0: 0:      learn: 167.03"),
                        "0:      learn: 167.03");
    /* a timestamp before the label: both off */
    assert_string_equal(gw_line_prefix_skip(&st, "2024-05-01T10:00:00Z 0: iter 5"), "iter 5");
}

/* CatBoost's rounds ("0:\tlearn: ...", "100:\tlearn: ...") and Darknet's ("1: 830.9, ...")
 * never repeat one number: nothing is taken off */
static void test_counters_are_no_label(void **state)
{
    (void)state;
    gw_line_prefix st = {0};
    const char *rounds[] = {"0:\tlearn: 167.03\ttest: 153.59", "100:\tlearn: 80.72",
                            "200:\tlearn: 70.62", "1: 830.9, 830.9 avg loss",
                            "2: 812.1, 828.0 avg"};
    for (size_t i = 0; i < sizeof rounds / sizeof *rounds; i++)
        assert_ptr_equal(gw_line_prefix_skip(&st, rounds[i]), rounds[i]);
    assert_int_equal(st.label[0], '\0');
}

/* docker compose and pdsh: a numbered name; a trainer's own "Epoch: " twice is none */
static void test_named_labels(void **state)
{
    (void)state;
    gw_line_prefix st = {0};
    gw_line_prefix_skip(&st, "trainer-1  | Loading");
    assert_string_equal(gw_line_prefix_skip(&st, "trainer-1  | Epoch 1/3"), "Epoch 1/3");
    assert_string_equal(gw_line_prefix_skip(&st, "trainer-1  | iter 7"), "iter 7");
    gw_line_prefix pdsh = {0};
    gw_line_prefix_skip(&pdsh, "worker-0: step=10, skipped=0");
    assert_string_equal(gw_line_prefix_skip(&pdsh, "worker-0: step=20, skipped=0"),
                        "step=20, skipped=0");
    gw_line_prefix own = {0};
    const char *a = "Epoch: [0]  [ 0/60]", *b = "Epoch: [0]  [10/60]", *c = "Epoch: [0]  [20/60]";
    assert_ptr_equal(gw_line_prefix_skip(&own, a), a);
    assert_ptr_equal(gw_line_prefix_skip(&own, b), b);
    assert_ptr_equal(gw_line_prefix_skip(&own, c), c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unmistakable_shapes),
        cmocka_unit_test(test_left_whole),
        cmocka_unit_test(test_srun_label_after_two_lines),
        cmocka_unit_test(test_counters_are_no_label),
        cmocka_unit_test(test_named_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

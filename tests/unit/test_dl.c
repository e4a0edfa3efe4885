/* Unit tests for what the lazily loaded libraries' loaders share (src/util/gw_dl): a symbol into
 * its typed slot, the first missing one named, and a failed load said to every caller. */
#include "test_helpers.h"

#include "util/gw_dl.h"

static int forty_two(void)
{
    return 42;
}

static void test_fill(void **state)
{
    (void)state;
    int (*fn)(void) = NULL;
    const char *missing = NULL;
    void *sym;
    int (*src)(void) = forty_two;
    memcpy(&sym, &src, sizeof sym);
    assert_true(gw_dl_fill(sym, &fn, sizeof fn, "forty_two", &missing));
    assert_null(missing);
    assert_non_null(fn);
    assert_int_equal(fn(), 42);
    assert_false(gw_dl_fill(NULL, &fn, sizeof fn, "first_gone", &missing));
    assert_false(gw_dl_fill(NULL, &fn, sizeof fn, "second_gone", &missing));
    assert_string_equal(missing, "first_gone"); /* the first one is named */
    assert_int_equal(fn(), 42);                 /* a missing symbol leaves the slot as it was */
}

static gw_dl_state failing = GW_DL_STATE_INIT, working = GW_DL_STATE_INIT;
static int failing_runs, working_runs;

static void load_failing(void)
{
    failing_runs++;
    gw_dl_fail(&failing, "cannot load libx.so.%d (%s): install libx%d", 1, "not found", 1);
}

static void load_working(void)
{
    working_runs++;
}

static void test_load_once(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        gw_error err = {0};
        assert_int_equal(gw_dl_load(&failing, load_failing, &err), GW_E_NOTFOUND);
        assert_int_equal(err.rc, GW_E_NOTFOUND);
        assert_string_equal(err.msg, "cannot load libx.so.1 (not found): install libx1");
        err = (gw_error){0};
        assert_int_equal(gw_dl_load(&working, load_working, &err), GW_OK);
        assert_int_equal(err.rc, GW_OK);
    }
    assert_int_equal(failing_runs, 1); /* loaded once, the error kept for the second caller */
    assert_int_equal(working_runs, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_load_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

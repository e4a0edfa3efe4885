/* The one bounds table (sampler/fields.c, gw_field_bounds_of): the sentinels and impossible
 * readings of issue 15 item 6 are outside it, real readings (including the edges) inside. The log
 * reader uses the same function (tests/cli/test_evidence.py proves it end to end). */
#include "test_helpers.h"

#include "sampler/sample.h"

#include <math.h>

static void sentinels_are_outside(void **state)
{
    (void)state;
    assert_false(gw_field_plausible(GW_F_UTIL_GPU_PCT, 4294967295.0));
    assert_false(gw_field_plausible(GW_F_UTIL_GPU_PCT, 808334905.0));
    assert_false(gw_field_plausible(GW_F_UTIL_GPU_PCT, 100.5));
    assert_false(gw_field_plausible(GW_F_ENERGY_MJ, 9223372036854775794.0));
    assert_false(gw_field_plausible(GW_F_ENERGY_MJ, 1.407e14));
    assert_false(gw_field_plausible(GW_F_TEMP_GPU_C, -273));
    assert_false(gw_field_plausible(GW_F_TEMP_GPU_C, 65535));
    assert_false(gw_field_plausible(GW_F_POWER_DRAW_W, -5));
    assert_false(gw_field_plausible(GW_F_MEM_TOTAL_MIB, 0)); /* a capacity divides */
    assert_false(gw_field_plausible(GW_F_POWER_LIMIT_W, 0.5));
    assert_false(gw_field_plausible(GW_F_PSTATE, 32));
    assert_false(gw_field_plausible(GW_F_UTIL_GPU_PCT, NAN));
    assert_false(gw_field_plausible(GW_F_UTIL_GPU_PCT, INFINITY));
    assert_false(gw_field_plausible(GW_F_HOST_CPU_UTIL_PCT, 50)); /* not a GPU field */
}

static void real_readings_are_inside(void **state)
{
    (void)state;
    assert_true(gw_field_plausible(GW_F_UTIL_GPU_PCT, 0));
    assert_true(gw_field_plausible(GW_F_UTIL_GPU_PCT, 100));
    assert_true(gw_field_plausible(GW_F_MEM_USED_MIB, 0));
    assert_true(gw_field_plausible(GW_F_MEM_TOTAL_MIB, 143771));
    assert_true(gw_field_plausible(GW_F_TEMP_GPU_C, 0));
    assert_true(gw_field_plausible(GW_F_TEMP_GPU_C, 95));
    assert_true(gw_field_plausible(GW_F_POWER_DRAW_W, 0));
    assert_true(gw_field_plausible(GW_F_POWER_DRAW_W, 1000));
    assert_true(gw_field_plausible(GW_F_ENERGY_MJ, 5.0e13)); /* 2.2 years at 700 W */
    assert_true(gw_field_plausible(GW_F_CLOCKS_EVENT_REASONS, 0x1ff));
    assert_true(gw_field_plausible(GW_F_PSTATE, 15));
    assert_true(gw_field_plausible(GW_F_GPM_SM_ACTIVE_PCT, 100.4)); /* rounding */
}

/* Every GPU field has bounds (an all-zero entry would drop every reading but 0). */
static void every_field_has_bounds(void **state)
{
    (void)state;
    for (int f = 0; f < GW_F_COUNT; f++) {
        assert_true(gw_field_bounds_of[f].hi > gw_field_bounds_of[f].lo);
        assert_true(gw_field_bounds_of[f].hi <= 4503599627370496.0); /* exact in a double */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sentinels_are_outside),
        cmocka_unit_test(real_readings_are_inside),
        cmocka_unit_test(every_field_has_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

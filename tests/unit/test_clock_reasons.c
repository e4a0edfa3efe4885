/* sampler/clock_reasons.h: the one definition of the clocks event reason groups (thermal, power,
 * HW) and of a cell turned into a mask, which analysis, the chart bands, `check` and `top` use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sampler/clock_reasons.h"

#include <math.h>

static void test_thermal_is_sw_or_hw_thermal(void **state)
{
    (void)state;
    for (unsigned bit = 1; bit <= 0x100; bit <<= 1) {
        bool want = bit == GW_REASON_SW_THERMAL || bit == GW_REASON_HW_THERMAL;
        assert_int_equal(gw_reasons_thermal(bit), want);
    }
    /* nvidia-smi's names for the bits (design/nvml.md): 0x20 SW thermal, 0x40 HW thermal */
    assert_true(gw_reasons_thermal(0x20) && gw_reasons_thermal(0x40));
    assert_true(gw_reasons_thermal(0x4 | 0x40));
    assert_false(gw_reasons_thermal(0x1 | 0x4 | 0x8 | 0x80));
}

static void test_power_and_slowed(void **state)
{
    (void)state;
    assert_true(gw_reasons_power(0x4) && gw_reasons_power(0x80));
    assert_false(gw_reasons_power(0x8 | 0x20 | 0x40 | 0x1));
    assert_int_equal(GW_REASONS_HW, 0x8 | 0x80);
    assert_false(gw_reasons_slowed(0x1)); /* idle alone is not a slowdown */
    assert_false(gw_reasons_slowed(0));
    assert_true(gw_reasons_slowed(0x1 | 0x4));
    assert_true(gw_reasons_slowed(0x200)); /* an unknown bit still holds clocks down */
}

static void test_cell_to_mask(void **state)
{
    (void)state;
    assert_int_equal(gw_reasons_of(68), 0x44);
    assert_int_equal(gw_reasons_of(0), 0);
    /* garbage never sets a reason: absent, negative, fractional, beyond 64 bits */
    assert_int_equal(gw_reasons_of(NAN), 0);
    assert_int_equal(gw_reasons_of(-64), 0);
    assert_int_equal(gw_reasons_of(64.5), 0);
    assert_int_equal(gw_reasons_of(1e30), 0);
    assert_int_equal(gw_reasons_of(INFINITY), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thermal_is_sw_or_hw_thermal),
        cmocka_unit_test(test_power_and_slowed),
        cmocka_unit_test(test_cell_to_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for logread/cells.c: the cell split and gw_cells_number's hand-written paths, each
 * checked against the C library's own parse of the same text (bit for bit). */
#include "test_helpers.h"

#include "logread/cells.h"

#include <math.h>
#include <stdint.h>

static void test_split_trims_and_ends_cells(void **state)
{
    (void)state;
    char line[] = " a ,\tb\t,, \"x, \"\"y\"\" \" , 7 \r\n";
    char *cells[8];
    size_t n = gw_cells_split(line, cells, 8);
    assert_int_equal(n, 5);
    assert_string_equal(cells[0], "a");
    assert_string_equal(cells[1], "b");
    assert_string_equal(cells[2], "");
    assert_string_equal(cells[3], "x, \"y\"");
    assert_string_equal(cells[4], "7");
    char one[] = "solo";
    assert_int_equal(gw_cells_split(one, cells, 8), 1);
    assert_string_equal(cells[0], "solo");
}

/* Decimal cells read as strtod reads them, to the last bit (the fast path and its fallback). */
static void test_decimals_are_strtod_bit_for_bit(void **state)
{
    (void)state;
    static const char *cases[] = {
        "0",
        "-0",
        "-0.0",
        "675.20",
        "007.250",
        "99.999999999999999",
        "1234567890123456789",
        "0.1",
        "3.",
        ".5",
        "+7",
        "1e2",
        "12.5e-1",
        "143771",
        "0.3",
        "1.7",
        "2.675",
        "-40.25",
        "123456789012345.6",
        "9007199254740993",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -1, want = strtod(cases[i], NULL);
        const char *unit = NULL;
        assert_true(gw_cells_number(cases[i], &v, &unit));
        assert_string_equal(unit, "");
        uint64_t a, b;
        memcpy(&a, &v, 8);
        memcpy(&b, &want, 8);
        if (a != b)
            fail_msg("%s: %.17g, strtod %.17g", cases[i], v, want);
    }
}

static void test_hex_masks_and_pstates(void **state)
{
    (void)state;
    double v = -1;
    const char *unit = NULL;
    assert_true(gw_cells_number("0x0000000000000004", &v, &unit));
    assert_true(v == 4.0);
    assert_true(gw_cells_number("0X00000000000000FF", &v, &unit));
    assert_true(v == 255.0);
    assert_true(gw_cells_number("0xAbC", &v, &unit));
    assert_true(v == 2748.0);
    assert_true(gw_cells_number("0xfffffffffffffffffff", &v, &unit)); /* past 64 bits */
    assert_true(v == (double)UINT64_MAX);
    assert_false(gw_cells_number("0x1g", &v, &unit));
    assert_true(gw_cells_number("P0", &v, &unit));
    assert_true(v == 0.0 && *unit == '\0');
    assert_true(gw_cells_number("P15", &v, &unit));
    assert_true(v == 15.0);
    assert_true(gw_cells_number("P015", &v, &unit));
    assert_true(v == 15.0);
    assert_false(gw_cells_number("P16", &v, &unit));
    assert_false(gw_cells_number("P1234", &v, &unit));
    assert_false(gw_cells_number("P1x", &v, &unit));
}

static void test_units_follow_numbers(void **state)
{
    (void)state;
    double v = -1;
    const char *unit = NULL;
    assert_true(gw_cells_number("645.54 W", &v, &unit));
    assert_true(v == strtod("645.54", NULL));
    assert_string_equal(unit, "W");
    assert_true(gw_cells_number("94 %", &v, &unit));
    assert_true(v == 94.0);
    assert_string_equal(unit, "%");
    assert_false(gw_cells_number("12abc3", &v, &unit));
    assert_false(gw_cells_number("1.2.3", &v, &unit));
    assert_false(gw_cells_number("abc", &v, &unit));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_trims_and_ends_cells),
        cmocka_unit_test(test_decimals_are_strtod_bit_for_bit),
        cmocka_unit_test(test_hex_masks_and_pstates),
        cmocka_unit_test(test_units_follow_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for util/gw_utf8.c (replacement of bad bytes) and src/view/utf8.c (widths,
 * shortening). */
#include "test_helpers.h"

#include "view/utf8.h"

static char *sanitize(const char *s, size_t n)
{
    gw_buf b = {0};
    gw_utf8_sanitize(s, n, &b);
    return b.data ? b.data : strdup("");
}

/* A literal with its length (NULs included). */
#define LIT(s) s, sizeof(s) - 1

static void test_sanitize_keeps_valid_text(void **state)
{
    (void)state;
    char *s = sanitize(LIT("python3 train.py --name=caf\xC3\xA9 \xE6\xBC\xA2 \xF0\x9F\x94\xA5"));
    assert_string_equal(s, "python3 train.py --name=caf\xC3\xA9 \xE6\xBC\xA2 \xF0\x9F\x94\xA5");
    free(s);
}

#define REP "\xEF\xBF\xBD" /* U+FFFD */

static void test_sanitize_replaces_invalid_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"a\377b", 3, "a" REP "b"},               /* a byte that never starts UTF-8 (0xFF) */
        {"b\200c", 3, "b" REP "c"},               /* a stray continuation byte (0x80) */
        {"\xC0\xAF", 2, REP REP},                 /* an overlong '/' */
        {"\xED\xA0\x80", 3, REP REP REP},         /* a UTF-16 surrogate */
        {"x\xE2\x82", 3, "x" REP REP},            /* a sequence cut short */
        {"\xF4\x90\x80\x80", 4, REP REP REP REP}, /* past U+10FFFF */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = sanitize(cases[i].in, cases[i].len);
        assert_string_equal(s, cases[i].want);
        free(s);
    }
}

static void test_sanitize_neutralises_controls(void **state)
{
    (void)state;
    /* argv separators become spaces; an escape sequence cannot reach the terminal */
    char *s = sanitize(LIT("ls\0-l\0\x1b[2Jx\tq\nz\x7f\xC2\x85."));
    assert_string_equal(s, "ls -l ?[2Jx q z?"
                           "?.");
    free(s);
}

static void test_sanitize_neutralises_bidi_controls(void **state)
{
    (void)state;
    /* U+202E shows "node-exe.txt" as "node-txt.exe"; isolates, marks and separators likewise
     * (issue 26: they passed in top --hosts) */
    char *s = sanitize(LIT("a\xE2\x80\xAE"
                           "b\xE2\x81\xA6"
                           "c\xE2\x81\xA9"
                           "d\xE2\x80\x8F"
                           "e\xD8\x9C"
                           "f\xE2\x80\xA8"
                           "g\xE2\x80\x94h"));
    assert_string_equal(s, "a?b?c?d?e?f?g\xE2\x80\x94h"); /* an em dash stays */
    free(s);
}

static void test_width(void **state)
{
    (void)state;
    assert_int_equal(gw_utf8_width("abc"), 3);
    assert_int_equal(gw_utf8_width("caf\xC3\xA9"), 4);
    assert_int_equal(gw_utf8_width("\xE6\xBC\xA2\xE5\xAD\x97"), 4); /* two CJK: 2 each */
    assert_int_equal(gw_utf8_width("e\xCC\x81"), 1);                /* e + combining acute */
    assert_int_equal(gw_utf8_width("\xF0\x9F\x94\xA5"), 2);         /* emoji */
    assert_int_equal(gw_utf8_width(""), 0);
}

static char *fit(const char *s, int cols, int *used)
{
    gw_buf b = {0};
    *used = gw_utf8_fit(s, cols, &b);
    return b.data ? b.data : strdup("");
}

static void test_fit_never_cuts_a_character(void **state)
{
    (void)state;
    int used = 0;
    char *s = fit("short", 10, &used);
    assert_string_equal(s, "short");
    assert_int_equal(used, 5);
    free(s);
    s = fit("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 4, &used); /* 5 x é in 4 columns */
    assert_string_equal(s, "\xC3\xA9...");
    assert_int_equal(used, 4);
    free(s);
    /* CJK: 2 columns each; 6 columns leave room for one character and the dots */
    s = fit("\xE6\xBC\xA2\xE5\xAD\x97\xE6\xBC\xA2\xE5\xAD\x97", 6, &used);
    assert_string_equal(s, "\xE6\xBC\xA2...");
    assert_int_equal(used, 5);
    free(s);
    s = fit("abcdef", 3, &used);
    assert_string_equal(s, "...");
    free(s);
    s = fit("abcdef", 2, &used);
    assert_string_equal(s, "..");
    free(s);
    s = fit("abcdef", 6, &used);
    assert_string_equal(s, "abcdef");
    free(s);
    s = fit("abcdef", 0, &used);
    assert_string_equal(s, "");
    assert_int_equal(used, 0);
    free(s);
}

/* The fixed-buffer form the sampler uses on NVML's strings: sanitised in place, never cut inside
 * a character, and safe on a buffer NVML filled without a NUL. */
static void test_clean_buf_in_place(void **state)
{
    (void)state;
    char name[16] = "GPU \x1b[2J\xff";
    gw_utf8_clean_buf(name, sizeof name);
    assert_string_equal(name, "GPU ?[2J\xEF\xBF\xBD");
    char full[8];
    memcpy(full,
           "ab\xff\xff\xff"
           "cde",
           8); /* no NUL: 3 bad bytes grow to 9 */
    gw_utf8_clean_buf(full, sizeof full);
    assert_string_equal(full, "ab\xEF\xBF\xBD"); /* 7 bytes max: the second U+FFFD would be cut */
    char *dup = gw_utf8_clean_dup("x\x07y");
    assert_string_equal(dup, "x?y");
    free(dup);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sanitize_keeps_valid_text),
        cmocka_unit_test(test_sanitize_replaces_invalid_bytes),
        cmocka_unit_test(test_sanitize_neutralises_controls),
        cmocka_unit_test(test_sanitize_neutralises_bidi_controls),
        cmocka_unit_test(test_width),
        cmocka_unit_test(test_fit_never_cuts_a_character),
        cmocka_unit_test(test_clean_buf_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

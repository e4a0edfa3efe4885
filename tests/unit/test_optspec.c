/* Unit tests for src/cli/optspec: the getopt arrays made from the option tables, what a table
 * may not hold (two options with one name, letter or getopt value, a help text with a line
 * break), finding an option as given, and the --help text made from a table. */
#include "test_helpers.h"

#include "cli/commands.h"
#include "cli/optspec.h"

#include <string.h>

static size_t count_opts(const gw_cmd_spec *s)
{
    size_t n = 0;
    while (s->opts[n].name)
        n++;
    return n;
}

/* getopt_long's arrays hold each table entry once, with its argument kind and value. */
static void test_getopt_arrays(void **state)
{
    (void)state;
    gw_getopt g;
    const struct option *lo = gw_getopt_build(&gw_spec_run, &g);
    assert_string_equal(g.shorts, "+o:i:h");
    assert_string_equal(lo[0].name, "output");
    assert_int_equal(lo[0].has_arg, required_argument);
    assert_int_equal(lo[0].val, 'o');
    gw_getopt_build(&gw_spec_record, &g);
    assert_string_equal(g.shorts, "+o:i:d:h");
    gw_getopt_build(&gw_spec_plot, &g);
    assert_string_equal(g.shorts, ":o:h");
    gw_getopt_build(&gw_spec_serve, &g);
    assert_string_equal(g.shorts, "l:i:h");
    for (size_t i = 0; i < gw_cli_spec_count; i++) {
        const gw_cmd_spec *s = gw_cli_specs[i];
        size_t n = count_opts(s);
        assert_true(n > 0 && n < GW_OPTS_MAX);
        lo = gw_getopt_build(s, &g);
        for (size_t k = 0; k < n; k++) {
            assert_string_equal(lo[k].name, s->opts[k].name);
            assert_int_equal(lo[k].has_arg, s->opts[k].arg ? required_argument : no_argument);
            assert_int_equal(lo[k].val, gw_opt_key(&s->opts[k]));
        }
        assert_null(lo[n].name);
    }
}

/* A clash would make getopt return one value for two options: one of them would do the other's
 * work. Every option has help, no line break in it, and a value list where one is offered. */
static void test_tables_are_consistent(void **state)
{
    (void)state;
    for (size_t i = 0; i < gw_cli_spec_count; i++) {
        const gw_cmd_spec *s = gw_cli_specs[i];
        assert_non_null(s->summary);
        assert_non_null(s->synopsis);
        assert_non_null(s->exit_status);
        for (const gw_opt *a = s->opts; a->name; a++) {
            assert_true(a->help && a->help[0] && !strchr(a->help, '\n'));
            assert_true(gw_opt_key(a) != 0 && gw_opt_key(a) != '?' && gw_opt_key(a) != ':');
            if (a->complete == GW_COMPL_VALUES || a->complete == GW_COMPL_LIST)
                assert_true(a->values && a->values[0]);
            if (a->complete != GW_COMPL_NONE)
                assert_non_null(a->arg);
            for (const gw_opt *b = a + 1; b->name; b++) {
                if (!strcmp(a->name, b->name) || gw_opt_key(a) == gw_opt_key(b) ||
                    (a->letter && a->letter == b->letter))
                    fail_msg("gpuwatch %s: --%s and --%s share a name, letter or key", s->name,
                             a->name, b->name);
            }
        }
    }
}

static void test_find(void **state)
{
    (void)state;
    assert_string_equal(gw_opt_find(&gw_spec_run, "--output")->name, "output");
    assert_string_equal(gw_opt_find(&gw_spec_run, "--output=x")->name, "output");
    assert_string_equal(gw_opt_find(&gw_spec_run, "-o")->name, "output");
    assert_null(gw_opt_find(&gw_spec_run, "--out"));
    assert_null(gw_opt_find(&gw_spec_run, "-ox"));
    assert_null(gw_opt_find(&gw_spec_run, "output"));
    assert_null(gw_opt_find(&gw_spec_run, "--duration"));
    assert_string_equal(gw_opt_find(&gw_spec_record, "--duration")->name, "duration");
    /* query: nvidia-smi's "-lms", and --help-query-gpu is not --help */
    assert_string_equal(gw_opt_find(&gw_spec_query, "-lms")->name, "loop-ms");
    assert_string_equal(gw_opt_find(&gw_spec_query, "--help-query-gpu")->name, "help-query-gpu");
    assert_string_equal(gw_opt_find(&gw_spec_query, "--loop=2")->name, "loop");
    assert_string_equal(gw_opt_find(&gw_spec_query, "--loop-ms=200")->name, "loop-ms");
}

/* The --help text: usage, description, one line per option in the table's order, exit status. */
static void test_help_text(void **state)
{
    (void)state;
    static const gw_opt opts[] = {
        {.name = "output", .letter = 'o', .arg = "DIR", .help = "where"},
        {.name = "query-gpu", .key = 1000, .arg = "=FIELDS", .help = "what"},
        {.name = "no-report", .key = 1001, .help = "skip it"},
        {0}};
    static const gw_cmd_spec spec = {.name = "x",
                                     .summary = "s",
                                     .synopsis = "gpuwatch x [-o DIR]\n           [--no-report]",
                                     .description = "Does x.",
                                     .opts = opts,
                                     .exit_status = "0 done.",
                                     .examples = "gpuwatch x -o d\ngpuwatch x",
                                     .help_example = 1};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gw_help_write(&spec, f);
    fclose(f);
    assert_string_equal(buf, "usage: gpuwatch x [-o DIR]\n"
                             "                  [--no-report]\n"
                             "\n"
                             "Does x.\n"
                             "\n"
                             "  -o, --output DIR    where\n"
                             "      --query-gpu=FIELDS  what\n"
                             "      --no-report     skip it\n"
                             "\n"
                             "Exit status: 0 done.\n"
                             "Example: gpuwatch x -o d\n");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_getopt_arrays),
        cmocka_unit_test(test_tables_are_consistent),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_help_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

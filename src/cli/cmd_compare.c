/* gpuwatch compare (and report --compare): parses arguments and wires logread -> analysis ->
 * report/compare for each run. */
#include "cli/commands.h"

#include "analysis/analysis.h"
#include "cli/inputs.h"
#include "report/compare.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs one command compares at most (letters A..Z name them). */
#define MAX_RUNS 26

static const gw_opt compare_opts[] = {
    {.name = "json",
     .key = 'j',
     .arg = "FILE|-",
     .complete = GW_COMPL_FILE,
     .help = "write the comparison as JSON to FILE; '-' prints it instead of the text"},
    {.name = "html",
     .key = 'H',
     .arg = "FILE|-",
     .complete = GW_COMPL_FILE,
     .help = "write the comparison as HTML with overlaid charts (time from each run's start); "
             "'-' prints it instead of the text"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_compare = {
    .name = "compare",
    .summary = "compare runs of one job side by side: speed, GPU busy, cause, energy",
    .synopsis = "gpuwatch compare RUN_A RUN_B [RUN...] [--json FILE|-] [--html FILE|-]\n"
                "gpuwatch report --compare RUN_A RUN_B [RUN...]",
    .description =
        "Puts runs of one job side by side, for the user who changed one setting and ran\n"
        "again: steps/s and epoch time (the job's own progress bars or epoch lines), GPU busy\n"
        "and SM activity of the steady state, the most severe verdict and its cause, the\n"
        "data-wait share (in-job data), energy per epoch and per step, peak memory. Every run\n"
        "is compared with the first (A): the ratio, and whether it is beyond the noise the\n"
        "runs show (the spread between their epochs; without 2 epochs, between fifths of the\n"
        "steady state). RUN: a gpuwatch run directory or any input of gpuwatch report.",
    .opts = compare_opts,
    .notes = "Details: docs/compare.md.",
    .exit_status = "0 success, 1 runtime error (a run could not be read), 2 usage error.",
    .examples = "gpuwatch compare runs/workers2 runs/workers8\n"
                "gpuwatch compare runs/a runs/b runs/c --html compare.html\n"
                "gpuwatch compare runs/a runs/b --json - | jq '.comparisons'",
    .getopt_flags = ":",
    .operands = GW_COMPL_DIR,
};

typedef struct compare_args {
    const char *json, *html;
    char **paths;
    int npaths;
} compare_args;

/* Returns 0, 2 after a usage error, -1 after printing help. */
static int parse_args(int argc, char **argv, compare_args *r)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_compare, &g);
    memset(r, 0, sizeof *r);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        const char *given = argv[optind - 1];
        switch (c) {
        case 'j':
            r->json = optarg;
            break;
        case 'H':
            r->html = optarg;
            break;
        case 'h':
            gw_help_print(&gw_spec_compare);
            return -1;
        case ':':
            fprintf(stderr, "gpuwatch: compare: %s needs a value\n", given);
            return 2;
        default:
            fprintf(stderr, "gpuwatch: compare: unknown option '%s': see gpuwatch compare --help\n",
                    given);
            return 2;
        }
    }
    r->paths = argv + optind;
    r->npaths = argc - optind;
    if (r->json && r->html && strcmp(r->json, "-") == 0 && strcmp(r->html, "-") == 0) {
        fprintf(stderr, "gpuwatch: compare: --json - and --html - both want stdout: give one of "
                        "them a file\n");
        return 2;
    }
    if (r->npaths < 2 || r->npaths > MAX_RUNS) {
        fprintf(stderr,
                "gpuwatch: compare: give 2 to %d runs (run directories), not %d: gpuwatch "
                "compare RUN_A RUN_B\n",
                MAX_RUNS, r->npaths);
        return 2;
    }
    return 0;
}

int gw_cmd_report_compare(int argc, char **argv)
{
    char **args = xcalloc((size_t)argc + 1, sizeof *args);
    int n = 0, past = 0;
    for (int i = 0; i < argc; i++) {
        past |= strcmp(argv[i], "--") == 0;
        if (past || strcmp(argv[i], "--compare") != 0)
            args[n++] = argv[i];
    }
    int st = gw_cmd_compare(n, args);
    free(args);
    return st;
}

int gw_cmd_compare(int argc, char **argv)
{
    compare_args r;
    int st = parse_args(argc, argv, &r);
    if (st)
        return st < 0 ? 0 : st;
    size_t n = (size_t)r.npaths;
    gw_series **series = xcalloc(n, sizeof *series);
    gw_analysis **an = xcalloc(n, sizeof *an);
    int status = 0;
    for (size_t i = 0; i < n && status == 0; i++) {
        gw_cli_inputs in = {.paths = &r.paths[i], .npaths = 1};
        gw_error err = {0};
        series[i] = gw_series_new();
        gw_rc rc = gw_cli_read_inputs(&in, series[i], &err);
        if (rc) {
            fprintf(stderr, "gpuwatch: compare: %s\n", err.msg);
            status = rc == GW_E_USAGE ? 2 : 1;
            break;
        }
        gw_cli_warn_skipped("compare", series[i]);
        an[i] = gw_analyze(series[i]);
    }
    if (status == 0) {
        gw_cmp *c = gw_cmp_build((const gw_analysis *const *)an, (const char *const *)r.paths, n);
        bool to_stdout =
            (r.json && strcmp(r.json, "-") == 0) || (r.html && strcmp(r.html, "-") == 0);
        if (!to_stdout)
            gw_cmp_text(stdout, c, 80);
        gw_error err = {0};
        if (r.json && gw_cmp_write_json(c, r.json, &err)) {
            fprintf(stderr, "gpuwatch: compare: %s\n", err.msg);
            status = 1;
        }
        if (r.html && gw_cmp_write_html(c, r.html, &err)) {
            fprintf(stderr, "gpuwatch: compare: %s\n", err.msg);
            status = 1;
        }
        gw_cmp_free(c);
    }
    for (size_t i = 0; i < n; i++) {
        if (an[i])
            gw_analysis_free(an[i]);
        if (series[i])
            gw_series_free(series[i]);
    }
    free(an);
    free(series);
    return status;
}

/* gpuwatch report: parses arguments and wires logread -> analysis -> report. */
#include "cli/commands.h"
#include "util/gw_wrap.h"

#include "analysis/analysis.h"
#include "cli/inputs.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct report_args {
    const char *json;
    const char *html;
    int fail_on; /* gw_severity, or -1 */
    gw_cli_inputs in;
} report_args;

static void usage(FILE *to)
{
    fprintf(
        to,
        "usage: gpuwatch report INPUT... [--json FILE|-] [--html FILE|-]\n"
        "                       [--fail-on warning|critical] [--log FILE] [--epoch-regex RE]\n"
        "                       [--columns LIST] [--interval SECONDS] [--scope job|node]\n"
        "\n"
        "Reads recordings and says whether the GPU was really busy and, if not, why.\n"
        "INPUT: a gpuwatch run directory, a gpu.csv, nvidia-smi --query-gpu CSV (any\n"
        "variant), or a GPM CSV (unix_time, sm_util_pct, ...) that adds SM activity to the\n"
        "GPU of another input. Several inputs (the nodes of one job) make one report.\n"
        "\n"
        "  --json FILE|-      write summary.json to FILE; '-' prints it instead of the text\n"
        "  --html FILE|-      write the HTML report with charts (one self-contained file);\n"
        "                     '-' prints it instead of the text\n"
        "  --fail-on LEVEL    exit 1 when a verdict of LEVEL (warning|critical) or above exists\n"
        "  --log FILE         training log whose lines start with a unix or RFC 3339 time;\n"
        "                     its epoch lines give the epochs\n"
        "  --epoch-regex RE   POSIX extended regex for epoch lines (default understands\n"
        "                     'Epoch 3/100', 'Epoch 3:', '[Epoch 3]', 'epoch=3'); the first\n"
        "                     all-digit group is the epoch, the next one the total\n"
        "  --columns LIST     the --query-gpu list of CSV written with noheader, or new\n"
        "                     names for the columns of a CSV with a header\n"
        "  --interval SECONDS row spacing for CSV without a timestamp column (default 1)\n"
        "  --scope job|node   job: only the run's own GPUs (meta.json \"job\"); node: every\n"
        "                     GPU, the others shown as not this job and never judged\n"
        "                     (default: the scope the run was recorded with, else job)\n"
        "\n"
        "nvidia-smi's local timestamps are read in the zone TZ. Exit status: 0 success,\n"
        "1 runtime error or --fail-on hit, 2 usage error. Details: docs/report.md.\n");
}

/* Applies one option; returns 0, 2 after printing a usage error, or -1 after printing help. */
static int apply_option(int c, const char *arg, const char *as_given, report_args *r)
{
    int st = gw_cli_input_option("report", c, arg, &r->in);
    if (st != 1)
        return st;
    switch (c) {
    case 'j':
        r->json = arg;
        return 0;
    case 'H':
        r->html = arg;
        return 0;
    case 'f':
        r->fail_on = gw_severity_parse(arg);
        if (r->fail_on == GW_SEV_WARNING || r->fail_on == GW_SEV_CRITICAL)
            return 0;
        fprintf(stderr, "gpuwatch: report: --fail-on takes warning or critical, not '%s'\n", arg);
        return 2;
    case 'h':
        gw_cli_help_with(usage);
        return -1;
    case ':':
        fprintf(stderr, "gpuwatch: report: %s needs a value\n", as_given);
        return 2;
    default:
        fprintf(stderr, "gpuwatch: report: unknown option '%s': see gpuwatch report --help\n",
                as_given);
        return 2;
    }
}

/* Returns 0 on success, 2 after printing a usage error, -1 after printing help. */
static int parse_args(int argc, char **argv, report_args *r)
{
    static const struct option opts[] = {
        {"json", required_argument, NULL, 'j'}, {"fail-on", required_argument, NULL, 'f'},
        {"html", required_argument, NULL, 'H'}, GW_CLI_INPUT_OPTIONS,
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    memset(r, 0, sizeof *r);
    r->fail_on = -1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int st = apply_option(c, optarg, argv[optind - 1], r);
        if (st)
            return st;
    }
    r->in.paths = argv + optind;
    r->in.npaths = argc - optind;
    if (r->json && r->html && strcmp(r->json, "-") == 0 && strcmp(r->html, "-") == 0) {
        fprintf(stderr, "gpuwatch: report: --json - and --html - both want stdout: give one of "
                        "them a file\n");
        return 2;
    }
    if (r->in.npaths == 0) {
        fprintf(stderr, "gpuwatch: report: no input: give a run directory or a CSV log; see "
                        "gpuwatch report --help\n");
        return 2;
    }
    return 0;
}

int gw_cmd_report(int argc, char **argv)
{
    report_args r;
    int st = parse_args(argc, argv, &r);
    if (st)
        return st < 0 ? 0 : st;
    gw_error err = {0};
    gw_series *s = gw_series_new();
    gw_rc rc = gw_cli_read_inputs(&r.in, s, &err);
    int status = 0;
    if (rc) {
        fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
        gw_series_free(s);
        return rc == GW_E_USAGE ? 2 : 1;
    }
    gw_cli_warn_skipped("report", s);
    gw_analysis *a = gw_analyze(s);
    bool to_stdout = (r.json && strcmp(r.json, "-") == 0) || (r.html && strcmp(r.html, "-") == 0);
    if (!to_stdout) {
        gw_report_opts o = {.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR")};
        gw_wrap_stream w; /* 80 columns: verdicts and evidence wrap with a hanging indent */
        gw_report_text(gw_wrap_begin(&w, stdout), a, &o);
        gw_wrap_end(&w);
    }
    if (r.json && gw_report_write_json(a, r.json, &err)) {
        fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
        status = 1;
    }
    if (r.html && gw_report_write_html(a, r.html, NULL, &err)) {
        fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
        status = 1;
    }
    if (status == 0 && r.fail_on >= 0 && gw_verdict_max_severity(&a->verdicts) >= r.fail_on) {
        fprintf(stderr, "gpuwatch: report: a verdict at or above %s exists (--fail-on)\n",
                gw_severity_name((gw_severity)r.fail_on));
        status = 1;
    }
    gw_analysis_free(a);
    gw_series_free(s);
    return status;
}

/* gpuwatch report: parses arguments and wires logread -> analysis -> report. */
#include "cli/commands.h"
#include "util/gw_wrap.h"

#include "analysis/analysis.h"
#include "cli/inputs.h"
#include "cli/report_jobs.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct report_args {
    const char *json;
    const char *html;
    int fail_on;   /* gw_severity, or -1 */
    bool evidence; /* -v: every figure of each verdict's evidence */
    gw_cli_inputs in;
} report_args;

static const gw_opt report_opts[] = {
    {.name = "json",
     .key = 'j',
     .arg = "FILE|-",
     .complete = GW_COMPL_FILE,
     .help = "write summary.json to FILE; '-' prints it instead of the text"},
    {.name = "html",
     .key = 'H',
     .arg = "FILE|-",
     .complete = GW_COMPL_FILE,
     .help = "write the HTML report with charts (one self-contained file); '-' prints it instead "
             "of the text"},
    {.name = "fail-on",
     .key = 'f',
     .arg = "LEVEL",
     .complete = GW_COMPL_VALUES,
     .values = "warning critical",
     .help = "exit 1 when a verdict of LEVEL (warning|critical) or above exists"},
    {.name = "evidence",
     .letter = 'v',
     .help = "the text's Evidence section with every figure of each verdict (by default: the "
             "figures compared with a threshold, the cause and what was missing)"},
    GW_CLI_INPUT_OPTS,
    {.name = "compare",
     .key = 'C',
     .help = "compare runs side by side: the same as gpuwatch compare INPUT... (docs/compare.md)"},
    {.name = "fleet",
     .key = 'F',
     .help = "rank GPU-hours by user and by job from SRC...: a directory of per-job summary.json "
             "files (the Slurm epilog's), a summary.json, or a Prometheus base URL "
             "(http://host:9090)"},
    {.name = "top",
     .key = 't',
     .arg = "N",
     .help = "with --fleet: rows per table in the text (default 20; 0: all)"},
    {.name = "window",
     .key = 'w',
     .arg = "DURATION",
     .help = "with --fleet on Prometheus: how far back (default 1d; s, m, h or d)"},
    {.name = "step",
     .key = 's',
     .arg = "DURATION",
     .help = "with --fleet on Prometheus: sample spacing of the queries (default 60s)"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_report = {
    .name = "report",
    .summary = "say whether the GPU was busy and, if not, why, from recordings",
    .synopsis = "gpuwatch report INPUT... [--json FILE|-] [--html FILE|-]\n"
                "                [--fail-on warning|critical] [-v] [--log FILE]\n"
                "                [--epoch-regex RE] [--columns LIST] [--interval SECONDS]\n"
                "                [--scope job|node]\n"
                "gpuwatch report --compare RUN_A RUN_B [RUN...]\n"
                "gpuwatch report --fleet SRC... [--json FILE|-] [--top N]\n"
                "                [--window DURATION] [--step DURATION]",
    .description =
        "Reads recordings and says whether the GPU was really busy and, if not, why.\n"
        "INPUT: a gpuwatch run directory, a gpu.csv, nvidia-smi --query-gpu CSV (any\n"
        "variant), or a GPM CSV (unix_time, sm_util_pct, ...) that adds SM activity to\n"
        "the GPU of another input. Several inputs (the nodes of one job) make one report;\n"
        "run directories whose meta.json name their job are gathered by job id, one line\n"
        "per rank, with the ranks that are missing.\n"
        "The text: each verdict's finding and suggestion first, then its evidence (-v:\n"
        "every figure), the GPUs' statistics, the epochs and the job's own data.\n"
        "\n"
        "With --fleet, for administrators: ranks GPU-hours by user and by job by what\n"
        "the GPUs really did: idle holding memory, underfilled (GPU-Util high while SM\n"
        "activity is low), starved (GPU-Util between idle and busy), saturated, other.\n"
        "Most wasted first. SRC: a directory of per-job summary.json files (the Slurm\n"
        "epilog's, e.g. /var/lib/gpuwatch/jobs), a summary.json, or a Prometheus base URL\n"
        "(http://host:9090) that scrapes gpuwatch serve or dcgm-exporter with hpc_job\n"
        "labels.",
    .opts = report_opts,
    .notes = "nvidia-smi's local timestamps are read in the zone TZ. Details: docs/report.md\n"
             "(\"Fleet\" for --fleet).",
    .exit_status = "0 success, 1 runtime error or --fail-on hit, 2 usage error.",
    .examples = "gpuwatch report runs/exp1 --html report.html\n"
                "gpuwatch report node1/gpu.csv node2/gpu.csv --fail-on critical\n"
                "gpuwatch report --columns timestamp,utilization.gpu smi.csv\n"
                "gpuwatch report --fleet /var/lib/gpuwatch/jobs",
    .environment = "TZ\tthe zone of nvidia-smi's local timestamps\n" GW_ENV_COLOR,
    .files = "DIR/summary.json\tthe analysis `gpuwatch run` wrote (--json writes it again)\n",
    .getopt_flags = ":",
    .operands = GW_COMPL_FILE,
};

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
    case 'v':
        r->evidence = true;
        return 0;
    case 'h':
        gw_help_print(&gw_spec_report);
        return -1;
    case 't':
    case 'w':
    case 's':
        fprintf(stderr, "gpuwatch: report: --%s needs --fleet: gpuwatch report --fleet SRC...\n",
                gw_opt_name(&gw_spec_report, c));
        return 2;
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
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_report, &g);
    memset(r, 0, sizeof *r);
    r->fail_on = -1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
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
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--compare") == 0)
            return gw_cmd_report_compare(argc, argv);
    if (gw_cli_wants_fleet(argc, argv))
        return gw_cmd_report_fleet(argc, argv);
    report_args r;
    int st = parse_args(argc, argv, &r);
    if (st)
        return st < 0 ? 0 : st;
    if (gw_cli_inputs_are_jobs(&r.in)) /* the ranks of a job: docs/report.md */
        return gw_cli_report_jobs(&r.in, r.json, r.html, r.fail_on);
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
        gw_report_opts o = {.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
                            .width = gw_wrap_width_of(stdout),
                            .short_evidence = !r.evidence};
        gw_wrap_stream w; /* 80 columns in a pipe, the terminal's width on one */
        gw_report_text(gw_wrap_begin_always(&w, stdout), a, &o);
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

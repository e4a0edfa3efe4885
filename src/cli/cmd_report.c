/* gpuwatch report: parses arguments and wires logread -> analysis -> report. */
#include "cli/commands.h"

#include "analysis/analysis.h"
#include "analysis/epochs.h"
#include "logread/logread.h"
#include "report/report.h"
#include "util/gw_time.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct report_args {
    const char *json;
    const char *log;
    const char *epoch_regex;
    int fail_on; /* gw_severity, or -1 */
    gw_logread_opts read;
    char **inputs;
    int ninputs;
} report_args;

static void usage(FILE *to)
{
    fprintf(
        to,
        "usage: gpuwatch report INPUT... [--json FILE|-] [--fail-on warning|critical]\n"
        "                       [--log FILE] [--epoch-regex RE] [--columns LIST] "
        "[--interval SECONDS]\n"
        "\n"
        "Reads recordings and says whether the GPU was really busy and, if not, why.\n"
        "INPUT: a gpuwatch run directory, a gpu.csv, nvidia-smi --query-gpu CSV (any\n"
        "variant), or a GPM CSV (unix_time, sm_util_pct, ...) that adds SM activity to the\n"
        "GPU of another input. Several inputs (the nodes of one job) make one report.\n"
        "\n"
        "  --json FILE|-      write summary.json to FILE; '-' prints it instead of the text\n"
        "  --fail-on LEVEL    exit 1 when a verdict of LEVEL (warning|critical) or above exists\n"
        "  --log FILE         training log whose lines start with a unix or RFC 3339 time;\n"
        "                     its epoch lines give the epochs\n"
        "  --epoch-regex RE   POSIX extended regex for epoch lines (default understands\n"
        "                     'Epoch 3/100', 'Epoch 3:', '[Epoch 3]', 'epoch=3'); the first\n"
        "                     all-digit group is the epoch, the next one the total\n"
        "  --columns LIST     the --query-gpu list of CSV written with noheader\n"
        "  --interval SECONDS row spacing for CSV without a timestamp column (default 1)\n"
        "  --html FILE        not available yet (HTML charts come later)\n"
        "\n"
        "nvidia-smi's local timestamps are read in the zone TZ. Exit status: 0 success,\n"
        "1 runtime error or --fail-on hit, 2 usage error. Details: docs/report.md.\n");
}

/* Applies one option; returns 0, 2 after printing a usage error, or -1 after printing help. */
static int apply_option(int c, const char *arg, const char *as_given, report_args *r)
{
    double ms;
    switch (c) {
    case 'j':
        r->json = arg;
        return 0;
    case 'f':
        r->fail_on = gw_severity_parse(arg);
        if (r->fail_on == GW_SEV_WARNING || r->fail_on == GW_SEV_CRITICAL)
            return 0;
        fprintf(stderr, "gpuwatch: report: --fail-on takes warning or critical, not '%s'\n", arg);
        return 2;
    case 'l':
        r->log = arg;
        return 0;
    case 'e':
        r->epoch_regex = arg;
        return 0;
    case 'c':
        r->read.columns = arg;
        return 0;
    case 'i':
        if (gw_parse_duration_ms(arg, &ms) && ms > 0) {
            r->read.interval_s = ms / 1000.0;
            return 0;
        }
        fprintf(stderr,
                "gpuwatch: report: --interval takes a duration such as 1, 0.5 or 200ms, "
                "not '%s'\n",
                arg);
        return 2;
    case 'H':
        fprintf(stderr, "gpuwatch: report: --html is not available yet (HTML charts come in a "
                        "later version); use --json\n");
        return 2;
    case 'h':
        usage(stdout);
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
        {"json", required_argument, NULL, 'j'},
        {"fail-on", required_argument, NULL, 'f'},
        {"log", required_argument, NULL, 'l'},
        {"epoch-regex", required_argument, NULL, 'e'},
        {"columns", required_argument, NULL, 'c'},
        {"interval", required_argument, NULL, 'i'},
        {"html", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
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
    r->inputs = argv + optind;
    r->ninputs = argc - optind;
    if (r->ninputs == 0) {
        fprintf(stderr, "gpuwatch: report: no input: give a run directory or a CSV log\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static void warn_skipped(const gw_series *s)
{
    for (size_t i = 0; i < s->ninputs; i++) {
        const gw_series_input *in = &s->inputs[i];
        if (in->rows_skipped)
            fprintf(stderr,
                    "gpuwatch: report: %s: skipped %zu unreadable row%s (the first at line %ld)\n",
                    in->path, in->rows_skipped, in->rows_skipped == 1 ? "" : "s",
                    in->first_bad_line);
    }
}

static gw_rc read_all(const report_args *r, gw_series *s, gw_error *err)
{
    gw_epoch_matcher *m = NULL;
    gw_rc rc = gw_epoch_matcher_new(r->epoch_regex, &m, err);
    for (int i = 0; !rc && i < r->ninputs; i++)
        rc = gw_logread_input(s, r->inputs[i], &r->read, err);
    if (!rc && r->log)
        rc = gw_logread_train_log(s, r->log, m, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    gw_epoch_matcher_free(m);
    return rc;
}

int gw_cmd_report(int argc, char **argv)
{
    report_args r;
    int st = parse_args(argc, argv, &r);
    if (st)
        return st < 0 ? 0 : st;
    gw_error err = {0};
    gw_series *s = gw_series_new();
    gw_rc rc = read_all(&r, s, &err);
    int status = 0;
    if (rc) {
        fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
        gw_series_free(s);
        return rc == GW_E_USAGE ? 2 : 1;
    }
    warn_skipped(s);
    gw_analysis *a = gw_analyze(s);
    bool json_stdout = r.json && strcmp(r.json, "-") == 0;
    if (!json_stdout) {
        gw_report_opts o = {.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR")};
        gw_report_text(stdout, a, &o);
        fflush(stdout);
    }
    if (r.json && gw_report_write_json(a, r.json, &err)) {
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

/* gpuwatch check: parses arguments and wires config -> nvml -> health; see docs/check.md. */
#include "cli/commands.h"
#include "util/gw_wrap.h"

#include "cli/config_args.h"
#include "config/config.h"
#include "health/health.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { OPT_JSON = 1000 };

static const gw_opt check_opts[] = {
    {.name = "json", .key = OPT_JSON, .help = "print the result as JSON instead of the table"},
    GW_CONFIG_OPTS("read thresholds from FILE ([check] section; docs/alerts.md)", "check.KEY=V",
                   "change one threshold (e.g. --set check.idle_temp_warning=50)"),
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_check = {
    .name = "check",
    .summary = "check every GPU before training (Nagios exit codes)",
    .synopsis = "gpuwatch check [--json] [--config FILE] [--set check.KEY=VALUE]",
    .description =
        "The checklist to run before training, per GPU: reachable, idle temperature (warning\n"
        "above 45 C, critical above 55 C), memory already held by other processes (and by whom),\n"
        "throttle reasons, uncorrectable ECC errors, pending retired pages or remapped rows, the\n"
        "PCIe link against its maximum, and how long NVML takes to answer (warning above 100 ms,\n"
        "critical above 500 ms); with the driver and NVML versions.",
    .opts = check_opts,
    .exit_status = "(Nagios): 0 ok, 1 warning, 2 critical, 3 unknown (NVML cannot be used, no\n"
                   "GPU, a bad option or configuration file).",
    .examples = "gpuwatch check\ngpuwatch check --json --set check.idle_temp_warning=50",
    .environment = GW_ENV_NVML GW_ENV_CONFIG GW_ENV_COLOR,
    .files = GW_FILES_CONFIG,
    .getopt_flags = "+",
};

enum { EXIT_UNKNOWN = 3 };

static void print_json(const gw_health_report *r)
{
    cJSON *o = gw_health_json(r);
    char *text = cJSON_Print(o);
    puts(text);
    free(text);
    cJSON_Delete(o);
}

/* Prints an "unknown" result (NVML could not be used) in the chosen format. */
static int unknown(const char *msg, bool json)
{
    if (json) {
        gw_health_report r = {.state = GW_HEALTH_UNKNOWN};
        snprintf(r.error, sizeof r.error, "%s", msg);
        print_json(&r);
    }
    fprintf(stderr, "gpuwatch check: %s\n", msg);
    if (!json)
        printf("status: unknown (exit 3)\n");
    return EXIT_UNKNOWN;
}

static int run_check(const gw_health_thresholds *th, bool json)
{
    gw_error err = {0};
    gw_health_report r;
    if (gw_health_probe(&r, &err))
        return unknown(err.msg, json);
    gw_health_evaluate(&r, th);
    if (json) {
        print_json(&r);
    } else {
        gw_wrap_stream w; /* 80 columns in a pipe too, the terminal's width on one: long
                             reasons wrap under their column */
        gw_health_print(&r, gw_wrap_begin_always(&w, stdout),
                        isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
        gw_wrap_end(&w);
    }
    int status = gw_health_exit_code(r.state);
    gw_health_report_free(&r);
    return status;
}

int gw_cmd_check(int argc, char **argv)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_check, &g);
    gw_config_args ca = {0};
    bool json = false;
    gw_error err = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        int taken = gw_config_args_take(&ca, c, argc, argv, &err);
        if (taken < 0) {
            fprintf(stderr, "gpuwatch check: %s\n", err.msg);
            return EXIT_UNKNOWN;
        }
        if (taken)
            continue;
        if (c == OPT_JSON) {
            json = true;
        } else if (c == 'h') {
            gw_help_print(&gw_spec_check);
            return 0;
        } else {
            fprintf(stderr,
                    "gpuwatch check: unknown option '%s' or missing value; see gpuwatch check "
                    "--help\n",
                    argv[optind - 1]);
            return EXIT_UNKNOWN;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuwatch check: unexpected argument '%s'; see gpuwatch check --help\n",
                argv[optind]);
        return EXIT_UNKNOWN;
    }
    gw_config conf;
    gw_config_init(&conf);
    int status;
    if (gw_config_args_load(&ca, &conf, &err)) {
        fprintf(stderr, "gpuwatch check: %s\n", err.msg);
        status = EXIT_UNKNOWN;
    } else {
        status = run_check(&conf.check, json);
    }
    gw_config_free(&conf);
    return status;
}

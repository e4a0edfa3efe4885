/* `gpuwatch top`: argument parsing; the work is in top/top.c. */
#include "cli/args.h"
#include "cli/commands.h"
#include "top/top.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum { OPT_HOSTS = 1000, OPT_TIMEOUT, OPT_COLOR };

static const gw_opt top_opts[] = {
    {.name = "interval",
     .letter = 'i',
     .arg = "SEC",
     .help = "refresh period (default 1 s; 0.05 s to 24 h)"},
    {.name = "hosts",
     .key = OPT_HOSTS,
     .arg = "LIST",
     .help = "other nodes' `gpuwatch serve` (node1:9400,node2:9400): one line per GPU; a host "
             "that does not answer is stale"},
    {.name = "timeout",
     .key = OPT_TIMEOUT,
     .arg = "SEC",
     .help = "how long to wait for a host's answer (default 2 s)"},
    {.name = "color",
     .key = OPT_COLOR,
     .arg = "WHEN",
     .complete = GW_COMPL_VALUES,
     .values = "auto always never",
     .help = "auto (default: unless NO_COLOR is set) or never"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_top = {
    .name = "top",
    .summary = "full-screen view: history, processes, many hosts (docs/top.md)",
    .synopsis = "gpuwatch top [-i SEC] [--hosts HOST:PORT,...] [--timeout SEC]\n"
                "             [--color WHEN]",
    .description = "A full-screen view of every GPU: GPU-Util, SM activity, memory, power,\n"
                   "temperature, clocks and why they are held down, charts of the last 5 minutes;\n"
                   "and its processes (user, CPU, host memory, role, recorded run) to sort,\n"
                   "filter and signal. Press h for the keys.",
    .opts = top_opts,
    .notes = "docs/top.md.",
    .exit_status = "0; 1 no terminal, no GPU or NVML unusable;\n2 usage error.",
    .examples = "gpuwatch top\ngpuwatch top --hosts node1:9400,node2:9400",
    .environment = GW_ENV_NVML GW_ENV_COLOR,
};

static int usage_error(const char *msg)
{
    fprintf(stderr, "gpuwatch top: %s (gpuwatch top --help)\n", msg);
    return 2;
}

int gw_cmd_top(int argc, char **argv)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_top, &g);
    gw_top_config cfg = {.interval_ms = 1000, .timeout_s = 2.0};
    gw_error err = {0};
    int64_t timeout_ms = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (gw_args_interval("-i", optarg, &cfg.interval_ms, &err))
                return usage_error(err.msg);
            break;
        case OPT_HOSTS:
            cfg.hosts = optarg;
            break;
        case OPT_TIMEOUT:
            if (gw_args_duration("--timeout", optarg, &timeout_ms, &err))
                return usage_error(err.msg);
            cfg.timeout_s = (double)timeout_ms / 1000.0;
            break;
        case OPT_COLOR:
            if (strcmp(optarg, "never") != 0 && strcmp(optarg, "auto") != 0 &&
                strcmp(optarg, "always") != 0)
                return usage_error("--color takes auto, always or never");
            cfg.no_color = strcmp(optarg, "never") == 0;
            break;
        case 'h':
            gw_help_print(&gw_spec_top);
            return 0;
        default:
            fprintf(stderr,
                    "gpuwatch top: unknown option '%s' or missing value (gpuwatch top --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc)
        return usage_error("top takes no arguments, only options");
    return gw_top_main(&cfg);
}

int gw_top_from_live(int64_t interval_ms, bool no_color)
{
    gw_top_config cfg = {.interval_ms = interval_ms, .timeout_s = 2.0, .no_color = no_color};
    return gw_top_main(&cfg);
}

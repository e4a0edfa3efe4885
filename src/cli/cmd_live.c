/* `gpuwatch` with no command (or only options): argument parsing; the work is in live/live.c. */
#include "cli/args.h"
#include "cli/commands.h"
#include "live/live.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_JSON = 1000, OPT_COLOR, OPT_COUNT, OPT_COMPACT };

static const gw_opt live_opts[] = {
    {.name = "interval",
     .letter = 'i',
     .arg = "SEC",
     .help = "refresh every SEC seconds in place until Ctrl-C (0.05 s to 24 h; on a terminal: "
             "`gpuwatch top`)"},
    {.name = "json",
     .key = OPT_JSON,
     .help = "one JSON document instead (one per line with -i; docs/live-view.md)"},
    {.name = "color",
     .key = OPT_COLOR,
     .arg = "WHEN",
     .complete = GW_COMPL_VALUES,
     .values = "auto always never",
     .help = "auto (default: on a terminal unless NO_COLOR is set), always, never"},
    {.name = "count", .key = OPT_COUNT, .arg = "N", .help = "with -i: stop after N refreshes"},
    {.name = "compact",
     .key = OPT_COMPACT,
     .help = "with -i on a terminal: this view, not `gpuwatch top`"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_live = {
    .name = "",
    .summary = "watch NVIDIA GPUs while deep-learning jobs train",
    .synopsis = "gpuwatch [-i SEC] [--json] [--color auto|always|never] [--count N]\n"
                "gpuwatch COMMAND [ARGS...]",
    .description =
        "With no command: every GPU on one line (temperature, GPU-Util, SM activity where the GPU "
        "has GPM,\nmemory used / total, power draw / limit) with its MIG devices and processes "
        "below it.",
    .opts = live_opts,
    .notes =
        "`gpuwatch COMMAND --help` describes a command, `gpuwatch help COMMAND` shows its "
        "manual page. Documentation: docs/ and README.md (installed in /usr/share/doc/gpuwatch).",
    .exit_status = "0, 1 no GPU or NVML unusable, 2 usage error; a command's own: its page.",
    .examples = "gpuwatch\ngpuwatch -i 1\ngpuwatch --json",
    .environment = GW_ENV_NVML GW_ENV_COLOR "COLUMNS\tthe width of the view in a pipe (default "
                                            "80)\n",
};

static int usage_error(const char *msg)
{
    fprintf(stderr, "gpuwatch: %s; see gpuwatch --help\n", msg);
    return 2;
}

static bool parse_color(const char *s, gw_color_mode *out)
{
    static const struct {
        const char *name;
        gw_color_mode mode;
    } modes[] = {{"auto", GW_COLOR_AUTO}, {"always", GW_COLOR_ALWAYS}, {"never", GW_COLOR_NEVER}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(s, modes[i].name) == 0) {
            *out = modes[i].mode;
            return true;
        }
    }
    return false;
}

int gw_cmd_live(int argc, char **argv)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_live, &g);
    gw_live_config cfg = {.color = GW_COLOR_AUTO};
    gw_error err = {0};
    bool compact = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'i':
            if (gw_args_interval("-i", optarg, &cfg.interval_ms, &err))
                return usage_error(err.msg);
            break;
        case OPT_JSON:
            cfg.json = true;
            break;
        case OPT_COLOR:
            if (!parse_color(optarg, &cfg.color))
                return usage_error("--color takes auto, always or never");
            break;
        case OPT_COUNT:
            cfg.count = strtoll(optarg, &end, 10);
            if (!end || *end || cfg.count < 1)
                return usage_error("--count takes a number of refreshes, 1 or more");
            break;
        case OPT_COMPACT:
            compact = true;
            break;
        case 'h':
            gw_help_print(&gw_spec_live);
            return 0;
        default:
            fprintf(stderr,
                    "gpuwatch: unknown option '%s' or missing value (a command comes first); see "
                    "gpuwatch --help\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc)
        return usage_error("options only here: commands come first (gpuwatch query ...)");
    if (cfg.count && !cfg.interval_ms)
        return usage_error("--count needs -i SEC");
    /* refreshing on a terminal: the full-screen view (docs/top.md) */
    if (cfg.interval_ms && !cfg.json && !cfg.count && !compact && isatty(STDOUT_FILENO) &&
        isatty(STDIN_FILENO))
        return gw_top_from_live(cfg.interval_ms, cfg.color == GW_COLOR_NEVER);
    return gw_live_main(&cfg);
}

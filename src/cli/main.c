/* gpuwatch: dispatches to a subcommand; see commands.h. */
#include "cli/commands.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct gw_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} gw_command;

static const gw_command commands[] = {
    {"run", gw_cmd_run, "run a command and record every GPU and its CPU side"},
    {"record", gw_cmd_record, "record every GPU without a command"},
    {"report", gw_cmd_report, "say whether the GPU was busy and, if not, why, from recordings"},
    {"plot", gw_cmd_plot, "draw a recording as a PNG or SVG chart"},
    {"check", gw_cmd_check, "check every GPU before training (Nagios exit codes)"},
    {"query", gw_cmd_query, "nvidia-smi --query-gpu compatible CSV (gpuwatch query --help)"},
    {"mark", gw_cmd_mark, "record a marker (epoch, step, ...) in the run that wraps this job"},
    {"log", gw_cmd_log, "the job's output with bar redraws collapsed and each line's time"},
    {"top", gw_cmd_top, "full-screen view: history, processes, many hosts (docs/top.md)"},
    {"serve", gw_cmd_serve, "serve every GPU's values to Prometheus (dcgm-exporter's names)"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: gpuwatch [-i SEC] [--json] [--color auto|always|never] [--count N]\n"
                "       gpuwatch COMMAND [ARGS...]\n\n"
                "With no command: every GPU on one line, its MIG devices and processes below.\n"
                "  -i SEC     refresh every SEC seconds (on a terminal: `gpuwatch top`)\n"
                "  --json     one JSON document instead (docs/live-view.md)\n"
                "  --color    auto (on a terminal, unless NO_COLOR is set), always or never\n"
                "  --count N  with -i: stop after N refreshes\n"
                "\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n`gpuwatch COMMAND --help` describes a command. Documentation: docs/ and "
                "README.md.\n");
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) fails a write with EFBIG, said and handled like a full disk,
     * instead of killing gpuwatch with SIGXFSZ: `gpuwatch report --json FILE` died silently.
     * Commands gpuwatch starts get the default back (run/child.c, alerts/hook.c). */
    signal(SIGXFSZ, SIG_IGN);
    const char *first = argc >= 2 ? argv[1] : "";
    if (argc == 2 && (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0)) {
        gw_cli_help_with(usage);
        return 0;
    }
    if (strcmp(first, "--version") == 0) {
        printf("gpuwatch %s\n", GPUWATCH_VERSION);
        return 0;
    }
    if (argc < 2 || first[0] == '-') /* no command: the live view */
        return gw_cmd_live(argc, argv);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(first, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gpuwatch: unknown command '%s': run `gpuwatch --help` for the list\n", first);
    return 2;
}

/* gpuwatch: dispatches to a subcommand; see commands.h. */
#include "cli/commands.h"

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
    {"mark", gw_cmd_mark, "record a marker (epoch, step, ...) in the run that wraps this job"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: gpuwatch COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n`gpuwatch COMMAND --help` describes a command. Documentation: docs/ and "
                "README.md.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gpuwatch %s\n", GPUWATCH_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gpuwatch: unknown command '%s': run `gpuwatch --help` for the list\n",
            argv[1]);
    return 2;
}

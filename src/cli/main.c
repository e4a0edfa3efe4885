/* gpuwatch: dispatches to a subcommand; see commands.h. */
#include "cli/commands.h"
#include "cli/hints.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct gw_command {
    const gw_cmd_spec *spec; /* name, summary, options: optspec.h */
    int (*fn)(int argc, char **argv);
} gw_command;

static const gw_command commands[] = {
    {&gw_spec_run, gw_cmd_run},         {&gw_spec_record, gw_cmd_record},
    {&gw_spec_report, gw_cmd_report},   {&gw_spec_plot, gw_cmd_plot},
    {&gw_spec_check, gw_cmd_check},     {&gw_spec_query, gw_cmd_query},
    {&gw_spec_mark, gw_cmd_mark},       {&gw_spec_log, gw_cmd_log},
    {&gw_spec_top, gw_cmd_top},         {&gw_spec_serve, gw_cmd_serve},
    {&gw_spec_compare, gw_cmd_compare},
};

/* `gpuwatch help [COMMAND]`: the list of commands, or a command's manual page as text. */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: gpuwatch help COMMAND\n\nThe manual page of a command, as `man "
               "gpuwatch-COMMAND` shows it\nwhen installed; `gpuwatch help gpuwatch`: "
               "gpuwatch(1).\n\ncommands:\n");
        for (size_t i = 1; i < gw_cli_spec_count; i++)
            printf("  %-8s %s\n", gw_cli_specs[i]->name, gw_cli_specs[i]->summary);
        return 0;
    }
    const gw_cmd_spec *spec =
        strcmp(argv[1], "gpuwatch") == 0 ? &gw_spec_live : gw_cli_spec_find(argv[1]);
    if (!spec || argc > 2) {
        fprintf(stderr,
                "gpuwatch help: %s '%s': give one command of `gpuwatch help` (e.g. gpuwatch help "
                "run)\n",
                spec ? "one command only, not" : "unknown command", argv[spec ? 2 : 1]);
        return 2;
    }
    gw_pager pager; /* on a terminal, as `git help` and `man` do */
    gw_man_text(spec, gw_pager_open(&pager));
    gw_pager_close(&pager);
    return 0;
}

static int dispatch(int argc, char **argv);

/* What main returns once stdout is flushed: a write that failed (a full disk, /dev/full, a
 * file-size limit) is one line and exit status 1, instead of a cut-short output and status 0.
 * `run` keeps its command's status (docs/exit-codes.md) and only says so. */
static int finish(int rc, bool is_run)
{
    errno = 0;
    if ((fflush(stdout) == 0 && !ferror(stdout)) || (rc != 0 && !is_run))
        return rc;      /* a command that failed has said why already (report --json -) */
    if (errno == EPIPE) /* the reader of a pipe went away (`| head`): what it read is whole */
        return rc;
    fprintf(stderr,
            "gpuwatch: could not write the output (%s): free some space or write it elsewhere\n",
            errno ? strerror(errno) : "write error");
    return is_run ? rc : 1;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    return finish(rc, argc >= 2 && strcmp(argv[1], "run") == 0);
}

static int dispatch(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) fails a write with EFBIG, said and handled like a full disk,
     * instead of killing gpuwatch with SIGXFSZ: `gpuwatch report --json FILE` died silently.
     * Commands gpuwatch starts get the default back (run/child.c, alerts/hook.c). */
    signal(SIGXFSZ, SIG_IGN);
    const char *first = argc >= 2 ? argv[1] : "";
    if (argc == 2 && (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0)) {
        gw_help_print(&gw_spec_live);
        return 0;
    }
    if (strcmp(first, "--version") == 0) {
        printf("gpuwatch %s\n", GPUWATCH_VERSION);
        return 0;
    }
    if (strcmp(first, "help") == 0)
        return help(argc - 1, argv + 1);
    if (strcmp(first, "__generate") == 0 && argc == 3) /* the build's: cmake/docs.cmake */
        return gw_cli_generate(argv[2]);
    if (argc < 2 || first[0] == '-') /* no command: the live view */
        return gw_hint_option(&gw_spec_live, argc, argv) ? 2 : gw_cmd_live(argc, argv);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(first, commands[i].spec->name) == 0)
            return gw_hint_option(commands[i].spec, argc - 1, argv + 1)
                       ? 2
                       : commands[i].fn(argc - 1, argv + 1);
    const char *near = gw_hint_command(first);
    if (near)
        fprintf(stderr, "gpuwatch: unknown command '%s': did you mean %s?\n", first, near);
    else
        fprintf(stderr, "gpuwatch: unknown command '%s': run `gpuwatch --help` for the list\n",
                first);
    return 2;
}

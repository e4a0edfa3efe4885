/* `gpuwatch mark`: argument parsing; the event and the append are in mark/mark.c. */
#include "cli/commands.h"
#include "mark/mark.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const gw_opt mark_opts[] = {
    {.name = "field",
     .letter = 'f',
     .arg = "KEY=VALUE",
     .repeat = 1,
     .help = "a field of the marker; VALUE is a number when it reads as one"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_mark = {
    .name = "mark",
    .summary = "record a marker (epoch, step, ...) in the run that wraps this job",
    .synopsis = "gpuwatch mark TEXT [--field KEY=VALUE ...]",
    .description =
        "Inside `gpuwatch run` (from the command or any process it starts), records a marker in "
        "the\nrun's events.jsonl: the report lines it up with the GPU's samples. Markers named "
        "epoch\nand validation feed the report's epochs and dips; all are listed "
        "(docs/markers.md).\nOutside a run it does nothing and exits 0 (with a notice when stderr "
        "is a terminal).",
    .opts = mark_opts,
    .exit_status = "0 recorded or outside a run, 1 events.jsonl could not be written, 2 usage.",
    .examples = "gpuwatch mark epoch --field n=3 --field lr=0.01",
    .help_example = 1,
    .environment = "GPUWATCH_RUN_DIR\tthe run to write to, set by `gpuwatch run` for its command\n",
    .files = "$GPUWATCH_RUN_DIR/events.jsonl\tthe run's events, where the marker is appended\n",
};

static int usage_error(const char *msg)
{
    fprintf(stderr, "gpuwatch mark: %s; see gpuwatch mark --help\n", msg);
    return 2;
}

int gw_cmd_mark(int argc, char **argv)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_mark, &g);
    gw_event_fields fields = {0};
    gw_error err = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        if (c == 'f' && gw_mark_field(&fields, optarg, &err) == GW_OK)
            continue;
        gw_event_fields_free(&fields);
        if (c == 'h') {
            gw_help_print(&gw_spec_mark);
            return 0;
        }
        if (c == 'f')
            return usage_error(err.msg);
        fprintf(stderr,
                "gpuwatch mark: unknown option '%s' or missing value; see gpuwatch mark --help\n",
                argv[optind - 1]);
        return 2;
    }
    if (argc - optind != 1) {
        gw_event_fields_free(&fields);
        return usage_error(argc == optind ? "no TEXT given"
                                          : "more than one TEXT: quote it (gpuwatch mark "
                                            "\"validation start\")");
    }
    gw_event ev = gw_mark_event(argv[optind], &fields, (long)getppid(), 0);
    bool written = false;
    gw_rc rc = gw_mark_append(getenv("GPUWATCH_RUN_DIR"), &ev, &written, &err);
    gw_event_fields_free(&fields);
    if (rc) {
        fprintf(stderr, "gpuwatch mark: %s\n", err.msg);
        return 1;
    }
    /* Scripts call this in loops: the notice is for a person at a terminal only. */
    if (!written && isatty(STDERR_FILENO))
        fprintf(stderr, "gpuwatch mark: not inside `gpuwatch run` (GPUWATCH_RUN_DIR names no "
                        "run): nothing recorded\n");
    return 0;
}

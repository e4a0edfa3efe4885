/* `gpuwatch mark`: argument parsing; the event and the append are in mark/mark.c. */
#include "cli/commands.h"
#include "mark/mark.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char mark_usage[] =
    "usage: gpuwatch mark TEXT [--field KEY=VALUE ...]\n"
    "\n"
    "Inside `gpuwatch run` (from the command or any process it starts), records a marker in the\n"
    "run's events.jsonl: the report lines it up with the GPU's samples. Markers named epoch\n"
    "and validation feed the report's epochs and dips; all are listed (docs/markers.md).\n"
    "Outside a run it does nothing and exits 0 (with a notice when stderr is a terminal).\n"
    "\n"
    "  -f, --field KEY=VALUE  a field of the marker; VALUE is a number when it reads as one\n"
    "  -h, --help             this text\n"
    "\n"
    "Exit status: 0 recorded or outside a run, 1 events.jsonl could not be written, 2 usage.\n"
    "Example: gpuwatch mark epoch --field n=3 --field lr=0.01\n";

static int usage_error(const char *msg)
{
    fprintf(stderr, "gpuwatch mark: %s; see gpuwatch mark --help\n", msg);
    return 2;
}

int gw_cmd_mark(int argc, char **argv)
{
    static const struct option opts[] = {{"field", required_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    gw_event_fields fields = {0};
    gw_error err = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
        if (c == 'f' && gw_mark_field(&fields, optarg, &err) == GW_OK)
            continue;
        gw_event_fields_free(&fields);
        if (c == 'h') {
            gw_cli_help(mark_usage);
            return 0;
        }
        return usage_error(c == 'f' ? err.msg : "unknown option or missing value");
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

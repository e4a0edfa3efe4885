/* `gpuwatch log`: argument parsing; the cleaning is in logread/outclean.c. */
#include "cli/commands.h"
#include "logread/logread.h"
#include "logread/outclean.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const gw_opt log_opts[] = {{.name = "no-times", .key = 'n', .help = "the lines only"},
                                  {.name = "help", .letter = 'h', .help = "this text"},
                                  {0}};

const gw_cmd_spec gw_spec_log = {
    .name = "log",
    .summary = "the job's output with bar redraws collapsed and each line's time",
    .synopsis = "gpuwatch log RUN_DIR|OUTPUT_LOG [--no-times]",
    .description =
        "Prints the job's output as a person reads it: each progress bar's redraws collapsed to\n"
        "its last state, every line with the time it was printed (UTC, from output.idx).",
    .opts = log_opts,
    .notes = "Details: docs/epochs.md.",
    .exit_status = "0 success, 1 the log cannot be read, 2 usage.",
    .examples = "gpuwatch log runs/exp1 | less",
    .help_example = 1,
    .files = "DIR/output.log\tthe command's output as it was written\n"
             "DIR/output.idx\tthe time of each line\n",
    .operands = GW_COMPL_FILE,
};

static void print_line(void *ctx, const char *line, size_t len, int64_t t_ms)
{
    const bool *times = ctx;
    if (*times && t_ms) {
        char ts[GW_RFC3339_LEN];
        printf("%s  ", gw_rfc3339_ms(t_ms, ts));
    }
    fwrite(line, 1, len, stdout);
    putchar('\n');
}

int gw_cmd_log(int argc, char **argv)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_log, &g);
    bool times = true;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        if (c == 'n') {
            times = false;
        } else if (c == 'h') {
            gw_help_print(&gw_spec_log);
            return 0;
        } else {
            fprintf(stderr,
                    "gpuwatch log: unknown option '%s' or missing value; see gpuwatch log --help\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fputs("gpuwatch log: give one run directory or output.log: gpuwatch log RUN_DIR; see "
              "gpuwatch log --help\n",
              stderr);
        return 2;
    }
    const char *arg = argv[optind];
    struct stat st;
    bool dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
    char *log = dir ? xasprintf("%s/output.log", arg) : xstrdup(arg);
    char *idx = gw_logread_index_path(log);
    bool have_idx = stat(idx, &st) == 0;
    if (times && have_idx == false && stat(log, &st) == 0)
        fprintf(stderr,
                "gpuwatch log: %s not found: lines without times (a run recorded before "
                "output.idx existed keeps none)\n",
                idx);
    gw_error err = {0};
    gw_rc rc = gw_outclean_read(log, have_idx && times ? idx : NULL, print_line, &times, &err);
    if (rc)
        fprintf(stderr, "gpuwatch log: %s%s\n", err.msg,
                dir && lstat(log, &st) != 0
                    ? ": the directory is not a run of `gpuwatch run` (no output.log)"
                    : "");
    free(log);
    free(idx);
    return rc ? 1 : 0;
}

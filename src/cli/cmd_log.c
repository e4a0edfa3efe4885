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

static const char log_usage[] =
    "usage: gpuwatch log RUN_DIR|OUTPUT_LOG [--no-times]\n"
    "\n"
    "Prints the job's output as a person reads it: each progress bar's redraws collapsed to\n"
    "its last state, every line with the time it was printed (UTC, from output.idx).\n"
    "\n"
    "  --no-times  the lines only\n"
    "  -h, --help  this text\n"
    "\n"
    "Exit status: 0 success, 1 the log cannot be read, 2 usage. Details: docs/epochs.md.\n"
    "Example: gpuwatch log runs/exp1 | less\n";

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
    static const struct option opts[] = {
        {"no-times", no_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool times = true;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'n') {
            times = false;
        } else if (c == 'h') {
            fputs(log_usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "gpuwatch log: unknown option or missing value\n%s", log_usage);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "gpuwatch log: give one run directory or output.log\n%s", log_usage);
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
                dir ? ": the directory is not a run of `gpuwatch run` (no output.log)" : "");
    free(log);
    free(idx);
    return rc ? 1 : 0;
}

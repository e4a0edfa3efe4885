/*
 * inputs: the input options `gpuwatch report` and `gpuwatch plot` share (--log, --epoch-regex,
 * --columns, --interval) and reading every input into one finished series.
 *
 * Must not: analyse or render; commands decide what to do with the series.
 */
#ifndef GW_CLI_INPUTS_H
#define GW_CLI_INPUTS_H

#include "logread/logread.h"
#include "logread/series.h"
#include "util/gw_error.h"

#include "cli/optspec.h"

#include <getopt.h>

typedef struct gw_cli_inputs {
    const char *log;         /* --log FILE, or NULL */
    const char *epoch_regex; /* --epoch-regex RE, or NULL (the default) */
    gw_logread_opts read;    /* --columns, --interval */
    gw_series_scope scope;   /* --scope job|node; GW_SERIES_SCOPE_FROM_RUN when not given */
    char **paths;            /* the INPUT arguments */
    int npaths;
} gw_cli_inputs;

/* Option table entries (optspec.h) of the shared options (getopt codes 'l', 'e', 'c', 'i', 'S';
 * no short forms). */
#define GW_CLI_INPUT_OPTS                                                                          \
    {.name = "log",                                                                                \
     .key = 'l',                                                                                   \
     .arg = "FILE",                                                                                \
     .complete = GW_COMPL_FILE,                                                                    \
     .help = "training log whose lines start with a unix or RFC 3339 time; its epoch lines "       \
             "give the epochs"},                                                                   \
        {.name = "epoch-regex",                                                                    \
         .key = 'e',                                                                               \
         .arg = "RE",                                                                              \
         .help = "POSIX extended regex for epoch lines (default understands 'Epoch 3/100', "       \
                 "'Epoch 3:', '[Epoch 3]', 'epoch=3'); the first all-digit group is the epoch, "   \
                 "the next one the total"},                                                        \
        {.name = "columns",                                                                        \
         .key = 'c',                                                                               \
         .arg = "LIST",                                                                            \
         .complete = GW_COMPL_FIELDS,                                                              \
         .help = "the --query-gpu list of CSV written with noheader, or new names for the "        \
                 "columns of a CSV with a header"},                                                \
        {.name = "interval",                                                                       \
         .key = 'i',                                                                               \
         .arg = "SECONDS",                                                                         \
         .help = "row spacing for CSV without a timestamp column (default 1)"},                    \
    {                                                                                              \
        .name = "scope", .key = 'S', .arg = "job|node", .complete = GW_COMPL_VALUES,               \
        .values = "job node",                                                                      \
        .help = "job: only the run's own GPUs (meta.json \"job\"); node: every GPU, the others "   \
                "shown as not this job and never judged (default: the scope the run was "          \
                "recorded with, else job)"                                                         \
    }

/* Applies one shared option (code c with value arg) for command `cmd` ("report"). Returns 0 when
 * applied, 2 after printing a usage error, 1 when c is not a shared option. */
int gw_cli_input_option(const char *cmd, int c, const char *arg, gw_cli_inputs *in);

/* Reads every input, then the --log file, and finishes the series. Errors: those of the readers
 * (GW_E_IO, GW_E_FORMAT), GW_E_USAGE for a bad --epoch-regex. */
GW_MUST_USE gw_rc gw_cli_read_inputs(const gw_cli_inputs *in, gw_series *s, gw_error *err);

/* Prints one line on stderr per input with skipped rows: "gpuwatch: CMD: PATH: skipped ...". */
void gw_cli_warn_skipped(const char *cmd, const gw_series *s);

#endif

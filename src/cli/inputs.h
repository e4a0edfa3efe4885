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

#include <getopt.h>

typedef struct gw_cli_inputs {
    const char *log;         /* --log FILE, or NULL */
    const char *epoch_regex; /* --epoch-regex RE, or NULL (the default) */
    gw_logread_opts read;    /* --columns, --interval */
    gw_series_scope scope;   /* --scope job|node; GW_SERIES_SCOPE_FROM_RUN when not given */
    char **paths;            /* the INPUT arguments */
    int npaths;
} gw_cli_inputs;

/* getopt_long entries of the shared options (short codes 'l', 'e', 'c', 'i', 'S'). */
#define GW_CLI_INPUT_OPTIONS                                                                       \
    {"log", required_argument, NULL, 'l'}, {"epoch-regex", required_argument, NULL, 'e'},          \
        {"columns", required_argument, NULL, 'c'}, {"interval", required_argument, NULL, 'i'},     \
    {                                                                                              \
        "scope", required_argument, NULL, 'S'                                                      \
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

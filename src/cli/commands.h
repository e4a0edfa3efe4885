/*
 * commands: the entry point of each gpuwatch subcommand.
 *
 * Each function parses its own arguments (argv[0] is the subcommand name) and wires modules
 * together; it returns the process exit status documented in docs/exit-codes.md. Must not: hold
 * sampling, analysis or rendering logic; that lives in the modules the command calls.
 */
#ifndef GW_COMMANDS_H
#define GW_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

int gw_cmd_run(int argc, char **argv);
int gw_cmd_record(int argc, char **argv);
int gw_cmd_report(int argc, char **argv);
int gw_cmd_serve(int argc, char **argv);
int gw_cmd_plot(int argc, char **argv);
int gw_cmd_check(int argc, char **argv);
/* argv[0] is "gpuwatch" here: the live view runs when no command is given. */
int gw_cmd_live(int argc, char **argv);
int gw_cmd_query(int argc, char **argv);
int gw_cmd_mark(int argc, char **argv);
int gw_cmd_log(int argc, char **argv);
int gw_cmd_top(int argc, char **argv);
int gw_cmd_compare(int argc, char **argv);
/* `gpuwatch report --compare RUN...`: compare with --compare left out. */
int gw_cmd_report_compare(int argc, char **argv);
/* `gpuwatch -i SEC` on a terminal: the full-screen view (gw_cmd_top) refreshing every SEC. */
int gw_top_from_live(int64_t interval_ms, bool no_color);

#include "cli/optspec.h"

#include <stdio.h>

/* Each command's option table and texts (optspec.h); gw_spec_live is gpuwatch's own. */
extern const gw_cmd_spec gw_spec_live, gw_spec_run, gw_spec_record, gw_spec_report, gw_spec_plot,
    gw_spec_check, gw_spec_query, gw_spec_mark, gw_spec_log, gw_spec_top, gw_spec_serve,
    gw_spec_compare;

/* `gpuwatch __generate DIR`, run by the build: DIR/man/ (a page per command) and
 * DIR/completion/{gpuwatch.bash, _gpuwatch}. Returns the exit status (1: a file could not be
 * written, said on stderr). */
int gw_cli_generate(const char *dir);

#endif

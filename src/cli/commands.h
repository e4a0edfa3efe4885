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
/* `gpuwatch -i SEC` on a terminal: the full-screen view (gw_cmd_top) refreshing every SEC. */
int gw_top_from_live(int64_t interval_ms, bool no_color);

#include <stdio.h>

/* Prints a --help text to stdout fitted to 80 columns (util/gw_wrap.h): long lines wrap under
 * their description column. The second form prints what write_help writes. */
void gw_cli_help(const char *text);
void gw_cli_help_with(void (*write_help)(FILE *to));

#endif

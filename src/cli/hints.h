/*
 * hints: what the CLI says around a command rather than in it: "did you mean" for a mistyped
 * command or long option, and the pager of `gpuwatch help` on a terminal.
 *
 * Must not: parse a command's options (each command does, from its optspec table).
 */
#ifndef GW_CLI_HINTS_H
#define GW_CLI_HINTS_H

#include "cli/optspec.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The closest command name to word (at most 2 edits, or word a prefix of one name), else NULL. */
const char *gw_hint_command(const char *word);

/* Scans argv[1..argc) of command spec (argv[0] is its name) for a long option that the table does
 * not have but that is within 2 edits of one it has: prints "gpuwatch: CMD: unknown option
 * '--intervall': did you mean --interval?" on stderr and returns true. Stops at "--" and, for
 * commands that stop at their first operand ("+" getopt flags: run, record, check), there. An
 * unknown option with no close name is left to the command's own message. */
bool gw_hint_option(const gw_cmd_spec *spec, int argc, char **argv);

/* A pager for long text on a terminal, as git does: $GPUWATCH_PAGER, else $PAGER, else "less"
 * (with LESS=FRX unless LESS is set: quits when the text fits one screen, keeps colours), split
 * at spaces and exec'd with argv (no shell). Not a terminal, or a pager "" or "cat": none. */
typedef struct gw_pager {
    FILE *out; /* where to write: the pager's pipe, or stdout */
    pid_t pid; /* the pager, 0 when none */
} gw_pager;
FILE *gw_pager_open(gw_pager *p);
/* Closes the pipe and waits for the pager (a reader that quit early is not an error). */
void gw_pager_close(gw_pager *p);

#endif

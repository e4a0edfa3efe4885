/*
 * config_args: the options that choose and change gpuwatch.ini, shared by run, record and check.
 *
 *   --config FILE               read FILE after the system and user files (repeatable)
 *   --set SECTION.KEY=VALUE     change one key after every file (repeatable)
 *   --no-alerts                 no alert rules (run, record)
 *   --on-alert CMD [ARGS...] ;  the alert hook, exec'd without a shell (run, record); the ';' ends
 *                               its arguments; --on-alert=CMD takes a command without arguments
 *   --on-alert-timeout SEC      kill the hook after this long (default 10 s)
 *
 * Flags override files whatever their order on the command line. Must not: print; callers turn
 * errors into their usage message and exit status.
 */
#ifndef GW_CONFIG_ARGS_H
#define GW_CONFIG_ARGS_H

#include "config/config.h"
#include "util/gw_error.h"

#include "cli/optspec.h"

#include <getopt.h>
#include <stdbool.h>

enum {
    GW_OPT_CONFIG = 2000,
    GW_OPT_SET,
    GW_OPT_NO_ALERTS,
    GW_OPT_ON_ALERT,
    GW_OPT_ON_ALERT_TIMEOUT,
};

/* Option table entries (optspec.h): the configuration options, whose help differs between run
 * and check, and the alert options of run and record. */
#define GW_CONFIG_OPTS(config_help, set_arg, set_help)                                             \
    {.name = "config",                                                                             \
     .key = GW_OPT_CONFIG,                                                                         \
     .arg = "FILE",                                                                                \
     .complete = GW_COMPL_FILE,                                                                    \
     .repeat = 1,                                                                                  \
     .help = config_help},                                                                         \
    {                                                                                              \
        .name = "set", .key = GW_OPT_SET, .arg = set_arg, .repeat = 1, .help = set_help            \
    }
#define GW_ALERT_OPTS                                                                              \
    {.name = "no-alerts", .key = GW_OPT_NO_ALERTS, .help = "no alert rules"},                      \
        {.name = "on-alert",                                                                       \
         .key = GW_OPT_ON_ALERT,                                                                   \
         .arg = "CMD [ARGS...] ';'",                                                               \
         .complete = GW_COMPL_COMMAND,                                                             \
         .help = "run CMD (no shell) when an alert fires or resolves, with GPUWATCH_ALERT, "       \
                 "_SEVERITY, _GPU, _VALUE, _THRESHOLD, _STATE set"},                               \
    {                                                                                              \
        .name = "on-alert-timeout", .key = GW_OPT_ON_ALERT_TIMEOUT, .arg = "SEC",                  \
        .help = "kill the hook after this long (default 10)"                                       \
    }

enum { GW_CONFIG_ARGS_MAX = 64 };

typedef struct gw_config_args {
    const char *files[GW_CONFIG_ARGS_MAX];
    int nfiles;
    const char *sets[GW_CONFIG_ARGS_MAX];
    int nsets;
    bool no_alerts;
    char **hook_argv; /* points into the command line; hook_argc words */
    int hook_argc;
    char *hook_single;       /* CMD of --on-alert=CMD */
    int64_t hook_timeout_ms; /* 0: not given */
} gw_config_args;

/* Takes getopt_long's result c when it is one of the options above. For --on-alert it consumes
 * the hook's arguments up to ';' from argv and moves optind past them. Returns 1 when taken, 0 when
 * c is not one of these, -1 on a bad value (err filled, GW_E_USAGE). */
int gw_config_args_take(gw_config_args *a, int c, int argc, char **argv, gw_error *err);

/* Builds the configuration: defaults, the system and user files, each --config file, each --set,
 * then the hook options and --no-alerts; validates it. out must have been gw_config_init'ed. */
GW_MUST_USE gw_rc gw_config_args_load(const gw_config_args *a, gw_config *out, gw_error *err);

#endif

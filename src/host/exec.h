/*
 * exec: what a child process is started with — the command's path as execvp would find it, and
 * its environment. Used by `run` for the wrapped command (src/run/child.c) and by alert hooks
 * (src/alerts/hook.c, checked at config time by src/config).
 *
 * Must not: fork, exec or wait (run/child.c and alerts/hook.c do).
 */
#ifndef GW_EXEC_H
#define GW_EXEC_H

#include "util/gw_error.h"

/* Finds cmd like execvp would: a name with '/' is taken as is, else searched in $PATH. Errors:
 * GW_E_NOTFOUND ("command not found"), GW_E_USAGE when it exists but cannot be executed. *out is
 * a new string. */
GW_MUST_USE gw_rc gw_child_resolve(const char *cmd, char **out, gw_error *err);

/* Builds an environment: the current one with each "NAME=value" of extra added or replaced. The
 * result and its strings are newly allocated; free with gw_child_free_env. */
char **gw_child_env(const char *const *extra);
void gw_child_free_env(char **env);

#endif

/*
 * rundir: creates the directory a recording goes into.
 *
 * An explicit directory must not exist (gpuwatch never overwrites a recording); its parents are
 * created. The default is runs/<UTC YYYYMMDD-HHMMSS>-<name> under the current directory, with -2,
 * -3, ... appended when that exists. Must not: write files into the directory.
 */
#ifndef GW_RUNDIR_H
#define GW_RUNDIR_H

#include "util/gw_error.h"

#include <stdint.h>

/* A short name for a command line: the script for interpreters ("python3 train.py" -> "train"),
 * else the program's base name; only [A-Za-z0-9._-] kept. Returns a new string. */
char *gw_rundir_name_hint(int argc, char *const argv[]);

/* Creates `requested`, or the default directory for `name` at wall time now_ms when requested is
 * NULL. *out_path receives the new directory's path (caller frees). Errors: GW_E_EXISTS when an
 * explicit directory exists, GW_E_IO when it cannot be created or written. */
GW_MUST_USE gw_rc gw_rundir_create(const char *requested, const char *name, int64_t now_ms,
                                   char **out_path, gw_error *err);

#endif
